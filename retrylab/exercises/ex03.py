"""Checkers for notebook 03 (the retry loop).

The waits and the stop reason are tables (:mod:`retrylab.exercises.table`); the
refresh policy is run against the worst draws and 401 seeds.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from typing import Any

from ..core.constants import SEED
from ..core.outcome import Outcome
from ..core.policy import RetryPolicy, StopReason
from ..core.rng import Mulberry32
from ..i18n import N_, _
from . import (
    Feedback,
    as_text,
    as_whole,
    as_wholes,
    checker,
    prompt,
    right,
    shown,
    shown_number,
    unanswered,
    wrong,
)
from .table import Exercise, Mistake, in_seconds, judge

#: Exercise 1: (backoff wait in ms, the server's Retry-After in seconds or None).
PAIRS: tuple[tuple[int, float | None], ...] = ((184, 2), (2600, 2), (70, None), (900, 0.5))
#: Exercise 3: the most waiting, in ms, a person pressing "refresh" will accept.
PATIENCE_MS = 500


def _loop_waits(pairs: tuple[tuple[int, float | None], ...] = PAIRS) -> list[int]:
    """The loop's wait for each pair: ``max(backoff, Retry-After x 1000)``."""
    return [max(b, Outcome.http(503, retry_after=ra).retry_after_ms) for b, ra in pairs]


def _ms(seconds: float | None) -> int:
    return Outcome.http(503, retry_after=seconds).retry_after_ms


def _each(rule: Callable[[int, float | None], int]) -> Callable[[Any], list[int]]:
    """A slip's waits: ``rule(backoff, retry_after)`` for each pair."""
    return lambda i: [rule(b, ra) for b, ra in i["given"]]


def _first_wrong_pair(got: list[int], i: Any) -> dict[str, Any]:
    """The first pair whose wait is wrong: its number, backoff, Retry-After and waits."""
    for n, ((b, ra), one, have) in enumerate(zip(i["given"], i["want"], got, strict=False)):
        if one != have:
            seconds = "" if ra is None else shown_number(ra)
            return {"pair": n + 1, "backoff": b, "seconds": seconds, "want": one, "have": have}
    return {}


WAITS = Exercise(
    asks=N_("a list of four waits in ms, such as [1, 2, 3, 4]"),
    inputs=lambda: {"given": PAIRS, "pairs": len(PAIRS)},
    want=lambda i: _loop_waits(i["given"]),
    fields=lambda i, want: {"waits": want},
    read=as_wholes,
    named=("answer",),
    about=_first_wrong_pair,
    unreadable=N_("answer={answer}: give a list of four whole numbers of ms."),
    right=N_(
        "{waits}: the larger of the backoff and Retry-After each time; the "
        "server's suggestion raises a short wait but never shortens a long "
        "one."
    ),
    otherwise=N_(
        "pair {pair} (backoff {backoff} ms, Retry-After {seconds} s) waits "
        "{want} ms, not {have}: the wait is the larger of the two, "
        "Retry-After in ms being a lower bound, never a replacement."
    ),
    raw=(
        in_seconds(N_("answer={answer}: those are seconds; give each wait in ms.")),
        Mistake(
            N_(
                "answer={answer}: that is one number; give the four waits in a list, "
                "one for each pair, not their total."
            ),
            when=lambda answer, i: as_whole(answer) is not None,
            extra=lambda answer, i: {"answer": as_whole(answer)},
            example=lambda i: sum(i["want"]),
        ),
    ),
    mistakes=(
        Mistake(
            N_(
                "answer={answer}: the pair without Retry-After needs a wait too: the backoff's own."
            ),
            gives=lambda i: [
                w for w, (_b, ra) in zip(i["want"], i["given"], strict=True) if ra is not None
            ],
        ),
        Mistake(
            N_("answer={answer}: the right waits in another order; give them in the pairs' order."),
            when=lambda got, i: sorted(got) == sorted(i["want"]),
            example=lambda i: i["want"][::-1],
        ),
        *(
            Mistake(message, gives=_each(rule))
            for rule, message in (
                (
                    lambda b, ra: b,
                    N_(
                        "answer={answer}: that is the backoff alone; a server's "
                        "Retry-After is a lower bound the loop must respect."
                    ),
                ),
                (
                    lambda b, ra: b if ra is None else _ms(ra),
                    N_(
                        "answer={answer}: Retry-After replaced the backoff; it is a lower "
                        "bound, so a longer backoff still waits its own time."
                    ),
                ),
                (
                    lambda b, ra: b + _ms(ra),
                    N_(
                        "answer={answer}: the two were added; the loop waits the larger "
                        "of the two, not their sum."
                    ),
                ),
                (
                    lambda b, ra: b if ra is None else min(b, _ms(ra)),
                    N_(
                        "answer={answer}: that takes the smaller of the two; Retry-After "
                        "is a lower bound, so take the larger."
                    ),
                ),
                (
                    lambda b, ra: _ms(ra),
                    N_(
                        "answer={answer}: without Retry-After the wait is not 0; the loop "
                        "still waits its backoff."
                    ),
                ),
                (
                    lambda b, ra: b if ra is None else max(b, 1000 * math.ceil(ra)),
                    N_(
                        "answer={answer}: a Retry-After of 0.5 s rounded up to a whole "
                        "second; it is 500 ms."
                    ),
                ),
                (
                    lambda b, ra: max(
                        b, round(10_000 * ra) if ra is not None and ra < 1 else _ms(ra)
                    ),
                    N_("answer={answer}: 0.5 s read as 5 s; half a second is 500 ms."),
                ),
            )
        ),
        Mistake(
            N_("answer has {count} waits: give one for each of the {pairs} pairs."),
            when=lambda got, i: len(got) != i["pairs"],
            extra=lambda got, i: {"count": len(got)},
            example=lambda i: i["want"][:2],
        ),
        Mistake(
            N_(
                "pair {pair} (backoff {backoff} ms, no Retry-After) waits {want} "
                "ms, not {have}: the wait is the larger of the two, Retry-After "
                "in ms being a lower bound, never a replacement."
            ),
            when=lambda got, i: i["given"][_first_wrong_pair(got, i)["pair"] - 1][1] is None,
            example=lambda i: [
                w + (ra is None) for w, (_b, ra) in zip(i["want"], i["given"], strict=True)
            ],
        ),
    ),
)


@checker
def check_waits(answer: Any) -> Feedback:
    """The four waits of :data:`PAIRS`, in ms.

    >>> check_waits([2000, 2000, 70, 500]).message.split(";")[0].split(": ")[1]
    'Retry-After replaced the backoff'
    >>> check_waits([2000, 2000, 70, 900]).message.split(":")[0]
    'pair 2 (backoff 2600 ms, Retry-After 2 s) waits 2600 ms, not 2000'
    """
    return judge(WAITS, answer)


def _give_up_inputs() -> dict[str, Any]:
    answers = iter([Outcome.http(503, retry_after=RETRY_AFTER_S)] * 5)
    run = RetryPolicy.user_triggered().run(
        lambda: next(answers), "GET", Mulberry32(SEED), sleep=None
    )
    return {"run": run, "attempts": run.attempts, "reasons": ", ".join(map(repr, _REASONS))}


def _reason(answer: Any) -> str | None:
    """A stop reason as text, spaces and dashes read as ``_`` ("Time budget")."""
    text = as_text(answer)
    return None if text is None else "_".join(text.replace("-", " ").split())


#: The stop reasons (StopReason's values).
_REASONS = tuple(s.value for s in StopReason)
#: Exercise 3's other answers a student gives, and what each hint says.
_REASON_SLIPS: dict[str, str] = {
    StopReason.RETRY_AFTER_TOO_LONG.value: N_(
        "retry_after_too_long would be right for Retry-After: 30; 2 s is "
        "below the preset's max_retry_after of 3000 ms, so it is honoured. What "
        "does a second 2 s wait do to the 3000 ms time budget?"
    ),
    StopReason.MAX_ATTEMPTS.value: N_(
        "max_attempts is 3, but the loop stops before the third attempt: "
        "add up the waits and compare them with the preset's time_budget."
    ),
    "success": N_(
        "success would need an answer other than 503; this station answers 503 "
        "every time, so the loop gives up."
    ),
    "not_retryable": N_(
        "not_retryable would fit a 4xx such as 400; a 503 is retried, and "
        "the loop waits 2 s before trying again."
    ),
    "max_retry_after": N_(
        "max_retry_after is a setting, not a stop reason, and 2 s is below "
        "it: the loop honours the 2 s. What does waiting do to the "
        "preset's other limit on time?"
    ),
    "timeout": N_(
        "timeout is not a stop reason: a timeout limits one attempt. Which of the "
        "preset's limits counts the time spent waiting between attempts?"
    ),
    "retry_after": N_(
        "retry_after is not a stop reason on its own: the Retry-After of 2 s "
        "is honoured. Follow the waits and compare them with the preset's "
        "limits."
    ),
    "max_attempts_reached": N_(
        "max_attempts is 3, but the loop stops before the third "
        "attempt: add up the waits and compare them with the "
        "preset's time_budget."
    ),
    "cancelled": N_(
        "cancelled means the caller stopped the loop; nothing does here: one of "
        "the preset's own limits stops it."
    ),
}


def _said(text: str) -> Callable[[Any], str]:
    return lambda i: text


GIVE_UP = Exercise(
    asks=N_('a stop reason such as "max_attempts" (see StopReason)'),
    inputs=_give_up_inputs,
    want=lambda i: i["run"].reason.value,
    read=_reason,
    named=("answer", "reason"),
    about=lambda got, i: {"answer": repr(got)},
    unreadable=N_("answer={answer}: give the reason as text, one of {reasons}."),
    right=N_(
        "{reason}: 2 s is within the preset's max_retry_after (3000 ms), so the "
        "loop waits 2000 ms and tries again; after attempt {attempts} a second "
        "2000 ms wait would pass the 3000 ms time budget, so it stops there, "
        "before max_attempts=3 is reached."
    ),
    otherwise=N_("answer={answer}: give one of {reasons}."),
    mistakes=(
        *(Mistake(message, gives=_said(text)) for text, message in _REASON_SLIPS.items()),
        Mistake(
            N_(
                "{reason}: look at the preset's limits (max_attempts, time_budget, "
                "max_retry_after) and follow the waits of 2 s."
            ),
            when=lambda got, i: got in _REASONS,
            example=lambda i: next(r for r in _REASONS if r not in _REASON_SLIPS | {i["want"]: 0}),
        ),
    ),
)


@checker
def check_give_up_reason(answer: Any) -> Feedback:
    """Why ``RetryPolicy.user_triggered()`` stops against 503 + ``Retry-After: 2``
    every time (the notebook shows the time budget on another policy, and a
    Retry-After longer than max_retry_after; this one is shorter).
    """
    return judge(GIVE_UP, answer)


#: Exercise 3's Retry-After (s): below the preset's max_retry_after, unlike the 30 s above.
RETRY_AFTER_S = 2
#: The largest draw Mulberry32 can return: the worst case for every jitter.
HIGHEST_DRAW = (2**32 - 1) / 2**32
#: Seeds the refresh policy is judged on besides the worst case: the lesson's and 400 more.
REFRESH_SEEDS: tuple[int, ...] = (SEED, *range(1, 401))
#: More sends than this against a dead station: the policy does not stop.
SEND_LIMIT = 100


def _draws() -> list[tuple[str, Callable[[], float]]]:
    """The generators a refresh policy is judged with: worst case first, then the seeds."""
    runs: list[tuple[str, Callable[[], float]]] = [
        (_("with the highest possible draws"), lambda: HIGHEST_DRAW)
    ]
    runs += [
        (_("with Mulberry32({seed})").format(seed=seed), Mulberry32(seed)) for seed in REFRESH_SEEDS
    ]
    return runs


@checker
def check_refresh_policy(answer: Any) -> Feedback:
    """A policy that survives two 503s yet waits at most :data:`PATIENCE_MS` in all,
    whatever the generator draws.

    The worst case is every draw at its highest, so the checker runs that first,
    then the lesson's seed and 400 others, against both stations.

    >>> from retrylab import Backoff
    >>> check_refresh_policy(RetryPolicy(3, Backoff(250, 2, 5000, jitter="full"))
    ...                      ).message.split(":")[0]
    'with the highest possible draws, when the station stays down the loop waits [250, 500] ms'
    """
    if unanswered(answer):
        return prompt(_("a RetryPolicy(...)"))
    if not isinstance(answer, RetryPolicy):
        return wrong(
            _(
                "answer={answer}: give a RetryPolicy(...), for example RetryPolicy(max_attempts=2)."
            ).format(answer=shown(answer))
        )
    worst = 0
    for label, rng in _draws():
        script = iter([Outcome.http(503), Outcome.http(503)])

        def flaky(script: Iterator[Outcome] = script) -> Outcome:
            return next(script, Outcome.success([1]))

        first = answer.run(flaky, "GET", rng, sleep=None)
        if not first.ok and first.reason is StopReason.TIME_BUDGET:
            return wrong(
                _(
                    "{label}, against two 503s and then the data the time budget "
                    "stopped the loop after {attempts} attempt(s): a budget does not "
                    "shorten the waits, it only cuts the attempts; make the waits "
                    "themselves smaller."
                ).format(label=label, attempts=first.attempts)
            )
        if not first.ok:
            return wrong(
                _(
                    "{label}, against two 503s and then the data the loop stopped "
                    "with {reason} after {attempts} attempt(s): it needs three "
                    "attempts within its limits, whatever the draws."
                ).format(label=label, reason=first.reason.value, attempts=first.attempts)
            )
        sends = [0]

        def down(sends: list[int] = sends) -> Outcome:
            sends[0] += 1
            return Outcome.http(503) if sends[0] <= SEND_LIMIT else Outcome.cancelled()

        second = answer.run(down, "GET", rng, sleep=None)
        if sends[0] > SEND_LIMIT:
            return wrong(
                _(
                    "{label}, against a station that stays down the loop sent more "
                    "than {limit} requests: limit the attempts."
                ).format(label=label, limit=SEND_LIMIT)
            )
        total = sum(second.waits)
        if total > PATIENCE_MS and answer.backoff.jitter == "none":
            return wrong(
                _(
                    "without jitter every run waits the same, {waits} ms when the "
                    "station stays down: {total} ms in all, more than {patience}. "
                    "Lower the base or the cap, or allow fewer retries."
                ).format(waits=list(second.waits), total=total, patience=PATIENCE_MS)
            )
        if total > PATIENCE_MS and answer.backoff == RetryPolicy().backoff:
            return wrong(
                _(
                    "{label}, the default backoff (base 200 ms, factor 2) waits {waits} "
                    "ms when the station stays down: {total} ms in all, more than "
                    "{patience}. Choose a backoff of your own whose worst case fits."
                ).format(label=label, waits=list(second.waits), total=total, patience=PATIENCE_MS)
            )
        if total > PATIENCE_MS and answer.backoff.jitter == "equal":
            return wrong(
                _(
                    "{label}, equal jitter waits {waits} ms when the station stays "
                    "down: {total} ms in all, more than {patience}. Equal jitter waits "
                    "at least half of each ceiling and at most all of it: bound the "
                    "ceilings."
                ).format(label=label, waits=list(second.waits), total=total, patience=PATIENCE_MS)
            )
        if total > PATIENCE_MS and answer.backoff.jitter == "decorrelated":
            return wrong(
                _(
                    "{label}, decorrelated jitter waits {waits} ms when the station "
                    "stays down: {total} ms in all, more than {patience}. Each wait "
                    "may reach 3 times the one before, up to the cap: bound the worst "
                    "case."
                ).format(label=label, waits=list(second.waits), total=total, patience=PATIENCE_MS)
            )
        if total > PATIENCE_MS and second.attempts > 3:
            return wrong(
                _(
                    "{label}, when the station stays down the loop makes {attempts} "
                    "attempts and waits {total} ms in all, more than {patience}: "
                    "every extra retry adds a wait, and the data needs only three "
                    "attempts."
                ).format(label=label, attempts=second.attempts, total=total, patience=PATIENCE_MS)
            )
        if total > PATIENCE_MS:
            return wrong(
                _(
                    "{label}, when the station stays down the loop waits {waits} ms: "
                    "{total} ms in all, more than {patience}. The waits are random: "
                    "bound the worst case (a smaller base or cap), not one run."
                ).format(label=label, waits=list(second.waits), total=total, patience=PATIENCE_MS)
            )

        worst = max(worst, total)
    return right(
        _(
            "it gets the data on the third attempt for every generator tried, and "
            "when the station stays down it gives up after at most {worst} ms of "
            "waiting ({seeds} seeds and the highest draws)."
        ).format(worst=worst, seeds=len(REFRESH_SEEDS))
    )
