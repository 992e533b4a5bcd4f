"""The render summary's "After `pulumi up`" section: the stack's `nextSteps` export, in order."""

from __future__ import annotations

from typing import Any

# The order a user goes through them, and what each step is for.
ENDPOINT_STEPS = (
    ("uploadWeights", "put the weights in the model prefix (start once the bucket exists)"),
    ("waitUntilReady", "wait until it serves"),
    ("invokeSageMaker", "one request through the SageMaker endpoint"),
    ("invokeRouter", "one request through the router, from inside the cluster (plain HTTP on 443)"),
)


def _commands(value: str | list[str]) -> list[str]:
    return [value] if isinstance(value, str) else value


def next_steps_lines(steps: dict[str, Any] | None) -> list[str]:
    if steps is None:
        return []
    lines = ["", "After `pulumi up` (also `pulumi stack output nextSteps`):", "  kubeconfig:"]
    lines.append(f"    {steps['kubeconfig']}")
    for name, endpoint in steps["endpoints"].items():
        lines.append(f"  {name}:")
        for key, purpose in ENDPOINT_STEPS:
            if key not in endpoint:
                continue
            lines.append(f"    {purpose}:")
            lines += [f"      {command}" for command in _commands(endpoint[key])]
            if key == "waitUntilReady":
                ready = endpoint["readyMessage"]
                lines.append(f"      (returns once the operator reports: {ready})")
    metrics = steps["metrics"]
    if metrics:
        lines.append("  metrics and dashboards:")
        if "grafana" in metrics:
            lines.append(f"    Grafana {metrics['grafana']}")
        lines.append(
            f"    Amazon Managed Prometheus {metrics['prometheusEndpoint']} (SigV4 queries)"
        )
    return lines
