"""An update of the HyperPod cluster that replaces or deletes nodes is an outage, and the diff
says so, with how long the new nodes take."""

from tests.support import dev_config
from tests.tools.diff.in_process import by_name, changes
from tools.diff.diff_report import outages, text_report
from tools.diff.node_changes import node_outages


def cluster(*groups):
    return {"inputs": {"instanceGroups": list(groups)}}


def group(name, kind="ml.p5.48xlarge", count=2, checks=("InstanceStress",)):
    found = {"instanceGroupName": name, "instanceType": kind, "instanceCount": count}
    return {**found, "onStartDeepHealthChecks": list(checks)} if checks else found


def test_a_new_instance_type_replaces_the_groups_nodes_with_health_checked_ones():
    (line,) = node_outages(cluster(group("gpu")), cluster(group("gpu", "ml.p5en.48xlarge", 3)))
    assert line.startswith(
        "HyperPod instance group `gpu`: instanceType ml.p5.48xlarge → ml.p5en.48xlarge, which "
        "UpdateCluster makes with new nodes: its 2 ml.p5.48xlarge nodes go and 3 "
        "ml.p5en.48xlarge come up; they run the deep health checks (InstanceStress) before "
        "they take pods, which takes hours"
    )


def test_a_removed_group_takes_its_nodes_and_a_count_change_is_no_outage():
    old = cluster(group("gpu"), group("cpu", "ml.c5.4xlarge", 1, checks=()))
    (line,) = node_outages(old, cluster(group("gpu", count=4)))
    assert line == (
        "HyperPod instance group `cpu`: removed, so its 1 ml.c5.4xlarge nodes are deleted, and "
        "what runs on them stops"
    )


def gpu_type(config, kind):
    config["hyperpod-dpd:cluster"]["instanceGroups"][0]["instanceType"] = kind
    for endpoint in config["hyperpod-dpd:endpoints"]:
        endpoint["instanceType"] = kind
    return config


def test_the_dev_diff_lists_an_outage_for_the_gpu_groups_new_instance_type():
    found = changes(dev_config(), gpu_type(dev_config(), "ml.p5en.48xlarge"))
    hyperpod = by_name(found, "aws-native:sagemaker:Cluster")["hyperpod"]
    # CloudFormation updates an instance type in place: an update, yet an outage.
    assert hyperpod.kind == "update"
    assert any(
        o.startswith("HyperPod instance group `p5-dpd`: instanceType") for o in outages(found)
    )
    report = text_report("dev", "main", found, [])
    assert "\n  - HyperPod instance group `p5-dpd`: instanceType" in report


def test_turning_node_autoscaling_on_keeps_the_deployed_count_as_the_engine_does():
    head = dev_config()
    head["hyperpod-dpd:cluster"]["autoscaling"] = {"enabled": True}
    found = changes(dev_config(), head)
    hyperpod = by_name(found, "aws-native:sagemaker:Cluster")["hyperpod"]
    (count,) = [p for p in hyperpod.paths if p.path == "instanceGroups[0].instanceCount"]
    assert (count.old, count.new, count.ignored) == (2, 0, True)
    assert hyperpod.kind == "update"
    assert not outages(found)
    assert (
        "instanceGroups[0].instanceCount: 2 → 0  (ignored: ignoreChanges keeps the deployed value)"
        in text_report("dev", "main", found, [])
    )
