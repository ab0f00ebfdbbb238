"""Checkers for notebook 05 (the mobile lesson's retry policy)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ..core.outcome import Outcome, should_retry
from ..core.policy import RetryPolicy
from ..lessons.mobile_code import kotlin_run
from ..lessons.mobile_mistakes import LIFECYCLE_LOOPS, lifecycle_table, outage_cost
from . import Feedback, as_wholes, prompt, right, unanswered, wrong

#: The failures exercise 2 asks about, by label.
FAILURES: dict[str, Outcome] = {
    "400": Outcome.http(400), "401": Outcome.http(401), "404": Outcome.http(404),
    "429": Outcome.http(429), "502": Outcome.http(502), "503": Outcome.http(503),
    "network": Outcome.network("timeout"),
}
#: Exercise 3: at most this many requests during the 10-minute outage.
MAX_OUTAGE_REQUESTS = 5


def _chosen(name: str, answer: Any, what: str, example: Sequence[str],
            known: Sequence[str], known_as: str) -> set[str] | Feedback:
    """``answer`` as a set of labels from ``known``, or the Feedback saying what is off.

    >>> _chosen("loops", ["policy"], "loop names", ("policy",), ["policy", "kotlin"],
    ...         "a loop in the table")
    {'policy'}
    >>> print(_chosen("loops", {"global"}, "loop names", ("policy",), ["policy"],
    ...               "a loop in the table").message)
    'global' is not a loop in the table: policy.
    """
    if unanswered(answer):
        quoted = ", ".join(f'"{e}"' for e in example)
        return prompt(f"a set of {what} such as {{{quoted}}}")
    if isinstance(answer, str) or not isinstance(answer, Iterable):
        shown = ", ".join(repr(e) for e in example)
        return wrong(f"{name}={answer!r}: give a set of {what}, e.g. {{{shown}}}.")
    given = {str(a) for a in answer}
    unknown = sorted(given - set(known))
    if unknown:
        return wrong(f"{unknown[0]!r} is not {known_as}: {', '.join(known)}.")
    return given


def _kotlin_waits() -> list[int]:
    run = kotlin_run([Outcome.network()] * 3 + [Outcome.success()], max_retries=3)
    return list(run.waits)


def check_kotlin_waits(waits: Any) -> Feedback:
    """Exercise 1: the three waits of ``executeWithRetry`` (base 1000 ms, lesson seed).

    >>> check_kotlin_waits([850, 1918, 4957])
    Correct: waits [850, 1918, 4957] ms: 1000 x 2^n x (0.5 + r), cut to whole ms by toLong().
    """
    if unanswered(waits):
        return prompt("the list of three waits in ms")
    expected = _kotlin_waits()
    given = as_wholes(waits)
    if given is None:
        return wrong(f"waits={waits!r}: give a list of three whole numbers of ms.")
    if given == expected:
        return right(f"waits {expected} ms: 1000 x 2^n x (0.5 + r), cut to whole ms by "
                     "toLong().")
    if len(given) != len(expected):
        return wrong(f"waits={given!r}: three failures before the success means three "
                     "waits, one before each retry.")
    if given == [1000, 2000, 4000]:
        return wrong("waits=[1000, 2000, 4000] are the delays before jitter; the Kotlin "
                     "multiplies each by (0.5 + Random.nextDouble()).")
    if all(0 <= g - e <= 1 for g, e in zip(given, expected, strict=True)):
        return wrong(f"waits={given!r}: nearly; Kotlin's toLong() truncates (4957.9 -> "
                     "4957), it does not round.")
    return wrong(f"waits={given!r}: run kotlin_run([Outcome.network()] * 3 + "
                 "[Outcome.success()]) and read .waits, or compute "
                 "int(1000 * 2**n * (0.5 + r)) with r from Mulberry32(SEED).")


def check_retryable(answer: Any) -> Feedback:
    """Exercise 2: which failures of a POST without an idempotency key are retried.

    >>> check_retryable({"429", "502", "503"}).correct
    True
    >>> print(check_retryable({"400", "502", "503", "429"}).message)
    '400' is about the request itself: the server rejected it, so repeating it gives the
    same answer (and stores nothing twice).
    """
    given = _chosen("answer", answer, "labels", ("404", "network"), sorted(FAILURES),
                    "one of the labels")
    if isinstance(given, Feedback):
        return given
    expected = {k for k, o in FAILURES.items() if should_retry(o, "POST")}
    for label in sorted(given - expected):
        if label == "network":
            return wrong("'network' on a POST without a key: the server may have stored "
                         "the write before the answer was lost; retrying could store it "
                         "twice.")
        return wrong(f"{label!r} is about the request itself: the server rejected it, so "
                     "repeating it gives the same answer (and stores nothing twice).")
    missing = sorted(expected - given)
    if missing:
        return wrong(f"{missing[0]!r} is retried too: "
                     + ("a rate limit resets with time." if missing[0] == "429"
                        else "a 5xx is the server's state right now; it can recover."))
    return right("429, 502 and 503 only: the server's answer can change with time; 4xx "
                 "will not, and a network error on a POST needs an idempotency key.")


def check_outage_policy(policy: Any) -> Feedback:
    """Exercise 3: a background-sync policy that is cheap during a 10-minute outage.

    >>> check_outage_policy(RetryPolicy.background()).correct
    True
    >>> print(check_outage_policy(RetryPolicy(1000)).message)
    it sent 214 requests during the 10-minute outage; allow at most 5 (max_attempts).
    """
    if unanswered(policy):
        return prompt("a RetryPolicy(...)")
    if not isinstance(policy, RetryPolicy):
        return wrong(f"policy={policy!r}: build a RetryPolicy(max_attempts=..., "
                     "backoff=Backoff(...), time_budget=...).")
    cost = outage_cost(policy)
    if cost.requests_during_outage > MAX_OUTAGE_REQUESTS:
        return wrong(f"it sent {cost.requests_during_outage} requests during the 10-minute "
                     f"outage; allow at most {MAX_OUTAGE_REQUESTS} (max_attempts).")
    if policy.time_budget is None:
        return wrong("no time_budget: give the whole run a total limit in ms, the "
                     "lesson's 'overall timeout'.")
    if policy.backoff.jitter == "none":
        return wrong("jitter='none': thousands of phones that failed together would "
                     "come back together; use jitter='full'.")
    return right(f"{cost.requests_during_outage} requests, radio on {cost.radio_on_s:g} s "
                 f"instead of 600 s; then hand the sync to the OS scheduler.")


def check_lifecycle(loops: Any) -> Feedback:
    """Exercise 4: which loops kept sending after the app went to the background.

    >>> check_lifecycle({"policy_detached", "asyncio_port"}).correct
    True
    """
    given = _chosen("loops", loops, "loop names", ("policy",), list(LIFECYCLE_LOOPS),
                    "a loop in the table")
    if isinstance(given, Feedback):
        return given
    table = lifecycle_table()
    expected = set(table.index[table["sent after background"] > 0])
    if given == expected:
        return right("policy_detached (nobody cancelled it) and asyncio_port (it swallowed "
                     "the CancelledError) kept the radio busy for a screen nobody sees.")
    extra = sorted(given - expected)
    if extra:
        return wrong(f"{extra[0]!r} sent nothing after the background: look at the column "
                     "'sent after background'.")
    return wrong(f"{sorted(expected - given)[0]!r} also sent requests after the "
                 "background.")
