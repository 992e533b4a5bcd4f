"""HyperPodDependencies: the Helm chart HyperPod nodes need (device plugins, health agent),
before the cluster: nodes joining without the NVIDIA and EFA device plugins offer no GPUs and
fail their health checks."""

from dataclasses import dataclass

import pulumi
import pulumi_kubernetes as k8s

from components.cluster.dependencies_chart import RELEASE_NAME, RELEASE_NAMESPACE, chart_values

INSTALL_TIMEOUT_SECONDS = 900


@dataclass(frozen=True)
class HyperPodDependenciesArgs:
    # The chart directory on disk (see `make chart`).
    chart_path: str
    region: str


class HyperPodDependencies(pulumi.ComponentResource):
    """Pass the cluster's Kubernetes provider in `opts.providers`."""

    def __init__(
        self, name: str, args: HyperPodDependenciesArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("hyperpod-dpd:hyperpod:HyperPodDependencies", name, None, opts)
        self.release = k8s.helm.v3.Release(
            name,
            name=RELEASE_NAME,
            namespace=RELEASE_NAMESPACE,
            chart=args.chart_path,
            dependency_update=True,
            values=chart_values(args.region),
            # No node exists yet to run the chart's pods; waiting for them would time out.
            skip_await=True,
            timeout=INSTALL_TIMEOUT_SECONDS,
            opts=pulumi.ResourceOptions(parent=self),
        )
        self.register_outputs({"release": self.release.name})
