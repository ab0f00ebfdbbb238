"""A fleet that throttles itself: the SRE book's adaptive throttling and botocore's adaptive mode.

The scalar rules are in :mod:`retrylab.core.throttle` (sources there); here
they run for ``n`` clients at once, as numpy arrays, against one server.

The model, in steps of ``step`` ms:

- each client has at most one request at a time; an idle client starts one
  with probability ``rate * step / 1000`` a step (``rate`` requests a second
  a client);
- a request is sent, or held by the client's throttle: ``"sre"`` rejects it
  locally with probability ``max(0, (requests - K * accepts) / (requests +
  1))`` over a trailing window of 1 s buckets (the request fails at once, not
  sent); ``"adaptive"`` sends it only if the client's token bucket has a
  token, else the client waits (botocore sleeps in ``acquire``) and tries the
  next step; ``"none"`` always sends;
- the server accepts at most ``capacity`` requests a step (``capacity *
  degraded`` during ``incident``); turning the rest away costs it
  ``reject_cost`` of a request each (:func:`retrylab.sim.fleet.served_under_load`);
  which requests are accepted is a seeded random choice; the others get a
  throttling error;
- a rejected request is retried the next step, up to ``retries`` times, then
  fails.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ..core._check import check_choice, check_int, check_number
from ..i18n import _, number, percent, pgettext
from .fleet import served_under_load

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

__all__ = ["THROTTLES", "ThrottleRun", "throttled_fleet"]

#: No throttle, the SRE book's, botocore's adaptive mode.
THROTTLES: tuple[str, ...] = ("none", "sre", "adaptive")

# botocore's constants (see retrylab.core.throttle)
_C, _BETA, _MIN_RATE, _SMOOTH, _CLOCK_BUCKET = 0.4, 0.7, 0.5, 0.8, 500


@dataclass(frozen=True)
class ThrottleRun:
    """Per-step series of one run, all clients together."""

    throttle: str
    time_ms: IntArray
    capacity: IntArray  #: what the server could accept that step
    offered: IntArray  #: requests that reached the server
    accepted: IntArray
    held: IntArray  #: requests the clients' throttles kept back (rejected or waiting)
    incident: tuple[int, int]

    def _in(self) -> npt.NDArray[np.bool_]:
        lo, hi = self.incident
        return (self.time_ms >= lo) & (self.time_ms < hi)

    @property
    def load_in_incident(self) -> float:
        """Offered over capacity during the incident (1.0: exactly what it can take)."""
        m = self._in()
        return float(self.offered[m].sum() / max(1, self.capacity[m].sum()))

    @property
    def goodput_in_incident(self) -> float:
        """Accepted over capacity during the incident."""
        m = self._in()
        return float(self.accepted[m].sum() / max(1, self.capacity[m].sum()))

    def summary(self) -> str:
        """One line for a readout."""
        return _(
            "{throttle}: in the incident the fleet offers {load}× capacity, the server "
            "accepts {accepted} of it"
        ).format(
            throttle=pgettext("throttle", self.throttle),
            load=number(self.load_in_incident, 2),
            accepted=percent(100 * self.goodput_in_incident),
        )


def throttled_fleet(
    throttle: str = "sre",
    clients: int = 10_000,
    *,
    rate: float = 0.64,
    capacity: int = 800,
    degraded: float = 0.4,
    incident: tuple[int, int] = (10_000, 30_000),
    retries: int = 3,
    reject_cost: float = 0.2,
    k: float = 2.0,
    window: int = 10_000,
    duration: int = 50_000,
    step: int = 100,
    seed: int = 20260114,
) -> ThrottleRun:
    """Run the model in the module docstring; the default fleet asks for 80% of capacity.

    ``capacity`` is per step; ``window`` is the SRE throttle's trailing window
    in ms (the book uses two minutes; a shorter one suits a 50 s run).

    >>> for kind in THROTTLES:
    ...     r = throttled_fleet(kind, 2000, capacity=160)
    ...     print(kind, round(r.load_in_incident, 2), round(r.goodput_in_incident, 2))
    none 6.65 0.01
    sre 2.26 0.66
    adaptive 1.86 0.78
    """
    check_choice("throttle", throttle, THROTTLES)
    n = check_int("clients", clients, low=1, high=10_000_000)
    step = check_int("step", step, low=1, high=10_000)
    duration = check_int("duration", duration, low=step, high=3_600_000)
    capacity = check_int("capacity", capacity, low=1, high=100_000_000)
    check_number("rate", rate, low=0, high=1000 / step)
    check_number("degraded", degraded, low=0, high=1)
    retries = check_int("retries", retries, low=0, high=20)
    check_number("reject_cost", reject_cost, low=0, high=0.99)
    k = check_number("k", k, low=1, high=100)
    window = check_int("window", window, low=1000, high=600_000)
    rng = np.random.default_rng(seed)
    steps = duration // step
    times = np.arange(steps, dtype=np.int64) * step
    out = {c: np.zeros(steps, dtype=np.int64) for c in ("capacity", "offered", "accepted", "held")}
    pending = np.zeros(n, dtype=bool)
    attempt = np.zeros(n, dtype=np.int64)
    p_new = rate * step / 1000
    # SRE: requests and accepts in 1 s buckets over the window
    nb = window // 1000
    req_b = np.zeros((nb, n), dtype=np.int32)
    acc_b = np.zeros((nb, n), dtype=np.int32)
    req = np.zeros(n, dtype=np.int64)
    acc = np.zeros(n, dtype=np.int64)
    second = 0
    # adaptive: botocore's state, one value per client (seconds and requests per second)
    enabled = np.zeros(n, dtype=bool)
    w_max = np.zeros(n)
    kk = np.zeros(n)
    last_fail = np.zeros(n)
    fill = np.full(n, _MIN_RATE)
    max_cap = np.ones(n)
    tokens = np.zeros(n)
    last_refill = np.zeros(n)
    measured = np.zeros(n)
    count = np.zeros(n)
    last_bucket = np.zeros(n)
    for s in range(steps):
        now = int(times[s])
        tsec = now / 1000
        cap = capacity if not incident[0] <= now < incident[1] else int(capacity * degraded)
        out["capacity"][s] = cap
        new = ~pending & (rng.random(n) < p_new)
        pending |= new
        attempt[new] = 0
        want = np.flatnonzero(pending)
        if throttle == "sre":
            sec = now // 1000
            while second < sec:
                second += 1
                row = second % nb
                req -= req_b[row]
                acc -= acc_b[row]
                req_b[row] = 0
                acc_b[row] = 0
            r, a = req[want], acc[want]
            p = np.maximum(0.0, (r - k * a) / (r + 1))
            go = rng.random(want.size) >= p
            req[want] += 1
            req_b[sec % nb, want] += 1
            dropped = want[~go]
            pending[dropped] = False  # rejected locally: fails at once
            send = want[go]
        elif throttle == "adaptive":
            on = enabled[want]
            w_on = want[on]
            tokens[w_on] = np.minimum(
                max_cap[w_on], tokens[w_on] + (tsec - last_refill[w_on]) * fill[w_on]
            )
            last_refill[w_on] = tsec
            has = tokens[w_on] >= 1
            tokens[w_on[has]] -= 1
            send = np.concatenate([want[~on], w_on[has]])
            send.sort()
        else:
            send = want
        out["held"][s] = want.size - send.size
        out["offered"][s] = send.size
        ok_n = served_under_load(int(send.size), cap, reject_cost)
        ok = np.zeros(send.size, dtype=bool)
        ok[rng.permutation(send.size)[:ok_n]] = True
        out["accepted"][s] = ok_n
        good, bad = send[ok], send[~ok]
        pending[good] = False
        attempt[bad] += 1
        pending[bad[attempt[bad] > retries]] = False
        if throttle == "sre":
            acc[good] += 1
            acc_b[(now // 1000) % nb, good] += 1
        elif throttle == "adaptive" and send.size:
            _adaptive_response(
                send,
                ok,
                tsec,
                enabled,
                w_max,
                kk,
                last_fail,
                fill,
                max_cap,
                tokens,
                last_refill,
                measured,
                count,
                last_bucket,
            )
    return ThrottleRun(
        throttle, times, out["capacity"], out["offered"], out["accepted"], out["held"], incident
    )


def _adaptive_response(
    i: IntArray,
    ok: npt.NDArray[np.bool_],
    t: float,
    enabled: npt.NDArray[np.bool_],
    w_max: FloatArray,
    kk: FloatArray,
    last_fail: FloatArray,
    fill: FloatArray,
    max_cap: FloatArray,
    tokens: FloatArray,
    last_refill: FloatArray,
    measured: FloatArray,
    count: FloatArray,
    last_bucket: FloatArray,
) -> None:
    """botocore's ``on_receiving_response`` for the clients ``i`` at time ``t`` (s)."""
    # RateClocker.record
    bucket = np.floor(t * 1000 / _CLOCK_BUCKET) * _CLOCK_BUCKET / 1000
    count[i] += 1
    lb = last_bucket[i]
    tick = bucket > lb
    ti = i[tick]
    current = count[ti] / (bucket - lb[tick])
    measured[ti] = current * _SMOOTH + measured[ti] * (1 - _SMOOTH)
    count[ti] = 0
    last_bucket[ti] = bucket
    m = measured[i]
    # CubicCalculator
    thr = ~ok
    new = _C * ((t - last_fail[i]) - kk[i]) ** 3 + w_max[i]
    ti = i[thr]
    use = np.where(enabled[ti], np.minimum(m[thr], fill[ti]), m[thr])
    w_max[ti] = use
    kk[ti] = np.cbrt(use * (1 - _BETA) / _C)
    last_fail[ti] = t
    new[thr] = use * _BETA
    enabled[ti] = True
    # TokenBucket.max_rate setter: refill at the old rate, then change it
    v = np.maximum(0.0, np.minimum(new, 2.0 * m))
    tokens[i] = np.minimum(max_cap[i], tokens[i] + np.maximum(0.0, t - last_refill[i]) * fill[i])
    last_refill[i] = t
    fill[i] = np.maximum(v, _MIN_RATE)
    max_cap[i] = np.where(v >= 1, v, 1.0)
    tokens[i] = np.minimum(tokens[i], max_cap[i])
