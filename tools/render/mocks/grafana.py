"""Grafana's resources, from the address of the Grafana they are created in and their inputs.
IDs are `<org>:<uid>` as the Grafana provider writes them; organization 1 is the default."""

import json

from tools.render.mocks.account import hex_id


def _grafana_data_source(url: str, inputs: dict) -> tuple[str, dict]:
    uid = inputs.get("uid") or hex_id("datasource", inputs.get("name"), length=14)
    return f"1:{uid}", {"uid": uid}


def _grafana_folder(url: str, inputs: dict) -> tuple[str, dict]:
    uid = inputs.get("uid") or hex_id("folder", inputs.get("title"), length=14)
    return f"1:{uid}", {"uid": uid, "url": f"{url}/dashboards/f/{uid}/"}


def _grafana_dashboard(url: str, inputs: dict) -> tuple[str, dict]:
    model = json.loads(inputs["configJson"])
    uid = model.get("uid") or hex_id("dashboard", model.get("title"), length=14)
    slug = "-".join(str(model.get("title", "")).lower().split())
    return f"1:{uid}", {
        "uid": uid,
        "url": f"{url}/d/{uid}/{slug}",
        "dashboardId": int(hex_id("dashboard-id", uid, length=4), 16),
        "version": 1,
    }


def _grafana_rule_group(url: str, inputs: dict) -> tuple[str, dict]:
    return f"1:{inputs['folderUid']}:{inputs['name']}", {}


GRAFANA_RESOURCES = {
    "grafana:oss/dataSource:DataSource": _grafana_data_source,
    "grafana:oss/folder:Folder": _grafana_folder,
    "grafana:oss/dashboard:Dashboard": _grafana_dashboard,
    "grafana:alerting/ruleGroup:RuleGroup": _grafana_rule_group,
}
