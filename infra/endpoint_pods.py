"""How an endpoint's pods take nodes: each pod whole on one node, pods of fewer GPUs than a node
sharing nodes. The capacity checks (cluster_fit.py) and the rollout check (rollout_room.py)
count with it."""

from collections import Counter

from components.endpoint.spec import EndpointSpec
from components.sizing.replicas import endpoint_replicas

# A DPD pod takes its role's `resources` (the CRD; AWS's DPD guide), an aggregated pod
# worker.resources. The CRD has no anti-affinity or exclusivity field, so pods of fewer GPUs than
# a node share nodes, and a pod cannot span nodes: two 5-GPU pods take two 8-GPU nodes.
Pods = Counter  # the GPUs one pod requests -> how many such pods


def nodes_to_hold(pods: Pods, gpus_per_node: int) -> int:
    """The fewest nodes of `gpus_per_node` GPUs that hold these pods: best fit, largest first,
    exact when every pod's GPUs divide the node's, one node over in 3 of the 6,435 sets of up to
    7 pods of 1 to 8 GPUs otherwise. Counted by size, so any replica count takes few steps."""
    free: Counter[int] = Counter()  # GPUs left free -> how many nodes have that many
    nodes = 0
    for size in sorted((g for g, n in pods.items() if n > 0), reverse=True):
        left = pods[size]
        if size > gpus_per_node:
            # Fits no node; the role's GPU rule refuses it. Counted a node each meanwhile.
            nodes += left
            continue
        # Into the nodes with the least room that still fits one: each takes room // size.
        for room in range(size, gpus_per_node):
            fits = room // size
            full = min(free[room], left // fits)
            free[room] -= full
            free[room - fits * size] += full
            left -= full * fits
            if left and free[room]:
                free[room] -= 1
                free[room - left * size] += 1
                left = 0
        if left:
            fits = gpus_per_node // size
            added = -(-left // fits)
            nodes += added
            free[gpus_per_node - fits * size] += added - 1
            free[gpus_per_node - (left - (added - 1) * fits) * size] += 1
    return nodes


def configured_pods(endpoint: EndpointSpec) -> Pods:
    pods: Pods = Counter()
    for role, _ in endpoint.roles().values():
        pods[role.gpus] += role.replicas
    return pods


def pods_at_maxima(endpoint: EndpointSpec) -> Pods:
    pods: Pods = Counter()
    for role in endpoint_replicas(endpoint).roles.values():
        pods[role.gpus] += role.maximum
    return pods


def roles_text(endpoint: EndpointSpec, at_maxima: bool = False) -> str:
    """`2 prefill x 8 GPUs and 3 decode x 8 GPUs`, configured or at the maxima."""
    return " and ".join(
        f"{role.max_replicas if at_maxima else role.replicas} {name} x {role.gpus} GPUs"
        for name, (role, _) in endpoint.roles().items()
    )
