"""Checkers for notebook 03 (the retry loop)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from ..core.constants import SEED
from ..core.outcome import Outcome
from ..core.policy import RetryPolicy, StopReason
from ..core.rng import Mulberry32
from ..i18n import _
from . import Feedback, as_text, as_wholes, checker, prompt, right, shown, unanswered, wrong

#: Exercise 1: (backoff wait in ms, the server's Retry-After in seconds or None).
PAIRS: tuple[tuple[int, float | None], ...] = ((184, 2), (2600, 2), (70, None), (900, 0.5))
#: Exercise 3: the most waiting, in ms, a person pressing "refresh" will accept.
PATIENCE_MS = 500


def loop_waits(pairs: tuple[tuple[int, float | None], ...] = PAIRS) -> list[int]:
    """The loop's wait for each pair: ``max(backoff, Retry-After x 1000)``.

    >>> loop_waits()
    [2000, 2600, 70, 900]
    """
    return [max(b, Outcome.http(503, retry_after=ra).retry_after_ms) for b, ra in pairs]


@checker
def check_waits(answer: Any) -> Feedback:
    """The four waits of :data:`PAIRS`, in ms.

    >>> check_waits([2000, 2600, 70, 900]).correct
    True
    >>> check_waits([2000, 2000, 70, 500]).message.split(":")[0]
    'pair 2 (backoff 2600 ms, Retry-After 2 s) waits 2600 ms, not 2000'
    """
    if unanswered(answer):
        return prompt(_("a list of four waits in ms, such as [1, 2, 3, 4]"))
    got = as_wholes(answer)
    if got is None:
        return wrong(f"answer={shown(answer)}: give a list of four whole numbers of ms.")
    if len(got) != len(PAIRS):
        return wrong(f"answer has {len(got)} waits: give one for each of the {len(PAIRS)} "
                     "pairs.")
    for i, ((b, ra), want, have) in enumerate(zip(PAIRS, loop_waits(), got, strict=True)):
        if want != have:
            said = "no Retry-After" if ra is None else f"Retry-After {ra:g} s"
            return wrong(f"pair {i + 1} (backoff {b} ms, {said}) waits {want} ms, not {have}: "
                         "the wait is the larger of the two, Retry-After in ms being a "
                         "lower bound, never a replacement.")
    return right(_("{waits}: the larger of the backoff and Retry-After each time; the "
                   "server's suggestion raises a short wait but never shortens a long "
                   "one.").format(waits=loop_waits()))


@checker
def check_give_up_reason(answer: Any) -> Feedback:
    """Why ``RetryPolicy.user_triggered()`` stops against 503 + ``Retry-After: 2``
    every time (the notebook shows the time budget on another policy, and a
    Retry-After longer than max_retry_after; this one is shorter).

    >>> check_give_up_reason("time_budget").correct
    True
    """
    if unanswered(answer):
        return prompt(_('a stop reason such as "max_attempts" (see StopReason)'))
    answers = iter([Outcome.http(503, retry_after=RETRY_AFTER_S)] * 5)
    r = RetryPolicy.user_triggered().run(lambda: next(answers), "GET", Mulberry32(SEED))
    text = as_text(answer)
    if text is None:
        return wrong(f"answer={shown(answer)}: give the reason as text, one of "
                     + ", ".join(repr(s.value) for s in StopReason) + ".")
    if text == r.reason.value:
        return right(_("{reason}: 2 s is within the preset's max_retry_after (3000 ms), so the "
                       "loop waits 2000 ms and tries again; after attempt {attempts} a second "
                       "2000 ms wait would pass the 3000 ms time budget, so it stops there, "
                       "before max_attempts=3 is reached.").format(reason=r.reason.value,
                                                                  attempts=r.attempts))
    if text == StopReason.RETRY_AFTER_TOO_LONG.value:
        return wrong(_("retry_after_too_long would be right for Retry-After: 30; 2 s is "
                       "below the preset's max_retry_after of 3000 ms, so it is honoured. What "
                       "does a second 2 s wait do to the 3000 ms time budget?"))
    if text == StopReason.MAX_ATTEMPTS.value:
        return wrong(_("max_attempts is 3, but the loop stops before the third attempt: "
                       "add up the waits and compare them with the preset's time_budget."))
    if text in {s.value for s in StopReason}:
        return wrong(_("{reason}: look at the preset's limits (max_attempts, time_budget, "
                       "max_retry_after) and follow the waits of 2 s.").format(reason=text))
    return wrong(f"answer={shown(answer)}: give one of "
                 + ", ".join(repr(s.value) for s in StopReason) + ".")


#: Exercise 3's Retry-After (s): below the preset's max_retry_after, unlike the 30 s above.
RETRY_AFTER_S = 2

#: What each closed exercise's checker accepts, as the page could print it
#: (tests/test_answers_hidden.py fails if one shows above its exercise).
ANSWERS: dict[str, tuple[str, ...]] = {
    "check_give_up_reason": ('"time_budget"', "reason=time_budget", "TIME_BUDGET"),
    "check_waits": ("2000, 2600, 70, 900", "[2000, 2600, 70, 900]"),
    "check_refresh_policy": (),  # a design: many policies pass
}

#: The largest draw Mulberry32 can return: the worst case for every jitter.
HIGHEST_DRAW = (2 ** 32 - 1) / 2 ** 32
#: Seeds the refresh policy is judged on besides the worst case: the lesson's and 400 more.
REFRESH_SEEDS: tuple[int, ...] = (SEED, *range(1, 401))
#: More sends than this against a dead station: the policy does not stop.
SEND_LIMIT = 100


def _draws() -> list[tuple[str, Callable[[], float]]]:
    """The generators a refresh policy is judged with: worst case first, then the seeds."""
    runs: list[tuple[str, Callable[[], float]]] = [
        ("with the highest possible draws", lambda: HIGHEST_DRAW)]
    runs += [(f"with Mulberry32({seed})", Mulberry32(seed)) for seed in REFRESH_SEEDS]
    return runs


@checker
def check_refresh_policy(answer: Any) -> Feedback:
    """A policy that survives two 503s yet waits at most :data:`PATIENCE_MS` in all,
    whatever the generator draws.

    The worst case is every draw at its highest, so the checker runs that first,
    then the lesson's seed and 400 others, against both stations.

    >>> from retrylab import Backoff
    >>> check_refresh_policy(RetryPolicy(3, Backoff(100, 2, 5000, jitter="full"))).correct
    True
    >>> check_refresh_policy(RetryPolicy(max_attempts=3)).message.split(":")[0]
    'with the highest possible draws, when the station stays down the loop waits [200, 400] ms'
    """
    if unanswered(answer):
        return prompt(_("a RetryPolicy(...)"))
    if not isinstance(answer, RetryPolicy):
        return wrong(f"answer={shown(answer)}: give a RetryPolicy(...), for example "
                     "RetryPolicy(max_attempts=2).")
    worst = 0
    for label, rng in _draws():
        script = iter([Outcome.http(503), Outcome.http(503)])

        def flaky(script: Iterator[Outcome] = script) -> Outcome:
            return next(script, Outcome.success([1]))
        first = answer.run(flaky, "GET", rng)
        if not first.ok:
            return wrong(f"{label}, against two 503s and then the data the loop stopped "
                         f"with {first.reason.value} after {first.attempts} attempt(s): it "
                         "needs three attempts within its limits, whatever the draws.")
        sends = [0]

        def down(sends: list[int] = sends) -> Outcome:
            sends[0] += 1
            return Outcome.http(503) if sends[0] <= SEND_LIMIT else Outcome.cancelled()
        second = answer.run(down, "GET", rng)
        if sends[0] > SEND_LIMIT:
            return wrong(f"{label}, against a station that stays down the loop sent more "
                         f"than {SEND_LIMIT} requests: limit the attempts.")
        total = sum(second.waits)
        if total > PATIENCE_MS:
            return wrong(f"{label}, when the station stays down the loop waits "
                         f"{list(second.waits)} ms: {total} ms in all, more than {PATIENCE_MS}. "
                         "The waits are random: bound the worst case (a smaller base or "
                         "cap), not one run.")
        worst = max(worst, total)
    return right(_("it gets the data on the third attempt for every generator tried, and "
                   "when the station stays down it gives up after at most {worst} ms of "
                   "waiting ({seeds} seeds and the highest draws).").format(
                       worst=worst, seeds=len(REFRESH_SEEDS)))
