"""The render benchmark's SDK floor: a render's own resources, registered by the SDK alone."""

import json

import pulumi
from pulumi.runtime import settings

from infra import program
from scripts.sdk_floor import creation_order, in_preview, replay
from tools.cli import main
from tools.render.stack_config import read_stack_config, stack_file


def registration(urn, parent=None, provider=None, dependencies=()):
    return {"urn": urn, "parent": parent, "provider": provider, "dependencies": list(dependencies)}


def test_parents_providers_and_dependencies_come_first_whatever_the_order_read():
    recorded = [
        registration("endpoint", parent="component", provider="k8s", dependencies=["addon"]),
        registration("addon", parent="cluster"),
        registration("component"),
        registration("k8s", parent="cluster"),
        registration("cluster"),
    ]
    order = [r["urn"] for r in creation_order(recorded)]
    assert sorted(order) == sorted(r["urn"] for r in recorded)
    for r in recorded:
        for before in (r["parent"], r["provider"], *r["dependencies"]):
            if before:
                assert order.index(before) < order.index(r["urn"])


def test_a_dependency_on_something_not_recorded_is_left_out():
    recorded = [registration("bucket", dependencies=["made-by-a-remote-component"])]
    assert [r["urn"] for r in creation_order(recorded)] == ["bucket"]


def test_the_replay_registers_what_the_program_registers_in_preview(tmp_path):
    assert main(["render", "--out", str(tmp_path)]) == 0
    recorded = json.loads((tmp_path / "resources.json").read_text())
    region = read_stack_config(stack_file("dev")).values["aws:region"]

    replayed = replay(tmp_path / "resources.json", region)

    custom = {r["urn"] for r in recorded if r["custom"]}
    assert custom <= set(settings.get_monitor().resources), "each keeps type, name and parent"
    config = read_stack_config(stack_file("dev"))
    pulumi.runtime.set_all_config(config.values, config.secret_keys)
    assert in_preview(region, program.main) == replayed
