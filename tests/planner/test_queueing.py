"""The queueing model's waits and percentiles, held to the closed forms they approximate: M/D/1's
mean wait, Erlang's C from its textbook sum (the module uses the recurrence), and the
quantiles of a fixed, a uniform and an exponential delay."""

import math

import pytest

from planner.queueing import Delay, md1_wait, quantile, slot_wait


def test_md1_waits_half_as_long_as_mm1_and_without_bound_at_saturation():
    for utilization in (0.1, 0.5, 0.9, 0.99):
        mm1 = utilization / (1 - utilization)  # M/M/1's mean wait, service time 1
        assert md1_wait(utilization, 1.0) == pytest.approx(mm1 / 2)
    assert md1_wait(0.0, 1.0) == 0.0
    assert md1_wait(1.0, 1.0) == md1_wait(1.5, 1.0) == math.inf


def erlang_c(servers: int, offered: float) -> float:
    """The probability that an arrival waits in M/M/c, from the sum over the states."""
    top = offered**servers / math.factorial(servers) * servers / (servers - offered)
    below = sum(offered**k / math.factorial(k) for k in range(servers))
    return top / (below + top)


@pytest.mark.parametrize(("servers", "busy"), [(1, 0.5), (10, 8.0), (64, 60.0), (128, 100.0)])
def test_a_slot_wait_is_erlang_c_halved_for_fixed_holding_times(servers, busy):
    holding = 2.0
    mmc = erlang_c(servers, busy) * holding / (servers - busy)
    assert slot_wait(servers, busy, holding) == pytest.approx(mmc / 2, rel=1e-9)


def test_a_slot_wait_is_nothing_when_idle_and_unbounded_when_every_slot_is_held():
    assert slot_wait(256, 0.0, 1.0) == 0.0
    assert slot_wait(256, 256.0, 1.0) == math.inf
    # Thousands of slots stay finite where the sum's factorials would overflow a float.
    assert 0 < slot_wait(4096, 4000.0, 1.0) < math.inf


def test_a_delay_without_a_queue_is_its_fixed_part_plus_a_uniform_one():
    delay = Delay(fixed=0.2, spread=0.4)
    assert delay.mean == pytest.approx(0.4)
    for probability in (0.1, 0.5, 0.9):
        expected = 0.2 + probability * 0.4
        assert quantile([(1.0, delay)], probability) == pytest.approx(expected, abs=1e-9)


def test_a_queue_wait_is_zero_when_idle_and_exponential_beyond():
    queue, busy = 0.3, 0.6
    delay = Delay(fixed=0.0, queue=queue, busy=busy)
    # P(W > t) = busy * exp(-busy t / queue): no wait below the 40th percentile.
    assert quantile([(1.0, delay)], 0.3) == pytest.approx(0.0, abs=1e-9)
    for probability in (0.5, 0.9, 0.99):
        expected = -(queue / busy) * math.log((1 - probability) / busy)
        assert quantile([(1.0, delay)], probability) == pytest.approx(expected, rel=1e-9)


def test_a_mixture_takes_each_delay_at_its_weight():
    short, long = Delay(fixed=0.1), Delay(fixed=1.0)
    mixture = [(0.8, short), (0.2, long)]
    assert quantile(mixture, 0.5) == pytest.approx(0.1, abs=1e-9)
    assert quantile(mixture, 0.9) == pytest.approx(1.0, abs=1e-9)


def test_a_saturated_part_has_no_percentile():
    assert quantile([(0.5, Delay(0.1)), (0.5, Delay(math.inf))], 0.5) == math.inf
