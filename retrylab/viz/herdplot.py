"""The herd figure: when clients that failed together wake up, with and without jitter.

>>> fig = herd_histogram()
>>> [p.get_data().values.tolist() for p in fig.retrylab_plot.steps]
[[0.0, 0.0, 0.0, 0.0, 24.0, 0.0], [6.0, 5.0, 7.0, 6.0, 0.0, 0.0]]
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.text import Text

from ..core._check import check_int
from ..core.backoff import Backoff
from ..core.constants import SEED
from ..core.rng import Mulberry32
from ..sim.herd import bucket_counts, wakeups
from .figure import PALETTE, new_figure, style

MAX_BUCKETS = 20_000  # a herd histogram wider than this is unreadable anyway


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
