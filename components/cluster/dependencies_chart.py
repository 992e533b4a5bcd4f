"""The HyperPod dependencies Helm chart: which revision, and the values this project sets.

AWS publishes the chart only in the aws/sagemaker-hyperpod-cli repository, so it is installed
from a pinned revision brought to disk by `make chart`.
"""

CHART_REPOSITORY = "https://github.com/aws/sagemaker-hyperpod-cli"
# Tag v3.9.0: its device-plugin lists name every GPU instance type (a test holds them to the
# table), and it honours namespaced-role-and-bindings.enabled (fixed in v3.8.0).
CHART_REVISION = "b01cf90676553a711ab1a8ac51422adbb09aef6b"
CHART_DIRECTORY = "helm_chart/HyperPodHelmChart"
RELEASE_NAME = "hyperpod-dependencies"
RELEASE_NAMESPACE = "kube-system"


def chart_values(region: str) -> dict:
    return {
        "health-monitoring-agent": {"region": region},
        # The inference operator, its storage drivers and cert-manager come as EKS add-ons.
        "inferenceOperators": {"enabled": False},
        "cert-manager": {"enabled": False},
        # Training job controllers, which an inference cluster does not run.
        "trainingOperators": {"enabled": False},
        "mpi-operator": {"enabled": False},
    }
