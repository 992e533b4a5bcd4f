"""Adopting a live endpoint: the import names what the program registers, and the first
`pulumi up` after it updates the live object in place, judged by the offline diff's model of
the engine (tools/diff/stack_diff.py)."""

import copy

import pytest
import yaml

from infra import program
from tests.tools.import_endpoint.test_corpus import EXAMPLE_ACCOUNT
from tests.tools.import_endpoint.test_import_command import DPD
from tools.diff.stack_diff import compare
from tools.import_endpoint.adoption import import_file
from tools.import_endpoint.import_command import EXAMPLE_FILE, EXAMPLE_STACK
from tools.import_endpoint.manifests import Manifest
from tools.import_endpoint.reverse import read_item
from tools.import_endpoint.round_trip import registered_object, with_items
from tools.render.render import RenderResult, run_program
from tools.render.stack_config import read_stack_config

LIVE = yaml.safe_load(DPD)


def rendered(item: dict) -> RenderResult:
    config = with_items(read_stack_config(EXAMPLE_FILE), [item], replace=True)
    return run_program(EXAMPLE_STACK, config, program.main, EXAMPLE_ACCOUNT)


def first_up(item: dict, live: dict) -> list[str]:
    """What the first `pulumi up` after importing `live` does to it: the state holds the live
    object under the URN the program registers (what `pulumi import` records), the program
    registers the item's object."""
    result = rendered(item)
    head = registered_object(result, item["name"], item.get("namespace", "default"))
    if head is None:  # the program names the object otherwise: find it by its endpoint
        (head,) = [r for r in result.resources if r.type.endswith(":InferenceEndpointConfig")]
    state = {**head.as_json(), "inputs": live, "options": {}}
    return [change.kind for change in compare([state], [head.as_json()])]


def test_the_first_up_updates_the_adopted_object_in_place():
    item = read_item(Manifest("live.yaml", LIVE)).item
    assert first_up(item, LIVE) == ["update"]


def test_without_adopted_the_settings_own_the_command_line_and_replace_it():
    # Not adopted, the settings write the command line and variables themselves.
    written = ("adopted", "workerArgs", "environmentVariables")
    item = {
        k: v for k, v in read_item(Manifest("live.yaml", LIVE)).item.items() if k not in written
    }
    assert first_up(item, LIVE) == ["replace"]


@pytest.mark.parametrize("strategy", ["roundrobin", "session"])
def test_an_adopted_object_replaces_when_routing_changes(strategy):
    item = read_item(Manifest("live.yaml", LIVE)).item
    live = copy.deepcopy(LIVE)
    live["spec"]["intelligentRoutingSpec"]["routingStrategy"] = strategy
    assert first_up(item, live) == ["replace"]


def test_the_import_file_names_the_programs_component_and_provider():
    item = read_item(Manifest("live.yaml", LIVE)).item
    result = rendered(item)
    registered = registered_object(result, "dpd-test", "default")
    document = import_file(result, [registered])
    component, config = document["resources"]
    parent = result.by_urn(registered.parent)
    assert (component["type"], component["logicalName"], component["component"]) == (
        parent.type,
        parent.name,
        True,
    )
    assert (config["type"], config["logicalName"], config["parent"]) == (
        registered.type,
        registered.name,
        component["name"],
    )
    assert document["nameTable"][config["provider"]] == registered.provider
    assert "parent" not in component  # the endpoint sits under the stack itself
