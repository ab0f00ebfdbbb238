"""Checkers for notebooks 05, 05b and A1 (the mobile lesson's retry policy).

Notebook 05: :func:`check_retryable`, :func:`check_proportional_range`;
05b (the four mistakes): :func:`check_outage_policy`, :func:`check_lifecycle`;
A1 (the code samples): :func:`check_kotlin_waits`. Every checker returns a
:class:`~retrylab.exercises.Feedback` and never raises at the student.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence, Sized
from itertools import islice
from typing import Any

from ..core.backoff import Backoff
from ..core.constants import SEED
from ..core.outcome import Outcome
from ..core.policy import RetryPolicy
from ..core.rng import Mulberry32
from ..i18n import N_, _
from ..lessons.mobile_code import kotlin_run
from ..lessons.mobile_mistakes import LIFECYCLE_LOOPS, lifecycle_table, outage_cost
from . import Feedback, as_wholes, checker, plain_policy, prompt, right, shown, unanswered, wrong

#: The failures exercise 1 of notebook 05 asks about, by label.
FAILURES: dict[str, Outcome] = {
    "400": Outcome.http(400),
    "401": Outcome.http(401),
    "404": Outcome.http(404),
    "429": Outcome.http(429),
    "502": Outcome.http(502),
    "503": Outcome.http(503),
    "network": Outcome.network("timeout"),
}
#: After which failures a keyless POST may be sent again: the answer can change
#: with time *and* the server said it did not act on the request (a 429 is the
#: rate limiter turning it away before it is handled). A 502 or 503 may come
#: from a gateway after the server behind it stored the write; a network error
#: may have been lost on its way back after the store.
KEYLESS_POST_SAFE = frozenset({"429"})
#: Notebook 05 exercise 2: the retry whose proportional-jitter range is asked for
#: (n = 3, 0-based as in ``base * 2**n``: the wait before attempt 5), and the base.
RANGE_RETRY, RANGE_BASE = 3, 1000
#: Answers longer than this are not read to the end (an endless iterator stops here).
MAX_ITEMS = 100
#: Exercise 3 of 05b: at most this many requests during the 10-minute outage.
MAX_OUTAGE_REQUESTS = 5
#: 05b exercise 1: a limit this high is no limit; a budget or a base below these is a
#: figure meant in seconds (one request takes 300 ms to fail).
ENDLESS_ATTEMPTS, MIN_BUDGET_MS, MIN_BASE_MS = 100, 1000, 100


def _wholes(answer: Any) -> list[int] | None:
    """:func:`as_wholes`, but None for a dict or a collection that fails while read.

    >>> _wholes((4000.0, 12000)), _wholes({4000: 1}), _wholes(True)
    ([4000, 12000], None, None)
    """
    if isinstance(answer, dict):
        return None
    try:
        if isinstance(answer, Iterable) and not isinstance(answer, Sized):
            answer = list(islice(answer, MAX_ITEMS + 1))  # an endless iterator ends here
        if isinstance(answer, Sized) and len(answer) > MAX_ITEMS:
            return None
        return as_wholes(answer)
    except Exception:  # a generator that raises: never raise at the student
        return None


#: :func:`_chosen`'s sentences, one per kind of set asked for (whole sentences, so
#: each can be translated as one).
_SET_PROMPT = {
    "labels": N_("a set of labels such as {example}"),
    "loop names": N_("a set of loop names such as {example}"),
}
_SET_GIVE = {
    "labels": N_("{name}={value}: give a set of labels, e.g. {example}."),
    "loop names": N_("{name}={value}: give a set of loop names, e.g. {example}."),
}
_SET_UNREAD = {
    "labels": N_("{name}: could not read it as a set of labels, e.g. {example}."),
    "loop names": N_("{name}: could not read it as a set of loop names, e.g. {example}."),
}
_NOT_KNOWN = {
    "one of the labels": N_("{value} is not one of the labels: {known}."),
    "a loop in the table": N_("{value} is not a loop in the table: {known}."),
}


def _chosen(
    name: str, answer: Any, what: str, example: Sequence[str], known: Sequence[str], known_as: str
) -> set[str] | Feedback:
    """``answer`` as a set of labels from ``known``, or the Feedback saying what is off.

    Labels may be given as strings or as whole numbers (``{429}`` is ``{"429"}``).

    >>> _chosen("loops", ["policy"], "loop names", ("policy",), ["policy", "kotlin"],
    ...         "a loop in the table")
    {'policy'}
    >>> print(_chosen("loops", {"global"}, "loop names", ("policy",), ["policy"],
    ...               "a loop in the table").message)
    'global' is not a loop in the table: policy.
    """
    if unanswered(answer):
        quoted = ", ".join(f'"{e}"' for e in example)
        return prompt(_(_SET_PROMPT[what]).format(example="{" + quoted + "}"))
    shown = ", ".join(repr(e) for e in example)
    if isinstance(answer, (str, bytes, dict)) or not isinstance(answer, Iterable):
        return wrong(
            _(_SET_GIVE[what]).format(name=name, value=f"{answer!r:.60}", example="{" + shown + "}")
        )
    given: set[str] = set()
    try:
        for a in islice(answer, MAX_ITEMS):
            if isinstance(a, bool) or not isinstance(a, (str, int)):
                return wrong(
                    _(_NOT_KNOWN[known_as]).format(value=f"{a!r:.40}", known=", ".join(known))
                )
            given.add(str(a))
    except Exception:  # a generator that raises: report, never raise at the student
        return wrong(_(_SET_UNREAD[what]).format(name=name, example="{" + shown + "}"))
    unknown = sorted(given - set(known))
    if unknown:
        return wrong(
            _(_NOT_KNOWN[known_as]).format(value=f"{unknown[0]!r:.40}", known=", ".join(known))
        )
    return given


#: Why retrying after each 4xx of exercise 1 is useless (the same request, the same answer).
_FOUR_XX = {
    "400": N_(
        "'400' stores nothing twice, but retrying is useless: the server found the "
        "request malformed, and the same bytes are malformed the next time too."
    ),
    "401": N_(
        "'401' stores nothing twice, but retrying is useless: the credentials are "
        "missing or wrong, and sending them again gets the same 401; refresh them "
        "first."
    ),
    "404": N_(
        "'404' stores nothing twice, but retrying is useless: the address names "
        "nothing on the server, and it will not appear because you ask again."
    ),
}


@checker
def check_retryable(answer: Any) -> Feedback:
    """Notebook 05, exercise 1: after which failures may a keyless POST be sent again?

    The question asks for the failures where retrying can help *and* cannot
    store the write twice: only where the server said it did not act.

    >>> print(check_retryable({"429", "503"}).message)
    '503' may store a duplicate: a 503 can come from a gateway after the server behind it
    stored the write. Unless the server says it did not act, a keyless POST retried after a
    503 risks a second record.
    """
    given = _chosen(
        "answer", answer, "labels", ("404", "network"), sorted(FAILURES), "one of the labels"
    )
    if isinstance(given, Feedback):
        return given
    for label in sorted(given - KEYLESS_POST_SAFE):
        if label == "network":
            return wrong(
                _(
                    "'network' on a POST without a key: the server may have stored "
                    "the write before the answer was lost; retrying could store it "
                    "twice."
                )
            )
        if label in ("502", "503"):
            return wrong(
                _(
                    "{quoted} may store a duplicate: a {label} can come from a "
                    "gateway after the server behind it stored the write. Unless the "
                    "server says it did not act, a keyless POST retried after a "
                    "{label} risks a second record."
                ).format(quoted=repr(label), label=label)
            )
        reason = _FOUR_XX.get(label)
        if reason is not None:
            return wrong(_(reason))
        return wrong(
            _(
                "{quoted} stores nothing twice, but retrying is useless: the server "
                "rejected the request itself, and the same request gets the same "
                "answer."
            ).format(quoted=repr(label))
        )
    if not given:
        return wrong(
            _(
                "an empty set: one of them is both worth retrying and safe for a "
                "keyless POST. Which answer says the server did not act, and can "
                "change with time?"
            )
        )
    return right(
        _(
            "429 only: the rate limiter turned the request away before it was "
            "handled, and the limit resets. A 502/503 or a network error may follow "
            "a stored write, so a keyless POST needs an idempotency key to be "
            "retried after them; the 4xx are rejections that will not change."
        )
    )


def _numbers(answer: Any) -> list[float] | None:
    """``answer`` as a list of numbers (floats allowed), or None.

    >>> _numbers((0.5, 1.5)), _numbers("ab")
    ([0.5, 1.5], None)
    """
    if not isinstance(answer, (list, tuple)) or len(answer) > MAX_ITEMS:
        return None
    if not all(isinstance(a, (int, float)) and not isinstance(a, bool) for a in answer):
        return None
    if not all(math.isfinite(a) for a in answer):
        return None
    return [float(a) for a in answer]


@checker
def check_proportional_range(answer: Any) -> Feedback:
    """Notebook 05, exercise 2: the range of the wait before attempt 5 under the Kotlin jitter.

    Base 1000 ms, doubling, no cap: the delay of retry n (0-based; attempt
    n + 2 follows it) is ``1000 * 2**n``; proportional jitter multiplies it
    by ``0.5 + r``. Attempt 5 follows retry n = 3.
    """
    if unanswered(answer):
        return prompt(_("the shortest and longest wait in ms, as (low, high)"))
    delay = RANGE_BASE * 2**RANGE_RETRY
    numbers = _numbers(answer)
    if numbers is not None and len(numbers) == 2:
        if numbers == [0.5, 1.5]:
            return wrong(
                _(
                    "(0.5, 1.5) are the factors that multiply the delay; the question "
                    "asks the waits themselves, in ms."
                )
            )
        if numbers == [delay // 2 / 1000, delay * 3 // 2 / 1000]:
            return wrong(
                _("({low}, {high}) looks like seconds; give the waits in ms.").format(
                    low=f"{numbers[0]:g}", high=f"{numbers[1]:g}"
                )
            )
    pair = _wholes(answer)
    if pair is None or len(pair) != 2:
        return wrong(
            _("answer={value}: give two whole numbers of ms, (low, high).").format(
                value=f"{answer!r:.60}"
            )
        )
    low, high = pair
    if (low, high) in ((delay // 2, delay * 3 // 2), (delay // 2, delay * 3 // 2 - 1)):
        return right(
            _(
                "delay {delay} ms x [0.5, 1.5): from {low} up to (not "
                "including) {high} ms, a 1:3 spread around the delay."
            ).format(delay=delay, low=delay // 2, high=delay * 3 // 2)
        )
    if low > high:
        return wrong(
            _("({low}, {high}): the low end is above the high end; swap them.").format(
                low=low, high=high
            )
        )
    if (low, high) == (0, delay):
        return wrong(
            _(
                "(0, {delay}) is full jitter (r x delay); the Kotlin sample uses delay x (0.5 + r)."
            ).format(delay=delay)
        )
    for other in (delay // 2, delay * 2):
        if (low, high) == (other // 2, other * 3 // 2):
            return wrong(
                _(
                    "({low}, {high}) is the range around a delay of {other} ms: the "
                    "retry number is off by one. The first retry (n = 0) waits "
                    "around the base, 1000 ms; attempt 5 follows the fourth retry, "
                    "n = {n}: 1000 x 2^{n}."
                ).format(low=low, high=high, other=other, n=RANGE_RETRY)
            )
    for n in range(0, 8):
        other = RANGE_BASE * 2**n
        if n != RANGE_RETRY and (low, high) == (other // 2, other * 3 // 2):
            return wrong(
                _(
                    "({low}, {high}) is the range around {other} ms, the delay of "
                    "retry n = {n}; attempt 5 follows another retry."
                ).format(low=low, high=high, other=other, n=n)
            )
    if (low, high) == (delay, 2 * delay):
        return wrong(
            _(
                "({low}, {high}) multiplies the delay by (1 + r); the Kotlin sample "
                "multiplies it by (0.5 + r), so the range starts below the delay."
            ).format(low=low, high=high)
        )
    if (low, high) == (delay - 500, delay + 500):
        return wrong(
            _(
                "({low}, {high}) adds half a second either side; (0.5 + r) scales "
                "the delay, so the range grows with it."
            ).format(low=low, high=high)
        )
    total = sum(RANGE_BASE * 2**n for n in range(RANGE_RETRY + 1))
    if (low, high) == (total // 2, total * 3 // 2):
        return wrong(
            _(
                "({low}, {high}) adds up the waits of all four retries; the question "
                "asks the one wait before attempt 5."
            ).format(low=low, high=high)
        )
    if low == high:
        return wrong(
            _("({low}, {high}) is a single wait; jitter makes it a range.").format(
                low=low, high=high
            )
        )
    return wrong(
        _(
            "({low}, {high}): take the delay before attempt 5 (1000 x 2^"
            "{n} ms) and multiply it by 0.5 and by 1.5."
        ).format(low=low, high=high, n=RANGE_RETRY)
    )


@checker
def check_outage_policy(policy: Any) -> Feedback:
    """Notebook 05b: a background-sync policy that is cheap during a 10-minute outage.

    >>> print(check_outage_policy(RetryPolicy(8, Backoff(1000, 2, 30_000))).message)
    it sent 8 requests during the 10-minute outage; allow at most 5 (max_attempts).
    """
    if unanswered(policy):
        return prompt(_("a RetryPolicy(...)"))
    if policy is RetryPolicy:
        return wrong(
            _(
                "policy=RetryPolicy is the class itself; call it: "
                "RetryPolicy(max_attempts=..., backoff=Backoff(...), time_budget=...)."
            )
        )
    if isinstance(policy, Backoff):
        return wrong(
            _(
                "policy is a Backoff, the waits alone; wrap it: "
                "RetryPolicy(max_attempts=..., backoff=your_backoff, time_budget=...)."
            )
        )
    if not isinstance(policy, RetryPolicy):
        return wrong(
            _(
                "policy={value}: build a RetryPolicy(max_attempts=..., "
                "backoff=Backoff(...), time_budget=...)."
            ).format(value=f"{policy!r:.60}")
        )
    policy = plain_policy(policy)
    try:
        cost = outage_cost(policy)
    except Exception as e:  # never raise at the student
        return wrong(
            _("the outage could not run this policy ({error}); check its settings.").format(
                error=f"{type(e).__name__}: {e}"
            )
        )
    sent, most = cost.requests_during_outage, MAX_OUTAGE_REQUESTS
    if sent > most and policy.max_attempts >= ENDLESS_ATTEMPTS:
        return wrong(
            _(
                "max_attempts={attempts} never ends in practice: it sent {sent} "
                "requests during the outage. Stop after a few attempts and hand the "
                "sync to the OS scheduler."
            ).format(attempts=policy.max_attempts, sent=sent)
        )
    if sent > most and sent == policy.max_attempts == most + 1:
        return wrong(
            _(
                "max_attempts={attempts}: every attempt is a request, the first one "
                "too, and all of them fall inside the outage."
            ).format(attempts=policy.max_attempts)
        )
    if sent > most and policy.time_budget is not None and policy.time_budget >= 600_000:
        return wrong(
            _(
                "time_budget={budget} ms outlasts the 10-minute outage, so it never "
                "stops a request during it; it sent {sent}. Limit max_attempts."
            ).format(budget=policy.time_budget, sent=sent)
        )
    if cost.requests_during_outage > MAX_OUTAGE_REQUESTS:
        return wrong(
            _(
                "it sent {sent} requests during the 10-minute outage; allow at "
                "most {most} (max_attempts)."
            ).format(sent=cost.requests_during_outage, most=MAX_OUTAGE_REQUESTS)
        )
    if policy.time_budget is None:
        return wrong(
            _(
                "no time_budget: give the whole run a total limit in ms, the "
                "lesson's 'overall timeout'."
            )
        )
    if policy.time_budget < MIN_BUDGET_MS:
        return wrong(
            _(
                "time_budget={budget} ms ends before one request comes back: it is "
                "in ms, not seconds."
            ).format(budget=policy.time_budget)
        )
    if policy.backoff.base < MIN_BASE_MS:
        return wrong(
            _(
                "base={base} ms: the waits are in ms, not seconds; the retries come "
                "back almost at once."
            ).format(base=policy.backoff.base)
        )
    if policy.backoff.jitter == "none":
        return wrong(
            _(
                "jitter='none': thousands of phones that failed together would "
                "come back together; use jitter='full'."
            )
        )
    return right(
        _(
            "{sent} requests, radio on {radio} s instead of 600 s; then hand the "
            "sync to the OS scheduler."
        ).format(sent=cost.requests_during_outage, radio=f"{cost.radio_on_s:g}")
    )


#: Why a loop that stopped at the background stopped (exercise 3 of 05b).
_KEPT_QUIET = {
    "policy": N_(
        "'policy' runs in a task the screen owns: the cancellation reaches its "
        "wait, and RetryPolicy lets the CancelledError end the loop."
    ),
    "kotlin": N_(
        "'kotlin' catches the cancellation, but the lesson's isRetriable says "
        "no to it, so the loop returns a failure and sends nothing more."
    ),
    "kotlin_retry_all": N_(
        "'kotlin_retry_all' retries every exception, the cancellation "
        "too, but its next delay() throws again at once in a cancelled "
        "coroutine: nothing more is sent."
    ),
}
#: Why a loop that kept sending kept sending.
_KEPT_SENDING = {
    "policy_detached": N_(
        "'policy_detached' also sent requests after the background: the "
        "task was started and forgotten, so nobody cancels it."
    ),
    "asyncio_port": N_(
        "'asyncio_port' also sent requests after the background: ported as "
        "is, it catches the CancelledError and retries it, and asyncio "
        "delivers a cancellation only once, so its next sleep does not "
        "throw."
    ),
}


@checker
def check_lifecycle(loops: Any) -> Feedback:
    """Notebook 05b: which loops kept sending after the app went to the background."""
    given = _chosen(
        "loops", loops, "loop names", ("policy",), list(LIFECYCLE_LOOPS), "a loop in the table"
    )
    if isinstance(given, Feedback):
        return given
    table = lifecycle_table()
    expected = set(table.index[table["sent after background"] > 0])
    if given == expected:
        return right(
            _(
                "policy_detached (nobody cancelled it) and asyncio_port (it swallowed "
                "the CancelledError) kept the radio busy for a screen nobody sees."
            )
        )
    if not given:
        return wrong(
            _(
                "an empty set: cancelling a task only stops the loops that hear the "
                "cancellation. Which loop does nobody cancel, and which one catches "
                "the cancellation as if it were a failure?"
            )
        )
    extra = sorted(given - expected)
    if extra:
        why = _KEPT_QUIET.get(extra[0])
        if why is not None:
            return wrong(_(why))
        return wrong(
            _(
                "{loop} sent nothing after the background: look at the column "
                "'sent after background'."
            ).format(loop=repr(extra[0]))
        )
    missing = sorted(expected - given)[0]
    why = _KEPT_SENDING.get(missing)
    if why is not None:
        return wrong(_(why))
    return wrong(_("{loop} also sent requests after the background.").format(loop=repr(missing)))


def measure_lifecycle(
    prediction: Any, background_at: int = 15_000, latency_ms: int = 10_000
) -> Any:
    """The lifecycle table, once a prediction is made (notebook 05b, exercise 3).

    Until ``prediction`` holds an answer the measurement is not shown, so the page
    never prints the answer under an exercise that asks to predict it.

    >>> measure_lifecycle(...)
    Not yet: write your prediction in kept_sending above and run it, then run this cell.
    >>> int(measure_lifecycle({"policy"}).loc["policy", "sent after background"])
    0
    """
    if unanswered(prediction):
        return Feedback(
            False,
            _("write your prediction in kept_sending above and run it, then run this cell."),
            answered=False,
        )
    return lifecycle_table(background_at=background_at, latency_ms=latency_ms)


#: Appendix A1, exercise 1: the base delay asked about (the runs the page shows use 1000).
KOTLIN_BASE_MS = 1500


def _kotlin_draws() -> list[float]:
    """The three draws of ``Random.nextDouble()`` the sample makes (the lesson's seed)."""
    rng = Mulberry32(SEED)
    return [rng() for _n in range(3)]


def _kotlin_waits(base: int = KOTLIN_BASE_MS) -> list[int]:
    run = kotlin_run(
        [Outcome.network()] * 3 + [Outcome.success()], max_retries=3, base_delay_ms=base
    )
    return list(run.waits)


@checker
def check_kotlin_waits(waits: Any) -> Feedback:
    """Appendix A1: the three waits of ``executeWithRetry`` (base 1500 ms, lesson seed;
    the page's runs show the sample's base of 1000 ms).
    """
    if unanswered(waits):
        return prompt(_("the list of three waits in ms"))
    expected = _kotlin_waits()
    numbers = _numbers(waits)
    if (
        numbers is not None
        and [int(n * 1000) for n in numbers] == expected
        and any(not n.is_integer() for n in numbers)
    ):
        return wrong(
            _("waits={value}: those look like seconds; give the waits in whole ms.").format(
                value=f"{waits!r:.60}"
            )
        )
    given = _wholes(waits)
    if given is None:
        return wrong(
            _("waits={value}: give a list of three whole numbers of ms.").format(
                value=f"{waits!r:.60}"
            )
        )
    if given == expected:
        return right(
            _("waits {waits} ms: 1500 x 2^n x (0.5 + r), cut to whole ms by toLong().").format(
                waits=expected
            )
        )
    if given == _kotlin_waits(1000):
        return wrong(
            _(
                "waits={waits}: those are the sample's waits with baseDelayMs = 1000, "
                "the runs on the page; this one is configured with 1500."
            ).format(waits=given)
        )
    if len(given) != len(expected):
        return wrong(
            _(
                "waits={value}: three failures before the success means three "
                "waits, one before each retry."
            ).format(value=f"{given!r:.60}")
        )
    if given == [KOTLIN_BASE_MS * 2**n for n in range(3)]:
        return wrong(
            _(
                "waits={waits} are the delays before jitter; the Kotlin multiplies "
                "each by (0.5 + Random.nextDouble())."
            ).format(waits=given)
        )
    draws = _kotlin_draws()
    if given == [int(KOTLIN_BASE_MS * 2**n * r) for n, r in enumerate(draws)]:
        return wrong(
            _(
                "waits={waits}: that is full jitter, delay x r; the Kotlin sample "
                "multiplies by (0.5 + r), half the delay more."
            ).format(waits=given)
        )
    if given == [int(KOTLIN_BASE_MS * 2 ** (n + 1) * (0.5 + r)) for n, r in enumerate(draws)]:
        return wrong(
            _(
                "waits={waits}: n counted from 1; the first wait uses 1 shl 0 = 1, the base itself."
            ).format(waits=given)
        )
    if given == [sum(expected[: i + 1]) for i in range(len(expected))]:
        return wrong(
            _(
                "waits={waits}: those add up the waits so far, times since the "
                "start; give each wait on its own."
            ).format(waits=given)
        )
    if given == expected[::-1]:
        return wrong(
            _(
                "waits={waits}: the waits are in reverse order; the first one is the "
                "shortest, before the first retry."
            ).format(waits=given)
        )
    if all(0 <= g - e <= 1 for g, e in zip(given, expected, strict=True)):
        return wrong(
            _(
                "waits={waits}: nearly; Kotlin's toLong() truncates (7436.96 -> "
                "7436), it does not round."
            ).format(waits=given)
        )
    if min(given) < 0:
        return wrong(_("waits={value}: a wait is never negative.").format(value=f"{given!r:.60}"))
    return wrong(
        _(
            "waits={waits}: run kotlin_run([Outcome.network()] * 3 + "
            "[Outcome.success()], base_delay_ms=1500) and read .waits, or compute "
            "int(1500 * 2**n * (0.5 + r)) with r from Mulberry32(SEED)."
        ).format(waits=shown(given))
    )
