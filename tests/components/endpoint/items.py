"""The dev stack's endpoint item as plain values, and what an endpoint's own checks say of it:
pydantic's refusals, the rules of components/endpoint, then the operator's CRD schema and the
DPD guardrails over the manifest it builds. Keys are relative to the endpoint (`prefill.gpus`);
the program puts `hyperpod-dpd:endpoints[i].` before them (tests/infra/test_settings.py)."""

from typing import Any

from components.endpoint.checks import check_endpoint
from components.endpoint.guardrails import endpoint_violations
from components.endpoint.manifest import build_manifest
from components.endpoint.schema import schema_errors
from components.endpoint.spec import EndpointSpec
from components.operator.checks import resolved_operator_version
from components.operator.spec import OperatorSpec
from tests.support import changed, dev_endpoint, problem_for, problems_of

# The form of the workspace address the program hands the manifest before the stack has one.
PROMETHEUS = "https://aps-workspaces.us-west-2.amazonaws.com/workspaces/ws-0000"


def endpoint_item(changes: dict[str, Any] | None = None) -> dict[str, Any]:
    """The dev endpoint with a value set at each path (`prefill.args`)."""
    return changed(dev_endpoint(), changes or {})


def endpoint_spec(changes: dict[str, Any] | None = None) -> EndpointSpec:
    return EndpointSpec.model_validate(endpoint_item(changes))


def endpoint_problems(item: dict[str, Any]) -> list[str]:
    found = problems_of(EndpointSpec, item, check_endpoint)
    if found:
        return found
    spec = EndpointSpec.model_validate(item)
    manifest = build_manifest(
        spec, model_bucket="weights", region="us-west-2", prometheus_address=PROMETHEUS
    )
    operator = resolved_operator_version(OperatorSpec())
    return [
        *(
            f"the CRD rejects {path}: {message}"
            for path, message in schema_errors(manifest, operator)
        ),
        *(f"the manifest breaks DPD at spec.{v}" for v in endpoint_violations(manifest["spec"])),
    ]


def endpoint_problem(changes: dict[str, Any], key: str) -> str:
    """The one problem about `key` in the dev endpoint so changed."""
    return problem_for(key, endpoint_problems(endpoint_item(changes)))
