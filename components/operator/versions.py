"""Which HyperPod Inference Operator an EKS add-on version ships, and the floors this project holds.

DPD exists from operator 3.2 on; older operators crash DPD pods with `EngineDeadError`.
"""

import re

ADDON_NAME = "amazon-sagemaker-hyperpod-inference"
MINIMUM_OPERATOR = "3.2"
# The add-on's tag naming the operator version the program resolved, which the policy pack takes
# as declared, so that an add-on newer than the table below passes there too.
OPERATOR_VERSION_TAG = "hyperpod-dpd/operator-version"

# Add-on release (without its -eksbuild suffix) -> operator version, from the HyperPod Inference
# release notes. Operators 3.5 to 3.7 exist as Helm charts (aws/sagemaker-hyperpod-cli #455,
# #461, #464), but no release note read here names the add-on version that ships them: for such
# an add-on, name its operator in operator.operatorVersion.
ADDON_OPERATOR_VERSIONS = {
    "1.0.0": "3.0",
    "1.2.0": "3.1.2",
    "1.2.1": "3.1.3",
    "1.3.0": "3.2",
    "1.4.0": "3.3",
    "1.5.0": "3.4",
}
# The newest add-on version this project knows.
DEFAULT_ADDON_VERSION = "v1.5.0-eksbuild.1"

# The add-ons the operator needs, with the oldest versions it works with.
DEPENDENCY_MINIMUMS = {
    "aws-mountpoint-s3-csi-driver": "v1.14.1-eksbuild.1",
    # Needed even without FSx: the operator's init container checks for it.
    "aws-fsx-csi-driver": "v1.6.0-eksbuild.1",
    "metrics-server": "v0.7.2-eksbuild.4",
    "cert-manager": "v1.18.2-eksbuild.2",
}

ADDON_VERSION = r"^v\d+\.\d+\.\d+(-eksbuild\.\d+)?$"
OPERATOR_VERSION = r"^\d+\.\d+(\.\d+)?$"


class VersionError(ValueError):
    """A version this project refuses, with the reason."""


def _numbers(version: str) -> tuple[int, ...]:
    return tuple(int(n) for n in re.findall(r"\d+", version))


def release(addon_version: str) -> str:
    """`1.3.0` from `v1.3.0-eksbuild.1`."""
    return addon_version.removeprefix("v").split("-", 1)[0]


def at_least(version: str, minimum: str) -> bool:
    """Numeric comparison; a missing -eksbuild suffix counts as build 0."""
    return _numbers(version) >= _numbers(minimum)


def operator_version(addon_version: str, declared: str | None = None) -> str:
    """The operator an add-on version ships, at least 3.2; `declared` names it for add-on
    versions newer than the table."""
    known = ADDON_OPERATOR_VERSIONS.get(release(addon_version))
    if known is not None and declared is not None and declared != known:
        raise VersionError(f"{addon_version} ships operator {known}, not {declared}")
    version = known or declared
    if version is None:
        listed = ", ".join(f"v{r} (operator {o})" for r, o in ADDON_OPERATOR_VERSIONS.items())
        raise VersionError(
            f"{addon_version} is not a version this project knows ({listed}); for a newer "
            "add-on, name the operator it ships in operator.operatorVersion"
        )
    if not at_least(version, MINIMUM_OPERATOR):
        raise VersionError(
            f"{addon_version} ships operator {version}; DPD needs operator {MINIMUM_OPERATOR} "
            f"or later, which is add-on v1.3.0-eksbuild.1 or later"
        )
    return version
