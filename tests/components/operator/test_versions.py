import re

import pytest

from components.operator.versions import (
    ADDON_OPERATOR_VERSIONS,
    DEFAULT_ADDON_VERSION,
    VersionError,
    at_least,
    operator_version,
    release,
)


@pytest.mark.parametrize(
    "addon, operator",
    [("v1.3.0-eksbuild.1", "3.2"), ("v1.4.0", "3.3"), ("v1.5.0-eksbuild.2", "3.4")],
)
def test_add_on_versions_map_to_the_operator_they_ship(addon, operator):
    assert operator_version(addon) == operator


def test_the_default_is_the_newest_known_add_on():
    newest = max(ADDON_OPERATOR_VERSIONS, key=lambda r: tuple(map(int, r.split("."))))
    assert release(DEFAULT_ADDON_VERSION) == newest
    assert operator_version(DEFAULT_ADDON_VERSION) == "3.4"


@pytest.mark.parametrize("addon", ["v1.0.0-eksbuild.1", "v1.2.0-eksbuild.1", "v1.2.1"])
def test_add_ons_shipping_an_operator_before_3_2_are_refused(addon):
    with pytest.raises(
        VersionError,
        match=r"DPD needs operator 3\.2 or later, which is add-on "
        r"v1\.3\.0-eksbuild\.1 or later",
    ):
        operator_version(addon)


def test_an_unknown_add_on_is_refused_listing_the_known_ones():
    with pytest.raises(VersionError) as refused:
        operator_version("v2.0.0-eksbuild.2")
    message = str(refused.value)
    assert "v1.3.0 (operator 3.2)" in message and "v1.5.0 (operator 3.4)" in message
    assert "operator.operatorVersion" in message


def test_a_newer_add_on_is_accepted_when_its_operator_is_named():
    assert operator_version("v2.0.0-eksbuild.2", declared="3.5") == "3.5"


def test_naming_an_old_operator_for_a_newer_add_on_is_still_refused():
    with pytest.raises(VersionError, match=r"ships operator 3\.1"):
        operator_version("v2.0.0-eksbuild.2", declared="3.1")


def test_a_named_operator_must_match_the_table():
    with pytest.raises(
        VersionError, match=re.escape("v1.4.0-eksbuild.1 ships operator 3.3, not 3.4")
    ):
        operator_version("v1.4.0-eksbuild.1", declared="3.4")


@pytest.mark.parametrize(
    "version, floor, expected",
    [
        ("v1.14.1-eksbuild.1", "v1.14.1-eksbuild.1", True),
        ("v1.14.1-eksbuild.2", "v1.14.1-eksbuild.1", True),
        ("v1.15.0", "v1.14.1-eksbuild.1", True),
        ("v1.14.1", "v1.14.1-eksbuild.1", False),
        ("v1.9.0-eksbuild.1", "v1.14.1-eksbuild.1", False),
        ("3.10", "3.2", True),
        ("3.1.3", "3.2", False),
    ],
)
def test_versions_compare_as_numbers(version, floor, expected):
    assert at_least(version, floor) is expected
