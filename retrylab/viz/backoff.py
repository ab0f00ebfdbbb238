"""The wait figures and the backoff explorer: schedules of ceilings and draws, one
client's waits, Retry-After against the backoff draw, a wait histogram, the lab's
writes; :class:`BackoffExplorer` redraws one backoff's waits under its sliders.

The numbers behind them (waits tables, schedules, jitter ranges) are in
:mod:`retrylab.sim.schedule`, re-exported here.

Each public function returns a new Figure on its own Agg canvas (never registered
with pyplot); each has a ``*Plot`` class behind it that draws once and then updates
its artists in place, which the slider explorers reuse. Every series differs by
marker or line style as well as colour, so the figures survive grey-scale printing.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from ..core._check import check_int, check_number
from ..core.backoff import JITTERS, Backoff
from ..core.constants import SEED
from ..i18n import N_, _, grouped, ngettext, percent, pgettext, seconds
from ..i18n.terms import jitter_name
from ..sim.herd import bucket_counts
from ..sim.schedule import Schedule, jitter_range, lesson_backoffs, schedule_data, waits_table
from .explorer import Explorer, choice, float_slider, int_slider, quantize
from .kit import (
    INK,
    SMALL_PT,
    WIDTH_IN,
    Look,
    backoff_look,
    look,
    new_figure,
    projecting,
    style,
)

__all__ = [
    "BackoffExplorer",
    "Schedule",
    "SchedulePlot",
    "WaitBarsPlot",
    "backoff_controls",
    "backoff_explorer",
    "jitter_range",
    "lesson_backoffs",
    "retry_after_bars",
    "schedule_data",
    "wait_bars",
    "wait_histogram",
    "wait_schedule",
    "waits_table",
    "write_bars",
]

MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")


def series_name(name: str) -> str:
    """A series' name (a strategy, a client: the notebook's dict key) in the notebook's
    language: the figure's own entry, else the one its table shows (context ``"table"``).

    >>> from retrylab.i18n import language
    >>> with language("tr"):
    ...     print(series_name("fixed 2 s"), "|", series_name("not in the catalogue"))
    sabit 2 s | not in the catalogue
    """
    shown = _(name)
    return pgettext("table", name) if shown == name else shown


LINESTYLES = ("-", "--", "-.", ":")


# -- wait schedules ---------------------------------------------------------------

#: The axes of the wait figures: retries numbered as in the formulas (notebook 00's
#: convention: retry n = 0 is the wait before attempt 2), the wait in ms.
RETRY_AXIS = N_("retry n (counted from 0)")
WAIT_AXIS = N_("wait (ms)")


class SchedulePlot:
    """One line per strategy (wait in ms against retry n, counted from 0 as in the
    formulas) and the cap as a line."""

    def __init__(
        self, fig: Figure, names: Sequence[str], title: str, looks: Sequence[Look] | None = None
    ) -> None:
        self.ax = fig.add_subplot()
        style(self.ax, title, _(RETRY_AXIS), _(WAIT_AXIS))
        self.lines: dict[str, Line2D] = {}
        for i, name in enumerate(names):
            drawn: dict[str, Any] = {"marker": MARKERS[i % len(MARKERS)]}
            if looks is not None:  # each strategy in its colour and marker of the kit
                drawn = {"marker": looks[i].marker, "color": looks[i].colour}
            (line,) = self.ax.plot(
                [],
                [],
                linestyle=LINESTYLES[i % len(LINESTYLES)],
                linewidth=2,
                markersize=7,
                label=series_name(name),
                **drawn,
            )
            self.lines[name] = line
        self.cap_line = self.ax.axhline(
            0, color=INK, linestyle=(0, (6, 3)), linewidth=1.5, label=_("cap")
        )
        self.ax.legend(loc="upper left", ncols=2, frameon=False, fontsize=11)

    def update(self, table: pd.DataFrame, caps: Sequence[int]) -> None:
        """Show ``table`` (rows = retries, numbered from 1 as :func:`waits_table` does) and
        a line at the largest cap (if any); row k is drawn at retry n = k - 1."""
        x = np.arange(len(table))
        for name, line in self.lines.items():
            line.set_data(x, table[name].to_numpy())
        top = float(table.to_numpy().max()) if table.size else 1.0
        if caps:
            cap = max(caps)
            self.cap_line.set_ydata([cap, cap])
            self.cap_line.set_label(_("cap {cap} ms").format(cap=cap))
            self.cap_line.set_visible(True)
            top = max(top, cap)
        else:
            self.cap_line.set_visible(False)
        self.ax.set_xlim(-0.5, len(x) - 0.5)
        self.ax.set_xticks(x)
        self.ax.set_ylim(0, top * 1.12 + 1)
        self.ax.legend(loc="upper left", ncols=2, frameon=False, fontsize=11)


def wait_schedule(
    backoffs: Mapping[str, Backoff] | None = None,
    retries: int = 6,
    seed: int = SEED,
    *,
    shared: bool = True,
    title: str | None = None,
) -> Figure:
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
    fig = new_figure((WIDTH_IN, 4.8))
    title = title or _(
        "How long each strategy waits before each retry\n"
        "(base {base} ms, factor {factor}, seed {seed})"
    ).format(base=200, factor=2, seed=seed)
    plot = SchedulePlot(
        fig, list(backoffs), title, [backoff_look(b.growth, b.jitter) for b in backoffs.values()]
    )
    plot.update(table, [b.cap for b in backoffs.values() if b.cap is not None])
    fig.retrylab_plot = plot  # type: ignore[attr-defined]
    return fig


# -- one client's waits ------------------------------------------------------------

#: The ceiling's formula for each growth, for the legend.
CEILING_LABELS = {
    "exponential": N_("ceiling: min(cap, base × factorⁿ)"),
    "linear": N_("ceiling: min(cap, base + step × n)"),
    "constant": N_("ceiling: base"),
}


class WaitBarsPlot:
    """One client's waits as bars, the jitter range shaded, the ceilings outlined, the cap dashed.

    Made once for up to ``slots`` retries; :meth:`move` updates the bars, bands,
    outlines and the cap line in place (the artists the backoff explorer
    animates), :meth:`frame` the limits, legend and title (the static part).
    ``labels=True`` writes each wait above its bar (the static figure's; the
    explorer's readout lists them).
    """

    def __init__(self, fig: Figure, slots: int = 12, *, labels: bool = True) -> None:
        self.slots = check_int("slots", slots, low=1, high=100)
        self.ax = fig.add_subplot()
        style(self.ax, None, _(RETRY_AXIS), _(WAIT_AXIS))
        x = np.arange(slots)  # retry n = 0, 1, ...
        zeros = np.zeros(slots)
        self.bands = self.ax.bar(
            x,
            zeros,
            width=0.85,
            color=look("wait", "range").colour,
            alpha=0.35,
            label=_("jitter range"),
        )
        self.bars = self.ax.bar(
            x,
            zeros,
            width=0.6,
            color=look("wait", "drawn").colour,
            label=_("actual wait (seed {seed})").format(seed=SEED),
        )
        self.ceilings = self.ax.bar(
            x,
            zeros,
            width=0.6,
            fill=False,
            edgecolor=look("wait", "ceiling").colour,
            linestyle="--",
            linewidth=2,
            label=_(CEILING_LABELS["exponential"]),
        )
        self.cap_line = self.ax.axhline(
            0, color=INK, linestyle=(0, (6, 3)), linewidth=1.5, label=_("cap")
        )
        self.labels = (
            [
                self.ax.text(i, 0, "", ha="center", va="bottom", fontsize=SMALL_PT)
                for i in range(slots)
            ]
            if labels
            else []
        )

    def move(self, data: Schedule) -> None:
        """Show ``data``'s waits (at most ``slots``): heights, ranges, the cap line."""
        n = len(data.waits)
        if n > self.slots:
            raise ValueError(f"retries={n} is out of range: this figure shows at most {self.slots}")
        for i, (band, bar, top) in enumerate(
            zip(self.bands, self.bars, self.ceilings, strict=True)
        ):
            shown = i < n
            for artist in (band, bar, top):
                artist.set_visible(shown)
            if shown:
                band.set_y(data.low[i])
                band.set_height(data.high[i] - data.low[i])
                bar.set_height(data.waits[i])
                top.set_height(data.ceilings[i])
        for i, label in enumerate(self.labels):
            label.set_visible(i < n)
            if i < n:
                label.set_position((i, data.waits[i]))
                label.set_text(str(data.waits[i]))
        cap = data.backoff.cap
        self.cap_line.set_visible(cap is not None)
        if cap is not None:
            self.cap_line.set_ydata([cap, cap])

    def frame(
        self,
        top_ms: float,
        growth: str,
        cap: int | None,
        *,
        seed: int = SEED,
        retries: int | None = None,
        title: str | None = None,
        centred: bool = False,
    ) -> None:
        """The static part: the y range up to ``top_ms``, the x range (``retries`` bars, or
        every slot), the legend for ``growth`` (the cap's entry if there is a cap); ``centred``
        puts the legend at the foot of the figure, centred on it, in tighter columns (the
        explorer's, with the projector's larger text)."""
        n = self.slots if retries is None else retries
        self.ax.set_xlim(-0.6, n - 0.4)
        self.ax.set_xticks(np.arange(n))
        self.ax.set_ylim(0, top_ms)
        self.bars.set_label(_("actual wait (seed {seed})").format(seed=seed))
        self.ceilings.set_label(_(CEILING_LABELS[growth]))
        self.cap_line.set_label(
            _("cap {cap} ms").format(cap=cap)
            if retries is not None and cap is not None
            else _("cap")
        )
        if title is not None:
            self.ax.set_title(title, fontsize=14)
        handles: list[Any] = [self.bars, self.bands, self.ceilings]
        if cap is not None:
            handles.append(self.cap_line)
        if centred:
            self.ax.legend(
                handles=handles,
                loc="lower center",
                bbox_to_anchor=(0.5, 0.0),
                bbox_transform=self.ax.figure.transFigure,
                ncols=2,
                frameon=False,
                fontsize=SMALL_PT,
                columnspacing=1.0,
                handlelength=1.6,
            )
            return
        self.ax.legend(
            handles=handles,
            loc="upper center",
            bbox_to_anchor=(0.5, -0.16),
            ncols=2,
            frameon=False,
            fontsize=10.5,
        )

    def update(self, data: Schedule) -> None:
        """Show ``data`` as a figure of its own: bars, labels, limits, legend, title."""
        self.move(data)
        n = len(data.waits)
        top_ms = max(max(data.high), max(data.waits), max(data.ceilings), data.backoff.cap or 0)
        self.frame(
            top_ms * 1.1 + 1,
            data.backoff.growth,
            data.backoff.cap,
            seed=data.seed,
            retries=n,
            title=_("{backoff}\ntotal wait over {n} retries: {total} ms").format(
                backoff=data.backoff.describe(), n=n, total=sum(data.waits)
            ),
        )


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
    fig = new_figure((WIDTH_IN, 4.8))
    plot = WaitBarsPlot(fig, slots=len(data.waits))
    plot.update(data)
    fig.retrylab_plot = plot  # type: ignore[attr-defined]
    return fig


# -- the retry loop's waits --------------------------------------------------------


def _whole_ms(name: str, values: npt.ArrayLike) -> list[int]:
    items = np.asarray(values).tolist()
    if not isinstance(items, list):
        raise ValueError(f"{name}={values!r} is out of range: {name} must be a list of waits in ms")
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
        raise ValueError(
            "backoff_waits=[] is out of range: backoff_waits must hold at least one wait"
        )
    suggested = check_int("retry_after_ms", retry_after_ms, low=0)
    x = np.arange(len(draws))
    fig = new_figure((WIDTH_IN, 3.6))
    ax = style(
        fig.add_subplot(),
        _("The loop waits max(backoff, Retry-After)"),
        _(RETRY_AXIS),
        _(WAIT_AXIS),
    )
    ax.bar(x, draws, 0.5, color=look("wait", "range").colour, label=_("backoff draw"))
    ax.axhline(
        suggested,
        color=look("wait", "retry_after").colour,
        linestyle="--",
        label=_("Retry-After: {seconds} ({ms} ms)").format(
            seconds=seconds(suggested / 1000),
            ms=suggested,
        ),
    )
    ax.plot(
        x,
        [max(d, suggested) for d in draws],
        "o",
        color=INK,
        label=_("the loop waits"),
    )
    ax.set_xticks(x)
    ax.legend(loc="upper left", fontsize=11)
    return fig


def wait_histogram(waits: npt.ArrayLike, width: int = 50, *, title: str | None = None) -> Figure:
    """How many waits fell in each ``width``-ms bucket, as bars (e.g. ``RetryMetrics.waits``).

    Use it to show a policy's wait distribution over many runs, beside the
    table of :meth:`~retrylab.core.metrics.RetryMetrics.wait_histogram` (``title``:
    default "Waits before retries", in the notebook's language).

    >>> fig = wait_histogram([70, 296, 780, 303, 480, 957], 200)
    >>> [int(bar.get_height()) for bar in fig.axes[0].patches]
    [1, 2, 1, 1, 1]
    >>> fig.axes[0].get_legend().get_texts()[0].get_text()
    '6 waits'
    """
    width = check_int("width", width, low=1, high=86_400_000)
    counts = bucket_counts(_whole_ms("waits", waits), width)
    fig = new_figure((WIDTH_IN, 3.4))
    total = int(counts.sum())
    ax = style(
        fig.add_subplot(),
        title or _("Waits before retries"),
        _("wait (ms, {width} ms buckets)").format(width=width),
        _("number of waits"),
    )
    ax.bar(
        counts.index.to_numpy() + width / 2,
        counts.to_numpy(),
        width=width * 0.9,
        color=look("wait", "drawn").colour,
        label=ngettext("{count} wait", "{count} waits", total).format(count=total),
    )
    ax.legend(fontsize=11)
    return fig


# -- the lab's writes ---------------------------------------------------------------

#: The two counts :func:`write_bars` draws: (row, hatch, label); each row's colour is its
#: concept's (``look("write", row)``).
WRITE_BARS: tuple[tuple[str, str, str], ...] = (
    ("duplicates", "", N_("duplicate records")),
    ("unacknowledged", "//", N_("stored, client thinks it failed")),
)


def write_bars(counts: pd.DataFrame, drop_rate: float) -> Figure:
    """Duplicates and unacknowledged writes per client, side by side, counts on the bars.

    Use it beside the table of ``WriteReport.series()`` columns (one per client,
    rows ``writes``, ``duplicates``, ``unacknowledged``, ...) that
    :func:`~retrylab.lessons.lab_experiments.write_experiment` made with ``drop_rate``.

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
        raise ValueError(
            f"counts={list(counts.index)!r} is out of range: counts must have "
            f"rows {', '.join(need)} and a column per client "
            "(WriteReport.series())"
        )
    writes = int(counts.loc["writes"].max())
    fig = new_figure((WIDTH_IN, 3.8))
    ax = style(
        fig.add_subplot(),
        _("{writes} writes, {rate} of answers lost after storing").format(
            writes=grouped(writes), rate=percent(rate * 100)
        ),
        _("client"),
        _("count (of {writes} writes)").format(writes=grouped(writes)),
    )
    x = np.arange(len(counts.columns))
    for shift, (row, hatch, label) in zip((-0.2, 0.2), WRITE_BARS, strict=True):
        bars = ax.bar(
            x + shift,
            counts.loc[row].to_numpy(),
            0.4,
            color=look("write", row).colour,
            hatch=hatch,
            edgecolor=INK,
            linewidth=0.6,
            label=_(label),
        )
        ax.bar_label(bars, fontsize=SMALL_PT)
    ax.set_xticks(x, [series_name(str(c)) for c in counts.columns])
    top = max(int(counts.loc[row].max()) for row, *_ in WRITE_BARS)
    ax.set_ylim(0, max(top, 1) * 1.2)
    ax.legend(fontsize=11)
    return fig


# -- the backoff explorer --------------------------------------------------------------

MAX_RETRIES = 12
#: The growths in the order a slider shows them: the mobile lesson's fixed,
#: incremental and exponential strategies.
GROWTH_CHOICES = ("constant", "linear", "exponential")
#: The y ranges the explorer switches between (ms): one saved background each.
Y_LEVELS = (1000, 1500, 2000, 3000, 4000, 6000, 8000, 12000, 16000, 24000, 32000, 50000)


def backoff_controls() -> dict[str, Any]:
    """The sliders base, factor, cap and jitter (the backoff and herd explorers share them)."""
    return {
        "base": int_slider("base", 200, 50, 2000, 50),
        "factor": float_slider("factor", 2.0, 1.0, 4.0, 0.25),
        "cap": int_slider("cap", 5000, 100, 20000, 100),
        "jitter": choice("jitter", JITTERS, "full"),
    }


def y_level(top_ms: float, levels: Sequence[int] = Y_LEVELS) -> int:
    """The smallest of ``levels`` above ``top_ms`` with 5% headroom (the largest if none).

    >>> y_level(800), y_level(5000), y_level(10**6)
    (1000, 6000, 50000)
    """
    return int(quantize(top_ms * 1.05 + 1, levels))


#: The backoff explorer's x ranges (retry slots shown): a few, so few backgrounds.
X_SLOTS = (4, 6, 8, 12)


class BackoffExplorer(Explorer):
    """The waits before each retry for one backoff: bars, the jitter range, the ceiling, the cap.

    ``growth`` gives the mobile lesson's strategies: ``"constant"`` (fixed
    interval), ``"linear"`` (incremental, step = base) and ``"exponential"``
    (``factor``, which the other two ignore). The axes show every slot up to
    12 retries; the y range is one of :data:`Y_LEVELS`.

    >>> BackoffExplorer.readout_for(jitter="none")
    'waits 200, 400, 800, 1600, 3200, 5000 ms; total 11200 ms (no jitter, seed 20260114)'
    >>> BackoffExplorer.readout_for(growth="constant", jitter="none", base=2000, retries=3)
    'waits 2000, 2000, 2000 ms; total 6000 ms (no jitter, seed 20260114)'
    """

    title = N_("wait schedule")
    figsize = (WIDTH_IN, 4.4)
    margins: ClassVar[Mapping[str, float]] = {
        "left": 0.11,
        "right": 0.98,
        "top": 0.96,
        "bottom": 0.3,
    }
    projector_margins: ClassVar[Mapping[str, float]] = {"left": 0.135, "bottom": 0.32}

    @classmethod
    def make_controls(cls) -> dict[str, Any]:
        controls = backoff_controls()
        controls["growth"] = choice("growth", GROWTH_CHOICES, "exponential")
        controls["retries"] = int_slider("retries", 6, 1, MAX_RETRIES)
        return controls

    @classmethod
    def compute(
        cls, base: int, factor: float, cap: int, jitter: str, growth: str, retries: int
    ) -> Schedule:
        b = Backoff(base, factor, cap, jitter=jitter, growth=growth)  # type: ignore[arg-type]
        return schedule_data(b, retries, SEED)

    @classmethod
    def readout_text(cls, result: Schedule) -> str:
        return _("waits {waits} ms; total {total} ms ({jitter}, seed {seed})").format(
            waits=", ".join(str(w) for w in result.waits),
            total=sum(result.waits),
            jitter=jitter_name(result.backoff.jitter),
            seed=result.seed,
        )

    def setup(self, fig: Figure) -> list[Any]:
        self.plot = WaitBarsPlot(fig, slots=MAX_RETRIES, labels=False)
        p = self.plot
        return [*p.bands, *p.bars, *p.ceilings, p.cap_line]

    def level(self, result: Schedule) -> Hashable:
        top = max(
            max(result.high), max(result.waits), max(result.ceilings), result.backoff.cap or 0
        )
        # the x range follows the retries (the default 6 filled half of 12 slots)
        return y_level(top), result.backoff.growth, quantize(len(result.waits), X_SLOTS)

    def apply_level(self, level: tuple[int, str, int]) -> None:
        top, growth, slots = level
        self.plot.frame(top, growth, cap=0, centred=projecting())  # 18 px: a wide legend
        self.plot.ax.set_xlim(-0.6, slots - 0.4)
        self.plot.ax.set_xticks(np.arange(slots))

    def draw(self, result: Schedule) -> None:
        self.plot.move(result)


def backoff_explorer(**values: Any) -> BackoffExplorer:
    """Sliders base, factor, cap, jitter, growth, retries redrawing one backoff's waits."""
    return BackoffExplorer(**values)
