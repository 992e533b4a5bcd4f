"""The diff as people read it: the costliest replacement first, with its outage, and values in
the units a person sets them in."""

from tools.diff.diff_report import markdown_report, text_report
from tools.diff.stack_diff import Change, PathChange

ENDPOINT = "kubernetes:inference.sagemaker.aws.amazon.com/v1:InferenceEndpointConfig"
BUFFER = "spec.worker.environmentVariables[PD_BUFFER_SIZE].value"


def test_the_pd_buffer_reads_in_gib():
    change = Change(
        "update",
        "urn:e",
        ENDPOINT,
        "default/dpd-test",
        [PathChange(BUFFER, "8589934592", "17179869184")],
    )
    assert (
        "      PD_BUFFER_SIZE: 8 GiB → 16 GiB"
        in text_report("dev", "main", [change], []).splitlines()
    )


CHANGES = [
    Change("update", "urn:a", "aws:iam/role:Role", "role", [PathChange("description", "a", "b")]),
    Change("replace", "urn:e", ENDPOINT, "default/dpd-test",
           because="its provider 'eks' is replaced"),
    Change("replace", "urn:h", "aws-native:sagemaker:Cluster", "hyperpod",
           [PathChange("vpcConfig.subnets[0]", "subnet-a", "subnet-b", "vpcConfig")]),
]  # fmt: skip


def test_the_pull_request_comment_opens_with_the_outages_worst_first():
    report = markdown_report("dev", "main", CHANGES, [], "graph")
    warning = report[report.index("> [!WARNING]") : report.index("| |")]
    assert warning.index("HyperPod cluster `hyperpod`") < warning.index(
        "endpoint `default/dpd-test`"
    )
    assert "take hours" in warning
    rows = [line for line in report.splitlines() if line.startswith("| +- replace")]
    assert rows[0].startswith("| +- replace | `hyperpod`")
    assert "replaced because its provider 'eks' is replaced" in rows[1]


def test_the_terminal_report_lists_replacements_before_updates():
    lines = text_report("dev", "main", CHANGES, []).splitlines()
    kinds = [line.split()[1] for line in lines if line.startswith(("+-", " ~"))]
    assert kinds == ["replace", "replace", "update"]
