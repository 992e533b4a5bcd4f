"""Running `hyperpod-dpd bench` on a stack, and reading the Job it prints."""

import shlex

import yaml

from tests.support import dev_config
from tools.cli import main

KUBERNETES_VERSION = "1.34"


def bench(tmp_path, capsys, config=None, *flags):
    path = tmp_path / "Pulumi.test.yaml"
    path.write_text(yaml.safe_dump({"config": config or dev_config()}))
    status = main(["bench", "--stack", "dev", "--config-file", str(path), *flags])
    out, err = capsys.readouterr()
    return status, out, err


def objects(out: str) -> list[dict]:
    return [d for d in yaml.safe_load_all(out) if d]


def job_of(documents: list[dict]) -> dict:
    (job,) = [d for d in documents if d["kind"] == "Job"]
    return job


def command(job: dict) -> list[str]:
    """The first `vllm bench serve` line of the container's script."""
    script = job["spec"]["template"]["spec"]["containers"][0]["command"][2]
    line = next(line for line in script.splitlines() if line.startswith("vllm bench serve"))
    return shlex.split(line)


def flag(args: list[str], name: str) -> str:
    return args[args.index(name) + 1]
