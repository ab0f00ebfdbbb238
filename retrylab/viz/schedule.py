"""The wait figures: schedules of ceilings and draws, one client's waits, Retry-After
against the backoff draw, a wait histogram and the lab's writes.

Each public function returns a new Figure on its own Agg canvas (never registered
with pyplot); each has a ``*Plot`` class behind it that draws once and then updates
its artists in place, which the slider explorers reuse. Every series differs by
marker or line style as well as colour, so the figures survive grey-scale printing.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from ..core._check import check_int, check_number
from ..core.backoff import Backoff
from ..core.constants import SEED
from ..core.rng import Mulberry32
from ..sim.herd import bucket_counts
from .figure import PALETTE, new_figure, style

MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
LINESTYLES = ("-", "--", "-.", ":")


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
