"""Checkers for notebook 01 (which errors to retry)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from ..core.outcome import Outcome, decide
from ..i18n import N_, _
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

#: Exercise 2's cases: letter -> (method, outcome, idempotency key agreed). None of
#: their statuses or methods is a row or column of the notebook's verdict table, so
#: each is reasoned from the rule, not looked up.
CASES: dict[str, tuple[str, Outcome, bool]] = {
    "A": ("GET", Outcome.http(502), False),
    "B": ("POST", Outcome.http(409), False),
    "C": ("PUT", Outcome.http(504), False),
    "D": ("DELETE", Outcome.http(410), False),
    "E": ("TRACE", Outcome.network(), False),
    "F": ("CONNECT", Outcome.network(), True),
    "G": ("PATCH", Outcome.http(507), False),
    "H": ("HEAD", Outcome.http(401), False),
}
#: The statuses exercise's codes: none of them is in the notebook's own status table.
STATUSES: tuple[int, ...] = (405, 408, 410, 413, 425, 501, 504, 507)
#: Exercise 4's link: the drop rate and the attempts (the run above had 0.2 and 4).
DROP_RATE, MAX_ATTEMPTS = 0.3, 3


def cases_table() -> pd.DataFrame:
    """Exercise 1's cases as a table (method, outcome, key), one row per letter.

    >>> cases_table().loc["F"].tolist()
    ['CONNECT', 'network', 'yes']
    """
    return pd.DataFrame(
        [(m, o.label(), "yes" if k else "no") for m, o, k in CASES.values()],
        index=pd.Index(list(CASES), name="case"),
        columns=["method", "outcome", "key"],
    )


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

    >>> check_retried_cases("ACF").message.split(":")[0]
    'G is retried'
    """
    if unanswered(answer):
        return prompt(_('a set of letters such as {"A", "B"}'))
    chosen = _letters(answer)
    if chosen is None:
        return wrong(
            _(
                "answer={answer}: give a set of letters from {letters}, such as {{'A', 'B'}}."
            ).format(answer=shown(answer), letters=", ".join(CASES))
        )
    verdicts = {c: decide(o, m, k) for c, (m, o, k) in CASES.items()}
    should = {c for c, d in verdicts.items() if d.retry}
    network = {c for c, (_m, o, _k) in CASES.items() if o.kind == "network"}
    if chosen == set(CASES):
        return wrong(
            _(
                "every case retried: a 4xx is about the request itself, and after a "
                "network error a write without a key may have been stored already."
            )
        )
    if chosen == should - network and chosen != should:
        return wrong(
            _(
                "answer={answer}: no network error retried; the server's state is "
                "unknown after one, but a keyed write or a safe method may still be "
                "sent again."
            ).format(answer=", ".join(sorted(chosen)))
        )
    keyed = {c for c in network if CASES[c][2]}
    if should & network <= keyed and chosen & network == network - keyed and network - keyed:
        return wrong(
            _(
                "answer={answer}: the idempotency key read backwards; it is the key "
                "that makes a write after a network error safe to send again."
            ).format(answer=", ".join(sorted(chosen)))
        )
    writes_5xx = {
        c
        for c in should
        if CASES[c][1].kind == "http" and CASES[c][0] not in ("GET", "HEAD", "OPTIONS")
    }
    if writes_5xx and not chosen & writes_5xx and should - writes_5xx <= chosen:
        return wrong(
            _(
                "answer={answer}: a 5xx retried only for safe methods; after an HTTP "
                "answer the server's decision is known, so the method does not "
                "matter there."
            ).format(answer=", ".join(sorted(chosen)))
        )
    for c in sorted(should - chosen):
        return wrong(_("{case} is retried: {reason}.").format(case=c, reason=verdicts[c].reason))
    for c in sorted(chosen - should):
        return wrong(
            _("{case} is not retried: {reason}.").format(case=c, reason=verdicts[c].reason)
        )
    return right(
        _(
            "{letters} are retried: every 5xx reports the server's state, which "
            "changes with time, and after a network error only a safe method or a "
            "keyed write is sent again."
        ).format(letters=", ".join(sorted(should)))
    )


@checker
def check_retried_statuses(answer: Any) -> Feedback:
    """Which of :data:`STATUSES` are retried (for any method)?

    >>> check_retried_statuses({504, 507}).message.split(":")[0]
    '501 is missing'
    """
    if unanswered(answer):
        return prompt(_("a set of status codes such as {400, 500}"))
    whole = as_wholes(answer)
    if whole is None:
        return wrong(
            _("answer={answer}: give a set of whole status codes such as {{400, 500}}.").format(
                answer=shown(answer)
            )
        )
    chosen = set(whole)
    should = {s for s in STATUSES if decide(Outcome.http(s), "GET").retry}
    if chosen == set(STATUSES):
        return wrong(
            _(
                "all eight retried: a 4xx other than 429 is about the request "
                "itself, and the same request gets the same answer."
            )
        )
    if chosen == set(STATUSES) - should:
        return wrong(
            _(
                "answer={answer}: the other way round; those are the ones the rule never retries."
            ).format(answer=", ".join(map(str, sorted(chosen))))
        )
    if {408, 425} <= chosen and should <= chosen and chosen <= should | {408, 425}:
        return wrong(
            _(
                "408 and 425 retried: that is RFC 9110's and some libraries' list; "
                "the lesson's rule retries no 4xx but 429."
            )
        )
    if 429 in should - chosen:
        return wrong(
            _(
                "429 is missing: a rate limit resets with time, so 429 is the one "
                "4xx that is retried."
            )
        )
    missing = sorted(should - chosen)
    if missing and missing[0] == 501:
        return wrong(
            _(
                "501 is missing: the lesson's rule retries every 5xx, which reports "
                "the server's state right now (501 Not Implemented will not change "
                "with time, but the lesson's rule does not single it out)."
            )
        )
    if missing:
        return wrong(
            _(
                "{status} is missing: the lesson's rule retries every 5xx, which "
                "reports the server's state right now."
            ).format(status=missing[0])
        )
    extra = sorted(chosen - should)
    outside = sorted(chosen - set(STATUSES))
    if 429 in outside:
        return wrong(
            _(
                "429 is retried by the rule, but it is not one of the eight statuses "
                "asked about: give only those the rule retries among {asked}."
            ).format(asked=", ".join(map(str, STATUSES)))
        )
    if outside:
        return wrong(
            _("{status} is not one of the eight statuses asked about: {asked}.").format(
                status=outside[0], asked=", ".join(map(str, STATUSES))
            )
        )
    if extra:
        s = extra[0]
        if s not in STATUSES:
            return wrong(
                _("{status} should not be retried: it is not in the list.").format(status=s)
            )
        if s == 408:
            return wrong(
                _(
                    "408 should not be retried: 408 is a 4xx, and the lesson's rule "
                    "retries no 4xx but 429 (RFC 9110 lets a client repeat a request "
                    "after a 408 on a new connection, and many libraries do: the "
                    "lesson's rule is stricter)."
                )
            )
        reason = _REFUSED.get(s)
        if reason is not None:
            return wrong(_(reason))
        return wrong(
            _(
                "{status} should not be retried: the request itself is wrong, so the "
                "same request gets the same answer."
            ).format(status=s)
        )
    return right(
        _(
            "{statuses}: the server's state changes with time; every 4xx here is "
            "about the request itself (only 429, a rate limit, would be retried)."
        ).format(statuses=", ".join(map(str, sorted(should))))
    )


#: Exercise 3's 4xx with a hint of their own: why the same request gets the same answer.
_REFUSED: dict[int, str] = {
    405: N_(
        "405 should not be retried: the server refuses this method for this URL, and "
        "it will refuse the same method again."
    ),
    410: N_(
        "410 should not be retried: Gone says the resource was removed for good, "
        "unlike 404 or a 5xx, which may change."
    ),
    413: N_("413 should not be retried: the body is too large, and the same body stays too large."),
    425: N_(
        "425 should not be retried by the lesson's rule: Too Early asks for a request "
        "without early data, a different request; only 429 among the 4xx is retried."
    ),
}


def expected_duplicates(writes: int = 1000, drop_rate: float = 0.2, max_attempts: int = 4) -> float:
    """Expected extra records when a POST without a key is retried after every dropped
    answer (each drop happens after storing): ``writes * (p + p**2 + ... + p**(n-1))``.

    >>> round(expected_duplicates(), 6)
    248.0
    """
    return writes * sum(drop_rate**k for k in range(1, max_attempts))


@checker
def check_expected_duplicates(answer: Any) -> Feedback:
    """How many duplicates do 1,000 keyless writes make, on average, at a 30% drop rate
    and 3 attempts? (The notebook's run, 20% and 4 attempts, counted 249.)

    >>> check_expected_duplicates(249).correct
    False
    """
    if unanswered(answer):
        return prompt(_("a number of records"))
    value = as_number(answer)
    if value is None:
        return wrong(_("answer={answer}: give a number, such as 123.").format(answer=shown(answer)))
    answer = value
    expected = expected_duplicates(1000, DROP_RATE, MAX_ATTEMPTS)
    if abs(answer - expected) <= 1:
        return right(
            _(
                "about {expected}: 1000 x (0.3 + 0.09). Each dropped answer was "
                "stored, and each one is followed by another attempt, except after "
                "the third."
            ).format(expected=f"{expected:.0f}")
        )
    if abs(answer - expected_duplicates()) <= 2:
        return wrong(
            _(
                "that is the 20% run's count (4 attempts); this link drops 30% of the "
                "answers and allows 3 attempts: the same sum, with p = 0.3 and two "
                "retries."
            )
        )
    if abs(answer - 300) <= 1:
        return wrong(
            _(
                "300 counts only the first retry; the second attempt's answer can be "
                "dropped too (0.3 x 0.3)."
            )
        )
    if abs(answer - 1000 * 0.3 / 0.7) <= 1:
        return wrong(
            _(
                "429 is the sum for endless retries (0.3 / 0.7 x 1000); three attempts "
                "mean at most two retries."
            )
        )
    if abs(answer - expected_duplicates(1000, DROP_RATE, 4)) <= 1:
        return wrong(
            _(
                "that counts three retries; three attempts mean at most two retries "
                "(the first attempt is not a retry)."
            )
        )
    if abs(answer * 1000 - expected) <= 1:
        return wrong(
            _(
                "answer={answer} is per write; the question asks how many "
                "duplicates 1,000 writes make."
            ).format(answer=f"{answer:g}")
        )
    if abs(answer * 10 - expected) <= 1:
        return wrong(
            _(
                "answer={answer} is per 100 writes (a percentage); the question "
                "asks about 1,000 writes."
            ).format(answer=f"{answer:g}")
        )
    if abs(answer - 1000 - expected) <= 1:
        return wrong(
            _(
                "answer={answer} counts every record; the question asks for the "
                "duplicates, the records beyond the first of each write."
            ).format(answer=f"{answer:g}")
        )
    if abs(answer - 1000 * DROP_RATE**2) <= 1:
        return wrong(
            _(
                "answer={answer} counts only the second retry; the first retry, "
                "after the first dropped answer, stores a record too."
            ).format(answer=f"{answer:g}")
        )
    if abs(answer - 1000 * DROP_RATE * (MAX_ATTEMPTS - 1)) <= 1:
        return wrong(
            _(
                "answer={answer} gives each retry a 0.3 chance; the second retry "
                "happens only if the first retry's answer is dropped too."
            ).format(answer=f"{answer:g}")
        )
    if abs(answer - 1000 * DROP_RATE * MAX_ATTEMPTS) <= 1:
        return wrong(
            _(
                "answer={answer} counts all three attempts; the first attempt's "
                "record is the original, not a duplicate."
            ).format(answer=f"{answer:g}")
        )
    if abs(answer - 1000 * (1 - (1 - DROP_RATE) ** (MAX_ATTEMPTS - 1))) <= 1:
        return wrong(
            _(
                "answer={answer} treats the two retries as independent chances "
                "of a drop (1 - 0.7 x 0.7); a second retry happens only after a "
                "second drop, and every retry stores one duplicate."
            ).format(answer=f"{answer:g}")
        )
    if answer == 0:
        return wrong(
            _(
                "0 would need an idempotency key: here the server stores every "
                "attempt it receives, and a dropped answer is followed by another "
                "attempt."
            )
        )

    return wrong(
        _(
            "answer={answer}: a write is stored once per attempt that reaches the "
            "server; a retry follows a drop with probability 0.3, at most twice."
        ).format(answer=repr(answer))
    )
