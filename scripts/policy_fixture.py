"""Write the policy pack's test fixture from the dev stack's render.

The policy tests run against the dev stack as the analyzer would receive it: the resources the
policies look at, with their inputs and, per input, the resources whose ID it carries (in the
preview of a new stack, exactly those inputs are unknown). A test in the main suite keeps the
committed fixture equal to what this writes.

Usage: python scripts/policy_fixture.py
"""

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

FIXTURE = ROOT / "policy" / "tests" / "fixtures" / "dev_stack.json"
# What the policies read: endpoints, security groups and their rules, buckets and their
# settings, EKS add-ons and the EKS cluster.
TYPES_PREFIXES = (
    "kubernetes:inference.sagemaker.aws.amazon.com/", "aws:ec2/securityGroup:",
    "aws:vpc/securityGroup", "aws:s3/bucket:", "aws:s3/bucketOwnershipControls:",
    "aws:s3/bucketPolicy:", "aws:s3/bucketPublicAccessBlock:",
    "aws:s3/bucketServerSideEncryptionConfiguration:", "aws:s3/bucketLogging:",
    "aws:s3/bucketVersioning:", "aws:eks/addon:", "eks:index:Cluster",
)  # fmt: skip


def _carried_ids(resource, ids: dict[str, str]) -> dict[str, list[str]]:
    """Input -> the resources whose ID the input's value is."""
    carried = {}
    for key, urns in resource.property_dependencies.items():
        value = resource.inputs.get(key)
        values = value if isinstance(value, list) else [value]
        found = [urn for urn in urns if ids.get(urn) in values]
        if found:
            carried[key] = found
    return carried


def policy_fixture() -> list[dict]:
    from infra import program
    from tools.render.render import run_program
    from tools.render.stack_config import read_stack_config, stack_file

    result = run_program("dev", read_stack_config(stack_file("dev")), program.main)
    ids = {r.urn: r.id for r in result.resources}
    return [
        {
            "type": r.type,
            "name": r.name,
            "urn": r.urn,
            "inputs": r.inputs,
            "propertyDependencies": _carried_ids(r, ids),
            # The one resource option a policy reads (the model bucket's).
            "protect": bool(r.options.get("protect")),
        }
        for r in result.resources
        if r.type.startswith(TYPES_PREFIXES)
    ]


if __name__ == "__main__":
    FIXTURE.write_text(json.dumps(policy_fixture(), indent=1, sort_keys=True) + "\n")
