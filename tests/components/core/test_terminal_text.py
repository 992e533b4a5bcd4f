"""Text a terminal shows as written: what it would act on is spelt out, what it shows is kept."""

import pytest

from components.core.terminal_text import one_line, printable

ACTED_ON = {
    "erase the line above": ("ok\x1b[1A\x1b[2K", "ok\\x1b[1A\\x1b[2K"),
    "a C1 CSI of its own": ("\x9b31mred", "\\x9b31mred"),
    "a link drawn by OSC 8": (
        "\x1b]8;;https://e.example\x1b\\x",
        "\\x1b]8;;https://e.example\\x1b\\x",
    ),
    "overwrite from the line's start": ("approved\rrefused", "approved\\rrefused"),
    "backspaces": ("yes\b\b\bno", "yes\\x08\\x08\\x08no"),
    "a BiDi override": ("user\u202e ,nimda", "user\\u202e ,nimda"),
    "a BiDi isolate": ("a\u2066b\u2069", "a\\u2066b\\u2069"),
    "a zero-width space": ("ad\u200bmin", "ad\\u200bmin"),
    "a line separator": ("a\u2028b", "a\\u2028b"),
    "a lone surrogate": ("bad\udc80byte", "bad\\udc80byte"),
    "NUL and DEL": ("a\x00b\x7f", "a\\x00b\\x7f"),
}


@pytest.mark.parametrize("case", ACTED_ON)
def test_what_a_terminal_acts_on_is_spelt_out(case):
    text, shown = ACTED_ON[case]
    assert printable(text) == shown
    assert one_line(text) == shown


@pytest.mark.parametrize(
    "text",
    [
        "Llama-3.3-70B-Instruct → 16 GiB",
        "modèle/日本語/🙂",
        "quotes ' \" and $(dollar) `backticks`",
        "",
    ],
)
def test_what_a_terminal_shows_is_kept(text):
    assert printable(text) == text
    assert one_line(text) == text


def test_printable_keeps_the_layout_and_one_line_spells_it_out():
    assert printable("a\n\tb") == "a\n\tb"
    assert one_line("a\n\tb") == "a\\n\\tb"
