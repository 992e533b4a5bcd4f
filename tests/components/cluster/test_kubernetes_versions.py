"""HyperPod's documented Kubernetes versions, however EKS writes them."""

import pytest

from components.cluster.kubernetes_versions import minor_version, unsupported_kubernetes


@pytest.mark.parametrize("version", ["1.30", "1.35", "v1.33.4-eks-1234567"])
def test_documented_versions_pass(version):
    assert unsupported_kubernetes(version) is None


# 1.28 and 1.29 were listed by older copies of HyperPod's prerequisites page, not its newest.
@pytest.mark.parametrize("version", ["1.28", "1.29", "1.36"])
def test_undocumented_versions_are_refused_naming_the_supported_ones(version):
    assert unsupported_kubernetes(version) == (
        "SageMaker HyperPod supports 1.30, 1.31, 1.32, 1.33, 1.34, 1.35"
    )


def test_the_minor_version_of_a_full_version():
    assert minor_version("v1.32.9-eks-abcdef0") == "1.32"
