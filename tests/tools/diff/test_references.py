"""The diff compares resources, not the values the mocks made up: an ID, or an endpoint that
carries one, is a reference to the resource that made it."""

from tools.diff.references import with_references
from tools.diff.stack_diff import compare

STACK = "urn:pulumi:dev::hyperpod-dpd::"
SUBNET = f"{STACK}aws:ec2/subnet:Subnet::private"
NAT = f"{STACK}aws:ec2/natGateway:NatGateway::nat"
POLICY = f"{STACK}aws:iam/rolePolicy:RolePolicy::nodes"
EKS = f"{STACK}eks:index:Cluster::eks"
PROVIDER = f"{STACK}pulumi:providers:kubernetes::eks"


def render(subnet_id: str, cidr: str = "10.0.0.0/24", eks_id: str = "E" * 32) -> list[dict]:
    """A subnet, what holds its ID, and a Kubernetes provider reaching EKS's endpoint, as mocks
    that make up `subnet_id` and `eks_id` render them."""

    def resource(urn, id_, inputs, custom=True, **more):
        type_ = urn.split("::")[2]
        name = urn.rsplit("::", 1)[1]
        return {"urn": urn, "type": type_, "name": name, "id": id_, "custom": custom,
                "inputs": inputs, "options": {}, **more}  # fmt: skip

    return [
        resource(SUBNET, subnet_id, {"cidrBlock": cidr, "vpcId": "vpc-0"}),
        resource(NAT, "nat-0123456789", {"subnetId": subnet_id}),
        resource(
            POLICY, "nodes:p", {"policy": f'{{"Resource": "arn:aws:ec2:::subnet/{subnet_id}"}}'}
        ),
        resource(EKS, eks_id, {"name": "dpd"}, custom=False),
        resource(
            PROVIDER,
            "eks-provider",
            {"kubeconfig": f"https://{eks_id}.gr7.us-west-2.eks.amazonaws.com"},
            propertyDependencies={"kubeconfig": [EKS]},
        ),
    ]


def test_the_same_resources_rendered_by_mocks_that_made_up_other_ids_are_no_change():
    assert compare(render("subnet-aaaaaaaa"), render("subnet-bbbbbbbb", eks_id="F" * 32)) == []


def test_an_id_reads_as_a_reference_wherever_it_is():
    subnet, nat, policy, *_ = with_references(render("subnet-aaaaaaaa"))
    assert nat["inputs"]["subnetId"] == f"⟨{SUBNET}⟩"
    assert f"subnet/⟨{SUBNET}⟩" in policy["inputs"]["policy"]
    # A value that is the resource's own input is no made-up ID.
    assert subnet["inputs"]["cidrBlock"] == "10.0.0.0/24"


def test_a_made_up_value_without_the_id_is_matched_only_where_both_sides_take_it_from_there():
    base = render("subnet-aaaaaaaa", eks_id="not-an-id")
    base[4]["inputs"]["kubeconfig"] = "https://53B9FD.gr7.us-west-2.eks.amazonaws.com"
    assert compare(base, render("subnet-aaaaaaaa")) == []
    del base[4]["propertyDependencies"]
    (change,) = compare(base, render("subnet-aaaaaaaa"))
    assert change.name == "eks" and change.paths[0].path == "kubeconfig"


def test_a_replaced_resource_renews_its_references_and_replaces_what_they_force():
    changes = {c.name: c for c in compare(render("subnet-a1"), render("subnet-b2", "10.0.1.0/24"))}
    assert changes["private"].kind == "replace"
    assert changes["nat"].kind == "replace"
    assert [(p.path, p.new, p.replaces) for p in changes["nat"].paths] == [
        ("subnetId", f"⟨new {SUBNET}⟩", "subnetId")
    ]
    # An IAM policy naming it is updated in place.
    assert changes["nodes"].kind == "update"
    assert changes["nodes"].paths[0].path == "policy.Resource"
    assert set(changes) == {"private", "nat", "nodes"}
