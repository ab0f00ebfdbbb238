"""The AWS contention experiment drawn: the blog's curves, layered load, the explorer.

- :func:`contention_curves`: the blog's two figures, calls and time against
  the number of clients, one line per strategy;
- :func:`sweep_with_progress`: the full sweep with a progress bar;
- :func:`layered_load`: calls reaching each service of a call chain;
- :func:`contention_explorer` (:class:`ContentionExplorer`): one client count,
  five bars per panel, one row a strategy. It blits (the bars move over x ranges quantized to a
  few levels) and averages :data:`EXPLORER_RUNS` runs per strategy instead of
  the notebook's 100, which keeps the strategies' order (tests/viz/test_fleet_scale.py);
  the readout says so and gives every bar's number.
"""

from __future__ import annotations

import functools
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from textwrap import fill
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import MaxNLocator

from ..core._check import check_choice
from ..i18n import N_, _, grouped, number, percent, pgettext, seconds
from ..sim.contention import STRATEGIES, ContentionResult, contention, sweep_table
from ..sim.layered import expected_layered_load, layered_calls
from .controls import choice, int_slider
from .explorer import Explorer, quantize
from .kit import INK, SMALL_PT, WIDTH_IN, look, new_figure, projecting, style
from .unchanged import no_wait_reaches_cap

__all__ = [
    "EXPLORER_RUNS",
    "STRATEGY_STYLE",
    "ContentionExplorer",
    "ContentionPlot",
    "ContentionRun",
    "contention_curves",
    "contention_explorer",
    "layered_load",
    "sweep_with_progress",
]


def _look(kind: str, name: str) -> tuple[str, str]:
    found = look(kind, name)
    return found.colour, found.marker


#: How each strategy is drawn: (colour, marker, line style, label; the label through ``_``).
STRATEGY_STYLE: dict[str, tuple[str, str, str, str]] = {
    "exponential": (*_look("strategy", "exponential"), "-", N_("exponential, no jitter")),
    "full": (*_look("jitter", "full"), "-", N_("full jitter")),
    "equal": (*_look("jitter", "equal"), "--", N_("equal jitter")),
    "decorrelated": (*_look("jitter", "decorrelated"), "-.", N_("decorrelated jitter")),
    "none": (*_look("strategy", "none"), ":", N_("no backoff")),
}


class ContentionPlot:
    """Two panels like the blog's figures: calls and time against clients, per strategy."""

    def __init__(self, fig: Figure) -> None:
        self.ax_calls, self.ax_time = fig.subplots(1, 2)
        self.lines: dict[str, tuple[Line2D, Line2D]] = {}
        for s in STRATEGIES:
            colour, marker, ls, label = STRATEGY_STYLE[s]
            kw = {
                "color": colour,
                "marker": marker,
                "linestyle": ls,
                "markersize": 4.5,
                "linewidth": 1.8,
                "label": _(label),
            }
            self.lines[s] = (
                self.ax_calls.plot([], [], **kw)[0],
                self.ax_time.plot([], [], **kw)[0],
            )
        style(
            self.ax_calls, _("Work: writes sent (calls)"), _("clients"), _("calls (mean of runs)")
        )
        style(
            self.ax_time,
            _("Time until every client is done"),
            _("clients"),
            _("time (ms, log scale)"),
        )
        self.ax_time.set_yscale("log")
        for ax in (self.ax_calls, self.ax_time):  # two titles side by side in 840 px
            ax.title.set_fontsize(12)
        self.ax_calls.legend(loc="upper left", fontsize=SMALL_PT)
        self.marker = [
            ax.axvline(np.nan, color=INK, linewidth=1, alpha=0.5)
            for ax in (self.ax_calls, self.ax_time)
        ]
        self.marker_text = self.ax_calls.text(
            np.nan, 0, "", rotation=90, ha="right", va="bottom", fontsize=SMALL_PT
        )
        self.title = fig.suptitle("", fontsize=14)

    def update(self, sweep: pd.DataFrame, mark: int | None = None) -> None:
        """Redraw from a sweep table (:func:`~retrylab.sim.contention.contention_sweep`)."""
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
        self.ax_time.set_ylim(
            float(time.to_numpy().min()) * 0.7, float(time.to_numpy().max()) * 1.5
        )
        for line in self.marker:
            line.set_xdata([mark if mark is not None else np.nan] * 2)
        self.marker_text.set_position(
            (mark if mark is not None else np.nan, float(calls.to_numpy().max()) * 0.55)
        )
        self.marker_text.set_text(
            "" if mark is None else _("{clients} clients ").format(clients=mark)
        )
        self.title.set_text(
            _(
                "N clients race to update one row (optimistic concurrency)\n"
                "after Brooker, AWS Architecture Blog 2015"
            )
        )


def contention_curves(sweep: pd.DataFrame, mark: int | None = 100) -> Figure:
    """The blog's figures: calls and completion time against clients, one line per strategy.

    >>> from retrylab.sim.contention import contention_sweep
    >>> fig = contention_curves(contention_sweep([10, 20], runs=5))
    >>> fig.retrylab_plot.lines["full"][0].get_xdata().tolist()
    [10.0, 20.0]
    """
    fig = new_figure((WIDTH_IN, 4.8))
    plot = ContentionPlot(fig)
    plot.update(sweep, mark)
    fig.retrylab_plot = plot  # type: ignore[attr-defined]
    return fig


def sweep_with_progress(
    clients: Sequence[int] | None = None, runs: int = 100, seed: int = 0, **kwargs: Any
) -> pd.DataFrame:
    """:func:`~retrylab.sim.contention.contention_sweep` with an ipywidgets progress bar.

    Use it in a notebook for the full sweep (about a second here, longer on a
    slow machine). The bar is displayed, filled cell by cell, and closed.
    """
    import ipywidgets as widgets
    from IPython.display import display

    from ..sim.contention import BLOG_CLIENTS, contention_sweep

    counts = BLOG_CLIENTS if clients is None else clients
    bar = widgets.IntProgress(
        value=0, min=0, max=len(counts) * len(STRATEGIES), description=_("sweep")
    )
    display(bar)  # type: ignore[no-untyped-call]

    def tick(done: int, total: int) -> None:
        bar.value = done

    try:
        return contention_sweep(counts, runs=runs, seed=seed, progress=tick, **kwargs)
    finally:
        bar.close()


# -- layered retries -------------------------------------------------------------------------


def layered_load(
    layers: int = 3,
    attempts: int | Sequence[int] = 3,
    requests: int = 100,
    failure_rate: float = 1.0,
) -> Figure:
    """Calls reaching each service of a chain when every layer retries (simulated bars).

    The numbers are :func:`~retrylab.sim.layered.layered_calls`' (``fig.retrylab_data``).

    >>> fig = layered_load()
    >>> fig.retrylab_data["per_request"].tolist()
    [3.0, 9.0, 27.0]
    """
    df = layered_calls(layers, attempts, requests, failure_rate)
    fig = new_figure((WIDTH_IN, 4.4))
    ax = fig.add_subplot()
    x = np.arange(len(df))
    colours = [look("mark", "plain").colour] * (len(df) - 1) + [look("mark", "alarm").colour]
    bars = ax.bar(
        x,
        df["per_request"],
        color=colours,
        edgecolor=INK,
        label=_("simulated: calls per user request"),
    )
    for rect, v in zip(bars, df["per_request"], strict=True):
        ax.text(
            rect.get_x() + rect.get_width() / 2,
            v,
            number(_g(float(v))),
            ha="center",
            va="bottom",
            fontsize=12,
            fontweight="bold",
        )
    ax.axhline(
        expected_layered_load(layers, attempts, failure_rate),
        color=INK,
        linestyle="--",
        linewidth=1.2,
        label=_("arithmetic for the bottom service"),
    )
    ax.set_xticks(x, [_(name) for name in df["service"].tolist()])  # the lesson's names
    per = attempts if isinstance(attempts, int) else "/".join(str(a) for a in attempts)
    style(
        ax,
        _(
            "{layers} layers x {per} attempts, bottom failing {rate}: {calls} calls per request"
        ).format(
            layers=layers,
            per=per,
            rate=percent(failure_rate * 100),
            calls=number(_g(float(df["per_request"].iloc[-1]))),
        ),
        _("service (top to bottom)"),
        _("calls per user request"),
    )
    ax.set_ylim(0, float(df["per_request"].max()) * 1.2)
    ax.legend(loc="upper left", fontsize=SMALL_PT)
    fig.retrylab_data = df  # type: ignore[attr-defined]
    return fig


def _g(value: float) -> float | int:
    """``value`` as ``:g`` writes it: an int when it is whole (27.0 -> 27)."""
    return int(value) if value == int(value) else value


# -- the explorer ------------------------------------------------------------------------------

#: Runs per strategy the explorer averages (the notebook's sweep: 100). 20 keep the
#: order of the strategies by calls and by time (tests/viz/test_fleet_scale.py).
EXPLORER_RUNS = 20

#: The calls panel's x ranges (one saved background each).
CALL_LEVELS: tuple[int, ...] = (
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
    500_000,
)
#: The time panel's range (log scale), fixed: every setting the sliders allow fits in it.
TIME_RANGE_MS: tuple[float, float] = (100.0, 1e7)


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
    """One strategy's runs, kept: moving the strategy slider recomputes nothing."""
    return contention(clients, strategy, runs=EXPLORER_RUNS, seed=0, base=base, cap=cap)


#: How many characters a line of the explorer's title holds with the projector switch on.
HEADING_WRAP = 48


class ContentionExplorer(Explorer):
    """The AWS experiment at one client count: calls and time for each strategy.

    >>> print(ContentionExplorer.readout_for())  # doctest: +NORMALIZE_WHITESPACE
    full jitter, 100 clients: 797.0 calls (7.97 per client), 5032 ms (mean of 20 runs)
    vs exponential without jitter: 0.43× the calls, 0.08× the time
    """

    title = N_("the AWS contention experiment")
    figsize = (WIDTH_IN, 4.0)
    #: the gap between a bar of calls and its number (set with the calls' range)
    _pad = 0.0
    #: The strategies' names on the left, one a row, each beside its two bars.
    margins: ClassVar[Mapping[str, float]] = {
        "left": 0.17,
        "right": 0.97,
        "top": 0.87,
        "bottom": 0.17,
        "wspace": 0.2,
    }
    #: With the projector's 18 px text: the title in two lines, wider names.
    projector_margins: ClassVar[Mapping[str, float]] = {
        "left": 0.215,
        "right": 0.96,
        "top": 0.73,
        "bottom": 0.17,
        "wspace": 0.2,
    }

    @classmethod
    def make_controls(cls) -> dict[str, Any]:
        return {
            "strategy": choice("strategy", STRATEGIES, "full"),
            "clients": int_slider("clients", 100, 10, 190, 10),
            "base": int_slider("base", 5, 1, 100),
            "cap": int_slider("cap", 2000, 0, 10_000, 10),
        }

    @classmethod
    def compute(cls, strategy: str, clients: int, base: int, cap: int) -> ContentionRun:
        check_choice("strategy", strategy, STRATEGIES)
        results = {s: _contention(clients, s, base, cap) for s in STRATEGIES}
        return ContentionRun(results, strategy)

    @classmethod
    def readout_text(cls, result: ContentionRun) -> str:
        p, e = result.picked, result.results["exponential"]
        # two lines: the picked strategy against the plain exponential; the bars show all
        lines = [
            p.summary(),
            _("vs exponential without jitter: {calls}× the calls, {time}× the time").format(
                calls=number(p.calls / e.calls, 2), time=number(p.time_ms / e.time_ms, 2)
            ),
        ]
        return "\n".join(lines)

    def setup(self, fig: Figure) -> list[Any]:
        # horizontal bars: each strategy's name on a row of its own, left of its two bars
        # (names under upright bars met their neighbours, "eşit geri çekilmesiz")
        self.ax_calls, self.ax_time = fig.subplots(1, 2, sharey=True)
        y = np.arange(len(STRATEGIES))
        colours = [STRATEGY_STYLE[s][0] for s in STRATEGIES]
        self.bars_calls = self.ax_calls.barh(y, np.zeros(len(y)), color=colours, edgecolor=INK)
        self.bars_time = self.ax_time.barh(y, np.ones(len(y)), color=colours, edgecolor=INK)
        labels = [
            _("expo-\nnential"),
            _("full"),
            _("equal"),
            _("decor-\nrelated"),
            pgettext("tick", "no\nbackoff"),
        ]  # the catalogue's tick names, in two lines for an upright bar: here in one
        names = [label.replace("-\n", "").replace("\n", " ") for label in labels]
        heading = _("N clients race to update one row: the strategy picked is outlined")
        calls = _("calls (mean of {runs} runs)").format(runs=EXPLORER_RUNS)
        large = projecting()  # the projector switch, read once for the whole layout
        if large:  # 18 px text: shorter titles
            heading = fill(heading, HEADING_WRAP)
            calls = _("calls")  # the mean of the runs is in the readout
        self.ax_calls.set_yticks(y, names)
        self.ax_calls.invert_yaxis()  # the first strategy on top (shared with the time panel)
        self.ax_time.tick_params(labelleft=False)
        style(self.ax_calls, _("work: calls sent"), calls, None)
        style(self.ax_time, _("time until all are done"), _("time (ms, log)"), None)
        for ax in (self.ax_calls, self.ax_time):
            ax.grid(False, axis="y")  # no line through the bars
            ax.title.set_fontsize(12)  # the panels' titles as large as the axis labels
        self.ax_calls.xaxis.set_major_locator(MaxNLocator(3 if large else 4))
        self.ax_time.set_xscale("log")
        self.ax_time.set_xlim(*TIME_RANGE_MS)
        # each bar of calls has its number at its end (the picked one's in bold), and the
        # picked strategy's time has its own (a log axis is read badly): six texts, drawn
        # on every redraw, so ten would cost about 5 ms a step
        self.values_calls = [
            self.ax_calls.text(0, yi, "", ha="left", va="center", fontsize=12) for yi in y
        ]
        self.value_time = self.ax_time.text(
            0, 0, "", ha="left", va="center", fontsize=12, fontweight="bold"
        )
        fig.suptitle(heading, fontsize=14)
        return [*self.bars_calls, *self.bars_time, *self.values_calls, self.value_time]

    def level(self, result: ContentionRun) -> Hashable:
        # room right of the longest bar for its number
        return quantize(max(r.calls for r in result.results.values()) * 1.3, CALL_LEVELS)

    def apply_level(self, level: int) -> None:
        self.ax_calls.set_xlim(0, level)
        self._pad = level * 0.015  # the gap between a bar and its number

    def draw(self, result: ContentionRun) -> None:
        for i, s in enumerate(STRATEGIES):
            picked = s == result.strategy
            for bars, v in (
                (self.bars_calls, result.results[s].calls),
                (self.bars_time, result.results[s].time_ms),
            ):
                bars[i].set_width(v)
                bars[i].set_alpha(1.0 if picked else 0.45)
                bars[i].set_linewidth(2.5 if picked else 0.8)
            calls = result.results[s].calls
            text = self.values_calls[i]
            text.set_position((calls + self._pad, i))
            text.set_text(grouped(round(calls)))
            text.set_fontweight("bold" if picked else "normal")
        picked_time = result.picked.time_ms
        self.value_time.set_position((picked_time * 1.15, STRATEGIES.index(result.strategy)))
        self.value_time.set_text(
            _("{seconds} s").format(seconds=seconds(round(picked_time / 1000, 1)))
        )

    def unchanged_reason(
        self, moved: str, old: Any, values: Mapping[str, Any], result: ContentionRun
    ) -> str:
        """A cap no wait of the runs reaches."""
        return no_wait_reaches_cap(values["cap"]) if moved == "cap" else ""


def contention_explorer(**values: Any) -> ContentionExplorer:
    """Sliders strategy, clients, base, cap over the AWS experiment (20 runs each)."""
    return ContentionExplorer(**values)
