"""`hyperpod-dpd chart`: the pinned HyperPod dependencies chart on disk for `pulumi up` (needs
git, helm and network access). Fetched beside the checkout and moved into place once complete,
so a failure leaves the previous checkout, or none, never half a chart.
"""

import shutil
import subprocess
import tempfile
from pathlib import Path

from components.cluster.dependencies_chart import CHART_DIRECTORY, CHART_REPOSITORY, CHART_REVISION

CHECKOUT = Path("build/charts/sagemaker-hyperpod-cli")
TOOLS = ("git", "helm")


class ChartError(RuntimeError):
    """Why the chart could not be fetched, in one line."""


def _run(command: list[str], doing: str) -> None:
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        said = (done.stderr.strip() or done.stdout.strip()).splitlines()
        raise ChartError(f"{doing} failed: {said[-1] if said else f'exit {done.returncode}'}")


def fetch_chart(
    checkout: Path = CHECKOUT,
    repository: str = CHART_REPOSITORY,
    revision: str = CHART_REVISION,
) -> Path:
    """The chart directory, fetched at `revision`; raises ChartError with nothing changed."""
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    if missing:
        raise ChartError(
            f"{' and '.join(missing)} not found on PATH; install "
            f"{'them' if len(missing) > 1 else 'it'} and run it again"
        )
    checkout.parent.mkdir(parents=True, exist_ok=True)
    # Beside the checkout, so that the final move is a rename within one file system.
    with tempfile.TemporaryDirectory(prefix=".chart-", dir=checkout.parent) as scratch:
        staged = Path(scratch) / "checkout"
        git = ["git", "-C", str(staged)]
        _run(["git", "init", "--quiet", str(staged)], "git init")
        _run(
            [*git, "fetch", "--quiet", "--depth", "1", repository, revision],
            f"fetching {revision[:12]} from {repository} (is the network up?)",
        )
        _run([*git, "checkout", "--quiet", "FETCH_HEAD"], "git checkout")
        # The chart's device plugins and cert-manager come from remote Helm repositories.
        _run(
            ["helm", "dependency", "update", str(staged / CHART_DIRECTORY)],
            "helm dependency update (are the chart's Helm repositories reachable?)",
        )
        if checkout.exists():
            checkout.rename(Path(scratch) / "previous")
        staged.rename(checkout)
    return checkout / CHART_DIRECTORY
