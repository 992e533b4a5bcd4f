"""The operator version floor and the dependency floors, as findings on `operator` settings."""

from components.core.findings import Finding, error
from components.operator.spec import OperatorSpec
from components.operator.versions import (
    DEPENDENCY_MINIMUMS,
    MINIMUM_OPERATOR,
    VersionError,
    at_least,
    operator_version,
)


def resolved_operator_version(spec: OperatorSpec) -> str:
    """The operator version the stack runs; raises VersionError below the floor."""
    installed = spec.installed
    if installed is None:
        return operator_version(spec.addon_version, spec.operator_version)
    if installed.addon_version is not None:
        return operator_version(installed.addon_version, installed.operator_version)
    assert installed.operator_version is not None  # checked by check_operator
    if not at_least(installed.operator_version, MINIMUM_OPERATOR):
        raise VersionError(
            f"operator {installed.operator_version} is too old; DPD needs operator "
            f"{MINIMUM_OPERATOR} or later"
        )
    return installed.operator_version


def check_operator(spec: OperatorSpec) -> list[Finding]:
    """Fields are relative to `operator`."""
    installed = spec.installed
    if installed is not None and not (installed.operator_version or installed.addon_version):
        return [
            error(
                "installed-version-unknown",
                "installed",
                "needs operatorVersion or addonVersion: the version running in the cluster",
            )
        ]
    found = []
    try:
        resolved_operator_version(spec)
    except VersionError as refused:
        if installed is None:
            field = "addonVersion"
        else:
            field = (
                "installed.addonVersion" if installed.addon_version else "installed.operatorVersion"
            )
        found.append(error("operator-version", field, str(refused)))
    if installed is None:
        for addon, (setting, version) in spec.dependency_versions.by_addon().items():
            floor = DEPENDENCY_MINIMUMS[addon]
            if not at_least(version, floor):
                found.append(
                    error(
                        "dependency-version",
                        f"dependencyVersions.{setting}",
                        f"{version} is too old for the operator; {addon} must be {floor} or later",
                    )
                )
    return found
