"""checkov over a render: its AWS resources as one CloudFormation template, and its Kubernetes
objects as manifests, scanned by checkov from its own environment (scanners/.venv).

Each check skipped here carries its reason, which goes into the template next to the resource
(`Metadata.checkov.skip[].comment`), or into a Kubernetes object's `checkov.io/skip<n>`
annotation, where checkov reads it and reports it with the skip. Only the scanned copy carries
them: what the stack deploys is left as it is.
"""

import json
import subprocess
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from infra.paths import ROOT
from tests.cloudformation import template
from tools.render.render import Registration, RenderResult
from tools.render.render_report import kubernetes_objects

CHECKOV = ROOT / "scanners" / ".venv" / "bin" / "checkov"


@dataclass(frozen=True)
class Skip:
    check: str
    # The template's logical ID of the one resource the skip is for.
    resource: str
    reason: str


SKIPS = [
    Skip(
        "CKV_AWS_58",
        "EksCluster",
        "EKS envelope-encrypts all Kubernetes API data, Secrets included, by default from "
        "Kubernetes 1.28 (EKS User Guide, 'Default envelope encryption for all Kubernetes API "
        "data'); HyperPod clusters run 1.30 or later",
    ),
    Skip(
        "CKV_AWS_111",
        "InferenceOperatorLoadBalancerControllerRole",
        "the AWS Load Balancer Controller's own policy (v2.13.2): it creates security groups, "
        "target groups, listeners and rules before they exist to name; its writes to existing "
        "resources need their elbv2.k8s.aws/cluster tag",
    ),
    Skip(
        "CKV_AWS_18",
        "AccessLogsBucket",
        "the access-log bucket is the log target; logging it into itself would log its own "
        "log deliveries without end",
    ),
    Skip(
        "CKV_AWS_21",
        "AccessLogsBucket",
        "S3 log delivery writes each log object once and never overwrites it, so versions "
        "would recover nothing",
    ),
    Skip(
        "CKV_AWS_21",
        "TlsCertificatesBucket",
        "holds only certificates the operator issues and reissues; old versions would keep "
        "replaced private keys readable",
    ),
]


@dataclass(frozen=True)
class KubernetesSkip:
    check: str
    # The objects it is for: their kind and namespace.
    kind: str
    namespace: str
    # No '=': checkov splits the annotation at it.
    reason: str


KUBERNETES_SKIPS = [
    KubernetesSkip(
        "CKV_K8S_21",
        "Service",
        "default",
        "an endpoint's stable address lives in the endpoint's namespace, which the stack file "
        "names; dev keeps the default namespace of AWS's DPD guide, and prod names its own",
    ),
]


def with_kubernetes_skips(obj: dict, skips: Sequence[KubernetesSkip] = KUBERNETES_SKIPS) -> dict:
    metadata = obj.get("metadata", {})
    found = [
        s for s in skips if s.kind == obj.get("kind") and s.namespace == metadata.get("namespace")
    ]
    if not found:
        return obj
    annotations = {
        f"checkov.io/skip{n}": f"{s.check}={s.reason}" for n, s in enumerate(found, start=1)
    }
    merged = {**metadata.get("annotations", {}), **annotations}
    return {**obj, "metadata": {**metadata, "annotations": merged}}


def with_skips(cloudformation: dict, skips: Sequence[Skip] = SKIPS) -> dict:
    for skip in skips:
        resource = cloudformation["Resources"].get(skip.resource)
        if resource is None:
            continue
        entries = (
            resource.setdefault("Metadata", {}).setdefault("checkov", {}).setdefault("skip", [])
        )
        entries.append({"id": skip.check, "comment": skip.reason})
    return cloudformation


@dataclass
class Findings:
    passed: list[tuple[str, str]] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    # (check, resource, the reason written next to it)
    skipped: list[tuple[str, str, str]] = field(default_factory=list)
    resources: int = 0
    parsing_errors: list[str] = field(default_factory=list)


def _reports(output: str) -> list[dict]:
    parsed = json.loads(output)
    return parsed if isinstance(parsed, list) else [parsed]


def scan(
    renders: dict[str, Iterable[Registration] | RenderResult],
    folder: Path,
    manifests: dict[str, str] | None = None,
) -> dict:
    """Scan each render and each file of Kubernetes `manifests` (by label) in one checkov run,
    which takes seconds to start; findings by label and framework."""
    for label, text in (manifests or {}).items():
        (folder / f"{label}-k8s").mkdir()
        (folder / f"{label}-k8s" / "manifests.yaml").write_text(text)
    for label, render in renders.items():
        result = render if isinstance(render, RenderResult) else None
        resources = result.resources if result else list(render)
        (folder / f"{label}.json").write_text(json.dumps(with_skips(template(resources))))
        if result is not None:
            manifests = folder / f"{label}-k8s"
            manifests.mkdir()
            for n, obj in enumerate(kubernetes_objects(result)):
                (manifests / f"{n}.yaml").write_text(yaml.safe_dump(with_kubernetes_skips(obj)))
    if not CHECKOV.exists():
        raise AssertionError(f"{CHECKOV} is missing: run `make setup`")
    # --skip-download: nothing reaches the network; the checks ship with checkov.
    run = subprocess.run(
        [str(CHECKOV), "-d", str(folder), "--framework", "cloudformation", "kubernetes",
         "--output", "json", "--skip-download", "--compact"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if run.returncode not in (0, 1):
        raise AssertionError(f"checkov failed ({run.returncode}): {run.stderr[-2000:]}")
    found: dict = {}
    for report in _reports(run.stdout):
        framework = report.get("check_type")
        if framework is None:
            continue  # an empty report: nothing of this framework was found
        results = report["results"]
        for kind in ("passed_checks", "failed_checks", "skipped_checks"):
            for check in results[kind]:
                label = check["file_path"].strip("/").split("/")[0].removesuffix(".json")
                label = label.removesuffix("-k8s")
                findings = found.setdefault(label, {}).setdefault(framework, Findings())
                entry = (check["check_id"], check["resource"].rsplit(".", 1)[-1])
                if kind == "passed_checks":
                    findings.passed.append(entry)
                elif kind == "failed_checks":
                    findings.failed.append(entry)
                else:
                    reason = (check.get("check_result") or {}).get("suppress_comment", "")
                    findings.skipped.append((*entry, reason))
        for path in results.get("parsing_errors", []):
            label = path.strip("/").split("/")[0]
            found.setdefault(label, {}).setdefault(framework, Findings()).parsing_errors.append(
                path
            )
    return found
