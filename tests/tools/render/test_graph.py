"""graph.mmd: the dev stack's components and the dependencies between them, from resources.json
(tests/tools/test_mermaid.py has Mermaid parse it)."""

import json
import re

import pytest

from infra.paths import ROOT
from tools.cli import main

NODE = re.compile(r'^  (n_\w+)\["([^<]+)<br/>(\w+) · (\d+) resources?"\]$')
EDGE = re.compile(r"^  (n_\w+) --> (n_\w+)$")


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    out = tmp_path_factory.mktemp("dev")
    assert main(["render", "--out", str(out)]) == 0
    resources = json.loads((out / "resources.json").read_text())
    graph = (out / "graph.mmd").read_text().splitlines()
    return resources, graph


def parse(graph: list[str]) -> tuple[dict, set]:
    assert graph[0] == "flowchart LR"
    nodes = {m[1]: (m[2], m[3], int(m[4])) for line in graph if (m := NODE.match(line))}
    edges = {(m[1], m[2]) for line in graph if (m := EDGE.match(line))}
    assert len(nodes) + len(edges) == len(graph) - 1, "every line is a node or an edge"
    return nodes, edges


def top_level(resources: list[dict]) -> dict[str, dict]:
    """URN -> the resource without a parent above it."""
    by_urn = {r["urn"]: r for r in resources}
    out = {}
    for r in resources:
        top = r
        while top["parent"]:
            top = by_urn[top["parent"]]
        out[r["urn"]] = top
    return out


def test_one_node_per_top_level_component_with_the_resources_inside(rendered):
    resources, graph = rendered
    nodes, _ = parse(graph)
    tops = top_level(resources)
    expected = {}
    for r in resources:
        top = tops[r["urn"]]
        name, kind, count = expected.get(top["urn"], (top["name"], top["type"].split(":")[-1], 0))
        inside = 0 if r["type"].startswith("hyperpod-dpd:") else 1
        expected[top["urn"]] = (name, kind, count + inside)
    assert sorted(nodes.values()) == sorted(expected.values())


def test_an_edge_for_every_dependency_across_components_and_no_other(rendered):
    resources, graph = rendered
    nodes, edges = parse(graph)
    ids = {name: node for node, (name, _, _) in nodes.items()}
    tops = top_level(resources)
    expected = set()
    for r in resources:
        for dependency in [*r["dependencies"], *filter(None, [r["provider"]])]:
            # Resources inside pulumi-eks's remote component are not the program's to list;
            # whatever depends on one depends on the component too.
            if dependency not in tops:
                continue
            earlier, later = tops[dependency]["name"], tops[r["urn"]]["name"]
            if earlier != later:
                expected.add((ids[earlier], ids[later]))
    assert edges == expected


def test_the_creation_order_reads_off_the_graph(rendered):
    _, graph = rendered
    _, edges = parse(graph)
    for earlier, later in [
        ("n_network", "n_efa"),
        ("n_efa", "n_eks"),
        ("n_eks", "n_hyperpod"),
        ("n_hyperpod_dependencies", "n_hyperpod"),
        ("n_hyperpod", "n_inference_operator"),
        ("n_inference_operator", "n_default_dpd_test"),
    ]:
        assert (earlier, later) in edges


def test_the_readme_shows_the_dev_stack_graph(rendered):
    _, graph = rendered
    readme = (ROOT / "README.md").read_text()
    assert "```mermaid\n" + "\n".join(graph) + "\n```" in readme
