"""The day the program runs, the one date-dependent input of the checks: UTC, as EKS's calendar
(eks_versions.py). Tests pin it (tests/conftest.py)."""

from datetime import UTC, date, datetime


def utc_today() -> date:
    return datetime.now(UTC).date()
