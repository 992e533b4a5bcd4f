"""Counting an endpoint's pods onto nodes, each pod whole on one node."""

from collections import Counter

import pytest

from infra.endpoint_pods import nodes_to_hold


@pytest.mark.parametrize(
    "pods, nodes",
    [
        ({}, 0),
        ({1: 8}, 1),
        ({1: 9}, 2),
        ({8: 2, 1: 1}, 3),
        ({4: 3, 2: 2}, 2),
        ({5: 2}, 2),
        ({6: 2, 2: 2}, 2),
        ({3: 5, 2: 1}, 3),
        ({7: 1, 1: 3}, 2),
        # A pod wider than a node, which the role's GPU rule refuses, is no crash here.
        ({16: 2, 1: 1}, 3),
        # Any replica count takes the same few steps.
        ({8: 10**9, 1: 3}, 10**9 + 1),
    ],
)
def test_pods_are_counted_onto_the_fewest_nodes_each_whole(pods, nodes):
    assert nodes_to_hold(Counter(pods), 8) == nodes
