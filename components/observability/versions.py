"""The HyperPod observability add-on's versions, and the floor this project holds.

AWS publishes no version table for it. Its troubleshooting page names v1.0.5-eksbuild.1 as the
first release adding the toleration its pods need on restricted groups, and asks for it or later:
the floor. The stack pins a version so that a preview shows every change of collector.
"""

ADDON_NAME = "amazon-sagemaker-hyperpod-observability"

MINIMUM_ADDON_VERSION = "v1.0.5-eksbuild.1"
DEFAULT_ADDON_VERSION = MINIMUM_ADDON_VERSION
