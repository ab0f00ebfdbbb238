from __future__ import annotations

import pytest

from retrylab import Backoff, Mulberry32, js_round


def test_growths() -> None:
    assert [Backoff(2000, growth="constant").ceiling(n) for n in range(3)] == [2000] * 3
    assert [Backoff(1000, cap=None, growth="linear").ceiling(n) for n in range(3)] == [
        1000,
        2000,
        3000,
    ]
    assert [Backoff(1000, 2, None).ceiling(n) for n in range(5)] == [1000, 2000, 4000, 8000, 16000]
    assert Backoff(100, step=50, growth="linear", cap=1000).ceiling(100) == 1000
    assert Backoff(100, 1.5, 10_000).ceiling(1) == 150


def test_huge_retry_numbers_hit_the_cap() -> None:
    b = Backoff(200, 2, 5000)
    assert b.ceiling(10_000_000) == 5000
    assert b.ceilings([0, 10_000_000]).tolist() == [200, 5000]


@pytest.mark.parametrize("jitter", ["none", "full", "equal", "decorrelated", "proportional"])
def test_scalar_and_vector_waits_agree(jitter: str) -> None:
    b = Backoff(100, 3, 4000, jitter=jitter)  # type: ignore[arg-type]
    rng = Mulberry32(9)
    r = rng.random(50)
    prev = None
    for n, x in enumerate(r):
        w = b.next_wait(n, float(x), prev)
        prev_arr = None if jitter != "decorrelated" else [b.base if prev is None else prev]
        assert b.next_waits([n], [x], prev_arr).tolist() == [w]
        prev = w


def test_lazy_draws_interleave() -> None:
    rng = Mulberry32(20260114)
    full = Backoff(200, 2, 5000, jitter="full").waits(rng)
    none = Backoff(200, 2, 5000).waits(rng)
    assert next(none) == 200 and rng.state == Mulberry32(20260114).state  # no draw
    assert next(full) == 70


def test_equal_and_proportional_formulas() -> None:
    assert Backoff(200, 2, 5000, jitter="equal").next_wait(2, 0.5) == 600
    assert Backoff(1000, 2, 5000, jitter="proportional").next_wait(0, 0.0) == 500
    assert Backoff(1000, 2, 5000, jitter="proportional").next_wait(3, 0.99) == 5000


def test_js_round_half_up() -> None:
    assert [js_round(x) for x in (0.5, 1.5, 2.5, -0.5, -1.5)] == [1, 2, 3, 0, -1]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"base": 200, "cap": 100}, r"cap=100 is out of range: cap must be >= base \(base=200\)"),
        ({"base": 0}, r"base=0 is out of range: base must be an integer from 1 to"),
        ({"factor": 0.5}, r"factor=0.5 is out of range: factor must be a number >= 1"),
        ({"jitter": "fuzzy"}, r"jitter='fuzzy' is out of range: jitter must be one of"),
        ({"growth": "cubic"}, r"growth='cubic' is out of range"),
        ({"base": -5}, r"base=-5 is out of range"),
        ({"step": -1, "growth": "linear"}, r"step=-1 is out of range"),
        ({"factor": float("nan")}, r"factor=nan is out of range"),
    ],
)
def test_bad_input(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Backoff(**kwargs)  # type: ignore[arg-type]


def test_waits_needs_rng_for_jitter() -> None:
    with pytest.raises(ValueError, match="rng=None"):
        Backoff(jitter="full").waits(None)
    assert next(Backoff(jitter="none").waits(None)) == 200


@pytest.mark.parametrize("jitter", ["full", "equal", "proportional", "none"])
@pytest.mark.parametrize("factor", [3, 3.5])
def test_no_cap_overflow_is_the_documented_error_for_any_factor(jitter: str, factor: float) -> None:
    from retrylab import Outcome, RetryPolicy

    # before: a whole factor gave a bare OverflowError (or a 309-digit wait) instead
    policy = RetryPolicy(max_attempts=1000, backoff=Backoff(1, factor, None, jitter=jitter))
    with pytest.raises(
        ValueError,
        match=r"^n=\d+ is out of range: without a cap, 1 \* "
        rf"{factor} \*\* n overflows$",
    ):
        policy.run(lambda: Outcome.http(503), "GET", Mulberry32(1), lambda ms: None)
    with pytest.raises(ValueError, match=r"without a cap"):
        Backoff(1, factor, None).ceiling(10**9)  # refused before the power
    assert Backoff(1, 3, None).ceiling(20) == 3**20  # exact while it is a float's
