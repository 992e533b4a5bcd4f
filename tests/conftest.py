"""Every test runs on one fixed day, so that none depends on the date it runs.

The checks follow EKS's Kubernetes calendar (components/cluster/eks_versions.py); a test that
needs another day passes its own date, or sets `infra.clock.utc_today` itself.
"""

import gc

import pytest

from infra import clock
from infra.collector import YOUNG_THRESHOLD
from tests.support import TODAY, dev_config, prod_config, render
from tools.render.render import RenderResult


@pytest.fixture(autouse=True)
def fixed_today(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(clock, "utc_today", lambda: TODAY)


def pytest_collection_finish(session: pytest.Session) -> None:
    """The collector's schedule `hyperpod-dpd` renders under (infra/collector.py), for
    the whole run: the suite renders hundreds of stacks, and little of what they allocate is
    garbage. It takes about a fifth off the suite's CPU time."""
    gc.freeze()
    gc.set_threshold(YOUNG_THRESHOLD, *gc.get_threshold()[1:])


# The example stacks as shipped, rendered once per process for every module that reads them.
# A test that needs a variant changes a copy.


@pytest.fixture(scope="session")
def dev_render() -> RenderResult:
    return render(dev_config(), stack="dev")


@pytest.fixture(scope="session")
def prod_render() -> RenderResult:
    return render(prod_config(), stack="prod")
