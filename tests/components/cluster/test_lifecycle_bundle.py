from pathlib import Path

import pytest

from components.cluster.lifecycle_bundle import bundle


def scripts(tmp_path: Path, **files: str) -> Path:
    for name, text in files.items():
        (tmp_path / name.replace("_sh", ".sh")).write_text(text)
    return tmp_path


def test_the_prefix_is_a_digest_of_every_script(tmp_path):
    first = bundle(scripts(tmp_path, on_create_sh="a", helper_sh="b"))
    assert first.prefix.startswith("lifecycle/") and len(first.prefix) == len("lifecycle/") + 16
    assert [p.name for p in first.files] == ["helper.sh", "on_create.sh"]
    (tmp_path / "helper.sh").write_text("b changed")
    assert bundle(tmp_path).prefix != first.prefix


def test_the_same_scripts_give_the_same_prefix_wherever_they_are(tmp_path):
    (tmp_path / "x").mkdir()
    (tmp_path / "y").mkdir()
    one = bundle(scripts(tmp_path / "x", on_create_sh="a"))
    assert one.prefix == bundle(scripts(tmp_path / "y", on_create_sh="a")).prefix


def test_the_entry_point_is_required(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"has no on_create\.sh"):
        bundle(scripts(tmp_path, helper_sh="b"))
