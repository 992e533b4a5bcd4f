"""The diff as people read it: the costliest replacement first, with its outage, and values in
the units a person sets them in."""

import json
from html.parser import HTMLParser
from pathlib import Path

import cmarkgfm
from cmarkgfm.cmark import Options

from tests.support import config_file, dev_config
from tools.cli import main
from tools.diff.diff_report import deltas, manifest_diffs, markdown_report, text_report
from tools.diff.stack_diff import Change, PathChange, compare

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


def test_the_pull_request_comment_opens_with_the_outages_worst_first_each_with_its_cause():
    report = markdown_report("dev", "main", CHANGES, [], "graph")
    warning = report[report.index("> [!WARNING]") : report.index("| |")]
    assert warning.index("HyperPod cluster `hyperpod`") < warning.index(
        "endpoint `default/dpd-test`"
    )
    assert "take hours" in warning
    assert "Forced by `vpcConfig.subnets[0]: subnet-a → subnet-b`." in warning
    assert "Forced: its provider 'eks' is replaced." in warning
    rows = [line for line in report.splitlines() if line.startswith("| +- replace")]
    assert rows[0].startswith("| +- replace | `hyperpod`")
    assert "replaced because its provider 'eks' is replaced" in rows[1]


def test_the_terminal_report_lists_replacements_before_updates():
    lines = text_report("dev", "main", CHANGES, []).splitlines()
    kinds = [line.split()[1] for line in lines if line.startswith(("+-", " ~"))]
    assert kinds == ["replace", "replace", "update"]


# What a stack file can say that GFM and GitHub would read as markup: raw HTML, an @-mention,
# bold, a link and a bare URL, a pipe that splits a table cell, backticks that close a code span
# and a fence that closes a code block. Each value carries PWN, to find where it lands.
HOSTILE_ENV = (
    "PWN1 `` ` </code><img src=x onerror=alert(1)> @octocat **approved by security** "
    "[click](https://evil.example) https://evil.example | fake | cell"
)
HOSTILE_BLOCK = "PWN2\n```\n<b>outside the fence</b> @octocat\n````\n"
HOSTILE_PREFIX = "weights/PWN3 **approved by security** @octocat www.evil.example"
HOSTILE_TAG = "PWN4 @octocat"


class _Rendered(HTMLParser):
    """The HTML GitHub's renderer makes of a comment: its tags, and each text with the tags
    around it."""

    def __init__(self) -> None:
        super().__init__()
        self.open: list[str] = []
        self.tags: list[str] = []
        self.texts: list[tuple[str, tuple[str, ...]]] = []
        self.rows: list[int] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.tags.append(tag)
        if tag == "tr":
            self.rows.append(0)
        if tag == "td":
            self.rows[-1] += 1
        if tag not in ("br", "img"):
            self.open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in self.open:
            del self.open[len(self.open) - 1 - self.open[::-1].index(tag) :]

    def handle_data(self, data: str) -> None:
        self.texts.append((data, tuple(self.open)))


def _github_html(markdown: str) -> _Rendered:
    # GitHub renders comments with raw HTML allowed (then sanitised, which keeps <img> and <b>):
    # cmark-gfm's UNSAFE option is the closest reading.
    html = cmarkgfm.github_flavored_markdown_to_html(markdown, options=Options.CMARK_OPT_UNSAFE)
    rendered = _Rendered()
    rendered.feed(html)
    return rendered


def _rendered_dir(tmp_path: Path, name: str, config: dict) -> Path:
    out = tmp_path / name
    assert main(["render", "--config-file", config_file(tmp_path, config), "--out", str(out)]) == 0
    return out


def test_a_hostile_stack_file_renders_no_markup_in_the_pull_request_comment(tmp_path):
    base = _rendered_dir(tmp_path, "base", dev_config())
    config = dev_config()
    endpoint = config["hyperpod-dpd:endpoints"][0]
    endpoint["environmentVariables"] |= {"NOTE": HOSTILE_ENV, "BLOCK": HOSTILE_BLOCK}
    endpoint["modelSource"]["s3"]["prefix"] = HOSTILE_PREFIX
    endpoint["tags"] = {"team": HOSTILE_TAG}
    head = _rendered_dir(tmp_path, "head", config)
    resources = [json.loads((out / "resources.json").read_text()) for out in (base, head)]
    sizing = [json.loads((out / "sizing.json").read_text()) for out in (base, head)]
    changes = compare(*resources)
    diffs, figures = manifest_diffs(*resources), deltas(*sizing)
    report = markdown_report("dev", "x<b>approved</b>", changes, diffs, "graph", figures)

    rendered = _github_html(report)
    assert not {"img", "a", "b", "script"} & set(rendered.tags)
    hostile = [(text, around) for text, around in rendered.texts if "PWN" in text or "@" in text]
    assert {marker for marker in ("PWN1", "PWN2", "PWN3", "PWN4") if marker in report} == {
        "PWN1", "PWN2", "PWN3", "PWN4",
    }  # fmt: skip
    assert hostile, "the hostile values appear in the comment"
    for text, around in hostile:
        assert {"code", "pre"} & set(around), f"{text!r} is read as markup inside {around}"
    # Every row keeps its table's cells (four in the changes table): no value split one.
    tables: list[list[int]] = []
    for cells in rendered.rows:
        tables.append([]) if cells == 0 else tables[-1].append(cells)
    assert set(tables[0]) == {4} and all(len(set(rows)) == 1 for rows in tables), rendered.rows
    # The revision in the headline is text too.
    assert ("x<b>approved</b>", ("p", "code")) in rendered.texts


def test_a_value_holding_backticks_stays_one_code_span():
    change = Change(
        "update", "urn:e", ENDPOINT, "default/dpd-test",
        [PathChange("spec.tags[0].value", "a", "x ``` y ` z")],
    )  # fmt: skip
    rendered = _github_html(markdown_report("dev", "main", [change], [], "graph"))
    assert ("spec.tags[0].value: a → x ``` y ` z", ("table", "tbody", "tr", "td", "code")) in (
        rendered.texts
    )


def test_the_terminal_report_spells_out_a_value_that_would_forge_a_line():
    change = Change(
        "update", "urn:e", ENDPOINT, "default/dpd-test",
        [PathChange("spec.tags[0].value", "a", "b\nStack dev: no changes from main.\x1b[1A")],
    )  # fmt: skip
    lines = text_report("dev", "main", [change], []).splitlines()
    assert lines[-1] == (
        '      spec.tags[0].value: a → "b\\nStack dev: no changes from main.\\u001b[1A"'
    )
