"""Wait schedules as numbers: the lessons' strategies, their waits, jitter ranges.

The data behind the wait figures (:mod:`retrylab.viz.backoff`) and the
checkers, with no drawing: a table of waits per strategy, one backoff's waits
with their ceilings, and where jitter can put each wait.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from dataclasses import dataclass

import pandas as pd

from ..core._check import check_int
from ..core.backoff import Backoff
from ..core.constants import SEED
from ..core.rng import Mulberry32

__all__ = ["Schedule", "jitter_range", "lesson_backoffs", "schedule_data", "waits_table"]


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


def waits_table(
    backoffs: Mapping[str, Backoff] | None = None,
    retries: int = 6,
    seed: int = SEED,
    *,
    shared: bool = True,
) -> pd.DataFrame:
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
        raise ValueError(
            f"retries={retries} is out of range: a wait without a cap "
            "exceeds 2**62 ms; use fewer retries or a cap"
        )
    # Retry n counts from 0, as notebook 00 defines it and the formulas use it: row n is
    # the wait before attempt n + 2 (attempt 1 being the first send).
    frame = pd.DataFrame(rows, columns=list(its), index=pd.RangeIndex(0, retries, name="retry"))
    return frame.astype("int64")


#: The largest draw a generator in [0, 1) gives, so the top of a jitter range is reachable.
_TOP_DRAW = math.nextafter(1.0, 0.0)


def jitter_range(backoff: Backoff, n: int, prev: int | None = None) -> tuple[int, int]:
    """The shortest and longest wait before retry ``n`` that jitter can give.

    Use it to shade where a jittered wait may land. It is the backoff's own
    :meth:`~retrylab.core.backoff.Backoff.next_wait` at the smallest and largest
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


def schedule_data(backoff: Backoff | None = None, retries: int = 6, seed: int = SEED) -> Schedule:
    """The waits before retries 1..``retries`` from ``Mulberry32(seed)``, with their ranges.

    Use it for the numbers behind :func:`~retrylab.viz.backoff.wait_bars`. Default: the lesson's
    backoff, base 200 ms x 2, cap 5000 ms, full jitter.

    >>> s = schedule_data(retries=3)
    >>> s.waits, s.ceilings, s.low, s.high
    ((70, 184, 592), (200, 400, 800), (0, 0, 0), (200, 400, 800))
    """
    b = Backoff(200, 2, 5000, jitter="full") if backoff is None else backoff
    retries = check_int("retries", retries, low=1, high=1000)
    waits = tuple(itertools.islice(b.waits(Mulberry32(seed)), retries))
    ranges = [jitter_range(b, n, None if n == 0 else waits[n - 1]) for n in range(retries)]
    return Schedule(
        b,
        seed,
        waits,
        tuple(b.ceiling(n) for n in range(retries)),
        tuple(lo for lo, _ in ranges),
        tuple(hi for _, hi in ranges),
    )
