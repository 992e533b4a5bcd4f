"""The typed description of the HyperPod Inference Operator this stack installs, or expects."""

from __future__ import annotations

from pydantic import Field

from components.core.spec import Spec
from components.operator.versions import (
    ADDON_VERSION,
    DEFAULT_ADDON_VERSION,
    DEPENDENCY_MINIMUMS,
    OPERATOR_VERSION,
)


class InstalledOperator(Spec):
    """An operator already running in the cluster: nothing is installed, the floor still holds.

    Name its operator version, or the add-on version found in the cluster.
    """

    operator_version: str | None = Field(None, pattern=OPERATOR_VERSION)
    addon_version: str | None = Field(None, pattern=ADDON_VERSION)


class DependencyVersions(Spec):
    """Pins of the add-ons the operator needs; each at least its floor."""

    s3_csi_driver: str = Field(
        DEPENDENCY_MINIMUMS["aws-mountpoint-s3-csi-driver"], pattern=ADDON_VERSION
    )
    fsx_csi_driver: str = Field(DEPENDENCY_MINIMUMS["aws-fsx-csi-driver"], pattern=ADDON_VERSION)
    metrics_server: str = Field(DEPENDENCY_MINIMUMS["metrics-server"], pattern=ADDON_VERSION)
    cert_manager: str = Field(DEPENDENCY_MINIMUMS["cert-manager"], pattern=ADDON_VERSION)

    def by_addon(self) -> dict[str, tuple[str, str]]:
        """EKS add-on name -> (setting, version)."""
        return {
            "aws-mountpoint-s3-csi-driver": ("s3CsiDriver", self.s3_csi_driver),
            "aws-fsx-csi-driver": ("fsxCsiDriver", self.fsx_csi_driver),
            "metrics-server": ("metricsServer", self.metrics_server),
            "cert-manager": ("certManager", self.cert_manager),
        }


class OperatorSpec(Spec):
    addon_version: str = Field(DEFAULT_ADDON_VERSION, pattern=ADDON_VERSION)
    # The operator an add-on version newer than this project's table ships.
    operator_version: str | None = Field(None, pattern=OPERATOR_VERSION)
    dependency_versions: DependencyVersions = DependencyVersions()
    # Create the role that downloads gated JumpStart models.
    gated_models: bool = False
    installed: InstalledOperator | None = None
