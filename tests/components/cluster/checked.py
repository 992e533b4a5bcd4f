"""What the cluster's rules (components/cluster/checks.py) say of a stack's config mapping, as
the program keys it, before it asks the account anything."""

from typing import Any

from components.cluster.checks import check_cluster
from infra.stack_settings import StackSettings
from tests.support import TODAY, stack_problems


def _cluster_rules(stack: StackSettings) -> list:
    existing = stack.cluster.existing
    name = existing.eks_cluster_name if existing else stack.cluster.name or "hyperpod-dpd-test"
    return check_cluster(name, stack.cluster, stack.network, stack.operator, TODAY)


def cluster_problems(config: dict[str, Any]) -> list[str]:
    return stack_problems(config, _cluster_rules)


def cluster_warnings(config: dict[str, Any]) -> list[str]:
    return stack_problems(config, _cluster_rules, level="warning")
