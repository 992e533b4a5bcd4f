"""A stand-in for kubectl on PATH: it answers the read-only commands diagnose runs from a
folder of files laid out as `diagnose --save` writes them, prints kubectl's errors for what
the folder lacks, and records every command line it was given."""

import json
import sys
from pathlib import Path

FOLDER = Path(__file__).with_name("cluster")


def answer(args: list[str]) -> int:
    with (FOLDER / "commands.log").open("a") as log:
        log.write(json.dumps(args) + "\n")
    denied = FOLDER / "denied.txt"
    if denied.exists():
        sys.stderr.write(denied.read_text())
        return 1
    if args[:1] == ["logs"]:
        pod, container = args[1], args[args.index("-c") + 1]
        suffix = ".previous" if "--previous" in args else ""
        path = FOLDER / "logs" / f"{pod}.{container}{suffix}.log"
    elif args[:2] == ["get", "inferenceendpointconfig"]:
        path = FOLDER / "iec.json"
    elif args[:2] == ["get", "pods"]:
        system = args[args.index("-n") + 1] == "hyperpod-inference-system"
        path = FOLDER / ("router-pods.json" if system else "pods.json")
    elif args[:2] == ["get", "events"]:
        system = args[args.index("-n") + 1] == "hyperpod-inference-system"
        path = FOLDER / ("router-events.json" if system else "events.json")
    elif args[:2] == ["get", "deployment"]:
        path = FOLDER / "operator.json"
    else:
        sys.stderr.write(f"error: unknown command {' '.join(args)!r} for kubectl\n")
        return 1
    if not path.exists():
        sys.stderr.write(f'Error from server (NotFound): "{path.stem}" not found\n')
        return 1
    sys.stdout.write(path.read_text())
    return 0


if __name__ == "__main__":
    sys.exit(answer(sys.argv[1:]))
