"""The AWS Load Balancer Controller's IAM policy, for the controller the operator bundles.

The HyperPod Inference Operator's Helm chart (aws/sagemaker-hyperpod-cli,
helm_chart/HyperPodHelmChart/charts/inference-operator/Chart.yaml) depends on the
aws-load-balancer-controller chart 1.13.2, whose Chart.yaml (kubernetes-sigs/aws-load-balancer-
controller, tag v2.13.2) ships controller v2.13.2. load_balancer_policy.json is that
controller's own policy, docs/install/iam_policy.json at tag v2.13.2, statement by statement,
with the tag conditions that confine its writes to what it created (`elbv2.k8s.aws/cluster`).
Trimmed copies fail at ALB creation with AccessDenied, so this follows upstream rather than our
own guess.

To update after an operator add-on upgrade: read the new operator chart's dependency on
aws-load-balancer-controller, look up that chart's appVersion, diff docs/install/iam_policy.json
between CONTROLLER_VERSION and the new tag, carry the changes over into the JSON file, and bump
CONTROLLER_VERSION.
"""

from __future__ import annotations

import json
from pathlib import Path

CONTROLLER_VERSION = "v2.13.2"

_DOCUMENT = (Path(__file__).parent / "load_balancer_policy.json").read_text()


def load_balancer_controller_policy(partition: str = "aws") -> dict:
    """The policy, its ARNs in `partition` (upstream writes them in `aws`)."""
    return json.loads(_DOCUMENT.replace('"arn:aws:', f'"arn:{partition}:'))
