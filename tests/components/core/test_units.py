"""Sizes are written in binary units: `8GB` is refused with the unit meant."""

import pytest

from components.core.units import binary_size_problem


@pytest.mark.parametrize("text", ["8GiB", "16 GiB", "512mib", "1.5GiB", "8589934592", "64KiB"])
def test_binary_sizes_and_byte_counts_are_taken(text):
    assert binary_size_problem(text) is None


@pytest.mark.parametrize(
    "text, hint", [("8GB", "write 8GiB for 8 x 2^30"), ("16G", "write 16GiB"), ("2 tb", "2TiB")]
)
def test_decimal_units_are_refused_with_the_binary_unit_to_write(text, hint):
    assert hint in binary_size_problem(text)


def test_other_units_are_refused():
    assert binary_size_problem("8Gbit") == (
        "must be a byte count or a size in KiB, MiB, GiB or TiB, e.g. 8GiB"
    )
