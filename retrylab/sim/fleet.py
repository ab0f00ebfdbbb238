"""A fleet of clients against one server: waves, recovery, retry storms, layered retries.

Use it to see what a retry policy does when *many* clients follow it at once:
the numbers a single request never shows (load per step, time to recover
after an outage, total requests sent). Vectorized with numpy over clients, so
100,000 clients over a simulated minute take about 0.2 s (the storm scenario; see
benchmarks/bench_core.py).

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
- A client that failed follows its :class:`~retrylab.core.policy.RetryPolicy`:
  stop at ``max_attempts``; else draw the wait with ``Backoff.next_waits``
  (one draw per wait from a :class:`~retrylab.core.rng.Mulberry32`, none for
  ``jitter="none"``); stop if the next attempt would end after
  ``time_budget`` ms from its arrival (the first try is always sent, as in
  ``RetryPolicy``); stop if the retry budget says no;
  else send again at the first step that starts after the wait.
- ``breaker``: each client has its own circuit breaker with the semantics of
  :class:`retrylab.core.breaker.CircuitBreaker` (vectorized in
  :class:`BreakerArray`), asked before every attempt. A call it refuses
  sends nothing and fails at once, as in the lesson (``CircuitBreaker.call``
  raises ``BreakerOpen``, which no retry loop retries): the client stops,
  reason ``"breaker_open"``. With one request per client, a breaker acts as
  a tighter attempt limit (``threshold`` failures in a row), unless a
  backoff wait outlasts the ``cooldown``, which earns a half-open trial.
- ``retry_budget``: a :class:`~retrylab.core.budget.GrpcRetryThrottle` or
  :class:`~retrylab.core.budget.SreRetryBudget`, shared by ``budget_groups``
  groups of clients (client ``i`` is in group ``i % budget_groups``; 1 means
  one budget for the whole fleet, like one service calling another).

Everything is seeded: the same arguments give the same result, bit for bit.
A run is bounded by the work it implies: at most :data:`MAX_STEPS` steps
(``duration_ms / step_ms``) and :data:`MAX_ATTEMPTS` attempts (``clients x
max_attempts``); a larger one is refused when the ``Fleet`` is built.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, cast

import numpy as np
import numpy.typing as npt
import pandas as pd

from ..core._check import check_choice, check_int, check_number
from ..core.backoff import JITTERS, Backoff, Jitter
from ..core.budget import BudgetArray, GrpcRetryThrottle, SreRetryBudget
from ..core.policy import RetryPolicy
from ..core.rng import Mulberry32
from .breakers import BreakerArray, BreakerSettings
from .fleetresult import REASONS, FleetResult

__all__ = [
    "Fleet",
    "outage_fleet",
    "served_under_load",
    "simulate_fleet",
    "storm_fleet",
]

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
#: The most simulation steps in one run (duration_ms / step_ms): each is a pass of the loop.
MAX_STEPS = 1_000_000
#: The most attempts a run may imply (clients x attempts per client).
MAX_ATTEMPTS = 20_000_000
_PENDING, _SUCCESS, _MAX, _TIME, _BUDGET, _BREAKER = range(6)


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
    policy: RetryPolicy = field(
        default_factory=lambda: RetryPolicy(
            max_attempts=8, backoff=Backoff(200, 2, 5000, jitter="full")
        )
    )
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
        # bounded by the work a run implies: MAX_STEPS steps, MAX_ATTEMPTS attempts
        check_int("clients", self.clients, low=1, high=10_000_000)
        if not isinstance(self.policy, RetryPolicy):
            raise ValueError(
                f"policy={self.policy!r} is out of range: policy must be a RetryPolicy(...)"
            )
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
            raise ValueError(
                f"breaker={self.breaker!r} is out of range: breaker must be "
                "None or BreakerSettings(threshold, cooldown)"
            )
        if self.retry_budget is not None and not isinstance(
            self.retry_budget, GrpcRetryThrottle | SreRetryBudget
        ):
            raise ValueError(
                f"retry_budget={self.retry_budget!r} is out of range: "
                "retry_budget must be None, GrpcRetryThrottle(...) or "
                "SreRetryBudget(...)"
            )
        check_int("budget_groups", self.budget_groups, low=1, high=self.clients)
        check_int("seed", self.seed, low=0, high=2**32 - 1)
        steps = -(-duration // step)
        if steps > MAX_STEPS:
            raise ValueError(
                f"duration_ms={self.duration_ms} is out of range: at "
                f"step_ms={step} it is {steps:,} steps, and a run is limited to "
                f"{MAX_STEPS:,} steps; use a longer step_ms or a shorter "
                "duration_ms"
            )
        work = self.clients * self.max_attempts
        if work > MAX_ATTEMPTS:
            raise ValueError(
                f"clients={self.clients} is out of range: {self.clients:,} "
                f"clients x {self.max_attempts} attempts is {work:,} attempts, "
                f"and a run is limited to {MAX_ATTEMPTS:,}; use fewer clients "
                "or fewer attempts"
            )

    def with_(self, **changes: Any) -> Fleet:
        """A copy with some fields changed."""
        return replace(self, **changes)

    @property
    def max_attempts(self) -> int:
        """Attempts per client: the policy's, or the SRE budget's per-request limit if lower."""
        cap = (
            self.retry_budget.per_request
            if isinstance(self.retry_budget, SreRetryBudget)
            else self.policy.max_attempts
        )
        return min(self.policy.max_attempts, cap)

    def run(self) -> FleetResult:
        """Simulate, step by step; see the module docstring for the model."""
        return _Simulation(self).run()


def simulate_fleet(
    clients: int = 1000, policy: RetryPolicy | None = None, **settings: Any
) -> FleetResult:
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
    policy = RetryPolicy(
        max_attempts=8,
        backoff=Backoff(200, 2, 5000, jitter=cast(Jitter, check_choice("jitter", jitter, JITTERS))),
    )
    return Fleet(
        clients=1000, policy=policy, capacity=50, outage=(0, 2000), duration_ms=30_000
    ).with_(**changes)


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
    return Fleet(
        clients=60_000,
        policy=RetryPolicy(10, Backoff(100, 2, 1000)),
        capacity=20,
        duration_ms=60_000,
        spread_ms=60_000,
        outage=(10_000, 20_000),
        reject_cost=0.2,
    ).with_(**changes)


class _Simulation:
    """The mutable state of one run (arrays over clients) and the step loop."""

    def __init__(self, fleet: Fleet, quiet_runs: bool = True) -> None:
        self.fleet = fleet
        #: take a run of quiet steps (see :meth:`_quiet_until`) in one go; False: every
        #: step through the loop (the reference the fast path is tested against)
        self.quiet_runs = quiet_runs
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
        self.budget: BudgetArray | None = (
            None if f.retry_budget is None else f.retry_budget.vectorized(f.budget_groups)
        )
        self.breaker = (
            None
            if f.breaker is None
            else BreakerArray(
                n,
                f.breaker.threshold,
                f.breaker.cooldown,
                f.breaker.half_open_max_calls,
                f.breaker.trial_timeout,
            )
        )
        self.max_attempts = f.max_attempts
        #: the unrounded ceiling before each retry (decorrelated jitter has none)
        self.ceilings = (
            None
            if f.policy.backoff.jitter == "decorrelated"
            else f.policy.backoff._raw_ceilings(np.arange(self.max_attempts))
        )
        cols = (
            "offered",
            "accepted",
            "rejected",
            "first_tries",
            "retries",
            "successes",
            "waiting",
            "blocked_by_breaker",
            "gave_up",
            "capacity",
        )
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
        all_fail = f.outage_mode == "error"
        # how many clients have arrived by the end of each step, and each step's capacity
        arrivals = np.searchsorted(self.arrive_step, np.arange(self.n_steps), side="right").tolist()
        capacity = s["capacity"].tolist()
        quiet_end = self._quiet_until(arrivals, capacity) if self.quiet_runs else None
        t = -1
        while t + 1 < self.n_steps:
            t += 1
            if quiet_end is not None and arrived == finished and quiet_end[t] > t + 1:
                # nobody is waiting to retry, and every step up to quiet_end serves all
                # its newcomers at their first try: take those steps at once
                end = quiet_end[t]
                self._quiet(t, end, arrived, arrivals[end - 1])
                arrived = finished = arrivals[end - 1]
                active = active[:0]
                stale = 0
                t = end - 1
                continue
            now = t * self.step
            down = out_lo <= now < out_hi
            cap = capacity[t]
            hi = arrivals[t]
            if hi > arrived:
                active = np.concatenate([active, np.arange(arrived, hi, dtype=np.int64)])
                arrived = hi
            if active.size == 0:
                if arrived == f.clients:
                    break
                continue
            due = active[self.next_step[active] == t]
            if due.size:
                done = self._step(t, now, due, cap, down and all_fail)
                finished += done
                stale += done
                if stale * 4 > active.size:
                    active = active[self.reason[active] == _PENDING]
                    stale = 0
            s["waiting"][t] = arrived - finished
        return self._result()

    def _quiet_until(self, arrivals: list[int], capacity: list[int]) -> list[int]:
        """For each step, the first step at or after it that is not quiet.

        A step is quiet when its newcomers (first tries) all fit in its capacity
        and succeed (not an ``"error"`` outage). Started with nobody waiting to
        retry, a run of quiet steps sends first tries only, and each succeeds:
        no draw from either generator, no failure, and a fresh per-client breaker
        that allows and records a success changes nothing. So the run can be
        taken at once (:meth:`_quiet`), bit for bit what the loop would do.
        """
        f = self.fleet
        n = self.n_steps
        new = np.diff(np.asarray(arrivals, dtype=np.int64), prepend=0)
        quiet = new <= np.asarray(capacity, dtype=np.int64)
        if f.outage is not None and f.outage_mode == "error":
            now = np.arange(n, dtype=np.int64) * self.step
            quiet &= (new == 0) | ~((now >= f.outage[0]) & (now < f.outage[1]))
        # the next index at or after each step where quiet is False (n if none)
        loud = np.flatnonzero(~quiet)
        nxt = np.searchsorted(loud, np.arange(n), side="left")
        ends = np.append(loud, n)[nxt]
        return cast(list[int], ends.tolist())

    def _quiet(self, start: int, end: int, lo: int, hi: int) -> None:
        """Steps ``start`` to ``end - 1``, all quiet: clients ``lo`` to ``hi - 1`` arrive
        in them, are sent once, and succeed in the step they arrive in."""
        s, step = self.series, self.step
        idx = slice(lo, hi)
        self.attempts[idx] = 1
        self.reason[idx] = _SUCCESS
        self.finish[idx] = self.arrive_step[idx] * step + step
        self.next_step[idx] = -1
        new = np.bincount(self.arrive_step[idx] - start, minlength=end - start)
        for col in ("offered", "accepted", "first_tries", "successes"):
            s[col][start:end] = new
        if self.budget is not None:  # shared counters: step by step, as the loop would
            a = lo
            for b in (lo + np.cumsum(new)).tolist():
                if b > a:
                    group = self.group[a:b]
                    yes = np.ones(group.size, dtype=bool)
                    self.budget.on_requests(group, yes)
                    self.budget.on_outcomes(group, yes)
                    a = b

    def _step(self, t: int, now: int, due: IntArray, cap: int, all_fail: bool) -> int:
        """Send the due clients' requests; return how many clients finished."""
        f, s, step = self.fleet, self.series, self.step
        gave_up = 0
        if self.breaker is not None:
            ok = self.breaker.allow(due, now)
            if not ok.all():
                blocked = due[~ok]  # refused: nothing sent, the call fails at once
                s["blocked_by_breaker"][t] = blocked.size
                self.blocked[blocked] += 1
                self._give_up(blocked, _BREAKER, now)
                gave_up += blocked.size
                due = due[ok]
        offered = due.size
        first = self.attempts[due] == 0
        n_first = int(np.count_nonzero(first))
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
        n_limit = int(np.count_nonzero(at_limit))
        if n_limit:
            self._give_up(lost[at_limit], _MAX, now + step)
            gave_up += n_limit
            lost = lost[~at_limit]
        if lost.size:
            backoff = self.fleet.policy.backoff
            draws = self.jitter.random(lost.size) if backoff.draws_per_wait else np.zeros(lost.size)
            # the draws come straight from the generator, in [0, 1), and the ceilings
            # from a table: Backoff.next_waits without its checks
            ceil = None if self.ceilings is None else self.ceilings[self.attempts[lost] - 1]
            wait = backoff.jittered(ceil, draws, self.prev[lost])
            self.prev[lost] = wait
            when = -(-(now + step + wait) // step)
            budget_ms = self.fleet.policy.time_budget
            if budget_ms is not None:
                late = self._past_budget(lost, when, budget_ms)
                self._give_up(lost[late], _TIME, now + step)
                gave_up += int(np.count_nonzero(late))
                lost, when = lost[~late], when[~late]
            if self.budget is not None and lost.size:
                allowed = self.budget.can_retry(self.group[lost])
                self._give_up(lost[~allowed], _BUDGET, now + step)
                gave_up += int(np.count_nonzero(~allowed))
                lost, when = lost[allowed], when[allowed]
            self.next_step[lost] = when
        s["gave_up"][t] = gave_up
        return won.size + gave_up

    def _past_budget(self, idx: IntArray, when: IntArray, budget_ms: int) -> BoolArray:
        """Would an attempt sent at step ``when`` end after the client's time budget?"""
        ends = (when + 1 - self.arrive_step[idx]) * self.step
        return np.asarray(ends > budget_ms)

    def _give_up(self, idx: IntArray, reason: int, at: int) -> None:
        self.reason[idx] = reason
        self.finish[idx] = at
        self.next_step[idx] = -1

    def _result(self) -> FleetResult:
        f, step = self.fleet, self.step
        steps = pd.DataFrame(
            {"time_ms": np.arange(self.n_steps, dtype=np.int64) * step, **self.series}
        )
        steps = steps[
            [
                "time_ms",
                "capacity",
                "offered",
                "accepted",
                "rejected",
                "first_tries",
                "retries",
                "successes",
                "waiting",
                "blocked_by_breaker",
                "gave_up",
            ]
        ]
        finish = self.finish.astype(np.float64)
        finish[self.reason == _PENDING] = np.nan
        clients = pd.DataFrame(
            {
                "client": np.arange(f.clients, dtype=np.int64),
                "arrival_ms": self.arrive_step * step,
                "attempts": self.attempts,
                "finish_ms": finish,
                "succeeded": self.reason == _SUCCESS,
                "gave_up": self.reason > _SUCCESS,
                "reason": pd.Categorical.from_codes(
                    self.reason.astype(np.int64), categories=pd.Index(list(REASONS))
                ),
                "blocked": self.blocked,
            }
        )
        opened = 0 if self.breaker is None else self.breaker.opened
        return FleetResult(f, steps, clients, opened)
