"""Text a terminal shows as written: the characters it would act on instead are spelt out.

A value from a stack file, a bundle or a git revision can hold an escape sequence (ESC[1A
ESC[2K moves up a line and erases it, ESC]8 draws a link), a carriage return or backspaces that
overwrite what came before, or a Unicode BiDi override that shows text in another order than
it runs (CVE-2021-42574, "Trojan Source"). Every line the program or the tools print passes
through `printable`: each such character comes out as its Python escape (`\\x1b`, `\\r`,
`\\u202e`), so the reader sees that it is there and nothing acts on it.

Which characters: Unicode's control (Cc: C0, DEL and C1, whose U+009B is a CSI of its own)
and format (Cf: the BiDi embeddings, overrides and isolates, zero-width characters) categories,
the line and paragraph separators (Zl, Zp), and lone surrogates (Cs), which a file decoded with
errors="surrogateescape" can carry. Newlines and tabs lay text out; `printable` keeps them, and
`one_line` spells them out too, for a value inside one line.
"""

from __future__ import annotations

import re
import unicodedata

_ACTED_ON = ("Cc", "Cf", "Zl", "Zp", "Cs")
# Printable ASCII never needs a look at its category.
_CANDIDATE = re.compile(r"[^\x20-\x7e\n\t]")
_CANDIDATE_IN_LINE = re.compile(r"[^\x20-\x7e]")


def _spelt_out(match: re.Match[str]) -> str:
    character = match.group()
    if character not in "\n\t" and unicodedata.category(character) not in _ACTED_ON:
        return character
    return character.encode("unicode_escape").decode("ascii")


def printable(text: str) -> str:
    """`text` with every character a terminal would act on spelt out; newlines and tabs kept."""
    return _CANDIDATE.sub(_spelt_out, text)


def one_line(text: str) -> str:
    """`text` as one line: `printable`, with newlines and tabs spelt out too."""
    return _CANDIDATE_IN_LINE.sub(_spelt_out, text)
