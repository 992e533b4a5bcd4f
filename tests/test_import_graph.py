"""Imports run one way: no module reaches back up into one that imports it.

A circle hides which concern owns a type, and an upward import drags the higher package (its
Pulumi components, its checks) into the lower one's tests. Every `import` counts, including
those under TYPE_CHECKING or inside functions: a circle there is still a circle to a reader.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from infra.paths import ROOT

# The packages of components/, lowest first: each imports only from the layers below its own.
LAYERS = (
    {"core"},
    {"model", "network", "storage", "operator"},
    {"cluster", "observability"},
    # pricing prices a cluster's instance groups (cluster_cost.py) and a DPD type's GPUs.
    {"endpoint", "pricing"},
    {"sizing"},
    {"performance"},
)
LAYER_OF = {package: level for level, packages in enumerate(LAYERS) for package in packages}


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {name for name in found if name.split(".")[0] in ("components", "infra")}


def _graph() -> dict[str, set[str]]:
    paths = [*ROOT.glob("components/**/*.py"), *ROOT.glob("infra/**/*.py")]
    return {_module_name(path): _imported(path) for path in paths}


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One circle through each module that is on one (depth-first, white/grey/black)."""
    circles, state = [], dict.fromkeys(graph, "white")

    def visit(module: str, trail: list[str]) -> None:
        state[module] = "grey"
        for target in sorted(graph.get(module, ())):
            if state.get(target) == "grey":
                circles.append([*trail[trail.index(target) :], target])
            elif state.get(target) == "white":
                visit(target, [*trail, target])
        state[module] = "black"

    for module in sorted(graph):
        if state[module] == "white":
            visit(module, [module])
    return circles


GRAPH = _graph()


def test_no_module_imports_itself_back_through_others() -> None:
    assert [" -> ".join(circle) for circle in _circles(GRAPH)] == []


def test_the_circle_finder_finds_a_circle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _circles(graph) == [["a", "b", "c", "a"]]


def test_every_components_package_has_a_layer() -> None:
    packages = {path.parent.name for path in ROOT.glob("components/*/__init__.py")}
    assert packages == set(LAYER_OF)


@pytest.mark.parametrize("module", sorted(m for m in GRAPH if m.startswith("components.")))
def test_components_import_only_lower_packages(module: str) -> None:
    package = module.split(".")[1]
    upward = [
        target
        for target in sorted(GRAPH[module])
        if target.startswith("infra")
        or (
            len(target.split(".")) > 1
            and target.split(".")[1] != package
            and LAYER_OF.get(target.split(".")[1], len(LAYERS)) >= LAYER_OF[package]
        )
    ]
    assert upward == []
