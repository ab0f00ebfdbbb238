"""Checkers of notebook 04: right, wrong (with the specific hint) and unanswered."""

from __future__ import annotations

from retrylab.exercises.ex04 import check_blocked_times, check_retry_in, check_threshold_two


def test_threshold_two() -> None:
    fb = check_threshold_two(5, 4)
    assert fb.correct and "opens at 200 ms" in fb.message
    fb = check_threshold_two(6, 3)
    assert not fb.correct and "the lesson's threshold of 3" in fb.message
    fb = check_threshold_two(5, 3)
    assert not fb.correct and "should add up to 9" in fb.message
    fb = check_threshold_two(4, 5)
    assert not fb.correct and "a threshold of 1" in fb.message
    fb = check_threshold_two(3, 6)
    assert not fb.correct and "CircuitBreaker(threshold=2, cooldown=5000)" in fb.message
    assert not check_threshold_two(..., 4).answered
    assert not check_threshold_two(5, None).answered


def test_blocked_times() -> None:
    fb = check_blocked_times([1500, 900])
    assert fb.correct and "exactly 2000 ms have passed" in fb.message
    fb = check_blocked_times([900, 1500, 8000])
    assert not fb.correct and "the lesson's answer for 5000 ms" in fb.message
    fb = check_blocked_times([900])
    assert not fb.correct and "times=[900]" in fb.message
    fb = check_blocked_times("soon")
    assert not fb.correct and "give a list of event times" in fb.message
    assert not check_blocked_times(...).answered


def test_retry_in() -> None:
    """Exercise 4 asks about a 7500 ms cooldown: the 5000 ms answer shown above the
    exercise (4100 ms, so 5 s) is a mistake with its own hint."""
    assert check_retry_in(7).correct
    assert "6600 ms" in check_retry_in(7).message
    assert "rounds 6600 ms down" in check_retry_in(6).message
    assert "the 5000 ms breaker's answer" in check_retry_in(5).message
    assert "the 5000 ms breaker's answer" in check_retry_in(4100).message
    assert "the whole cooldown" in check_retry_in(8).message
    assert "the whole cooldown" in check_retry_in(7500).message
    assert "in ms" in check_retry_in(6600).message
    assert "round up" in check_retry_in(3).message
    assert not check_retry_in(...).answered
