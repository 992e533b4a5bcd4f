"""The clusters: EKS (pulumi-eks) and the HyperPod cluster that joins its nodes to it.

- `spec`, `checks`: the `cluster` settings and its instance groups, and every cluster rule.
- `eks`, `eks_access`, `kubeconfig`: the `EksCluster` and `AdoptedEksCluster` components, their
  access entries and the kubeconfig they hand to the Kubernetes provider.
- `node_addons`: the EKS add-ons that wait for nodes (coredns).
- `instance_types`: the GPU instance table (GPUs, HBM, EFA, whether DPD runs on each).
- `instance_groups`: instance group arguments and their checks.
- `hyperpod`, `hyperpod_iam`: the `HyperPodCluster` component and its execution role's policy.
- `lifecycle_bundle`, `lifecycle_scripts`: the node lifecycle scripts and their upload.
- `dependencies_chart`, `dependencies`: the HyperPod dependencies Helm chart and its release.
"""
