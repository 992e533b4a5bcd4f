"""The program's resource options act in the diff as the engine applies them."""

from tools.diff.stack_diff import compare


def resource(name, inputs=None, **options):
    return {
        "urn": f"urn:test::{name}",
        "type": "aws:s3/bucketVersioning:BucketVersioning",
        "name": name,
        "custom": True,
        "dependencies": [],
        "propertyDependencies": {},
        "inputs": inputs or {"bucket": name},
        "options": options,
    }


def test_a_change_under_ignore_changes_alone_changes_nothing():
    base = resource("a", {"bucket": "a", "versioningConfiguration": {"status": "Enabled"}})
    head = resource(
        "a", {"bucket": "a", "versioningConfiguration": {"status": "Suspended"}},
        ignoreChanges=["versioningConfiguration"],
    )  # fmt: skip
    assert compare([{**base, "options": head["options"]}], [head]) == []


def test_a_wildcard_ignores_every_element():
    base = resource("a", {"bucket": "a", "list": [{"n": 1}, {"n": 2}], "other": 1})
    head = resource("a", {"bucket": "a", "list": [{"n": 3}, {"n": 4}], "other": 2})
    head["options"] = {"ignoreChanges": ["list[*].n"]}
    (change,) = compare([base], [head])
    assert [(p.path, p.ignored) for p in change.paths if not p.path.startswith("options")] == [
        ("list[0].n", True), ("list[1].n", True), ("other", False),
    ]  # fmt: skip


def test_a_delete_skipped_for_deleted_with_is_said():
    workspace, dashboard = resource("workspace"), resource("dashboard")
    dashboard["options"] = {"deletedWith": workspace["urn"]}
    found = {c.name: c for c in compare([workspace, dashboard], [])}
    assert found["dashboard"].note == "deleted with workspace: no delete call of its own"
    assert found["workspace"].note is None


def test_removing_a_protected_or_retained_resource_says_what_the_engine_does():
    protected, retained = resource("p", protect=True), resource("r", retainOnDelete=True)
    found = {c.name: c for c in compare([protected, retained], [])}
    assert found["p"].note.startswith("protected: pulumi up refuses to delete it")
    assert found["r"].note == "retainOnDelete: left in place in AWS, only dropped from the stack"


def test_a_resource_deleted_with_a_replaced_one_is_replaced_too():
    workspace = resource("workspace")
    moved = {**workspace, "inputs": {"bucket": "elsewhere"}}
    dashboard = resource("dashboard")
    dashboard["options"] = {"deletedWith": workspace["urn"]}
    found = {c.name: c for c in compare([workspace, dashboard], [moved, dashboard])}
    assert found["workspace"].kind == "replace"
    assert found["dashboard"].because == "it is deleted with 'workspace', which is replaced"
