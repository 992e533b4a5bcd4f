"""Each pulumi-aws type the stack creates, as the CloudFormation resource it corresponds to.

CloudFormation's resource schemas (shipped with cfn-lint) say which properties cannot change
in place (`createOnlyProperties`); this table is how the offline diff reads them for
pulumi-aws, whose input names are its own (`description` is `GroupDescription`). aws-native's
types are CloudFormation's already: their inputs are its properties in camelCase. The
CloudFormation rendering of the stack the tests hand to cfn-lint and checkov
(tests/cloudformation.py) reads `TWINS` too.

pulumi-aws is built on Terraform's AWS provider, whose `ForceNew` is what finally decides; where
it is known to differ from CloudFormation, tools/diff/replacements.py says so.
"""

import json
from pathlib import Path

AWS_NATIVE_TYPES = ("aws-native:sagemaker:Cluster",)
# aws-native's module names, where they differ from CloudFormation's service names.
_AWS_NATIVE_SERVICES = {"sagemaker": "SageMaker"}


def aws_native_type(token: str) -> str:
    """`AWS::SageMaker::Cluster` from `aws-native:sagemaker:Cluster`."""
    _, service, name = token.split(":")
    return f"AWS::{_AWS_NATIVE_SERVICES.get(service, service.upper())}::{name}"


# pulumi-aws type -> (CloudFormation type, input name -> property name), in
# cloudformation_twins.json. Every input the stack sets is in TWINS or NAME_ONLY_TWINS, which the
# CloudFormation rendering folds into others or leaves out, or in LEFT_OUT with why none of them
# replaces (tests/tools/diff/test_create_only.py checks).
_TABLE = json.loads(Path(__file__).with_name("cloudformation_twins.json").read_text())
TWINS: dict[str, tuple[str, dict[str, str]]] = {k: tuple(v) for k, v in _TABLE["twins"].items()}
NAME_ONLY_TWINS: dict[str, tuple[str, dict[str, str]]] = {
    k: tuple(v) for k, v in _TABLE["nameOnlyTwins"].items()
}
LEFT_OUT: dict[str, dict[str, str]] = _TABLE["leftOut"]
