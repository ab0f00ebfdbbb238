from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from retrylab import IDEMPOTENT_METHODS, Outcome, decide, parse_retry_after, should_retry


@pytest.mark.parametrize(
    ("outcome", "method", "key", "expected"),
    [
        (Outcome.http(503), "GET", False, True),
        (Outcome.http(503), "POST", False, True),  # the lesson: 5xx always
        (Outcome.http(500), "POST", False, True),
        (Outcome.http(429), "POST", False, True),
        (Outcome.http(422), "POST", False, False),
        (Outcome.http(404), "GET", False, False),
        (Outcome.http(400), "GET", True, False),
        (Outcome.http(401), "GET", False, False),
        (Outcome.network(), "GET", False, True),
        (Outcome.network(), "head", False, True),
        (Outcome.network(), "OPTIONS", False, True),
        (Outcome.network(), "POST", False, False),
        (Outcome.network(), "POST", True, True),
        (Outcome.network(), "PUT", False, False),  # the lesson's safe set
        (Outcome.network(), "PATCH", True, True),
        (Outcome.body(), "GET", True, False),
        (Outcome.cancelled(), "GET", True, False),
        (Outcome.success(), "GET", False, False),
    ],
)
def test_lesson_rule(outcome: Outcome, method: str, key: bool, expected: bool) -> None:
    assert should_retry(outcome, method, key) is expected


def test_rfc_idempotent_methods_option() -> None:
    assert should_retry(Outcome.network(), "PUT", safe_methods=IDEMPOTENT_METHODS)
    assert not should_retry(Outcome.network(), "POST", safe_methods=IDEMPOTENT_METHODS)


def test_reasons_are_sentences() -> None:
    assert "same answer" in decide(Outcome.http(404), "GET").reason
    assert "idempotency key" in decide(Outcome.network(), "POST", True).reason


def test_retry_after_parsing() -> None:
    assert parse_retry_after("2") == 2.0
    assert parse_retry_after(" 120 ") == 120.0
    assert parse_retry_after("Wed, 14 Jan 2026 10:00:05 GMT", now=1768384800.0) == 5.0
    assert parse_retry_after("Wed, 14 Jan 2026 09:00:00 GMT", now=1768384800.0) == 0.0
    assert parse_retry_after("99999999999") == 31536000.0  # over a year: clamped, not refused
    for bad in ["-1", "soon", "", "1.5"]:
        with pytest.raises(ValueError, match=r"retry_after=.* Retry-After must be"):
            parse_retry_after(bad)
    with pytest.raises(ValueError, match="now=None"):
        parse_retry_after("Wed, 14 Jan 2026 10:00:05 GMT")


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (
            lambda: Outcome.http(99),
            r"status=99 is out of range: status must be an integer from 100",
        ),
        (lambda: Outcome.http(700), r"status=700"),
        (lambda: Outcome.http(429, retry_after=-1), r"retry_after=-1 is out of range"),
        (lambda: Outcome("weird"), r"kind='weird' is out of range"),  # type: ignore[arg-type]
        (lambda: should_retry(Outcome.network(), "GE T"), r"method='GE T' is out of range"),
    ],
)
def test_bad_input(make: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make()  # type: ignore[operator]


# -- other rules: retry everything, an explicit list, and the whole table ------------

ALL_KINDS = [
    Outcome.success(),
    Outcome.http(400),
    Outcome.http(422),
    Outcome.http(503),
    Outcome.network(),
    Outcome.body(),
    Outcome.cancelled(),
]


def test_retry_everything_rule_retries_all_but_success_and_cancellation() -> None:
    from retrylab import retry_everything_rule

    verdicts = {o.label(): retry_everything_rule(o, "POST").retry for o in ALL_KINDS}
    assert verdicts == {
        "success": False,
        "http/400": True,
        "http/422": True,
        "http/503": True,
        "network": True,
        "body": True,
        "cancelled": False,
    }
    reason = retry_everything_rule(Outcome.http(422), "post").reason
    assert reason.startswith("http/422: retried anyway") and "most common mistake" in reason
    assert retry_everything_rule(Outcome.cancelled(), "GET") == decide(Outcome.cancelled(), "GET")
    with pytest.raises(ValueError, match=r"method='GE T' is out of range"):
        retry_everything_rule(Outcome.http(422), "GE T")


def test_retry_statuses_retries_exactly_the_list() -> None:
    from retrylab import retry_statuses

    rule = retry_statuses([503, 502])
    assert [s for s in range(100, 600) if rule(Outcome.http(s), "GET").retry] == [502, 503]
    assert (
        rule(Outcome.http(429), "GET").reason
        == "429: not on the list of statuses to retry (502, 503)"
    )
    assert (
        rule(Outcome.http(502), "POST").reason == "502: on the list of statuses to retry (502, 503)"
    )
    # everything but an HTTP error is the lesson's decision
    for o in [Outcome.network(), Outcome.body(), Outcome.cancelled(), Outcome.success()]:
        for method, key in [("GET", False), ("POST", False), ("POST", True), ("PUT", False)]:
            assert rule(o, method, key) == decide(o, method, key)
    assert (
        retry_statuses([])(Outcome.http(503), "GET").reason
        == "503: not on the list of statuses to retry (none)"
    )


def test_retry_statuses_network_methods_and_repr() -> None:
    from retrylab import retry_statuses

    rule = retry_statuses({429}, network_methods=["get", "put"])
    assert rule.network_methods == frozenset({"GET", "PUT"})
    assert rule(Outcome.network(), "PUT").retry and not rule(Outcome.network(), "HEAD").retry
    assert repr(rule) == "retry_statuses([429], network_methods=['GET', 'PUT'])"
    assert rule == retry_statuses([429, 429], network_methods={"PUT", "GET"})


@pytest.mark.parametrize(
    ("statuses", "kwargs", "message"),
    [
        ([503, 600], {}, r"status=600 is out of range: status must be an integer from 100 to 599"),
        ([99], {}, r"status=99 is out of range"),
        ([503.5], {}, r"status=503.5 is out of range"),
        ([True], {}, r"status=True is out of range"),
        ("503", {}, r"statuses='503' is out of range: statuses must be a list"),
        (503, {}, r"statuses=503 is out of range"),
        ([503], {"network_methods": "GET"}, r"network_methods='GET' is out of range"),
        ([503], {"network_methods": ["G T"]}, r"method='G T' is out of range"),
    ],
)
def test_retry_statuses_bad_input(
    statuses: object, kwargs: dict[str, object], message: str
) -> None:
    from retrylab import retry_statuses

    with pytest.raises(ValueError, match=message):
        retry_statuses(statuses, **kwargs)  # type: ignore[arg-type]


@given(st.sets(st.integers(100, 599), max_size=8), st.integers(100, 599))
def test_retry_statuses_agrees_with_membership(listed: set[int], status: int) -> None:
    from retrylab import retry_statuses

    assert retry_statuses(listed)(Outcome.http(status), "PATCH").retry is (status in listed)


def test_decision_table_is_decide_for_every_row() -> None:
    from retrylab import decision_table

    outcomes = {"503": Outcome.http(503), "422": Outcome.http(422), "net": Outcome.network()}
    t = decision_table(["get", "PUT", "POST"], outcomes)
    assert len(t) == 3 * 3 * 2
    assert t.columns.tolist() == ["method", "outcome", "key", "retry", "reason"]
    assert t["method"].unique().tolist() == ["GET", "PUT", "POST"]
    assert t["outcome"].unique().tolist() == ["503", "422", "net"]
    for row in t.itertuples():
        d = decide(outcomes[row.outcome], row.method, row.key)
        assert (row.retry, row.reason) == (d.retry, d.reason)
    assert t["retry"].sum() == 3 * 2 + 2 + 1 + 1  # 503 always; net: GET twice, PUT/POST keyed


def test_decision_table_with_another_rule_and_the_verdicts() -> None:
    from retrylab import decision_table, retry_everything_rule, verdict_table

    methods = ["GET", "POST"]
    lesson = verdict_table(decision_table(methods, ALL_KINDS))
    blind = verdict_table(decision_table(methods, ALL_KINDS, retry_everything_rule))
    assert lesson.to_dict("index") == {
        "success": {"GET": "no", "POST": "no"},
        "http/400": {"GET": "no", "POST": "no"},
        "http/422": {"GET": "no", "POST": "no"},
        "http/503": {"GET": "retry", "POST": "retry"},
        "network": {"GET": "retry", "POST": "with key"},
        "body": {"GET": "no", "POST": "no"},
        "cancelled": {"GET": "no", "POST": "no"},
    }
    assert lesson.index.tolist() == [o.label() for o in ALL_KINDS]
    assert (blind == "retry").sum().sum() == 2 * 5  # all but success and cancelled


def test_decision_table_bad_input() -> None:
    from retrylab import decision_table

    with pytest.raises(ValueError, match=r"outcomes\['x'\]=503 is out of range"):
        decision_table(["GET"], {"x": 503})  # type: ignore[dict-item]
    with pytest.raises(ValueError, match=r"method='G T' is out of range"):
        decision_table(["G T"], [Outcome.network()])
