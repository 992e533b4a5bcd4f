"""What `diagnose` reads from the cluster, as files: read live with kubectl, kept with `--save
DIR` or read back with `--from DIR`, so a support ticket can carry it. Read-only and whole
objects (`kubectl get ... -o json`, no jsonpath; `kubectl logs`); a kubectl that fails ends the
reading with its own error in one line. The InferenceEndpointConfig is found by the label the
stack puts on every generation (components/endpoint/generation.py, `<name>-g<digest>`): the
newest, being created while a replacement runs, or, without the label (an endpoint deployed
before generations), the one named as the endpoint.
"""

import json
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from components.core.user_files import (
    MissingFileError,
    UnreadableFileError,
    decode_text,
    read_bytes,
    resolved,
    writable_problem,
)
from components.endpoint.manifest import ENDPOINT_LABEL
from components.operator.iam import CONTROLLER, OPERATOR_NAMESPACE

IEC = "iec.json"
PODS = "pods.json"
ROUTER_PODS = "router-pods.json"
EVENTS = "events.json"
ROUTER_EVENTS = "router-events.json"
OPERATOR = "operator.json"
CAPTURED = "captured.json"
LOGS = "logs"
# The label the operator puts on every DPD pod (DESIGN.md, runtime names).
DPD_ROLE_LABEL = "inference.sagemaker.aws.amazon.com/dpd-role"
# The last lines of each container's log: hours of KV transfers, one line per TP rank each.
LOG_LINES = 20_000
# kubectl gets this long per call; a cluster that does not answer in it is not reachable.
KUBECTL_SECONDS = 90
# A bundle's files: objects of a few MB, logs of LOG_LINES lines.
MAX_FILE_BYTES = 64 * 2**20

Runner = Callable[[Sequence[str]], subprocess.CompletedProcess]


class BundleError(ValueError):
    """No bundle to diagnose: kubectl's error, or a directory that holds none; one line."""


def newest_generation(text: str) -> str | None:
    """Of `kubectl get -l ... -o json`'s answer, the newest object as JSON text; None when it
    lists none. An answer that is one object rather than a List is that object."""
    try:
        document = json.loads(text)
    except ValueError:
        raise BundleError(
            "kubectl get inferenceendpointconfig: not the JSON kubectl writes"
        ) from None
    if not isinstance(document, dict):
        return None
    if "items" not in document:
        return text
    items = [item for item in document["items"] or [] if isinstance(item, dict)]
    if not items:
        return None

    def created(item: dict[str, Any]) -> tuple[str, str]:
        metadata = item.get("metadata") if isinstance(item.get("metadata"), dict) else {}
        return str(metadata.get("creationTimestamp") or ""), str(metadata.get("name") or "")

    return json.dumps(max(items, key=created))


def _run(argv: Sequence[str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        argv, capture_output=True, text=True, errors="replace", timeout=KUBECTL_SECONDS
    )


@dataclass
class Bundle:
    files: dict[str, str] = field(default_factory=dict)
    captured_at: datetime = field(default_factory=lambda: datetime.now(UTC))

    def json(self, name: str) -> Any:
        text = self.files.get(name)
        if text is None:
            return None
        try:
            return json.loads(text)
        except (ValueError, RecursionError):
            raise BundleError(f"{name}: not the JSON kubectl writes") from None

    def logs(self) -> dict[str, str]:
        """`<pod>.<container>[.previous].log` -> its text."""
        prefix = f"{LOGS}/"
        return {n.removeprefix(prefix): t for n, t in self.files.items() if n.startswith(prefix)}

    def save(self, folder: Path) -> None:
        """Written whole or not at all: beside `folder`, then renamed into place (call
        save_problem first). OSError when the filesystem refuses."""
        target = resolved(folder)
        target.parent.mkdir(parents=True, exist_ok=True)
        scratch = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
        try:
            (scratch / LOGS).mkdir()
            for name, text in self.files.items():
                (scratch / name).write_text(text)
            captured = {"capturedAt": self.captured_at.isoformat()}
            (scratch / CAPTURED).write_text(json.dumps(captured) + "\n")
            scratch.rename(target)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)

    @classmethod
    def load(cls, folder: Path) -> "Bundle":
        """A bundle `--save` wrote. Its objects are UTF-8 JSON; its logs are what the
        containers printed, bytes that are not UTF-8 replaced, as a live read takes them."""

        def read(path: Path, log: bool = False) -> str | None:
            try:
                data = read_bytes(path, MAX_FILE_BYTES)
                return data.decode("utf-8", "replace") if log else decode_text(data)
            except MissingFileError:
                return None
            except UnreadableFileError as unreadable:
                raise BundleError(f"--from: {path}: {unreadable}") from None

        captured = read(folder / CAPTURED)
        try:
            when = datetime.fromisoformat(json.loads(captured or "")["capturedAt"])
        except (ValueError, KeyError, TypeError):
            raise BundleError(
                f"--from: {folder}: no {CAPTURED} with capturedAt; not a bundle `diagnose "
                "--save` wrote"
            ) from None
        names = (IEC, PODS, ROUTER_PODS, EVENTS, ROUTER_EVENTS, OPERATOR)
        files = {name: text for name in names if (text := read(folder / name)) is not None}
        if IEC not in files:
            raise BundleError(f"--from: {folder}: holds no {IEC}")
        logs = folder / LOGS
        for path in sorted(logs.glob("*.log")) if logs.is_dir() else []:
            files[f"{LOGS}/{path.name}"] = read(path, log=True) or ""
        return cls(files=files, captured_at=when if when.tzinfo else when.replace(tzinfo=UTC))


def save_problem(folder: Path) -> str | None:
    """Why a bundle cannot be saved in `folder`: it must be new, or an empty directory."""
    problem = writable_problem(folder / CAPTURED)
    if problem is None and folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        problem = "exists and is not an empty directory"
    return f"--save: {folder}: {problem}" if problem else None


# A name Kubernetes gives an object (a DNS subdomain): never a flag, never a path.
_NAME = re.compile(r"[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?")
# client-go's log lines (klog: severity, MMDD, time), which kubectl prints before its error.
_KLOG = re.compile(r"^[IWEF]\d{4} \d{2}:\d{2}:\d{2}")


def _kubectl_error(argv: Sequence[str], done: subprocess.CompletedProcess) -> BundleError:
    """kubectl's own error line: its last, after any of client-go's log lines."""
    lines = [line.strip() for line in done.stderr.splitlines() if line.strip()]
    said = next((line for line in reversed(lines) if not _KLOG.match(line)), None)
    said = said or (lines[-1] if lines else f"exit status {done.returncode}")
    return BundleError(f"{' '.join(argv)}: {said[:500]}")


class ClusterReader:
    def __init__(self, runner: Runner = _run) -> None:
        self.runner = runner
        self.bundle = Bundle()

    def _output(self, args: Sequence[str]) -> subprocess.CompletedProcess:
        argv = ["kubectl", *args]
        try:
            return self.runner(argv)
        except FileNotFoundError:
            raise BundleError(
                "kubectl: not found on PATH; diagnose reads the cluster with kubectl "
                "(or reads a saved bundle with --from DIR)"
            ) from None
        except subprocess.TimeoutExpired:
            raise BundleError(
                f"{' '.join(argv)}: no answer in {KUBECTL_SECONDS} s; is the cluster reachable "
                "(aws eks update-kubeconfig)?"
            ) from None

    def keep(self, name: str, args: Sequence[str], *, optional: bool = False) -> None:
        done = self._output(args)
        if done.returncode == 0:
            self.bundle.files[name] = done.stdout
        elif not optional:
            raise _kubectl_error(["kubectl", *args], done)

    def read(self, name: str, namespace: str) -> Bundle:
        iec = ["get", "inferenceendpointconfig", "-n", namespace]
        done = self._output([*iec, "-l", f"{ENDPOINT_LABEL}={name}", "-o", "json"])
        if done.returncode != 0:
            raise _kubectl_error(["kubectl", *iec, "-l", f"{ENDPOINT_LABEL}={name}"], done)
        newest = newest_generation(done.stdout)
        if newest is None:
            self.keep(IEC, ["get", "inferenceendpointconfig", name, "-n", namespace, "-o", "json"])
        else:
            self.bundle.files[IEC] = newest
        self.keep(PODS, ["get", "pods", "-n", namespace, "-l", DPD_ROLE_LABEL, "-o", "json"])
        self.keep(ROUTER_PODS, ["get", "pods", "-n", OPERATOR_NAMESPACE, "-o", "json"])
        self.keep(EVENTS, ["get", "events", "-n", namespace, "-o", "json"])
        self.keep(ROUTER_EVENTS, ["get", "events", "-n", OPERATOR_NAMESPACE, "-o", "json"])
        # The operator's Deployment, by the add-on's name; a Helm install names it otherwise.
        operator_namespace, controller = CONTROLLER
        operator = ["get", "deployment", controller, "-n", operator_namespace, "-o", "json"]
        self.keep(OPERATOR, operator, optional=True)
        return self.bundle

    def read_logs(self, containers: list[tuple[str, str, str, bool]]) -> None:
        """Each (namespace, pod, container, restarted)'s log, and the one before a restart."""
        for namespace, pod, container, restarted in containers:
            if not all(_NAME.fullmatch(name) for name in (namespace, pod, container)):
                continue  # no Kubernetes object is so named; as an argument, it could be a flag
            base = ["logs", pod, "-n", namespace, "-c", container, f"--tail={LOG_LINES}"]
            self.keep(f"{LOGS}/{pod}.{container}.log", base, optional=True)
            if restarted:
                self.keep(
                    f"{LOGS}/{pod}.{container}.previous.log", [*base, "--previous"], optional=True
                )
