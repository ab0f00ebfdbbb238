"""Checkers for notebook 01 (which errors to retry)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from ..core.outcome import Outcome, decide
from . import (
    Feedback,
    as_items,
    as_number,
    as_wholes,
    checker,
    prompt,
    right,
    shown,
    unanswered,
    wrong,
)

#: Exercise 1's cases: letter -> (method, outcome, idempotency key agreed).
CASES: dict[str, tuple[str, Outcome, bool]] = {
    "A": ("GET", Outcome.http(503), False),
    "B": ("POST", Outcome.network(), False),
    "C": ("POST", Outcome.http(422), False),
    "D": ("DELETE", Outcome.network(), False),
    "E": ("POST", Outcome.network(), True),
    "F": ("GET", Outcome.body(), False),
    "G": ("GET", Outcome.http(429), False),
    "H": ("HEAD", Outcome.network(), False),
}
#: The statuses exercise's codes: none of them is in the notebook's own status table.
STATUSES: tuple[int, ...] = (405, 408, 410, 413, 429, 501, 504, 507)


def cases_table() -> pd.DataFrame:
    """Exercise 1's cases as a table (method, outcome, key), one row per letter.

    >>> cases_table().loc["E"].tolist()
    ['POST', 'network', 'yes']
    """
    return pd.DataFrame(
        [(m, o.label(), "yes" if k else "no") for m, o, k in CASES.values()],
        index=pd.Index(list(CASES), name="case"), columns=["method", "outcome", "key"])


def _letters(answer: Any) -> set[str] | None:
    """The letters of ``answer`` ("AEG", ["a", "E"], {"G"}), or None."""
    items = [c for c in answer if c.isalpha()] if isinstance(answer, str) else as_items(answer)
    if items is None or not all(isinstance(x, str) for x in items):
        return None
    out = {x.strip().upper() for x in items}
    return out if out <= set(CASES) else None


@checker
def check_retried_cases(answer: Any) -> Feedback:
    """Which of :data:`CASES` does the lesson's rule retry? (a set of letters)

    >>> check_retried_cases({"A", "E", "G", "H"})
    Correct: A, E, G, H are retried: 503 and 429 change with time, and after a network
    error only a safe method or a keyed write is sent again.
    >>> check_retried_cases("AG").message.split(":")[0]
    'E is retried'
    """
    if unanswered(answer):
        return prompt('a set of letters such as {"A", "B"}')
    chosen = _letters(answer)
    if chosen is None:
        return wrong(f"answer={shown(answer)}: give a set of letters from "
                     f"{', '.join(CASES)}, such as {{'A', 'B'}}.")
    verdicts = {c: decide(o, m, k) for c, (m, o, k) in CASES.items()}
    should = {c for c, d in verdicts.items() if d.retry}
    for c in sorted(should - chosen):
        return wrong(f"{c} is retried: {verdicts[c].reason}.")
    for c in sorted(chosen - should):
        return wrong(f"{c} is not retried: {verdicts[c].reason}.")
    return right(f"{', '.join(sorted(should))} are retried: 503 and 429 change with time, "
                 "and after a network error only a safe method or a keyed write is sent "
                 "again.")


@checker
def check_retried_statuses(answer: Any) -> Feedback:
    """Which of :data:`STATUSES` are retried (for any method)?

    >>> check_retried_statuses({429, 501, 504, 507}).correct
    True
    >>> check_retried_statuses({501, 504, 507}).message
    '429 is missing: a rate limit resets with time, so 429 is the one 4xx that is retried.'
    """
    if unanswered(answer):
        return prompt("a set of status codes such as {400, 500}")
    whole = as_wholes(answer)
    if whole is None:
        return wrong(f"answer={shown(answer)}: give a set of whole status codes such as "
                     "{400, 500}.")
    chosen = set(whole)
    should = {s for s in STATUSES if decide(Outcome.http(s), "GET").retry}
    if 429 in should - chosen:
        return wrong("429 is missing: a rate limit resets with time, so 429 is the one "
                     "4xx that is retried.")
    missing = sorted(should - chosen)
    if missing:
        note = (" (501 Not Implemented will not change with time, but the lesson's rule "
                "does not single it out)" if missing[0] == 501 else "")
        return wrong(f"{missing[0]} is missing: the lesson's rule retries every 5xx, which "
                     f"reports the server's state right now{note}.")
    extra = sorted(chosen - should)
    if extra:
        s = extra[0]
        why = ("it is not in the list" if s not in STATUSES else
               "408 is a 4xx, and the lesson's rule retries no 4xx but 429 (RFC 9110 lets "
               "a client repeat a request after a 408 on a new connection, and many "
               "libraries do: the lesson's rule is stricter)" if s == 408 else
               "the request itself is wrong, so the same request gets the same answer")
        return wrong(f"{s} should not be retried: {why}.")
    return right(f"{', '.join(map(str, sorted(should)))}: a rate limit and the server's "
                 "state change with time; every other 4xx is about the request itself.")


def expected_duplicates(writes: int = 1000, drop_rate: float = 0.2,
                        max_attempts: int = 4) -> float:
    """Expected extra records when a POST without a key is retried after every dropped
    answer (each drop happens after storing): ``writes * (p + p**2 + ... + p**(n-1))``.

    >>> round(expected_duplicates(), 6)
    248.0
    """
    return writes * sum(drop_rate ** k for k in range(1, max_attempts))


@checker
def check_expected_duplicates(answer: Any) -> Feedback:
    """How many duplicates do 1,000 keyless writes make, on average, at a 20% drop rate
    and 4 attempts?

    >>> check_expected_duplicates(248).correct, check_expected_duplicates(200).correct
    (True, False)
    """
    if unanswered(answer):
        return prompt("a number of records")
    value = as_number(answer)
    if value is None:
        return wrong(f"answer={shown(answer)}: give a number, such as 123.")
    answer = value
    expected = expected_duplicates()
    if abs(answer - expected) <= 1:
        return right(f"about {expected:.0f}: 1000 x (0.2 + 0.04 + 0.008). Each dropped answer "
                     "was stored, and each one is followed by another attempt, except after "
                     "the fourth.")
    if abs(answer - 200) <= 1:
        return wrong("200 counts only the first retry; the second attempt's answer can be "
                     "dropped too (0.2 x 0.2), and the third's.")
    if abs(answer - 250) <= 1:
        return wrong("250 is the sum for endless retries (0.2 / 0.8 x 1000); four attempts "
                     "mean at most three retries.")
    if answer == 0:
        return wrong("0 would need an idempotency key: here the server stores every attempt "
                     "it receives, and a dropped answer is followed by another attempt.")
    return wrong(f"answer={answer!r}: a write is stored once per attempt that reaches the "
                 "server; a retry follows a drop with probability 0.2, at most three times.")
