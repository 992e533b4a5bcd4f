"""The day the program runs, the one date-dependent input of the checks.

UTC, because EKS dates its Kubernetes release calendar in UTC+0 (eks_versions.py). Tests pin
it (tests/conftest.py), so that none depends on the day it runs.
"""

from __future__ import annotations

from datetime import UTC, date, datetime


def utc_today() -> date:
    return datetime.now(UTC).date()
