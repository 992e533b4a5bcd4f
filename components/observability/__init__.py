"""HyperPod observability: the EKS add-on that collects metrics into Amazon Managed Prometheus,
and the Grafana dashboards and alerts over them (docs/architecture.md lists the modules)."""
