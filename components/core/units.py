"""Binary byte units, and how figures in bytes read in messages."""

import re

KIB = 1024
MIB = 1024**2
GIB = 1024**3


def format_bytes(size: float) -> str:
    """`8 GiB`, `240 MiB`, `40 KiB`: the largest unit the size reaches, four significant digits."""
    for unit, name in ((GIB, "GiB"), (MIB, "MiB"), (KIB, "KiB")):
        if abs(size) >= unit:
            return f"{size / unit:.4g} {name}"
    return f"{size:g} bytes"


# Sizes a user writes: a byte count, or a number and a binary unit.
_BINARY_SIZE = re.compile(r"^\s*\d+(\.\d+)?\s*(B|KiB|MiB|GiB|TiB)?\s*$", re.IGNORECASE)
_DECIMAL_SIZE = re.compile(r"^\s*(\d+(\.\d+)?)\s*([KMGT])B?\s*$", re.IGNORECASE)
# unit letter -> (decimal exponent of 10, binary exponent of 2)
_EXPONENTS = {"K": (3, 10), "M": (6, 20), "G": (9, 30), "T": (12, 40)}


def binary_size_problem(text: str) -> str | None:
    """Why a written size is refused. `8GB` reads as 8 x 10^9 bytes, not the 8 x 2^30 a GPU
    user means, so only binary units (and plain byte counts) are taken."""
    if _BINARY_SIZE.match(text):
        return None
    decimal = _DECIMAL_SIZE.match(text)
    if decimal is None:
        return "must be a byte count or a size in KiB, MiB, GiB or TiB, e.g. 8GiB"
    number, unit = decimal.group(1), decimal.group(3).upper()
    ten, two = _EXPONENTS[unit]
    return (
        f"{text!r} would be {number} x 10^{ten} bytes, not {number} {unit}iB; write "
        f"{number}{unit}iB for {number} x 2^{two} bytes, or a byte count"
    )
