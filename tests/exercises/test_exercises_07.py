from __future__ import annotations

from retrylab import Backoff, RetryPolicy
from retrylab.exercises.ex07 import (
    capstone_fleet,
    capstone_report,
    check_capstone,
    check_quiz,
    quiz_table,
)

GOOD = RetryPolicy(
    max_attempts=5,
    backoff=Backoff(5000, 3, 60_000, jitter="full"),
    time_budget=110_000,
    max_retry_after=600_000,
)


def test_capstone_solution_meets_every_target() -> None:
    fb = check_capstone(GOOD)
    assert fb.correct, fb.message
    report = capstone_report(capstone_fleet(GOOD).run())
    assert (report["verdict"] == "pass").all()
    assert report.loc["served (%)", "measured"] >= 99


def test_capstone_wrong_answers_get_specific_hints() -> None:
    fb = check_capstone(RetryPolicy.background())
    assert not fb.correct and "served (%): 57.8" in fb.message
    assert "outlast a 20 s outage" in fb.message
    herd = GOOD.with_(backoff=Backoff(5000, 3, 60_000))
    fb = check_capstone(herd)
    assert not fb.correct and "checklist first: jitter" in fb.message
    fb = check_capstone(Backoff(200))
    assert not fb.correct and "build a RetryPolicy" in fb.message
    assert not check_capstone(...).answered


def test_quiz() -> None:
    assert check_quiz({"a", "E"}).correct
    fb = check_quiz({"A", "B", "E"})
    assert not fb.correct and "B breaks the checklist for a button press" in fb.message
    assert "B fail(s) a rule" in check_quiz({"B", "E"}).message
    assert "break a rule" in check_quiz({"B", "C", "D"}).message
    fb = check_quiz({"A"})
    assert "E pass(es) every rule" in fb.message
    assert "set of letters" in check_quiz(3).message
    assert check_quiz(["A", "e"]).correct
    assert "not one of the policies" in check_quiz({"A", "F"}).message
    assert "not a letter" in check_quiz({1, 2}).message
    assert not check_quiz(None).answered
    assert list(quiz_table().index) == ["A", "B", "C", "D", "E"]
