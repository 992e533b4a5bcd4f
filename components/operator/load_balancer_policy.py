"""The AWS Load Balancer Controller's IAM policy, for the controller the operator bundles.

The operator's chart (aws/sagemaker-hyperpod-cli, charts/inference-operator/Chart.yaml) depends
on aws-load-balancer-controller chart 1.13.2, controller v2.13.2. load_balancer_policy.json is
that controller's docs/install/iam_policy.json at v2.13.2, verbatim: trimmed copies fail at ALB
creation with AccessDenied. After an operator upgrade, diff that file between CONTROLLER_VERSION
and the new chart's appVersion, carry the changes over, and bump CONTROLLER_VERSION.
"""

import json
from pathlib import Path

CONTROLLER_VERSION = "v2.13.2"

_DOCUMENT = (Path(__file__).parent / "load_balancer_policy.json").read_text()


def load_balancer_controller_policy(partition: str = "aws") -> dict:
    """The policy, its ARNs in `partition` (upstream writes them in `aws`)."""
    return json.loads(_DOCUMENT.replace('"arn:aws:', f'"arn:{partition}:'))
