"""Values in GitHub-flavoured Markdown: what GitHub's renderer makes of them is the value, as
text."""

import html
import re

import cmarkgfm
import pytest
from cmarkgfm.cmark import Options

from tools.reports.markdown import cell, code, fenced


def _html(markdown: str) -> str:
    return cmarkgfm.github_flavored_markdown_to_html(markdown, options=Options.CMARK_OPT_UNSAFE)


VALUES = [
    "plain",
    "`one`",
    "a `` two ``` three",
    "``",
    " spaced ",
    "<img src=x onerror=alert(1)>",
    "**bold** _em_ [link](https://evil.example) @octocat #1",
    "&amp; &#x41; \\*",
]


@pytest.mark.parametrize("value", VALUES)
def test_a_code_span_shows_its_value_whole(value):
    (inner,) = re.findall(r"<p><code>(.*)</code></p>", _html(code(value)), re.S)
    assert html.unescape(inner) == value


@pytest.mark.parametrize("value", [*VALUES, "a | b", "ends with \\", "x\\|y"])
def test_a_cell_keeps_its_row_and_its_value(value):
    table = f"| a | b |\n|---|---|\n| {cell(value)} | after |\n"
    rendered = _html(table)
    cells = re.findall(r"<td>(.*?)</td>", rendered, re.S)
    assert len(cells) == 2 and cells[1] == "after"
    assert html.unescape(re.fullmatch(r"<code>(.*)</code>", cells[0], re.S).group(1)) == value


def test_a_line_break_in_a_cell_is_a_space():
    assert cell("a\nb\r\nc") == "`a b c`"


def test_a_fenced_block_is_closed_only_by_its_own_fence():
    body = "before\n```\n<b>after the usual fence</b>\n````\nlast"
    rendered = _html("\n".join([*fenced("diff", body), "", "**outside**"]))
    (inner,) = re.findall(r'<pre lang="diff"><code>(.*?)</code></pre>', rendered, re.S)
    assert html.unescape(inner) == body + "\n"
    assert rendered.endswith("<p><strong>outside</strong></p>\n")


def test_a_block_without_backticks_keeps_the_usual_fence():
    assert fenced("mermaid", "flowchart LR\n") == ["```mermaid", "flowchart LR", "```"]
