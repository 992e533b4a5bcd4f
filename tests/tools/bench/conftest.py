"""The dev endpoint's bench Job, as `hyperpod-dpd bench` prints it."""

import pytest

from tests.tools.bench.bench_job import bench


@pytest.fixture
def dev_job(tmp_path, capsys):
    status, out, err = bench(
        tmp_path, capsys, None, "--endpoint", "dpd-test", "--account-id", "111122223333"
    )
    assert status == 0, err
    return out
