from __future__ import annotations

from retrylab import Backoff, RetryPolicy
from retrylab.lessons.audit import audit, audit_table


def failed(policy: RetryPolicy, **kw: object) -> list[str]:
    return [f.rule for f in audit(policy, **kw) if not f.passed]  # type: ignore[arg-type]


def test_presets_pass_for_their_use() -> None:
    assert failed(RetryPolicy.user_triggered()) == []
    assert failed(RetryPolicy.background(), user_facing=False) == []


def test_each_mistake_is_caught() -> None:
    assert failed(
        RetryPolicy(
            max_attempts=6, backoff=Backoff(200, 2, None, jitter="none"), time_budget=30_000
        ),
        method="POST",
    ) == [
        "attempt limit",
        "a cap on the wait",
        "jitter",
        "total time budget",
        "Retry-After limit",
        "safe to repeat",
    ]
    constant = RetryPolicy.user_triggered(backoff=Backoff(500, growth="constant", jitter="full"))
    assert failed(constant) == ["exponential growth"]
    assert failed(RetryPolicy.user_triggered(), method="POST", idempotency_key=True) == []


def test_table() -> None:
    t = audit_table(RetryPolicy(), method="POST")
    assert t.loc["safe to repeat", "verdict"] == "FAIL"
    assert "idempotency key" in t.loc["safe to repeat", "why"]


def test_retrying_everything_is_caught() -> None:
    from retrylab.core.outcome import retry_everything_rule

    sloppy = RetryPolicy.user_triggered(rule=retry_everything_rule)
    assert failed(sloppy) == ["classifies failures"]
    why = {f.rule: f.why for f in audit(sloppy)}["classifies failures"]
    assert "422, 404, a body error" in why
