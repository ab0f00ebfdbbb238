"""Hedged requests over many requests at once: latency percentiles against extra load.

The vectorized form of :func:`retrylab.core.hedging.hedge` for attempts that
all succeed (no status codes): attempt ``k`` goes at ``k * delay`` if no
answer came before, the first answer wins, the others are cancelled.

Latencies are heavy-tailed: a lognormal body (median ``median`` ms, shape
``sigma``) and, with probability ``slow``, a slow server adding a Pareto
delay (scale ``tail_scale`` ms, shape ``tail_alpha``: the smaller, the
heavier). Each attempt draws its own latency (hedges go to other servers),
from one seeded ``numpy`` generator, so the same seed gives the same numbers.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from ..core._check import check_int, check_number
from ..core.hedging import MAX_HEDGES, HedgingPolicy
from ..i18n import _, number, percent

FloatArray = npt.NDArray[np.float64]

__all__ = ["HedgeStats", "hedge_stats", "hedge_sweep", "hedged_latencies", "latency_samples"]


def latency_samples(
    n: int,
    attempts: int = MAX_HEDGES,
    *,
    median: float = 20.0,
    sigma: float = 0.5,
    slow: float = 0.02,
    tail_scale: float = 200.0,
    tail_alpha: float = 1.5,
    seed: int = 20260114,
) -> FloatArray:
    """An ``(n, attempts)`` array of latencies in ms (see the module docstring).

    >>> x = latency_samples(100_000, 1)
    >>> bool(np.median(x) < 25), bool(np.percentile(x, 99.9) > 500)
    (True, True)
    """
    n = check_int("n", n, low=1, high=50_000_000)
    attempts = check_int("attempts", attempts, low=1, high=MAX_HEDGES)
    check_number("median", median, low=0, low_open=True)
    check_number("sigma", sigma, low=0)
    check_number("slow", slow, low=0, high=1)
    check_number("tail_scale", tail_scale, low=0)
    check_number("tail_alpha", tail_alpha, low=0, low_open=True)
    rng = np.random.default_rng(seed)
    body = median * np.exp(sigma * rng.standard_normal((n, attempts)))
    hit = rng.random((n, attempts)) < slow
    tail = tail_scale * (rng.pareto(tail_alpha, (n, attempts)) + 1.0)
    return np.asarray(body + np.where(hit, tail, 0.0))


@dataclass(frozen=True)
class HedgeStats:
    """Percentiles of one hedging setting and what it cost."""

    delay: int
    max_attempts: int
    p50: float
    p99: float
    p999: float
    extra_requests: float  #: copies sent beyond the first, per request (0.05 = 5%)

    def summary(self) -> str:
        """One line for a readout."""
        return _(
            "delay {delay} ms, up to {copies} copies: p50 {p50} ms, p99 {p99} ms, "
            "p{p999_name} {p999} ms; +{extra} requests"
        ).format(
            delay=self.delay,
            copies=self.max_attempts,
            p50=f"{self.p50:.0f}",
            p99=f"{self.p99:.0f}",
            p999_name=number(99.9),
            p999=f"{self.p999:.0f}",
            extra=percent(100 * self.extra_requests, 1),
        )


def hedged_latencies(latencies: FloatArray, policy: HedgingPolicy) -> tuple[FloatArray, FloatArray]:
    """Per request: the latency and the number of copies sent.

    >>> lat = np.array([[400.0, 30.0], [20.0, 30.0]])
    >>> done, sent = hedged_latencies(lat, HedgingPolicy(2, 50))
    >>> done.tolist(), sent.tolist()
    ([80.0, 20.0], [2.0, 1.0])
    """
    a = policy.max_attempts
    if latencies.ndim != 2 or latencies.shape[1] < a:
        raise ValueError(
            f"latencies has shape {latencies.shape}: latencies must be "
            f"(requests, >= max_attempts={a})"
        )
    d = float(policy.hedging_delay)
    done = latencies[:, 0].copy()
    sent = np.ones(latencies.shape[0])
    for k in range(1, a):
        go = k * d < done  # an answer at exactly k * d sends no copy
        sent += go
        np.minimum(done, np.where(go, k * d + latencies[:, k], np.inf), out=done)
    return done, sent


def hedge_stats(lat: FloatArray, delay: int, max_attempts: int) -> HedgeStats:
    """:class:`HedgeStats` for one setting on these latencies."""
    done, sent = hedged_latencies(lat, HedgingPolicy(max_attempts, delay))
    p50, p99, p999 = np.percentile(done, [50, 99, 99.9])
    return HedgeStats(
        delay,
        min(max_attempts, MAX_HEDGES),
        float(p50),
        float(p99),
        float(p999),
        float(sent.mean() - 1),
    )


@lru_cache(maxsize=32)
def _cached_samples(n: int, slow: float, tail_alpha: float, seed: int) -> FloatArray:
    x = latency_samples(n, MAX_HEDGES, slow=slow, tail_alpha=tail_alpha, seed=seed)
    x.setflags(write=False)
    return x


def hedge_sweep(
    delays: tuple[int, ...],
    max_attempts: int = 2,
    *,
    requests: int = 20_000,
    slow: float = 0.02,
    tail_alpha: float = 1.5,
    seed: int = 20260114,
) -> tuple[HedgeStats, ...]:
    """:class:`HedgeStats` for each delay on the same seeded latencies.

    >>> s = hedge_sweep((10_000, 50), requests=20_000)
    >>> s[0].extra_requests, s[1].p99 < s[0].p99 / 2, s[1].extra_requests < 0.1
    (0.0, True, True)
    """
    lat = _cached_samples(
        check_int("requests", requests, low=1, high=10_000_000),
        float(slow),
        float(tail_alpha),
        seed,
    )
    return tuple(hedge_stats(lat, d, max_attempts) for d in delays)
