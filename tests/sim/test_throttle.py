"""Adaptive throttling: the SRE book's formula and botocore's adaptive mode, scalar and fleet."""

from __future__ import annotations

import itertools
import math

import pytest

from retrylab.core.throttle import (
    AdaptiveRateLimiter,
    CubicRate,
    RateClocker,
    SreThrottle,
    TokenBucket,
    sre_reject_probability,
)
from retrylab.sim.throttled import throttled_fleet


@pytest.mark.parametrize(
    ("r", "a", "k"), [(10, 3, 2.0), (100, 50, 2.0), (0, 0, 2.0), (100, 20, 1.5), (7, 1, 3.0)]
)
def test_sre_formula(r: int, a: int, k: float) -> None:
    assert sre_reject_probability(r, a, k) == max(0.0, (r - k * a) / (r + 1))


def test_sre_throttle_counts_rejected_requests_too_and_forgets_old_ones() -> None:
    t = SreThrottle(k=2.0, window=1000)
    assert t.request(0, draw=0.0)  # nothing seen: p = 0, sent
    t.accepted(0)
    for now in range(1, 11):
        t.request(now, draw=0.0)  # all counted, accepted or not
    assert t.counts(10) == (11, 1)
    assert math.isclose(t.reject_probability(10), (11 - 2) / 12)
    assert not t.request(11, draw=0.5)  # draw below p: rejected locally
    assert t.counts(1000) == (11, 0)  # the t=0 events left the window
    assert t.counts(2000) == (0, 0)


def test_sre_throttle_backs_off_towards_k_times_accepts() -> None:
    # demand 1 request/ms, a backend that accepts at most 1 per 4 ms: the client
    # settles near sending K = 2 times what is accepted (the book's point of K)
    import random

    rnd = random.Random(1)
    t = SreThrottle(k=2.0, window=2000)
    sent = accepted = 0
    last = -4
    for now in range(20_000):
        if t.request(now, rnd.random()):
            sent += 1
            if now - last >= 4:
                last = now
                t.accepted(now)
                accepted += 1
    assert 1.7 < sent / accepted < 2.3


def test_cubic_curve_returns_to_w_max_after_k_seconds() -> None:
    c = CubicRate(start_time=0)
    assert c.error_received(20.0, 1000) == pytest.approx(14.0)
    k = (20.0 * (1 - 0.7) / 0.4) ** (1 / 3)
    assert c.k == pytest.approx(k)
    assert c.success_received(1000) == pytest.approx(14.0)  # C(-K)^3 + W = beta W
    assert c.success_received(1000 + round(k * 1000)) == pytest.approx(20.0, abs=0.01)
    assert c.success_received(6000) == pytest.approx(0.4 * (5 - k) ** 3 + 20)


def test_token_bucket_fills_at_its_rate_up_to_its_capacity() -> None:
    b = TokenBucket(max_rate=4.0, now=0)
    assert b.acquire(0) == 250  # starts empty: wait for one token
    assert b.acquire(10_000) == 0  # full after a long pause ...
    assert b.capacity == pytest.approx(3.0)  # ... but never more than 4 tokens
    b.set_rate(0.1, 10_000)  # below the minimum rate of 0.5
    assert b.fill_rate == 0.5 and b.max_capacity == 1.0 and b.capacity == 1.0


def test_rate_clocker_is_an_ema_over_half_seconds() -> None:
    c = RateClocker(now=0)
    for t in range(0, 500, 50):
        c.record(t)  # 10 in the first bucket
    assert c.record(500) == pytest.approx(0.8 * 11 / 0.5)
    for t in range(550, 1000, 50):
        c.record(t)
    assert c.record(1000) == pytest.approx(0.8 * 10 / 0.5 + 0.2 * 0.8 * 11 / 0.5)


def test_adaptive_limiter_only_throttles_after_a_throttling_error() -> None:
    lim = AdaptiveRateLimiter(now=0)
    for t in range(0, 3000, 10):  # 100/s, all fine
        assert lim.before_send(t) == 0
        lim.on_response(False, t)
    assert not lim.enabled
    measured = lim.clocker.rate
    lim.on_response(True, 3000)
    assert lim.enabled
    assert lim.bucket.fill_rate == pytest.approx(min(0.7 * measured, 2 * measured), rel=0.02)
    waits = [lim.before_send(3000) for _ in range(200)]  # the tokens saved so far go first
    assert waits.count(0) < 200 and waits == sorted(waits)  # then each after the previous
    gaps = {b - a for a, b in itertools.pairwise(waits) if a}
    assert max(gaps) <= math.ceil(1000 / lim.bucket.fill_rate) + 1


@pytest.mark.parametrize("kind", ["sre", "adaptive"])
def test_a_throttled_fleet_backs_off_and_serves_more(kind: str) -> None:
    none = throttled_fleet("none", 1500, capacity=120)
    r = throttled_fleet(kind, 1500, capacity=120)
    assert r.load_in_incident < none.load_in_incident / 2
    assert r.goodput_in_incident > none.goodput_in_incident + 0.3
    again = throttled_fleet(kind, 1500, capacity=120)
    assert (again.offered == r.offered).all()


def test_bad_fleet_settings_name_the_argument() -> None:
    with pytest.raises(ValueError, match="throttle"):
        throttled_fleet("cubic")
    with pytest.raises(ValueError, match="degraded"):
        throttled_fleet("sre", degraded=2)
