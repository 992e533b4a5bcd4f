from components.endpoint.manifest import build_manifest
from components.endpoint.probes import Probes, check_probes
from components.endpoint.spec import EndpointSpec
from tests.components.endpoint.items import endpoint_problem
from tests.components.endpoint.test_manifest import MINIMAL

READY = {"httpGet": {"path": "/health", "port": 8000}, "initialDelaySeconds": 60}


def test_probes_are_written_on_the_worker_as_given():
    endpoint = EndpointSpec.model_validate({**MINIMAL, "probes": {"readinessProbe": READY}})
    worker = build_manifest(endpoint, model_bucket="b", region="us-east-2")["spec"]["worker"]
    assert worker["probes"] == {"readinessProbe": READY}


def test_a_probe_field_kubernetes_does_not_have_is_refused_naming_it():
    probe = {"httpGet": {"path": "/health", "port": 8000}, "periodSecond": 5}
    says = endpoint_problem({"probes": {"livenessProbe": probe}}, "probes.livenessProbe")
    assert "'periodSecond' was unexpected" in says


def test_a_probe_of_another_port_is_warned_about_and_the_servers_port_passes():
    probes = Probes.model_validate(
        {
            "readinessProbe": {"httpGet": {"path": "/health", "port": 9000}},
            "livenessProbe": {"tcpSocket": {"port": "http"}},
        }
    )
    (finding,) = check_probes(probes, 8000, "http")
    assert (finding.level, finding.field) == ("warning", "probes.readinessProbe.httpGet.port")
