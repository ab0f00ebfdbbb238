"""Checkers for notebook 01 (which errors to retry).

Each exercise is a table (:mod:`retrylab.exercises.table`): its inputs, what is
wanted (computed from them), and its usual mistakes, each a function of the same
inputs and one catalogue message.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd

from ..core.outcome import Outcome, decide
from ..i18n import N_, number
from . import Feedback, as_items, as_number, as_wholes, checker, shown_number
from .table import Exercise, Mistake, judge, near

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


def _cases_inputs() -> dict[str, Any]:
    verdicts = {c: decide(o, m, k) for c, (m, o, k) in CASES.items()}
    network = {c for c, (_m, o, _k) in CASES.items() if o.kind == "network"}
    should = {c for c, d in verdicts.items() if d.retry}
    return {
        "verdicts": verdicts,
        "network": network,
        "keyed": {c for c in network if CASES[c][2]},
        # 5xx answers to a write the rule retries (the method does not matter there)
        "writes_5xx": {
            c
            for c in should
            if CASES[c][1].kind == "http" and CASES[c][0] not in ("GET", "HEAD", "OPTIONS")
        },
        "letters": ", ".join(CASES),
    }


def _first_case(got: set[str], i: Any) -> dict[str, str]:
    """The first letter retried and not chosen, else the first chosen and not retried."""
    off = sorted(i["want"] - got) or sorted(got - i["want"])
    return {"case": off[0], "reason": i["verdicts"][off[0]].reason} if off else {}


def _key_backwards(got: set[str], i: Any) -> bool:
    unkeyed = i["network"] - i["keyed"]
    return bool(
        i["want"] & i["network"] <= i["keyed"] and got & i["network"] == unkeyed and unkeyed
    )


CASES_RETRIED = Exercise(
    asks=N_('a set of letters such as {"A", "B"}'),
    inputs=_cases_inputs,
    want=lambda i: {c for c, d in i["verdicts"].items() if d.retry},
    # the right answer's letters, for the right message only (the unreadable one names
    # every letter of the inputs, never the answer)
    fields=lambda i, want: {"retried": ", ".join(sorted(want))},
    read=_letters,
    named=("answer",),
    show=lambda got: ", ".join(sorted(got)),
    about=_first_case,
    unreadable=N_("answer={answer}: give a set of letters from {letters}, such as {{'A', 'B'}}."),
    right=N_(
        "{retried} are retried: every 5xx reports the server's state, which "
        "changes with time, and after a network error only a safe method or a "
        "keyed write is sent again."
    ),
    otherwise=N_("{case} is not retried: {reason}."),
    mistakes=(
        Mistake(
            N_(
                "every case retried: a 4xx is about the request itself, and after a "
                "network error a write without a key may have been stored already."
            ),
            gives=lambda i: set(CASES),
        ),
        Mistake(
            N_(
                "answer={answer}: no network error retried; the server's state is "
                "unknown after one, but a keyed write or a safe method may still be "
                "sent again."
            ),
            gives=lambda i: i["want"] - i["network"],
        ),
        Mistake(
            N_(
                "answer={answer}: the idempotency key read backwards; it is the key "
                "that makes a write after a network error safe to send again."
            ),
            when=_key_backwards,
            example=lambda i: (i["want"] - i["network"]) | (i["network"] - i["keyed"]),
        ),
        Mistake(
            N_(
                "answer={answer}: a 5xx retried only for safe methods; after an HTTP "
                "answer the server's decision is known, so the method does not "
                "matter there."
            ),
            when=lambda got, i: bool(
                i["writes_5xx"] and not got & i["writes_5xx"] and i["want"] - i["writes_5xx"] <= got
            ),
            example=lambda i: i["want"] - i["writes_5xx"] | i["network"] - i["keyed"],
        ),
        Mistake(
            N_("{case} is retried: {reason}."),
            when=lambda got, i: bool(i["want"] - got),
            # one retried case left out (a network one is the mistake above)
            example=lambda i: tuple(i["want"] - {c} for c in sorted(i["want"] - i["network"])),
        ),
        Mistake(
            N_("{case} is not retried: {reason}."),
            when=lambda got, i: bool(got - i["want"]),
            # one case the rule does not retry added
            example=lambda i: tuple(i["want"] | {c} for c in sorted(set(CASES) - i["want"])),
        ),
    ),
)


@checker
def check_retried_cases(answer: Any) -> Feedback:
    """Which of :data:`CASES` does the lesson's rule retry? (a set of letters)

    >>> check_retried_cases("ACF").message.split(":")[0]
    'G is retried'
    """
    return judge(CASES_RETRIED, answer)


def _statuses_inputs() -> dict[str, Any]:
    return {
        "should": {s for s in STATUSES if decide(Outcome.http(s), "GET").retry},
        "asked": ", ".join(map(str, STATUSES)),
        "loose": {408, 425},  # RFC 9110's and some libraries' extra retries
    }


def _off(got: set[int], i: Any) -> dict[str, list[int]]:
    """The statuses missing, those outside the eight asked about, and those extra."""
    return {
        "missing": sorted(i["want"] - got),
        "outside": sorted(got - set(STATUSES)),
        "extra": sorted(got - i["want"]),
    }


def _first_off(got: set[int], i: Any) -> dict[str, int]:
    off = _off(got, i)
    first = off["missing"] or off["outside"] or off["extra"]
    return {"status": first[0]} if first else {}


def _extra_is(status: int) -> Any:
    """A mistake's test: nothing missing or outside, and ``status`` the first extra."""

    def when(got: set[int], i: Any) -> bool:
        off = _off(got, i)
        return not off["missing"] and not off["outside"] and off["extra"][:1] == [status]

    return when


def _with(status: int) -> Callable[[Any], set[int]]:
    """The right statuses and ``status``: an answer naming ``status`` as an extra."""
    return lambda i: i["want"] | {status}


STATUSES_RETRIED = Exercise(
    asks=N_("a set of status codes such as {400, 500}"),
    inputs=_statuses_inputs,
    want=lambda i: i["should"],
    fields=lambda i, want: {"statuses": ", ".join(map(str, sorted(want)))},
    read=lambda answer: None if (whole := as_wholes(answer)) is None else set(whole),
    named=("answer",),
    show=lambda got: ", ".join(map(str, sorted(got))),
    about=_first_off,
    unreadable=N_("answer={answer}: give a set of whole status codes such as {{400, 500}}."),
    right=N_(
        "{statuses}: the server's state changes with time; every 4xx here is "
        "about the request itself (only 429, a rate limit, would be retried)."
    ),
    otherwise=N_(
        "{status} should not be retried: the request itself is wrong, so the "
        "same request gets the same answer."
    ),
    mistakes=(
        Mistake(
            N_(
                "all eight retried: a 4xx other than 429 is about the request "
                "itself, and the same request gets the same answer."
            ),
            gives=lambda i: set(STATUSES),
        ),
        Mistake(
            N_("answer={answer}: the other way round; those are the ones the rule never retries."),
            gives=lambda i: set(STATUSES) - i["want"],
        ),
        Mistake(
            N_(
                "408 and 425 retried: that is RFC 9110's and some libraries' list; "
                "the lesson's rule retries no 4xx but 429."
            ),
            when=lambda got, i: i["loose"] <= got and i["want"] <= got <= i["want"] | i["loose"],
            example=lambda i: i["want"] | i["loose"],
        ),
        Mistake(
            N_(
                "501 is missing: the lesson's rule retries every 5xx, which reports "
                "the server's state right now (501 Not Implemented will not change "
                "with time, but the lesson's rule does not single it out)."
            ),
            when=lambda got, i: _off(got, i)["missing"][:1] == [501],
            example=lambda i: i["want"] - {501},
        ),
        Mistake(
            N_(
                "{status} is missing: the lesson's rule retries every 5xx, which "
                "reports the server's state right now."
            ),
            when=lambda got, i: bool(_off(got, i)["missing"]),
            example=lambda i: set(sorted(i["want"])[:-1]),
        ),
        Mistake(
            N_(
                "429 is retried by the rule, but it is not one of the eight statuses "
                "asked about: give only those the rule retries among {asked}."
            ),
            when=lambda got, i: 429 in _off(got, i)["outside"],
            example=lambda i: i["want"] | {429},
        ),
        Mistake(
            N_("{status} is not one of the eight statuses asked about: {asked}."),
            when=lambda got, i: bool(_off(got, i)["outside"]),
            example=lambda i: i["want"] | {409},
        ),
        Mistake(
            N_(
                "408 should not be retried: 408 is a 4xx, and the lesson's rule "
                "retries no 4xx but 429 (RFC 9110 lets a client repeat a request "
                "after a 408 on a new connection, and many libraries do: the "
                "lesson's rule is stricter)."
            ),
            when=_extra_is(408),
            example=lambda i: i["want"] | {408},
        ),
        *(
            Mistake(message, when=_extra_is(status), example=_with(status))
            for status, message in (
                (
                    405,
                    N_(
                        "405 should not be retried: the server refuses this method for "
                        "this URL, and it will refuse the same method again."
                    ),
                ),
                (
                    410,
                    N_(
                        "410 should not be retried: Gone says the resource was removed "
                        "for good, unlike 404 or a 5xx, which may change."
                    ),
                ),
                (
                    413,
                    N_(
                        "413 should not be retried: the body is too large, and the same "
                        "body stays too large."
                    ),
                ),
                (
                    425,
                    N_(
                        "425 should not be retried by the lesson's rule: Too Early asks "
                        "for a request without early data, a different request; only 429 "
                        "among the 4xx is retried."
                    ),
                ),
            )
        ),
    ),
)


@checker
def check_retried_statuses(answer: Any) -> Feedback:
    """Which of :data:`STATUSES` are retried (for any method)?

    >>> check_retried_statuses({504, 507}).message.split(":")[0]
    '501 is missing'
    """
    return judge(STATUSES_RETRIED, answer)


def expected_duplicates(writes: int = 1000, drop_rate: float = 0.2, max_attempts: int = 4) -> float:
    """Expected extra records when a POST without a key is retried after every dropped
    answer (each drop happens after storing): ``writes * (p + p**2 + ... + p**(n-1))``.

    >>> round(expected_duplicates(), 6)
    248.0
    """
    return writes * sum(drop_rate**k for k in range(1, max_attempts))


#: Exercise 4's writes (the question asks about 1,000 of them).
WRITES = 1000

DUPLICATES = Exercise(
    asks=N_("a number of records"),
    inputs=lambda: {"writes": WRITES, "p": DROP_RATE, "n": MAX_ATTEMPTS},
    want=lambda i: expected_duplicates(i["writes"], i["p"], i["n"]),
    fields=lambda i, want: {"expected": number(want, 0)},
    read=as_number,
    equal=lambda got, want: abs(got - want) <= 1,
    named=("answer",),
    show=shown_number,
    unreadable=N_("answer={answer}: give a number, such as 123."),
    right=N_(
        "about {expected}: 1000 x (0.3 + 0.09). Each dropped answer was "
        "stored, and each one is followed by another attempt, except after "
        "the third."
    ),
    otherwise=N_(
        "answer={answer}: a write is stored once per attempt that reaches the "
        "server; a retry follows a drop with probability 0.3, at most twice."
    ),
    mistakes=(
        Mistake(
            N_(
                "that is the 20% run's count (4 attempts); this link drops 30% of the "
                "answers and allows 3 attempts: the same sum, with p = 0.3 and two "
                "retries."
            ),
            when=near(2, lambda i: expected_duplicates(i["writes"])),
            example=lambda i: expected_duplicates(i["writes"]),
        ),
        Mistake(
            N_(
                "300 counts only the first retry; the second attempt's answer can be "
                "dropped too (0.3 x 0.3)."
            ),
            gives=lambda i: i["writes"] * i["p"],
        ),
        Mistake(
            N_(
                "429 is the sum for endless retries (0.3 / 0.7 x 1000); three attempts "
                "mean at most two retries."
            ),
            gives=lambda i: i["writes"] * i["p"] / (1 - i["p"]),
        ),
        Mistake(
            N_(
                "that counts three retries; three attempts mean at most two retries "
                "(the first attempt is not a retry)."
            ),
            gives=lambda i: expected_duplicates(i["writes"], i["p"], i["n"] + 1),
        ),
        Mistake(
            N_(
                "answer={answer} is per write; the question asks how many "
                "duplicates 1,000 writes make."
            ),
            when=lambda got, i: abs(got * i["writes"] - i["want"]) <= 1,
            example=lambda i: i["want"] / i["writes"],
        ),
        Mistake(
            N_(
                "answer={answer} is per 100 writes (a percentage); the question "
                "asks about 1,000 writes."
            ),
            when=lambda got, i: abs(got * i["writes"] / 100 - i["want"]) <= 1,
            example=lambda i: i["want"] * 100 / i["writes"],
        ),
        Mistake(
            N_(
                "answer={answer} counts every record; the question asks for the "
                "duplicates, the records beyond the first of each write."
            ),
            gives=lambda i: i["writes"] + i["want"],
        ),
        Mistake(
            N_(
                "answer={answer} counts only the second retry; the first retry, "
                "after the first dropped answer, stores a record too."
            ),
            gives=lambda i: i["writes"] * i["p"] ** 2,
        ),
        Mistake(
            N_(
                "answer={answer} gives each retry a 0.3 chance; the second retry "
                "happens only if the first retry's answer is dropped too."
            ),
            gives=lambda i: i["writes"] * i["p"] * (i["n"] - 1),
        ),
        Mistake(
            N_(
                "answer={answer} counts all three attempts; the first attempt's "
                "record is the original, not a duplicate."
            ),
            gives=lambda i: i["writes"] * i["p"] * i["n"],
        ),
        Mistake(
            N_(
                "answer={answer} treats the two retries as independent chances "
                "of a drop (1 - 0.7 x 0.7); a second retry happens only after a "
                "second drop, and every retry stores one duplicate."
            ),
            gives=lambda i: i["writes"] * (1 - (1 - i["p"]) ** (i["n"] - 1)),
        ),
        Mistake(
            N_(
                "0 would need an idempotency key: here the server stores every "
                "attempt it receives, and a dropped answer is followed by another "
                "attempt."
            ),
            when=lambda got, i: got == 0,
            example=lambda i: 0,
        ),
    ),
)


@checker
def check_expected_duplicates(answer: Any) -> Feedback:
    """How many duplicates do 1,000 keyless writes make, on average, at a 30% drop rate
    and 3 attempts? (The notebook's run, 20% and 4 attempts, counted 249.)

    >>> check_expected_duplicates(249).correct
    False
    """
    return judge(DUPLICATES, answer)
