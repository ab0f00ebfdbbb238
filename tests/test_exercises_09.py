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
    assert not check_failure_rate(lambda f, m: None).answered       # the scaffold's body
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
    harness (a time limit, in a child process that ends with the verdict)."""
    import threading

    from retrylab.exercises import _build_harness

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
    assert check_shortest_timeout(1494).correct        # the whole-ms edge
    assert "a shorter timeout does too" in check_shortest_timeout(3000).message
    assert "still metastable" in check_shortest_timeout(1400).message
    assert "still metastable" in check_shortest_timeout(1000).message
    assert "from 100 to 10000" in check_shortest_timeout("soon").message
    assert not check_shortest_timeout(...).answered
