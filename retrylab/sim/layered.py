"""Retries at every layer: a call through ``layers`` services, each retrying its own
call, multiplies the load on the bottom one.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from ..core._check import check_int, check_number
from ..core.backoff import Backoff
from ..core.outcome import Outcome
from ..core.policy import RetryPolicy
from ..core.rng import Mulberry32

#: The most calls the bottom service may get in one simulation (each runs a retry loop).
MAX_BOTTOM_CALLS = 250_000

# -- layered retries ------------------------------------------------------------------------


def _per_layer(layers: int, attempts: int | Sequence[int]) -> list[int]:
    layers = check_int("layers", layers, low=1, high=8)
    per = [attempts] * layers if isinstance(attempts, int) else list(attempts)
    if len(per) != layers:
        raise ValueError(
            f"attempts={attempts!r} is out of range: attempts must be one "
            f"number or {layers} numbers (one per layer)"
        )
    return [check_int("attempts", a, low=1, high=10) for a in per]


def expected_layered_load(
    layers: int, attempts: int | Sequence[int], failure_rate: float = 1.0
) -> float:
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
    for k in reversed(per):  # from the layer just above the bottom, upwards
        load *= float(k) if f == 1 else (1 - f**k) / (1 - f)
        f = f**k
    return load


def layered_calls(
    layers: int = 3,
    attempts: int | Sequence[int] = 3,
    requests: int = 1,
    failure_rate: float = 1.0,
    seed: int = 20260114,
    names: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Simulate retries at every layer of a call chain with real ``RetryPolicy`` loops.

    Use it to check the arithmetic of :func:`expected_layered_load` the hard
    way: each layer's ``send`` runs the next layer's retry loop, the bottom
    service fails with probability ``failure_rate`` (draws from a seeded
    Mulberry32), and every call is counted where it arrives. Layer ``i``
    retries with ``RetryPolicy(max_attempts=attempts[i])`` (no waits are
    slept: load, not time, is the question).

    Returns one row per service, top to bottom: ``service``, ``calls``,
    ``per_request`` (calls / requests). Bounded by the work it implies: a run
    whose expected bottom load (``requests * expected_layered_load(...)``)
    passes :data:`MAX_BOTTOM_CALLS` is refused before it starts.

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
        names = (
            default
            if layers == 3
            else [f"service {i + 1}" for i in range(layers - 1)] + ["database"]
        )
    if len(names) != layers:
        raise ValueError(f"names={list(names)!r} is out of range: names must have {layers} entries")
    expected_bottom = requests * expected_layered_load(layers, per, p)
    if expected_bottom > MAX_BOTTOM_CALLS:
        raise ValueError(
            f"attempts={attempts!r} is out of range: {requests} request(s) "
            f"through {layers} layers of {per} attempts would send about "
            f"{expected_bottom:,.0f} calls to the bottom service, and a simulation is "
            f"limited to {MAX_BOTTOM_CALLS:,}; use fewer layers, attempts or "
            "requests (expected_layered_load gives the figure without "
            "simulating)"
        )
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
        return policies[level + 1].run(below, "GET", sleep=None).outcome

    top = bottom if layers == 1 else (lambda: through(0))
    for _ in range(requests):
        policies[0].run(top, "GET", sleep=None)
    return pd.DataFrame(
        {"service": list(names), "calls": counts, "per_request": [c / requests for c in counts]}
    )
