"""The checkers of notebook 01: right, wrong (with the specific hint) and unanswered."""

from __future__ import annotations

from retrylab.exercises.ex01 import (
    CASES,
    cases_table,
    check_expected_duplicates,
    check_retried_cases,
    check_retried_statuses,
    expected_duplicates,
)


def test_retried_cases() -> None:
    assert check_retried_cases({"A", "C", "F", "G"}).correct
    assert check_retried_cases(["a", "c", "f", "g"]).correct
    assert check_retried_cases("A, C, F, G").correct
    fb = check_retried_cases({"A", "C", "G"})
    assert not fb.correct and fb.answered
    assert "no network error retried" in fb.message
    fb = check_retried_cases({"A", "C", "G", "E"})
    assert "the idempotency key read backwards" in fb.message
    assert check_retried_cases({"A", "C", "G", "F"}.union("B")).message.startswith(
        "B is not retried"
    )
    fb = check_retried_cases({"A", "C", "E", "F", "G"})
    assert fb.message.startswith(
        "E is not retried: network error on TRACE without an idempotency key"
    )
    fb = check_retried_cases({"Z"})
    assert "give a set of letters from A, B, C" in fb.message
    assert not check_retried_cases(...).answered
    assert not check_retried_cases(None).answered
    assert len(cases_table()) == len(CASES) == 8


def test_retried_statuses() -> None:
    assert check_retried_statuses({501, 504, 507}).correct
    assert check_retried_statuses(["501", 504, 507]).correct
    assert check_retried_statuses({501, 507}).message.startswith("504 is missing")
    fb = check_retried_statuses({408, 501, 504, 507})
    assert fb.message.startswith("408 should not be retried: 408 is a 4xx")
    fb = check_retried_statuses({405, 501, 504, 507})
    assert fb.message.startswith("405 should not be retried: the server refuses this method")
    fb = check_retried_statuses({409, 501, 504, 507})
    assert "409 is not one of the eight" in fb.message
    assert "Not Implemented" in check_retried_statuses({504, 507}).message
    fb = check_retried_statuses({429, 501, 504, 507})
    assert "429 is retried by the rule, but it is not one of the eight" in fb.message
    assert "whole status codes" in check_retried_statuses(5).message
    assert not check_retried_statuses(...).answered


def test_expected_duplicates() -> None:
    assert round(expected_duplicates(), 9) == 248.0
    assert round(expected_duplicates(1000, 0.3, 3), 9) == 390.0
    assert round(expected_duplicates(100, 0.5, 2), 9) == 50.0
    assert check_expected_duplicates(390).correct
    assert check_expected_duplicates(390.8).correct
    assert "the 20% run's count" in check_expected_duplicates(249).message
    assert "the 20% run's count" in check_expected_duplicates(248).message
    assert "counts only the first retry" in check_expected_duplicates(300).message
    assert "endless retries" in check_expected_duplicates(429).message
    assert "counts three retries" in check_expected_duplicates(417).message
    assert "idempotency key" in check_expected_duplicates(0).message
    assert "at most twice" in check_expected_duplicates(100).message
    assert "give a number" in check_expected_duplicates("two hundred").message
    assert not check_expected_duplicates(...).answered
