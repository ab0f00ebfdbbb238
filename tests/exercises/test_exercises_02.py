"""Checkers of notebook 02: right, wrong (with the specific hint) and unanswered."""

from __future__ import annotations

from retrylab.exercises.ex02 import (
    check_ceilings,
    check_full_jitter_alone,
    check_herd_attempt4,
    check_quarter_width,
    check_third_width,
)


def test_ceilings() -> None:
    assert check_ceilings([300, 900, 2700, 8100, 10000]).correct
    assert check_ceilings((300, 900, 2700, 8100, 10000.0)).correct
    fb = check_ceilings([300, 900, 2700, 8100, 24300])
    assert not fb.correct and "without the cap" in fb.message
    fb = check_ceilings([900, 2700, 8100, 10000, 10000])
    assert not fb.correct and "those start at n = 1" in fb.message
    fb = check_ceilings([300, 900, 2700, 8100])
    assert not fb.correct and "four ceilings" in fb.message
    fb = check_ceilings([300, 900, 2700, 8000, 10000])
    assert not fb.correct and "compute min(10000, 300 x 3**n)" in fb.message
    fb = check_ceilings([300, 600, 1200, 2400, 4800])
    assert not fb.correct and "the lesson's factor 2" in fb.message
    assert not check_ceilings("300").correct
    fb = check_ceilings(...)
    assert not fb.answered and "replace the ..." in fb.message


def test_full_jitter_alone() -> None:
    fb = check_full_jitter_alone([70, 184, 592])
    assert fb.correct and fb.message.startswith("[70, 184, 592]")
    fb = check_full_jitter_alone([70, 296, 780])
    assert not fb.correct and "decorrelated jitter takes every other draw" in fb.message
    fb = check_full_jitter_alone([70, 184, 593])
    assert not fb.correct and "waits=[70, 184, 593]" in fb.message
    assert "exactly three" in check_full_jitter_alone([70]).message
    assert "exactly three" in check_full_jitter_alone(42).message
    assert not check_full_jitter_alone(None).answered


def test_quarter_width() -> None:
    fb = check_quarter_width(100)
    assert fb.correct and "peak is 6 of 24" in fb.message
    fb = check_quarter_width(200)
    assert not fb.correct and "the peak is 7 of 24 (0.29×), not 6" in fb.message
    fb = check_quarter_width(0)
    assert not fb.correct and "from 1 to 800" in fb.message
    assert not check_quarter_width(True).correct
    assert not check_quarter_width(...).answered


def test_third_width() -> None:
    """Exercise 5 asks for a width the notebook never shows (it shows 50-800 ms)."""
    fb = check_third_width(176)
    assert fb.correct and "narrowest" in fb.message
    assert "a narrower width already reaches 8" in check_third_width(180).message
    assert "one of the page's widths (its busiest bucket holds 6)" in check_third_width(100).message
    assert "holds 7 of 24, not 8" in check_third_width(150).message
    assert "from 1 to 800" in check_third_width(0).message
    assert not check_third_width(True).correct
    assert not check_third_width(...).answered


def test_herd_attempt4() -> None:
    fb = check_herd_attempt4(6)
    assert fb.correct and "1600 ms" in fb.message
    assert "without jitter" in check_herd_attempt4(24).message
    assert "third retry" in check_herd_attempt4(7).message
    fb = check_herd_attempt4(5)
    assert not fb.correct and "peak=5" in fb.message
    assert not check_herd_attempt4(...).answered


def test_full_jitter_second() -> None:
    from retrylab.exercises.ex02 import check_full_jitter_second

    fb = check_full_jitter_second([92, 351, 530])
    assert fb.correct and "draws 2, 4 and 6" in fb.message
    fb = check_full_jitter_second([70, 296, 780])
    assert not fb.correct and "the table as printed" in fb.message
    fb = check_full_jitter_second([70, 184, 592])
    assert not fb.correct and "a generator of its own" in fb.message
    fb = check_full_jitter_second([92, 351, 529])
    assert not fb.correct and "draws 2, 4, 6" in fb.message
    assert "exactly three" in check_full_jitter_second(42).message
    assert not check_full_jitter_second(...).answered
