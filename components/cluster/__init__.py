"""The clusters: EKS (pulumi-eks) and the HyperPod cluster that joins its nodes to it, with its
instance groups, lifecycle scripts, dependencies chart and node autoscaling (docs/architecture.md
lists the modules)."""
