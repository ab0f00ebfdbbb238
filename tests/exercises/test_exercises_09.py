"""Notebook 09's checkers: right answers pass, common mistakes get their hint, nothing raises."""

from __future__ import annotations

from retrylab.exercises.ex09 import (
    check_failure_rate,
    check_hedged_latency,
    check_recovering_settings,
    check_sre_probability,
)


def good_rate(failed, minimum):  # type: ignore[no-untyped-def]
    if len(failed) == 0 or len(failed) < minimum:
        return -1
    return 100 * sum(failed) / len(failed)


def test_failure_rate() -> None:
    assert check_failure_rate(good_rate).correct
    assert not check_failure_rate(...).answered
    assert not check_failure_rate(lambda f, m: None).answered  # the scaffold's body
    fraction = check_failure_rate(lambda f, m: -1 if len(f) < max(1, m) else sum(f) / len(f))
    assert not fraction.correct and "percent" in fraction.message
    no_minimum = check_failure_rate(lambda f, m: 100 * sum(f) / max(1, len(f)))
    assert "minimum" in no_minimum.message
    boom = check_failure_rate(lambda f, m: 1 / 0)
    assert not boom.correct and "ZeroDivisionError" in boom.message
    assert "function itself" in check_failure_rate(50.0).message


def test_sre_probability() -> None:
    assert check_sre_probability(lambda r, a, k: max(0, (r - k * a) / (r + 1))).correct
    neg = check_sre_probability(lambda r, a, k: (r - k * a) / (r + 1))
    assert "negative" in neg.message
    plain = check_sre_probability(lambda r, a, k: max(0, (r - k * a) / r) if r else 0)
    assert "requests + 1" in plain.message


def test_hedged_latency() -> None:
    assert check_hedged_latency(lambda f, s, d: f if f <= d else min(f, d + s)).correct
    fastest = check_hedged_latency(lambda f, s, d: min(f, s))
    assert "delay + second" in fastest.message
    always = check_hedged_latency(lambda f, s, d: d + s)
    assert not always.correct
    assert not check_hedged_latency(None).answered


def test_recovering_settings() -> None:
    assert check_recovering_settings({"timeout": 1000, "retries": 3, "budget": 0.1}).correct
    assert check_recovering_settings({"timeout": 3000, "retries": 3, "budget": None}).correct
    stuck = check_recovering_settings({"timeout": 1000, "retries": 3, "budget": None})
    assert not stuck.correct and "metastable" in stuck.message
    assert "at least 2" in check_recovering_settings({"retries": 0}).message
    assert "only timeout" in check_recovering_settings({"retries": 2, "base": 0.1}).message
    assert "refused" in check_recovering_settings({"retries": 2, "timeout": -5}).message
    assert not check_recovering_settings("fast").correct
    assert not check_recovering_settings({"timeout": ..., "retries": 2}).answered


def test_a_function_that_never_returns_is_reported_not_waited_for(monkeypatch) -> None:
    """Before, notebook 09's checkers called the student's function with no time limit:
    a loop that never ends hung the kernel. They now run under the build checkers'
    harness (a time limit: the stop's timer ends it with the verdict)."""
    import threading

    from retrylab.exercises.build import harness as _build_harness

    monkeypatch.setattr(_build_harness, "TIME_LIMIT", 0.3)
    over = threading.Event()  # ends the loops the checker leaves behind, once judged

    def forever(*args: object) -> None:
        while not over.is_set():
            pass

    try:
        for check in (check_failure_rate, check_sre_probability, check_hedged_latency):
            feedback = check(forever)
            assert not feedback.correct
            assert "stopped after 0.3 s: forever(" in feedback.message, check
    finally:
        over.set()


def test_shortest_timeout() -> None:
    """Exercise 4 asks for a setting the page does not show (it shows 1 s and 3 s)."""
    from retrylab.exercises.ex09 import check_shortest_timeout

    assert check_shortest_timeout(1500).correct
    assert check_shortest_timeout(1494).correct  # the whole-ms edge
    assert "a shorter timeout does too" in check_shortest_timeout(2000).message
    assert "the page's example that recovers" in check_shortest_timeout(3000).message
    assert "still metastable" in check_shortest_timeout(1400).message
    assert "stays metastable" in check_shortest_timeout(1000).message
    assert "looks like seconds" in check_shortest_timeout(1.5).message
    assert "counts 100 ms steps" in check_shortest_timeout(15).message
    assert "a multiple of 100" in check_shortest_timeout(1550).message
    assert "from 100 to 10000" in check_shortest_timeout("soon").message
    assert not check_shortest_timeout(...).answered


# == wrong implementations a student would write, each with the hint it must get ======
FAILURE_RATE_MISTAKES = [
    ("a fraction", lambda f, m: -1 if len(f) < max(1, m) else sum(f) / len(f), "fraction"),
    ("no minimum", lambda f, m: 100 * sum(f) / max(1, len(f)), "minimum"),
    (
        "<= minimum",
        lambda f, m: -1 if len(f) <= m else 100 * sum(f) / len(f),
        "with exactly minimum",
    ),
    (
        "0 below the minimum",
        lambda f, m: 0 if len(f) < max(1, m) else 100 * sum(f) / len(f),
        "return -1",
    ),
    (
        "the success rate",
        lambda f, m: -1 if len(f) < max(1, m) else 100 * (len(f) - sum(f)) / len(f),
        "success rate",
    ),
    ("the count", lambda f, m: -1 if len(f) < max(1, m) else sum(f), "number of failures"),
    (
        "divided by minimum",
        lambda f, m: -1 if len(f) < max(1, m) else 100 * sum(f) / m,
        "not by minimum",
    ),
    (
        "rounded",
        lambda f, m: -1 if len(f) < max(1, m) else round(100 * sum(f) / len(f)),
        "Do not round",
    ),
    ("a string", lambda f, m: f"{100 * sum(f) / max(1, len(f))}%", "return a number"),
    (
        "None below the minimum",
        lambda f, m: None if len(f) < max(1, m) else 100 * sum(f) / len(f),
        "return a number",
    ),
]
SRE_MISTAKES = [
    ("no max(0, ...)", lambda r, a, k: (r - k * a) / (r + 1), "negative"),
    ("divides by requests", lambda r, a, k: max(0, (r - k * a) / r) if r else 0, "requests + 1"),
    ("K missing", lambda r, a, k: max(0, (r - a) / (r + 1)), "K is missing"),
    ("K on requests", lambda r, a, k: max(0, (k * r - a) / (r + 1)), "not requests"),
    ("the chance to send", lambda r, a, k: 1 - max(0, (r - k * a) / (r + 1)), "chance to send"),
    ("a percent", lambda r, a, k: 100 * max(0, (r - k * a) / (r + 1)), "not a percent"),
    ("integer division", lambda r, a, k: max(0, (r - k * a) // (r + 1)), "integer division"),
    ("min(1, ...) for max(0, ...)", lambda r, a, k: min(1, (r - k * a) / (r + 1)), "negative"),
    ("a decision, not a probability", lambda r, a, k: r > k * a, "probability between 0 and 1"),
    ("a crash on nothing sent", lambda r, a, k: max(0, (r - k * a) / r), "ZeroDivisionError"),
]
HEDGE_MISTAKES = [
    ("the faster copy", lambda f, s, d: min(f, s), "delay + second"),
    ("always the copy", lambda f, s, d: d + s, "first answer wins"),
    ("the larger", lambda f, s, d: max(f, d + s), "not the larger"),
    ("waits for both", lambda f, s, d: f if f <= d else max(f, d + s), "not the larger"),
    (
        "both from the delay",
        lambda f, s, d: f if f <= d else d + min(f, s),
        "first copy was sent at 0",
    ),
    ("no hedge", lambda f, s, d: f, "no hedge"),
    ("the copy's own time", lambda f, s, d: f if f <= d else s, "answers at delay + second"),
    ("the delay", lambda f, s, d: f if f <= d else d, "when the copy is sent"),
    ("a string", lambda f, s, d: f"{min(f, d + s)} ms", "expected"),
    ("the sum", lambda f, s, d: f + s, "not when the first copy ends"),
]


def _fails_with(fb: object, hint: str) -> None:
    from retrylab.exercises import Feedback

    assert isinstance(fb, Feedback) and fb.answered and not fb.correct, fb
    assert hint in fb.message, (hint, fb.message)


import pytest  # noqa: E402


@pytest.mark.parametrize(
    ("name", "fn", "hint"), FAILURE_RATE_MISTAKES, ids=[m[0] for m in FAILURE_RATE_MISTAKES]
)
def test_failure_rate_mistakes(name: str, fn: object, hint: str) -> None:
    _fails_with(check_failure_rate(fn), hint)


@pytest.mark.parametrize(("name", "fn", "hint"), SRE_MISTAKES, ids=[m[0] for m in SRE_MISTAKES])
def test_sre_mistakes(name: str, fn: object, hint: str) -> None:
    _fails_with(check_sre_probability(fn), hint)


@pytest.mark.parametrize(("name", "fn", "hint"), HEDGE_MISTAKES, ids=[m[0] for m in HEDGE_MISTAKES])
def test_hedge_mistakes(name: str, fn: object, hint: str) -> None:
    _fails_with(check_hedged_latency(fn), hint)


def test_each_of_09s_build_exercises_has_ten_mistakes() -> None:
    for mistakes in (FAILURE_RATE_MISTAKES, SRE_MISTAKES, HEDGE_MISTAKES):
        assert len(mistakes) >= 10
