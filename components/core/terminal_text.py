"""Text a terminal shows as written: the characters it would act on are spelt out.

A value from a stack file, a bundle or a git revision can hold an escape sequence, a carriage
return or backspaces that overwrite what came before, or a BiDi override ("Trojan Source",
CVE-2021-42574). `printable` writes each as its Python escape: Unicode's control (Cc) and format
(Cf) characters, the line and paragraph separators (Zl, Zp) and lone surrogates (Cs); it keeps
newlines and tabs, which `one_line` spells out too.
"""

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
