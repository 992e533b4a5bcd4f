import gc

import pytest

from infra.collector import YOUNG_THRESHOLD, few_collections


def test_the_block_collects_rarely_and_ignores_what_existed_before_it():
    before = gc.get_threshold()
    with few_collections():
        assert gc.get_threshold() == (YOUNG_THRESHOLD, *before[1:])
        assert gc.get_freeze_count() > 0


def test_the_schedule_and_the_frozen_objects_are_restored_even_on_error():
    before = gc.get_threshold()
    with pytest.raises(RuntimeError), few_collections():
        raise RuntimeError("the command failed")
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0
