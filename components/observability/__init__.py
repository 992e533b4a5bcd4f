"""HyperPod observability: the EKS add-on that collects metrics into Amazon Managed Prometheus,
and the Grafana dashboards and alerts over them.

- `spec`: the `observability` settings.
- `versions`: the add-on versions and the floor this project holds.
- `config`: the add-on's configuration values.
- `iam`: the collector's role and the Grafana workspace's role.
- `checks`: rules on the observability settings alone.
- `series`: the series the stack queries, with their documented labels and sources.
- `queries`: the PromQL over one role of an endpoint.
- `watched`: what the dashboards and alerts are told of each endpoint.
- `dashboard`: the DPD dashboard's JSON model.
- `alerts`: the SLO and autoscaling alert rules.
- `data_sources`: the Grafana data sources' settings.
- `dashboards`: the `Dashboards` component, writing all of it into Grafana.
- `observability`: the `Observability` component.
"""
