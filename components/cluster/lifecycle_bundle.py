"""The lifecycle scripts as one content-addressed bundle: changing a script moves the S3 prefix,
and so the cluster's `life_cycle_config`, which shows the change in the preview."""

import hashlib
from dataclasses import dataclass
from pathlib import Path

ENTRY_POINT = "on_create.sh"
DIGEST_LENGTH = 16


@dataclass(frozen=True)
class Bundle:
    prefix: str
    files: tuple[Path, ...]


def bundle(directory: Path) -> Bundle:
    files = tuple(sorted(p for p in directory.iterdir() if p.is_file()))
    if ENTRY_POINT not in {p.name for p in files}:
        raise FileNotFoundError(f"{directory} has no {ENTRY_POINT}")
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return Bundle(prefix=f"lifecycle/{digest.hexdigest()[:DIGEST_LENGTH]}", files=files)
