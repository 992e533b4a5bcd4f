"""The sizing as a document (sizing.json, `size --json`) and as a table."""

from typing import Any

from components.core.units import GIB, MIB
from components.endpoint.spec import EndpointSpec
from components.sizing.checks import review_sizing
from components.sizing.endpoint_architecture import endpoint_architecture
from tests.support import aggregated_endpoint, dev_endpoint
from tools.reports.sizing_report import sizing_document, sizing_table

TRANSFER_KEYS = {"tokens", "bytesPerRank", "inFlight", "seconds"}


def report(**changes: Any):
    spec = EndpointSpec.model_validate({**dev_endpoint(), **changes})
    return review_sizing(spec, endpoint_architecture(spec))


def test_the_document_has_exactly_the_published_shape():
    (endpoint,) = sizing_document([report(pdBufferSize="4GiB")])["endpoints"]
    assert set(endpoint) == {
        "name",
        "mode",
        "replicas",
        "maxGpus",
        "architecture",
        "tensorParallelSize",
        "kvBytesPerTokenPerRank",
        "chunkTokens",
        "pdBufferBytes",
        "transfers",
        "hbm",
        "recommendedPdBufferBytes",
        "findings",
        "prediction",
        "replacement",
    }
    assert set(endpoint["transfers"]) == {"routingThreshold", "maxModelLen", "typicalInput"}
    assert set(endpoint["transfers"]["routingThreshold"]) == TRANSFER_KEYS
    assert set(endpoint["transfers"]["maxModelLen"]) == TRANSFER_KEYS
    assert set(endpoint["transfers"]["typicalInput"]) == TRANSFER_KEYS
    assert set(endpoint["hbm"]) == {
        "perGpuBytes",
        "weightsBytesPerGpu",
        "utilizationBytes",
        "kvPoolBytesPerGpu",
        "pdBufferBytes",
        "overheadBytes",
        "headroomBytes",
    }
    assert set(endpoint["replicas"]) == {"prefill", "decode"}
    assert set(endpoint["replicas"]["prefill"]) == {"minReplicas", "maxReplicas", "gpus", "metric"}
    (finding,) = endpoint["findings"]
    assert set(finding) == {"level", "code", "message"}
    assert (finding["level"], finding["code"]) == ("warning", "pd-buffer-below-max-num-seqs")


def test_the_dev_endpoint_document_carries_the_documented_figures():
    (endpoint,) = sizing_document([report()])["endpoints"]
    assert {k: v for k, v in endpoint.items() if k not in ("transfers", "hbm")} == {
        "name": "dpd-test",
        "mode": "dpd",
        "replicas": {
            "prefill": {"minReplicas": 1, "maxReplicas": 1, "gpus": 8, "metric": None},
            "decode": {"minReplicas": 1, "maxReplicas": 1, "gpus": 8, "metric": None},
        },
        "maxGpus": 16,
        "architecture": "llama-3.3-70b",
        "tensorParallelSize": 8,
        "kvBytesPerTokenPerRank": 40 * 1024,
        "chunkTokens": 256,
        "pdBufferBytes": 8 * GIB,
        "recommendedPdBufferBytes": 7 * GIB,
        "findings": [],
        # Predictions are the performance model's (tests/tools/reports/test_prediction_report.py).
        "prediction": None,
        # The replacement plan is the program's (tests/infra/test_endpoint_swaps.py).
        "replacement": None,
    }
    assert endpoint["transfers"]["routingThreshold"] == {
        "tokens": 4096,
        "bytesPerRank": 160 * MIB,
        "inFlight": 51,
        "seconds": 160 * MIB * 8 * 8 / 3_200e9,
    }
    hbm = endpoint["hbm"]
    assert hbm["pdBufferBytes"] == 8 * GIB
    assert hbm["headroomBytes"] == (
        hbm["perGpuBytes"] - hbm["utilizationBytes"] - hbm["pdBufferBytes"] - hbm["overheadBytes"]
    )
    assert hbm["kvPoolBytesPerGpu"] == hbm["utilizationBytes"] - hbm["weightsBytesPerGpu"]


def test_a_workload_adds_its_typical_input_transfer():
    (endpoint,) = sizing_document([report(workload={"typicalInputTokens": 6035})])["endpoints"]
    assert endpoint["transfers"]["typicalInput"]["tokens"] == 6035
    assert endpoint["transfers"]["typicalInput"]["bytesPerRank"] == 0.234375 * GIB


def test_the_table_shows_the_figures_people_size_by():
    table = "\n".join(sizing_table(report()))
    assert table.startswith("dpd-test: llama-3.3-70b on ml.p5.48xlarge, tensorParallelSize 8\n")
    assert "KV per token per rank   40 KiB, moved in 256-token chunks" in table
    assert "routingThreshold       4,096     160 MiB         51" in table
    assert "maxModelLen           16,384     640 MiB         12" in table
    assert "headroom              9.912 GiB" in table
    assert "typicalInput           5,000     200 MiB         40" in table
    assert "recommended PD buffer   7 GiB: 32 transfers of 5,000 tokens and one of 16,384" in table
    assert table.endswith("findings                none")


def test_the_table_lists_each_finding_with_its_setting():
    table = sizing_table(report(pdBufferSize="32GiB"))
    assert table[-2] == "  findings"
    assert table[-1].startswith("    error hbm-overcommitted (pdBufferSize): 32 GiB does not fit")


def test_the_table_says_when_no_buffer_fits():
    changes = {"maxModelLen": 131072, "workload": {"typicalInputTokens": 6000, "concurrency": 64}}
    table = "\n".join(sizing_table(report(**changes)))
    assert "recommended PD buffer   none fits in 17.91 GiB: 64 transfers of 6,000 tokens" in table


def test_an_autoscaling_endpoint_shows_each_role_range_and_its_most_gpus():
    scaled = report(
        prefill={"replicas": 1, "autoscaling": {"minReplicas": 1, "maxReplicas": 4}},
        decode={
            "replicas": 1,
            "autoscaling": {"maxReplicas": 2, "metric": "concurrent", "target": 20},
        },
    )
    (endpoint,) = sizing_document([scaled])["endpoints"]
    assert endpoint["replicas"]["prefill"] == {
        "minReplicas": 1,
        "maxReplicas": 4,
        "gpus": 8,
        "metric": "waiting",
    }
    assert endpoint["replicas"]["decode"]["metric"] == "concurrent"
    assert endpoint["maxGpus"] == (4 + 2) * 8
    table = sizing_table(scaled)
    assert "  prefill replicas        1-4 x 8 GPUs, scaling on waiting" in table
    assert "  decode replicas         1-2 x 8 GPUs, scaling on concurrent" in table
    assert "  GPUs at most            48" in table


def aggregated_report():
    spec = EndpointSpec.model_validate(aggregated_endpoint())
    return review_sizing(spec, endpoint_architecture(spec))


def test_an_aggregated_endpoint_is_sized_without_a_pd_buffer_or_transfers():
    (endpoint,) = sizing_document([aggregated_report()])["endpoints"]
    assert endpoint["mode"] == "aggregated"
    assert endpoint["replicas"] == {
        "serving": {"minReplicas": 2, "maxReplicas": 2, "gpus": 8, "metric": None}
    }
    assert endpoint["maxGpus"] == 16
    assert endpoint["pdBufferBytes"] is None and endpoint["transfers"] is None
    assert endpoint["hbm"]["pdBufferBytes"] == 0
    table = "\n".join(sizing_table(aggregated_report()))
    assert "serving replicas        2 x 8 GPUs" in table
    assert "PD buffer" not in table and "transfers of one prompt" not in table
    # No DPD advice on an endpoint that does not run DPD.
    assert not {f.code for f in aggregated_report().findings} & {"short-inputs", "model-under-70b"}
