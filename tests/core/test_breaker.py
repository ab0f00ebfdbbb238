from __future__ import annotations

import pytest

from retrylab import BreakerOpen, BreakerRegistry, CircuitBreaker, State


def test_opens_at_threshold_and_blocks() -> None:
    cb = CircuitBreaker(threshold=2, cooldown=1000)
    assert cb.record(False, 0) is State.CLOSED
    assert cb.record(False, 10) is State.OPEN
    assert not cb.allow(500) and cb.retry_in(500) == 510
    assert cb.allow(1010) and cb.state is State.HALF_OPEN


def test_half_open_admits_one_trial() -> None:
    cb = CircuitBreaker(threshold=1, cooldown=100)
    cb.record(False, 0)
    assert cb.allow(100)
    assert not cb.allow(101)  # one trial at a time
    assert cb.record(True, 102) is State.CLOSED
    assert cb.allow(103) and cb.allow(104)


def test_success_resets_count() -> None:
    cb = CircuitBreaker(threshold=3)
    cb.record(False, 0), cb.record(False, 1), cb.record(True, 2)
    assert cb.record(False, 3) is State.CLOSED and cb.failures == 1


def test_transition_log_and_counts() -> None:
    cb = CircuitBreaker(threshold=1, cooldown=10)
    cb.record(False, 0)
    cb.allow(10)
    cb.record(False, 10)
    cb.allow(20)
    cb.record(True, 21)
    assert [(t.source.value, t.target.value, t.at) for t in cb.transitions] == [
        ("closed", "open", 0),
        ("open", "half_open", 10),
        ("half_open", "open", 10),
        ("open", "half_open", 20),
        ("half_open", "closed", 21),
    ]
    assert cb.transition_counts()[(State.OPEN, State.HALF_OPEN)] == 2


def test_call_raises_breaker_open_distinct_from_network_error() -> None:
    cb = CircuitBreaker(threshold=1, cooldown=5000, name="POST /measurements")

    def boom() -> int:
        raise ConnectionError("reset")

    with pytest.raises(ConnectionError):
        cb.call(boom, 0)
    with pytest.raises(BreakerOpen) as info:
        cb.call(lambda: 1, 1200)
    assert info.value.retry_in == 3800
    assert not isinstance(info.value, ConnectionError)
    assert "3800 ms" in str(info.value) and "POST /measurements" in str(info.value)


def test_registry_scopes_by_group() -> None:
    reg = BreakerRegistry(
        threshold=1, cooldown=1000, group=lambda e: "write" if e.startswith("POST") else "read"
    )
    reg.get("POST /measurements").record(False, 0)
    assert not reg.get("POST /other").allow(1)
    assert reg.get("GET /stations").allow(1)
    assert reg.states() == {"write": State.OPEN, "read": State.CLOSED}


def test_state_is_a_str_enum() -> None:
    assert State.HALF_OPEN == "half_open" and str(State.OPEN) == "open"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"threshold": 0}, r"threshold=0 is out of range: threshold must be an integer from 1"),
        ({"threshold": -3}, r"threshold=-3"),
        ({"cooldown": -1}, r"cooldown=-1 is out of range"),
        ({"half_open_max_calls": 0}, r"half_open_max_calls=0"),
        ({"threshold": 2.5}, r"threshold=2.5"),
    ],
)
def test_bad_input(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        CircuitBreaker(**kwargs)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=message):
        BreakerRegistry(**kwargs)  # type: ignore[arg-type]
