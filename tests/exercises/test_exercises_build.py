"""The build checkers: correct code passes, scaffolds prompt, each usual mistake gets its hint."""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

from retrylab import Backoff, CircuitBreaker, Outcome, RetryPolicy, js_round, should_retry
from retrylab.exercises import Feedback
from retrylab.exercises.build import (
    check_breaker,
    check_decorrelated,
    check_full_jitter,
    check_retry_loop,
    check_should_retry,
)
from retrylab.exercises.build import harness as _build_harness

# A runaway answer is stopped by the call's time limit (0.5 s here), not the whole
# check's (60 s): the verdict says which ("stopped after 0.5 s: ... did not return" or
# a count of calls, against "the check did not finish"), so no test reads the clock.


@pytest.fixture
def short_limit(monkeypatch: pytest.MonkeyPatch) -> float:
    monkeypatch.setattr(_build_harness, "TIME_LIMIT", 0.5)
    return 0.5


@pytest.fixture
def release() -> Iterator[threading.Event]:
    """Ends the endless loops once the test is over (the checker cannot kill them)."""
    done = threading.Event()
    yield done
    done.set()


def fails_with(feedback: Feedback, *words: str) -> None:
    assert isinstance(feedback, Feedback)
    assert not feedback.correct and feedback.answered, feedback.message
    for w in words:
        assert w in feedback.message, feedback.message


def not_yet(feedback: Feedback) -> None:
    assert not feedback.correct and not feedback.answered, feedback.message
    assert "replace the ..." in feedback.message


def scaffold2(a: Any, b: Any) -> Any: ...


def unimplemented(*args: Any) -> Any:
    raise NotImplementedError


# == full jitter ==================================================================


def ceiling(n: int) -> int:
    return min(5000, 200 * 2**n)


def test_full_jitter_correct_and_alternatives() -> None:
    assert check_full_jitter(lambda n, r: js_round(r * ceiling(n))).correct
    assert check_full_jitter(lambda n, r: math.floor(r * min(5000, 200 * 2**n) + 0.5)).correct
    assert check_full_jitter(lambda n, r: float(js_round(r * ceiling(n)))).correct
    assert check_full_jitter(lambda n, r: np.int64(js_round(r * ceiling(n)))).correct
    fb = check_full_jitter(lambda n, r: js_round(r * ceiling(n)))
    assert "70 296 780 303 480 957" in fb.message


@pytest.mark.parametrize("answer", [None, ..., scaffold2, unimplemented])
def test_full_jitter_scaffold(answer: Any) -> None:
    not_yet(check_full_jitter(answer))


FULL_MISTAKES: list[tuple[str, Callable[[int, float], Any], str]] = [
    ("python round", lambda n, r: round(r * ceiling(n)), "Python's round()"),
    ("next retry", lambda n, r: js_round(r * ceiling(n + 1)), "is n counted from 0?"),
    ("retry before", lambda n, r: js_round(r * min(5000, 200 * 2 ** (n - 1))), "the retry before"),
    ("no cap", lambda n, r: js_round(r * 200 * 2**n), "the cap is missing"),
    (
        "cap after jitter",
        lambda n, r: min(5000, js_round(r * 200 * 2**n)),
        "Cap the ceiling, not the wait",
    ),
    ("truncation", lambda n, r: int(r * ceiling(n)), "cut the fraction off"),
    ("no jitter", lambda n, r: ceiling(n), "without jitter"),
    ("equal jitter", lambda n, r: js_round(ceiling(n) / 2 + r * ceiling(n) / 2), "equal jitter"),
    ("0.5 + r", lambda n, r: js_round((0.5 + r) * ceiling(n)), "shifted to 0.5 + r"),
    ("math.ceil", lambda n, r: math.ceil(r * ceiling(n)), "math.ceil rounds every fraction up"),
    ("linear", lambda n, r: js_round(r * min(5000, 200 * (n + 1))), "grows by 200 ms a retry"),
    ("times n", lambda n, r: js_round(r * min(5000, 200 * 2 * n)), "multiplies by n"),
    ("floor + 0.4", lambda n, r: math.floor(r * ceiling(n) + 0.4), "Python's round()"),
]


@pytest.mark.parametrize(("name", "fn", "hint"), FULL_MISTAKES, ids=[m[0] for m in FULL_MISTAKES])
def test_full_jitter_mistakes(name: str, fn: Callable[[int, float], Any], hint: str) -> None:
    fails_with(check_full_jitter(fn), hint)


def test_full_jitter_names_the_lesson_row() -> None:
    fb = check_full_jitter(lambda n, r: js_round(r * ceiling(n + 1)))
    fails_with(fb, "full_jitter(0, 0.35041", "the lesson's table says 70 at retry n=0")
    # Python's round passes the table (no exact half there) and fails on an unseen half
    fails_with(
        check_full_jitter(lambda n, r: round(r * ceiling(n))),
        "the lesson's table matches",
        "r * ceiling = ",
    )


def test_full_jitter_wrong_types() -> None:
    fails_with(check_full_jitter(lambda n, r: r * ceiling(n)), "whole milliseconds")
    fails_with(check_full_jitter(lambda n, r: True), "a bool")
    fails_with(check_full_jitter(lambda n, r: "70"), "of type str")
    fails_with(check_full_jitter(lambda n, r: [70]), "of type list")


def test_full_jitter_none_after_the_first_answer_is_a_mistake() -> None:
    fails_with(
        check_full_jitter(lambda n, r: js_round(r * ceiling(n)) if n < 3 else None), "returned None"
    )


def test_full_jitter_raises() -> None:
    def boom(n: int, r: float) -> int:
        if n == 2:
            raise ZeroDivisionError("no")
        return js_round(r * ceiling(n))

    fails_with(check_full_jitter(boom), "full_jitter(2, 0.97506", "raised ZeroDivisionError: no")


def test_full_jitter_endless(short_limit: float, release: threading.Event) -> None:
    def spin(n: int, r: float) -> int:
        while not release.is_set():
            pass
        return 0

    fb = check_full_jitter(spin)
    fails_with(fb, "stopped after 0.5 s", "full_jitter(0, 0.35041")


@pytest.mark.parametrize("garbage", [5, "x", 2.5, [1, 2]])
def test_garbage_answers(garbage: Any) -> None:
    for check in (
        check_full_jitter,
        check_decorrelated,
        check_should_retry,
        check_retry_loop,
        check_breaker,
    ):
        fb = check(garbage)
        fails_with(fb, "expected")


# == decorrelated jitter ==========================================================


def deco(prev: int, r: float) -> int:
    return min(5000, js_round(200 + r * (prev * 3 - 200)))


def test_decorrelated_correct_and_alternatives() -> None:
    fb = check_decorrelated(deco)
    assert fb.correct and "384 1034 2121 1933 3986 5000" in fb.message
    assert check_decorrelated(
        lambda prev, r: min(5000.0, math.floor(200 + (3 * prev - 200) * r + 0.5))
    ).correct


@pytest.mark.parametrize("answer", [None, ..., scaffold2, unimplemented])
def test_decorrelated_scaffold(answer: Any) -> None:
    not_yet(check_decorrelated(answer))


DECO_MISTAKES: list[tuple[str, Callable[[int, float], Any], str]] = [
    ("python round", lambda p, r: min(5000, round(200 + r * (p * 3 - 200))), "Python's round()"),
    ("truncation", lambda p, r: min(5000, int(200 + r * (p * 3 - 200))), "cut the fraction off"),
    ("no cap", lambda p, r: js_round(200 + r * (p * 3 - 200)), "capped too"),
    (
        "prev not 3 prev",
        lambda p, r: min(5000, js_round(200 + r * (p - 200))),
        "prev alone in place of prev * 3",
    ),
    ("base not subtracted", lambda p, r: min(5000, js_round(200 + r * p * 3)), "without the - 200"),
    ("no base", lambda p, r: min(5000, js_round(r * p * 3)), "The range starts at 200"),
    ("prev ignored", lambda p, r: min(5000, js_round(200 + r * 400)), "ignores prev"),
    (
        "range top capped",
        lambda p, r: js_round(200 + r * (min(5000, p * 3) - 200)),
        "The top of the range was capped",
    ),
    (
        "math.ceil",
        lambda p, r: min(5000, math.ceil(200 + r * (p * 3 - 200))),
        "math.ceil rounds every fraction up",
    ),
    ("2 * prev", lambda p, r: min(5000, js_round(200 + r * (p * 2 - 200))), "reaches 2 * prev"),
    ("r * prev", lambda p, r: js_round(r * p), "not decorrelated jitter"),
]


@pytest.mark.parametrize(("name", "fn", "hint"), DECO_MISTAKES, ids=[m[0] for m in DECO_MISTAKES])
def test_decorrelated_mistakes(name: str, fn: Callable[[int, float], Any], hint: str) -> None:
    fails_with(check_decorrelated(fn), hint)


def test_decorrelated_names_the_row() -> None:
    fails_with(
        check_decorrelated(lambda p, r: js_round(200 + r * (p * 3 - 200))),
        "the lesson's table says 5000 at retry n=5 (after a wait of 3986 ms)",
    )


def test_decorrelated_raises_and_types() -> None:
    fails_with(check_decorrelated(lambda p, r: p / 0), "raised ZeroDivisionError")
    fails_with(check_decorrelated(lambda p, r: 384.5), "whole milliseconds")


# == the retry rule ================================================================

SAFE = {"GET", "HEAD", "OPTIONS"}


def rule(o: Outcome, method: str, key: bool) -> bool:
    if o.kind == "http":
        return o.status == 429 or (o.status or 0) >= 500
    if o.kind == "network":
        return method in SAFE or key
    return False


def test_should_retry_correct() -> None:
    assert check_should_retry(rule).correct
    assert check_should_retry(lambda o, m, k: np.bool_(rule(o, m, k))).correct


@pytest.mark.parametrize("answer", [None, ..., lambda o, m, k: ..., unimplemented])
def test_should_retry_scaffold(answer: Any) -> None:
    not_yet(check_should_retry(answer))


def variant(**change: Callable[[Outcome, str, bool], bool]) -> Callable[..., bool]:
    def fn(o: Outcome, method: str, key: bool) -> bool:
        if o.kind in change:
            return change[o.kind](o, method, key)
        return rule(o, method, key)

    return fn


RULE_MISTAKES: list[tuple[str, Callable[..., Any], str]] = [
    (
        "POST after network error",
        variant(network=lambda o, m, k: True),
        "could record the measurement twice",
    ),
    (
        "422 retried",
        variant(http=lambda o, m, k: (o.status or 0) >= 400),
        "Among the 4xx only 429 is retried",
    ),
    ("429 never", variant(http=lambda o, m, k: (o.status or 0) >= 500), "429 means rate limited"),
    ("body retried", variant(body=lambda o, m, k: True), "the program's own bug"),
    ("cancel retried", variant(cancelled=lambda o, m, k: True), "a decision to give up"),
    ("key ignored", variant(network=lambda o, m, k: m in SAFE), "idempotency key is ignored"),
    (
        "RFC idempotent set",
        variant(network=lambda o, m, k: m in SAFE | {"PUT", "DELETE"} or k),
        "GUVENLI_YONTEM",
    ),
    (
        "only some 5xx",
        variant(http=lambda o, m, k: o.status in (429, 502, 503, 504)),
        "Every 5xx is retried",
    ),
    (
        "safe network not retried",
        variant(network=lambda o, m, k: k),
        "a safe method changes nothing",
    ),
    ("success retried", variant(success=lambda o, m, k: True), "A success needs no retry"),
    (
        "3xx retried",
        variant(http=lambda o, m, k: rule(o, m, k) or 300 <= (o.status or 0) < 400),
        "1xx, 2xx and 3xx are answers",
    ),
    (
        "500 forgotten",
        variant(http=lambda o, m, k: o.status == 429 or (o.status or 0) > 500),
        "Every 5xx is retried (status >= 500): 500",
    ),
    (
        "408 retried",
        variant(http=lambda o, m, k: rule(o, m, k) or o.status == 408),
        "408 is about the request itself",
    ),
    (
        "network retried for POST with PUT's rule",
        variant(network=lambda o, m, k: m != "POST" or k),
        "TRACE is idempotent in RFC 9110",
    ),
]


@pytest.mark.parametrize(("name", "fn", "hint"), RULE_MISTAKES, ids=[m[0] for m in RULE_MISTAKES])
def test_should_retry_mistakes(name: str, fn: Callable[..., Any], hint: str) -> None:
    fails_with(check_should_retry(fn), hint)


def test_should_retry_asks_every_status_and_method() -> None:
    asked: set[tuple[int, str]] = set()

    def spy(o: Outcome, method: str, key: bool) -> bool:
        if o.kind == "http" and o.status is not None:
            asked.add((o.status, method))
        return rule(o, method, key)

    # the check runs in a child process: collect in the same process with the bare battery
    from retrylab.exercises.build import rule as build

    lesson, unseen = build._rule_cases()
    for _where, o, m, k in lesson:
        spy(o, m, k)
    for o, m, k in unseen:
        spy(o, m, k)
    assert {s for s, _m in asked} == set(range(100, 600))
    assert {m for _s, m in asked} >= {"GET", "HEAD", "OPTIONS", "PUT", "DELETE", "POST", "PATCH"}
    assert len(asked) == 500 * len(build.METHODS)
    assert check_should_retry(spy).correct


def test_should_retry_lesson_first_and_types() -> None:
    fb = check_should_retry(variant(http=lambda o, m, k: (o.status or 0) >= 400))
    fails_with(
        fb, "should_retry(Outcome.http(422), 'POST', False) returned True", '"422 (not retried)"'
    )
    fails_with(check_should_retry(lambda o, m, k: "yes"), "of type str", "True or False")
    fails_with(check_should_retry(lambda o, m, k: int(rule(o, m, k))), "of type int")
    fails_with(
        check_should_retry(lambda o, m, k: o.status == 429 or o.status >= 500),
        "raised TypeError",
        "Outcome.network()",
    )


# == the retry loop ================================================================


def make_loop(
    *,
    extra_attempts: int = 0,
    early_stop: bool = False,
    check_last: bool = True,
    use_rule: bool = True,
    retry_after: str = "max",
    n_shift: int = 0,
    extra_draw: bool = False,
    sleep_first: bool = False,
    rule: Callable[[Outcome, str], bool] = should_retry,
    rounder: Callable[[float], int] = js_round,
    cap: str = "ceiling",
    shift: float = 0.0,
) -> Callable[..., Any]:
    """A student's loop, correct by default, with one mistake switched on."""

    def wait_for(attempt: int, outcome: Outcome, rng: Callable[[], float]) -> int:
        raw = 200 * 2 ** (attempt + n_shift)
        ceiling = min(5000, raw) if cap == "ceiling" else raw
        suggested = (outcome.retry_after or 0) * 1000
        if retry_after == "no draw when it wins" and suggested >= ceiling:
            return suggested
        draw = rounder((rng() + shift) * ceiling)
        if cap == "wait":
            draw = min(5000, draw)
        if extra_draw:
            rng()
        if retry_after == "exact" and outcome.retry_after is not None:
            return suggested
        if retry_after == "ignored":
            return draw
        return max(draw, suggested)

    def loop(
        send: Callable[[], Outcome],
        method: str,
        max_attempts: int,
        sleep: Callable[[int], Any],
        rng: Callable[[], float],
    ) -> Any:
        waits: list[int] = []
        limit = max_attempts + extra_attempts
        outcome = Outcome.success()
        for attempt in range(limit):
            if sleep_first:  # waits before every attempt, the first one included
                wait = max(0, js_round(rng() * min(5000, 200 * 2**attempt)))
                waits.append(wait)
                sleep(wait)
            outcome = send()
            if outcome.ok or (use_rule and not rule(outcome, method)):
                return attempt + 1, outcome, waits
            if sleep_first:
                continue
            if check_last and attempt == limit - 1:
                return attempt + 1, outcome, waits
            if early_stop and attempt + 1 >= limit - 1:
                return attempt + 1, outcome, waits
            wait = wait_for(attempt, outcome, rng)
            waits.append(wait)
            sleep(wait)
        return limit, outcome, waits

    return loop


def rule_but(
    kind: str, method: str | None = None, status: int | None = None, answer: bool = True
) -> Callable[[Outcome, str], bool]:
    """should_retry, except that ``kind`` (on ``method``, or with ``status``) gets ``answer``."""

    def rule(o: Outcome, m: str) -> bool:
        if (
            o.kind == kind
            and (method is None or m == method)
            and (status is None or o.status == status)
        ):
            return answer
        return should_retry(o, m)

    return rule


def policy_loop(send: Any, method: str, max_attempts: int, sleep: Any, rng: Any) -> Any:
    """The student's own loop, returning a result object as RetryPolicy.run does."""
    from types import SimpleNamespace

    attempts, outcome, waits = make_loop()(send, method, max_attempts, sleep, rng)
    return SimpleNamespace(attempts=attempts, outcome=outcome, waits=tuple(waits))


def test_retry_loop_correct_and_alternatives() -> None:
    fb = check_retry_loop(make_loop())
    assert fb.correct and "70, 184, 2000, 2000" in fb.message
    assert check_retry_loop(policy_loop).correct  # returns a RetryResult

    def as_list(*args: Any) -> Any:
        attempts, outcome, waits = make_loop()(*args)
        return [float(attempts), outcome, [np.int64(w) for w in waits]]

    assert check_retry_loop(as_list).correct


@pytest.mark.parametrize("answer", [None, ..., lambda send, m, n, sleep, rng: ..., unimplemented])
def test_retry_loop_scaffold(answer: Any) -> None:
    not_yet(check_retry_loop(answer))


LOOP_MISTAKES: list[tuple[str, Callable[..., Any], str]] = [
    ("Retry-After exact", make_loop(retry_after="exact"), "used as the exact wait"),
    ("Retry-After ignored", make_loop(retry_after="ignored"), "Retry-After was ignored"),
    (
        "no draw when Retry-After wins",
        make_loop(retry_after="no draw when it wins"),
        "rng() was not called",
    ),
    ("one attempt too many", make_loop(extra_attempts=1), "one too many"),
    ("one attempt too few", make_loop(early_stop=True), "one too few"),
    ("sleeps after the last attempt", make_loop(check_last=False), "slept after the last attempt"),
    ("retries non-retryable", make_loop(use_rule=False), "which the lesson's rule refuses"),
    ("n counted from 1", make_loop(n_shift=1), "n = 0 for the first retry"),
    ("two draws per wait", make_loop(extra_draw=True), "draws once per wait"),
    (
        "sleeps before the first attempt",
        make_loop(sleep_first=True),
        "slept before the first attempt",
    ),
    ("Python round", make_loop(rounder=round), "Python's round() rounds halves to even"),
    ("no cap", make_loop(cap="none"), "the cap is missing"),
    ("caps the wait", make_loop(cap="wait"), "Cap the ceiling, not the wait"),
    ("0.5 + r", make_loop(shift=0.5), "shifted to 0.5 + r"),
    (
        "retries 4xx",
        make_loop(rule=lambda o, m: (not o.ok and o.kind == "http") or should_retry(o, m)),
        "It retried 422 on POST",
    ),
    (
        "retries POST network errors",
        make_loop(rule=rule_but("network", "POST")),
        "It retried network on POST",
    ),
    ("retries body errors", make_loop(rule=rule_but("body")), "It retried body on GET"),
    ("retries cancellations", make_loop(rule=rule_but("cancelled")), "It retried cancelled on GET"),
    (
        "ignores 429",
        make_loop(rule=rule_but("http", status=429, answer=False)),
        "It gave up after 429 on GET",
    ),
]


@pytest.mark.parametrize(("name", "fn", "hint"), LOOP_MISTAKES, ids=[m[0] for m in LOOP_MISTAKES])
def test_retry_loop_mistakes(name: str, fn: Callable[..., Any], hint: str) -> None:
    fb = check_retry_loop(fn)
    fails_with(fb, hint)
    assert fb.message.count(hint) == 1, fb.message  # the hint is said once


def test_retry_loop_names_the_lesson_scenario() -> None:
    fails_with(
        check_retry_loop(make_loop(retry_after="ignored")),
        'the lesson\'s scenario "429 (Retry-After: 2)"',
        "the lesson prints attempts=3 outcome=http/429 waits=[2000, 2000]",
    )


def test_retry_loop_gives_up_too_early_on_a_retryable_failure() -> None:
    def never_network(send: Any, method: str, n: int, sleep: Any, rng: Any) -> Any:
        def rule_without_network(o: Outcome, m: str) -> bool:
            return o.kind != "network" and should_retry(o, m)

        waits: list[int] = []
        for attempt in range(n):
            outcome = send()
            if outcome.ok or not rule_without_network(outcome, method) or attempt == n - 1:
                return attempt + 1, outcome, waits
            wait = max(
                js_round(rng() * min(5000, 200 * 2**attempt)), (outcome.retry_after or 0) * 1000
            )
            waits.append(wait)
            sleep(wait)
        return None

    fails_with(check_retry_loop(never_network), "It gave up after network on GET")


def test_retry_loop_endless_send() -> None:
    def forever(send: Any, method: str, n: int, sleep: Any, rng: Any) -> Any:
        attempts, waits = 0, []
        while True:  # no attempt limit, no rule: a 422 forever
            outcome = send()
            attempts += 1
            if outcome.ok:
                return attempts, outcome, waits
            waits.append(
                max(
                    js_round(rng() * min(5000, 200 * 2 ** (attempts - 1))),
                    (outcome.retry_after or 0) * 1000,
                )
            )
            sleep(waits[-1])

    fails_with(
        check_retry_loop(forever),
        "called send() more than 50 times",
        "is the attempt limit checked?",
    )


def test_retry_loop_endless_send_that_swallows_everything(
    short_limit: float, release: threading.Event
) -> None:
    def stubborn(send: Any, method: str, n: int, sleep: Any, rng: Any) -> Any:
        while not release.is_set():
            try:  # noqa: SIM105  (the student's style, on purpose)
                send()
            except BaseException:
                pass

    fb = check_retry_loop(stubborn)
    fails_with(fb, "called send() more than 50 times")


def test_retry_loop_endless_sleep() -> None:
    def sleepy(send: Any, method: str, n: int, sleep: Any, rng: Any) -> Any:
        outcome = send()
        while not outcome.ok:
            sleep(100)
        return 1, outcome, []

    fails_with(check_retry_loop(sleepy), "called sleep() more than 50 times")


def test_retry_loop_spins(short_limit: float, release: threading.Event) -> None:
    def spin(send: Any, method: str, n: int, sleep: Any, rng: Any) -> Any:
        while not release.is_set():
            pass

    fb = check_retry_loop(spin)
    fails_with(fb, "stopped after 0.5 s", "your loop (with a server answering 503")


def test_retry_loop_raises_and_types() -> None:
    def boom(send: Any, method: str, n: int, sleep: Any, rng: Any) -> Any:
        raise KeyError("deneme")

    fails_with(check_retry_loop(boom), "raised KeyError: 'deneme'")
    fails_with(
        check_retry_loop(lambda send, m, n, sleep, rng: {"attempts": 1}),
        "return a tuple (attempts, outcome, waits)",
    )
    fails_with(
        check_retry_loop(lambda send, m, n, sleep, rng: (1, "success", [])), "as the outcome"
    )

    def half_ms(send: Any, method: str, n: int, sleep: Any, rng: Any) -> Any:
        attempts, outcome, waits = make_loop()(send, method, n, lambda ms: None, rng)
        return attempts, outcome, [w + 0.5 for w in waits]

    fails_with(check_retry_loop(half_ms), "whole milliseconds")

    def sleeps_other(send: Any, method: str, n: int, sleep: Any, rng: Any) -> Any:
        return make_loop()(send, method, n, lambda ms: sleep(ms + 1), rng)

    fails_with(check_retry_loop(sleeps_other), "sleep() was called with [71, 185]")


# == the breaker ====================================================================


class Breaker:
    """A student's breaker, correct by default; subclasses switch one mistake on."""

    admit_all = False
    reset_on_success = True
    threshold_shift = 0
    strict_cooldown = False
    early_cooldown = False
    reopen = True
    fresh_cooldown = True
    close_on_success = True
    half_opens = True
    refused_restarts = False
    count_kept = False

    def __init__(self, threshold: int, cooldown: int) -> None:
        self.threshold, self.cooldown = threshold, cooldown
        self.state = "closed"
        self.failures = 0
        self.opened_at = 0
        self.trial_out = False
        self.history: list[str] = []  # an extra attribute: fine

    def allow(self, now: int) -> bool:
        passed = now - self.opened_at
        over = (
            passed > self.cooldown
            if self.strict_cooldown
            else passed >= self.cooldown - 1
            if self.early_cooldown
            else passed >= self.cooldown
        )
        if self.state == "open" and over and self.half_opens:
            self.state, self.trial_out = "half_open", False
        if self.state == "open" and self.refused_restarts:
            self.opened_at = now
        if self.state == "closed":
            return True
        if self.state == "half_open" and (self.admit_all or not self.trial_out):
            self.trial_out = True
            return True
        return False

    def record(self, success: bool, now: int) -> None:
        self.history.append(f"{now}:{success}")
        if success:
            if self.state == "half_open" and self.close_on_success:
                self.state = "closed"
                if self.count_kept:
                    return
            if self.reset_on_success:
                self.failures = 0
            return
        self.failures += 1
        if self.state == "half_open" and self.reopen:
            self.state = "open"
            if self.fresh_cooldown:
                self.opened_at = now
            self.failures = 0
        elif self.state == "half_open":
            self.state = "closed"
        elif self.failures >= self.threshold + self.threshold_shift:
            self.state, self.opened_at = "open", now
            if not self.count_kept:
                self.failures = 0


def breaker(**flags: Any) -> type[Breaker]:
    return type("StudentBreaker", (Breaker,), flags)


def test_breaker_correct_and_alternatives() -> None:
    fb = check_breaker(Breaker)
    assert fb.correct and "nine rows" in fb.message


# == a "write it yourself" answer that calls the library's own is named as such ==========


def test_answers_that_call_the_library_are_named() -> None:
    """Before, each of these passed as Correct: the checker compared the library with
    itself (review: "a 'write it yourself' cell that calls Backoff.next_wait passes")."""
    full = Backoff(200, 2, 5000, jitter="full")
    deco = Backoff(200, 2, 5000, jitter="decorrelated")
    named = [
        (check_should_retry(should_retry), "should_retry"),
        (check_full_jitter(lambda n, r: full.next_wait(n, r)), "Backoff"),
        (check_decorrelated(lambda prev, r: deco.next_wait(0, r, prev)), "Backoff"),
        (
            check_retry_loop(
                lambda send, m, n, sleep, rng: RetryPolicy(max_attempts=n).run(send, m, rng, sleep)
            ),
            "RetryPolicy",
        ),
        (check_breaker(CircuitBreaker), "CircuitBreaker"),
    ]
    for fb, name in named:
        fails_with(fb, f"calls retrylab's {name}", "write it yourself")


def test_a_delegation_hidden_from_the_code_is_caught_at_run_time() -> None:
    """The entry point reached through a name the code does not show: the tripwire."""
    import importlib

    def hidden(n: int, r: float) -> int:
        cls = getattr(importlib.import_module("retrylab.core.backoff"), "Back" + "off")
        return int(cls(200, 2, 5000, jitter="full").next_wait(n, r))

    fails_with(check_full_jitter(hidden), "calls retrylab's Backoff.next_wait")


class Scaffold:
    def __init__(self, threshold: int, cooldown: int) -> None: ...

    def allow(self, now: int) -> bool: ...  # type: ignore[empty-body]

    def record(self, success: bool, now: int) -> None: ...


class Unimplemented(Scaffold):
    def __init__(self, threshold: int, cooldown: int) -> None:
        raise NotImplementedError


@pytest.mark.parametrize("answer", [None, ..., Scaffold, Unimplemented])
def test_breaker_scaffold(answer: Any) -> None:
    not_yet(check_breaker(answer))


BREAKER_MISTAKES: list[tuple[str, type[Breaker], str]] = [
    ("half-open admits every call", breaker(admit_all=True), "let a second call through"),
    ("success does not reset", breaker(reset_on_success=False), "a success must reset the count"),
    ("opens at threshold - 1", breaker(threshold_shift=-1), "it opened after 2 failures"),
    ("opens at threshold + 1", breaker(threshold_shift=1), "still closed after 3 failures"),
    ("cooldown strict", breaker(strict_cooldown=True), "Exactly cooldown ms after opening"),
    ("cooldown one early", breaker(early_cooldown=True), "one ms before the cooldown is over"),
    ("no re-open after a failed trial", breaker(reopen=False), "let calls through at 103 ms"),
    ("stale cooldown", breaker(fresh_cooldown=False), "not from the first opening"),
    ("trial success does not close", breaker(close_on_success=False), "must close"),
    ("never half-opens", breaker(half_opens=False), "never let a trial through"),
    (
        "a refused call restarts the cooldown",
        breaker(refused_restarts=True),
        "A refused call restarted the cooldown",
    ),
    (
        "closing keeps the count",
        breaker(count_kept=True),
        "closing starts the count of failures in a row from 0",
    ),
]


@pytest.mark.parametrize(
    ("name", "cls", "hint"), BREAKER_MISTAKES, ids=[m[0] for m in BREAKER_MISTAKES]
)
def test_breaker_mistakes(name: str, cls: type[Breaker], hint: str) -> None:
    fails_with(check_breaker(cls), hint)


def test_breaker_names_the_lesson_row() -> None:
    fails_with(
        check_breaker(breaker(threshold_shift=1)),
        "row 4 of the lesson's trace",
        "allow(900) returned True",
        "refuses it (state open)",
    )
    # the lesson's own JavaScript (every call let through while half-open) passes its trace
    fails_with(
        check_breaker(breaker(admit_all=True)),
        "the lesson's trace matches",
        "a second call while the trial is in flight",
    )


def test_breaker_broken_classes(short_limit: float, release: threading.Event) -> None:
    class NoRecord:
        def __init__(self, threshold: int, cooldown: int) -> None:
            pass

        def allow(self, now: int) -> bool:
            return True

    fails_with(check_breaker(NoRecord), "has no record() method")

    class Grumpy(Breaker):
        def __init__(self, threshold: int, cooldown: int) -> None:
            raise ValueError("nope")

    fails_with(check_breaker(Grumpy), "raised ValueError: nope")

    class Wordy(Breaker):
        def allow(self, now: int) -> Any:
            return "yes"

    fails_with(check_breaker(Wordy), "of type str", "True or False")

    class Stuck(Breaker):
        def allow(self, now: int) -> bool:
            while not release.is_set():
                pass
            return True

    fb = check_breaker(Stuck)
    fails_with(fb, "stopped after 0.5 s", "allow(0)")
    fails_with(check_breaker(int), "int(3, 5000) raised ValueError")


@pytest.mark.parametrize(
    ("name", "mistakes"),
    [
        ("full jitter", FULL_MISTAKES),
        ("decorrelated", DECO_MISTAKES),
        ("rule", RULE_MISTAKES),
        ("loop", LOOP_MISTAKES),
        ("breaker", BREAKER_MISTAKES),
    ],
)
def test_each_build_exercise_has_ten_mistakes_with_their_own_hints(
    name: str, mistakes: list[Any]
) -> None:
    """At least ten wrong implementations a student would write, each with its own hint."""
    assert len(mistakes) >= 10, name
    hints = [m[2] for m in mistakes]
    assert len(set(hints)) >= len(hints) - 1, hints  # floor + 0.4 shares round()'s hint
