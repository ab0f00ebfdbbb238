"""Checkers for notebook 00 (start here)."""

from __future__ import annotations

from typing import Any

from ..core.backoff import Backoff
from ..core.constants import SEED
from ..core.outcome import Outcome
from ..core.policy import RetryPolicy
from ..core.rng import Mulberry32
from . import Feedback, as_whole, as_wholes, checker, prompt, right, shown, unanswered, wrong


@checker
def check_three_failures(attempts: Any, waits: Any) -> Feedback:
    """Three 503s then success, four attempts allowed, lesson seed.

    >>> check_three_failures(4, [70, 184, 592])
    Correct: 4 attempts, waits [70, 184, 592]: the third wait (retry n = 2, before attempt 4)
    draws from an 800 ms ceiling.
    """
    if unanswered(attempts) or unanswered(waits):
        return prompt("the number of attempts and the list of waits in ms")
    answers = iter([Outcome.http(503)] * 3 + [Outcome.success()])
    r = RetryPolicy(4, Backoff(200, 2, 5000, jitter="full")).run(
        lambda: next(answers), rng=Mulberry32(SEED))
    count, given = as_whole(attempts), as_wholes(waits)
    if count is None:
        return wrong(f"attempts={shown(attempts)}: give the number of attempts as a whole "
                     "number, such as 2.")
    if given is None:
        return wrong(f"waits={shown(waits)}: give the waits as a list of whole numbers of ms, "
                     "such as [100, 200].")
    if count != r.attempts:
        return wrong(f"attempts={count!r}: count every request sent, the first one "
                     "included; three failures then one success.")
    if len(given) != count - 1:
        return wrong(f"waits={given!r}: {count} attempts have {count - 1} waits between them, "
                     "one before each retry.")
    if given != list(r.waits):
        return wrong(f"waits={given!r}: there is one wait between each pair of "
                     "attempts, and retry n (n = 0 for the first) draws "
                     "r x min(5000, 200 x 2**n). "
                     "Run the loop with a fresh Mulberry32(SEED).")
    return right(f"{r.attempts} attempts, waits {list(r.waits)}: the third wait (retry n = 2, "
                 "before attempt 4) draws from an 800 ms ceiling.")


@checker
def check_which_notebook(notebook: Any) -> Feedback:
    """The notebook on which failures are retried.

    >>> check_which_notebook(3).correct
    False
    """
    if unanswered(notebook):
        return prompt("a notebook number such as 2")
    number = as_whole(notebook)
    if number is None:
        return wrong(f"notebook={shown(notebook)}: give the notebook's number as a whole "
                     "number, such as 2.")
    if number == 1:
        return right("notebook 01: a timeout leaves it unknown whether the server "
                     "acted, so a POST is retried only with an idempotency key.")
    return wrong(f"notebook={number!r}: that one is about something else; look for "
                 "the notebook on *which* errors to retry.")
