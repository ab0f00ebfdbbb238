"""Checkers for notebook 00 (start here)."""

from __future__ import annotations

import itertools
from typing import Any

from ..core.backoff import Backoff
from ..core.constants import SEED
from ..core.jsround import js_round
from ..core.outcome import Outcome
from ..core.policy import RetryPolicy
from ..core.rng import Mulberry32
from ..i18n import N_, _
from . import (
    Feedback,
    as_numbers,
    as_pair,
    as_whole,
    as_wholes,
    checker,
    prompt,
    right,
    shown,
    unanswered,
    wrong,
)
from .table import Exercise, Mistake, in_seconds, judge, one_in_seconds, sealed

#: The notebook's first loop (four attempts, full jitter): exercises 1 and 2.
LOOP_ATTEMPTS = 4
LOOP_BACKOFF = Backoff(200, 2, 5000, jitter="full")


def _three_failures_inputs() -> dict[str, Any]:
    answers = iter([Outcome.http(503)] * 3 + [Outcome.success()])
    r = RetryPolicy(LOOP_ATTEMPTS, LOOP_BACKOFF).run(
        lambda: next(answers), rng=Mulberry32(SEED), sleep=None
    )
    waits = list(r.waits)
    return {
        "runs": (r.attempts, waits),
        "ceilings": [LOOP_BACKOFF.ceiling(n) for n in range(len(waits))],
    }


def _parts(answer: Any) -> tuple[Any, Any]:
    """(attempts, waits) as the checker was called, or two Nones."""
    pair = as_pair(answer) if isinstance(answer, (tuple, list)) else None
    return pair if pair is not None else (None, None)


def _read_run(answer: Any) -> tuple[int, list[int]] | None:
    attempts, waits = _parts(answer)
    count, given = as_whole(attempts), as_wholes(waits)
    return None if count is None or given is None else (count, given)


def _seconds(answer: Any) -> list[float] | None:
    """The waits of a whole number of attempts and a list of numbers, else None."""
    attempts, waits = _parts(answer)
    return None if as_whole(attempts) is None else as_numbers(waits)


def _same_run(count: int, waits: list[int]) -> tuple[tuple[int, list[int]]]:
    return ((count, waits),)


THREE_FAILURES = Exercise(
    asks=N_("the number of attempts and the list of waits in ms"),
    inputs=_three_failures_inputs,
    want=lambda i: i["runs"],
    fields=lambda i, want: {"between": want[0] - 1},
    read=_read_run,
    blank=lambda answer: unanswered(answer) or any(unanswered(x) for x in _parts(answer)),
    quoted=lambda answer: {"attempts": shown(_parts(answer)[0]), "waits": shown(_parts(answer)[1])},
    given=lambda got: {"attempts": got[0], "waits": got[1], "between": got[0] - 1},
    unreadable=N_(
        "waits={waits}: give the waits as a list of whole numbers of ms, such as [100, 200]."
    ),
    right=N_(
        "{attempts} attempts, waits {waits}: the third wait (retry n = 2, before "
        "attempt 4) draws from an 800 ms ceiling."
    ),
    otherwise=N_(
        "waits={waits}: there is one wait between each pair of attempts, and "
        "retry n (n = 0 for the first) draws r x min(5000, 200 x 2**n). Run "
        "the loop with a fresh Mulberry32(SEED)."
    ),
    raw=(
        Mistake(
            N_(
                "waits={waits}: that is one number; give each wait in a list, one "
                "before each retry, not their total."
            ),
            when=lambda a, i: (
                as_whole(_parts(a)[0]) is not None and as_wholes([_parts(a)[1]]) is not None
            ),
            example=lambda i: ((i["want"][0], sum(i["want"][1])),),
        ),
        in_seconds(
            N_("waits={waits}: those are seconds; the lesson gives every wait in ms."),
            ms=lambda i: i["want"][1],
            numbers=_seconds,
            example=lambda i: ((i["want"][0], [w / 1000 for w in i["want"][1]]),),
        ),
        Mistake(
            N_("attempts={attempts}: give the number of attempts as a whole number, such as 2."),
            when=lambda a, i: as_whole(_parts(a)[0]) is None,
            example=lambda i: ((i["want"][0] + 0.5, i["want"][1]), ("four", i["want"][1])),
        ),
    ),
    mistakes=(
        Mistake(
            N_(
                "attempts={attempts}: count every request sent, the first one "
                "included; three failures then one success."
            ),
            when=lambda got, i: got[0] != i["want"][0],
            example=lambda i: (
                (i["want"][0] - 1, i["want"][1][:-1]),
                (i["want"][0] - 1, i["want"][1]),
            ),
        ),
        Mistake(
            N_(
                "waits={waits}: {attempts} attempts have {between} waits between them, "
                "one before each retry."
            ),
            when=lambda got, i: len(got[1]) != got[0] - 1,
            example=lambda i: (
                (i["want"][0], i["want"][1][:-1]),
                (i["want"][0], [*i["want"][1], i["ceilings"][-1]]),
            ),
        ),
        Mistake(
            N_(
                "waits={waits}: those are the ceilings; full jitter draws each wait "
                "below its ceiling, r x min(5000, 200 x 2**n). Run the loop with a "
                "fresh Mulberry32(SEED)."
            ),
            gives=lambda i: _same_run(i["want"][0], i["ceilings"]),
        ),
        Mistake(
            N_(
                "waits={waits}: the right waits in the wrong order; the first retry "
                "waits first, and the ceilings grow."
            ),
            gives=lambda i: _same_run(i["want"][0], i["want"][1][::-1]),
        ),
        Mistake(
            N_(
                "waits={waits}: those add up; each is the time since the first "
                "attempt failed. Give each wait on its own."
            ),
            gives=lambda i: _same_run(i["want"][0], list(itertools.accumulate(i["want"][1]))),
        ),
        Mistake(
            N_(
                "waits={waits}: those draw below min(5000, 200 x 2**(n + 1)); the "
                "first retry is n = 0, whose ceiling is the base, 200 ms."
            ),
            gives=lambda i: _same_run(i["want"][0], _draws_times(i["between"], shift=1)),
        ),
        Mistake(
            N_(
                "waits={waits}: those come from a generator an earlier run had "
                "already drawn from; run the loop with a fresh Mulberry32(SEED)."
            ),
            gives=lambda i: tuple(
                (i["want"][0], _draws_times(i["between"], skip=skipped)) for skipped in (1, 2, 3)
            ),
        ),
    ),
)


@checker
def check_three_failures(attempts: Any, waits: Any) -> Feedback:
    """Three 503s then success, four attempts allowed, lesson seed.

    >>> print(check_three_failures(4, [200, 400, 800]).message[:40])
    waits=[200, 400, 800]: those are the cei
    """
    return judge(THREE_FAILURES, (attempts, waits))


def _draws_times(waits: int, shift: int = 0, skip: int = 0) -> list[int]:
    """The first loop's waits drawn from ceilings ``shift`` retries on, after ``skip``
    draws: what a loop counting n from 1, or a generator already used, gives."""
    rng = Mulberry32(SEED)
    for _i in range(skip):
        rng()
    return [js_round(rng() * LOOP_BACKOFF.ceiling(n + shift)) for n in range(waits)]


#: Exercise 3's answer, stored as a salted digest (table.sealed), not as the number.
_WHICH_SALT = "retrylab ex00 which notebook"
_WHICH_NOTEBOOK = "9c21fbdf39c6a683fdf5199cb4b9a831f61bd4814a48b614533a98e7c0f3cace"


@checker
def check_which_notebook(notebook: Any) -> Feedback:
    """The notebook on which failures are retried.

    >>> check_which_notebook(3).correct
    False
    """
    if unanswered(notebook):
        return prompt(_("a notebook number such as 2"))
    number = as_whole(notebook)
    if number is None:
        return wrong(
            _(
                "notebook={notebook}: give the notebook's number as a whole number, such as 2."
            ).format(notebook=shown(notebook))
        )
    if sealed(_WHICH_SALT, number) == _WHICH_NOTEBOOK:
        return right(
            _(
                "notebook 01: a timeout leaves it unknown whether the server acted, "
                "so a POST is retried only with an idempotency key."
            )
        )
    return wrong(
        _(
            "notebook={notebook}: that one is about something else; look for the "
            "notebook on *which* errors to retry."
        ).format(notebook=number)
    )


def _longest_inputs() -> dict[str, Any]:
    retries = LOOP_ATTEMPTS - 1
    ceilings = [LOOP_BACKOFF.ceiling(n) for n in range(retries)]
    seeded = (
        RetryPolicy(LOOP_ATTEMPTS, LOOP_BACKOFF)
        .run(lambda: Outcome.http(503), rng=Mulberry32(SEED), sleep=None)
        .waits
    )
    return {"retries": retries, "each": ceilings, "backoff": LOOP_BACKOFF, "seeded": sum(seeded)}


LONGEST = Exercise(
    asks=N_("the longest total wait in ms, a whole number"),
    inputs=_longest_inputs,
    want=lambda i: sum(i["each"]),
    fields=lambda i, want: {"total": want, "ceilings": " + ".join(map(str, i["each"]))},
    read=as_whole,
    quote_early=lambda answer, number: shown(answer),
    unreadable=N_("longest={value}: give the total wait as a whole number of ms, such as 300."),
    right=N_(
        "{total} ms: the ceilings {ceilings} of retries n = 0, 1, 2. No seed "
        "waits longer; a seed only picks where under each ceiling a wait "
        "falls."
    ),
    otherwise=N_(
        "{value} ms: each wait is at most its ceiling, min(5000, 200 x 2**n) for "
        "retry n; add the ceilings of the three retries."
    ),
    early=(one_in_seconds(N_("longest={value}: that is in seconds; give the total in whole ms.")),),
    mistakes=(
        Mistake(
            N_(
                "{value} ms is two waits: four attempts have three waits between "
                "them, one before each retry."
            ),
            gives=lambda i: sum(i["each"][:-1]),
        ),
        Mistake(
            N_(
                "{value} ms adds four waits: four attempts have three waits between "
                "them, one before each retry, none after the last."
            ),
            gives=lambda i: i["want"] + i["backoff"].ceiling(i["retries"]),
        ),
        Mistake(
            N_(
                "{value} ms starts at n = 1: the first retry is n = 0, whose ceiling "
                "is the base, 200 ms."
            ),
            gives=lambda i: sum(i["backoff"].ceiling(n) for n in range(1, i["retries"] + 1)),
        ),
        Mistake(
            N_(
                "{value} ms is the average (half of each ceiling): the longest comes "
                "when every draw is near its highest."
            ),
            when=lambda got, i: got * 2 == i["want"],
            example=lambda i: i["want"] // 2,
        ),
        Mistake(
            N_(
                "{value} ms is three times the cap: the ceilings 200 x 2**n stay below "
                "the 5 s cap for these three retries."
            ),
            gives=lambda i: i["backoff"].cap * i["retries"],
        ),
        Mistake(
            N_(
                "{value} ms is the last wait's ceiling alone; the loop waits before "
                "each of the three retries: add them all."
            ),
            gives=lambda i: i["each"][-1],
        ),
        Mistake(
            N_(
                "{value} ms is the ceiling of a fourth retry (n = 3), which four "
                "attempts never reach; add the ceilings of the retries there "
                "are."
            ),
            gives=lambda i: i["backoff"].ceiling(i["retries"]),
        ),
        Mistake(
            N_(
                "{value} ms is the cap: it bounds each wait, not the total, and "
                "these three ceilings stay below it."
            ),
            gives=lambda i: i["backoff"].cap,
        ),
        Mistake(
            N_(
                "{value} ms is just short: the wait rounds r x ceiling, so a draw "
                "close enough to 1 gives the whole ceiling."
            ),
            when=lambda got, i: i["want"] - len(i["each"]) <= got < i["want"],
            example=lambda i: i["want"] - 1,
        ),
        Mistake(
            N_(
                "{value} ms is what the lesson's seed waits: the question asks for "
                "any seed, and a draw can come as close to 1 as you like."
            ),
            gives=lambda i: i["seeded"],
        ),
    ),
)


@checker
def check_longest_wait(longest: Any) -> Feedback:
    """The longest total wait of the first loop's policy against a station that never
    answers, for any seed: the sum of the three retries' ceilings.

    >>> print(check_longest_wait(600).message)
    600 ms is two waits: four attempts have three waits between them, one before each
    retry.
    """
    return judge(LONGEST, longest)
