"""The DPD dashboard: one row per endpoint, each role's series, the SLO and the range."""

from components.observability.dashboard import DASHBOARD_UID, PROMETHEUS_UID, dpd_dashboard
from components.observability.watched import WatchedEndpoint, WatchedRole

ENDPOINT = WatchedEndpoint(
    name="dpd",
    namespace="default",
    roles=(WatchedRole("prefill", 1, 4, "vllm:num_requests_waiting"), WatchedRole("decode", 2, 2)),
    ttft_ms=2000,
    tpot_ms=50,
)
PANELS = [
    "Queued requests",
    "Running requests",
    "Time to first token p90",
    "Time per output token p90",
    "End-to-end latency p90",
    "KV cache use (fullest pod)",
    "GPU use",
    "Replicas against the autoscaling range",
]


def panels(board: dict) -> dict[str, dict]:
    return {p["title"]: p for p in board["panels"] if p["type"] != "row"}


def targets(panel: dict) -> dict[str, str]:
    return {t["legendFormat"]: t["expr"] for t in panel["targets"]}


def test_each_endpoint_gets_a_row_with_the_dpd_panels_on_the_stack_prometheus():
    board = dpd_dashboard([ENDPOINT])
    assert board["uid"] == DASHBOARD_UID
    rows = [p["title"] for p in board["panels"] if p["type"] == "row"]
    assert rows == ["dpd (default)"]
    assert list(panels(board)) == PANELS
    assert {p["datasource"]["uid"] for p in panels(board).values()} == {PROMETHEUS_UID}


def test_queues_and_running_requests_are_shown_per_role():
    queued = targets(panels(dpd_dashboard([ENDPOINT]))["Queued requests"])
    assert queued == {
        "prefill": 'sum(vllm:num_requests_waiting{namespace="default",'
        'pod_name=~"prefill-dpd-[a-z0-9]{1,10}-[a-z0-9]{5}"})',
        "decode": 'sum(vllm:num_requests_waiting{namespace="default",'
        'pod_name=~"decode-dpd-[a-z0-9]{1,10}-[a-z0-9]{5}"})',
    }


def test_latency_panels_draw_the_slo_in_seconds():
    board = panels(dpd_dashboard([ENDPOINT]))
    for title, slo in (("Time to first token p90", 2.0), ("Time per output token p90", 0.05)):
        defaults = board[title]["fieldConfig"]["defaults"]
        assert defaults["unit"] == "s"
        assert defaults["thresholds"]["steps"][-1]["value"] == slo
        assert defaults["custom"]["thresholdsStyle"]["mode"] == "line"
    assert "thresholds" not in board["End-to-end latency p90"]["fieldConfig"]["defaults"]


def test_without_an_slo_no_line_is_drawn():
    plain = WatchedEndpoint("dpd", "default", ENDPOINT.roles)
    ttft = panels(dpd_dashboard([plain]))["Time to first token p90"]
    assert "thresholds" not in ttft["fieldConfig"]["defaults"]


def test_replicas_are_drawn_against_each_role_range():
    replicas = targets(panels(dpd_dashboard([ENDPOINT]))["Replicas against the autoscaling range"])
    assert replicas == {
        "prefill": 'sum(kube_deployment_status_replicas{namespace="default",'
        'deployment="prefill-dpd"})',
        "prefill min": "vector(1)",
        "prefill max": "vector(4)",
        "decode": 'sum(kube_deployment_status_replicas{namespace="default",'
        'deployment="decode-dpd"})',
        "decode min": "vector(2)",
        "decode max": "vector(2)",
    }


def test_gpu_use_reads_dcgm_by_the_kubernetes_pod_label():
    gpu = targets(panels(dpd_dashboard([ENDPOINT]))["GPU use"])
    assert gpu["decode"] == (
        'avg(DCGM_FI_DEV_GPU_UTIL{namespace="default",pod=~"decode-dpd-[a-z0-9]{1,10}-[a-z0-9]{5}"})'
    )


def test_two_endpoints_get_two_rows():
    other = WatchedEndpoint("chat", "prod", ENDPOINT.roles)
    board = dpd_dashboard([ENDPOINT, other])
    assert [p["title"] for p in board["panels"] if p["type"] == "row"] == [
        "dpd (default)",
        "chat (prod)",
    ]
    assert len(board["panels"]) == 2 * (1 + len(PANELS))
