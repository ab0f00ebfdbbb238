"""Retry metrics: the mobile lesson's fourth mistake is not measuring.

Without numbers you cannot know how many requests were retried, which errors
happened, or whether the policy helps. :class:`RetryMetrics` collects, for every
run it is given: attempts, retries, success after a retry, the reasons runs
stopped, the outcomes seen and every wait, and tabulates them for a notebook.
Each run is also logged through the standard ``logging`` module (logger
``"retrylab"``) by :class:`~retrylab.core.policy.RetryPolicy` itself.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
import pandas as pd

from ..i18n import pgettext
from ._check import check_int

if TYPE_CHECKING:
    from .policy import RetryResult


@dataclass
class RetryMetrics:
    """Counts over many runs; pass it as ``metrics=`` to ``RetryPolicy.run``.

    >>> from retrylab import Outcome, RetryPolicy, Mulberry32
    >>> m = RetryMetrics()
    >>> answers = iter([Outcome.http(503), Outcome.success()])
    >>> _ = RetryPolicy().run(lambda: next(answers), rng=Mulberry32(1), sleep=None, metrics=m)
    >>> m.runs, m.retries, m.success_after_retry
    (1, 1, 1)
    """

    runs: int = 0
    attempts: int = 0
    successes: int = 0
    success_after_retry: int = 0
    waits: list[int] = field(default_factory=list)
    reasons: Counter[str] = field(default_factory=Counter)
    outcomes: Counter[str] = field(default_factory=Counter)
    by_method: Counter[str] = field(default_factory=Counter)

    @property
    def retries(self) -> int:
        """Attempts beyond the first of each run."""
        return self.attempts - self.runs

    def record(self, result: RetryResult, method: str = "GET") -> None:
        """Add one finished run."""
        self.runs += 1
        self.attempts += result.attempts
        self.by_method[method.upper()] += 1
        if result.ok:
            self.successes += 1
            if result.attempts > 1:
                self.success_after_retry += 1
        self.waits.extend(result.waits)
        self.reasons[str(result.reason)] += 1
        for a in result.history:
            self.outcomes[a.outcome.label()] += 1

    def summary(self) -> pd.Series:
        """The headline numbers as one labelled column (counts stay integers), labelled
        in the current language (a table to read: the attributes hold the numbers)."""
        waits = pd.Series(self.waits, dtype="float64")
        return pd.Series(
            {
                pgettext("column", "runs"): self.runs,
                pgettext("column", "attempts"): self.attempts,
                pgettext("column", "retries"): self.retries,
                pgettext("column", "successes"): self.successes,
                pgettext("column", "success after retry"): self.success_after_retry,
                pgettext("column", "gave up"): self.runs - self.successes,
                pgettext("column", "median wait (ms)"): float(waits.median())
                if len(waits)
                else 0.0,
                pgettext("column", "p90 wait (ms)"): float(waits.quantile(0.9))
                if len(waits)
                else 0.0,
            },
            name=pgettext("column", "value"),
            dtype=object,
        )

    def reasons_table(self) -> pd.Series:
        """How many runs stopped for each reason."""
        return pd.Series(dict(self.reasons), name="runs", dtype="int64").sort_index()

    def wait_histogram(self, width: int = 500) -> pd.Series:
        """Waits bucketed by ``width`` ms (the wait distribution)."""
        return bucket_counts(self.waits, width).rename("waits")


#: Buckets :func:`bucket_counts` may span from the smallest wait to the largest.
MAX_BUCKETS = 10_000_000


def bucket_counts(waits: npt.ArrayLike, width: int = 200) -> pd.Series:
    """How many wake-ups fall in each ``width``-ms bucket, by bucket start.

    Only buckets that hold someone appear, as in the lesson's histogram.

    >>> bucket_counts([70, 150, 230, 800]).to_dict()
    {0: 2, 200: 1, 800: 1}
    """
    width = check_int("width", width, low=1, high=86_400_000)
    w = np.asarray(waits, dtype=np.int64)
    idx = w // width
    if w.size == 0:
        return pd.Series([], dtype=np.int64, name="clients").rename_axis("bucket_ms")
    lo = int(idx.min())
    span = int(idx.max()) - lo + 1
    if span > MAX_BUCKETS:
        raise ValueError(
            f"waits span {span:,} buckets of width={width}: the span is out of "
            f"range: at most {MAX_BUCKETS:,} buckets (a size limit), so use a "
            f"larger width (>= {(span * width) // MAX_BUCKETS + 1})"
        )
    counts = np.bincount(idx - lo)
    nz = np.flatnonzero(counts)
    return pd.Series(
        counts[nz], index=pd.Index((nz + lo) * width, name="bucket_ms"), name="clients"
    )
