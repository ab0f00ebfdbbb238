"""Figures and slider explorers for a fleet of clients: the herd after an outage, the storm.

Use these in notebook 06 (``show(fig)``, or an explorer in a cell of its own).
Each figure function returns a new Figure on its own Agg canvas (never
registered with pyplot) with the :class:`FleetPlot` that drew it attached as
``fig.retrylab_plot``. Colours are Okabe-Ito, and every series also differs by
line style.

- :func:`fleet_timeline`: requests per step (sent, served, retries) against
  the capacity line, the outage shaded, and the backlog underneath;
- :func:`compare_fleets`: the same load panel for several runs, stacked;
- :func:`fleet_explorer` (:class:`FleetExplorer`, :class:`StormExplorer`): the
  sliders. They blit (axes, labels, legend drawn once; only the lines move,
  over a y range quantized to a few levels) and simulate a slider-sized fleet
  of the same shape (:func:`~retrylab.sim.fleetview.slider_scale`); the
  readout says the scale.

>>> from retrylab.sim.fleet import outage_fleet
>>> plot = fleet_timeline(outage_fleet("full").run()).retrylab_plot
>>> plot.peak_text.get_text()
'<- 1000 first tries at 0 s (off the scale)'
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from textwrap import fill
from typing import Any, ClassVar, cast

import numpy as np
import numpy.typing as npt
from matplotlib.figure import Figure, SubFigure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch, Rectangle
from matplotlib.text import Text

from ..core._check import check_choice
from ..core.backoff import JITTERS, Backoff, Jitter
from ..core.budget import budget_from_name
from ..core.policy import RetryPolicy
from ..i18n import N_, NP_, _, number
from ..sim.breakers import BreakerSettings
from ..sim.fleet import Fleet, outage_fleet, storm_fleet
from ..sim.fleetresult import FleetResult
from ..sim.fleetview import SliderScale, describe_fleet, herd_divisor, slider_scale, step_series
from .controls import choice, float_slider, int_slider
from .explorer import Explorer, quantize
from .kit import (
    INK,
    MAX_HEIGHT_IN,
    SMALL_PT,
    WIDTH_IN,
    look,
    new_figure,
    projecting,
    style,
)
from .notes import new_note, stack, to_axes
from .unchanged import more_than_used, same_steps

__all__ = [
    "Y_LEVELS",
    "FleetExplorer",
    "FleetPlot",
    "FleetRun",
    "StormExplorer",
    "compare_fleets",
    "fleet_explorer",
    "fleet_timeline",
]

FloatArray = npt.NDArray[np.float64]

#: The explorers' y ranges (requests per step, clients waiting): a 1-2-5 series.
Y_LEVELS: tuple[int, ...] = (
    10,
    20,
    50,
    100,
    200,
    500,
    1000,
    2000,
    5000,
    10_000,
    20_000,
    50_000,
    100_000,
    200_000,
)


#: The stop reasons a readout names in words (the others are code names: max_attempts...).
#: The reasons a client stopped, as the readout names them (the code names in English;
#: the Turkish says each in words, with the code name a student compares in brackets).
REASON_NAMES: frozenset[str] = frozenset(
    {
        NP_("stop reason", "success"),
        NP_("stop reason", "pending"),
        NP_("stop reason", "max_attempts"),
        NP_("stop reason", "time_budget"),
        NP_("stop reason", "retry_budget"),
        NP_("stop reason", "breaker_open"),
    }
)


class FleetPlot:
    """Requests per step against capacity (outage shaded) over clients still waiting.

    The y axis is scaled to the retries and the capacity; a taller spike (the
    first tries of clients that all arrive at t = 0) is cut off and labelled
    (by :meth:`update`; an explorer says it in its readout instead).
    """

    def __init__(
        self,
        fig: Figure | SubFigure,
        backlog: bool = True,
        legend: bool = True,
        legend_columns: int = 3,
    ) -> None:
        if backlog:
            axes = fig.subplots(2, 1, sharex=True, height_ratios=(3.0, 1.2))
            self.ax, self.ax_wait = axes[0], axes[1]
        else:
            self.ax, self.ax_wait = fig.add_subplot(), None
        ax = self.ax
        self.outage = Rectangle(
            (0, 0),
            0,
            1,
            transform=ax.get_xaxis_transform(),
            color=look("mark", "reference").colour,
            alpha=0.25,
            linewidth=0,
        )
        ax.add_patch(self.outage)
        self.offered = ax.plot(
            [],
            [],
            drawstyle="steps-post",
            color=look("load", "sent").colour,
            linewidth=1.6,
            label=_("requests sent"),
        )[0]
        self.retries = ax.plot(
            [],
            [],
            drawstyle="steps-post",
            color=look("load", "retries").colour,
            linewidth=1.3,
            linestyle="--",
            label=_("of which retries"),
        )[0]
        self.served = ax.plot(
            [],
            [],
            drawstyle="steps-post",
            color=look("load", "served").colour,
            linewidth=1.6,
            linestyle="-.",
            label=_("served"),
        )[0]
        self.capacity = ax.plot(
            [],
            [],
            drawstyle="steps-post",
            color=INK,
            linewidth=1.4,
            linestyle=(0, (6, 3)),
            label=_("capacity"),
        )[0]
        self.peak_text = ax.text(
            0,
            0,
            "",
            ha="left",
            va="top",
            fontsize=SMALL_PT + 0.5,
            color=look("load", "sent").colour,
        )
        style(ax, "", None, _("requests per step"))
        self.waiting: Line2D | None = None
        self.wait_outage: Rectangle | None = None
        handles: list[Any] = [
            self.offered,
            self.retries,
            self.served,
            self.capacity,
            Patch(color=look("mark", "reference").colour, alpha=0.25, label=_("outage")),
        ]
        self.served_total: Line2D | None = None
        self.gave_up_total: Line2D | None = None
        if self.ax_wait is not None:
            self.waiting = self.ax_wait.plot(
                [],
                [],
                drawstyle="steps-post",
                color=look("load", "waiting").colour,
                linewidth=1.6,
                label=_("clients waiting"),
            )[0]
            # what became of the clients: a waiting line that drops to 0 is recovery
            # only if the served line rose by as much (else they gave up)
            served, gave_up = look("outcome", "served"), look("outcome", "given_up")
            self.served_total = self.ax_wait.plot(
                [],
                [],
                drawstyle="steps-post",
                color=served.colour,
                linewidth=1.6,
                linestyle="-.",
                label=_("served so far"),
            )[0]
            self.gave_up_total = self.ax_wait.plot(
                [],
                [],
                drawstyle="steps-post",
                color=gave_up.colour,
                linewidth=2.2,
                label=_("gave up so far"),
            )[0]
            self.wait_outage = Rectangle(
                (0, 0),
                0,
                1,
                transform=self.ax_wait.get_xaxis_transform(),
                color=look("mark", "reference").colour,
                alpha=0.25,
                linewidth=0,
            )
            self.ax_wait.add_patch(self.wait_outage)
            style(self.ax_wait, None, _("time (s)"), _("clients"))
            handles += [self.waiting, self.served_total, self.gave_up_total]
        else:
            ax.set_xlabel(_("time (s)"), fontsize=12)
        self.handles = handles
        if legend:
            fig.legend(
                handles=handles,
                loc="outside lower center",
                ncols=legend_columns,
                fontsize=SMALL_PT,
                frameon=False,
            )
        self.title = ax.set_title("", fontsize=12)

    def lines(self) -> list[Any]:
        """The artists :meth:`move` changes (an explorer's animated ones)."""
        return [
            a
            for a in (
                self.offered,
                self.retries,
                self.served,
                self.capacity,
                self.waiting,
                self.served_total,
                self.gave_up_total,
            )
            if a is not None
        ]

    def move(self, result: FleetResult, bin_ms: int | None = None) -> tuple[FloatArray, float]:
        """Set the lines for ``result`` (series averaged over ``bin_ms``, see
        :func:`~retrylab.sim.fleetview.step_series`); return the times and the end (s)."""
        s = step_series(result, bin_ms)
        step = result.fleet.step_ms
        x = s["time_ms"].to_numpy(dtype=np.float64) / 1000
        x_end = float(result.steps["time_ms"].iloc[-1] + step) / 1000
        xs = np.append(x, x_end)

        def ys(col: str) -> FloatArray:
            v = s[col].to_numpy(dtype=np.float64)
            return np.append(v, v[-1])

        for line, col in (
            (self.offered, "offered"),
            (self.retries, "retries"),
            (self.served, "successes"),
            (self.capacity, "capacity"),
        ):
            line.set_data(xs, ys(col))
        if self.waiting is not None:
            self.waiting.set_data(xs, ys("waiting"))
        if self.served_total is not None and self.gave_up_total is not None:
            raw = result.steps
            tx = np.append(raw["time_ms"].to_numpy(dtype=np.float64) / 1000, x_end)
            for line, col in ((self.served_total, "successes"), (self.gave_up_total, "gave_up")):
                total = np.cumsum(raw[col].to_numpy(dtype=np.float64))
                line.set_data(tx, np.append(total, total[-1] if total.size else 0.0))
        return x, x_end

    def update(
        self,
        result: FleetResult,
        bin_ms: int | None = None,
        title: str | None = None,
        top: float | None = None,
    ) -> None:
        """Draw ``result`` as a figure of its own: lines, limits, the cut-off spike, title;
        the y range to ``top`` if given (panels compared on one scale)."""
        x, x_end = self.move(result, bin_ms)
        s = step_series(result, bin_ms)
        step = result.fleet.step_ms
        binned = len(s) != len(result.steps)
        offered = s["offered"].to_numpy(dtype=np.float64)
        top = _top(result, bin_ms) * 1.25 if top is None else top
        self.ax.set_ylim(0, top)
        self.ax.set_xlim(0, x_end)
        if offered.max() > top:
            at = int(offered.argmax())
            self.peak_text.set_position((x[at] + x_end * 0.01, top * 0.97))
            self.peak_text.set_text(
                _("<- {count} first tries at {time} s (off the scale)").format(
                    count=f"{offered[at]:.0f}", time=number(_g(float(x[at])))
                )
            )
        else:
            self.peak_text.set_text("")
        lo, hi = result.fleet.outage if result.fleet.outage is not None else (0, 0)
        for patch in (self.outage, self.wait_outage):
            if patch is not None:
                patch.set_x(lo / 1000)
                patch.set_width((hi - lo) / 1000)
        self.ax.set_ylabel(
            _("requests per {step} ms step\n(means over 100 ms)").format(step=step)
            if binned
            else _("requests per {step} ms step").format(step=step)
        )
        self.title.set_text(describe_fleet(result.fleet) if title is None else title)
        self.title.set_fontsize(12)
        if self.ax_wait is not None:
            self.ax_wait.set_ylim(0, clients_top(result) * 1.15)


def scale_line(scale: SliderScale) -> list[str]:
    """The title's line saying an explorer simulates a smaller fleet (none at full scale).

    >>> from retrylab.sim.fleet import storm_fleet
    >>> scale_line(slider_scale(storm_fleet(clients=60000), divisor=10, step_ms=100))
    ['simulated at 1/10 scale in 100 ms steps']
    """
    s = scale.simulated
    if scale.divisor == 1 and s.step_ms == scale.full.step_ms:
        return []
    return [
        _("simulated at 1/{divisor} scale in {step} ms steps").format(
            divisor=scale.divisor, step=s.step_ms
        )
    ]


def clients_top(result: FleetResult) -> float:
    """The most clients the lower panel shows: waiting at once, served or given up in all."""
    st = result.steps
    return max(
        float(st["waiting"].max()), float(st["successes"].sum()), float(st["gave_up"].sum()), 1.0
    )


def _g(value: float) -> float | int:
    """``value`` as ``:g`` writes it: an int when it is whole (2.0 -> 2)."""
    return int(value) if value == int(value) else value


def _top(result: FleetResult, bin_ms: int | None = None) -> float:
    """The load to scale the y axis to: the retries, the capacity and the load but a
    spike of first tries."""
    s = step_series(result, bin_ms)
    offered = s["offered"].to_numpy(dtype=np.float64)
    burst = (
        s["first_tries"].to_numpy(dtype=np.float64)
        > s["retries"].to_numpy() + result.fleet.capacity
    )
    rest = offered[~burst]
    return max(
        float(rest.max()) if rest.size else 0.0,
        float(s["retries"].max()),
        float(result.fleet.capacity),
        1.0,
    )


def fleet_timeline(
    result: FleetResult,
    bin_ms: int | None = None,
    title: str | None = None,
    figsize: tuple[float, float] = (WIDTH_IN, 5.6),
) -> Figure:
    """Load on the server over time for one fleet run, and the backlog under it.

    Use it beside ``result.readout()``: the figure shows *when* the load came
    (waves, a storm), the readout the numbers.

    >>> from retrylab.sim.fleet import outage_fleet
    >>> fig = fleet_timeline(outage_fleet("full").run())
    >>> float(fig.retrylab_plot.capacity.get_ydata().max()), len(fig.axes)
    (50.0, 2)
    """
    fig = new_figure(figsize)
    plot = FleetPlot(fig)
    plot.update(result, bin_ms, title)
    fig.retrylab_plot = plot  # type: ignore[attr-defined]
    return fig


def compare_fleets(
    results: Mapping[str, FleetResult], bin_ms: int | None = None, suptitle: str | None = None
) -> Figure:
    """The load panel of several runs stacked, same axes, each titled by its name
    (in the notebook's language when the catalogue has it: see
    :data:`retrylab.i18n.terms.RUN_NAMES`).

    >>> from retrylab.sim.fleet import outage_fleet
    >>> fig = compare_fleets({"no jitter": outage_fleet("none").run(),
    ...                       "full jitter": outage_fleet("full").run()})
    >>> for ax in fig.axes:
    ...     print(ax.get_title())
    no jitter: 200 of 1000 served, 7700 requests
    full jitter: 998 of 1000 served, 5937 requests
    """
    if not results:
        raise ValueError(_("results={} is out of range: give at least one run to draw"))
    # no taller than the screen (three runs were 980 px): 1.5 in a panel, the legend's
    # rows and the title in the rest
    fig = new_figure((WIDTH_IN, min(MAX_HEIGHT_IN, 1.5 + 1.5 * len(results))))
    subfigs = fig.subfigures(len(results), 1, squeeze=False).ravel().tolist()
    plots = []
    # small multiples: one y range for all, so the runs compare at a glance (three
    # budgets on 0-120, 0-25 and 0-40 looked alike)
    top = max(_top(r, bin_ms) for r in results.values()) * 1.25
    for sub, (name, r) in zip(subfigs, results.items(), strict=True):
        plot = FleetPlot(sub, backlog=False, legend=False)
        plot.update(
            r,
            bin_ms,
            _("{name}: {served} of {clients} served, {requests} requests").format(
                name=_(name), served=r.served, clients=r.fleet.clients, requests=r.total_requests
            ),
            top=top,
        )
        plots.append(plot)
    # one y label for the shared scale, one time axis label at the bottom: a two-line
    # label per panel was taller than a panel
    fig.supylabel(plots[0].ax.get_ylabel(), fontsize=12)
    for i, plot in enumerate(plots):
        plot.ax.set_ylabel("")
        if i < len(plots) - 1:
            plot.ax.set_xlabel("")
    # three columns, as fleet_timeline's: five in one row run past both edges in
    # Turkish ("gönderilen (ilk denemeler + yeniden denemeler)" alone is 350 px)
    fig.legend(
        handles=plots[0].handles,
        loc="outside lower center",
        ncols=3,
        fontsize=SMALL_PT,
        frameon=False,
    )
    if suptitle:
        fig.suptitle(suptitle, fontsize=14)
    fig.retrylab_plot = plots  # type: ignore[attr-defined]
    return fig


# -- explorers ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Scenario:
    name: str
    base: int
    cap: int
    attempts: int
    clients: tuple[int, int, int, int]  # value, low, high, step
    build: Callable[..., Fleet]


@dataclass(frozen=True)
class FleetRun:
    """One explorer setting: the fleet at full scale, the one simulated, and its run."""

    scale: SliderScale
    result: FleetResult


#: How many characters a legend entry's line holds at most when the legend stands right of
#: the panels (the projector's): longer entries wrap at a space.
LEGEND_WRAP = 16


class FleetExplorer(Explorer):
    """A fleet after an outage, with sliders for the policy and toggles for budget and breaker.

    The herd: 1000 clients fail together when the server goes down for 2 s.
    Up to 2000 clients are simulated as they are; a larger herd is simulated
    with fewer clients and a capacity divided alike (the figure's title says so).

    >>> print(FleetExplorer.readout_for(jitter="none"))
    served 200 of 1000 clients (800 gave up); 7700 requests = 7.70 per client
    backlog cleared 14280 ms after the outage ended; 4 overloaded steps after it
    """

    title = N_("fleet after an outage")
    #: 4.0 in tall (was 4.4): with 4 rows of controls and a 6-line readout above it, the
    #: storm explorer stays within 650 px in JupyterLab (676 px at 4.4 in, issue 25); the
    #: axes keep nearly their height (2.66 in, was 2.77): the margins above the title and
    #: below the legend are what shrank
    #: 4.6 in since the lower panel tells served from given up (three legend rows); the
    #: readout above it is two lines (was five), so the explorer still fits the screen.
    #: 4.3 in since the legend is two rows of four: the storm explorer (11 controls, in
    #: three columns) is 637 px tall in JupyterLab, 731 px before.
    figsize = (WIDTH_IN, 4.3)
    margins: ClassVar[Mapping[str, float]] = {
        "left": 0.125,
        "right": 0.98,
        "top": 0.872,
        "bottom": 0.27,
        "hspace": 0.12,
    }
    #: With the projector's 18 px text the legend is one column right of the panels (its
    #: width sets the right margin, see :meth:`setup`): room for the two-line y label, the
    #: time label and between the panels' ticks.
    projector_margins: ClassVar[Mapping[str, float]] = {
        "left": 0.16,
        "top": 0.835,
        "bottom": 0.15,
        "hspace": 0.25,
    }
    #: The legend's columns: two rows of four under the panels.
    legend_columns: ClassVar[int] = 4
    #: Whether the lower panel also says whether the backlog cleared (the storm's lesson;
    #: the herd's is served against given up).
    backlog_note: ClassVar[bool] = False
    cache_size = 8  # a result holds a table of every client
    #: The herd's 10 ms steps are shown as means over 100 ms: a wave of 1000 clients in
    #: one step is a needle on a 30 s axis, the capacity (50) a line near its foot; the
    #: mean keeps the capacity's meaning (requests per step) and shows the wave meet it.
    bin_ms: ClassVar[int] = 100
    scenario = _Scenario(
        "herd", 200, 5000, 8, (1000, 100, 20_000, 100), lambda **kw: outage_fleet("none", **kw)
    )

    @classmethod
    def make_controls(cls) -> dict[str, Any]:
        sc = cls.scenario
        return {
            "base": int_slider("base", sc.base, 50, 2000, 50),
            "factor": float_slider("factor", 2.0, 1.0, 4.0, 0.25),
            "cap": int_slider("cap", sc.cap, 50, 20_000, 50),
            "jitter": choice("jitter", JITTERS, "none"),
            "attempts": int_slider("attempts", sc.attempts, 1, 20),
            "clients": int_slider(
                "clients", sc.clients[0], sc.clients[1], sc.clients[2], sc.clients[3]
            ),
            "budget": choice("budget", ("none", "grpc", "sre"), "none"),
            "breaker": choice("breaker", ("off", "on"), "off"),
            "threshold": int_slider("threshold", 3, 1, 10),
            "cooldown": int_slider("cooldown", 5000, 0, 20_000, 500),
        }

    @classmethod
    def scale(cls, fleet: Fleet) -> SliderScale:
        """The slider-sized copy of ``fleet``: the herd above 2000 clients divided."""
        return slider_scale(fleet, herd_divisor(fleet.clients, fleet.capacity))

    @classmethod
    def compute(
        cls,
        base: int,
        factor: float,
        cap: int,
        jitter: str,
        attempts: int,
        clients: int,
        budget: str,
        breaker: str,
        threshold: int,
        cooldown: int,
        reject_cost: float | None = None,
    ) -> FleetRun:
        kind = cast(Jitter, check_choice("jitter", jitter, JITTERS))
        policy = RetryPolicy(attempts, Backoff(base, factor, cap, jitter=kind))
        check_choice("breaker", breaker, ("off", "on"))
        settings = BreakerSettings(threshold, cooldown) if breaker == "on" else None
        extra = {} if reject_cost is None else {"reject_cost": reject_cost}
        fleet = cls.scenario.build(
            clients=clients,
            policy=policy,
            retry_budget=budget_from_name(budget),
            breaker=settings,
            **extra,
        )
        scale = cls.scale(fleet)
        return FleetRun(scale, scale.simulated.run())

    @classmethod
    def inactive_controls(cls, values: Mapping[str, Any]) -> set[str]:
        """The breaker's threshold and cooldown do nothing while it is off."""
        return {"threshold", "cooldown"} if values.get("breaker") == "off" else set()

    @classmethod
    def readout_text(cls, result: FleetRun) -> str:
        r = result.result
        # two lines: the scale is in the title, who was served or gave up in the lower
        # panel, the retries' peak against capacity in the upper one
        lines = r.readout().splitlines()
        return "\n".join((lines[0], lines[2]))  # served / gave up; the backlog

    def setup(self, fig: Figure) -> list[Any]:
        self.plot = FleetPlot(fig, legend_columns=self.legend_columns, legend=not projecting())
        if projecting():  # 18 px text: four columns would not fit under the panels
            self._legend_at_right(fig)
        full = self.compute(**self.default_values()).scale.full
        end = full.duration_ms / 1000
        self.plot.ax.set_xlim(0, end)
        lo, hi = full.outage if full.outage is not None else (0, 0)
        for patch in (self.plot.outage, self.plot.wait_outage):
            if patch is not None:
                patch.set_x(lo / 1000)
                patch.set_width((hi - lo) / 1000)
        self.plot.title.set_text(self.heading())
        # the lesson at the end of the lower panel's lines: how many were served, how
        # many gave up (the readout's numbers), in the colours of their lines
        wait_ax = self.plot.ax_wait
        assert wait_ax is not None
        self.served_note = new_note(wait_ax, look("outcome", "served").colour)
        self.gave_up_note = new_note(wait_ax, look("outcome", "given_up").colour)
        notes = [self.served_note, self.gave_up_note]
        # the backlog's note only where the explorer says it (the storm's)
        self.waiting_note: Text | None = None
        if self.backlog_note:
            self.waiting_note = new_note(wait_ax, look("load", "waiting").colour)
            notes.append(self.waiting_note)
        return [*self.plot.lines(), *notes]

    def _legend_at_right(self, fig: Figure) -> None:
        """The legend in one column at the figure's right edge, each entry wrapped to a
        few words, the panels narrowed to leave it the room it takes."""
        labels = [fill(str(h.get_label()), LEGEND_WRAP) for h in self.plot.handles]
        legend = fig.legend(
            handles=self.plot.handles,
            labels=labels,
            loc="center right",
            ncols=1,
            fontsize=SMALL_PT,
            frameon=False,
            handlelength=1.6,
            borderaxespad=0.2,
        )
        width = legend.get_window_extent().width / fig.bbox.width
        fig.subplots_adjust(right=1.0 - width - 0.02)
        # the title a little higher: its two lines reach over the top count's tick label
        self.plot.ax.set_title("", fontsize=12, pad=14)

    def heading(self) -> str:
        """The figure's title (fixed: the numbers are in the readout; with the projector's
        18 px text, the short one)."""
        if projecting():
            return _("1000-client herd after a 2 s outage")
        return _("1000-client herd after a 2 s outage: requests per step (readout: the numbers)")

    def level(self, result: FleetRun) -> Hashable:
        r = result.result
        return (
            r.fleet.step_ms,
            quantize(_top(r, self._bin(r)) * 1.1, Y_LEVELS),
            quantize(clients_top(r) * 1.05, Y_LEVELS),
            tuple(scale_line(result.scale)),
        )

    def _bin(self, r: FleetResult) -> int:
        """The steps averaged together: :attr:`bin_ms`, at least one step."""
        return max(self.bin_ms, r.fleet.step_ms)

    def apply_level(self, level: tuple[int, int, int, tuple[str, ...]]) -> None:
        step, top, waiting, scale = level
        self.plot.title.set_text("\n".join((self.heading(), *scale)))
        self.plot.ax.set_ylim(0, top)
        binned = self.bin_ms > step
        self.plot.ax.set_ylabel(
            (
                _("requests per\n{step} ms step (mean)")
                if binned
                else _("requests per\n{step} ms step")
            ).format(step=step),
            fontsize=12,
        )
        if self.plot.ax_wait is not None:
            self.plot.ax_wait.set_ylim(0, waiting)

    def draw(self, result: FleetRun) -> None:
        r = result.result
        self.plot.move(r, self._bin(r))
        wait_ax = self.plot.ax_wait
        assert wait_ax is not None
        end = wait_ax.get_xlim()[1]
        waiting = int(r.steps["waiting"].iloc[-1])
        self.served_note.set_text(_("{count} served").format(count=number(r.served)))
        self.gave_up_note.set_text(_("{count} gave up").format(count=number(r.gave_up)))
        notes = [
            (self.served_note, to_axes(wait_ax, end, r.served)[1]),
            (self.gave_up_note, to_axes(wait_ax, end, r.gave_up)[1]),
        ]
        if self.waiting_note is not None:
            self.waiting_note.set_text(
                _("{count} still waiting").format(count=number(waiting))
                if r.recovery_ms is None
                else _("backlog cleared")
            )
            notes.append((self.waiting_note, to_axes(wait_ax, end, waiting)[1]))
        stack(wait_ax, notes, 0.995)

    def unchanged_reason(
        self, moved: str, old: Any, values: Mapping[str, Any], result: FleetRun
    ) -> str:
        """More attempts than any client makes; a wait that rounds to the same steps."""
        if moved == "attempts":
            return more_than_used("attempts", old, values["attempts"])
        if moved in ("base", "factor", "cap"):
            return same_steps(
                self.controls[moved].description, values[moved], result.result.fleet.step_ms
            )
        return ""


class StormExplorer(FleetExplorer):
    """The retry storm: steady traffic, a 10 s outage, retries that outlive it.

    One more slider than the herd: ``reject_cost``, the share of a request's
    work the server spends turning one away (the storm's key assumption).
    Simulated at 1/10 scale in 100 ms steps (a tenth of the clients, the same
    capacity per step of 100 ms: the same load against capacity, the same
    times), which keeps the storm's shape (tests/viz/test_fleet_scale.py).

    >>> StormExplorer.readout_for(budget="grpc").splitlines()[1]
    'backlog cleared 100 ms after the outage ended; 1 overloaded steps after it'
    """

    title = N_("retry storm")
    backlog_note = True
    scenario = _Scenario("storm", 100, 1000, 10, (60_000, 6000, 120_000, 6000), storm_fleet)
    #: The storm explorer's scale: a tenth of the clients, steps of 100 ms.
    DIVISOR = 10
    STEP_MS = 100

    @classmethod
    def make_controls(cls) -> dict[str, Any]:
        controls = super().make_controls()
        controls["reject_cost"] = float_slider("reject_cost", 0.2, 0.0, 0.5, 0.05)
        return controls

    @classmethod
    def scale(cls, fleet: Fleet) -> SliderScale:
        return slider_scale(fleet, cls.DIVISOR, cls.STEP_MS)

    def heading(self) -> str:
        if projecting():
            return _("Retry storm: steady traffic, a 10 s outage")
        return _("Retry storm: steady traffic, a 10 s outage (readout: the numbers)")


def fleet_explorer(scenario: str = "herd", **values: Any) -> FleetExplorer:
    """Sliders over a fleet: ``"herd"`` (1000 clients fail together) or ``"storm"``.

    The figure is :func:`fleet_timeline`'s; the readout is the scale,
    ``result.readout()`` and why the clients stopped.
    """
    check_choice("scenario", scenario, ("herd", "storm"))
    return (FleetExplorer if scenario == "herd" else StormExplorer)(**values)
