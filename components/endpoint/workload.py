"""The traffic an endpoint's `workload` describes, against the endpoint that is to serve it.
Fields are relative to the endpoint (`workload.outputTokens`)."""

from components.core.findings import Finding, error, warning
from components.endpoint.spec import EndpointSpec


def check_context(spec: EndpointSpec, length: str = "maxModelLen") -> list[Finding]:
    """What the longest request vLLM serves (`maxModelLen`, or the model's context, which
    `length` then says) leaves out: a routingThreshold no prompt reaches, and a typical request
    vLLM refuses as longer than the maximum model length (vllm/v1/engine/processor.py)."""
    limit = spec.max_model_len
    if limit is None:
        return []  # the length is then the model's own, checked once it is known
    found = []
    if not spec.aggregated and spec.routing_threshold >= limit:
        found.append(
            error(
                "threshold-above-context",
                "routingThreshold",
                f"{spec.routing_threshold:,} is not allowed: no request can have "
                f"{spec.routing_threshold:,} input tokens when {length} is {limit:,}, so none "
                f"would take the DPD path; set it below {limit:,} (0 sends every request "
                "through DPD)",
            )
        )
    workload = spec.workload
    if workload is None or (workload.typical_input_tokens, workload.output_tokens) == (None, None):
        return found
    inputs, outputs = workload.typical_input_tokens or 1, workload.output_tokens or 1
    if inputs + outputs <= limit:
        return found
    field = "typicalInputTokens" if workload.typical_input_tokens else "outputTokens"
    said = [
        f"{count:,}" if given else "at least 1"
        for count, given in (
            (inputs, workload.typical_input_tokens),
            (outputs, workload.output_tokens),
        )
    ]
    return [
        *found,
        error(
            "workload-beyond-context",
            f"workload.{field}",
            f"{said[0]} input and {said[1]} output tokens make {inputs + outputs:,}, more "
            f"than {length} {limit:,}, and vLLM refuses such a request; raise maxModelLen "
            f"to at least {inputs + outputs:,}, or give the lengths the endpoint serves",
        ),
    ]


def _slo_not_predicted(spec: EndpointSpec) -> list[Finding]:
    """An SLO is held to a prediction only when the workload says its output tokens (the
    performance model needs each request's length); the SLO alerts read only the SLO. So an SLO
    without them works, and says nothing at preview: a warning, not a refusal."""
    workload = spec.workload
    slo = workload.slo if workload else None
    if slo is None:
        return []
    if slo.ttft_ms is None and slo.tpot_ms is None:
        return [
            warning(
                "empty-slo",
                "workload.slo",
                "promises nothing: set ttftMs, tpotMs or both, or remove it",
            )
        ]
    if workload.output_tokens is not None:
        return []
    return [
        warning(
            "slo-not-predicted",
            "workload.outputTokens",
            "is not set, so no prediction is held to workload.slo: the performance model needs "
            "each request's output tokens; set them (with requestsPerSecond or concurrency) for "
            "pulumi preview to say whether the layout meets the SLO (its alerts, with "
            "observability, watch the live latency either way)",
        )
    ]


def check_workload(spec: EndpointSpec) -> list[Finding]:
    return check_context(spec) + _slo_not_predicted(spec)
