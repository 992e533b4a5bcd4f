"""Commands run as a user pastes them: by bash, with stubs of the tools they call on PATH.

Each stub (aws, hf, kubectl, pulumi, helm, curl, python) records the arguments it was given and
does nothing else; kubectl also prints the operator's ready message, so that a wait ends at
once. A command whose quoting holds runs only its own tool, with each value as one argument;
one that leaks runs what the value says (the hostile values here `touch` a PWNED file).
"""

import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path

from infra.next_steps import READY_MESSAGE

STUBBED = ("aws", "hf", "kubectl", "pulumi", "helm", "curl", "python")
# Values that run something when a command leaks them into the shell: substitution, a second
# command, a newline, quotes that end the quoting, redirections and globbing.
HOSTILE = (
    "$(touch PWNED-1)",
    "`touch PWNED-2`",
    "x; touch PWNED-3",
    "x\ntouch PWNED-4",
    "x' ; touch PWNED-5 ; '",
    'x" ; touch PWNED-6 ; "',
    "x && touch PWNED-7",
    "x | touch PWNED-8",
    "x > PWNED-9",
    "${IFS}*",
)

# A shell script, since an interpreter's start for each call would cost most of a test's time:
# each call is its argument count, its name and arguments, NUL-terminated (no argument can hold
# a NUL).
_STUB = f"""#!/bin/sh
name=${{0##*/}}
printf '%s\\0' "$#" "$name" "$@" >> "$STUB_CALLS"
if [ "$name" = kubectl ]; then printf '%s\\n' {shlex.quote(READY_MESSAGE)}; fi
"""


def _calls(record: bytes) -> list[list[str]]:
    fields = iter(record.decode().split("\0")[:-1])
    return [[next(fields) for _ in range(int(count) + 1)] for count in fields]


@dataclass(frozen=True)
class Pasted:
    # Each stub's command line, its name first, in the order they ran.
    calls: list[list[str]]
    # What appeared in the folder the commands ran in, besides the stubs' own.
    created: list[str]


def paste(commands: list[str], folder: Path) -> Pasted:
    """Run `commands` as one pasted block, in an empty folder, with only the stubs and the
    system's own tools (grep, sleep, cat) to call."""
    stubs, work = folder / "stubs", folder / "work"
    stubs.mkdir()
    work.mkdir()
    for name in STUBBED:
        stub = stubs / name
        stub.write_text(_STUB)
        stub.chmod(0o755)
    record = folder / "calls"
    record.touch()
    subprocess.run(
        ["bash", "-c", "\n".join(commands)],
        cwd=work,
        env={"PATH": f"{stubs}:/usr/bin:/bin", "STUB_CALLS": str(record), "HOME": str(work)},
        capture_output=True,
        timeout=60,
        check=False,
    )
    calls = _calls(record.read_bytes())
    created = sorted(str(p.relative_to(work)) for p in work.rglob("*"))
    return Pasted(calls, created)


_REDIRECTIONS = {">", ">>", "<"}
_OPERATORS = {";", "&&", "||", "|", "&", "until", "while", "do", "done", "if", "then", "fi"}


def expected_calls(commands: list[str]) -> list[list[str]]:
    """The stub calls `commands` make if they run what they say: each simple command of a
    stubbed tool, its arguments as the shell splits them. Comments call nothing."""
    calls = []
    for command in commands:
        lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        lexer.commenters = "#"
        segment: list[str] = []
        redirected = False
        for token in [*lexer, ";"]:
            if token in _OPERATORS:
                if segment and segment[0] in STUBBED:
                    calls.append(segment)
                segment = []
            elif token in _REDIRECTIONS:
                redirected = True
            elif redirected:
                # A redirection's file is the shell's, not the tool's.
                redirected = False
            else:
                segment.append(token)
    return calls
