"""Values in GitHub-flavoured Markdown, read as text and never as markup.

The pull-request comment is Markdown that GitHub renders with its HTML allowed (`<img>`,
`<a>`, `<b>`, ...), autolinks URLs and links @-mentions and #references. Any value a stack
file, a git revision or a resource name wrote therefore goes into a code span (`code`, or
`cell` inside a table) or a fenced block (`fenced`): inside them GFM reads no emphasis, link,
HTML or entity, and GitHub links no mention (GFM spec 0.29-gfm, 6.1 "Code spans" and 4.5
"Fenced code blocks"; backslash escapes do not work there either, so a value cannot be
escaped into a span, only fenced by a longer backtick string than any inside it).
"""

import re

_BACKTICKS = re.compile(r"`+")
_LINE_BREAK = re.compile(r"\r\n|[\r\n]")


def _longest_backtick_run(text: str) -> int:
    return max((len(run) for run in _BACKTICKS.findall(text)), default=0)


def code(text: str) -> str:
    """`text` as one inline code span, whatever backticks or spaces it holds.

    A span ends at the first backtick string as long as the one that opened it, so the fence is
    one longer than any run inside. GFM strips one space from each end when both ends have one,
    and a span may not start or end on a backtick of its own fence: both are padded with a
    space. Line breaks become spaces, as GFM reads them inside a span anyway (and a table row
    must stay one line)."""
    text = _LINE_BREAK.sub(" ", text)
    fence = "`" * (_longest_backtick_run(text) + 1)
    padded = text.startswith(("`", " ")) or text.endswith(("`", " ")) or not text
    pad = " " if padded else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def cell(text: str) -> str:
    """`text` as a code span inside a table cell: GFM splits rows at every unescaped `|`,
    even inside a span, and takes `\\|` as a literal pipe there too (spec 4.10, "Tables")."""
    return code(text).replace("|", "\\|")


def fenced(info: str, body: str) -> list[str]:
    """Lines of a fenced code block of `body`, closed only by its own fence: a backtick string
    longer than any in the body (at least the usual three)."""
    fence = "`" * max(3, _longest_backtick_run(body) + 1)
    return [f"{fence}{info}", *body.splitlines(), fence]
