"""`python -m infra chart`: bring the pinned HyperPod dependencies chart to disk for `pulumi up`.

Needs git, helm and access to GitHub and the chart's Helm repositories.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from components.cluster.dependencies_chart import CHART_DIRECTORY, CHART_REPOSITORY, CHART_REVISION

CHECKOUT = Path("build/charts/sagemaker-hyperpod-cli")


def fetch_chart(checkout: Path = CHECKOUT) -> Path:
    if not (checkout / ".git").is_dir():
        subprocess.run(["git", "init", "--quiet", str(checkout)], check=True)
    git = ["git", "-C", str(checkout)]
    subprocess.run(
        [*git, "fetch", "--quiet", "--depth", "1", CHART_REPOSITORY, CHART_REVISION], check=True
    )
    subprocess.run([*git, "checkout", "--quiet", "--force", "FETCH_HEAD"], check=True)
    chart = checkout / CHART_DIRECTORY
    # The chart's device plugins and cert-manager come from remote Helm repositories.
    subprocess.run(["helm", "dependency", "update", str(chart)], check=True)
    return chart
