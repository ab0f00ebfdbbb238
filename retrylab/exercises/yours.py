"""The student's own functions, used again once a checker has judged them.

Notebook 02 reproduces the lesson's table with the two jitter functions the
student wrote: :func:`jitter_columns` uses them if their checkers say Correct
(the checkers run them where a runaway can be stopped), and retrylab's own
otherwise, saying which it used.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd

from ..core.backoff import Backoff
from ..core.constants import BASE, CAP, FACTOR, SEED
from ..core.rng import Mulberry32
from ..i18n import _, pgettext
from .build import check_decorrelated, check_full_jitter
from .build.harness import untouched

__all__ = ["jitter_columns"]


def _chosen(
    fn: Any, check: Callable[[Any], Any], name: str, ours: Callable[..., int]
) -> tuple[Callable[..., int], str]:
    if fn is None or fn is Ellipsis or not callable(fn) or untouched(fn):
        return ours, _("{name}: retrylab's (yours is still the scaffold)").format(name=name)
    if not check(fn).correct:
        return ours, _("{name}: retrylab's (yours is not Correct yet: run its check above)").format(
            name=name
        )
    return fn, _("{name}: yours").format(name=name)


def jitter_columns(full_jitter: Any, decorrelated: Any, rows: int = 6) -> pd.DataFrame:
    """The lesson's six jitter rows computed with the student's two functions.

    Both share one Mulberry32(20260114) and draw in turn, as the lesson's program
    does. A function that is still the scaffold, or that its checker does not
    judge Correct, is replaced by retrylab's, and the line printed above the
    table says so.

    >>> from retrylab import js_round
    >>> def mine(n, r):
    ...     return js_round(r * min(5000, 200 * 2 ** n))
    >>> def scaffold(prev, r):
    ...     ...
    >>> jitter_columns(mine, scaffold)["full jitter"].tolist()
    full jitter: yours; decorrelated: retrylab's (yours is still the scaffold)
    [70, 296, 780, 303, 480, 957]
    """
    full_ref = Backoff(BASE, FACTOR, CAP, jitter="full")
    deco_ref = Backoff(BASE, FACTOR, CAP, jitter="decorrelated")
    full_name = pgettext("column", "full jitter")
    deco_name = pgettext("column", "decorrelated")
    full, full_note = _chosen(
        full_jitter, check_full_jitter, full_name, lambda n, r: full_ref.next_wait(n, r)
    )
    deco, deco_note = _chosen(
        decorrelated, check_decorrelated, deco_name, lambda prev, r: deco_ref.next_wait(0, r, prev)
    )
    print(f"{full_note}; {deco_note}")
    rng = Mulberry32(SEED)
    prev = BASE
    table = []
    for n in range(rows):
        f = int(full(n, rng()))
        prev = int(deco(prev, rng()))
        table.append((n, min(CAP, BASE * FACTOR**n), f, prev))
    # retry n counts from 0, as notebook 00 defines it (the wait before attempt n + 2)
    return pd.DataFrame(
        table,
        columns=[
            pgettext("column", "retry"),
            pgettext("column", "ceiling (ms)"),
            full_name,
            deco_name,
        ],
    ).set_index(pgettext("column", "retry"))
