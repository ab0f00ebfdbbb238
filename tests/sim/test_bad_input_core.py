"""Silent nonsense in the rule, the policy and the summaries becomes a named error."""

from __future__ import annotations

import pytest

from retrylab import (
    Outcome,
    RetryPolicy,
    decide,
    decision_table,
    retry_everything_rule,
    retry_statuses,
    should_retry,
    summary_table,
)


def test_safe_methods_as_a_bare_string_is_refused() -> None:
    # before: "GET" matched the substrings "G", "E", "T", "GE"... of it
    with pytest.raises(
        ValueError,
        match=r"safe_methods='GET' is out of range: safe_methods "
        r"must be a set of method names",
    ):
        RetryPolicy(safe_methods="GET")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"safe_methods='GET' is out of range"):
        decide(Outcome.network(), "GET", safe_methods="GET")  # type: ignore[arg-type]


def test_safe_methods_are_normalised_to_upper_case() -> None:
    # before: {"get"} never matched, since the method is upper-cased first
    policy = RetryPolicy(safe_methods={"get", "Put"})  # type: ignore[arg-type]
    assert policy.safe_methods == frozenset({"GET", "PUT"})
    assert policy.decide(Outcome.network(), "GET").retry
    assert policy.decide(Outcome.network(), "put").retry
    assert should_retry(Outcome.network(), "GET", safe_methods=frozenset({"get"}))


def test_decision_table_refuses_one_string_of_methods() -> None:
    # before: "GET" was read as the methods G, E and T
    with pytest.raises(
        ValueError,
        match=r"methods='GET' is out of range: methods must be a "
        r"list of method names",
    ):
        decision_table("GET", [Outcome.http(503)])


@pytest.mark.parametrize(
    "call",
    [
        lambda: should_retry("503", "GET"),  # type: ignore[arg-type]
        lambda: decide(503, "GET"),  # type: ignore[arg-type]
        lambda: retry_everything_rule("503", "GET"),  # type: ignore[arg-type]
        lambda: retry_statuses([503])("503", "GET"),  # type: ignore[arg-type]
    ],
)
def test_a_status_instead_of_an_outcome_is_a_type_error(call: object) -> None:
    # before: AttributeError: 'str' object has no attribute 'kind'
    with pytest.raises(
        TypeError,
        match=r"outcome=.*503.* is not an Outcome: pass one such "
        r"as Outcome.http\(503\)",
    ):
        call()  # type: ignore[operator]


def test_summary_table_of_nothing_is_a_value_error() -> None:
    # before: a pandas KeyError "['clients'] not found in axis"
    with pytest.raises(
        ValueError,
        match=r"results=\{\} is out of range: results must be a "
        r"mapping of at least one name",
    ):
        summary_table({})
    with pytest.raises(ValueError, match=r"results\['x'\]=3 is out of range"):
        summary_table({"x": 3})  # type: ignore[dict-item]


def test_408_and_501_reasons_are_honest_and_keep_the_lessons_booleans() -> None:
    r408 = decide(Outcome.http(408), "GET")
    r501 = decide(Outcome.http(501), "GET")
    assert (r408.retry, r501.retry) == (False, True)  # the lesson's rule, unchanged
    assert "same answer" not in r408.reason and "MAY repeat" in r408.reason
    assert "can recover" not in r501.reason and "will not change" in r501.reason
    assert "production_rule does not retry it" in r501.reason
    assert "same answer" in decide(Outcome.http(404), "GET").reason  # the rest unchanged
    assert "can recover" in decide(Outcome.http(503), "GET").reason
