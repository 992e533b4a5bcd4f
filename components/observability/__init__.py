"""HyperPod observability: the EKS add-on that collects metrics into Amazon Managed Prometheus.

- `spec`: the `observability` settings.
- `versions`: the add-on versions and the floor this project holds.
- `config`: the add-on's configuration values.
- `iam`: the collector's role and the Grafana workspace's role.
- `checks`: rules on the observability settings alone.
- `observability`: the `Observability` component.
"""
