"""Checkers of notebook 06: right, wrong (with the specific hint) and unanswered."""

from __future__ import annotations

import numpy as np
import pytest

from retrylab.exercises.ex06 import (
    check_jitter_calls_ratio,
    check_layered,
    check_throttle_recovery,
    check_wave_capacity,
)


def test_wave_capacity() -> None:
    fb = check_wave_capacity(400)
    assert fb.correct and "100 served in each: 400" in fb.message
    assert check_wave_capacity(400.0).correct
    assert "200 is the answer for capacity 50" in check_wave_capacity(200).message
    assert "Count the waves" in check_wave_capacity(1000).message
    assert "100 is one wave" in check_wave_capacity(100).message
    fb = check_wave_capacity(300)
    assert not fb.correct and "served=300 is 3 waves of 100" in fb.message
    fb = check_wave_capacity(350)
    assert not fb.correct and "served=350: count the retry waves" in fb.message
    assert "clients who give up" in check_wave_capacity(600).message
    assert "a share of the clients" in check_wave_capacity(0.4).message
    assert "percent" in check_wave_capacity(40).message
    assert "whole number" in check_wave_capacity("four hundred").message
    assert not check_wave_capacity(True).correct
    fb = check_wave_capacity(...)
    assert not fb.answered and "replace the ..." in fb.message


def test_layered() -> None:
    assert check_layered(81).correct
    assert "swaps the numbers" in check_layered(64).message
    assert "multiply" in check_layered(12).message
    assert "fourth retrying layer" in check_layered(27).message
    fb = check_layered(50)
    assert not fb.correct and "calls=50" in fb.message
    assert "beyond the one" in check_layered(80).message
    assert "the user's own request" in check_layered(82).message
    assert "adds up the calls of every layer" in check_layered(120).message
    assert "whole number" in check_layered(81.5).message
    assert not check_layered(None).answered


def test_throttle_recovery() -> None:
    fb = check_throttle_recovery(51)
    assert fb.correct and "5.1 tokens" in fb.message
    fb = check_throttle_recovery(50)
    assert not fb.correct and "exactly 5.0 tokens" in fb.message
    assert "adds token_ratio = 0.1" in check_throttle_recovery(6).message
    fb = check_throttle_recovery(100)
    assert not fb.correct and "successes=100" in fb.message
    assert "whole number" in check_throttle_recovery([51]).message
    assert not check_throttle_recovery(...).answered


def test_jitter_calls_ratio() -> None:
    fb = check_jitter_calls_ratio(2.70)
    assert fb.correct and fb.message.startswith("3557 calls against 1319")
    assert check_jitter_calls_ratio(2.7).correct
    assert check_jitter_calls_ratio("2.69").correct
    assert check_jitter_calls_ratio(np.float64(2.697)).correct
    fb = check_jitter_calls_ratio(0.37)
    assert not fb.correct and "the other way round" in fb.message
    fb = check_jitter_calls_ratio(2.33)
    assert not fb.correct and "ratio at 100 clients" in fb.message
    fb = check_jitter_calls_ratio(3)
    assert not fb.correct and "ratio=3:" in fb.message
    assert "give one number" in check_jitter_calls_ratio([2.7]).message
    assert not check_jitter_calls_ratio(float("nan")).correct
    assert not check_jitter_calls_ratio(None).answered


@pytest.mark.parametrize(
    "checker",
    [check_wave_capacity, check_layered, check_throttle_recovery, check_jitter_calls_ratio],
)
def test_checkers_never_raise(checker: object) -> None:
    for odd in (object(), {"a": 1}, -1, 10**30, "", b"1", 1j):
        fb = checker(odd)  # type: ignore[operator]
        assert not fb.correct
