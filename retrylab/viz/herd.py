"""The herd figure and explorer: when clients that failed together wake up, with and
without jitter. The numbers (:class:`~retrylab.sim.herd.HerdData`,
:func:`~retrylab.sim.herd.herd_data`) are in :mod:`retrylab.sim.herd`.

>>> fig = herd_histogram()
>>> [p.get_data().values.tolist() for p in fig.retrylab_plot.steps]
[[0.0, 0.0, 0.0, 0.0, 24.0, 0.0], [6.0, 5.0, 7.0, 6.0, 0.0, 0.0]]
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.text import Text
from matplotlib.ticker import MaxNLocator

from ..core.backoff import Backoff
from ..core.constants import SEED
from ..i18n import N_, _, number
from ..i18n.terms import jitter_name
from ..sim.herd import HerdData, herd_data
from .backoff import backoff_controls, y_level
from .explorer import Explorer, int_slider, quantize
from .kit import INK, WIDTH_IN, backoff_look, look, new_figure, projecting, style
from .unchanged import all_capped, cap_above_ceilings

__all__ = [
    "HerdData",
    "HerdExplorer",
    "HerdPlot",
    "first_picture",
    "herd_data",
    "herd_explorer",
    "herd_histogram",
]

MAX_BUCKETS = 20_000  # a herd histogram wider than this is unreadable anyway
#: The explorer's time ranges (ms) and count ranges: one saved background each pair.
X_LEVELS = (1000, 2000, 5000, 10000, 20000, 50000)
Y_LEVELS = (5, 10, 20, 30, 50, 100, 200, 300, 500, 1000, 2000, 3000, 5000, 10000, 20000)


def _dense(counts: pd.Series, width: int, n: int) -> npt.NDArray[np.float64]:
    values = np.zeros(n, dtype=np.float64)
    idx = counts.index.to_numpy(dtype=np.int64) // width
    values[idx] = counts.to_numpy(dtype=np.float64)
    return values


class HerdPlot:
    """Two histograms side by side (no jitter, with jitter), shared y, peaks marked.

    :meth:`move` updates the steps, the peak lines and the peak notes in place
    (the artists the explorer animates); :meth:`frame` sets the limits and the
    titles (the static part).
    """

    def __init__(self, fig: Figure) -> None:
        self.axes: tuple[Axes, Axes] = tuple(fig.subplots(1, 2, sharey=True))
        colours = (look("strategy", "exponential").colour, look("jitter", "full").colour)
        self.steps = []
        self.peaks: list[Text] = []
        self.peak_lines: list[Line2D] = []
        for ax, colour in zip(self.axes, colours, strict=True):
            steps = ax.stairs(
                [0.0],
                [0.0, 1.0],
                fill=True,
                color=colour,
                alpha=0.85,
                label=_("clients waking in the bucket"),
            )
            self.steps.append(steps)
            self.peak_lines.append(
                ax.axhline(0, color=INK, linestyle="--", linewidth=1.2, label=_("peak"))
            )
            self.peaks.append(
                ax.text(0, 0, "", ha="center", va="bottom", fontsize=12, fontweight="bold")
            )
        style(self.axes[0], "", _("wake-up time after the failure (ms)"), _("clients per bucket"))
        style(self.axes[1], "", _("wake-up time after the failure (ms)"))
        self.title = fig.suptitle("", fontsize=14)

    def move(self, data: HerdData) -> float:
        """Show ``data``'s counts and peaks; returns the end of the last bucket (ms)."""
        w = data.width
        top_ms = max([int(s.index.max()) for s in (data.plain, data.jittered) if len(s)], default=0)
        n = top_ms // w + 2
        if n > MAX_BUCKETS:
            raise ValueError(
                f"width={w} is out of range: {n} buckets of {w} ms; "
                f"width must be >= {top_ms // MAX_BUCKETS + 1} here"
            )
        edges = np.arange(n + 1, dtype=np.float64) * w
        peak_all = max(data.peak_plain, data.peak_jittered, 1)
        b = data.backoff
        looks = (backoff_look(b.growth, "none"), backoff_look(b.growth, b.jitter))
        for i, counts in enumerate((data.plain, data.jittered)):
            values = _dense(counts, w, n)
            self.steps[i].set_data(values, edges)
            self.steps[i].set_facecolor(looks[i].colour)  # the kit's colour of each strategy
            peak = int(values.max())
            at = float(edges[int(values.argmax())]) + w / 2
            self.peak_lines[i].set_ydata([peak, peak])
            # a peak near the left edge starts at its bucket, clear of the count ticks
            near_left = at <= 0.15 * max(float(edges[-1]), self.axes[i].get_xlim()[1])
            self.peaks[i].set_horizontalalignment("left" if near_left else "center")
            at = float(edges[int(values.argmax())]) if near_left else at
            self.peaks[i].set_position((at, peak + peak_all * 0.02))
            self.peaks[i].set_text(_("peak {peak}").format(peak=peak))
        return float(edges[-1])

    def frame(self, x_ms: float, y_top: float, titles: tuple[str, str], heading: str) -> None:
        """The static part: the time range, the count range, the titles."""
        for ax, title in zip(self.axes, titles, strict=True):
            ax.set_xlim(0, x_ms)
            ax.set_title(title, fontsize=14)
        self.axes[0].set_ylim(0, y_top)
        self.title.set_text(heading)

    def update(self, data: HerdData, heading: str | None = None) -> None:
        """Show ``data`` as a figure of its own: counts, peaks, limits and titles
        (``heading`` above both panels, or one naming the clients and the retry)."""
        end = self.move(data)
        w = data.width
        peak_all = max(data.peak_plain, data.peak_jittered, 1)
        self.frame(
            end,
            peak_all * 1.15,
            (
                _("no jitter: peak {peak} per {width} ms").format(peak=data.peak_plain, width=w),
                _("{jitter}: peak {peak} per {width} ms").format(
                    jitter=jitter_name(data.backoff.jitter), peak=data.peak_jittered, width=w
                ),
            ),
            heading
            if heading is not None
            else _(
                "{clients} clients failed together: when they wake for retry n = {retry}\n{summary}"
            ).format(clients=data.clients, retry=data.retry, summary=readout_line(data)),
        )


def readout_line(data: HerdData) -> str:
    """The herd's peaks in one line, with the course's symbols (→, ×).

    >>> readout_line(herd_data())
    'peak 24 → 7 clients per 200 ms (0.29×)'
    """
    return _("peak {plain} → {jittered} clients per {width} ms ({ratio}×)").format(
        plain=data.peak_plain,
        jittered=data.peak_jittered,
        width=data.width,
        ratio=number(data.ratio, 2),
    )


def herd_histogram(
    backoff: Backoff | None = None,
    clients: int = 24,
    retry: int = 2,
    seed: int = SEED,
    width: int = 200,
    *,
    title: str | None = None,
) -> Figure:
    """Wake-up histograms of a herd without and with jitter, the peaks marked.

    Use it to show what jitter does to the load a recovering server sees. The
    default reproduces the lesson: 24 clients at 800 ms (retry n = 2, counted from
    0), and 6, 5, 7, 6.

    >>> fig = herd_histogram()
    >>> [t.get_text() for t in fig.retrylab_plot.peaks]
    ['peak 24', 'peak 7']
    """
    data = herd_data(backoff, clients, retry, seed, width)
    fig = new_figure((WIDTH_IN, 4.4))
    plot = HerdPlot(fig)
    plot.update(data, title)
    fig.retrylab_plot = plot  # type: ignore[attr-defined]
    return fig


def first_picture() -> Figure:
    """Notebook 00's opening picture: the lesson's 24 clients, failed at the same moment,
    retrying without jitter (all at once) and with full jitter (seed 20260114), told
    in words a newcomer reads before any convention.

    >>> [t.get_text() for t in first_picture().retrylab_plot.peaks]
    ['peak 24', 'peak 7']
    """
    return herd_histogram(
        title=_(
            "24 phones lose the server at the same moment and retry."
            "\nWithout jitter they all come back together; with "
            "jitter they spread out."
        )
    )


class HerdExplorer(Explorer):
    """Wake-up histograms of a herd without and with jitter; the readout gives the peaks.

    ``retry`` counts from 0 (retry n = 2, the default, is the lesson's third
    retry, ceiling 800 ms). The time and count ranges are quantized
    (:data:`X_LEVELS`, :data:`Y_LEVELS`).

    >>> HerdExplorer.readout_for(clients=10000, retry=3)
    'peak 10000 → 1297 clients per 200 ms (0.13×)'
    """

    title = N_("the herd")
    figsize = (WIDTH_IN, 4.4)
    margins: ClassVar[Mapping[str, float]] = {
        "left": 0.1,
        "right": 0.97,
        "top": 0.84,
        "bottom": 0.14,
        "wspace": 0.1,
    }
    projector_margins: ClassVar[Mapping[str, float]] = {
        "left": 0.13,
        "right": 0.95,
        "bottom": 0.16,
        "wspace": 0.17,
    }

    @classmethod
    def make_controls(cls) -> dict[str, Any]:
        controls = backoff_controls()
        controls["clients"] = int_slider("clients", 24, 1, 10000)
        controls["retry"] = int_slider("retry", 2, 0, 9)
        controls["width"] = int_slider("width", 200, 50, 1000, 50)
        return controls

    @classmethod
    def compute(
        cls, base: int, factor: float, cap: int, jitter: str, clients: int, retry: int, width: int
    ) -> HerdData:
        b = Backoff(base, factor, cap, jitter=jitter)  # type: ignore[arg-type]
        return herd_data(b, clients, retry, SEED, width)

    @classmethod
    def readout_text(cls, result: HerdData) -> str:
        return readout_line(result)

    def setup(self, fig: Figure) -> list[Any]:
        self.plot = HerdPlot(fig)
        p = self.plot
        p.title.set_text(_("clients that failed together: when they wake up"))
        self.jitter_title = p.axes[1].set_title("", fontsize=14)
        if projecting():  # 18 px text: one time label for both panels, fewer time ticks
            for ax in p.axes:
                ax.set_xlabel("")
                ax.xaxis.set_major_locator(MaxNLocator(4))
            fig.supxlabel(_("wake-up time after the failure (ms)"), fontsize=12, y=0.0, va="bottom")
        return [*p.steps, *p.peak_lines, *p.peaks, self.jitter_title]

    def level(self, result: HerdData) -> Hashable:
        top_ms = max(
            [int(s.index.max()) for s in (result.plain, result.jittered) if len(s)], default=0
        )
        end = (top_ms // result.width + 2) * result.width
        peak_all = max(result.peak_plain, result.peak_jittered, 1)
        return quantize(end, X_LEVELS), y_level(peak_all * 1.1, Y_LEVELS)

    def apply_level(self, level: tuple[int, int]) -> None:
        x_ms, y_top = level
        p = self.plot
        for ax in p.axes:
            ax.set_xlim(0, x_ms)
        p.axes[0].set_ylim(0, y_top)
        p.axes[0].set_title(_("no jitter"), fontsize=14)

    def draw(self, result: HerdData) -> None:
        self.plot.move(result)
        self.jitter_title.set_text(jitter_name(result.backoff.jitter))

    def unchanged_reason(
        self, moved: str, old: Any, values: Mapping[str, Any], result: HerdData
    ) -> str:
        """A cap above the retry's ceiling (a cap move), or the ceiling above the cap before
        and after a move of base, factor or retry (every wait is the cap)."""

        def ceiling(v: Mapping[str, Any]) -> int:
            return Backoff(v["base"], v["factor"], None).ceiling(v["retry"])

        before = {**values, moved: old}
        if moved == "cap" and ceiling(values) <= min(old, values["cap"]):
            return cap_above_ceilings(values["cap"])
        if (
            moved in ("base", "factor", "retry")
            and min(ceiling(values), ceiling(before)) >= values["cap"]
        ):
            return all_capped(self.controls[moved].description, values[moved], values["cap"])
        return ""


def herd_explorer(**values: Any) -> HerdExplorer:
    """Sliders base, factor, cap, jitter, clients, retry, width redrawing the herd."""
    return HerdExplorer(**values)
