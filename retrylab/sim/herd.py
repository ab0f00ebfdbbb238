"""The herd: clients that failed together, and when they wake up to retry.

When a server falls over, every client connected to it gets its error at the
same moment; if all apply the same formula, all come back at the same moment,
and the server meets a synchronized wave just as it stands up again. Jitter
spreads that wave.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pandas as pd

from ..core._check import check_int
from ..core.backoff import Backoff
from ..core.constants import SEED
from ..core.metrics import (
    bucket_counts as bucket_counts,  # re-exported: the herd is counted in buckets
)
from ..core.rng import Mulberry32
from ..i18n import _, number

#: The most generator draws one call may take (clients, times attempt for decorrelated).
MAX_DRAWS = 20_000_000


def wakeups(
    backoff: Backoff, clients: int, attempt: int, rng: Mulberry32 | None = None
) -> npt.NDArray[np.int64]:
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
    draws = clients * (attempt if backoff.jitter == "decorrelated" else backoff.draws_per_wait)
    if draws > MAX_DRAWS:
        per = f" x attempt {attempt}" if backoff.jitter == "decorrelated" else ""
        raise ValueError(
            f"clients={clients} is out of range: {clients:,} clients{per} is "
            f"{draws:,} draws, and wakeups is limited to {MAX_DRAWS:,}; use "
            "fewer clients or an earlier attempt"
        )
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


@dataclass(frozen=True)
class HerdData:
    """Wake-up counts per bucket without and with jitter, and their peaks."""

    backoff: Backoff
    clients: int
    #: the retry they wake for, counted from 0 (retry n = 2 is the third, before attempt 4)
    retry: int
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
        """One line: ``peak 24 -> 7 clients per 200 ms (0.29×)``."""
        return _("peak {plain} -> {jittered} clients per {width} ms ({ratio}×)").format(
            plain=self.peak_plain,
            jittered=self.peak_jittered,
            width=self.width,
            ratio=number(self.ratio, 2),
        )


def herd_data(
    backoff: Backoff | None = None,
    clients: int = 24,
    retry: int = 2,
    seed: int = SEED,
    width: int = 200,
) -> HerdData:
    """Bucket the wake-ups of ``clients`` that failed together, without and with jitter.

    ``retry`` counts from 0, as everywhere in the lessons' formulas: the
    default, retry n = 2, is the lesson's "3. deneme", the third retry
    (ceiling 800 ms, the wait before attempt 4). "Without" is the same backoff
    with ``jitter="none"``; "with" draws one ``Mulberry32(seed)`` value per
    client, as the lesson does.

    >>> herd_data().summary()
    'peak 24 -> 7 clients per 200 ms (0.29×)'
    >>> herd_data(width=400).summary()
    'peak 24 -> 13 clients per 400 ms (0.54×)'
    """
    backoff = Backoff(200, 2, 5000, jitter="full") if backoff is None else backoff
    width = check_int("width", width, low=1, high=86_400_000)
    retry = check_int("retry", retry, low=0, high=9_999)
    plain = wakeups(dataclasses.replace(backoff, jitter="none"), clients, retry + 1)
    jittered = wakeups(backoff, clients, retry + 1, Mulberry32(seed))
    return HerdData(
        backoff,
        int(clients),
        retry,
        width,
        bucket_counts(plain, width),
        bucket_counts(jittered, width),
    )
