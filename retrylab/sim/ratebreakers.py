"""Failure-rate breakers for a fleet, and the outage that compares them with the lesson's.

:class:`RateBreakerArray` is :class:`retrylab.core.ratebreaker.RateBreaker`
(resilience4j's semantics) for ``n`` clients as numpy arrays, on a clock that
all clients share (the fleet's steps). :func:`breaker_outage` sends every
client's request each step to a server that fails a fraction
``base_failure`` of requests and everything during an outage, through one
breaker per client, either the lesson's consecutive-failure breaker or the
failure-rate breaker; :func:`compare_breakers` puts the two side by side.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import numpy.typing as npt
import pandas as pd

from ..core._check import check_choice, check_int, check_number
from ..core.ratebreaker import RateBreaker
from ..i18n import _, pgettext
from .breakers import BreakerArray

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

__all__ = [
    "BREAKER_KINDS",
    "SLIDER_CLIENTS",
    "SLIDER_STEP",
    "OutageRun",
    "RateBreakerArray",
    "breaker_outage",
    "compare_breakers",
    "slider_outage",
]

#: ``"consecutive"`` is the lesson's breaker, ``"rate"`` resilience4j's.
BREAKER_KINDS: tuple[str, ...] = ("consecutive", "rate")


class RateBreakerArray:
    """``n`` failure-rate breakers as arrays; ``state`` 0 closed, 1 open, 2 half-open.

    ``allow`` and ``record`` take client indices (each at most once a call)
    and a ``now`` that never goes back, and do for each client what
    ``RateBreaker.allow`` / ``RateBreaker.record`` do. Running totals keep
    every call O(1) a client: a ring of the last calls (count window) or one
    row of counters a second shared by all clients (time window).

    >>> b = RateBreakerArray(2, window_size=4, minimum_calls=4, wait_in_open=1000)
    >>> for t, ok in enumerate([True, False, True, False]):
    ...     b.record([0, 1], [ok, True], t)
    >>> b.state.tolist(), b.allow([0, 1], 1004).tolist(), b.state.tolist()
    ([1, 0], [True, True], [2, 0])
    """

    def __init__(
        self,
        n: int,
        window_type: str = "count",
        window_size: int = 100,
        minimum_calls: int = 100,
        failure_rate_threshold: float = 50.0,
        slow_call_rate_threshold: float = 100.0,
        slow_call_duration: int = 60_000,
        half_open_calls: int = 10,
        wait_in_open: int = 60_000,
        max_wait_in_half_open: int = 0,
    ) -> None:
        c = RateBreaker(
            window_type,
            window_size,
            minimum_calls,
            failure_rate_threshold,
            slow_call_rate_threshold,
            slow_call_duration,
            half_open_calls,
            wait_in_open,
            max_wait_in_half_open,
        )  # checks the arguments
        self.n = check_int("n", n, low=0, high=100_000_000)
        self.time_based = c.window_type == "time"
        self.size = c.window_size
        self.minimum = c.minimum_calls if self.time_based else min(c.minimum_calls, c.window_size)
        self.threshold = c.failure_rate_threshold
        self.slow_threshold = c.slow_call_rate_threshold
        self.slow_duration = c.slow_call_duration
        self.half_open_calls = c.half_open_calls
        self.wait = c.wait_in_open
        self.max_half_open = c.max_wait_in_half_open
        self.state = np.zeros(self.n, dtype=np.int8)
        self.since = np.zeros(self.n, dtype=np.int64)
        self.permits = np.zeros(self.n, dtype=np.int64)
        self.calls = np.zeros(self.n, dtype=np.int64)
        self.fails = np.zeros(self.n, dtype=np.int64)
        self.slow = np.zeros(self.n, dtype=np.int64)
        self.ho = np.zeros((3, self.n), dtype=np.int64)  # half-open calls, fails, slow
        if self.time_based:
            self.buckets = np.zeros((3, self.size, self.n), dtype=np.int32)
            self.second = 0
        else:
            # client c's ring is ring[c * size : (c + 1) * size]; bit 0 failed, bit 1 slow
            self.ring = np.zeros(self.n * self.size, dtype=np.int8)
            self.pos = np.zeros(self.n, dtype=np.int64)
        self.opened = 0  #: how many times a breaker opened, over all clients
        self._tables: dict[float, IntArray] = {}
        self._any_slow = False  #: a slow call was ever recorded

    def _advance(self, now: int) -> None:
        if not self.time_based:
            return
        sec = now // 1000
        for s in range(self.second + 1, min(sec, self.second + self.size) + 1):
            row = s % self.size
            self.calls -= self.buckets[0, row]
            self.fails -= self.buckets[1, row]
            self.slow -= self.buckets[2, row]
            self.buckets[:, row] = 0
        self.second = max(self.second, sec)

    def _expire(self, i: IntArray, now: int) -> None:
        if self.max_half_open > 0 and self.opened:
            late = i[(self.state[i] == 2) & (now - self.since[i] >= self.max_half_open)]
            self._to(late, 1, now)

    def _to(self, i: IntArray, state: int, now: int) -> None:
        if i.size == 0:
            return
        self.state[i] = state
        self.since[i] = now
        if state == 1:
            self.opened += int(i.size)
        elif state == 2:
            self.permits[i] = self.half_open_calls
            self.ho[:, i] = 0
        else:  # closed: a fresh window
            self.calls[i] = 0
            self.fails[i] = 0
            self.slow[i] = 0
            if self.time_based:
                self.buckets[:, :, i] = 0
            else:
                self.ring.reshape(self.n, self.size)[i] = 0
                self.pos[i] = 0

    def allow(self, idx: npt.ArrayLike, now: int) -> BoolArray:
        """May each of these clients call now?"""
        i = np.asarray(idx, dtype=np.int64)
        self._advance(now)
        self._expire(i, now)
        wake = i[(self.state[i] == 1) & (now > self.since[i] + self.wait)]
        self._to(wake, 2, now)
        st = self.state[i]
        trial = (st == 2) & (self.permits[i] > 0)
        self.permits[i[trial]] -= 1
        return np.asarray((st == 0) | trial)

    def record(
        self, idx: npt.ArrayLike, success: npt.ArrayLike, now: int, duration: npt.ArrayLike = 0
    ) -> None:
        """Report each client's result (and its duration in ms)."""
        i = np.asarray(idx, dtype=np.int64)
        self._advance(now)
        self._expire(i, now)
        failed = np.broadcast_to(~np.asarray(success, dtype=bool), i.shape)
        slow = np.broadcast_to(np.asarray(duration) > self.slow_duration, i.shape)
        st = self.state[i]
        c = st == 0
        if c.all():  # the common case: no masks to apply
            self._record_closed(i, failed, slow, now)
            return
        self._record_closed(i[c], failed[c], slow[c], now)
        h = st == 2
        if h.any():
            self._record_half_open(i[h], failed[h], slow[h], now)

    def _need(self, calls: IntArray, threshold: float) -> IntArray:
        """The fewest failures (or slow calls) among ``calls`` that reach ``threshold``.

        Tabulated with the scalar breaker's own test, ``100 * f / calls >=
        threshold``, so both trip on exactly the same counts.
        """
        top = int(calls.max(initial=0))
        table = self._tables.get(threshold)
        if table is None or table.size <= top:
            size = max(top + 1, 2 * (0 if table is None else table.size), self.size + 1)
            table = np.array(
                [
                    next((f for f in range(c + 1) if 100.0 * f / c >= threshold), c + 1) if c else 1
                    for c in range(size)
                ],
                dtype=np.int64,
            )
            self._tables[threshold] = table
        return table.take(calls)

    def _record_closed(self, i: IntArray, failed: BoolArray, slow: BoolArray, now: int) -> None:
        full = i.size == self.n  # every client (indices are unique): no gathers
        self._any_slow = self._any_slow or bool(slow.any())
        track_slow = self._any_slow  # no slow call yet: all slow counts are 0
        calls = self.calls if full else self.calls[i]
        fails = self.fails if full else self.fails[i]
        slw = self.slow if full or not track_slow else self.slow[i]
        if self.time_based:
            row = (now // 1000) % self.size
            for k, add in enumerate((1, failed, slow)):
                self.buckets[k, row][i] += add
            calls += 1
        else:
            pos = self.pos if full else self.pos[i]
            flat = i * self.size + pos
            old = self.ring.take(flat)  # 0 until the ring is full
            fails -= old & 1
            if track_slow:
                slw -= old >> 1
            np.minimum(calls + 1, self.size, out=calls)
            code = failed.astype(np.int8)
            if track_slow:
                code |= slow.astype(np.int8) << 1
            self.ring[flat] = code
            pos += 1
            pos[pos == self.size] = 0
            if not full:
                self.pos[i] = pos
        fails += failed
        if track_slow:
            slw += slow
        if not full:
            self.calls[i] = calls
            self.fails[i] = fails
            if track_slow:
                self.slow[i] = slw
        trip = (calls >= max(1, self.minimum)) & (fails >= self._need(calls, self.threshold))
        if track_slow:
            trip |= (calls >= max(1, self.minimum)) & (
                slw >= self._need(calls, self.slow_threshold)
            )
        if trip.any():
            self._to(i[trip], 1, now)

    def _record_half_open(self, i: IntArray, failed: BoolArray, slow: BoolArray, now: int) -> None:
        self.ho[0, i] += 1
        self.ho[1, i] += failed
        self.ho[2, i] += slow
        done = self.ho[0, i] >= self.half_open_calls
        d = i[done]
        calls = self.ho[0, d]
        trip = (100.0 * self.ho[1, d] / calls >= self.threshold) | (
            100.0 * self.ho[2, d] / calls >= self.slow_threshold
        )
        self._to(d[trip], 1, now)
        self._to(d[~trip], 0, now)


# -- the outage --------------------------------------------------------------------------


@dataclass(frozen=True)
class OutageRun:
    """One breaker kind through the outage: per-step series and the key numbers."""

    kind: str
    clients: int
    time_ms: IntArray
    sent: IntArray  #: requests sent a step (all clients)
    failed: IntArray  #: of which failed
    closed: IntArray  #: breakers closed at the end of the step
    outage: tuple[int, int]
    step: int

    @property
    def sent_in_outage(self) -> int:
        """Requests let through to the dead server, all clients."""
        lo, hi = self.outage
        m = (self.time_ms >= lo) & (self.time_ms < hi)
        return int(self.sent[m].sum())

    @property
    def refused_healthy(self) -> int:
        """Requests refused while the server was up (lost to the breaker)."""
        lo, hi = self.outage
        m = (self.time_ms < lo) | (self.time_ms >= hi)
        return int(self.clients * int(m.sum()) - self.sent[m].sum())

    @property
    def baseline(self) -> float:
        """Mean requests sent a step in the second half of the time before the outage."""
        lo = self.outage[0]
        m = (self.time_ms >= lo // 2) & (self.time_ms < lo)
        return float(self.sent[m].mean()) if m.any() else float(self.clients)

    @property
    def recovery_ms(self) -> int | None:
        """ms after the outage until the fleet sends 95% of its pre-outage rate (None: never)."""
        after = np.flatnonzero(
            (self.time_ms >= self.outage[1]) & (self.sent >= 0.95 * self.baseline)
        )
        return None if after.size == 0 else int(self.time_ms[after[0]] - self.outage[1])


def breaker_outage(
    kind: str = "rate",
    clients: int = 1000,
    *,
    threshold: int = 3,
    cooldown: int = 5000,
    window_size: int = 20,
    minimum_calls: int = 10,
    failure_rate_threshold: float = 50.0,
    half_open_calls: int = 3,
    base_failure: float = 0.1,
    outage_failure: float = 1.0,
    outage: tuple[int, int] = (10_000, 21_000),
    duration: int = 40_000,
    step: int = 100,
    seed: int = 20260114,
) -> OutageRun:
    """Every client calls once a step through its own breaker; the server fails some calls.

    A call fails with probability ``base_failure``, or ``outage_failure``
    inside ``outage``; the draws are the same for both kinds (one seeded
    ``numpy`` generator, one draw a client a step, used or not). The lesson's
    breaker opens after ``threshold`` failures in a row and waits
    ``cooldown`` ms; the rate breaker judges a count window of
    ``window_size`` calls (at least ``minimum_calls``), waits the same
    ``cooldown`` and judges ``half_open_calls`` trials.

    >>> r = breaker_outage("consecutive", clients=200)
    >>> r.sent_in_outage < 200 * 100, r.recovery_ms is not None
    (True, True)
    """
    check_choice("kind", kind, BREAKER_KINDS)
    n = check_int("clients", clients, low=1, high=10_000_000)
    step = check_int("step", step, low=1, high=60_000)
    duration = check_int("duration", duration, low=step, high=3_600_000)
    check_number("base_failure", base_failure, low=0, high=1)
    check_number("outage_failure", outage_failure, low=0, high=1)
    brk: BreakerArray | RateBreakerArray
    if kind == "consecutive":
        brk = BreakerArray(n, threshold, cooldown, 1)
    else:
        brk = RateBreakerArray(
            n,
            "count",
            window_size,
            minimum_calls,
            failure_rate_threshold,
            half_open_calls=half_open_calls,
            wait_in_open=cooldown,
        )
    rng = np.random.default_rng(seed)
    steps = duration // step
    times = np.arange(steps, dtype=np.int64) * step
    sent = np.zeros(steps, dtype=np.int64)
    failed = np.zeros(steps, dtype=np.int64)
    closed = np.zeros(steps, dtype=np.int64)
    everyone = np.arange(n, dtype=np.int64)
    for s in range(steps):
        now = int(times[s])
        p = outage_failure if outage[0] <= now < outage[1] else base_failure
        fails = rng.random(n) < p
        ok = brk.allow(everyone, now)
        who = everyone[ok]
        brk.record(who, ~fails[ok], now)
        sent[s] = who.size
        failed[s] = int(fails[ok].sum())
        closed[s] = int((brk.state == 0).sum())
    return OutageRun(kind, n, times, sent, failed, closed, outage, step)


def compare_breakers(clients: int = 1000, **settings: object) -> pd.DataFrame:
    """The two breakers on the same outage, one row each.

    Columns: requests let through to the dead server (per client), requests
    refused while it was healthy (per client), and how long after the outage
    99% of breakers were closed again. Headers and rows are in the current language.
    """
    rows = []
    for kind in BREAKER_KINDS:
        r = breaker_outage(kind, clients, **settings)  # type: ignore[arg-type]
        rows.append(
            {
                pgettext("column", "breaker"): _("consecutive failures (lesson)")
                if kind == "consecutive"
                else _("failure rate (resilience4j)"),
                pgettext("column", "sent in outage / client"): round(r.sent_in_outage / clients, 2),
                pgettext("column", "refused while healthy / client"): round(
                    r.refused_healthy / clients, 2
                ),
                pgettext("column", "recovery (ms)"): r.recovery_ms,
            }
        )
    return pd.DataFrame(rows).set_index(pgettext("column", "breaker"))


#: The fleet an explorer simulates: 100 clients in steps of 250 ms (the notebook runs 1000).
SLIDER_CLIENTS = 100
SLIDER_STEP = 250


@lru_cache(maxsize=128)
def slider_outage(
    kind: str,
    base_failure: float,
    outage_failure: float,
    threshold: int,
    window_size: int,
    failure_rate_threshold: float,
    half_open_calls: int,
    cooldown: int,
) -> OutageRun:
    """:func:`breaker_outage` at the explorer's scale (:data:`SLIDER_CLIENTS` clients,
    :data:`SLIDER_STEP` ms steps), kept: a slider back to a value recomputes nothing.

    >>> slider_outage("rate", 0.1, 1.0, 3, 20, 50.0, 3, 5000).clients
    100
    """
    return breaker_outage(
        kind,
        SLIDER_CLIENTS,
        threshold=threshold,
        cooldown=cooldown,
        window_size=window_size,
        minimum_calls=min(10, window_size),
        failure_rate_threshold=failure_rate_threshold,
        half_open_calls=half_open_calls,
        base_failure=base_failure,
        outage_failure=outage_failure,
        step=SLIDER_STEP,
    )
