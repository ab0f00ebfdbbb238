"""Hedged requests against gRPC A6's hedging policy, scalar and vectorized."""

from __future__ import annotations

import numpy as np
import pytest

from retrylab.core.hedging import HedgingPolicy, hedge
from retrylab.sim.hedged import hedge_sweep, hedged_latencies, latency_samples


def test_copies_go_one_delay_after_another() -> None:
    r = hedge(HedgingPolicy(3, 100), [1000, 1000, 150])
    assert r.sent == (0, 100, 200) and r.latency == 350 and r.winner == 2


def test_the_first_good_answer_cancels_the_others() -> None:
    r = hedge(HedgingPolicy(3, 100), [1000, 120, 50])
    assert r.latency == 220 and r.sent == (0, 100, 200) and r.winner == 1
    r = hedge(HedgingPolicy(3, 100), [1000, 50, 50])
    assert r.sent == (0, 100) and r.latency == 150  # answered before copy 3


def test_delay_zero_sends_every_copy_at_once() -> None:
    r = hedge(HedgingPolicy(3, 0), [90, 70, 80])
    assert r.sent == (0, 0, 0) and r.latency == 70


def test_a_non_fatal_status_sends_the_next_copy_at_once() -> None:
    p = HedgingPolicy(3, 100, non_fatal_status_codes=("UNAVAILABLE",))
    r = hedge(p, [20, 40, 500], ["UNAVAILABLE", "OK", "OK"])
    assert r.sent == (0, 20) and r.latency == 60 and r.status == "OK"


def test_a_fatal_status_ends_the_call() -> None:
    p = HedgingPolicy(3, 100, non_fatal_status_codes=("UNAVAILABLE",))
    r = hedge(p, [20, 40, 50], ["INVALID_ARGUMENT", "OK", "OK"])
    assert r.latency == 20 and r.status == "INVALID_ARGUMENT" and r.attempts == 1


def test_when_every_copy_fails_the_last_failure_is_the_result() -> None:
    p = HedgingPolicy(2, 100, non_fatal_status_codes=("UNAVAILABLE",))
    r = hedge(p, [20, 40], ["UNAVAILABLE", "UNAVAILABLE"])
    assert r.status == "UNAVAILABLE" and r.latency == 60 and r.winner == 1


def test_max_attempts_is_capped_at_five_and_checked() -> None:
    assert HedgingPolicy(7, 10).max_attempts == 5
    with pytest.raises(ValueError, match="max_attempts"):
        HedgingPolicy(0, 10)
    with pytest.raises(ValueError, match="hedging_delay"):
        HedgingPolicy(2, -1)
    with pytest.raises(ValueError, match="latencies"):
        hedge(HedgingPolicy(3, 10), [1, 2])


@pytest.mark.parametrize(("attempts", "delay"), [(2, 0), (2, 30), (3, 15), (5, 40)])
def test_vectorized_agrees_with_the_scalar_policy(attempts: int, delay: int) -> None:
    lat = np.round(latency_samples(2000, attempts, seed=5))
    done, sent = hedged_latencies(lat, HedgingPolicy(attempts, delay))
    for i in range(0, 2000, 7):
        r = hedge(HedgingPolicy(attempts, delay), [int(x) for x in lat[i]])
        assert (done[i], sent[i]) == (r.latency, r.attempts), i


def test_tail_at_scale_hedging_at_p95_costs_about_five_percent() -> None:
    # Dean & Barroso 2013: a hedge deferred to the 95th-percentile latency adds ~5% load
    lat = latency_samples(50_000, 2)
    p95 = int(np.percentile(lat[:, 0], 95))
    s = hedge_sweep((p95, 10**6), 2, requests=50_000)
    assert 0.035 < s[0].extra_requests < 0.06
    assert s[0].p99 < s[1].p99 / 2 and s[1].extra_requests == 0


def test_longer_delays_cost_less_and_help_less() -> None:
    sweep = hedge_sweep(tuple(range(0, 201, 20)), 2, requests=20_000)
    extra = [s.extra_requests for s in sweep]
    p99 = [s.p99 for s in sweep]
    assert extra == sorted(extra, reverse=True) and extra[0] == 1.0
    assert p99 == sorted(p99)
