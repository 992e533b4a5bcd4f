"""The mocked AWS account: its ID, what it answers the live preflight, and its AZs."""

import hashlib
import string
from dataclasses import dataclass, field

import pulumi
from pulumi.runtime import rpc
from pulumi.runtime.mocks import MockMonitor

from components.core.aws_account import AwsAccount
from components.core.regions import AZ_ID_PREFIXES
from components.observability.versions import DEFAULT_ADDON_VERSION as DEFAULT_OBSERVABILITY_ADDON
from components.operator.versions import DEFAULT_ADDON_VERSION

ACCOUNT_ID = "123456789012"
PARTITION = "aws"
EXISTING_VPC_CIDR = "10.20.0.0/16"


@dataclass(frozen=True)
class AccountAnswers:
    """What the mocked account answers the live preflight."""

    # Service Quotas values by quota name, and the code AWS would give them. Offline neither is
    # known: a quota not named here holds anything (the render checks no quota), and no code
    # is made up; a test playing an account names both.
    quotas: dict[str, float] = field(default_factory=dict)
    quota_code: str = ""
    # The region's AZ IDs are its prefix with -az1 up to this.
    availability_zones: int = 6
    # An existing EKS cluster's Kubernetes version and upgrade policy. Offline it is not known:
    # the mocks answer none, and the preflight leaves its checks to `pulumi preview`.
    eks_version: str = ""
    eks_support_type: str = "EXTENDED"
    hyperpod_status: str = "InService"
    # The AZs (by number, az1 = 1) of an existing HyperPod cluster's subnets.
    hyperpod_subnet_zones: tuple[int, ...] = (1, 2)
    inference_addon_version: str = DEFAULT_ADDON_VERSION
    # The newest observability add-on EKS offers for the cluster's Kubernetes version.
    newest_observability_addon: str = DEFAULT_OBSERVABILITY_ADDON


# Read when the mocks are made: replace it before rendering to change the answers.
ACCOUNT = AccountAnswers()


def hex_id(*parts: object, length: int = 17) -> str:
    """A stable hexadecimal ID derived from `parts`."""
    return hashlib.sha256("/".join(map(str, parts)).encode()).hexdigest()[:length]


class MockedAccount:
    """The account and region a render answers as, and what exists in them unregistered."""

    def __init__(self, region: str, account_id: str = ACCOUNT_ID) -> None:
        self.region = region
        self.account = AwsAccount(account_id, PARTITION, region)
        self.answers = ACCOUNT
        # Resources that exist without being registered (those inside remote components),
        # so that references to them resolve. The monitor looks resources up here.
        self.registry: dict[str, MockMonitor.ResourceRegistration] = {}
        # Security group rules the account has described, by rule ID.
        self.described_rules: dict[str, dict] = {}

    def az_name(self, az_id: str) -> str:
        """The AZ an AZ ID maps to in this mocked account: az1 -> a, az2 -> b, ... The live
        preflight has refused the IDs the account does not list."""
        return self.region + string.ascii_lowercase[int(az_id.rsplit("-az", 1)[1]) - 1]

    def zones(self) -> dict[str, str]:
        """The region's AZ names by AZ ID, as many as the account answers it has."""
        prefix = AZ_ID_PREFIXES.get(self.region, self.region)
        ids = [f"{prefix}-az{n + 1}" for n in range(self.answers.availability_zones)]
        return {az_id: self.az_name(az_id) for az_id in ids}

    def reference(self, parent_type: str, type_: str, name: str, id_: str, state: dict) -> dict:
        """A resource reference on the wire, to a resource created inside a remote component."""
        stack, project = pulumi.get_stack(), pulumi.get_project()
        urn = f"urn:pulumi:{stack}::{project}::{parent_type}${type_}::{name}"
        self.registry[urn] = MockMonitor.ResourceRegistration(urn, id_, state)
        return {rpc._special_sig_key: rpc._special_resource_sig, "urn": urn, "id": id_}
