"""Comparing two renders: updates with their input paths, replacements, additions, removals."""

import json

from tools.diff.diff_report import outages
from tools.diff.stack_diff import changed_paths, compare


def resource(urn="urn:a", type_="aws:s3/bucket:Bucket", inputs=None, options=None):
    return {
        "urn": urn,
        "type": type_,
        "name": urn.rsplit(":", 1)[1],
        "inputs": inputs or {},
        "options": options or {},
    }


def test_leaf_paths_with_indexes_and_absent_sides():
    old = {"spec": {"a": 1, "list": [1, 2], "gone": "x"}}
    new = {"spec": {"a": 2, "list": [1, 3], "added": True}}
    assert changed_paths(old, new) == [
        ("spec.a", 1, 2),
        ("spec.added", None, True),
        ("spec.gone", "x", None),
        ("spec.list[1]", 2, 3),
    ]


def test_json_documents_in_strings_are_compared_inside():
    old = {"policy": json.dumps({"Statement": [{"Resource": "arn:a"}]})}
    new = {"policy": json.dumps({"Statement": [{"Resource": "arn:b"}]})}
    assert changed_paths(old, new) == [("policy.Statement[0].Resource", "arn:a", "arn:b")]


def test_identical_renders_have_no_changes():
    assert compare([resource()], [resource()]) == []


def test_an_input_change_is_an_update_with_its_path():
    (change,) = compare(
        [resource(inputs={"versioning": "Suspended"})], [resource(inputs={"versioning": "Enabled"})]
    )
    assert change.kind == "update"
    assert [(p.path, p.old, p.new, p.replaces) for p in change.paths] == [
        ("versioning", "Suspended", "Enabled", None)
    ]


def test_a_recorded_replace_on_changes_path_makes_it_a_replacement():
    options = {"replaceOnChanges": ["spec.intelligentRoutingSpec"]}
    kind = "kubernetes:inference.sagemaker.aws.amazon.com/v1:InferenceEndpointConfig"
    base = resource(
        type_=kind,
        inputs={"spec": {"intelligentRoutingSpec": {"routingStrategy": "prefixaware"}}},
        options=options,
    )
    head = resource(
        type_=kind,
        inputs={"spec": {"intelligentRoutingSpec": {"routingStrategy": "roundrobin"}}},
        options=options,
    )
    (change,) = compare([base], [head])
    assert change.kind == "replace"
    assert change.paths[0].replaces == "spec.intelligentRoutingSpec"


def test_an_immutable_provider_input_makes_it_a_replacement():
    (change,) = compare(
        [resource(inputs={"bucket": "old-name"})], [resource(inputs={"bucket": "new-name"})]
    )
    assert change.kind == "replace"


def test_aws_native_create_only_properties_replace_the_hyperpod_cluster():
    options = {"replaceOnChanges": ["clusterName", "orchestrator.eks", "vpcConfig"]}
    kind = "aws-native:sagemaker:Cluster"
    base = resource(
        type_=kind,
        inputs={"vpcConfig": {"subnets": ["subnet-a"]}, "instanceGroups": [{"instanceCount": 2}]},
        options=options,
    )
    head = resource(
        type_=kind,
        inputs={"vpcConfig": {"subnets": ["subnet-b"]}, "instanceGroups": [{"instanceCount": 3}]},
        options=options,
    )
    (change,) = compare([base], [head])
    assert change.kind == "replace"
    assert {p.path: p.replaces for p in change.paths} == {
        "instanceGroups[0].instanceCount": None,
        "vpcConfig.subnets[0]": "vpcConfig",
    }


def test_additions_and_removals_by_urn():
    changes = compare([resource("urn:gone")], [resource("urn:new")])
    assert [(c.kind, c.name) for c in changes] == [("remove", "gone"), ("add", "new")]


def test_option_changes_count_too():
    (change,) = compare([resource(options={})], [resource(options={"protect": True})])
    assert [(p.path, p.new) for p in change.paths] == [("options.protect", True)]


def test_named_entries_are_matched_by_name_so_an_insertion_shifts_nothing():
    old = {"env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}]}
    new = {
        "env": [
            {"name": "A", "value": "1"},
            {"name": "N", "value": "0"},
            {"name": "B", "value": "3"},
        ]
    }
    assert changed_paths(old, new) == [
        ("env[B].value", "2", "3"),
        ("env[N]", None, {"name": "N", "value": "0"}),
    ]


def test_a_replacement_deleted_first_takes_its_dependents_with_it():
    cluster = {**resource("urn:cluster", "aws-native:sagemaker:Cluster"), "custom": True}
    base_cluster = {
        **cluster,
        "inputs": {"clusterName": "a"},
        "options": {"deleteBeforeReplace": True},
    }
    head_cluster = {
        **base_cluster,
        "options": {**base_cluster["options"], "replaceOnChanges": ["clusterName"]},
        "inputs": {"clusterName": "b"},
    }
    addon = {
        **resource("urn:addon", "aws:eks/addon:Addon"),
        "custom": True,
        "propertyDependencies": {"clusterName": ["urn:cluster"]},
    }
    changes = compare([base_cluster, addon], [head_cluster, addon])
    assert [(c.kind, c.name, c.because is not None) for c in changes] == [
        ("replace", "addon", True),
        ("replace", "cluster", False),
    ]


def test_a_component_renamed_with_an_alias_is_matched_with_its_children_to_their_old_urns():
    stack = "urn:pulumi:dev::hyperpod-dpd::"
    old_parent = resource(
        f"{stack}hyperpod-dpd:endpoint:DpdEndpoint::dpd-test", "hyperpod-dpd:endpoint:DpdEndpoint"
    )
    old_child = resource(
        f"{stack}hyperpod-dpd:endpoint:DpdEndpoint$kubernetes:core/v1:Service::dpd-test-address",
        "kubernetes:core/v1:Service",
    )
    new_parent = resource(
        f"{stack}hyperpod-dpd:endpoint:InferenceEndpoint::dpd-test",
        "hyperpod-dpd:endpoint:InferenceEndpoint",
        options={"aliases": ["hyperpod-dpd:endpoint:DpdEndpoint"]},
    )
    new_child = resource(
        f"{stack}hyperpod-dpd:endpoint:InferenceEndpoint$kubernetes:core/v1:Service::"
        "dpd-test-address",
        "kubernetes:core/v1:Service",
    )
    # The alias is no change of its own: nothing is added, removed, updated or replaced.
    assert compare([old_parent, old_child], [new_parent, new_child]) == []


def test_an_alias_holds_in_the_mocks_urns_and_a_child_replaced_under_it_is_one_outage():
    # The mocks name a top-level component's type after the stack's, a child's after its
    # parent's own type only.
    stack = "urn:pulumi:dev::hyperpod-dpd::"
    iec = "kubernetes:inference.sagemaker.aws.amazon.com/v1:InferenceEndpointConfig"

    def endpoint(component: str, name: str, **options):
        parent = resource(
            f"{stack}pulumi:pulumi:Stack${component}::default/dpd-test", component, options=options
        )
        child = resource(f"{stack}{component}${iec}::default/dpd-test", iec)
        child["inputs"] = {"metadata": {"name": name, "namespace": "default"}, "spec": {}}
        return [parent, child]

    old = endpoint("hyperpod-dpd:endpoint:DpdEndpoint", "dpd-test")
    new = endpoint(
        "hyperpod-dpd:endpoint:InferenceEndpoint",
        "dpd-test-g091a3",
        aliases=["hyperpod-dpd:endpoint:DpdEndpoint"],
    )
    (change,) = compare(old, new)
    assert (change.kind, change.paths[0].replaces) == ("replace", "metadata.name")
    (outage,) = outages([change])
    assert outage.startswith("endpoint `default/dpd-test`: deleted, then created again")
