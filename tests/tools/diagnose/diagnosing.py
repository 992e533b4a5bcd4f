"""Running `hyperpod-dpd diagnose` on the dev endpoint, against a folder the fake kubectl
serves (conftest.py) or a saved bundle."""

from tests.tools.diagnose.cluster_objects import (
    DECODE_POD,
    PREFILL_POD,
    healthy_logs,
    healthy_objects,
    write_cluster,
)
from tools.cli import main

DECODE_LOG = f"{DECODE_POD}.decode-dpd-test.log"
PREFILL_LOG = f"{PREFILL_POD}.prefill-dpd-test.log"


def diagnose(capsys, *flags):
    status = main(["diagnose", "--stack", "dev", "--endpoint", "dpd-test", *flags])
    out, err = capsys.readouterr()
    return status, out, err


def served(folder, objects_=None, logs=None):
    write_cluster(folder, objects_ or healthy_objects(), healthy_logs() if logs is None else logs)
