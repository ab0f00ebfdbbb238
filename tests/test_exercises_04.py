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
    fb = check_retry_in(5)
    assert fb.correct and "4100 ms" in fb.message
    fb = check_retry_in(4)
    assert not fb.correct and "rounds 4100 ms down" in fb.message
    fb = check_retry_in(4100)
    assert not fb.correct and "in ms" in fb.message
    fb = check_retry_in(5000)
    assert not fb.correct and "whole cooldown" in fb.message
    fb = check_retry_in(3)
    assert not fb.correct and "round up" in fb.message
    assert not check_retry_in(...).answered
