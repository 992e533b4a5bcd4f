"""The typed description of the HyperPod Inference Operator this stack installs, or expects."""

from typing import Annotated

from pydantic import Field

from components.core.shaped import shaped_str
from components.core.spec import Spec
from components.operator.versions import (
    ADDON_VERSION,
    DEFAULT_ADDON_VERSION,
    DEPENDENCY_MINIMUMS,
    OPERATOR_VERSION,
)

OperatorVersion = shaped_str(
    OPERATOR_VERSION, "must be an operator version: two or three numbers, such as 3.2 or 3.3.1"
)


def addon_release(example: str) -> object:
    """An EKS add-on version, refused in words with `example`, a version the setting takes."""
    return shaped_str(
        ADDON_VERSION,
        f"must be an EKS add-on version: v, three numbers and an optional -eksbuild.N, such as "
        f"{example}",
    )


class InstalledOperator(Spec):
    """An operator already running in the cluster, named by its operator or add-on version:
    nothing is installed, the floor still holds."""

    operator_version: OperatorVersion | None = None
    addon_version: addon_release(DEFAULT_ADDON_VERSION) | None = None


def _pin(addon: str) -> object:
    """A pinned version of `addon`: its floor when unset, and the example when refused."""
    floor = DEPENDENCY_MINIMUMS[addon]
    return Annotated[addon_release(floor), Field(default=floor)]


class DependencyVersions(Spec):
    s3_csi_driver: _pin("aws-mountpoint-s3-csi-driver")
    fsx_csi_driver: _pin("aws-fsx-csi-driver")
    metrics_server: _pin("metrics-server")
    cert_manager: _pin("cert-manager")

    def by_addon(self) -> dict[str, tuple[str, str]]:
        """EKS add-on name -> (setting, version)."""
        return {
            "aws-mountpoint-s3-csi-driver": ("s3CsiDriver", self.s3_csi_driver),
            "aws-fsx-csi-driver": ("fsxCsiDriver", self.fsx_csi_driver),
            "metrics-server": ("metricsServer", self.metrics_server),
            "cert-manager": ("certManager", self.cert_manager),
        }


class OperatorSpec(Spec):
    addon_version: addon_release(DEFAULT_ADDON_VERSION) = DEFAULT_ADDON_VERSION
    # The operator an add-on version newer than this project's table ships.
    operator_version: OperatorVersion | None = None
    dependency_versions: DependencyVersions = DependencyVersions()
    # Create the role that downloads gated JumpStart models.
    gated_models: bool = False
    installed: InstalledOperator | None = None
