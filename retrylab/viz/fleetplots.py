"""Figures and slider explorers for many clients: fleet timelines, the AWS curves, layered load.

Use these in notebook 06 (``show(fig)``, or an explorer in a cell of its own).
Each figure function returns a new Figure on its own Agg canvas (never
registered with pyplot) with the ``*Plot`` object that drew it attached as
``fig.retrylab_plot``; the explorers reuse those plots and update the artists
in place. Colours are Okabe-Ito, and every series also differs by line style
or marker.

- :func:`fleet_timeline`: requests per step (sent, served, retries) against
  the capacity line, the outage shaded, and the backlog underneath;
- :func:`compare_fleets`: the same load panel for several runs, stacked;
- :func:`contention_curves`: the blog's two figures, calls and time against
  the number of clients, one line per strategy;
- :func:`layered_load`: calls reaching each service of a call chain;
- :func:`fleet_explorer` and :func:`contention_explorer`: the sliders.

>>> from retrylab.sim.fleet import outage_fleet
>>> plot = fleet_timeline(outage_fleet("full").run()).retrylab_plot
>>> plot.peak_text.get_text()
'<- 1000 first tries at 0 s (off the scale)'
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import numpy.typing as npt
import pandas as pd
from matplotlib.figure import Figure, SubFigure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch, Rectangle

from ..core._check import check_choice, check_int
from ..core.backoff import JITTERS, Backoff, Jitter
from ..core.budget import GrpcRetryThrottle, budget_from_name
from ..core.policy import RetryPolicy
from ..sim.breakers import BreakerSettings
from ..sim.contention import STRATEGIES, ContentionResult, contention, sweep_table
from ..sim.fleet import Fleet, outage_fleet, storm_fleet
from ..sim.fleetresult import FleetResult
from ..sim.layered import expected_layered_load, layered_calls
from .explorer import PALETTE, Explorer, choice_slider, float_slider, int_slider, new_figure, style

__all__ = [
    "STRATEGY_STYLE",
    "ContentionExplorer",
    "ContentionPlot",
    "FleetExplorer",
    "FleetPlot",
    "StormExplorer",
    "compare_fleets",
    "contention_curves",
    "contention_explorer",
    "describe_fleet",
    "fleet_explorer",
    "fleet_timeline",
    "layered_load",
    "step_series",
    "sweep_with_progress",
]

#: How each strategy is drawn: (colour, marker, line style, label).
STRATEGY_STYLE: dict[str, tuple[str, str, str, str]] = {
    "exponential": (PALETTE["vermillion"], "o", "-", "exponential, no jitter"),
    "full": (PALETTE["blue"], "s", "-", "full jitter"),
    "equal": (PALETTE["orange"], "^", "--", "equal jitter"),
    "decorrelated": (PALETTE["green"], "D", "-.", "decorrelated jitter"),
    "none": (PALETTE["grey"], "v", ":", "no backoff"),
}

FloatArray = npt.NDArray[np.float64]


# -- the fleet ---------------------------------------------------------------------------


def describe_fleet(fleet: Fleet) -> str:
    """Two short lines naming a fleet's settings, for a figure title.

    >>> from retrylab.sim.fleet import outage_fleet
    >>> print(describe_fleet(outage_fleet("full")))
    1000 clients at once; capacity 50 per 10 ms step; outage 0-2 s
    8 attempts, full jitter, base 200 ms x 2, cap 5000 ms
    """
    b = fleet.policy.backoff
    arrive = "at once" if fleet.spread_ms == 0 else f"over {fleet.spread_ms / 1000:g} s"
    jitter = "no jitter" if b.jitter == "none" else f"{b.jitter} jitter"
    extras = []
    if isinstance(fleet.retry_budget, GrpcRetryThrottle):
        extras.append("gRPC retry throttling")
    elif fleet.retry_budget is not None:
        extras.append("SRE retry budget")
    if fleet.breaker is not None:
        extras.append(f"breaker {fleet.breaker.threshold} failures/"
                      f"{fleet.breaker.cooldown} ms")
    outage = ("" if fleet.outage is None else
              f"; outage {fleet.outage[0] / 1000:g}-{fleet.outage[1] / 1000:g} s")
    return (f"{fleet.clients} clients {arrive}; capacity {fleet.capacity} per "
            f"{fleet.step_ms} ms step{outage}\n"
            f"{fleet.max_attempts} attempts, {jitter}, base {b.base} ms x {b.factor:g}, "
            f"cap {b.cap} ms" + "".join(f"; {e}" for e in extras))


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


class FleetPlot:
    """Requests per step against capacity (outage shaded) over clients still waiting.

    The y axis is scaled to the retries and the capacity; a taller spike (the
    first tries of clients that all arrive at t = 0) is cut off and labelled.
    """

    def __init__(self, fig: Figure | SubFigure, backlog: bool = True,
                 legend: bool = True) -> None:
        if backlog:
            axes = fig.subplots(2, 1, sharex=True, height_ratios=(3.0, 1.2))
            self.ax, self.ax_wait = axes[0], axes[1]
        else:
            self.ax, self.ax_wait = fig.add_subplot(), None
        ax = self.ax
        self.outage = Rectangle((0, 0), 0, 1, transform=ax.get_xaxis_transform(),
                                color=PALETTE["grey"], alpha=0.25, linewidth=0)
        ax.add_patch(self.outage)
        self.offered = ax.plot([], [], drawstyle="steps-post", color=PALETTE["blue"],
                               linewidth=1.6, label="sent (first tries + retries)")[0]
        self.retries = ax.plot([], [], drawstyle="steps-post", color=PALETTE["orange"],
                               linewidth=1.3, linestyle="--", label="of which retries")[0]
        self.served = ax.plot([], [], drawstyle="steps-post", color=PALETTE["green"],
                              linewidth=1.6, linestyle="-.", label="served")[0]
        self.capacity = ax.plot([], [], drawstyle="steps-post", color=PALETTE["black"],
                                linewidth=1.4, linestyle=(0, (6, 3)), label="capacity")[0]
        self.peak_text = ax.text(0, 0, "", ha="left", va="top", fontsize=10.5,
                                 color=PALETTE["blue"])
        style(ax, "", None, "requests per step")
        self.waiting: Line2D | None = None
        self.wait_outage: Rectangle | None = None
        handles: list[Any] = [self.offered, self.retries, self.served, self.capacity,
                              Patch(color=PALETTE["grey"], alpha=0.25, label="outage")]
        if self.ax_wait is not None:
            self.waiting = self.ax_wait.plot([], [], drawstyle="steps-post",
                                             color=PALETTE["purple"], linewidth=1.6,
                                             label="clients waiting")[0]
            self.wait_outage = Rectangle((0, 0), 0, 1,
                                         transform=self.ax_wait.get_xaxis_transform(),
                                         color=PALETTE["grey"], alpha=0.25, linewidth=0)
            self.ax_wait.add_patch(self.wait_outage)
            style(self.ax_wait, None, "time (s)", "clients\nwaiting")
            handles.append(self.waiting)
        else:
            ax.set_xlabel("time (s)")
        self.handles = handles
        if legend:
            fig.legend(handles=handles, loc="outside lower center", ncols=3, fontsize=10,
                       frameon=False)
        self.title = ax.set_title("")

    def update(self, result: FleetResult, bin_ms: int | None = None,
               title: str | None = None) -> None:
        """Redraw for ``result`` (series averaged over ``bin_ms``, see :func:`step_series`)."""
        s = step_series(result, bin_ms)
        step = result.fleet.step_ms
        x = s["time_ms"].to_numpy(dtype=np.float64) / 1000
        binned = len(s) != len(result.steps)
        x_end = float(result.steps["time_ms"].iloc[-1] + step) / 1000
        xs = np.append(x, x_end)

        def ys(col: str) -> FloatArray:
            v = s[col].to_numpy(dtype=np.float64)
            return np.append(v, v[-1])

        for line, col in ((self.offered, "offered"), (self.retries, "retries"),
                          (self.served, "successes"), (self.capacity, "capacity")):
            line.set_data(xs, ys(col))
        offered = s["offered"].to_numpy(dtype=np.float64)
        burst = s["first_tries"].to_numpy(dtype=np.float64) > s["retries"].to_numpy() + \
            result.fleet.capacity
        rest = offered[~burst]
        top = max(float(rest.max()) if rest.size else 0.0, float(s["retries"].max()),
                  float(result.fleet.capacity), 1.0) * 1.25
        self.ax.set_ylim(0, top)
        self.ax.set_xlim(0, x_end)
        if offered.max() > top:
            at = int(offered.argmax())
            self.peak_text.set_position((x[at] + x_end * 0.01, top * 0.97))
            self.peak_text.set_text(f"<- {offered[at]:.0f} first tries at "
                                    f"{x[at]:g} s (off the scale)")
        else:
            self.peak_text.set_text("")
        lo, hi = result.fleet.outage if result.fleet.outage is not None else (0, 0)
        for patch in (self.outage, self.wait_outage):
            if patch is not None:
                patch.set_x(lo / 1000)
                patch.set_width((hi - lo) / 1000)
        unit = f"requests per {step} ms step"
        self.ax.set_ylabel(unit + ("\n(means over 100 ms)" if binned else ""))
        self.title.set_text(describe_fleet(result.fleet) if title is None else title)
        self.title.set_fontsize(11.5)
        if self.waiting is not None and self.ax_wait is not None:
            self.waiting.set_data(xs, ys("waiting"))
            self.ax_wait.set_ylim(0, max(float(s["waiting"].max()), 1.0) * 1.15)


def fleet_timeline(result: FleetResult, bin_ms: int | None = None,
                   title: str | None = None, figsize: tuple[float, float] = (9.0, 5.6),
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


def compare_fleets(results: Mapping[str, FleetResult], bin_ms: int | None = None,
                   suptitle: str | None = None) -> Figure:
    """The load panel of several runs stacked, same axes, each titled by its name.

    >>> from retrylab.sim.fleet import outage_fleet
    >>> fig = compare_fleets({"no jitter": outage_fleet("none").run(),
    ...                       "full jitter": outage_fleet("full").run()})
    >>> for ax in fig.axes:
    ...     print(ax.get_title())
    no jitter: 200 of 1000 served, 7700 requests
    full jitter: 998 of 1000 served, 5937 requests
    """
    if not results:
        raise ValueError("results={} is out of range: give at least one run to draw")
    fig = new_figure((9.0, 2.6 + 2.3 * len(results)))
    subfigs = fig.subfigures(len(results), 1, squeeze=False).ravel().tolist()
    plots = []
    for sub, (name, r) in zip(subfigs, results.items(), strict=True):
        plot = FleetPlot(sub, backlog=False, legend=False)
        plot.update(r, bin_ms, f"{name}: {r.served} of {r.fleet.clients} served, "
                               f"{r.total_requests} requests")
        plots.append(plot)
    fig.legend(handles=plots[0].handles, loc="outside lower center", ncols=5, fontsize=10,
               frameon=False)
    if suptitle:
        fig.suptitle(suptitle)
    fig.retrylab_plot = plots  # type: ignore[attr-defined]
    return fig


# -- the AWS contention curves -------------------------------------------------------------


class ContentionPlot:
    """Two panels like the blog's figures: calls and time against clients, per strategy."""

    def __init__(self, fig: Figure) -> None:
        self.ax_calls, self.ax_time = fig.subplots(1, 2)
        self.lines: dict[str, tuple[Line2D, Line2D]] = {}
        for s in STRATEGIES:
            colour, marker, ls, label = STRATEGY_STYLE[s]
            kw = {"color": colour, "marker": marker, "linestyle": ls, "markersize": 4.5,
                  "linewidth": 1.8, "label": label}
            self.lines[s] = (self.ax_calls.plot([], [], **kw)[0],
                             self.ax_time.plot([], [], **kw)[0])
        style(self.ax_calls, "Work: writes sent (calls)", "clients", "calls (mean of runs)")
        style(self.ax_time, "Time until every client is done", "clients",
              "time (ms, log scale)")
        self.ax_time.set_yscale("log")
        self.ax_calls.legend(loc="upper left", fontsize=10)
        self.marker = [ax.axvline(np.nan, color=PALETTE["black"], linewidth=1, alpha=0.5)
                       for ax in (self.ax_calls, self.ax_time)]
        self.marker_text = self.ax_calls.text(np.nan, 0, "", rotation=90, ha="right",
                                              va="bottom", fontsize=9.5)
        self.title = fig.suptitle("")

    def update(self, sweep: pd.DataFrame, mark: int | None = None) -> None:
        """Redraw from a sweep table (:func:`~retrylab.contention.contention_sweep`)."""
        calls, time = sweep_table(sweep, "calls"), sweep_table(sweep, "time_ms")
        x = calls.index.to_numpy(dtype=np.float64)
        for s, (lc, lt) in self.lines.items():
            shown = s in calls.columns
            lc.set_visible(shown)
            lt.set_visible(shown)
            if shown:
                lc.set_data(x, calls[s].to_numpy(dtype=np.float64))
                lt.set_data(x, time[s].to_numpy(dtype=np.float64))
        pad = max(5.0, (x.max() - x.min()) * 0.04) if len(x) else 5.0
        for ax in (self.ax_calls, self.ax_time):
            ax.set_xlim(x.min() - pad, x.max() + pad)
        self.ax_calls.set_ylim(0, float(calls.to_numpy().max()) * 1.08)
        self.ax_time.set_ylim(float(time.to_numpy().min()) * 0.7,
                              float(time.to_numpy().max()) * 1.5)
        for line in self.marker:
            line.set_xdata([mark if mark is not None else np.nan] * 2)
        self.marker_text.set_position((mark if mark is not None else np.nan,
                                       float(calls.to_numpy().max()) * 0.55))
        self.marker_text.set_text("" if mark is None else f"{mark} clients ")
        self.title.set_text("N clients race to update one row (optimistic concurrency), "
                            "after Brooker, AWS Architecture Blog 2015")


def contention_curves(sweep: pd.DataFrame, mark: int | None = 100) -> Figure:
    """The blog's figures: calls and completion time against clients, one line per strategy.

    >>> from retrylab.sim.contention import contention_sweep
    >>> fig = contention_curves(contention_sweep([10, 20], runs=5))
    >>> fig.retrylab_plot.lines["full"][0].get_xdata().tolist()
    [10.0, 20.0]
    """
    fig = new_figure((11.0, 4.8))
    plot = ContentionPlot(fig)
    plot.update(sweep, mark)
    fig.retrylab_plot = plot  # type: ignore[attr-defined]
    return fig


def sweep_with_progress(clients: Sequence[int] | None = None, runs: int = 100,
                        seed: int = 0, **kwargs: Any) -> pd.DataFrame:
    """:func:`~retrylab.contention.contention_sweep` with an ipywidgets progress bar.

    Use it in a notebook for the full sweep (about a second here, longer on a
    slow machine). The bar is displayed, filled cell by cell, and closed.
    """
    import ipywidgets as widgets
    from IPython.display import display

    from ..sim.contention import BLOG_CLIENTS, contention_sweep

    counts = BLOG_CLIENTS if clients is None else clients
    bar = widgets.IntProgress(value=0, min=0, max=len(counts) * len(STRATEGIES),
                              description="sweep")
    display(bar)  # type: ignore[no-untyped-call]

    def tick(done: int, total: int) -> None:
        bar.value = done

    try:
        return contention_sweep(counts, runs=runs, seed=seed, progress=tick, **kwargs)
    finally:
        bar.close()


# -- layered retries -------------------------------------------------------------------------


def layered_load(layers: int = 3, attempts: int | Sequence[int] = 3, requests: int = 100,
                 failure_rate: float = 1.0) -> Figure:
    """Calls reaching each service of a chain when every layer retries (simulated bars).

    >>> fig = layered_load()
    >>> fig.retrylab_data["per_request"].tolist()
    [3.0, 9.0, 27.0]
    """
    df = layered_calls(layers, attempts, requests, failure_rate)
    fig = new_figure((8.0, 4.4))
    ax = fig.add_subplot()
    x = np.arange(len(df))
    colours = [PALETTE["sky"]] * (len(df) - 1) + [PALETTE["vermillion"]]
    bars = ax.bar(x, df["per_request"], color=colours, edgecolor=PALETTE["black"],
                  label="simulated: calls per user request")
    for rect, v in zip(bars, df["per_request"], strict=True):
        ax.text(rect.get_x() + rect.get_width() / 2, v, f"{v:g}", ha="center",
                va="bottom", fontsize=12, fontweight="bold")
    ax.axhline(expected_layered_load(layers, attempts, failure_rate), color=PALETTE["black"],
               linestyle="--", linewidth=1.2, label="arithmetic for the bottom service")
    ax.set_xticks(x, df["service"].tolist())
    per = attempts if isinstance(attempts, int) else "/".join(str(a) for a in attempts)
    style(ax, f"{layers} layers x {per} attempts, bottom failing "
              f"{failure_rate:.0%}: {df['per_request'].iloc[-1]:g} calls per request",
          "service (top to bottom)", "calls per user request")
    ax.set_ylim(0, float(df["per_request"].max()) * 1.2)
    ax.legend(loc="upper left", fontsize=10)
    fig.retrylab_data = df  # type: ignore[attr-defined]
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


class FleetExplorer(Explorer):
    """A fleet after an outage, with sliders for the policy and toggles for budget and breaker.

    The herd: 1000 clients fail together when the server goes down for 2 s.

    >>> print(FleetExplorer.readout_for(jitter="none"))
    served 200 of 1000 clients (800 gave up); 7700 requests = 7.70 per client
    retries: 6700 in all, at most 1000 in one 10 ms step (capacity 50)
    backlog cleared 14280 ms after the outage ended; 4 overloaded steps after it
    stopped: success 200, max_attempts 800
    """

    title = "fleet after an outage"
    figsize = (9.0, 4.4)
    freeze_layout = True
    cache_size = 8  # a result holds a table of every client
    prefetch = True
    scenario = _Scenario("herd", 200, 5000, 8, (1000, 100, 20_000, 100),
                         lambda **kw: outage_fleet("none", **kw))

    @classmethod
    def make_controls(cls) -> dict[str, Any]:
        sc = cls.scenario
        slow: dict[str, Any] = {"continuous_update": False}
        return {
            "base": int_slider("base", sc.base, 50, 2000, 50, **slow),
            "factor": float_slider("factor", 2.0, 1.0, 4.0, 0.25, readout_format=".2f",
                                   **slow),
            "cap": int_slider("cap", sc.cap, 50, 20_000, 50, **slow),
            "jitter": choice_slider("jitter", JITTERS, "none", **slow),
            "attempts": int_slider("attempts", sc.attempts, 1, 20, **slow),
            "clients": int_slider("clients", sc.clients[0], sc.clients[1], sc.clients[2],
                                  sc.clients[3], **slow),
            "budget": choice_slider("budget", ("none", "grpc", "sre"), "none", **slow),
            "breaker": choice_slider("breaker", ("off", "on"), "off", **slow),
            "threshold": int_slider("threshold", 3, 1, 10, **slow),
            "cooldown": int_slider("cooldown", 5000, 0, 20_000, 500, **slow),
        }

    @classmethod
    def compute(cls, base: int, factor: float, cap: int, jitter: str, attempts: int,
                clients: int, budget: str, breaker: str, threshold: int,
                cooldown: int, reject_cost: float | None = None) -> FleetResult:
        kind = cast(Jitter, check_choice("jitter", jitter, JITTERS))
        policy = RetryPolicy(attempts, Backoff(base, factor, cap, jitter=kind))
        check_choice("breaker", breaker, ("off", "on"))
        settings = BreakerSettings(threshold, cooldown) if breaker == "on" else None
        extra = {} if reject_cost is None else {"reject_cost": reject_cost}
        fleet = cls.scenario.build(clients=clients, policy=policy,
                                   retry_budget=budget_from_name(budget), breaker=settings,
                                   **extra)
        return fleet.run()

    @classmethod
    def inactive_controls(cls, values: Mapping[str, Any]) -> set[str]:
        """The breaker's threshold and cooldown do nothing while it is off."""
        return {"threshold", "cooldown"} if values.get("breaker") == "off" else set()

    @classmethod
    def readout_text(cls, result: FleetResult) -> str:
        stopped = ", ".join(f"{k} {v}" for k, v in result.reasons().items())
        return f"{result.readout()}\nstopped: {stopped}"

    def setup(self, fig: Figure) -> None:
        self.plot = FleetPlot(fig)
        # lay out for the widest labels the sliders allow: 6-digit counts, the binned
        # unit on two lines, a two-line title
        self.plot.ax.set_ylim(0, 120_000)
        self.plot.ax.set_xlim(0, 60)
        self.plot.ax.set_ylabel("requests per 10 ms step\n(means over 100 ms)")
        if self.plot.ax_wait is not None:
            self.plot.ax_wait.set_ylim(0, 120_000)
        self.plot.title.set_text("120000 clients over 60 s; capacity 20 per 10 ms step\n"
                                 "20 attempts, decorrelated jitter")
        self.plot.title.set_fontsize(11.5)

    def draw(self, result: FleetResult) -> None:
        self.plot.update(result)


class StormExplorer(FleetExplorer):
    """The retry storm: steady traffic, a 10 s outage, retries that outlive it.

    One more slider than the herd: ``reject_cost``, the share of a request's
    work the server spends turning one away (the storm's key assumption).

    >>> StormExplorer.readout_for(budget="grpc").splitlines()[2]
    'backlog cleared 10 ms after the outage ended; 8 overloaded steps after it'
    """

    title = "retry storm"
    scenario = _Scenario("storm", 100, 1000, 10, (60_000, 6000, 120_000, 6000), storm_fleet)

    @classmethod
    def make_controls(cls) -> dict[str, Any]:
        controls = super().make_controls()
        controls["reject_cost"] = float_slider("reject_cost", 0.2, 0.0, 0.5, 0.05,
                                               continuous_update=False, readout_format=".2f")
        return controls


def fleet_explorer(scenario: str = "herd", **values: Any) -> FleetExplorer:
    """Sliders over a fleet: ``"herd"`` (1000 clients fail together) or ``"storm"``.

    The figure is :func:`fleet_timeline`; the readout is ``result.readout()``
    and why the clients stopped.
    """
    check_choice("scenario", scenario, ("herd", "storm"))
    return (FleetExplorer if scenario == "herd" else StormExplorer)(**values)


@dataclass(frozen=True)
class ContentionRun:
    """All five strategies at one client count, and the one the sliders picked."""

    results: dict[str, ContentionResult]
    strategy: str

    @property
    def picked(self) -> ContentionResult:
        return self.results[self.strategy]


@functools.lru_cache(maxsize=256)
def _contention(clients: int, strategy: str, base: int, cap: int) -> ContentionResult:
    """One strategy's 100 runs, kept: moving the strategy slider recomputes nothing."""
    return contention(clients, strategy, runs=100, seed=0, base=base, cap=cap)


class ContentionExplorer(Explorer):
    """The AWS experiment at one client count: calls and time for each strategy.

    >>> print(ContentionExplorer.readout_for())
    full jitter, 100 clients: 795.1 calls (7.95 per client), 4889 ms (mean of 100 runs)
    vs exponential without jitter: 0.43x the calls, 0.08x the time
    """

    title = "the AWS contention experiment"
    figsize = (9.0, 4.0)
    freeze_layout = True
    prefetch = True

    @classmethod
    def make_controls(cls) -> dict[str, Any]:
        slow: dict[str, Any] = {"continuous_update": False}
        return {
            "strategy": choice_slider("strategy", STRATEGIES, "full", **slow),
            "clients": int_slider("clients", 100, 10, 190, 10, **slow),
            "base": int_slider("base", 5, 1, 100, **slow),
            "cap": int_slider("cap", 2000, 0, 10_000, 10, **slow),
        }

    @classmethod
    def compute(cls, strategy: str, clients: int, base: int, cap: int) -> ContentionRun:
        check_choice("strategy", strategy, STRATEGIES)
        results = {s: _contention(clients, s, base, cap) for s in STRATEGIES}
        return ContentionRun(results, strategy)

    @classmethod
    def readout_text(cls, result: ContentionRun) -> str:
        p, e = result.picked, result.results["exponential"]
        return (f"{p.summary()}\nvs exponential without jitter: {p.calls / e.calls:.2f}x the "
                f"calls, {p.time_ms / e.time_ms:.2f}x the time")

    def setup(self, fig: Figure) -> None:
        self.ax_calls, self.ax_time = fig.subplots(1, 2)
        x = np.arange(len(STRATEGIES))
        colours = [STRATEGY_STYLE[s][0] for s in STRATEGIES]
        self.bars_calls = self.ax_calls.bar(x, np.zeros(len(x)), color=colours,
                                            edgecolor=PALETTE["black"])
        self.bars_time = self.ax_time.bar(x, np.ones(len(x)), color=colours,
                                          edgecolor=PALETTE["black"])
        labels = ["expo-\nnential", "full", "equal", "decorr-\nelated", "no\nbackoff"]
        for ax in (self.ax_calls, self.ax_time):
            ax.set_xticks(x, labels)
        style(self.ax_calls, "", "strategy", "calls (mean of 100 runs)")
        style(self.ax_time, "", "strategy", "time until all done (ms, log)")
        self.ax_time.set_yscale("log")
        self.values_calls = [self.ax_calls.text(i, 0, "", ha="center", va="bottom",
                                                fontsize=9) for i in x]
        self.values_time = [self.ax_time.text(i, 1, "", ha="center", va="bottom",
                                              fontsize=9) for i in x]
        self.heading = fig.suptitle("")
        # lay out for the widest labels: 6-digit calls, 7-digit times
        self.ax_calls.set_ylim(0, 200_000)
        self.ax_time.set_ylim(1, 5_000_000)
        self.ax_calls.set_title("work: 100000 calls (100.0 per client)")
        self.ax_time.set_title("time: 1000000 ms")
        self.heading.set_text("190 clients, base 100 ms, cap 10000 ms: decorrelated jitter "
                              "highlighted")

    def draw(self, result: ContentionRun) -> None:
        calls = [result.results[s].calls for s in STRATEGIES]
        times = [result.results[s].time_ms for s in STRATEGIES]
        for i, s in enumerate(STRATEGIES):
            picked = s == result.strategy
            for bars, texts, v, fmt in ((self.bars_calls, self.values_calls, calls[i], ".0f"),
                                        (self.bars_time, self.values_time, times[i], ".0f")):
                bars[i].set_height(v)
                bars[i].set_alpha(1.0 if picked else 0.45)
                bars[i].set_linewidth(2.5 if picked else 0.8)
                texts[i].set_position((i, v))
                texts[i].set_text(format(v, fmt))
                texts[i].set_fontweight("bold" if picked else "normal")
        self.ax_calls.set_ylim(0, max(calls) * 1.15)
        self.ax_time.set_ylim(min(times) * 0.5, max(times) * 3)
        p = result.picked
        self.ax_calls.set_title(f"work: {p.calls:.0f} calls ({p.calls_per_client:.1f} "
                                "per client)")
        self.ax_time.set_title(f"time: {p.time_ms:.0f} ms")
        self.heading.set_text(f"{p.clients} clients, base {p.base:g} ms, cap {p.cap:g} ms: "
                            f"{STRATEGY_STYLE[result.strategy][3]} highlighted")


def contention_explorer(**values: Any) -> ContentionExplorer:
    """Sliders strategy, clients, base, cap over the AWS experiment (100 runs each)."""
    return ContentionExplorer(**values)

