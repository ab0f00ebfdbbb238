"""Explorers for notebook 09, beyond the lessons: rate breaker, hedging, throttling, metastability.

Each is an :class:`~retrylab.viz.explorer.Explorer` that blits (axes, labels and
legends drawn once, the lines updated in place) whose ``compute`` is a pure call into
``retrylab.core`` or ``retrylab.sim``; results are cached, so moving one
slider recomputes only what that slider changes.

>>> MetastableExplorer.readout_for()
"stays overloaded (metastable); at the end: load 4.00× the users', goodput 0%"
>>> MetastableExplorer.readout_for(retries=0)
"recovers 7.0 s after the spike; at the end: load 1.00× the users', goodput 100%"
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, ClassVar

import numpy as np
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from ..core._check import check_choice
from ..core.metastable import MetastableModel, MetastableRun
from ..i18n import N_, _, number, percent
from ..sim.hedged import HedgeStats, hedge_sweep
from ..sim.ratebreakers import BREAKER_KINDS, OutageRun, slider_outage
from ..sim.throttled import THROTTLES, ThrottleRun, throttled_fleet
from .controls import choice, float_slider, int_slider
from .explorer import Explorer, quantize
from .kit import INK, SMALL_PT, WIDTH_IN, look, new_figure, style
from .notes import below_legend, line_height, new_note, stack, to_axes
from .unchanged import more_than_used, throttle_rejects_nothing

__all__ = [
    "HedgingExplorer",
    "MetastableExplorer",
    "RateBreakerExplorer",
    "ThrottleExplorer",
    "breaker_comparison_figure",
    "hedging_explorer",
    "metastable_explorer",
    "rate_breaker_explorer",
    "throttle_explorer",
]

BREAKER_LABELS = {
    "consecutive": N_("consecutive failures (lesson)"),
    "rate": N_("failure rate (resilience4j)"),
}
BREAKER_COLOURS = {
    "consecutive": look("breaker", "consecutive").colour,
    "rate": look("breaker", "rate").colour,
}


# -- 1. failure-rate breaker ------------------------------------------------------------


def _outage_line(r: OutageRun) -> str:
    template = (
        _(
            "{breaker}: {sent} calls/client in the outage, {refused} refused "
            "when healthy, never recovered"
        )
        if r.recovery_ms is None
        else _(
            "{breaker}: {sent} calls/client in the outage, {refused} refused "
            "when healthy, recovered in {recovery} ms"
        )
    )
    return template.format(
        breaker=_(BREAKER_LABELS[r.kind]),
        sent=number(r.sent_in_outage / r.clients, 1),
        refused=number(r.refused_healthy / r.clients, 1),
        recovery=r.recovery_ms,
    )


def _draw_outage(ax: Any, runs: dict[str, OutageRun]) -> dict[str, Any]:
    first = next(iter(runs.values()))
    ax.axvspan(
        first.outage[0] / 1000,
        first.outage[1] / 1000,
        color=look("mark", "reference").colour,
        alpha=0.2,
        lw=0,
        label=_("outage"),
    )
    lines = {}
    for kind, r in runs.items():
        (lines[kind],) = ax.plot(
            r.time_ms / 1000,
            100 * r.sent / r.clients,
            color=BREAKER_COLOURS[kind],
            lw=1.6,
            label=_(BREAKER_LABELS[kind]),
        )
    ax.set_ylim(-3, 105)
    ax.set_xlim(0, first.time_ms[-1] / 1000)
    # when each breaker is back to normal: a dotted line in its colour (the readout says
    # how long after the outage); a line, not a text, so a redraw stays cheap
    for kind, r in runs.items():
        lines[f"{kind} recovered"] = ax.axvline(
            np.nan, color=BREAKER_COLOURS[kind], linestyle=":", linewidth=2.0
        )
        place_recovery(lines[f"{kind} recovered"], r)
    handles, _labels = ax.get_legend_handles_labels()
    handles.append(
        Line2D([], [], color=INK, linestyle=":", linewidth=2.0, label=_("back to normal"))
    )
    ax.legend(handles=handles, loc="lower left", fontsize=SMALL_PT)
    return lines


def place_recovery(line: Any, r: OutageRun) -> None:
    """Put ``line`` at the time ``r``'s breaker is back to normal (95% of the calls it let
    through before the outage); out of sight when it never is."""
    at = np.nan if r.recovery_ms is None else (r.outage[1] + r.recovery_ms) / 1000
    line.set_xdata([at, at])


def breaker_comparison_figure(runs: dict[str, OutageRun]) -> Figure:
    """Both breakers through one outage: the share of calls let through each step."""
    fig = new_figure((WIDTH_IN, 3.6))
    ax = style(
        fig.add_subplot(),
        _("The same outage, two breakers"),
        _("time (s)"),
        _("calls let through (%)"),
    )
    _draw_outage(ax, runs)
    return fig


class RateBreakerExplorer(Explorer):
    """The lesson's breaker and a failure-rate breaker through one outage, side by side.

    >>> print(RateBreakerExplorer.readout_for())  # doctest: +NORMALIZE_WHITESPACE
    consecutive failures (lesson): 5.7 calls/client in the outage, 16.8 refused when
    healthy, recovered in 9500 ms
    failure rate (resilience4j): 13.2 calls/client in the outage, 9.8 refused when
    healthy, recovered in 2750 ms
    """

    title = N_("failure-rate breaker")
    figsize = (WIDTH_IN, 3.6)

    @classmethod
    def make_controls(cls) -> dict[str, Any]:
        return {
            "base_failure": float_slider("base_failure", 0.1, 0.0, 0.4, 0.05),
            # 0.9, not 1.0: the explorer opens on the story, not on "at its maximum"
            "outage_failure": float_slider("outage_failure", 0.9, 0.2, 1.0, 0.1),
            "threshold": int_slider("threshold", 3, 1, 8),
            "window_size": int_slider("window_size", 20, 5, 50, 5),
            "failure_rate_threshold": int_slider("failure_rate_threshold", 50, 10, 90, 5),
            "half_open_calls": int_slider("half_open_calls", 3, 1, 10),
        }

    @classmethod
    def compute(
        cls,
        base_failure: float,
        outage_failure: float,
        threshold: int,
        window_size: int,
        failure_rate_threshold: int,
        half_open_calls: int,
    ) -> dict[str, OutageRun]:
        args = (round(float(base_failure), 4), round(float(outage_failure), 4))
        return {
            "consecutive": slider_outage("consecutive", *args, int(threshold), 20, 50.0, 3, 5000),
            "rate": slider_outage(
                "rate",
                *args,
                3,
                int(window_size),
                float(failure_rate_threshold),
                int(half_open_calls),
                5000,
            ),
        }

    @classmethod
    def readout_text(cls, result: dict[str, OutageRun]) -> str:
        return "\n".join(_outage_line(result[k]) for k in BREAKER_KINDS)

    def setup(self, fig: Figure) -> list[Any]:
        ax = style(
            fig.add_subplot(),
            _("The same outage, two breakers"),
            _("time (s)"),
            _("calls let through (%)"),
        )
        self.ax = ax
        self.lines = _draw_outage(ax, self.compute(**self.default_values()))
        # each breaker's recovery time after the outage (the readout's) at the foot of its
        # dotted "back to normal" line, in its colour, one row each, so the two never meet
        self.recovery_notes = {
            kind: new_note(ax, BREAKER_COLOURS[kind], ha="left") for kind in BREAKER_KINDS
        }
        return [*self.lines.values(), *self.recovery_notes.values()]

    def draw(self, result: dict[str, OutageRun]) -> None:
        for kind, r in result.items():
            self.lines[kind].set_ydata(100 * r.sent / r.clients)
            place_recovery(self.lines[f"{kind} recovered"], r)
        for row, kind in enumerate(BREAKER_KINDS):
            r, note = result[kind], self.recovery_notes[kind]
            if r.recovery_ms is None:  # no line to name
                note.set_text("")
                continue
            x = to_axes(self.ax, (r.outage[1] + r.recovery_ms) / 1000, 0)[0]
            left = x > 0.84  # near the right edge: the note ends at its line
            note.set_horizontalalignment("right" if left else "left")
            note.set_position((x - 0.008 if left else x + 0.008, 0.03 + row * line_height(self.ax)))
            note.set_text(_("{recovery} ms after").format(recovery=r.recovery_ms))


def rate_breaker_explorer(**values: Any) -> RateBreakerExplorer:
    """Sliders for the outage and both breakers, redrawing the calls let through."""
    return RateBreakerExplorer(**values)


# -- 2. hedged requests ----------------------------------------------------------------

HEDGE_DELAYS: tuple[int, ...] = tuple(range(0, 201, 10))
HEDGE_REQUESTS = 10_000


@lru_cache(maxsize=64)
def _sweep(max_attempts: int, slow: float, tail_alpha: float) -> tuple[HedgeStats, ...]:
    return hedge_sweep(
        (*HEDGE_DELAYS, 10**6),
        max_attempts,
        requests=HEDGE_REQUESTS,
        slow=slow,
        tail_alpha=tail_alpha,
    )


@dataclass(frozen=True)
class HedgeView:
    """The sweep over delays, the setting chosen, and no hedging at all."""

    sweep: tuple[HedgeStats, ...]
    chosen: HedgeStats
    unhedged: HedgeStats


class HedgingExplorer(Explorer):
    """p50 and p99 latency against the extra requests hedging costs, as the delay moves.

    >>> print(HedgingExplorer.readout_for())
    delay 50 ms, up to 2 copies: p50 20 ms, p99 74 ms, p99.9 113 ms; +5.2% requests
    without hedging: p50 20 ms, p99 333 ms, p99.9 1690 ms
    """

    title = N_("hedged requests")
    figsize = (WIDTH_IN, 3.8)

    @classmethod
    def make_controls(cls) -> dict[str, Any]:
        return {
            "hedging_delay": int_slider("hedging_delay", 50, 0, 200, 10),
            # from 1 (no copy: hedging off), so the default 2 is not at an end
            "max_attempts": int_slider("max_attempts", 2, 1, 5),
            "slow": float_slider("slow", 0.02, 0.0, 0.1, 0.01),
            "tail_alpha": float_slider("tail_alpha", 1.5, 1.1, 3.0, 0.1),
        }

    @classmethod
    def compute(
        cls, hedging_delay: int, max_attempts: int, slow: float, tail_alpha: float
    ) -> HedgeView:
        sweep = _sweep(int(max_attempts), round(float(slow), 4), round(float(tail_alpha), 4))
        chosen = (
            sweep[HEDGE_DELAYS.index(int(hedging_delay))]
            if int(hedging_delay) in HEDGE_DELAYS
            else hedge_sweep(
                (int(hedging_delay),),
                int(max_attempts),
                requests=HEDGE_REQUESTS,
                slow=slow,
                tail_alpha=tail_alpha,
            )[0]
        )
        return HedgeView(sweep[:-1], chosen, sweep[-1])

    @classmethod
    def readout_text(cls, result: HedgeView) -> str:
        u = result.unhedged
        return "\n".join(
            (
                result.chosen.summary(),
                _("without hedging: p50 {p50} ms, p99 {p99} ms, p99.9 {p999} ms").format(
                    p50=f"{u.p50:.0f}", p99=f"{u.p99:.0f}", p999=f"{u.p999:.0f}"
                ),
            )
        )

    def setup(self, fig: Figure) -> list[Any]:
        ax = style(
            fig.add_subplot(),
            _("Hedging: latency against extra load"),
            _("extra requests (%)"),
            _("latency (ms)"),
        )
        ax.set_yscale("log")
        ax.set_xscale("symlog", linthresh=10)
        ax.set_xlim(0, 420)
        ax.set_ylim(8, 5000)
        self.ax = ax
        (self.p50,) = ax.plot([], [], "-", color=look("latency", "p50").colour, label="p50")
        (self.p99,) = ax.plot([], [], "-", color=look("latency", "p99").colour, label="p99")
        (self.dot50,) = ax.plot([], [], "o", color=look("latency", "p50").colour, ms=9)
        (self.dot99,) = ax.plot(
            [], [], "o", color=look("latency", "chosen").colour, ms=10, label=_("chosen delay")
        )
        self.base = ax.axhline(
            1, color=look("mark", "reference").colour, ls="--", lw=1, label=_("p99 without hedging")
        )
        ax.legend(loc="upper right", fontsize=SMALL_PT)
        # the readout's trade-off on the figure: the chosen delay's p99 and what it costs
        # beside its dot, the p99 without hedging on its dashed line
        self.chosen_note = new_note(ax, look("latency", "chosen").colour, ha="left")
        self.base_note = new_note(ax, INK, ha="right", va="top")
        return [
            self.p50,
            self.p99,
            self.dot50,
            self.dot99,
            self.base,
            self.chosen_note,
            self.base_note,
        ]

    def draw(self, result: HedgeView) -> None:
        x = [100 * s.extra_requests for s in result.sweep]
        self.p50.set_data(x, [s.p50 for s in result.sweep])
        self.p99.set_data(x, [s.p99 for s in result.sweep])
        c = result.chosen
        self.dot50.set_data([100 * c.extra_requests], [c.p50])
        self.dot99.set_data([100 * c.extra_requests], [c.p99])
        self.base.set_ydata([result.unhedged.p99] * 2)
        ax = self.ax
        dot_x, dot_y = to_axes(ax, 100 * c.extra_requests, c.p99)
        # under the dashed line at its right end, clear of the legend; else above it at
        # its left end
        base_y = to_axes(ax, 1, result.unhedged.p99)[1]
        fits_right = base_y - 0.01 <= below_legend(ax)
        self.base_note.set_horizontalalignment("right" if fits_right else "left")
        self.base_note.set_verticalalignment("top" if fits_right else "bottom")
        self.base_note.set_position((0.995, base_y - 0.01) if fits_right else (0.01, base_y + 0.01))
        # the chosen delay's note above its dot; under it when that would meet the other
        # note (the dot just under the dashed line) or the legend
        right = dot_x > 0.6  # a dot far right: its note on its left
        h = line_height(ax)
        base_band = (base_y - 0.01 - h, base_y) if fits_right else (base_y, base_y + 0.01 + h)
        above = (dot_y + 0.04, dot_y + 0.04 + h)
        under = (above[0] < base_band[1] and base_band[0] < above[1]) or above[1] > below_legend(ax)
        self.chosen_note.set_horizontalalignment("right" if right else "left")
        self.chosen_note.set_verticalalignment("top" if under else "bottom")
        self.chosen_note.set_position(
            (dot_x + (-0.01 if right else 0.01), dot_y - 0.04 if under else dot_y + 0.04)
        )
        self.chosen_note.set_text(
            _("p99 {p99} ms, +{extra} requests").format(
                p99=f"{c.p99:.0f}", extra=percent(100 * c.extra_requests, 1)
            )
        )
        self.base_note.set_text(
            _("p99 without hedging: {p99} ms").format(p99=f"{result.unhedged.p99:.0f}")
        )


def hedging_explorer(**values: Any) -> HedgingExplorer:
    """Sliders hedging_delay, max_attempts and the tail's shape, redrawing the trade-off."""
    return HedgingExplorer(**values)


# -- 3. adaptive throttling ----------------------------------------------------------------

THROTTLE_FLEET: dict[str, Any] = {
    "clients": 400,
    "capacity": 80,
    "step": 250,
    "duration": 40_000,
    "incident": (10_000, 25_000),
}


@lru_cache(maxsize=128)
def _throttled(throttle: str, degraded: float, retries: int, k: float) -> ThrottleRun:
    return throttled_fleet(throttle, degraded=degraded, retries=retries, k=k, **THROTTLE_FLEET)


#: The throttle explorer's y ranges (load over the capacity of the moment).
THROTTLE_Y_LEVELS = (3, 5, 8, 12, 20, 30, 50)


def _per_capacity(series: Any, run: ThrottleRun) -> Any:
    """``series`` over the capacity the server had at each step (the readout's measure)."""
    return series / np.maximum(run.capacity, 1)


class ThrottleExplorer(Explorer):
    """A fleet whose server loses capacity: offered load with and without a client throttle.

    >>> print(ThrottleExplorer.readout_for())
    sre: in the incident the fleet offers 2.24× capacity, the server accepts 60% of it
    none: in the incident the fleet offers 5.41× capacity, the server accepts 2% of it
    >>> print(ThrottleExplorer.readout_for(throttle="adaptive").splitlines()[0])
    adaptive: in the incident the fleet offers 1.93× capacity, the server accepts 75% of it
    """

    title = N_("adaptive throttling")
    figsize = (WIDTH_IN, 3.6)
    #: fixed, so the y label keeps its place at every y range (two-digit ticks)
    margins: ClassVar[Mapping[str, float]] = {
        "left": 0.085,
        "right": 0.98,
        "top": 0.91,
        "bottom": 0.15,
    }
    projector_margins: ClassVar[Mapping[str, float]] = {"left": 0.1, "bottom": 0.185}

    @classmethod
    def make_controls(cls) -> dict[str, Any]:
        return {
            "throttle": choice("throttle", THROTTLES, "sre"),
            "degraded": float_slider("degraded", 0.4, 0.1, 1.0, 0.1),
            "retries": int_slider("retries", 3, 0, 5),
            "k": float_slider("k", 2.0, 1.0, 4.0, 0.5),
        }

    @classmethod
    def compute(
        cls, throttle: str, degraded: float, retries: int, k: float
    ) -> tuple[ThrottleRun, ThrottleRun]:
        args = (round(float(degraded), 4), int(retries), float(k))
        return _throttled(throttle, *args), _throttled("none", *args)

    @classmethod
    def inactive_controls(cls, values: Mapping[str, Any]) -> set[str]:
        """K is the SRE throttle's: with ``adaptive`` or ``none`` it changes nothing (the
        browser benchmark pressed it three times in 09 and drew the same image)."""
        return set() if values.get("throttle") == "sre" else {"k"}

    @classmethod
    def readout_text(cls, result: tuple[ThrottleRun, ThrottleRun]) -> str:
        return f"{result[0].summary()}\n{result[1].summary()}"

    def setup(self, fig: Figure) -> list[Any]:
        # One capacity: every series over what the server can take at that moment, the
        # readout's measure (the plot divided by the normal capacity, the readout by the
        # degraded one: 2.5 on the plot, 5.41x in the readout).
        ax = style(
            fig.add_subplot(),
            _("A server loses capacity: who backs off?"),
            _("time (s)"),
            _("requests / capacity"),
        )
        self.ax = ax
        r, none = self.compute(**self.default_values())
        x = r.time_ms / 1000
        ax.axvspan(
            r.incident[0] / 1000,
            r.incident[1] / 1000,
            color=look("mark", "reference").colour,
            alpha=0.2,
            lw=0,
        )
        (self.cap,) = ax.plot(
            x,
            np.ones_like(x),
            color=INK,
            lw=1.4,
            linestyle=(0, (6, 3)),
            label=_("server capacity"),
        )
        (self.none,) = ax.plot(
            x,
            _per_capacity(none.offered, none),
            color=look("throttle", "none").colour,
            lw=1.2,
            label=_("offered, no throttle"),
        )
        (self.offered,) = ax.plot(
            x,
            _per_capacity(r.offered, r),
            color=look("throttle", "throttled").colour,
            lw=1.6,
            label=_("offered, throttled"),
        )
        (self.accepted,) = ax.plot(
            x,
            _per_capacity(r.accepted, r),
            color=look("load", "served").colour,
            lw=1.6,
            label=_("accepted, throttled"),
        )
        ax.set_xlim(0, x[-1])
        ax.legend(loc="upper right", fontsize=SMALL_PT, ncol=2)
        # the readout's number on the figure: each offered series' mean over the incident
        # (a dotted line across it; the per-step curve peaks above its mean), labelled at
        # the incident's end in the series' colour
        self.incident = (r.incident[0] / 1000, r.incident[1] / 1000)
        self.means = {}
        self.mean_notes = {}
        for kind in ("none", "throttled"):
            colour = look("throttle", kind).colour
            (self.means[kind],) = ax.plot(
                self.incident, (np.nan, np.nan), color=colour, lw=2.0, linestyle=":"
            )
            self.mean_notes[kind] = new_note(ax, colour, ha="left")
        return [
            self.none,
            self.offered,
            self.accepted,
            *self.means.values(),
            *self.mean_notes.values(),
        ]

    def level(self, result: tuple[ThrottleRun, ThrottleRun]) -> Hashable:
        top = max(float(np.max(_per_capacity(run.offered, run))) for run in result)
        return quantize(top * 1.35, THROTTLE_Y_LEVELS)  # room above for the legend

    def apply_level(self, level: float) -> None:
        self.ax.set_ylim(0, level)

    def draw(self, result: tuple[ThrottleRun, ThrottleRun]) -> None:
        r, none = result
        self.none.set_ydata(_per_capacity(none.offered, none))
        self.offered.set_ydata(_per_capacity(r.offered, r))
        self.accepted.set_ydata(_per_capacity(r.accepted, r))
        notes = []
        for kind, run in (("none", none), ("throttled", r)):
            shown = kind == "none" or run.throttle != "none"  # one line when both are none
            load = run.load_in_incident if shown else np.nan
            self.means[kind].set_ydata([load, load])
            note = self.mean_notes[kind]
            note.set_text(
                _("{load}× (mean)").format(load=number(run.load_in_incident, 2)) if shown else ""
            )
            notes.append((note, to_axes(self.ax, self.incident[1], load)[1]))
        x = to_axes(self.ax, self.incident[1], 0)[0] + 0.008
        stack(self.ax, notes, x, lift=-line_height(self.ax) / 2)

    def unchanged_reason(
        self,
        moved: str,
        old: Any,
        values: Mapping[str, Any],
        result: tuple[ThrottleRun, ThrottleRun],
    ) -> str:
        """The SRE throttle's K when the throttle rejects nothing either way."""
        if moved == "k" and values["throttle"] == "sre":
            return throttle_rejects_nothing(values["k"])
        return ""


def throttle_explorer(**values: Any) -> ThrottleExplorer:
    """Sliders throttle, degraded, retries and K, redrawing offered and accepted load."""
    return ThrottleExplorer(**values)


# -- 4. metastable failure ----------------------------------------------------------------

#: The retry budget's choices: retries at most this share of first tries ("none": no budget).
#: Draw every 5th point of the model's 10 ms steps: 50 ms is finer than a pixel.
THIN = 5

BUDGETS: dict[str, float | None] = {"none": None, "5%": 0.05, "10%": 0.1, "20%": 0.2, "50%": 0.5}


@lru_cache(maxsize=256)
def _metastable(
    timeout: int, retries: int, budget: float | None, spike_ms: int, base: float
) -> MetastableRun:
    return MetastableModel(
        timeout=timeout,
        retries=retries,
        budget=budget,
        spike_ms=spike_ms,
        base=base,
        duration=40_000,
    ).run()


class MetastableExplorer(Explorer):
    """A short spike, then: does the queue drain, or do retries keep it full?"""

    title = N_("metastable failure")
    figsize = (WIDTH_IN, 4.6)

    @classmethod
    def make_controls(cls) -> dict[str, Any]:
        return {
            "timeout": int_slider("timeout", 1000, 200, 5000, 100),
            "retries": int_slider("retries", 3, 0, 5),
            "budget": choice("budget", tuple(BUDGETS), "none"),
            "spike_ms": int_slider("spike_ms", 3000, 0, 8000, 500),
            # a load, not "base (ms)"
            "base": float_slider("base", 0.8, 0.5, 0.95, 0.05, unit=""),
        }

    @classmethod
    def compute(
        cls, timeout: int, retries: int, budget: str, spike_ms: int, base: float
    ) -> MetastableRun:
        check_choice("budget", budget, tuple(BUDGETS))
        return _metastable(
            int(timeout), int(retries), BUDGETS[budget], int(spike_ms), round(float(base), 4)
        )

    @classmethod
    def readout_text(cls, result: MetastableRun) -> str:
        return result.summary()

    def setup(self, fig: Figure) -> list[Any]:
        top, bottom = fig.subplots(2, 1, sharex=True)
        style(top, None, None, _("load / capacity"))
        # 13 pt, not 14: the Turkish title fits the width with the projector switch on
        top.set_title(_("A load spike, then timeouts and retries"), fontsize=13)
        style(bottom, None, _("time (s)"), _("queue wait (s)"))
        r = self.compute(**self.default_values())
        x = np.asarray(r.time_ms[::THIN]) / 1000
        m = r.model
        self.span = top.axvspan(
            m.spike_start / 1000,
            (m.spike_start + m.spike_ms) / 1000,
            color=look("mark", "reference").colour,
            alpha=0.2,
            lw=0,
            label=_("spike"),
        )
        top.axhline(1, color=INK, lw=1, label=_("capacity"))
        (self.user,) = top.plot(
            x, x * 0, color=look("mark", "reference").colour, lw=1.4, label=_("users")
        )
        (self.offered,) = top.plot(
            x, x * 0, color=look("load", "sent").colour, lw=1.6, label=_("offered")
        )
        (self.good,) = top.plot(
            x, x * 0, color=look("load", "served").colour, lw=1.6, label=_("goodput")
        )
        top.set_ylim(0, 6.3)
        top.legend(loc="upper right", fontsize=SMALL_PT, ncol=3)
        (self.wait,) = bottom.plot(x, x * 0, color=look("load", "waiting").colour, lw=1.6)
        self.timeout_line = bottom.axhline(
            1, color=look("mark", "alarm").colour, ls="--", lw=1, label=_("timeout")
        )
        bottom.set_yscale("symlog", linthresh=1)
        bottom.set_ylim(0, 100)
        bottom.set_xlim(0, x[-1])
        bottom.legend(loc="upper left", fontsize=SMALL_PT)
        # the end state at the lines' right end, the readout's numbers: the load against
        # the users' own, and the share of it served
        self.top = top
        self.load_note = new_note(top, look("load", "sent").colour)
        self.good_note = new_note(top, look("load", "served").colour)
        return [
            self.span,
            self.user,
            self.offered,
            self.good,
            self.wait,
            self.timeout_line,
            self.load_note,
            self.good_note,
        ]

    def draw(self, result: MetastableRun) -> None:
        m = result.model
        mu = m.capacity
        self.user.set_ydata(np.asarray(result.user[::THIN]) / mu)
        self.offered.set_ydata(np.asarray(result.offered[::THIN]) / mu)
        self.good.set_ydata(np.asarray(result.goodput[::THIN]) / mu)
        self.wait.set_ydata(np.asarray(result.wait_ms[::THIN]) / 1000)
        self.timeout_line.set_ydata([m.timeout / 1000] * 2)
        x0, x1 = m.spike_start / 1000, (m.spike_start + m.spike_ms) / 1000
        self.span.set_x(x0)
        self.span.set_width(x1 - x0)
        end = self.top.get_xlim()[1]
        self.load_note.set_text(
            _("{load}× the users' load").format(load=number(result.final_amplification, 2))
        )
        self.good_note.set_text(
            _("goodput {goodput}").format(goodput=percent(100 * result.final_goodput))
        )
        stack(
            self.top,
            [
                (self.load_note, to_axes(self.top, end, result.offered[-1] / mu)[1]),
                (self.good_note, to_axes(self.top, end, result.goodput[-1] / mu)[1]),
            ],
            0.995,
            high=below_legend(self.top),
        )

    def unchanged_reason(
        self, moved: str, old: Any, values: Mapping[str, Any], result: MetastableRun
    ) -> str:
        """More retries than any request of the run is given."""
        return more_than_used("retries", old, values["retries"]) if moved == "retries" else ""


def metastable_explorer(**values: Any) -> MetastableExplorer:
    """Sliders timeout, retries, budget, spike length and base load, redrawing the run."""
    return MetastableExplorer(**values)
