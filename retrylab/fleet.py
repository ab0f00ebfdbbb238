"""A fleet of clients against one server: waves, recovery, retry storms, layered retries.

Use it to see what a retry policy does when *many* clients follow it at once:
the numbers a single request never shows (load per step, time to recover
after an outage, total requests sent). Vectorized with numpy over clients, so
100,000 clients over a simulated minute take about a second.

The model, one time step (``step_ms``, 10 ms by default) at a time:

- Each client has one request to make. Clients arrive together at t = 0
  (``spread_ms=0``) or at random steps spread uniformly over ``spread_ms``.
- A request is sent at the start of a step and answered by the end of it.
  The server serves at most ``capacity`` requests per step; when more arrive,
  a seeded random choice picks which are served, the rest are rejected (a
  503). During the ``outage`` window (start, end in ms) the server either
  serves nothing (``outage_mode="down"``: every request is rejected) or
  serves requests that all fail (``"error"``: a 503 from a broken backend).
- ``reject_cost``: refusing a request is not free (accept the connection,
  parse it, answer 503). Each rejection uses this fraction of one request's
  work, so when offered load is high the server serves fewer than
  ``capacity``: ``served = (capacity - reject_cost * offered) / (1 -
  reject_cost)``, at least 0. With 0 (the default) rejections cost nothing.
  With a cost, enough retries can keep the server from ever serving anyone
  (a metastable failure: the overload outlives its cause).
- A client that failed follows its :class:`~retrylab.policy.RetryPolicy`:
  stop at ``max_attempts``; else draw the wait with ``Backoff.next_waits``
  (one draw per wait from a :class:`~retrylab.rng.Mulberry32`, none for
  ``jitter="none"``); stop if the next attempt would end after
  ``time_budget`` ms from its arrival (the first try is always sent, as in
  ``RetryPolicy``); stop if the retry budget says no;
  else send again at the first step that starts after the wait.
- ``breaker``: each client has its own circuit breaker with the semantics of
  :class:`retrylab.breaker.CircuitBreaker` (vectorized in
  :class:`BreakerArray`), asked before every attempt. A call it refuses
  sends nothing and fails at once, as in the lesson (``CircuitBreaker.call``
  raises ``BreakerOpen``, which no retry loop retries): the client stops,
  reason ``"breaker_open"``. With one request per client, a breaker acts as
  a tighter attempt limit (``threshold`` failures in a row), unless a
  backoff wait outlasts the ``cooldown``, which earns a half-open trial.
- ``retry_budget``: a :class:`~retrylab.budget.GrpcRetryThrottle` or
  :class:`~retrylab.budget.SreRetryBudget`, shared by ``budget_groups``
  groups of clients (client ``i`` is in group ``i % budget_groups``; 1 means
  one budget for the whole fleet, like one service calling another).

Everything is seeded: the same arguments give the same result, bit for bit.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, cast

import numpy as np
import numpy.typing as npt
import pandas as pd

from ._check import check_choice, check_int, check_number
from .backoff import JITTERS, Backoff, Jitter
from .breaker import CircuitBreaker
from .budget import BudgetArray, GrpcRetryThrottle, SreRetryBudget
from .outcome import Outcome
from .policy import RetryPolicy
from .rng import Mulberry32

__all__ = [
    "REASONS",
    "BreakerArray",
    "BreakerSettings",
    "Fleet",
    "FleetResult",
    "expected_layered_load",
    "layered_calls",
    "outage_fleet",
    "served_under_load",
    "simulate_fleet",
    "storm_fleet",
    "summary_table",
]

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

#: Why a client stopped, as stored in the per-client table.
REASONS: tuple[str, ...] = ("pending", "success", "max_attempts", "time_budget",
                            "retry_budget", "breaker_open")
_PENDING, _SUCCESS, _MAX, _TIME, _BUDGET, _BREAKER = range(6)


# -- the breaker, one per client -----------------------------------------------------


@dataclass(frozen=True)
class BreakerSettings:
    """The settings of every client's breaker (checked as ``CircuitBreaker`` checks them).

    >>> BreakerSettings(threshold=3, cooldown=5000).describe()
    'breaker: opens after 3 failures in a row, trial after 5000 ms'
    """

    threshold: int = 3
    cooldown: int = 5000
    half_open_max_calls: int = 1

    def __post_init__(self) -> None:
        CircuitBreaker(self.threshold, self.cooldown, self.half_open_max_calls)

    def describe(self) -> str:
        """One line for a readout."""
        return (f"breaker: opens after {self.threshold} failures in a row, "
                f"trial after {self.cooldown} ms")


class BreakerArray:
    """:class:`~retrylab.breaker.CircuitBreaker` for ``n`` clients as state arrays.

    Use it where a loop over breaker objects would be too slow. ``allow`` and
    ``record`` take an array of client indices (each at most once per call)
    and behave for each client exactly as ``CircuitBreaker.allow`` and
    ``CircuitBreaker.record`` would. ``state`` holds 0 closed, 1 open,
    2 half-open (:attr:`NAMES`).

    The lesson's trace for one client:

    >>> b = BreakerArray(1, threshold=3, cooldown=5000)
    >>> for t in (0, 200, 600):
    ...     b.record([0], [False], t)
    >>> b.allow([0], 900).tolist(), b.allow([0], 6000).tolist(), b.names()
    ([False], [True], ['half_open'])
    """

    NAMES: tuple[str, ...] = ("closed", "open", "half_open")

    def __init__(self, n: int, threshold: int = 3, cooldown: int = 5000,
                 half_open_max_calls: int = 1) -> None:
        self.n = check_int("n", n, low=0, high=100_000_000)
        settings = BreakerSettings(threshold, cooldown, half_open_max_calls)
        self.threshold = settings.threshold
        self.cooldown = settings.cooldown
        self.half_open_max_calls = settings.half_open_max_calls
        self.state = np.zeros(self.n, dtype=np.int8)
        self.failures = np.zeros(self.n, dtype=np.int64)
        self.opened_at = np.zeros(self.n, dtype=np.int64)
        self.trials = np.zeros(self.n, dtype=np.int64)
        self.opened = 0  #: how many times a breaker opened, over all clients

    def allow(self, idx: npt.ArrayLike, now: int) -> BoolArray:
        """May each of these clients send now? Open turns half-open after the cooldown."""
        i = np.asarray(idx, dtype=np.int64)
        st = self.state[i]
        wake = (st == 1) & (now - self.opened_at[i] >= self.cooldown)
        if wake.any():
            w = i[wake]
            self.state[w] = 2
            self.trials[w] = 0
            st = self.state[i]
        trial = (st == 2) & (self.trials[i] < self.half_open_max_calls)
        if trial.any():
            self.trials[i[trial]] += 1
        return np.asarray((st == 0) | trial)

    def record(self, idx: npt.ArrayLike, success: npt.ArrayLike, now: int) -> None:
        """Report each client's result: success closes; the threshold-th failure opens."""
        i = np.asarray(idx, dtype=np.int64)
        ok = np.asarray(success, dtype=bool)
        st = self.state[i]
        live = st != 1                       # results that arrive while open change nothing
        good = i[live & ok]
        self.state[good] = 0                 # half-open -> closed; closed stays closed
        self.trials[good[st[live & ok] == 2]] = 0
        self.failures[good] = 0
        bad_mask = live & ~ok
        bad = i[bad_mask]
        self.failures[bad] += 1
        opens = bad[(st[bad_mask] == 2) | (self.failures[bad] >= self.threshold)]
        self.state[opens] = 1
        self.opened_at[opens] = now
        self.failures[opens] = 0
        self.trials[opens] = 0
        self.opened += int(opens.size)

    def reopen_at(self, idx: npt.ArrayLike) -> IntArray:
        """When each (open) client's breaker will allow a trial, in ms."""
        i = np.asarray(idx, dtype=np.int64)
        return self.opened_at[i] + self.cooldown

    def names(self) -> list[str]:
        """The states as names."""
        return [self.NAMES[s] for s in self.state.tolist()]


# -- the server -------------------------------------------------------------------------


def served_under_load(offered: int, capacity: int, reject_cost: float = 0.0) -> int:
    """How many of ``offered`` requests a server of ``capacity`` per step serves.

    Formula: ``offered`` if it fits; else the ``a`` with ``a + reject_cost *
    (offered - a) = capacity``, i.e. ``(capacity - reject_cost * offered) / (1
    - reject_cost)``, rounded down and at least 0.

    >>> served_under_load(30, 50), served_under_load(500, 50)
    (30, 50)
    >>> served_under_load(500, 50, 0.05), served_under_load(1000, 50, 0.05)
    (26, 0)
    """
    if offered <= capacity:
        return offered
    if reject_cost <= 0:
        return capacity
    a = (capacity - reject_cost * offered) / (1 - reject_cost)
    return max(0, math.floor(a + 1e-9))


# -- the fleet ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Fleet:
    """Everything that defines one simulation; :meth:`run` simulates it.

    >>> r = Fleet(clients=1000, capacity=50, outage=(0, 2000)).run()
    >>> r.served, r.total_requests, r.recovery_ms
    (998, 5937, 4870)
    """

    clients: int = 1000
    policy: RetryPolicy = field(default_factory=lambda: RetryPolicy(
        max_attempts=8, backoff=Backoff(200, 2, 5000, jitter="full")))
    capacity: int = 50
    step_ms: int = 10
    duration_ms: int = 30_000
    spread_ms: int = 0
    outage: tuple[int, int] | None = (0, 2000)
    outage_mode: str = "down"
    reject_cost: float = 0.0
    breaker: BreakerSettings | None = None
    retry_budget: GrpcRetryThrottle | SreRetryBudget | None = None
    budget_groups: int = 1
    seed: int = 0

    def __post_init__(self) -> None:
        check_int("clients", self.clients, low=1, high=10_000_000)
        if not isinstance(self.policy, RetryPolicy):
            raise ValueError(f"policy={self.policy!r} is out of range: policy must be a "
                             "RetryPolicy(...)")
        check_int("capacity", self.capacity, low=0, high=100_000_000)
        step = check_int("step_ms", self.step_ms, low=1, high=60_000)
        duration = check_int("duration_ms", self.duration_ms, low=step, high=86_400_000)
        check_int("spread_ms", self.spread_ms, low=0, high=duration)
        if self.outage is not None:
            start, end = self.outage
            check_int("outage start", start, low=0, high=duration)
            check_int("outage end", end, low=start, high=86_400_000)
        check_choice("outage_mode", self.outage_mode, ("down", "error"))
        check_number("reject_cost", self.reject_cost, low=0, high=0.99)
        if self.breaker is not None and not isinstance(self.breaker, BreakerSettings):
            raise ValueError(f"breaker={self.breaker!r} is out of range: breaker must be "
                             "None or BreakerSettings(threshold, cooldown)")
        if self.retry_budget is not None and not isinstance(
                self.retry_budget, GrpcRetryThrottle | SreRetryBudget):
            raise ValueError(f"retry_budget={self.retry_budget!r} is out of range: "
                             "retry_budget must be None, GrpcRetryThrottle(...) or "
                             "SreRetryBudget(...)")
        check_int("budget_groups", self.budget_groups, low=1, high=self.clients)
        check_int("seed", self.seed, low=0, high=2**32 - 1)

    def with_(self, **changes: Any) -> Fleet:
        """A copy with some fields changed."""
        return replace(self, **changes)

    @property
    def max_attempts(self) -> int:
        """Attempts per client: the policy's, or the SRE budget's per-request limit if lower."""
        cap = (self.retry_budget.per_request if isinstance(self.retry_budget, SreRetryBudget)
               else self.policy.max_attempts)
        return min(self.policy.max_attempts, cap)

    def run(self) -> FleetResult:
        """Simulate, step by step; see the module docstring for the model."""
        return _Simulation(self).run()


def simulate_fleet(clients: int = 1000, policy: RetryPolicy | None = None,
                   **settings: Any) -> FleetResult:
    """Shorthand for ``Fleet(clients, policy, **settings).run()``.

    Without jitter, 1000 clients that failed together come back together:

    >>> wave = simulate_fleet(1000, RetryPolicy(8, Backoff(200, 2, 5000)))
    >>> wave.peak_retries, round(wave.retry_peak_to_mean), wave.served
    (1000, 240, 200)
    >>> spread = simulate_fleet(1000, RetryPolicy(8, Backoff(200, 2, 5000, jitter="full")))
    >>> spread.peak_retries, round(spread.retry_peak_to_mean), spread.served
    (77, 11, 998)
    """
    fleet = Fleet(clients) if policy is None else Fleet(clients, policy)
    return fleet.with_(**settings).run()


def outage_fleet(jitter: str = "none", **changes: Any) -> Fleet:
    """The herd after an outage: 1000 clients fail together at t = 0 and retry.

    The server (50 requests per 10 ms step) is down for the first 2 s; every
    client retries up to 8 attempts with base 200 ms, factor 2, cap 5000 ms
    and the given jitter, as in the lesson's table. Other fields can be changed.

    >>> none, full = outage_fleet("none").run(), outage_fleet("full").run()
    >>> none.served, full.served
    (200, 998)
    """
    policy = RetryPolicy(max_attempts=8, backoff=Backoff(200, 2, 5000, jitter=cast(
        Jitter, check_choice("jitter", jitter, JITTERS))))
    return Fleet(clients=1000, policy=policy, capacity=50, outage=(0, 2000),
                 duration_ms=30_000).with_(**changes)


def storm_fleet(**changes: Any) -> Fleet:
    """A retry storm: steady traffic, a 10 s outage, aggressive retries, costly rejections.

    60,000 clients arrive over 60 s (10 per 10 ms step) at a server serving
    20 per step; it is down from 10 s to 20 s. Clients retry up to 10
    attempts, base 100 ms, factor 2, cap 1000 ms, no jitter; each rejection
    costs the server a fifth of a request (``reject_cost=0.2``). Other fields
    can be changed (``retry_budget=``, ``breaker=``, ``policy=``...).

    >>> storm = storm_fleet().run()
    >>> storm.overloaded_steps_after_outage, storm.served
    (3821, 30265)
    """
    return Fleet(clients=60_000, policy=RetryPolicy(10, Backoff(100, 2, 1000)),
                 capacity=20, duration_ms=60_000, spread_ms=60_000,
                 outage=(10_000, 20_000), reject_cost=0.2).with_(**changes)


class _Simulation:
    """The mutable state of one run (arrays over clients) and the step loop."""

    def __init__(self, fleet: Fleet) -> None:
        self.fleet = fleet
        f = fleet
        n = f.clients
        self.step = f.step_ms
        self.n_steps = -(-f.duration_ms // f.step_ms)
        self.rng = np.random.default_rng(f.seed)
        self.jitter = Mulberry32(f.seed)
        if f.spread_ms > 0:
            span = max(1, -(-f.spread_ms // f.step_ms))
            arrive = np.sort(self.rng.integers(0, span, n))
        else:
            arrive = np.zeros(n, dtype=np.int64)
        self.arrive_step = arrive.astype(np.int64)
        self.next_step = self.arrive_step.copy()
        self.attempts = np.zeros(n, dtype=np.int64)
        self.reason = np.zeros(n, dtype=np.int8)
        self.finish = np.full(n, -1, dtype=np.int64)
        self.blocked = np.zeros(n, dtype=np.int64)
        self.prev = np.full(n, f.policy.backoff.base, dtype=np.int64)
        self.group = np.arange(n, dtype=np.int64) % f.budget_groups
        self.budget: BudgetArray | None = (None if f.retry_budget is None
                                           else f.retry_budget.vectorized(f.budget_groups))
        self.breaker = (None if f.breaker is None else
                        BreakerArray(n, f.breaker.threshold, f.breaker.cooldown,
                                     f.breaker.half_open_max_calls))
        self.max_attempts = f.max_attempts
        cols = ("offered", "accepted", "rejected", "first_tries", "retries", "successes",
                "waiting", "blocked_by_breaker", "gave_up", "capacity")
        self.series = {c: np.zeros(self.n_steps, dtype=np.int64) for c in cols}
        now = np.arange(self.n_steps, dtype=np.int64) * self.step
        self.series["capacity"][:] = f.capacity
        if f.outage is not None and f.outage_mode == "down":
            self.series["capacity"][(now >= f.outage[0]) & (now < f.outage[1])] = 0

    def run(self) -> FleetResult:
        f = self.fleet
        s = self.series
        active = np.zeros(0, dtype=np.int64)
        stale = 0
        arrived = 0
        finished = 0
        out_lo, out_hi = f.outage if f.outage is not None else (0, 0)
        for t in range(self.n_steps):
            now = t * self.step
            down = out_lo <= now < out_hi
            cap = int(s["capacity"][t])
            hi = int(np.searchsorted(self.arrive_step, t, side="right"))
            if hi > arrived:
                active = np.concatenate([active, np.arange(arrived, hi, dtype=np.int64)])
                arrived = hi
            if active.size == 0:
                if arrived == f.clients:
                    break
                continue
            due = active[self.next_step[active] == t]
            if due.size:
                done = self._step(t, now, due, cap, down and f.outage_mode == "error")
                finished += done
                stale += done
                if stale * 4 > active.size:
                    active = active[self.reason[active] == _PENDING]
                    stale = 0
            s["waiting"][t] = arrived - finished
        return self._result()

    def _step(self, t: int, now: int, due: IntArray, cap: int, all_fail: bool) -> int:
        """Send the due clients' requests; return how many clients finished."""
        f, s, step = self.fleet, self.series, self.step
        gave_up = 0
        if self.breaker is not None:
            ok = self.breaker.allow(due, now)
            if not ok.all():
                blocked = due[~ok]            # refused: nothing sent, the call fails at once
                s["blocked_by_breaker"][t] = blocked.size
                self.blocked[blocked] += 1
                self._give_up(blocked, _BREAKER, now)
                gave_up += blocked.size
                due = due[ok]
        offered = due.size
        first = self.attempts[due] == 0
        n_first = int(first.sum())
        s["offered"][t] = offered
        s["first_tries"][t] = n_first
        s["retries"][t] = offered - n_first
        if offered == 0:
            s["gave_up"][t] = gave_up
            return gave_up
        if self.budget is not None:
            self.budget.on_requests(self.group[due], first)
        self.attempts[due] += 1
        served = served_under_load(offered, cap, f.reject_cost)
        s["accepted"][t] = served
        s["rejected"][t] = offered - served
        if served == offered:
            success = np.full(offered, not all_fail)
        else:
            success = np.zeros(offered, dtype=bool)
            if not all_fail and served:
                success[self.rng.choice(offered, size=served, replace=False)] = True
        if self.budget is not None:
            self.budget.on_outcomes(self.group[due], success)
        if self.breaker is not None:
            self.breaker.record(due, success, now)
        won = due[success]
        s["successes"][t] = won.size
        self.reason[won] = _SUCCESS
        self.finish[won] = now + step
        self.next_step[won] = -1
        lost = due[~success]
        at_limit = self.attempts[lost] >= self.max_attempts
        self._give_up(lost[at_limit], _MAX, now + step)
        gave_up += int(at_limit.sum())
        lost = lost[~at_limit]
        if lost.size:
            backoff = self.fleet.policy.backoff
            draws = (self.jitter.random(lost.size) if backoff.draws_per_wait
                     else np.zeros(lost.size))
            wait = backoff.next_waits(self.attempts[lost] - 1, draws, self.prev[lost])
            self.prev[lost] = wait
            when = -(-(now + step + wait) // step)
            late = self._past_budget(lost, when)
            self._give_up(lost[late], _TIME, now + step)
            gave_up += int(late.sum())
            lost, when = lost[~late], when[~late]
            if self.budget is not None and lost.size:
                allowed = self.budget.can_retry(self.group[lost])
                self._give_up(lost[~allowed], _BUDGET, now + step)
                gave_up += int((~allowed).sum())
                lost, when = lost[allowed], when[allowed]
            self.next_step[lost] = when
        s["gave_up"][t] = gave_up
        return won.size + gave_up

    def _past_budget(self, idx: IntArray, when: IntArray) -> BoolArray:
        """Would an attempt sent at step ``when`` end after the client's time budget?"""
        budget = self.fleet.policy.time_budget
        if budget is None:
            return np.zeros(idx.size, dtype=bool)
        ends = (when + 1 - self.arrive_step[idx]) * self.step
        return np.asarray(ends > budget)

    def _give_up(self, idx: IntArray, reason: int, at: int) -> None:
        self.reason[idx] = reason
        self.finish[idx] = at
        self.next_step[idx] = -1

    def _result(self) -> FleetResult:
        f, step = self.fleet, self.step
        steps = pd.DataFrame({"time_ms": np.arange(self.n_steps, dtype=np.int64) * step,
                              **self.series})
        steps = steps[["time_ms", "capacity", "offered", "accepted", "rejected",
                       "first_tries", "retries", "successes", "waiting",
                       "blocked_by_breaker", "gave_up"]]
        finish = self.finish.astype(np.float64)
        finish[self.reason == _PENDING] = np.nan
        clients = pd.DataFrame({
            "client": np.arange(f.clients, dtype=np.int64),
            "arrival_ms": self.arrive_step * step,
            "attempts": self.attempts,
            "finish_ms": finish,
            "succeeded": self.reason == _SUCCESS,
            "gave_up": self.reason > _SUCCESS,
            "reason": pd.Categorical.from_codes(self.reason.astype(np.int64),
                                                categories=pd.Index(list(REASONS))),
            "blocked": self.blocked,
        })
        opened = 0 if self.breaker is None else self.breaker.opened
        return FleetResult(f, steps, clients, opened)


# -- the result ------------------------------------------------------------------------


@dataclass(frozen=True)
class FleetResult:
    """What a fleet run produced: a table per step, a table per client, and key numbers.

    ``steps`` columns: ``time_ms`` (step start), ``capacity`` (0 while down),
    ``offered`` (requests sent, = ``first_tries + retries`` = ``accepted +
    rejected``), ``accepted``, ``rejected``, ``first_tries``, ``retries``,
    ``successes``, ``waiting`` (clients arrived and not finished at the end of
    the step), ``blocked_by_breaker`` (calls refused without sending),
    ``gave_up``.

    ``clients`` columns: ``client``, ``arrival_ms``, ``attempts``,
    ``finish_ms`` (NaN if still pending at the end), ``succeeded``,
    ``gave_up``, ``reason`` (one of :data:`REASONS`), ``blocked``.
    """

    fleet: Fleet
    steps: pd.DataFrame
    clients: pd.DataFrame
    breaker_openings: int = 0

    # -- load ------------------------------------------------------------------------

    @property
    def total_requests(self) -> int:
        """Requests that reached the server (first tries and retries)."""
        return int(self.steps["offered"].sum())

    @property
    def amplification(self) -> float:
        """Requests per client: 1.0 if every client succeeded on its first try."""
        return self.total_requests / self.fleet.clients

    @property
    def peak_offered(self) -> int:
        """The most requests sent in one step."""
        return int(self.steps["offered"].max())

    @property
    def mean_offered(self) -> float:
        """Requests per step, averaged from the first request to the last."""
        sent = np.flatnonzero(self.steps["offered"].to_numpy())
        if sent.size == 0:
            return 0.0
        return self.total_requests / float(sent[-1] - sent[0] + 1)

    @property
    def peak_to_mean(self) -> float:
        """Peak step over mean step: about 1 for smooth load, large for waves."""
        mean = self.mean_offered
        return self.peak_offered / mean if mean else 0.0

    @property
    def total_retries(self) -> int:
        """Requests that were retries (not first tries)."""
        return int(self.steps["retries"].sum())

    @property
    def peak_retries(self) -> int:
        """The most retries sent in one step (first tries left out)."""
        return int(self.steps["retries"].max())

    @property
    def retry_peak_to_mean(self) -> float:
        """Peak retries per step over the mean, from the first retry to the last.

        Clients that arrive together always start with one burst; this looks
        at the retries only, which jitter spreads and no jitter keeps in waves.
        """
        r = self.steps["retries"].to_numpy()
        sent = np.flatnonzero(r)
        if sent.size == 0:
            return 0.0
        return float(r.max()) * float(sent[-1] - sent[0] + 1) / float(r.sum())

    # -- outcome ------------------------------------------------------------------------

    @property
    def served(self) -> int:
        """Clients whose request succeeded."""
        return int(self.clients["succeeded"].sum())

    @property
    def gave_up(self) -> int:
        """Clients that stopped without success."""
        return int(self.clients["gave_up"].sum())

    def reasons(self) -> dict[str, int]:
        """How many clients stopped for each reason (only reasons that occurred)."""
        counts = self.clients["reason"].value_counts()
        return {r: int(counts[r]) for r in REASONS if counts.get(r, 0)}

    @property
    def outage_end_ms(self) -> int:
        """When the outage ended (0 without an outage)."""
        return 0 if self.fleet.outage is None else self.fleet.outage[1]

    @property
    def last_success_ms(self) -> int | None:
        """When the last successful client got its answer (None if none did)."""
        done = self.clients.loc[self.clients["succeeded"], "finish_ms"]
        return None if done.empty else int(done.max())

    @property
    def all_done_ms(self) -> int | None:
        """When the last client finished, served or not (None if some are pending)."""
        if (self.clients["reason"] == "pending").any():
            return None
        return int(self.clients["finish_ms"].max())

    @property
    def recovery_ms(self) -> int | None:
        """ms after the outage ended until no client was waiting (None: never, in the run).

        With clients arriving over time, "waiting" counts the backlog only: a
        client served in its first step never waits.
        """
        s = self.steps
        after = s[(s["time_ms"] >= self.outage_end_ms) & (s["waiting"] == 0)
                  & (s["time_ms"] >= _first_request_ms(s))]
        if after.empty:
            return None
        return int(after["time_ms"].iloc[0]) + self.fleet.step_ms - self.outage_end_ms

    @property
    def overloaded_steps_after_outage(self) -> int:
        """Steps after the outage ended in which more was offered than served."""
        s = self.steps
        return int(((s["time_ms"] >= self.outage_end_ms) & (s["rejected"] > 0)).sum())

    @property
    def rejected_after_outage(self) -> int:
        """Requests rejected after the outage ended: load the retries wasted."""
        s = self.steps
        return int(s.loc[s["time_ms"] >= self.outage_end_ms, "rejected"].sum())

    def summary(self) -> dict[str, Any]:
        """The key numbers as a dict (used by readouts, tests and exercises)."""
        return {
            "clients": self.fleet.clients,
            "served": self.served,
            "gave_up": self.gave_up,
            "total_requests": self.total_requests,
            "amplification": round(self.amplification, 2),
            "peak_retries": self.peak_retries,
            "retry_peak_to_mean": round(self.retry_peak_to_mean, 1),
            "recovery_ms": self.recovery_ms,
            "overloaded_steps_after_outage": self.overloaded_steps_after_outage,
            "blocked_by_breaker": int(self.steps["blocked_by_breaker"].sum()),
        }

    def readout(self) -> str:
        """Three lines of the numbers that matter, for a figure's side.

        >>> print(simulate_fleet(1000).readout())
        served 998 of 1000 clients (2 gave up); 5937 requests = 5.94 per client
        retries: 4937 in all, at most 77 in one 10 ms step (capacity 50)
        backlog cleared 4870 ms after the outage ended; 0 overloaded steps after it
        """
        rec = self.recovery_ms
        cleared = ("backlog not cleared by the end of the run" if rec is None
                   else f"backlog cleared {rec} ms after the outage ended")
        return (f"served {self.served} of {self.fleet.clients} clients "
                f"({self.gave_up} gave up); {self.total_requests} requests = "
                f"{self.amplification:.2f} per client\n"
                f"retries: {self.total_retries} in all, at most {self.peak_retries} in one "
                f"{self.fleet.step_ms} ms step (capacity {self.fleet.capacity})\n"
                f"{cleared}; {self.overloaded_steps_after_outage} overloaded steps after it")


def summary_table(results: Mapping[str, FleetResult]) -> pd.DataFrame:
    """The key numbers of several runs side by side, one row per run (by name).

    >>> t = summary_table({"none": outage_fleet("none").run(),
    ...                    "full": outage_fleet("full").run()})
    >>> t[["served", "total_requests", "peak_retries", "recovery_ms"]]
          served  total_requests  peak_retries  recovery_ms
    none     200            7700          1000        14280
    full     998            5937            77         4870
    """
    rows = {name: r.summary() for name, r in results.items()}
    table = pd.DataFrame.from_dict(rows, orient="index").drop(columns="clients")
    table["recovery_ms"] = table["recovery_ms"].astype("Int64")
    return table


def _first_request_ms(steps: pd.DataFrame) -> int:
    sent = np.flatnonzero(steps["offered"].to_numpy())
    return 0 if sent.size == 0 else int(steps["time_ms"].iloc[sent[0]])


# -- layered retries ------------------------------------------------------------------------


def _per_layer(layers: int, attempts: int | Sequence[int]) -> list[int]:
    layers = check_int("layers", layers, low=1, high=8)
    per = [attempts] * layers if isinstance(attempts, int) else list(attempts)
    if len(per) != layers:
        raise ValueError(f"attempts={attempts!r} is out of range: attempts must be one "
                         f"number or {layers} numbers (one per layer)")
    return [check_int("attempts", a, low=1, high=10) for a in per]


def expected_layered_load(layers: int, attempts: int | Sequence[int],
                          failure_rate: float = 1.0) -> float:
    """Expected calls reaching the bottom service per top-level request (the arithmetic).

    Each layer makes up to ``k`` attempts on the layer below; the bottom
    fails with probability ``p``. A call into a layer whose downstream fails
    with probability ``f`` makes ``1 + f + ... + f**(k-1)`` downstream calls
    and fails with probability ``f**k``; the expected bottom load is the
    product over layers. With ``p = 1`` (the bottom is down) it is
    ``k1 * k2 * ... ``: 3 layers of 3 attempts give 27.

    >>> expected_layered_load(3, 3), expected_layered_load(3, [1, 1, 3])
    (27.0, 3.0)
    >>> round(expected_layered_load(3, 3, failure_rate=0.5), 3)
    2.0
    """
    per = _per_layer(layers, attempts)
    p = check_number("failure_rate", failure_rate, low=0, high=1)
    load = 1.0
    f = p
    for k in reversed(per):        # from the layer just above the bottom, upwards
        load *= float(k) if f == 1 else (1 - f ** k) / (1 - f)
        f = f ** k
    return load


def layered_calls(layers: int = 3, attempts: int | Sequence[int] = 3, requests: int = 1,
                  failure_rate: float = 1.0, seed: int = 20260114,
                  names: Sequence[str] | None = None) -> pd.DataFrame:
    """Simulate retries at every layer of a call chain with real ``RetryPolicy`` loops.

    Use it to check the arithmetic of :func:`expected_layered_load` the hard
    way: each layer's ``send`` runs the next layer's retry loop, the bottom
    service fails with probability ``failure_rate`` (draws from a seeded
    Mulberry32), and every call is counted where it arrives. Layer ``i``
    retries with ``RetryPolicy(max_attempts=attempts[i])`` (no waits are
    slept: load, not time, is the question).

    Returns one row per service, top to bottom: ``service``, ``calls``,
    ``per_request`` (calls / requests).

    >>> layered_calls(3, 3, requests=10)
    service  calls  per_request
    0       gateway     30          3.0
    1  station API     90          9.0
    2     database    270         27.0
    """
    per = _per_layer(layers, attempts)
    requests = check_int("requests", requests, low=1, high=100_000)
    p = check_number("failure_rate", failure_rate, low=0, high=1)
    if names is None:
        default = ["gateway", "station API", "database"]
        names = (default if layers == 3 else
                 [f"service {i + 1}" for i in range(layers - 1)] + ["database"])
    if len(names) != layers:
        raise ValueError(f"names={list(names)!r} is out of range: names must have "
                         f"{layers} entries")
    rng = Mulberry32(seed)
    counts = [0] * layers
    policies = [RetryPolicy(max_attempts=k, backoff=Backoff(100, 2, 1000)) for k in per]

    def bottom() -> Outcome:
        counts[-1] += 1
        return Outcome.http(503) if rng() < p else Outcome.success()

    def through(level: int) -> Outcome:
        # the service at `level` received a call; it retries the one below
        counts[level] += 1
        below = bottom if level + 1 == layers - 1 else (lambda: through(level + 1))
        return policies[level + 1].run(below, "GET").outcome

    top = bottom if layers == 1 else (lambda: through(0))
    for _ in range(requests):
        policies[0].run(top, "GET")
    return pd.DataFrame({"service": list(names), "calls": counts,
                         "per_request": [c / requests for c in counts]})
