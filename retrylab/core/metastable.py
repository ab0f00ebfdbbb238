"""Metastable failure: a short spike that leaves a system overloaded after it has passed.

The "simple collapse" of N. Bronson, A. Aghayev, A. Charapko, T. Zhu,
"Metastable Failures in Distributed Systems", HotOS 2021 (the
retry-amplified overload), and the sustaining effects catalogued by L. Huang
et al., "Metastable Failures in the Wild", OSDI 2022: a server runs
comfortably below capacity; a load spike builds a queue; queueing delay passes
the clients' timeout; every timed-out request is retried, which multiplies the
load; the queue keeps growing after the spike is gone. The trigger is over,
the *sustaining effect* (work amplification by retries, and work spent on
requests whose client has already given up) keeps the system down.

The model here is a fluid (deterministic) one, in steps of ``step`` ms
(rates in requests per second, ``dt = step / 1000`` s):

- user arrivals ``u(t) = base * mu`` per second, ``spike * mu`` during
  ``[spike_start, spike_start + spike_ms)``; ``mu`` is the capacity;
- ``a_0(t) = u(t) * dt`` first tries in step ``t``; ``a_k(t)`` the ``k``-th
  retries (``k <= retries``); ``A(t) = sum_k a_k(t)`` arrivals;
- queue wait for an arrival at ``t``: ``W(t) = Q(t) / mu`` (FIFO);
- a request's latency is ``W(t) + X`` with ``X`` exponential of mean
  ``latency`` ms (service at low load), so it times out with probability
  ``p(t) = 1`` if ``W >= T`` else ``exp(-(T - W) / latency)``;
- a timed-out attempt is retried ``T + backoff`` ms later:
  ``a_{k+1}(t + (T + backoff) / step) = a_k(t) * p(t)`` for ``k < retries``;
  with a retry ``budget`` ``b`` (retries at most ``b`` times the first
  tries, the SRE book's per-client 10%), the retries of a step are scaled
  down to ``b * a_0`` of that step;
- the server works through the queue whatever the client did:
  ``S(t) = min(Q(t) + A(t), mu * dt)``, ``Q(t+1) = Q(t) + A(t) - S(t)``,
  so timed-out requests still cost it work;
- goodput (answers in time): ``G(t) = A(t) * (1 - p(t))``.

The run *recovers* at the first moment after the spike from which the
queue wait stays below a tenth of the timeout to the end; if it never does,
the failure is metastable.

>>> run = MetastableModel(retries=3).run()
>>> run.recovered_at is None, round(run.final_amplification, 2)
(True, 4.0)
>>> MetastableModel(retries=3, budget=0.1).run().recovered_at
23040
>>> MetastableModel(retries=0).run().recovered_at
20010
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

from ..i18n import _, number, percent
from ._check import check_int, check_number

__all__ = ["MetastableModel", "MetastableRun"]


@dataclass(frozen=True)
class MetastableRun:
    """The series of one run (one value per step) and its verdict."""

    model: MetastableModel
    time_ms: tuple[int, ...]
    user: tuple[float, ...]  #: first tries per second
    offered: tuple[float, ...]  #: all arrivals (first tries + retries) per second
    goodput: tuple[float, ...]  #: answers in time per second
    wait_ms: tuple[float, ...]  #: queue wait an arrival meets
    recovered_at: int | None  #: ms when the wait fell for good, None: metastable

    @property
    def final_amplification(self) -> float:
        """Offered over user load at the end: 1 is healthy, ``retries + 1`` is a storm."""
        return self.offered[-1] / self.user[-1] if self.user[-1] else 0.0

    @property
    def final_goodput(self) -> float:
        """Goodput at the end as a fraction of the user load."""
        return self.goodput[-1] / self.user[-1] if self.user[-1] else 0.0

    def summary(self) -> str:
        """One line for a readout."""
        m = self.model
        if self.recovered_at is None:
            verdict = _("stays overloaded (metastable)")
        else:
            verdict = _("recovers {seconds} s after the spike").format(
                seconds=number((self.recovered_at - m.spike_start - m.spike_ms) / 1000, 1)
            )
        return _("{verdict}; at the end: load {load}× the users', goodput {goodput}").format(
            verdict=verdict,
            load=number(self.final_amplification, 2),
            goodput=percent(100 * self.final_goodput),
        )


@dataclass(frozen=True)
class MetastableModel:
    """The settings of the fluid model (see the module docstring); ``run()`` plays it.

    Loads are fractions of the capacity ``mu`` (requests per second); times in ms.
    ``budget=None`` means no retry budget.
    """

    capacity: float = 1000.0
    base: float = 0.8
    spike: float = 1.5
    spike_start: int = 10_000
    spike_ms: int = 3_000
    timeout: int = 1_000
    retries: int = 3
    backoff: int = 0
    budget: float | None = None
    latency: int = 50
    duration: int = 60_000
    step: int = 10

    def __post_init__(self) -> None:
        check_number("capacity", self.capacity, low=0, high=1e9, low_open=True)
        check_number("base", self.base, low=0, high=10)
        check_number("spike", self.spike, low=0, high=10)
        check_int("step", self.step, low=1, high=1000)
        check_int("duration", self.duration, low=self.step, high=3_600_000)
        check_int("spike_start", self.spike_start, low=0, high=self.duration)
        check_int("spike_ms", self.spike_ms, low=0, high=self.duration)
        check_int("timeout", self.timeout, low=self.step, high=600_000)
        check_int("retries", self.retries, low=0, high=10)
        check_int("backoff", self.backoff, low=0, high=600_000)
        check_int("latency", self.latency, low=1, high=600_000)
        if self.budget is not None:
            check_number("budget", self.budget, low=0, high=10)

    def with_(self, **changes: Any) -> MetastableModel:
        """A copy with some settings changed (checked again)."""
        return replace(self, **changes)

    def user_rate(self, t_ms: int) -> float:
        """First tries per second at ``t_ms``."""
        in_spike = self.spike_start <= t_ms < self.spike_start + self.spike_ms
        return (self.spike if in_spike else self.base) * self.capacity

    def run(self) -> MetastableRun:
        """Step the equations from an empty queue to ``duration``."""
        dt = self.step / 1000
        n = self.duration // self.step
        lag = max(1, (self.timeout + self.backoff) // self.step)
        mu = self.capacity
        future = [[0.0] * (n + lag + 1) for _ in range(self.retries + 1)]
        q = 0.0
        times, user, offered, good, waits = [], [], [], [], []
        for i in range(n):
            t = i * self.step
            a0 = self.user_rate(t) * dt
            retry = [future[k][i] for k in range(1, self.retries + 1)]
            total_retry = sum(retry)
            if self.budget is not None and total_retry > self.budget * a0:
                scale = self.budget * a0 / total_retry
                retry = [r * scale for r in retry]
                total_retry = self.budget * a0
            arrivals = a0 + total_retry
            wait = q / mu * 1000
            p = 1.0 if wait >= self.timeout else math.exp(-(self.timeout - wait) / self.latency)
            cohorts = [a0, *retry]
            for k in range(self.retries):
                future[k + 1][i + lag] += cohorts[k] * p
            served = min(q + arrivals, mu * dt)
            q = q + arrivals - served
            times.append(t)
            user.append(a0 / dt)
            offered.append(arrivals / dt)
            good.append(arrivals * (1 - p) / dt)
            waits.append(wait)
        return MetastableRun(
            self,
            tuple(times),
            tuple(user),
            tuple(offered),
            tuple(good),
            tuple(waits),
            self._recovery(times, waits),
        )

    def _recovery(self, times: list[int], waits: list[float]) -> int | None:
        end = self.spike_start + self.spike_ms
        calm = self.timeout / 10
        at: int | None = None
        for t, w in zip(times, waits, strict=True):
            if t < end:
                continue
            at = (t if at is None else at) if w < calm else None
        return at
