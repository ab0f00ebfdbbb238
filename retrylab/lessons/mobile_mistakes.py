"""The mobile lesson's scenarios measured: jitter spread, app lifecycle, an outage, a flaky batch.

Use it (notebooks 05 and 05b) to put a number on each of the mobile lesson's claims and
common mistakes, on a virtual clock (:mod:`retrylab.lab.virtualtime`), so that a
ten-minute outage runs in milliseconds and every number is the same on every run:

- :func:`jitter_spread`: a herd's wake-ups with no, proportional and full jitter;
- :func:`app_lifecycle`: the app goes to the background while a request is
  being retried: which loops stop, which keep sending;
- :func:`outage_cost`: requests, radio-on time and an energy proxy of a policy
  during an outage (the lesson's "endless retries drain the battery");
- :func:`flaky_batch`: :class:`~retrylab.core.metrics.RetryMetrics` over many
  requests on a flaky link, and :func:`captured_log` for what the policy logs.

>>> outage_cost(RetryPolicy.background()).requests
5
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Coroutine, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..core._check import check_choice, check_int
from ..core.backoff import Backoff
from ..core.constants import SEED
from ..core.metrics import RetryMetrics
from ..core.outcome import Outcome
from ..core.policy import RetryPolicy, RetryResult
from ..core.rng import Mulberry32
from ..i18n import N_, _, grouped, pgettext
from ..lab.virtualtime import now_ms, run_virtual
from ..sim.herd import bucket_counts, wakeups
from .mobile_code import MobileServer, execute_with_retry, lesson_is_retriable
from .tables import label

__all__ = [
    "BATTERY_WH",
    "LIFECYCLE_LOOPS",
    "RADIO_MW",
    "TAIL_MS",
    "LifecycleRun",
    "OutageCost",
    "app_lifecycle",
    "captured_log",
    "flaky_batch",
    "jitter_spread",
    "lifecycle_loops",
    "lifecycle_table",
    "outage_cost",
    "outage_table",
    "radio_on_ms",
]


# -- jitter: proportional against full ---------------------------------------------------------


def jitter_spread(
    clients: int = 1000, retry: int = 2, base: int = 1000, width: int = 500, seed: int = SEED
) -> pd.DataFrame:
    """Wake-ups of ``clients`` that failed together, for no, proportional and full jitter.

    Exponential growth from ``base`` with no cap (the Kotlin sample's); the
    ceiling of retry ``retry`` (counted from 0, as the formulas' n: 2 is the third
    retry) is ``base * 2 ** retry``. Columns: the
    shortest, longest and mean wait (ms), longest / shortest, and the busiest
    ``width``-ms bucket (clients, and share of all).

    >>> row = jitter_spread().loc["proportional"]
    >>> [int(row[c]) for c in ("shortest", "longest", "busiest")]
    [2003, 5997, 140]
    """
    rows = {}
    for jitter in ("none", "proportional", "full"):
        b = Backoff(base, 2, None, jitter=jitter)
        w = wakeups(b, clients, retry + 1, Mulberry32(seed))
        counts = bucket_counts(w, width)
        lo, hi = int(w.min()), int(w.max())
        rows[jitter] = {
            "ceiling": b.ceiling(retry),
            "shortest": lo,
            "longest": hi,
            "mean": round(float(np.mean(w))),
            "longest / shortest": round(hi / lo, 2) if lo else math.inf,
            "busiest": int(counts.max()),
            "busiest share": round(float(counts.max()) / clients, 3),
        }
    table = pd.DataFrame.from_dict(rows, orient="index")
    return table.rename(columns=lambda c: _(_SPREAD_COLUMNS[c])).rename_axis(
        pgettext("column", "jitter")
    )


#: :func:`jitter_spread`'s headers (English as the code writes them; shown translated).
_SPREAD_COLUMNS: dict[str, str] = {
    "ceiling": N_("ceiling"),
    "shortest": N_("shortest"),
    "longest": N_("longest"),
    "mean": N_("mean"),
    "longest / shortest": N_("longest / shortest"),
    "busiest": N_("busiest"),
    "busiest share": N_("busiest share"),
}


# -- the app goes to the background ------------------------------------------------------

#: The loops :func:`app_lifecycle` compares, and what each one is.
LIFECYCLE_LOOPS: dict[str, str] = {
    "policy": N_("RetryPolicy.run_async in a task the screen owns, cancelled on background"),
    "policy_detached": N_("the same loop in a task nobody cancels (fire and forget)"),
    "kotlin": N_("executeWithRetry, cancelled; isRetriable = the lesson's list"),
    "kotlin_retry_all": N_("executeWithRetry, cancelled; isRetriable = { true }"),
    "asyncio_port": N_("executeWithRetry ported to asyncio as is, cancelled"),
}


def lifecycle_loops() -> pd.DataFrame:
    """:data:`LIFECYCLE_LOOPS` as a table to read: each loop's name (as code writes it)
    and what it is, in the current language.

    >>> lifecycle_loops().loc["policy_detached"].iloc[0]
    'the same loop in a task nobody cancels (fire and forget)'
    """
    return pd.DataFrame(
        {pgettext("column", "what it is"): [_(what) for what in LIFECYCLE_LOOPS.values()]},
        index=list(LIFECYCLE_LOOPS),
    )


@dataclass(frozen=True)
class LifecycleRun:
    """What one loop did when the app went to the background at ``background_at`` ms."""

    loop: str
    requests: int
    after_background: int
    state_at_background: str
    ended_at: int
    caller_saw: str


def app_lifecycle(
    loop: str,
    *,
    background_at: int = 15_000,
    latency_ms: int = 10_000,
    attempts: int = 5,
    base_ms: int = 1000,
    seed: int = SEED,
) -> LifecycleRun:
    """A request retried in a tunnel; at ``background_at`` the app goes to the background.

    Every request hangs for ``latency_ms`` (OkHttp's default connect timeout is
    10 s) and fails with a network error. ``loop`` is one of
    :data:`LIFECYCLE_LOOPS`; all allow ``attempts`` attempts with exponential
    waits from ``base_ms``. The lifecycle owner cancels the task (Python's
    ``task.cancel()``, Kotlin's ``viewModelScope`` being cleared) except for
    ``"policy_detached"``, which nobody owns.

    >>> r = app_lifecycle("policy")
    >>> r.requests, r.after_background, r.state_at_background, r.ended_at
    (2, 0, 'in flight', 15000)
    >>> app_lifecycle("asyncio_port").after_background
    3
    """
    check_choice("loop", loop, tuple(LIFECYCLE_LOOPS))
    background_at = check_int("background_at", background_at, low=0, high=86_400_000)
    attempts = check_int("attempts", attempts, low=1, high=1000)

    async def go() -> LifecycleRun:
        server = MobileServer.down_until(10**12, Outcome.network("timeout"), latency_ms)
        rng = Mulberry32(seed)
        work: Coroutine[Any, Any, Any]
        if loop.startswith("policy"):
            policy = RetryPolicy(attempts, Backoff(base_ms, 2, 60_000, jitter="full"))
            work = policy.run_async(server.send, "GET", rng)
        else:
            work = execute_with_retry(
                server.kotlin_block,
                max_retries=attempts - 1,
                base_delay_ms=base_ms,
                is_retriable=(lambda e: True) if loop != "kotlin" else lesson_is_retriable,
                random=rng,
                delay_checks_cancellation=loop != "asyncio_port",
            )
        task = asyncio.ensure_future(work)
        done, _pending = await asyncio.wait({task}, timeout=background_at / 1000)
        state = "finished" if done else "in flight" if server.in_flight else "waiting"
        if loop != "policy_detached":
            task.cancel()
        try:
            value = await task
            saw = (
                f"{_result_cell(value)}: {value.message}"
                if isinstance(value, RetryResult)
                else str(value)
            )
        except asyncio.CancelledError:
            saw = "CancelledError: the coroutine stopped"
        after = sum(1 for t in server.sent if t >= background_at)
        return LifecycleRun(loop, server.requests, after, state, now_ms(), saw)

    return run_virtual(go())


def _result_cell(r: RetryResult) -> str:
    """A result in a table cell (as ``mobile_code.result_text``), the outcome's kind
    in the notebook's language ("ağ (max_attempts)"); the stop reason stays the
    code value a student compares."""
    if r.ok:
        return str(label("success"))
    return f"{label(r.outcome.label())} ({r.reason})"


def lifecycle_table(**kwargs: Any) -> pd.DataFrame:
    """:func:`app_lifecycle` for every loop in :data:`LIFECYCLE_LOOPS`, one row each."""
    rows = [app_lifecycle(name, **kwargs) for name in LIFECYCLE_LOOPS]
    return pd.DataFrame(
        {
            "requests": [r.requests for r in rows],
            "sent after background": [r.after_background for r in rows],
            "at background": [r.state_at_background for r in rows],
            "ended at (s)": [r.ended_at / 1000 for r in rows],
            "the caller saw": [r.caller_saw for r in rows],
        },
        index=pd.Index([r.loop for r in rows], name="loop"),
    )


# -- an outage's cost -----------------------------------------------------------------------


def radio_on_ms(
    sent: Sequence[int], latency_ms: int, tail_ms: int, until: int | None = None
) -> int:
    """How long the radio is on: each request keeps it on for latency + tail, merged.

    After a transfer a cellular radio stays in its high-power state for a
    "tail" before it drops back to idle; requests closer together than that
    keep it on all the time. ``until`` clips the total at that time (ms).

    >>> radio_on_ms([0, 1000, 20_000], latency_ms=300, tail_ms=5000)
    11600
    """
    total, start, end = 0, None, 0
    for t in sorted(sent):
        lo, hi = t, t + latency_ms + tail_ms
        if until is not None:
            lo, hi = min(lo, until), min(hi, until)
        if start is None or lo > end:
            if start is not None:
                total += end - start
            start, end = lo, hi
        else:
            end = max(end, hi)
    if start is not None:
        total += end - start
    return total


@dataclass(frozen=True)
class OutageCost:
    """What a policy cost a phone during an outage."""

    requests: int
    requests_during_outage: int
    radio_on_s: float
    energy_j: float
    battery_pct: float
    outcome: str
    ended_at_s: float


#: The assumptions behind the energy proxy (illustrative values, not measurements).
RADIO_MW = 1000  # power drawn while the cellular radio is on, mW
TAIL_MS = 5000  # how long it stays on after a transfer, ms
BATTERY_WH = 15.4  # a 4000 mAh battery at 3.85 V


def outage_cost(
    policy: RetryPolicy,
    *,
    outage_ms: int = 600_000,
    latency_ms: int = 300,
    tail_ms: int = TAIL_MS,
    radio_mw: int = RADIO_MW,
    seed: int = SEED,
    method: str = "GET",
) -> OutageCost:
    """Run ``policy`` from the start of an outage of ``outage_ms`` (503s); count its cost.

    The energy is a proxy: radio-on time x ``radio_mw``, as a share of a
    :data:`BATTERY_WH` battery. The radio-on time is :func:`radio_on_ms`
    clipped at the end of the outage.

    >>> c = outage_cost(RetryPolicy(1000, Backoff(2000, growth="constant")))
    >>> c.requests_during_outage, c.radio_on_s, c.outcome
    (261, 600.0, 'success')
    >>> outage_cost(RetryPolicy.user_triggered()).requests
    3
    """
    outage_ms = check_int("outage_ms", outage_ms, low=0, high=86_400_000)

    async def go() -> OutageCost:
        server = MobileServer.down_until(outage_ms, Outcome.http(503), latency_ms)
        r = await policy.run_async(server.send, method, Mulberry32(seed), clock=now_ms)
        during = sum(1 for t in server.sent if t < outage_ms)
        radio = radio_on_ms(server.sent, latency_ms, tail_ms, until=outage_ms)
        energy = radio / 1000 * radio_mw / 1000
        return OutageCost(
            server.requests,
            during,
            radio / 1000,
            round(energy, 1),
            round(100 * energy / (BATTERY_WH * 3600), 2),
            pgettext("value", "success")
            if r.ok
            else _("gave up ({reason})").format(reason=r.reason),
            now_ms() / 1000,
        )

    return run_virtual(go())


def outage_table(
    policies: Mapping[str, RetryPolicy], *, fleet: int = 10_000, **kwargs: Any
) -> pd.DataFrame:
    """:func:`outage_cost` for each policy, one row each, plus the load of a ``fleet``.

    The last column is the mean request rate the server sees during the outage
    if ``fleet`` phones run the policy. Headers and the outcome are in the
    current language (a table to read; the numbers are :class:`OutageCost`'s).
    """
    outage = int(kwargs.get("outage_ms", 600_000))
    rows = {name: outage_cost(p, **kwargs) for name, p in policies.items()}
    phones = grouped(fleet)
    return pd.DataFrame(
        {
            pgettext("column", "requests in outage"): [
                c.requests_during_outage for c in rows.values()
            ],
            pgettext("column", "radio on (s)"): [c.radio_on_s for c in rows.values()],
            pgettext("column", "energy (J)"): [c.energy_j for c in rows.values()],
            pgettext("column", "battery (%)"): [c.battery_pct for c in rows.values()],
            pgettext("column", "outcome"): [c.outcome for c in rows.values()],
            pgettext("column", "ended at (s)"): [c.ended_at_s for c in rows.values()],
            _("req/s from {phones} phones").format(phones=phones): [
                round(c.requests_during_outage * fleet / (outage / 1000), 1) for c in rows.values()
            ],
        },
        index=pd.Index(list(rows), name=pgettext("column", "policy")),
    )


# -- metrics over a batch ----------------------------------------------------------------------


def flaky_batch(
    requests: int = 200,
    *,
    policy: RetryPolicy | None = None,
    failure_rate: float = 0.3,
    permanent_rate: float = 0.05,
    seed: int = SEED,
    metrics: RetryMetrics | None = None,
) -> RetryMetrics:
    """Run ``requests`` GETs over a flaky link and collect :class:`RetryMetrics`.

    Each request is a 404 for good with probability ``permanent_rate``; else
    each attempt fails with probability ``failure_rate`` (a 503 or a network
    error, half and half). One ``Mulberry32(seed)`` draws the outcomes, a
    second one (``seed + 1``) the jitter. Default policy:
    :meth:`RetryPolicy.background`.

    >>> m = flaky_batch(100)
    >>> m.runs, m.retries, m.success_after_retry, m.successes
    (100, 43, 25, 95)
    """
    check_int("requests", requests, low=0, high=1_000_000)
    pol = RetryPolicy.background() if policy is None else policy
    m = RetryMetrics() if metrics is None else metrics
    draw = Mulberry32(seed)
    jitter = Mulberry32(seed + 1)
    for _i in range(requests):
        permanent = draw() < permanent_rate

        def send(permanent: bool = permanent) -> Outcome:
            if permanent:
                return Outcome.http(404)
            if draw() < failure_rate:
                return Outcome.http(503) if draw() < 0.5 else Outcome.network("timeout")
            return Outcome.success()

        pol.run(send, "GET", jitter, metrics=m, sleep=None)
    return m


@contextmanager
def captured_log(level: int = logging.DEBUG) -> Iterator[list[str]]:
    """Collect the ``retrylab`` logger's lines in a list while the block runs.

    Use it to show what a policy logs (one DEBUG line per retry, one INFO line
    per finished run) without printing to stderr.

    >>> answers = iter([Outcome.network(), Outcome.success()])
    >>> with captured_log() as lines:
    ...     _ = RetryPolicy().run(lambda: next(answers), rng=Mulberry32(1), sleep=None)
    >>> for line in lines:
    ...     print(line)
    DEBUG GET attempt 1: network; retrying in 125 ms (network error on GET, a safe method:
    repeating it changes nothing)
    INFO GET stopped after 2 attempt(s): success on attempt 2
    """
    logger = logging.getLogger("retrylab")
    lines: list[str] = []

    class _ListHandler(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(f"{record.levelname} {record.getMessage()}")

    handler = _ListHandler(level)
    old_level, old_propagate = logger.level, logger.propagate
    logger.addHandler(handler)
    logger.setLevel(level)
    logger.propagate = False
    try:
        yield lines
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old_level)
        logger.propagate = old_propagate
