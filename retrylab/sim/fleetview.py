"""What a fleet's figures and readouts show, without drawing: its description, its
per-step series, and a copy sized for a slider.

- :func:`describe_fleet`: two lines naming a fleet's settings;
- :func:`step_series`: the per-step table averaged over bins;
- :class:`SliderScale` and :func:`slider_scale`: a smaller fleet with the same shape
  (clients and capacity divided alike, the step maybe longer), so a slider's redraw
  fits its budget; the notebooks run the full scale in their cells.

>>> from retrylab.sim.fleet import storm_fleet
>>> s = slider_scale(storm_fleet(), divisor=10, step_ms=100)
>>> s.simulated.clients, s.simulated.capacity, s.simulated.step_ms
(6000, 20, 100)
>>> print(s.describe())  # doctest: +NORMALIZE_WHITESPACE
simulated at 1/10 scale: 6000 clients, capacity 20 per 100 ms step (full: 60000
clients, 20 per 10 ms)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..core._check import check_int
from ..core.budget import GrpcRetryThrottle
from ..i18n import _, number, seconds
from ..i18n.terms import jitter_name
from .fleet import Fleet
from .fleetresult import FleetResult

__all__ = ["SliderScale", "describe_fleet", "herd_divisor", "slider_scale", "step_series"]


def describe_fleet(fleet: Fleet) -> str:
    """Two short lines naming a fleet's settings, for a title or a readout.

    >>> from retrylab.sim.fleet import outage_fleet
    >>> print(describe_fleet(outage_fleet("full")))
    1000 clients at once; capacity 50 per 10 ms step; outage 0-2 s
    8 attempts, full jitter, base 200 ms x 2, cap 5000 ms
    """
    b = fleet.policy.backoff
    arrive = (
        _("{clients} clients at once")
        if fleet.spread_ms == 0
        else _("{clients} clients over {spread} s")
    ).format(clients=fleet.clients, spread=seconds(fleet.spread_ms / 1000))
    capacity = _("capacity {capacity} per {step} ms step").format(
        capacity=fleet.capacity, step=fleet.step_ms
    )
    first = [arrive, capacity]
    if fleet.outage is not None:
        first.append(
            _("outage {start}-{end} s").format(
                start=seconds(fleet.outage[0] / 1000), end=seconds(fleet.outage[1] / 1000)
            )
        )
    jitter = jitter_name(b.jitter)
    factor = b.factor if b.factor != int(b.factor) else int(b.factor)
    second = [
        _("{attempts} attempts").format(attempts=fleet.max_attempts),
        jitter,
        _("base {base} ms x {factor}, cap {cap} ms").format(
            base=b.base, factor=number(factor), cap=b.cap
        ),
    ]
    if isinstance(fleet.retry_budget, GrpcRetryThrottle):
        second.append(_("gRPC retry throttling"))
    elif fleet.retry_budget is not None:
        second.append(_("SRE retry budget"))
    if fleet.breaker is not None:
        second.append(
            _("breaker {threshold} failures/{cooldown} ms").format(
                threshold=fleet.breaker.threshold, cooldown=fleet.breaker.cooldown
            )
        )
    return (
        "; ".join(first)
        + "\n"
        + ", ".join(second[:3])
        + "".join(f"; {extra}" for extra in second[3:])
    )


def step_series(result: FleetResult, bin_ms: int | None = None) -> pd.DataFrame:
    """The per-step table averaged over bins of ``bin_ms`` (still per step, so the
    capacity line keeps its meaning). ``None`` keeps single steps up to 3000 of
    them, else uses 100 ms bins.

    >>> from retrylab.sim.fleet import storm_fleet
    >>> s = step_series(storm_fleet(clients=6000).run())
    >>> len(s), float(s["time_ms"].iloc[1])
    (600, 100.0)
    """
    steps = result.steps
    step = result.fleet.step_ms
    if bin_ms is None:
        bin_ms = step if len(steps) <= 3000 else max(step, 100)
    per = max(1, check_int("bin_ms", bin_ms, low=1, high=3_600_000) // step)
    if per == 1:
        return steps
    key = np.arange(len(steps)) // per
    binned = steps.groupby(key).mean()
    binned["time_ms"] = steps["time_ms"].groupby(key).first().to_numpy()
    return binned.reset_index(drop=True)


@dataclass(frozen=True)
class SliderScale:
    """A fleet (``full``) and the smaller one an explorer simulates for it.

    ``simulated`` has ``full.clients / divisor`` clients and steps of ``step_ms``;
    its capacity per step is the full capacity per second divided by ``divisor``,
    so load against capacity, arrival rate against capacity and every time
    (outage, backoff, duration) keep their values: the picture keeps its shape.
    """

    full: Fleet
    simulated: Fleet
    divisor: int

    def describe(self) -> str:
        """One line for a readout: the scale, the simulated fleet and the full one."""
        s, f = self.simulated, self.full
        if self.divisor == 1 and s.step_ms == f.step_ms:
            return _(
                "simulated at full scale: {clients} clients, capacity {capacity} per {step} ms step"
            ).format(clients=s.clients, capacity=s.capacity, step=s.step_ms)
        # Short enough for one line of a readout 850 px wide, in Turkish too: the
        # longer text wrapped, and pushed the storm explorer past 650 px.
        return _(
            "simulated at 1/{divisor} scale: {clients} clients, capacity {capacity} "
            "per {step} ms step (full: {full_clients} clients, {full_capacity} per "
            "{full_step} ms)"
        ).format(
            divisor=self.divisor,
            step=s.step_ms,
            clients=s.clients,
            capacity=s.capacity,
            full_clients=f.clients,
            full_capacity=f.capacity,
            full_step=f.step_ms,
        )


def slider_scale(fleet: Fleet, divisor: int = 1, step_ms: int | None = None) -> SliderScale:
    """``fleet`` with ``divisor`` times fewer clients and steps of ``step_ms`` (default:
    its own), the capacity per second divided alike. ValueError if the clients, the
    capacity or the times do not divide evenly.

    >>> from retrylab.sim.fleet import outage_fleet
    >>> slider_scale(outage_fleet(clients=20000), divisor=10).simulated.capacity
    5
    >>> slider_scale(outage_fleet(clients=1005), divisor=10)
    Traceback (most recent call last):
    ...
    ValueError: clients=1005 is out of range: the slider scale 1/10 needs a multiple of 10
    """
    divisor = check_int("divisor", divisor, low=1, high=1000)
    step = fleet.step_ms if step_ms is None else check_int("step_ms", step_ms, low=1, high=10_000)
    if fleet.clients % divisor:
        raise ValueError(
            _(
                "clients={clients} is out of range: the slider scale 1/{divisor} "
                "needs a multiple of {divisor}"
            ).format(clients=fleet.clients, divisor=divisor)
        )
    per_step = fleet.capacity * step
    if per_step % (fleet.step_ms * divisor) or step % fleet.step_ms:
        raise ValueError(
            _(
                "step_ms={step} is out of range: capacity {capacity} per "
                "{full_step} ms step does not divide into 1/{divisor} scale "
                "in {step} ms steps"
            ).format(step=step, capacity=fleet.capacity, full_step=fleet.step_ms, divisor=divisor)
        )
    simulated = fleet.with_(
        clients=fleet.clients // divisor,
        capacity=per_step // (fleet.step_ms * divisor),
        step_ms=step,
    )
    return SliderScale(fleet, simulated, divisor)


#: The divisors the herd explorer may use (each divides its capacity of 50 per step).
HERD_DIVISORS = (1, 2, 5, 10, 25, 50)
#: The most clients the herd explorer simulates.
HERD_MAX_SIMULATED = 2000


def herd_divisor(clients: int, capacity: int = 50) -> int:
    """The smallest divisor that brings ``clients`` to at most 2000 simulated clients
    and divides both the clients and the capacity evenly.

    >>> herd_divisor(1000), herd_divisor(2500), herd_divisor(20000)
    (1, 2, 10)
    """
    for d in HERD_DIVISORS:
        if clients % d == 0 and capacity % d == 0 and clients // d <= HERD_MAX_SIMULATED:
            return d
    return 1
