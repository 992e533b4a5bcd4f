"""Imports run one way: no module reaches back up into one that imports it.

A circle hides which concern owns a type, and an upward import drags the higher package (its
Pulumi components, its checks) into the lower one's tests. Every `import` counts, including
those under TYPE_CHECKING or inside functions: a circle there is still a circle to a reader.
"""

import ast
import functools
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
)
# The project's own top-level packages, whose imports the graph follows.
PROJECT_PACKAGES = ("components", "planner", "infra", "tools")
# The one module on the deploy path that calls the planner (it returns findings, never raises).
PLANNER_GATEWAY = "infra.endpoint_predictions"
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
    return {name for name in found if name.split(".")[0] in PROJECT_PACKAGES}


def _paths() -> list[Path]:
    paths = [*ROOT.glob("components/**/*.py"), *ROOT.glob("planner/**/*.py")]
    paths += ROOT.glob("infra/**/*.py")
    return [*paths, *ROOT.glob("tools/**/*.py"), ROOT / "__main__.py"]


@functools.cache
def _graph() -> dict[str, set[str]]:
    """Parsed when a test asks: every worker collects this module, one runs it."""
    return {_module_name(path): _imported(path) for path in _paths()}


def _reached(graph: dict[str, set[str]], start: str) -> set[str]:
    """Every module `start` loads: its imports, their packages' __init__, and theirs in turn."""
    seen, todo = set(), [start]
    while todo:
        module = todo.pop()
        if module in seen:
            continue
        seen.add(module)
        parts = module.split(".")
        todo += [".".join(parts[:i]) for i in range(1, len(parts))]
        todo += graph.get(module, set())
    return seen


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


def test_no_module_imports_itself_back_through_others() -> None:
    assert [" -> ".join(circle) for circle in _circles(_graph())] == []


def test_pulumi_up_reaches_none_of_the_offline_tools() -> None:
    # What __main__.py loads is what `pulumi preview` runs: the mocks, renders, reports, charts
    # and the command line stay out of it, and so do their failures.
    assert sorted(m for m in _reached(_graph(), "__main__") if m.split(".")[0] == "tools") == []


def test_pulumi_up_reaches_the_planner_through_one_module() -> None:
    # The planner predicts and advises; the program calls it through one module that turns
    # whatever it says (or fails to say) into findings, so nothing else on the deploy path may
    # depend on it.
    graph = _graph()
    reached = _reached(graph, "__main__")
    callers = sorted(
        module
        for module in reached
        if not module.startswith("planner")
        and any(target.split(".")[0] == "planner" for target in graph.get(module, ()))
    )
    assert callers == [PLANNER_GATEWAY]


def test_the_planner_imports_no_program_and_no_tool() -> None:
    reaching = {
        module: sorted(t for t in targets if t.split(".")[0] in ("infra", "tools"))
        for module, targets in _graph().items()
        if module.startswith("planner")
    }
    assert {module: found for module, found in reaching.items() if found} == {}


def test_the_reach_follows_imports_and_packages() -> None:
    graph = {"__main__": {"a.b"}, "a.b": {"c"}, "c": set(), "a": {"d"}, "e": set()}
    assert _reached(graph, "__main__") == {"__main__", "a.b", "a", "c", "d"}


def test_the_circle_finder_finds_a_circle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _circles(graph) == [["a", "b", "c", "a"]]


def test_every_components_package_has_a_layer() -> None:
    packages = {path.parent.name for path in ROOT.glob("components/*/__init__.py")}
    assert packages == set(LAYER_OF)


@pytest.mark.parametrize(
    "module", sorted(m for m in map(_module_name, _paths()) if m.startswith("components."))
)
def test_components_import_only_lower_packages(module: str) -> None:
    package = module.split(".")[1]
    upward = [
        target
        for target in sorted(_graph()[module])
        if target.startswith("infra")
        or (
            len(target.split(".")) > 1
            and target.split(".")[1] != package
            and LAYER_OF.get(target.split(".")[1], len(LAYERS)) >= LAYER_OF[package]
        )
    ]
    assert upward == []
