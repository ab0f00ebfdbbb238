"""The lessons' figures: wait schedules, one client's waits, the herd, the breaker's states,
the retry loop's waits and the lab's writes.

Use these in notebooks (``display(fig)``) and in explorers: each public function
returns a new :class:`~matplotlib.figure.Figure` on its own Agg canvas, never
registered with pyplot, so nothing leaks into a cell's output or memory. Each
figure has a ``*Plot`` class behind it that draws once and then updates its
artists in place, which is what the slider explorers in :mod:`retrylab.widgets`
reuse. Colours are Okabe-Ito (:data:`retrylab.figure.PALETTE`); every series also
differs by marker or line style, so the figures survive grey-scale printing.

>>> fig = herd_histogram()
>>> [p.get_data().values.tolist() for p in fig.retrylab_plot.steps]
[[0.0, 0.0, 0.0, 0.0, 24.0, 0.0], [6.0, 5.0, 7.0, 6.0, 0.0, 0.0]]
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Circle, FancyArrowPatch, Patch
from matplotlib.text import Text

from ._check import check_int, check_number
from .backoff import Backoff
from .breaker import CircuitBreaker, State, TraceRow, replay
from .figure import PALETTE, STATE_COLOURS, new_figure, style
from .herd import bucket_counts, wakeups
from .lesson import BREAKER_EVENTS, SEED
from .rng import Mulberry32

__all__ = [
    "BreakerPlot",
    "HerdData",
    "HerdPlot",
    "Schedule",
    "SchedulePlot",
    "WaitBarsPlot",
    "breaker_diagram",
    "breaker_timeline",
    "herd_data",
    "herd_histogram",
    "jitter_range",
    "lesson_backoffs",
    "retry_after_bars",
    "schedule_data",
    "timeline_segments",
    "wait_bars",
    "wait_histogram",
    "wait_schedule",
    "waits_table",
    "write_bars",
]

MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
LINESTYLES = ("-", "--", "-.", ":")
MAX_BUCKETS = 20_000  # a herd histogram wider than this is unreadable anyway


# -- wait schedules ---------------------------------------------------------------


def lesson_backoffs() -> dict[str, Backoff]:
    """The strategies the two lessons compare, all starting at 200 ms.

    Fixed and incremental are the mobile lesson's (2, 2, 2 s and 1, 2, 3 s in
    its words); the rest are the web lesson's table columns, in its order, so
    that full jitter and decorrelated jitter draw in turn from one generator.

    >>> {k: b.ceiling(5) for k, b in lesson_backoffs().items()}
    ... # doctest: +NORMALIZE_WHITESPACE
    {'fixed': 200, 'linear': 1200, 'exponential': 6400, 'capped': 5000,
     'full jitter': 5000, 'decorrelated': 5000}
    """
    return {
        "fixed": Backoff(200, 1, 5000, growth="constant"),
        "linear": Backoff(200, 1, 5000, growth="linear"),
        "exponential": Backoff(200, 2, None),
        "capped": Backoff(200, 2, 5000),
        "full jitter": Backoff(200, 2, 5000, jitter="full"),
        "decorrelated": Backoff(200, 2, 5000, jitter="decorrelated"),
    }


def waits_table(backoffs: Mapping[str, Backoff] | None = None, retries: int = 6,
                seed: int = SEED, *, shared: bool = True) -> pd.DataFrame:
    """The waits (ms) before retries 1..``retries`` for each strategy, one column each.

    ``shared=True`` (the lesson's way) draws from one ``Mulberry32(seed)`` row by
    row, strategies in turn in mapping order (un-jittered ones draw nothing);
    ``shared=False`` gives each strategy its own generator from ``seed``.

    >>> waits_table()[["full jitter", "decorrelated"]].T.values.tolist()
    [[70, 296, 780, 303, 480, 957], [384, 1034, 2121, 1933, 3986, 5000]]
    >>> waits_table(shared=False)["full jitter"].tolist()
    [70, 184, 592, 1402, 3120, 3309]
    """
    backoffs = lesson_backoffs() if backoffs is None else backoffs
    retries = check_int("retries", retries, low=1, high=1000)
    if shared:
        rng = Mulberry32(seed)
        its = {name: b.waits(rng) for name, b in backoffs.items()}
    else:
        its = {name: b.waits(Mulberry32(seed)) for name, b in backoffs.items()}
    rows = [[next(it) for it in its.values()] for _ in range(retries)]
    if rows and max(max(row) for row in rows) > 2**62:
        raise ValueError(f"retries={retries} is out of range: a wait without a cap "
                         "exceeds 2**62 ms; use fewer retries or a cap")
    frame = pd.DataFrame(rows, columns=list(its), index=pd.RangeIndex(1, retries + 1,
                                                                      name="retry"))
    return frame.astype("int64")


class SchedulePlot:
    """One line per strategy (wait in ms against retry number) and the cap as a line."""

    def __init__(self, fig: Figure, names: Sequence[str], title: str) -> None:
        self.ax = fig.add_subplot()
        style(self.ax, title, "retry number", "wait before the retry (ms)")
        self.lines: dict[str, Line2D] = {}
        for i, name in enumerate(names):
            (line,) = self.ax.plot([], [], marker=MARKERS[i % len(MARKERS)],
                                   linestyle=LINESTYLES[i % len(LINESTYLES)], linewidth=2,
                                   markersize=7, label=name)
            self.lines[name] = line
        self.cap_line = self.ax.axhline(0, color=PALETTE["black"], linestyle=(0, (6, 3)),
                                        linewidth=1.5, label="cap")
        self.ax.legend(loc="upper left", ncols=2, frameon=False)

    def update(self, table: pd.DataFrame, caps: Sequence[int]) -> None:
        """Show ``table`` (rows = retries) and a line at the largest cap (if any)."""
        x = table.index.to_numpy()
        for name, line in self.lines.items():
            line.set_data(x, table[name].to_numpy())
        top = float(table.to_numpy().max()) if table.size else 1.0
        if caps:
            cap = max(caps)
            self.cap_line.set_ydata([cap, cap])
            self.cap_line.set_label(f"cap {cap} ms")
            self.cap_line.set_visible(True)
            top = max(top, cap)
        else:
            self.cap_line.set_visible(False)
        self.ax.set_xlim(0.5, len(x) + 0.5)
        self.ax.set_xticks(x)
        self.ax.set_ylim(0, top * 1.12 + 1)
        self.ax.legend(loc="upper left", ncols=2, frameon=False)


def wait_schedule(backoffs: Mapping[str, Backoff] | None = None, retries: int = 6,
                  seed: int = SEED, *, shared: bool = True,
                  title: str | None = None) -> Figure:
    """The waits before each retry, one line per strategy, the cap dashed.

    Use it to compare fixed, linear, exponential, capped and jittered waits
    (default: :func:`lesson_backoffs`, the lesson's seed, shared generator).

    >>> fig = wait_schedule()
    >>> line = fig.retrylab_plot.lines["capped"]
    >>> line.get_ydata().tolist(), fig.retrylab_plot.cap_line.get_label()
    ([200, 400, 800, 1600, 3200, 5000], 'cap 5000 ms')
    """
    backoffs = lesson_backoffs() if backoffs is None else backoffs
    table = waits_table(backoffs, retries, seed, shared=shared)
    fig = new_figure((8.0, 4.8))
    title = title or (f"How long each strategy waits before each retry\n"
                      f"(base 200 ms, factor 2, seed {seed})")
    plot = SchedulePlot(fig, list(backoffs), title)
    plot.update(table, [b.cap for b in backoffs.values() if b.cap is not None])
    fig.retrylab_plot = plot  # type: ignore[attr-defined]
    return fig


# -- one client's waits ------------------------------------------------------------

#: The largest draw a generator in [0, 1) gives, so the top of a jitter range is reachable.
_TOP_DRAW = math.nextafter(1.0, 0.0)


def jitter_range(backoff: Backoff, n: int, prev: int | None = None) -> tuple[int, int]:
    """The shortest and longest wait before retry ``n`` that jitter can give.

    Use it to shade where a jittered wait may land. It is the backoff's own
    :meth:`~retrylab.backoff.Backoff.next_wait` at the smallest and largest
    draw (every jitter grows with the draw); ``prev`` is the previous wait,
    which only decorrelated jitter uses.

    >>> b = Backoff(1000, 2, None, jitter="proportional")
    >>> jitter_range(b, 2)                   # 0.5 to 1.5 times the 4000 ms ceiling
    (2000, 6000)
    >>> jitter_range(Backoff(200, 2, 5000, jitter="full"), 2)
    (0, 800)
    """
    return backoff.next_wait(n, 0.0, prev), backoff.next_wait(n, _TOP_DRAW, prev)


@dataclass(frozen=True)
class Schedule:
    """One backoff's waits for one generator, the ceilings, and where jitter can put each wait."""

    backoff: Backoff
    seed: int
    waits: tuple[int, ...]
    ceilings: tuple[int, ...]
    low: tuple[int, ...]
    high: tuple[int, ...]


def schedule_data(backoff: Backoff | None = None, retries: int = 6,
                  seed: int = SEED) -> Schedule:
    """The waits before retries 1..``retries`` from ``Mulberry32(seed)``, with their ranges.

    Use it for the numbers behind :func:`wait_bars`. Default: the lesson's
    backoff, base 200 ms x 2, cap 5000 ms, full jitter.

    >>> s = schedule_data(retries=3)
    >>> s.waits, s.ceilings, s.low, s.high
    ((70, 184, 592), (200, 400, 800), (0, 0, 0), (200, 400, 800))
    """
    b = Backoff(200, 2, 5000, jitter="full") if backoff is None else backoff
    retries = check_int("retries", retries, low=1, high=1000)
    waits = tuple(itertools.islice(b.waits(Mulberry32(seed)), retries))
    ranges = [jitter_range(b, n, None if n == 0 else waits[n - 1]) for n in range(retries)]
    return Schedule(b, seed, waits, tuple(b.ceiling(n) for n in range(retries)),
                    tuple(lo for lo, _ in ranges), tuple(hi for _, hi in ranges))


#: The ceiling's formula for each growth, for the legend.
CEILING_LABELS = {"exponential": "ceiling: min(cap, base x factor^n)",
                  "linear": "ceiling: min(cap, base + step x n)",
                  "constant": "ceiling: base"}


class WaitBarsPlot:
    """One client's waits as bars, the jitter range shaded, the ceilings outlined, the cap dashed.

    Made once for up to ``slots`` retries, then :meth:`update` moves the
    artists in place (what :class:`~retrylab.widgets.BackoffExplorer` redraws).
    """

    def __init__(self, fig: Figure, slots: int = 12) -> None:
        self.slots = check_int("slots", slots, low=1, high=100)
        self.ax = fig.add_subplot()
        style(self.ax, None, "retry number", "wait before the retry (ms)")
        x = np.arange(1, slots + 1)
        zeros = np.zeros(slots)
        self.bands = self.ax.bar(x, zeros, width=0.85, color=PALETTE["sky"], alpha=0.35,
                                 label="jitter range")
        self.bars = self.ax.bar(x, zeros, width=0.6, color=PALETTE["blue"],
                                label=f"actual wait (seed {SEED})")
        self.ceilings = self.ax.bar(x, zeros, width=0.6, fill=False,
                                    edgecolor=PALETTE["orange"], linestyle="--",
                                    linewidth=2, label=CEILING_LABELS["exponential"])
        self.cap_line = self.ax.axhline(0, color=PALETTE["black"], linestyle=(0, (6, 3)),
                                        linewidth=1.5, label="cap")
        self.labels = [self.ax.text(i, 0, "", ha="center", va="bottom", fontsize=10)
                       for i in range(1, slots + 1)]
        self._legend()

    def update(self, data: Schedule) -> None:
        """Show ``data`` (at most ``slots`` retries): heights, ranges, cap, limits, title."""
        n = len(data.waits)
        if n > self.slots:
            raise ValueError(f"retries={n} is out of range: this figure shows at most "
                             f"{self.slots}")
        parts = zip(self.bands, self.bars, self.ceilings, self.labels, strict=True)
        for i, (band, bar, top, label) in enumerate(parts):
            shown = i < n
            for artist in (band, bar, top, label):
                artist.set_visible(shown)
            if shown:
                band.set_y(data.low[i])
                band.set_height(data.high[i] - data.low[i])
                bar.set_height(data.waits[i])
                top.set_height(data.ceilings[i])
                label.set_position((i + 1, data.waits[i]))
                label.set_text(str(data.waits[i]))
        self.bars.set_label(f"actual wait (seed {data.seed})")
        self.ceilings.set_label(CEILING_LABELS[data.backoff.growth])
        cap = data.backoff.cap
        self.cap_line.set_visible(cap is not None)
        if cap is not None:
            self.cap_line.set_ydata([cap, cap])
            self.cap_line.set_label(f"cap {cap} ms")
        top_ms = max(max(data.high), max(data.waits), max(data.ceilings), cap or 0)
        self.ax.set_xlim(0.4, n + 0.6)
        self.ax.set_xticks(np.arange(1, n + 1))
        self.ax.set_ylim(0, top_ms * 1.1 + 1)
        self.ax.set_title(f"{data.backoff.describe()}\n"
                          f"total wait over {n} retries: {sum(data.waits)} ms")
        self._legend()

    def _legend(self) -> None:
        handles: list[Any] = [self.bars, self.bands, self.ceilings]
        if self.cap_line.get_visible():
            handles.append(self.cap_line)
        self.ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.16),
                       ncols=2, frameon=False, fontsize=10.5)


def wait_bars(backoff: Backoff | None = None, retries: int = 6, seed: int = SEED) -> Figure:
    """One client's waits before each retry as bars, with the jitter range and the ceilings.

    Use it to show what one backoff does for one client: the bar is the wait
    drawn from ``Mulberry32(seed)``, the shaded band where jitter could have put
    it, the dashed outline the ceiling it is drawn under, the dashed line the cap.

    >>> fig = wait_bars(Backoff(1000, 2, None, jitter="proportional"), retries=4)
    >>> [b.get_height() for b in fig.retrylab_plot.bars if b.get_visible()]
    [850, 1918, 4958, 11012]
    >>> [(b.get_y(), b.get_y() + b.get_height()) for b in fig.retrylab_plot.bands][2]
    (2000, 6000)
    """
    data = schedule_data(backoff, retries, seed)
    fig = new_figure((8.0, 4.8))
    plot = WaitBarsPlot(fig, slots=len(data.waits))
    plot.update(data)
    fig.retrylab_plot = plot  # type: ignore[attr-defined]
    return fig


# -- the retry loop's waits --------------------------------------------------------


def _whole_ms(name: str, values: npt.ArrayLike) -> list[int]:
    items = np.asarray(values).tolist()
    if not isinstance(items, list):
        raise ValueError(f"{name}={values!r} is out of range: {name} must be a list of "
                         "waits in ms")
    return [check_int(f"{name}[{i}]", v, low=0) for i, v in enumerate(items)]


def retry_after_bars(backoff_waits: npt.ArrayLike, retry_after_ms: int = 2000) -> Figure:
    """Each retry's backoff draw as a bar, the server's Retry-After as a line, the wait as a dot.

    Use it beside the table of waits to show ``wait = max(backoff, Retry-After)``:
    the server's number raises a short wait and never shortens a long one.

    >>> fig = retry_after_bars([70, 184, 592, 1402, 3120, 3309], 2000)
    >>> waited = fig.axes[0].lines[-1]
    >>> waited.get_label(), waited.get_ydata().tolist()
    ('the loop waits', [2000, 2000, 2000, 2000, 3120, 3309])
    """
    draws = _whole_ms("backoff_waits", backoff_waits)
    if not draws:
        raise ValueError("backoff_waits=[] is out of range: backoff_waits must hold "
                         "at least one wait")
    suggested = check_int("retry_after_ms", retry_after_ms, low=0)
    x = np.arange(1, len(draws) + 1)
    fig = new_figure((7.0, 3.6))
    ax = style(fig.add_subplot(), "The loop waits max(backoff, Retry-After)",
               "retry", "wait (ms)")
    ax.bar(x, draws, 0.5, color=PALETTE["sky"], label="backoff draw")
    ax.axhline(suggested, color=PALETTE["vermillion"], linestyle="--",
               label=f"Retry-After: {suggested / 1000:g} ({suggested} ms)")
    ax.plot(x, [max(d, suggested) for d in draws], "o", color=PALETTE["black"],
            label="the loop waits")
    ax.set_xticks(x)
    ax.legend(loc="upper left")
    return fig


def wait_histogram(waits: npt.ArrayLike, width: int = 50, *,
                   title: str = "Waits before retries") -> Figure:
    """How many waits fell in each ``width``-ms bucket, as bars (e.g. ``RetryMetrics.waits``).

    Use it to show a policy's wait distribution over many runs, beside the
    table of :meth:`~retrylab.metrics.RetryMetrics.wait_histogram`.

    >>> fig = wait_histogram([70, 296, 780, 303, 480, 957], 200)
    >>> [int(bar.get_height()) for bar in fig.axes[0].patches]
    [1, 2, 1, 1, 1]
    >>> fig.axes[0].get_legend().get_texts()[0].get_text()
    '6 waits'
    """
    width = check_int("width", width, low=1, high=86_400_000)
    counts = bucket_counts(_whole_ms("waits", waits), width)
    fig = new_figure((7.0, 3.4))
    ax = style(fig.add_subplot(), title, f"wait (ms, {width} ms buckets)", "number of waits")
    ax.bar(counts.index.to_numpy() + width / 2, counts.to_numpy(), width=width * 0.9,
           color=PALETTE["blue"], label=f"{int(counts.sum())} waits")
    ax.legend()
    return fig


# -- the lab's writes ---------------------------------------------------------------

#: The two counts :func:`write_bars` draws: (row, colour, hatch, label).
WRITE_BARS: tuple[tuple[str, str, str, str], ...] = (
    ("duplicates", "vermillion", "", "duplicate records"),
    ("unacknowledged", "orange", "//", "stored, client thinks it failed"),
)


def write_bars(counts: pd.DataFrame, drop_rate: float) -> Figure:
    """Duplicates and unacknowledged writes per client, side by side, counts on the bars.

    Use it beside the table of ``WriteReport.series()`` columns (one per client,
    rows ``writes``, ``duplicates``, ``unacknowledged``, ...) that
    :func:`~retrylab.lab.write_experiment` made with ``drop_rate``.

    >>> counts = pd.DataFrame({"key": [1000, 0, 2], "unsafe": [1000, 249, 2],
    ...                        "lesson": [1000, 0, 203]},
    ...                       index=["writes", "duplicates", "unacknowledged"])
    >>> fig = write_bars(counts, 0.2)
    >>> fig.axes[0].get_title()
    '1,000 writes, 20% of answers lost after storing'
    >>> [t.get_text() for t in fig.axes[0].texts]
    ['0', '249', '0', '2', '2', '203']
    """
    rate = check_number("drop_rate", drop_rate, low=0, high=1)
    need = ["writes"] + [row for row, *_ in WRITE_BARS]
    missing = [row for row in need if row not in counts.index]
    if missing or counts.empty:
        raise ValueError(f"counts={list(counts.index)!r} is out of range: counts must have "
                         f"rows {', '.join(need)} and a column per client "
                         "(WriteReport.series())")
    writes = int(counts.loc["writes"].max())
    fig = new_figure((7.5, 3.8))
    ax = style(fig.add_subplot(), f"{writes:,} writes, {rate:.0%} of answers lost after "
               "storing", "client", f"count (of {writes:,} writes)")
    x = np.arange(len(counts.columns))
    for shift, (row, colour, hatch, label) in zip((-0.2, 0.2), WRITE_BARS, strict=True):
        bars = ax.bar(x + shift, counts.loc[row].to_numpy(), 0.4, color=PALETTE[colour],
                      hatch=hatch, edgecolor=PALETTE["black"], linewidth=0.6, label=label)
        ax.bar_label(bars)
    ax.set_xticks(x, [str(c) for c in counts.columns])
    top = max(int(counts.loc[row].max()) for row, *_ in WRITE_BARS)
    ax.set_ylim(0, max(top, 1) * 1.2)
    ax.legend()
    return fig


# -- the herd ---------------------------------------------------------------------


@dataclass(frozen=True)
class HerdData:
    """Wake-up counts per bucket without and with jitter, and their peaks."""

    backoff: Backoff
    clients: int
    attempt: int
    width: int
    plain: pd.Series
    jittered: pd.Series

    @property
    def peak_plain(self) -> int:
        """Most clients in one bucket without jitter."""
        return int(self.plain.max()) if len(self.plain) else 0

    @property
    def peak_jittered(self) -> int:
        """Most clients in one bucket with the backoff's jitter."""
        return int(self.jittered.max()) if len(self.jittered) else 0

    @property
    def ratio(self) -> float:
        """peak with jitter / peak without (24 -> 7 is 0.29)."""
        return self.peak_jittered / self.peak_plain if self.peak_plain else float("nan")

    def summary(self) -> str:
        """One line: ``peak 24 -> 7 clients per 200 ms (0.29x)``."""
        return (f"peak {self.peak_plain} -> {self.peak_jittered} clients per "
                f"{self.width} ms ({self.ratio:.2f}x)")


def herd_data(backoff: Backoff | None = None, clients: int = 24, attempt: int = 3,
              seed: int = SEED, width: int = 200) -> HerdData:
    """Bucket the wake-ups of ``clients`` that failed together, without and with jitter.

    "Without" is the same backoff with ``jitter="none"``; "with" draws one
    ``Mulberry32(seed)`` value per client, as the lesson does.

    >>> herd_data().summary()
    'peak 24 -> 7 clients per 200 ms (0.29x)'
    >>> herd_data(width=400).summary()
    'peak 24 -> 13 clients per 400 ms (0.54x)'
    """
    backoff = Backoff(200, 2, 5000, jitter="full") if backoff is None else backoff
    width = check_int("width", width, low=1, high=86_400_000)
    plain = wakeups(dataclasses.replace(backoff, jitter="none"), clients, attempt)
    jittered = wakeups(backoff, clients, attempt, Mulberry32(seed))
    return HerdData(backoff, int(clients), int(attempt), width,
                    bucket_counts(plain, width), bucket_counts(jittered, width))


def _dense(counts: pd.Series, width: int, n: int) -> npt.NDArray[np.float64]:
    values = np.zeros(n, dtype=np.float64)
    idx = counts.index.to_numpy(dtype=np.int64) // width
    values[idx] = counts.to_numpy(dtype=np.float64)
    return values


class HerdPlot:
    """Two histograms side by side (no jitter, with jitter), shared y, peaks marked."""

    def __init__(self, fig: Figure) -> None:
        self.axes: tuple[Axes, Axes] = tuple(fig.subplots(1, 2, sharey=True))
        colours = (PALETTE["vermillion"], PALETTE["blue"])
        self.steps = []
        self.peaks: list[Text] = []
        self.peak_lines: list[Line2D] = []
        for ax, colour in zip(self.axes, colours, strict=True):
            steps = ax.stairs([0.0], [0.0, 1.0], fill=True, color=colour, alpha=0.85,
                              label="clients waking in the bucket")
            self.steps.append(steps)
            self.peak_lines.append(ax.axhline(0, color=PALETTE["black"], linestyle="--",
                                              linewidth=1.2, label="peak"))
            self.peaks.append(ax.text(0, 0, "", ha="center", va="bottom", fontsize=12,
                                      fontweight="bold"))
        style(self.axes[0], "", "wake-up time after the failure (ms)", "clients per bucket")
        style(self.axes[1], "", "wake-up time after the failure (ms)")
        self.axes[1].legend(loc="upper right", frameon=False)
        self.title = fig.suptitle("")

    def update(self, data: HerdData) -> None:
        """Redraw for ``data``: heights, peaks, limits and titles."""
        w = data.width
        top_ms = max([int(s.index.max()) for s in (data.plain, data.jittered) if len(s)],
                     default=0)
        n = top_ms // w + 2
        if n > MAX_BUCKETS:
            raise ValueError(f"width={w} is out of range: {n} buckets of {w} ms; "
                             f"width must be >= {top_ms // MAX_BUCKETS + 1} here")
        edges = np.arange(n + 1, dtype=np.float64) * w
        peak_all = max(data.peak_plain, data.peak_jittered, 1)
        jitter = data.backoff.jitter
        names = ("no jitter", "jitter 'none' (the same)" if jitter == "none"
                 else f"{jitter} jitter")
        for i, counts in enumerate((data.plain, data.jittered)):
            values = _dense(counts, w, n)
            self.steps[i].set_data(values, edges)
            peak = int(values.max())
            at = float(edges[int(values.argmax())]) + w / 2
            self.peak_lines[i].set_ydata([peak, peak])
            self.peaks[i].set_position((at, peak + peak_all * 0.02))
            self.peaks[i].set_text(f"peak {peak}")
            ax = self.axes[i]
            ax.set_xlim(0, float(edges[-1]))
            ax.set_title(f"{names[i]}: peak {peak} per {w} ms")
        self.axes[0].set_ylim(0, peak_all * 1.15)
        self.title.set_text(
            f"{data.clients} clients failed together: when they wake for retry "
            f"{data.attempt}\n{data.summary()}")


def herd_histogram(backoff: Backoff | None = None, clients: int = 24, attempt: int = 3,
                   seed: int = SEED, width: int = 200) -> Figure:
    """Wake-up histograms of a herd without and with jitter, the peaks marked.

    Use it to show what jitter does to the load a recovering server sees. The
    default reproduces the lesson: 24 clients at 800 ms, and 6, 5, 7, 6.

    >>> fig = herd_histogram()
    >>> [t.get_text() for t in fig.retrylab_plot.peaks]
    ['peak 24', 'peak 7']
    """
    data = herd_data(backoff, clients, attempt, seed, width)
    fig = new_figure((9.0, 4.4))
    plot = HerdPlot(fig)
    plot.update(data)
    fig.retrylab_plot = plot  # type: ignore[attr-defined]
    return fig


# -- the breaker ------------------------------------------------------------------

NODE_XY: dict[State, tuple[float, float]] = {
    State.CLOSED: (0.0, 0.0), State.OPEN: (4.6, 0.0), State.HALF_OPEN: (2.3, 2.9)}
NODE_TEXT = {State.CLOSED: "CLOSED\nrequests pass", State.OPEN: "OPEN\nnothing sent",
             State.HALF_OPEN: "HALF-OPEN\none trial"}
#: The arrows: (source, target, curvature, generic label, label offset).
ARROWS: tuple[tuple[State, State, float, str, tuple[float, float]], ...] = (
    (State.CLOSED, State.OPEN, 0.0, "threshold failures in a row", (0.0, -0.35)),
    (State.OPEN, State.HALF_OPEN, 0.25, "cooldown over", (1.0, 0.15)),
    (State.HALF_OPEN, State.OPEN, 0.25, "trial failed", (-0.55, -0.35)),
    (State.HALF_OPEN, State.CLOSED, 0.25, "trial succeeded", (-0.8, 0.15)),
)
RADIUS = 0.78


def _times(n: int) -> str:
    return f"{n} time" if n == 1 else f"{n} times"


def arrow_labels(counts: Mapping[tuple[State, State], int] | None = None,
                 threshold: int | None = None,
                 cooldown: int | None = None) -> dict[tuple[State, State], str]:
    """The text on each arrow of the state diagram, with counts if given.

    >>> cb = CircuitBreaker(3, 5000)
    >>> rows = replay(BREAKER_EVENTS, cb)
    >>> arrow_labels(cb.transition_counts(), 3, 5000)[(State.OPEN, State.HALF_OPEN)]
    'cooldown of\\n5000 ms over\\n(2 times)'
    """
    labels: dict[tuple[State, State], str] = {}
    for source, target, _, text, _ in ARROWS:
        if source is State.CLOSED and threshold is not None:
            text = f"{threshold} failures in a row"
        if source is State.OPEN and cooldown is not None:
            text = f"cooldown of\n{cooldown} ms over"
        if counts is not None:
            text += f"\n({_times(int(counts.get((source, target), 0)))})"
        labels[(source, target)] = text
    return labels


def draw_breaker_diagram(ax: Axes, counts: Mapping[tuple[State, State], int] | None = None,
                         current: State = State.CLOSED, *, threshold: int | None = None,
                         cooldown: int | None = None) -> dict[tuple[State, State], Text]:
    """Draw the three states and their arrows on ``ax``; returns the arrow labels."""
    current = State(current)
    nodes: dict[State, Circle] = {}
    for state, (x, y) in NODE_XY.items():
        now = state is current
        circle = Circle((x, y), RADIUS, facecolor=STATE_COLOURS[state.value],
                        alpha=1.0 if now else 0.35, edgecolor=PALETTE["black"],
                        linewidth=4 if now else 1.2, zorder=3)
        ax.add_patch(circle)
        nodes[state] = circle
        ax.text(x, y, NODE_TEXT[state], ha="center", va="center", fontsize=10.5, zorder=4)
        if now:
            above = state is State.HALF_OPEN  # below it, the arrows cross
            ax.text(x, y + RADIUS + 0.1 if above else y - RADIUS - 0.1, "current state",
                    ha="center", va="bottom" if above else "top", fontsize=11,
                    fontweight="bold", zorder=4)
    labels = arrow_labels(counts, threshold, cooldown)
    texts: dict[tuple[State, State], Text] = {}
    for source, target, rad, _, (ox, oy) in ARROWS:
        (x1, y1), (x2, y2) = NODE_XY[source], NODE_XY[target]
        ax.add_patch(FancyArrowPatch(
            (x1, y1), (x2, y2), connectionstyle=f"arc3,rad={rad}", arrowstyle="-|>",
            mutation_scale=22, linewidth=2, color=PALETTE["black"],
            patchA=nodes[source], patchB=nodes[target], zorder=2))
        mx = (x1 + x2) / 2 + 0.5 * rad * (y2 - y1) + ox
        my = (y1 + y2) / 2 - 0.5 * rad * (x2 - x1) + oy
        texts[(source, target)] = ax.text(mx, my, labels[(source, target)], ha="center",
                                          va="center", fontsize=10.5, zorder=5)
    x, y = NODE_XY[State.CLOSED]
    ax.add_patch(FancyArrowPatch((x - 0.68, y + 0.38), (x - 0.68, y - 0.38),
                                 connectionstyle="arc3,rad=1.8", arrowstyle="-|>",
                                 mutation_scale=18, linewidth=1.6, color=PALETTE["black"],
                                 zorder=2))
    ax.text(x - 1.45, y + 0.6, "success resets\nthe failure count", ha="center",
            va="bottom", fontsize=10.5)
    ax.set_xlim(-2.5, 6.8)
    ax.set_ylim(-1.5, 4.1)
    ax.set_aspect("equal")
    ax.axis("off")
    return texts


def breaker_diagram(counts: Mapping[tuple[State, State], int] | None = None,
                    current: State = State.CLOSED, *, threshold: int | None = None,
                    cooldown: int | None = None, title: str | None = None) -> Figure:
    """The breaker's state diagram: three states, labelled arrows, the current one bold.

    Pass ``CircuitBreaker.transition_counts()`` to write on each arrow how often
    it was taken.

    >>> cb = CircuitBreaker(3, 5000)
    >>> rows = replay(BREAKER_EVENTS, cb)
    >>> fig = breaker_diagram(cb.transition_counts(), cb.state)
    >>> print(fig.retrylab_labels[(State.HALF_OPEN, State.OPEN)].get_text())
    trial failed
    (1 time)
    """
    fig = new_figure((7.5, 5.0))
    ax = fig.add_subplot()
    texts = draw_breaker_diagram(ax, counts, current, threshold=threshold, cooldown=cooldown)
    ax.set_title(title or "Circuit breaker: three states (current: "
                 f"{State(current).value.replace('_', '-')})", fontsize=14)
    fig.retrylab_labels = texts  # type: ignore[attr-defined]
    return fig


def timeline_segments(rows: Sequence[TraceRow], cooldown: int,
                      end: int | None = None) -> list[tuple[int, int, State]]:
    """The breaker's state over logical time as ``(start, end, state)`` bands.

    Open lasts ``cooldown`` ms from the failure that opened it; after that the
    breaker would let a trial through, so the band turns half-open (the lesson's
    breaker only notices when the next request asks). ``end`` defaults to the
    last event plus 1000 ms.

    >>> from retrylab.lesson import breaker_trace
    >>> [(a, b, s.value) for a, b, s in timeline_segments(breaker_trace(), 5000)][:4]
    [(0, 600, 'closed'), (600, 5600, 'open'), (5600, 6000, 'half_open'), (6000, 11000, 'open')]
    """
    cooldown = check_int("cooldown", cooldown, low=0)
    if not rows:
        return [(0, 1000 if end is None else end, State.CLOSED)]
    stop = rows[-1].now + 1000 if end is None else end
    bands: list[tuple[int, int, State]] = []
    state, since, opened = State.CLOSED, 0, 0

    def close(t: int) -> None:
        if state is State.OPEN and opened + cooldown < t:
            turn = max(since, opened + cooldown)
            if turn > since:
                bands.append((since, turn, State.OPEN))
            bands.append((turn, t, State.HALF_OPEN))
        elif t > since:
            bands.append((since, t, state))

    for row in rows:
        if row.state_after is not state or (row.state_after is State.OPEN
                                            and row.state_before is not State.OPEN):
            close(row.now)
            if row.state_after is State.OPEN and row.state_before is not State.OPEN:
                opened = row.now
            state, since = row.state_after, row.now
    close(max(stop, since))
    merged: list[tuple[int, int, State]] = []
    for a, b, s in bands:
        if merged and merged[-1][2] is s and merged[-1][1] == a:
            merged[-1] = (merged[-1][0], b, s)
        else:
            merged.append((a, b, s))
    return merged


LANES = {"succeeded": 2, "failed": 1, "blocked": 0}


def draw_breaker_timeline(ax: Axes, rows: Sequence[TraceRow], cooldown: int, *,
                          upto: int | None = None, end: int | None = None) -> None:
    """Draw state bands and request markers for ``rows[:upto]`` on ``ax``.

    The x range covers all ``rows`` so a step-through keeps a steady axis.
    """
    shown = list(rows if upto is None else rows[:upto])
    stop = (rows[-1].now + 1000 if rows else 1000) if end is None else end
    last = stop if upto is None else shown[-1].now if shown else 0
    for a, b, s in timeline_segments(shown, cooldown, end=last):
        ax.axvspan(a, b, color=STATE_COLOURS[s.value], alpha=0.28, linewidth=0)
    kinds = {
        "succeeded": ("o", PALETTE["green"], "sent: succeeded"),
        "failed": ("X", PALETTE["vermillion"], "sent: failed"),
        "blocked": ("s", PALETTE["grey"], "blocked: not sent"),
    }
    for kind, (marker, colour, label) in kinds.items():
        xs = [r.now for r in shown if _kind(r) == kind]
        ax.plot(xs, [LANES[kind]] * len(xs), linestyle="none", marker=marker,
                markersize=11, markerfacecolor=colour, markeredgecolor=PALETTE["black"],
                label=label, zorder=3)
    for r in shown:
        if r.state_after is State.OPEN and r.state_before is not State.OPEN:
            ax.annotate("", xy=(r.now + cooldown, 2.75), xytext=(r.now, 2.75),
                        arrowprops={"arrowstyle": "<->", "color": PALETTE["black"]})
            ax.text(r.now + cooldown / 2, 2.85, f"cooldown {cooldown} ms", ha="center",
                    va="bottom", fontsize=10)
    if shown and upto is not None:
        ax.axvline(shown[-1].now, color=PALETTE["black"], linewidth=1.5, linestyle=":")
    ax.set_xlim(-200, stop)
    ax.set_ylim(-0.6, 3.4)
    ax.set_yticks(list(LANES.values()), list(LANES))
    style(ax, None, "logical time (ms)", "request")
    handles: list[Any] = [Patch(color=STATE_COLOURS[s.value], alpha=0.4,
                                label=s.value.replace("_", "-")) for s in State]
    handles += ax.get_legend_handles_labels()[0]
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncols=6,
              frameon=False, fontsize=10, handletextpad=0.4, columnspacing=1.0)


def _kind(row: TraceRow) -> str:
    if not row.allowed:
        return "blocked"
    return "succeeded" if row.success else "failed"


def breaker_timeline(rows: Sequence[TraceRow] | None = None, cooldown: int = 5000, *,
                     threshold: int = 3, upto: int | None = None,
                     title: str | None = None) -> Figure:
    """The breaker over logical time: state bands, requests sent, failed, blocked.

    Default: the lesson's nine events replayed with ``threshold`` and
    ``cooldown`` (3 and 5000 ms, the lesson's). ``upto`` shows only the first
    events, with a dotted line at the last one shown.

    >>> fig = breaker_timeline()
    >>> ax = fig.axes[0]
    >>> [len(line.get_xdata()) for line in ax.lines[:3]]      # succeeded, failed, blocked
    [2, 4, 3]
    """
    if rows is None:
        rows = replay(BREAKER_EVENTS, CircuitBreaker(threshold, cooldown))
    fig = new_figure((9.0, 4.0))
    ax = fig.add_subplot()
    draw_breaker_timeline(ax, rows, cooldown, upto=upto)
    shown = rows if upto is None else rows[:upto]
    sent = sum(r.allowed for r in shown)
    ax.set_title(title or f"Breaker timeline (threshold {threshold}, cooldown {cooldown} ms)"
                 f": sent {sent}, blocked {len(shown) - sent}")
    return fig


class BreakerPlot:
    """The state diagram above the timeline, for the breaker explorer (redrawn whole)."""

    def __init__(self, fig: Figure) -> None:
        self.diagram, self.timeline = fig.subplots(2, 1, height_ratios=[1.4, 1])

    def update(self, rows: Sequence[TraceRow], cooldown: int, threshold: int, upto: int,
               counts: Mapping[tuple[State, State], int], current: State) -> None:
        """Redraw both axes for the first ``upto`` rows."""
        self.diagram.clear()
        self.timeline.clear()
        draw_breaker_diagram(self.diagram, counts, current, threshold=threshold,
                             cooldown=cooldown)
        self.diagram.set_title(f"State after event {upto} of {len(rows)}: "
                               f"{current.value.replace('_', '-')}")
        draw_breaker_timeline(self.timeline, rows, cooldown, upto=upto)
        shown = rows[:upto]
        sent = sum(r.allowed for r in shown)
        self.timeline.set_title(f"Timeline: sent {sent}, blocked {len(shown) - sent}")


