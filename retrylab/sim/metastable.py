"""Metastable failure with real clients: timeouts and retries against a FIFO server.

The fluid equations of :class:`retrylab.core.metastable.MetastableModel`,
played by ``n`` clients instead (sources and the model there). In steps of
``step`` ms:

- an idle client starts a request with probability ``u(t) / n * dt`` (the
  user load ``u`` is ``base`` or, during the spike, ``spike`` times the
  capacity ``mu``); the client then waits for it;
- every request sent joins the server's FIFO queue and gets its place;
  the server answers ``mu * dt`` places a step, in order, whether or not the
  client is still waiting (so timed-out requests still cost it work);
- a client whose request is answered within ``timeout`` ms succeeds; else,
  at ``timeout`` ms, it gives up on that attempt and retries after
  ``backoff`` ms, up to ``retries`` times, if its retry budget allows
  (``budget``: each first try adds ``budget`` tokens, up to 10, a retry
  takes one, the SRE book's per-client retry ratio; None: no budget).

The same equations, the same verdict: the run recovers when, after the
spike, the queue wait stays below a tenth of the timeout to the end.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ..core._check import check_int
from ..core.metastable import MetastableModel
from ..i18n import _, number, percent

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

__all__ = ["FleetMetastableRun", "metastable_fleet"]


@dataclass(frozen=True)
class FleetMetastableRun:
    """Per-step series of one fleet run and its verdict (rates per second)."""

    model: MetastableModel
    clients: int
    time_ms: IntArray
    user: FloatArray  #: first tries sent
    offered: FloatArray  #: all requests sent (first tries and retries)
    goodput: FloatArray  #: answers in time
    wait_ms: FloatArray  #: queue wait a request sent that step meets
    recovered_at: int | None

    def summary(self) -> str:
        """One line for a readout."""
        tail = slice(-max(1, len(self.time_ms) // 20), None)
        user = float(self.user[tail].mean())
        amp = float(self.offered[tail].mean()) / user if user else 0.0
        good = float(self.goodput[tail].mean()) / user if user else 0.0
        if self.recovered_at is None:
            return _(
                "{clients} clients: stays overloaded (metastable); at the end load "
                "{load}×, goodput {goodput}"
            ).format(clients=self.clients, load=number(amp, 2), goodput=percent(100 * good))
        return _(
            "{clients} clients: recovers at {at} s; at the end load {load}×, goodput {goodput}"
        ).format(
            clients=self.clients,
            at=number(self.recovered_at / 1000, 1),
            load=number(amp, 2),
            goodput=percent(100 * good),
        )


def metastable_fleet(
    model: MetastableModel | None = None, clients: int = 100_000, seed: int = 20260114
) -> FleetMetastableRun:
    """Play ``model`` with ``clients`` clients (see the module docstring).

    >>> m = MetastableModel(step=50, duration=40_000)
    >>> metastable_fleet(m, 20_000).recovered_at is None
    True
    >>> metastable_fleet(m.with_(retries=0), 20_000).recovered_at is not None
    True
    """
    m = model or MetastableModel(step=50, duration=40_000)
    n = check_int("clients", clients, low=1, high=10_000_000)
    rng = np.random.default_rng(seed)
    dt = m.step / 1000
    steps = m.duration // m.step
    per_step = m.capacity * dt
    t_out = max(1, m.timeout // m.step)
    lag = max(0, m.backoff // m.step)
    waiting = np.zeros(n, dtype=bool)  # an attempt is out
    resend_at = np.full(n, -1, dtype=np.int64)  # step of a scheduled retry, -1: none
    place = np.zeros(n, dtype=np.int64)
    sent_at = np.zeros(n, dtype=np.int64)
    attempt = np.zeros(n, dtype=np.int64)
    tokens = np.zeros(n)
    total = 0  # places handed out
    served = 0.0  # places answered
    times = np.arange(steps, dtype=np.int64) * m.step
    user = np.zeros(steps)
    offered = np.zeros(steps)
    good = np.zeros(steps)
    wait = np.zeros(steps)
    for s in range(steps):
        p = m.user_rate(int(times[s])) / n * dt
        idle = ~waiting & (resend_at < 0)
        new = np.flatnonzero(idle & (rng.random(n) < p))
        attempt[new] = 0
        if m.budget is not None:
            tokens[new] = np.minimum(10.0, tokens[new] + m.budget)
        retry = np.flatnonzero(resend_at == s)
        resend_at[retry] = -1
        go = np.concatenate([new, retry])
        rng.shuffle(go)
        place[go] = total + np.arange(go.size)
        total += go.size
        sent_at[go] = s
        waiting[go] = True
        wait[s] = (total - served) / m.capacity * 1000
        served = min(float(total), served + per_step)
        out = np.flatnonzero(waiting)
        answered = out[place[out] < served]
        waiting[answered] = False
        good[s] = answered.size / dt
        late = out[(place[out] >= served) & (s - sent_at[out] >= t_out)]
        waiting[late] = False
        again = late[attempt[late] < m.retries]
        if m.budget is not None:
            again = again[tokens[again] >= 1]
            tokens[again] -= 1
        attempt[again] += 1
        resend_at[again] = s + 1 + lag
        user[s] = new.size / dt
        offered[s] = go.size / dt
    return FleetMetastableRun(m, n, times, user, offered, good, wait, _recovered(m, times, wait))


def _recovered(m: MetastableModel, times: IntArray, wait: FloatArray) -> int | None:
    after = times >= m.spike_start + m.spike_ms
    bad = np.flatnonzero(after & (wait >= m.timeout / 10))
    if bad.size == 0:
        first = np.flatnonzero(after)
        return int(times[first[0]]) if first.size else None
    if bad[-1] == len(times) - 1:
        return None
    return int(times[bad[-1] + 1])
