from typing import Any

from components.operator.checks import check_operator, resolved_operator_version
from components.operator.spec import OperatorSpec


def spec(**settings: Any) -> OperatorSpec:
    return OperatorSpec.model_validate(settings)


def fields(**settings: Any) -> list[tuple[str, str]]:
    return [(f.code, f.field) for f in check_operator(spec(**settings))]


def test_the_defaults_pass():
    assert fields() == []
    assert resolved_operator_version(spec()) == "3.4"


def test_an_old_add_on_is_refused_on_its_key():
    assert fields(addonVersion="v1.2.1-eksbuild.1") == [("operator-version", "addonVersion")]


def test_a_newer_add_on_passes_with_its_operator_named():
    assert fields(addonVersion="v2.0.0-eksbuild.2", operatorVersion="3.5") == []
    assert fields(addonVersion="v2.0.0-eksbuild.2") == [("operator-version", "addonVersion")]


def test_dependency_add_ons_below_their_floor_are_refused():
    assert fields(dependencyVersions={"certManager": "v1.17.0-eksbuild.1"}) == [
        ("dependency-version", "dependencyVersions.certManager")
    ]
    assert fields(dependencyVersions={"s3CsiDriver": "v1.15.0-eksbuild.1"}) == []


def test_an_installed_operator_is_checked_by_its_version():
    assert fields(installed={"operatorVersion": "3.3"}) == []
    assert fields(installed={"operatorVersion": "3.1.3"}) == [
        ("operator-version", "installed.operatorVersion")
    ]
    assert resolved_operator_version(spec(installed={"operatorVersion": "3.3"})) == "3.3"


def test_an_installed_operator_is_checked_by_its_add_on():
    assert fields(installed={"addonVersion": "v1.2.0-eksbuild.1"}) == [
        ("operator-version", "installed.addonVersion")
    ]
    assert resolved_operator_version(spec(installed={"addonVersion": "v1.4.0-eksbuild.1"})) == "3.3"


def test_an_installed_operator_needs_a_version():
    assert fields(installed={}) == [("installed-version-unknown", "installed")]
