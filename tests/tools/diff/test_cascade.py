"""What a replacement takes with it: the resources of a replaced provider, and the dependents of
a resource deleted before it is replaced."""

from tools.diff.cascade import dependent_replacements

PROVIDER = "urn:provider"
CLUSTER = "urn:cluster"


def resource(urn, type_="aws:eks/addon:Addon", **fields):
    return {"urn": urn, "type": type_, "name": urn.split(":")[1], "custom": True, **fields}


def test_everything_a_replaced_provider_manages_is_replaced_with_why():
    existing = [
        resource(PROVIDER, "pulumi:providers:kubernetes"),
        resource("urn:endpoint", "kubernetes:x/v1:Y", provider=PROVIDER),
        resource("urn:release", "kubernetes:helm.sh/v3:Release", provider=PROVIDER),
        resource("urn:elsewhere", "kubernetes:x/v1:Y", provider="urn:other"),
    ]
    assert dependent_replacements({PROVIDER}, existing) == {
        "urn:endpoint": "its provider 'provider' is replaced with the cluster it reaches",
        "urn:release": "its provider 'provider' is replaced with the cluster it reaches",
    }


def dependent_of(options: dict, key: str = "clusterName") -> dict[str, str]:
    existing = [
        resource(CLUSTER, "eks:index:Cluster", options=options),
        resource("urn:addon", propertyDependencies={key: [CLUSTER]}),
    ]
    return dependent_replacements({CLUSTER}, existing)


def test_an_input_forcing_replacement_from_a_resource_deleted_first_replaces_its_holder():
    assert dependent_of({"deleteBeforeReplace": True}) == {
        "urn:addon": "clusterName comes from 'cluster', which is deleted before it is replaced "
        "(replaces: clusterName)"
    }


def test_created_before_deleted_the_old_outputs_stay_valid_until_the_end():
    assert dependent_of({}) == {}


def test_an_input_the_provider_updates_in_place_is_no_replacement():
    assert dependent_of({"deleteBeforeReplace": True}, key="configurationValues") == {}


def test_an_unknown_kubeconfig_replaces_the_kubernetes_provider_and_then_its_objects():
    existing = [
        resource(CLUSTER, "eks:index:Cluster", options={"deleteBeforeReplace": True}),
        resource(PROVIDER, "pulumi:providers:kubernetes", propertyDependencies={
            "kubeconfig": [CLUSTER]
        }),
        resource("urn:endpoint", "kubernetes:x/v1:Y", provider=PROVIDER),
    ]  # fmt: skip
    assert set(dependent_replacements({CLUSTER}, existing)) == {PROVIDER, "urn:endpoint"}


def test_components_are_never_replaced_themselves():
    component = resource("urn:component", "hyperpod-dpd:x:Y", custom=False, provider=None)
    existing = [
        resource(CLUSTER, "eks:index:Cluster", options={"deleteBeforeReplace": True}),
        {**component, "propertyDependencies": {"clusterName": [CLUSTER]}},
    ]
    assert dependent_replacements({CLUSTER}, existing) == {}
