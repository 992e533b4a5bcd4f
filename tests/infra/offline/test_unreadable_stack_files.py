"""Stack files the program cannot read, and an --out it must not overwrite: exit 2, no traceback,
the file named (with line and column where YAML gives them), nothing written."""

import pytest

from infra.__main__ import main
from infra.paths import ROOT
from tests.support import config_file, dev_config

BROKEN_FILES = {
    "a YAML syntax error": (
        "config:\n  aws:region: us-west-2\n  hyperpod-dpd:endpoints: [\n",
        "Pulumi.broken.yaml:4:1: is not valid YAML: expected the node content",
    ),
    "a config that is not a mapping": (
        "config: 3\n",
        "Pulumi.broken.yaml: config: is a number; it must be a mapping of config keys",
    ),
    "a config that is a list": (
        "config:\n  - aws:region\n",
        "Pulumi.broken.yaml: config: is a list; it must be a mapping",
    ),
    "a file that is a list": (
        "- a\n- b\n",
        "Pulumi.broken.yaml: is a list; a stack file is a mapping with a `config:` mapping",
    ),
}


@pytest.mark.parametrize("command", ["render", "size"])
@pytest.mark.parametrize("case", BROKEN_FILES)
def test_an_unreadable_stack_file_exits_2_naming_the_file(tmp_path, capsys, command, case):
    text, expected = BROKEN_FILES[case]
    path = tmp_path / "Pulumi.broken.yaml"
    path.write_text(text)
    out = tmp_path / "out"
    arguments = [command, "--config-file", str(path)]
    arguments += ["--out", str(out)] if command == "render" else []
    assert main(arguments) == 2
    err = capsys.readouterr().err
    assert f"{tmp_path}/{expected}" in err
    assert "Traceback" not in err
    assert not out.exists()


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
    config["hyperpod-dpd:network"]["availabilityZoneIds"] = ["usw2-az2", "usw2-az9"]
    out = tmp_path / "out"
    assert main(["render", "--config-file", config_file(tmp_path, config), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "hyperpod-dpd:network.availabilityZoneIds[1]: 'usw2-az9' does not exist" in err
    assert not out.exists()


def test_out_naming_an_existing_file_exits_2_and_leaves_it(tmp_path, capsys):
    existing = tmp_path / "notes.txt"
    existing.write_text("keep me")
    assert main(["render", "--out", str(existing)]) == 2
    assert capsys.readouterr().err == (
        f"--out: {existing} is an existing file; name a directory (new, empty, or a render's)\n"
    )
    assert existing.read_text() == "keep me"


def test_out_naming_a_directory_that_holds_no_render_exits_2_and_leaves_it(tmp_path, capsys):
    (tmp_path / "precious.txt").write_text("keep me")
    assert main(["render", "--out", str(tmp_path)]) == 2
    assert "holds no earlier render" in capsys.readouterr().err
    assert (tmp_path / "precious.txt").read_text() == "keep me"


def test_a_render_may_replace_an_earlier_render(tmp_path):
    assert main(["render", "--out", str(tmp_path)]) == 0
    assert main(["render", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "resources.json").is_file()


def test_the_project_root_is_never_a_render_target(capsys):
    assert main(["render", "--out", str(ROOT)]) == 2
    assert (ROOT / "Pulumi.yaml").is_file()
