"""The HyperPod observability add-on's versions, and the floor this project holds.

AWS publishes no version table for `amazon-sagemaker-hyperpod-observability`; its reference
Terraform (awslabs/awsome-distributed-training, hyperpod-eks-tf `modules/observability`) leaves
the version to EKS. The one release AWS names is v1.0.5-eksbuild.1, in the add-on's
troubleshooting page ("Troubleshooting the Amazon SageMaker HyperPod observability add-on",
hyperpod-observability-addon-troubleshooting): from it on, the add-on adds the toleration its
pods need on restricted instance groups, and the page asks users to run it or later. This
project pins it so that a preview shows every change of collector, and takes it as the floor.
"""

from __future__ import annotations

ADDON_NAME = "amazon-sagemaker-hyperpod-observability"

MINIMUM_ADDON_VERSION = "v1.0.5-eksbuild.1"
DEFAULT_ADDON_VERSION = MINIMUM_ADDON_VERSION
