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
    assert check_retried_cases({"A", "E", "G", "H"}).correct
    assert check_retried_cases(["a", "e", "g", "h"]).correct
    assert check_retried_cases("A, E, G, H").correct
    fb = check_retried_cases({"A", "G", "H"})
    assert not fb.correct and fb.answered
    assert fb.message.startswith("E is retried: network error on POST with an idempotency key")
    fb = check_retried_cases({"A", "D", "E", "G", "H"})
    assert fb.message.startswith("D is not retried: network error on DELETE without an "
                                 "idempotency key")
    fb = check_retried_cases({"Z"})
    assert "give a set of letters from A, B, C" in fb.message
    assert not check_retried_cases(...).answered
    assert not check_retried_cases(None).answered
    assert len(cases_table()) == len(CASES) == 8


def test_retried_statuses() -> None:
    assert check_retried_statuses({429, 501, 504, 507}).correct
    assert check_retried_statuses(["429", 501, 504, 507]).correct
    assert "429 is missing" in check_retried_statuses({501, 504, 507}).message
    assert check_retried_statuses({429, 501, 507}).message.startswith("504 is missing")
    fb = check_retried_statuses({408, 429, 501, 504, 507})
    assert fb.message.startswith("408 should not be retried: 408 is a 4xx")
    fb = check_retried_statuses({405, 429, 501, 504, 507})
    assert fb.message.startswith("405 should not be retried: the request itself is wrong")
    assert "Not Implemented" in check_retried_statuses({429, 504, 507}).message
    assert "not in the list" in check_retried_statuses({429, 501, 503, 504, 507}).message
    assert "whole status codes" in check_retried_statuses(5).message
    assert not check_retried_statuses(...).answered


def test_expected_duplicates() -> None:
    assert round(expected_duplicates(), 9) == 248.0
    assert round(expected_duplicates(100, 0.5, 2), 9) == 50.0
    assert check_expected_duplicates(248).correct
    assert check_expected_duplicates(248.8).correct
    assert "counts only the first retry" in check_expected_duplicates(200).message
    assert "endless retries" in check_expected_duplicates(250).message
    assert "idempotency key" in check_expected_duplicates(0).message
    assert "at most three times" in check_expected_duplicates(100).message
    assert "give a number" in check_expected_duplicates("two hundred").message
    assert not check_expected_duplicates(...).answered
