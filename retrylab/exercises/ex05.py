"""Checkers for notebooks 05, 05b and A1 (the mobile lesson's retry policy).

Notebook 05: :func:`check_retryable`, :func:`check_proportional_range`;
05b (the four mistakes): :func:`check_outage_policy`, :func:`check_lifecycle`;
A1 (the code samples): :func:`check_kotlin_waits`. Every checker returns a
:class:`~retrylab.exercises.Feedback` and never raises at the student.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sized
from itertools import accumulate, islice
from typing import Any

from ..core.backoff import Backoff
from ..core.constants import SEED
from ..core.outcome import Outcome
from ..core.policy import RetryPolicy
from ..core.rng import Mulberry32
from ..i18n import N_, _
from ..lessons.mobile_code import kotlin_run
from ..lessons.mobile_mistakes import LIFECYCLE_LOOPS, lifecycle_table, outage_cost
from . import (
    Feedback,
    as_wholes,
    checker,
    plain_policy,
    prompt,
    right,
    shown,
    shown_number,
    unanswered,
    wrong,
)
from .table import Exercise, Mistake, in_seconds, judge

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


def _chosen(table: Exercise, answer: Any) -> set[str] | Feedback:
    """``answer`` as a set of the labels ``table`` knows, or the Feedback saying what is
    off: ``table``'s prompt or unreadable hint, or its inputs' ``unread`` and ``unknown``.

    Labels may be given as strings or as whole numbers (``{429}`` is ``{"429"}``).

    >>> _chosen(LIFECYCLE, ["policy"])
    {'policy'}
    >>> print(_chosen(LIFECYCLE, {"global"}).message)  # doctest: +ELLIPSIS
    'global' is not a loop in the table: policy, policy_detached, ...
    """
    i = table.inputs()
    known = ", ".join(i["known"])
    example = "{" + ", ".join(repr(e) for e in i["example"]) + "}"
    if unanswered(answer):
        quoted = ", ".join(f'"{e}"' for e in i["example"])
        return prompt(_(table.asks).format(example="{" + quoted + "}"))
    if isinstance(answer, (str, bytes, dict)) or not isinstance(answer, Iterable):
        return wrong(
            _(table.unreadable).format(name=i["name"], value=f"{answer!r:.60}", example=example)
        )
    given: set[str] = set()
    try:
        for a in islice(answer, MAX_ITEMS):
            if isinstance(a, bool) or not isinstance(a, (str, int)):
                return wrong(_(i["unknown"]).format(value=f"{a!r:.40}", known=known))
            given.add(str(a))
    except Exception:  # a generator that raises: report, never raise at the student
        return wrong(_(i["unread"]).format(name=i["name"], example=example))
    unknown = sorted(given - set(i["known"]))
    if unknown:
        return wrong(_(i["unknown"]).format(value=f"{unknown[0]!r:.40}", known=known))
    return given


def _judge_chosen(table: Exercise, answer: Any) -> Feedback:
    """``table``'s verdict on ``answer`` read by :func:`_chosen`."""
    given = _chosen(table, answer)
    return given if isinstance(given, Feedback) else judge(table, given)


def _as_set(answer: Any) -> set[str] | None:
    return set(answer) if isinstance(answer, (set, frozenset)) else None


def _alone_and_with(label: str) -> Callable[[Any], tuple[set[str], set[str]]]:
    """Two answers that add ``label`` by mistake: named alone, or with the right ones."""
    return lambda i: ({label}, i["want"] | {label})


def _without(label: str) -> Callable[[Any], set[str]]:
    return lambda i: i["want"] - {label}


def _first_unsafe(got: set[str], i: Any) -> dict[str, str]:
    unsafe = sorted(got - i["want"])
    return {"quoted": repr(unsafe[0]), "label": unsafe[0]} if unsafe else {}


def _first_unsafe_is(*labels: str) -> Callable[[set[str], Any], bool]:
    """A mistake's test: the first label chosen that is not safe is one of ``labels``."""
    return lambda got, i: sorted(got - i["want"])[:1] in [[label] for label in labels]


RETRYABLE = Exercise(
    asks=N_("a set of labels such as {example}"),
    inputs=lambda: {
        "name": "answer",
        "example": ("404", "network"),
        "known": sorted(FAILURES),
        "unread": N_("{name}: could not read it as a set of labels, e.g. {example}."),
        "unknown": N_("{value} is not one of the labels: {known}."),
    },
    want=lambda i: set(KEYLESS_POST_SAFE),
    read=_as_set,
    about=_first_unsafe,
    unreadable=N_("{name}={value}: give a set of labels, e.g. {example}."),
    right=N_(
        "429 only: the rate limiter turned the request away before it was "
        "handled, and the limit resets. A 502/503 or a network error may follow "
        "a stored write, so a keyless POST needs an idempotency key to be "
        "retried after them; the 4xx are rejections that will not change."
    ),
    otherwise=N_(
        "{quoted} stores nothing twice, but retrying is useless: the server "
        "rejected the request itself, and the same request gets the same "
        "answer."
    ),
    mistakes=(
        Mistake(
            N_(
                "'network' on a POST without a key: the server may have stored "
                "the write before the answer was lost; retrying could store it "
                "twice."
            ),
            when=_first_unsafe_is("network"),
            example=_alone_and_with("network"),
        ),
        Mistake(
            N_(
                "{quoted} may store a duplicate: a {label} can come from a "
                "gateway after the server behind it stored the write. Unless the "
                "server says it did not act, a keyless POST retried after a "
                "{label} risks a second record."
            ),
            when=_first_unsafe_is("502", "503"),
            # 503 alone, or the right answer with the gateway errors added
            example=lambda i: ({"503"}, i["want"] | {"502"}, i["want"] | {"502", "503"}),
        ),
        *(
            Mistake(message, when=_first_unsafe_is(label), example=_alone_and_with(label))
            for label, message in (
                (
                    "400",
                    N_(
                        "'400' stores nothing twice, but retrying is useless: the server "
                        "found the request malformed, and the same bytes are malformed "
                        "the next time too."
                    ),
                ),
                (
                    "401",
                    N_(
                        "'401' stores nothing twice, but retrying is useless: the "
                        "credentials are missing or wrong, and sending them again gets "
                        "the same 401; refresh them first."
                    ),
                ),
                (
                    "404",
                    N_(
                        "'404' stores nothing twice, but retrying is useless: the address "
                        "names nothing on the server, and it will not appear because you "
                        "ask again."
                    ),
                ),
            )
        ),
        Mistake(
            N_(
                "an empty set: one of them is both worth retrying and safe for a "
                "keyless POST. Which answer says the server did not act, and can "
                "change with time?"
            ),
            gives=lambda i: set(),
        ),
    ),
)


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
    return _judge_chosen(RETRYABLE, answer)


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


def _range_inputs() -> dict[str, Any]:
    delay = RANGE_BASE * 2**RANGE_RETRY
    total = sum(RANGE_BASE * 2**n for n in range(RANGE_RETRY + 1))
    return {"base": RANGE_BASE, "n": RANGE_RETRY, "delay": delay, "total": total}


def _around(delay: int) -> list[int]:
    """The range of proportional jitter around ``delay``: delay x [0.5, 1.5)."""
    return [delay // 2, delay * 3 // 2]


def _pair(answer: Any) -> list[int] | None:
    pair = _wholes(answer)
    return pair if pair is not None and len(pair) == 2 else None


PROPORTIONAL_RANGE = Exercise(
    asks=N_("the shortest and longest wait in ms, as (low, high)"),
    inputs=_range_inputs,
    want=lambda i: _around(i["delay"]),
    fields=lambda i, want: {"low": want[0], "high": want[1]},
    # the high end may be given as excluded (12000) or as the last whole ms (11999)
    equal=lambda got, want: got[0] == want[0] and want[1] - 1 <= got[1] <= want[1],
    read=_pair,
    about=lambda got, i: {"low": got[0], "high": got[1]},
    unreadable=N_("answer={value}: give two whole numbers of ms, (low, high)."),
    right=N_(
        "delay {delay} ms x [0.5, 1.5): from {low} up to (not "
        "including) {high} ms, a 1:3 spread around the delay."
    ),
    otherwise=N_(
        "({low}, {high}): take the delay before attempt 5 (1000 x 2^"
        "{n} ms) and multiply it by 0.5 and by 1.5."
    ),
    raw=(
        Mistake(
            N_(
                "(0.5, 1.5) are the factors that multiply the delay; the question "
                "asks the waits themselves, in ms."
            ),
            when=lambda answer, i: _numbers(answer) == [0.5, 1.5],
            example=lambda i: [0.5, 1.5],
        ),
        Mistake(
            N_("({low}, {high}) looks like seconds; give the waits in ms."),
            when=lambda answer, i: _numbers(answer) == [w / 1000 for w in _around(i["delay"])],
            extra=lambda answer, i: {
                "low": shown_number(answer[0]),
                "high": shown_number(answer[1]),
            },
            example=lambda i: [w / 1000 for w in _around(i["delay"])],
        ),
    ),
    mistakes=(
        Mistake(
            N_("({low}, {high}): the low end is above the high end; swap them."),
            when=lambda got, i: got[0] > got[1],
            example=lambda i: _around(i["delay"])[::-1],
        ),
        Mistake(
            N_(
                "(0, {delay}) is full jitter (r x delay); the Kotlin sample uses delay x (0.5 + r)."
            ),
            gives=lambda i: [0, i["delay"]],
        ),
        Mistake(
            N_(
                "({low}, {high}) is the range around a delay of {other} ms: the "
                "retry number is off by one. The first retry (n = 0) waits "
                "around the base, 1000 ms; attempt 5 follows the fourth retry, "
                "n = {n}: 1000 x 2^{n}."
            ),
            gives=lambda i: (_around(i["delay"] // 2), _around(i["delay"] * 2)),
            extra=lambda got, i: {"other": 2 * got[0]},
        ),
        Mistake(
            N_(
                "({low}, {high}) is the range around {other} ms, the delay of "
                "retry n = {n}; attempt 5 follows another retry."
            ),
            gives=lambda i: tuple(_around(i["base"] * 2**n) for n in range(8) if n != i["n"]),
            extra=lambda got, i: {
                "other": 2 * got[0],
                "n": (2 * got[0] // i["base"]).bit_length() - 1,
            },
        ),
        Mistake(
            N_(
                "({low}, {high}) multiplies the delay by (1 + r); the Kotlin sample "
                "multiplies it by (0.5 + r), so the range starts below the delay."
            ),
            gives=lambda i: [i["delay"], 2 * i["delay"]],
        ),
        Mistake(
            N_(
                "({low}, {high}) adds half a second either side; (0.5 + r) scales "
                "the delay, so the range grows with it."
            ),
            gives=lambda i: [i["delay"] - 500, i["delay"] + 500],
        ),
        Mistake(
            N_(
                "({low}, {high}) adds up the waits of all four retries; the question "
                "asks the one wait before attempt 5."
            ),
            gives=lambda i: _around(i["total"]),
        ),
        Mistake(
            N_("({low}, {high}) is a single wait; jitter makes it a range."),
            when=lambda got, i: got[0] == got[1],
            example=lambda i: [i["delay"], i["delay"]],
        ),
    ),
)


@checker
def check_proportional_range(answer: Any) -> Feedback:
    """Notebook 05, exercise 2: the range of the wait before attempt 5 under the Kotlin jitter.

    Base 1000 ms, doubling, no cap: the delay of retry n (0-based; attempt
    n + 2 follows it) is ``1000 * 2**n``; proportional jitter multiplies it
    by ``0.5 + r``. Attempt 5 follows retry n = 3.
    """
    return judge(PROPORTIONAL_RANGE, answer)


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


def _off_loops(got: set[str], i: Any) -> dict[str, str]:
    """The first loop named that kept quiet, else the first one left out that kept sending."""
    off = sorted(got - i["want"]) or sorted(i["want"] - got)
    return {"loop": repr(off[0])} if off else {}


def _first_extra_is(name: str) -> Callable[[set[str], Any], bool]:
    return lambda got, i: sorted(got - i["want"])[:1] == [name]


def _first_missing_is(name: str) -> Callable[[set[str], Any], bool]:
    return lambda got, i: got <= i["want"] and sorted(i["want"] - got)[:1] == [name]


def _kept_sending() -> set[str]:
    table = lifecycle_table()
    return set(table.index[table["sent after background"] > 0])


LIFECYCLE = Exercise(
    asks=N_("a set of loop names such as {example}"),
    inputs=lambda: {
        "name": "loops",
        "example": ("policy",),
        "known": list(LIFECYCLE_LOOPS),
        "unread": N_("{name}: could not read it as a set of loop names, e.g. {example}."),
        "unknown": N_("{value} is not a loop in the table: {known}."),
    },
    want=lambda i: _kept_sending(),
    read=_as_set,
    about=_off_loops,
    unreadable=N_("{name}={value}: give a set of loop names, e.g. {example}."),
    right=N_(
        "policy_detached (nobody cancelled it) and asyncio_port (it swallowed "
        "the CancelledError) kept the radio busy for a screen nobody sees."
    ),
    otherwise=N_("{loop} also sent requests after the background."),
    mistakes=(
        Mistake(
            N_(
                "an empty set: cancelling a task only stops the loops that hear the "
                "cancellation. Which loop does nobody cancel, and which one catches "
                "the cancellation as if it were a failure?"
            ),
            gives=lambda i: set(),
        ),
        Mistake(
            N_(
                "{loop} sent nothing after the background: look at the column "
                "'sent after background'."
            ),
            # two or more loops named that kept quiet: the column was not read
            when=lambda got, i: len(got - i["want"]) >= 2,
            example=lambda i: (set(LIFECYCLE_LOOPS), {"kotlin", "kotlin_retry_all"}),
        ),
        *(
            Mistake(message, when=_first_extra_is(loop), example=_alone_and_with(loop))
            for loop, message in (
                (
                    "policy",
                    N_(
                        "'policy' runs in a task the screen owns: the cancellation "
                        "reaches its wait, and RetryPolicy lets the CancelledError end "
                        "the loop."
                    ),
                ),
                (
                    "kotlin",
                    N_(
                        "'kotlin' catches the cancellation, but the lesson's isRetriable "
                        "says no to it, so the loop returns a failure and sends nothing "
                        "more."
                    ),
                ),
                (
                    "kotlin_retry_all",
                    N_(
                        "'kotlin_retry_all' retries every exception, the cancellation "
                        "too, but its next delay() throws again at once in a cancelled "
                        "coroutine: nothing more is sent."
                    ),
                ),
            )
        ),
        *(
            Mistake(message, when=_first_missing_is(loop), example=_without(loop))
            for loop, message in (
                (
                    "policy_detached",
                    N_(
                        "'policy_detached' also sent requests after the background: the "
                        "task was started and forgotten, so nobody cancels it."
                    ),
                ),
                (
                    "asyncio_port",
                    N_(
                        "'asyncio_port' also sent requests after the background: ported "
                        "as is, it catches the CancelledError and retries it, and "
                        "asyncio delivers a cancellation only once, so its next sleep "
                        "does not throw."
                    ),
                ),
            )
        ),
    ),
)


@checker
def check_lifecycle(loops: Any) -> Feedback:
    """Notebook 05b: which loops kept sending after the app went to the background."""
    return _judge_chosen(LIFECYCLE, loops)


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


def _kotlin_inputs() -> dict[str, Any]:
    return {"base": KOTLIN_BASE_MS, "draws": _kotlin_draws(), "page": _kotlin_waits(1000)}


def _jittered(i: Any, shift: int = 0, low: float = 0.5) -> list[int]:
    """The sample's waits, ``int(base x 2**(n + shift) x (low + r))``, n = 0, 1, 2."""
    return [int(i["base"] * 2 ** (n + shift) * (low + r)) for n, r in enumerate(i["draws"])]


KOTLIN_WAITS = Exercise(
    asks=N_("the list of three waits in ms"),
    inputs=_kotlin_inputs,
    want=lambda i: _kotlin_waits(i["base"]),
    fields=lambda i, want: {"waits": want},
    read=_wholes,
    named=("waits",),
    show=repr,
    about=lambda got, i: {"waits": shown(got)},
    unreadable=N_("waits={value}: give a list of three whole numbers of ms."),
    right=N_("waits {waits} ms: 1500 x 2^n x (0.5 + r), cut to whole ms by toLong()."),
    otherwise=N_(
        "waits={waits}: run kotlin_run([Outcome.network()] * 3 + "
        "[Outcome.success()], base_delay_ms=1500) and read .waits, or compute "
        "int(1500 * 2**n * (0.5 + r)) with r from Mulberry32(SEED)."
    ),
    raw=(
        in_seconds(
            N_("waits={value}: those look like seconds; give the waits in whole ms."),
            numbers=_numbers,
        ),
    ),
    mistakes=(
        Mistake(
            N_(
                "waits={waits}: those are the sample's waits with baseDelayMs = 1000, "
                "the runs on the page; this one is configured with 1500."
            ),
            gives=lambda i: i["page"],
        ),
        Mistake(
            N_(
                "waits={value}: three failures before the success means three "
                "waits, one before each retry."
            ),
            when=lambda got, i: len(got) != len(i["want"]),
            example=lambda i: i["want"][:2],
        ),
        Mistake(
            N_(
                "waits={waits} are the delays before jitter; the Kotlin multiplies "
                "each by (0.5 + Random.nextDouble())."
            ),
            gives=lambda i: [i["base"] * 2**n for n in range(len(i["want"]))],
        ),
        Mistake(
            N_(
                "waits={waits}: that is full jitter, delay x r; the Kotlin sample "
                "multiplies by (0.5 + r), half the delay more."
            ),
            gives=lambda i: _jittered(i, low=0),
        ),
        Mistake(
            N_(
                "waits={waits}: n counted from 1; the first wait uses 1 shl 0 = 1, the base itself."
            ),
            gives=lambda i: _jittered(i, shift=1),
        ),
        Mistake(
            N_(
                "waits={waits}: those add up the waits so far, times since the "
                "start; give each wait on its own."
            ),
            gives=lambda i: list(accumulate(i["want"])),
        ),
        Mistake(
            N_(
                "waits={waits}: the waits are in reverse order; the first one is the "
                "shortest, before the first retry."
            ),
            gives=lambda i: i["want"][::-1],
        ),
        Mistake(
            N_(
                "waits={waits}: nearly; Kotlin's toLong() truncates (7436.96 -> "
                "7436), it does not round."
            ),
            when=lambda got, i: all(0 <= g - e <= 1 for g, e in zip(got, i["want"], strict=True)),
            example=lambda i: [w + 1 for w in i["want"]],
        ),
        Mistake(
            N_("waits={value}: a wait is never negative."),
            when=lambda got, i: min(got) < 0,
            example=lambda i: [-1, *i["want"][1:]],
        ),
    ),
)


@checker
def check_kotlin_waits(waits: Any) -> Feedback:
    """Appendix A1: the three waits of ``executeWithRetry`` (base 1500 ms, lesson seed;
    the page's runs show the sample's base of 1000 ms).
    """
    return judge(KOTLIN_WAITS, waits)
