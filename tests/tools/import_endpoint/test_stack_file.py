"""Items appended to a stack file as text, every comment kept, checked by reading it back, in
its encoding and mode, through its link, one import at a time."""

import codecs
import json
import stat
import threading

import pytest
import yaml

from tools.import_endpoint.stack_file import StackEditError, append_items
from tools.render.stack_config import read_stack_config

ITEM = {"name": "adopted-one", "adopted": True}
ITEM_TEXT = "# from live.yaml\n" + yaml.safe_dump([ITEM], sort_keys=False)


def endpoints(path) -> list:
    return json.loads(read_stack_config(path).values.get("hyperpod-dpd:endpoints", "[]"))


@pytest.mark.parametrize(
    "text",
    [
        (
            "config:\n  aws:region: us-west-2  # the region\n  hyperpod-dpd:endpoints:\n"
            "    # first\n    - name: one\n      namespace: a\n\n  # after the list\n"
            "  hyperpod-dpd:observability:\n    enabled: true\n"
        ),
        "config:\n  hyperpod-dpd:endpoints:\n  - name: one\n  aws:region: us-west-2\n",
        "# top\nconfig:\n  aws:region: us-west-2\n  hyperpod-dpd:endpoints: []  # none yet\n",
        "config:\n  aws:region: us-west-2\n# trailing comment",
    ],
    ids=["indented-list", "unindented-list", "empty-flow-list", "no-key"],
)
def test_the_items_follow_the_endpoints_and_every_line_stays(tmp_path, text):
    path = tmp_path / "Pulumi.team.yaml"
    path.write_text(text)
    before = endpoints(path)
    append_items(path, [ITEM], ITEM_TEXT)
    assert endpoints(path) == [*before, ITEM]
    kept = [line for line in text.splitlines() if "[]" not in line]
    assert all(line in path.read_text().splitlines() for line in kept)
    assert "# from live.yaml" in path.read_text()


def test_a_one_line_list_with_items_is_left_alone(tmp_path):
    path = tmp_path / "Pulumi.team.yaml"
    text = "config:\n  hyperpod-dpd:endpoints: [{name: one}]\n"
    path.write_text(text)
    with pytest.raises(StackEditError, match="written on one line"):
        append_items(path, [ITEM], ITEM_TEXT)
    assert path.read_text() == text


def test_a_file_that_is_no_stack_file_is_refused_and_untouched(tmp_path):
    path = tmp_path / "Pulumi.team.yaml"
    path.write_text("- a list\n")
    with pytest.raises(StackEditError):
        append_items(path, [ITEM], ITEM_TEXT)
    assert path.read_text() == "- a list\n"
    assert [p.name for p in tmp_path.iterdir()] == ["Pulumi.team.yaml"]


STACK = "# the team's stack\nconfig:\n  aws:region: us-west-2  # where\n"


def test_a_utf16_stack_file_is_edited_in_utf16(tmp_path):
    path = tmp_path / "Pulumi.team.yaml"
    path.write_bytes(STACK.encode("utf-16"))
    append_items(path, [ITEM], ITEM_TEXT)
    assert path.read_bytes().startswith(codecs.BOM_UTF16_LE)
    assert endpoints(path) == [ITEM] and "# where" in path.read_bytes().decode("utf-16")


def test_a_linked_stack_file_stays_a_link_with_its_mode(tmp_path):
    real = tmp_path / "stacks" / "team.yaml"
    real.parent.mkdir()
    real.write_text(STACK)
    real.chmod(0o600)
    path = tmp_path / "Pulumi.team.yaml"
    path.symlink_to(real)
    append_items(path, [ITEM], ITEM_TEXT)
    assert path.is_symlink() and endpoints(real) == [ITEM]
    assert stat.S_IMODE(real.stat().st_mode) == 0o600


def test_a_read_only_stack_file_is_refused_naming_it(tmp_path):
    path = tmp_path / "Pulumi.team.yaml"
    path.write_text(STACK)
    path.chmod(0o444)
    with pytest.raises(StackEditError, match=rf"^{path}: is read-only \(mode 0444\)"):
        append_items(path, [ITEM], ITEM_TEXT)
    assert path.read_text() == STACK


def test_imports_at_once_all_land(tmp_path):
    path = tmp_path / "Pulumi.team.yaml"
    path.write_text(STACK)
    items = [{"name": f"adopted-{i}", "adopted": True} for i in range(3)]
    threads = [
        threading.Thread(
            target=append_items, args=(path, [item], yaml.safe_dump([item], sort_keys=False))
        )
        for item in items
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(e["name"] for e in endpoints(path)) == [item["name"] for item in items]
