"""The herd: clients that failed together, and when they wake up to retry.

When a server falls over, every client connected to it gets its error at the
same moment; if all apply the same formula, all come back at the same moment,
and the server meets a synchronized wave just as it stands up again. Jitter
spreads that wave.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pandas as pd

from ..core._check import check_int
from ..core.backoff import Backoff
from ..core.metrics import (
    bucket_counts as bucket_counts,  # re-exported: the herd is counted in buckets
)
from ..core.rng import Mulberry32

#: The most generator draws one call may take (clients, times attempt for decorrelated).
MAX_DRAWS = 20_000_000


def wakeups(backoff: Backoff, clients: int, attempt: int,
            rng: Mulberry32 | None = None) -> npt.NDArray[np.int64]:
    """When each of ``clients`` wakes for retry ``attempt`` (1-based), in ms.

    Uses ``ceiling(attempt - 1)`` and the backoff's jitter, one draw per client
    in client order (none for ``"none"``; decorrelated jitter needs every
    earlier retry too, so it draws ``attempt`` rounds of ``clients``). A call
    that would take more than :data:`MAX_DRAWS` draws is refused before drawing.

    The lesson's third attempt for 24 clients:

    >>> b = Backoff(200, 2, 5000, jitter="full")
    >>> w = wakeups(b, 24, 3, Mulberry32(20260114))
    >>> bucket_counts(w).to_dict()
    {0: 6, 200: 5, 400: 7, 600: 6}
    """
    clients = check_int("clients", clients, low=0, high=100_000_000)
    attempt = check_int("attempt", attempt, low=1, high=10_000)
    draws = clients * (attempt if backoff.jitter == "decorrelated" else
                       backoff.draws_per_wait)
    if draws > MAX_DRAWS:
        per = f" x attempt {attempt}" if backoff.jitter == "decorrelated" else ""
        raise ValueError(f"clients={clients} is out of range: {clients:,} clients{per} is "
                         f"{draws:,} draws, and wakeups is limited to {MAX_DRAWS:,}; use "
                         "fewer clients or an earlier attempt")
    if backoff.jitter == "none":
        return np.full(clients, backoff.ceiling(attempt - 1), dtype=np.int64)
    backoff.check_rng(rng)
    assert rng is not None  # check_rng refused None for every other jitter
    if backoff.jitter == "decorrelated":
        prev = np.full(clients, backoff.base, dtype=np.int64)
        for _ in range(attempt):
            prev = backoff.next_waits(0, rng.random(clients), prev)
        return prev
    return backoff.next_waits(attempt - 1, rng.random(clients))


def histogram_lines(counts: pd.Series) -> list[str]:
    """The lesson's text histogram: ``' 800ms:####...'``.

    >>> histogram_lines(bucket_counts([70, 150, 230]))
    ['   0ms:##', ' 200ms:#']
    """
    keys = counts.index.to_numpy(dtype=np.int64)
    values = counts.to_numpy(dtype=np.int64)
    return [f"{k:>4}ms:{'#' * v}" for k, v in zip(keys.tolist(), values.tolist(), strict=True)]


def peak_ratio(with_jitter: pd.Series, without: pd.Series) -> float:
    """Peak bucket with jitter divided by the peak without (24 -> 7 is 0.29)."""
    if len(without) == 0 or int(without.max()) == 0:
        raise ValueError("without is empty: there is no peak to compare against")
    return float(with_jitter.max()) / float(without.max())
