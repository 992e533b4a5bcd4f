"""Every test runs on one fixed day, so that none depends on the date it runs.

The checks follow EKS's Kubernetes calendar (components/cluster/eks_versions.py); a test that
needs another day passes its own date, or sets `infra.clock.utc_today` itself.
"""

from datetime import date

import pytest

from infra import clock

# The day the EKS and HyperPod version tables were read: 1.34 in standard support, 1.32 and
# 1.33 in extended support, 1.31 and older past it.
TODAY = date(2026, 12, 1)


@pytest.fixture(autouse=True)
def fixed_today(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(clock, "utc_today", lambda: TODAY)
