"""Invokes of the live preflight (infra/preflight.py), answered as `MockedAccount.answers`
says: quotas, the region's AZs, and the add-on versions EKS offers."""

import sys

from tools.render.mocks.account import MockedAccount, hex_id


def _service_quota(m: MockedAccount, args: dict) -> dict:
    name = args["quotaName"]
    return {
        "id": "",
        "arn": "",
        "quotaCode": m.answers.quota_code,
        "quotaName": name,
        "serviceCode": args["serviceCode"],
        "serviceName": "Amazon SageMaker",
        "value": m.answers.quotas.get(name, sys.float_info.max),
        "defaultValue": 0.0,
        "adjustable": True,
        "globalQuota": False,
        "usageMetrics": [],
    }


def _availability_zones(m: MockedAccount, args: dict) -> dict:
    zones = m.zones()
    return {
        "id": m.region,
        "names": list(zones.values()),
        "zoneIds": list(zones),
        "groupNames": [m.region] * len(zones),
    }


def _availability_zone(m: MockedAccount, args: dict) -> dict:
    zone_id = args["zoneId"]
    return {"id": zone_id, "zoneId": zone_id, "name": m.az_name(zone_id), "region": m.region}


def _eks_addon_lookup(m: MockedAccount, args: dict) -> dict:
    cluster, addon = args["clusterName"], args["addonName"]
    return {
        "id": f"{cluster}:{addon}",
        "addonName": addon,
        "clusterName": cluster,
        "addonVersion": m.answers.inference_addon_version,
        "arn": m.account.arn("eks", f"addon/{cluster}/{addon}/{hex_id(addon, length=8)}"),
        "configurationValues": "",
        "serviceAccountRoleArn": "",
        "podIdentityAssociations": [],
        "tags": {},
    }


def _addon_version(m: MockedAccount, args: dict) -> dict:
    addon, kubernetes = args["addonName"], args["kubernetesVersion"]
    return {
        "id": addon,
        "addonName": addon,
        "kubernetesVersion": kubernetes,
        "mostRecent": args.get("mostRecent", False),
        "version": m.answers.newest_observability_addon,
    }


PREFLIGHT_ANSWERS = {
    "aws:servicequotas/getServiceQuota:getServiceQuota": _service_quota,
    "aws:index/getAvailabilityZones:getAvailabilityZones": _availability_zones,
    "aws:index/getAvailabilityZone:getAvailabilityZone": _availability_zone,
    "aws:eks/getAddon:getAddon": _eks_addon_lookup,
    "aws:eks/getAddonVersion:getAddonVersion": _addon_version,
}
