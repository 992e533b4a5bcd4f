"""Derive, per AWS region, the instance types SageMaker HyperPod offers, from cfn-lint's data.

cfn-lint ships CloudFormation's resource schemas per region (`data/schemas/providers/<region>.json`
names the schema each region serves), and for `AWS::SageMaker::Cluster` an extension that
restricts `InstanceGroups[*].InstanceType` per region (rule E3644, gathered from the AWS pricing
API). A region with a provider file is a region; one with no entry in the extension offers no
HyperPod instance at all. Types are kept as cfn-lint lists them, sorted.

Usage: python scripts/derive_region_facts.py OUT_JSON
"""

import json
import sys
from importlib import resources
from importlib.metadata import version
from pathlib import Path

SCHEMAS = "cfnlint.data.schemas"


def derive() -> dict:
    providers = resources.files(f"{SCHEMAS}.providers")
    regions = sorted(
        entry.name.removesuffix(".json")
        for entry in providers.iterdir()
        # sam.json is the Serverless transform's schema set, not a region.
        if entry.name.endswith(".json") and entry.name != "sam.json"
    )
    enum = json.loads(
        resources.files(f"{SCHEMAS}.extensions.aws_sagemaker_cluster")
        .joinpath("instancetype_enum.json")
        .read_text()
    )
    date = json.loads(resources.files(SCHEMAS).joinpath("version.json").read_text())["schema_date"]
    offered = {
        region: sorted(entry["enum"])
        for region, entry in sorted(enum.items())
        if isinstance(entry, dict) and region in regions
    }
    return {
        "$comment": (
            f"Derived from cfn-lint {version('cfn-lint')} (schemas of {date}): the "
            "regions with a provider schema, and the per-region InstanceType enum of "
            "AWS::SageMaker::Cluster (extensions/aws_sagemaker_cluster/instancetype_enum.json, "
            "rule E3644). Regenerate with scripts/derive_region_facts.py."
        ),
        "regions": regions,
        "hyperpodInstanceTypes": offered,
    }


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        sys.exit(2)
    Path(sys.argv[1]).write_text(json.dumps(derive(), indent=1) + "\n")
