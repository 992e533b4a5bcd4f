"""Stack files the program cannot read, and an --out it must not overwrite: exit 2, no traceback,
the file named (with line and column where YAML gives them), nothing written."""

import codecs
import os
from pathlib import Path

import pytest

from infra.paths import ROOT
from infra.settings import Settings, load_settings
from tests.support import config_file, dev_config, run_program
from tools.cli import main
from tools.render.stack_config import MAX_STACK_FILE_BYTES, read_stack_config

DEV = (ROOT / "Pulumi.dev.yaml").read_text()


def _fifo(folder: Path) -> Path:
    os.mkfifo(folder / "fifo")
    return folder / "fifo"


ENV = "      environmentVariables:\n        HF_HOME: /tmp/hf_home\n"


def _dev_with_env(line: str) -> str:
    """The dev stack file with `line` added to the endpoint's environmentVariables."""
    return DEV.replace(ENV, f"{ENV}        {line}\n")


def _alias_bomb() -> str:
    """Nine levels of nine aliases each: 9**9 values once expanded."""
    lines = ["config:", "  a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    for level in range(1, 9):
        lines.append(f"  a{level}: &a{level} [{', '.join([f'*a{level - 1}'] * 9)}]")
    return "\n".join(lines) + "\n"


# What the file holds -> what the one line says after the file's path.
BROKEN_FILES = {
    "a YAML syntax error": (
        "config:\n  aws:region: us-west-2\n  hyperpod-dpd:endpoints: [\n",
        ":4:1: is not valid YAML: expected the node content",
    ),
    "a config that is not a mapping": (
        "config: 3\n",
        ": config: is a number; it must be a mapping of config keys",
    ),
    "a config that is a list": (
        "config:\n  - aws:region\n",
        ": config: is a list; it must be a mapping",
    ),
    "a file that is a list": (
        "- a\n- b\n",
        ": is a list; a stack file is a mapping with a `config:` mapping",
    ),
    "a file that is a scalar": (
        "hello\n",
        ": is a string; a stack file is a mapping with a `config:` mapping",
    ),
    "a Latin-1 save": (
        DEV.replace("# The", "# Th\u00e9").encode("latin-1"),
        ": is not UTF-8 text (byte 0xe9 at line 1, column 5; a Latin-1 or Windows-1252 save?); "
        "save it as UTF-8",
    ),
    "a binary file": (bytes(range(256)), ": is a binary file, not text (a NUL byte at line 1"),
    "UTF-16 without its byte order mark": (
        DEV.encode("utf-16-le"),
        ": is a binary file, not text (a NUL byte at line 1, column 2)",
    ),
    "UTF-32, which go-yaml does not read either": (
        DEV.encode("utf-32"),
        ": is UTF-32 text, which the Pulumi CLI does not read (UTF-8 or UTF-16); save it as UTF-8",
    ),
    "UTF-32 big-endian": (
        codecs.BOM_UTF32_BE + DEV.encode("utf-32-be"),
        ": is UTF-32 text, which the Pulumi CLI does not read",
    ),
    "a file past the size cap": (
        DEV + "#" * MAX_STACK_FILE_BYTES,
        ": is larger than 1 MiB, more than such a file holds",
    ),
    "an unquoted date, which Pulumi would rewrite": (
        _dev_with_env("CREATED: 2026-12-01"),
        ":57:18: hyperpod-dpd:endpoints[0].environmentVariables.CREATED: 2026-12-01 is a date to "
        'YAML, and Pulumi would pass it on rewritten as a timestamp; quote it ("2026-12-01") to '
        "keep it as written",
    ),
    "!!binary": (
        _dev_with_env("BLOB: !!binary aGVsbG8="),
        ":57:15: hyperpod-dpd:endpoints[0].environmentVariables.BLOB: !!binary values are not "
        "supported; a config value is text, a number, true or false, a list or a mapping "
        "(remove the tag)",
    ),
    "!!set": (
        _dev_with_env("SET: !!set {a, b}"),
        ":57:14: hyperpod-dpd:endpoints[0].environmentVariables.SET: !!set values are not",
    ),
    "a Python object tag": (
        _dev_with_env("X: !!python/object/apply:os.system [ls]"),
        ":57:12: hyperpod-dpd:endpoints[0].environmentVariables.X: "
        "!!python/object/apply:os.system "
        "values are not supported",
    ),
    "a null key": (
        _dev_with_env("null: x"),
        ":57:9: hyperpod-dpd:endpoints[0].environmentVariables: a key here is empty or null; a "
        "key is a name, quoted if it looks like something else",
    ),
    "a list as a key": (
        _dev_with_env("? [a, b]\n        : x"),
        ":57:11: hyperpod-dpd:endpoints[0].environmentVariables: a key here is not text",
    ),
    "a key written twice": (
        DEV.replace("      tensorParallelSize: 8\n", "      tensorParallelSize: 8\n" * 2),
        ":38:7: hyperpod-dpd:endpoints[0]: 'tensorParallelSize' is set twice (first on line 37); "
        "keep one",
    ),
    "NaN": (
        DEV.replace("gpuMemoryUtilization: 0.75", "gpuMemoryUtilization: .nan"),
        ":39:29: hyperpod-dpd:endpoints[0].gpuMemoryUtilization: .nan is not a number JSON can "
        "hold (NaN or infinite); write a finite number, or quote it if it is text",
    ),
    "a float too large to hold": (
        DEV.replace("gpuMemoryUtilization: 0.75", "gpuMemoryUtilization: 1e400"),
        ":39:29: hyperpod-dpd:endpoints[0].gpuMemoryUtilization: 1e400 is not a number JSON "
        "can hold",
    ),
    "a number of 5,000 digits, cut in the message": (
        DEV.replace("gpuMemoryUtilization: 0.75", "gpuMemoryUtilization: " + "9" * 5000),
        ":39:29: hyperpod-dpd:endpoints[0].gpuMemoryUtilization: " + "9" * 80 + "... (5,000 "
        "characters) is not a number JSON can hold",
    ),
    "an alias bomb": (
        _alias_bomb(),
        ":2:12: hyperpod-dpd:a5[0][3][3][7][2][0]: expands to more than 100,000 values through "
        "YAML aliases (*name); write the values out",
    ),
    "nesting 3,000 deep": (
        DEV.replace(
            "      healthCheckPath:",
            "      specOverrides: " + "{a: " * 3000 + "1" + "}" * 3000 + "\n      healthCheckPath:",
        ),
        ":51:262: nests deeper than 64 levels; no setting nests that deep",
    ),
    "an encrypted region, which the offline tools cannot read": (
        DEV.replace("aws:region: us-west-2", "aws:region:\n    secure: AAABAJfa"),
        ": aws:region: is encrypted, and the offline tools cannot decrypt it; the region is no "
        "secret, so set it plain: `pulumi config set aws:region <region>`",
    ),
    "a recursive alias": ("config:\n  a: &a [*a]\n", ":2:6: hyperpod-dpd:a[0][0][0]"),
}


@pytest.mark.parametrize("command", ["render", "size"])
@pytest.mark.parametrize("case", BROKEN_FILES)
def test_an_unreadable_stack_file_exits_2_naming_the_file(tmp_path, capsys, command, case):
    content, expected = BROKEN_FILES[case]
    path = tmp_path / "Pulumi.broken.yaml"
    if isinstance(content, str):
        path.write_text(content)
    else:
        path.write_bytes(content)
    out = tmp_path / "out"
    arguments = [command, "--config-file", str(path)]
    arguments += ["--out", str(out)] if command == "render" else []
    assert main(arguments) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"{path}{expected}")
    assert len(err.splitlines()) == 1
    assert not out.exists()


SPECIAL_FILES = {
    "a directory": (lambda tmp: tmp, "is a directory, not a file"),
    "/dev/null": (lambda tmp: Path("/dev/null"), "is a character device, not a file"),
    "a FIFO, which would block the read": (_fifo, "is a named pipe (FIFO), not a file"),
    "nothing": (lambda tmp: tmp / "Pulumi.nope.yaml", "no such stack config file"),
}


@pytest.mark.parametrize("command", ["render", "size", "diff"])
@pytest.mark.parametrize("case", SPECIAL_FILES)
def test_a_config_file_that_is_not_a_file_is_named_for_what_it_is(tmp_path, capsys, command, case):
    make, says = SPECIAL_FILES[case]
    path = make(tmp_path)
    out = tmp_path / "out"
    arguments = [command, "--config-file", str(path)]
    arguments += {"render": ["--out", str(out)], "diff": ["--base", "HEAD"]}.get(command, [])
    assert main(arguments) == 2
    assert capsys.readouterr().err == f"{path}: {says}\n"
    assert not out.exists()


# Text the Pulumi CLI reads as it is meant (go-yaml: YAML 1.2 scalars, BOMs), so must be read
# as the values the program is given.
READABLE_FILES = {
    "UTF-8 with a byte order mark": codecs.BOM_UTF8 + DEV.encode(),
    "UTF-16 with its byte order mark": DEV.encode("utf-16"),
    "a number with underscores, as go-yaml reads it": _dev_with_env("BATCH: 1_024").encode(),
    "yes and on, which stay text": _dev_with_env("A: yes\n        B: on").encode(),
    "an anchor and an alias": DEV.replace(
        "HF_HOME: /tmp/hf_home", "HF_HOME: &home /tmp/hf_home\n        XDG_CACHE_HOME: *home"
    ).encode(),
    "a merge key, overridden by a key written beside it, as go-yaml has it": DEV.replace(
        "HF_HOME: /tmp/hf_home",
        "HF_HOME: /tmp/hf_home\n        <<: {MERGED: base, HF_HOME: /elsewhere}\n"
        "        MERGED: written",
    ).encode(),
}


@pytest.mark.parametrize("case", READABLE_FILES)
def test_files_the_pulumi_cli_reads_are_read(tmp_path, case):
    path = tmp_path / "Pulumi.test.yaml"
    path.write_bytes(READABLE_FILES[case])
    # What the program reads from the file, every check passed (writing the values into the
    # manifest is the manifest's tests' business).
    settings: list[Settings] = []
    run_program("test", read_stack_config(path), lambda: settings.append(load_settings()))
    environment = settings[0].stack.endpoints[0].environment_variables
    assert environment["HF_HOME"] == "/tmp/hf_home"
    if "underscores" in case:
        assert environment["BATCH"] == "1024"
    if "yes" in case:
        assert environment["A"] == "yes"
    if "alias" in case:
        assert environment["XDG_CACHE_HOME"] == "/tmp/hf_home"
    if "merge" in case:
        assert environment["MERGED"] == "written"


def test_a_misspelt_key_keeps_its_hint_when_it_hides_a_required_one(tmp_path, capsys):
    config = dev_config()
    config["hyperpod-dpd:endpoint"] = config.pop("hyperpod-dpd:endpoints")
    out = tmp_path / "out"
    assert main(["render", "--config-file", config_file(tmp_path, config), "--out", str(out)]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "hyperpod-dpd:endpoint: is not a known setting (did you mean endpoints?); allowed keys: "
        "buckets, cluster, endpoints, network, observability, operator",
        "hyperpod-dpd:endpoints: is required",
    ]
    assert not out.exists()


def test_an_az_id_the_account_lacks_exits_2_before_anything_is_written(tmp_path, capsys):
    config = dev_config()
    config["hyperpod-dpd:network"]["availabilityZoneIds"] = ["usw2-az2", "usw2-az7"]
    out = tmp_path / "out"
    assert main(["render", "--config-file", config_file(tmp_path, config), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "hyperpod-dpd:network.availabilityZoneIds[1]: 'usw2-az7' does not exist" in err
    assert not out.exists()
