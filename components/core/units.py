"""Binary byte units, and how figures in bytes read in messages."""

KIB = 1024
MIB = 1024**2
GIB = 1024**3


def format_bytes(size: float) -> str:
    """`8 GiB`, `240 MiB`, `40 KiB`: the largest unit the size reaches, four significant digits."""
    for unit, name in ((GIB, "GiB"), (MIB, "MiB"), (KIB, "KiB")):
        if abs(size) >= unit:
            return f"{size / unit:.4g} {name}"
    return f"{size:g} bytes"
