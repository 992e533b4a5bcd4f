"""The name an account gives an availability zone ID: the network pins subnets by ID, but
Kubernetes labels nodes with the name (`topology.kubernetes.io/zone`), which maps to a zone per
account, so what selects a zone for pods takes the name resolved in the deploying account."""

import pulumi
import pulumi_aws as aws

from components.network.spec import is_az_id


def zone_name(zone: str | None) -> pulumi.Input[str] | None:
    """The deploying account's name for `zone`, an AZ ID or already a name (None: no zone):
    an invoke, which runs during `pulumi preview` too."""
    if zone is None or not is_az_id(zone):
        return zone
    return aws.get_availability_zone_output(zone_id=zone).name
