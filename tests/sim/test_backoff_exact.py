"""The backoff refuses nonsense by name and matches the lesson's JavaScript exactly."""

from __future__ import annotations

import json
import math
import shutil
import subprocess

import numpy as np
import pytest

from retrylab import Backoff, Mulberry32

# -- the lesson-exact core: jitter scales the unrounded ceiling ------------------------


@pytest.mark.parametrize(
    ("backoff", "n", "r", "expected"),
    [
        # 300 * 1.5 ** 3 = 1012.5 (the table shows 1013): the JS takes Math.round(r * 1012.5)
        (Backoff(300, 1.5, 5000, jitter="full"), 3, 0.5, 506),  # 506.25; 0.5 * 1013 = 506.5
        (Backoff(300, 1.5, 5000, jitter="full"), 3, 0.998, 1010),  # 1010.475; vs 1010.974
        # 200 * 1.5 ** 5 = 1518.75 (the table shows 1519)
        (Backoff(200, 1.5, 5000, jitter="full"), 5, 0.5, 759),  # 759.375; vs 759.5
        # equal: 1012.5 / 2 + 0.5 * 1012.5 / 2 = 759.375; rounded first: 506.5 + 253.25 = 759.75
        (Backoff(300, 1.5, 5000, jitter="equal"), 3, 0.5, 759),
        # proportional: 1012.5 * 1.0 = 1012.5 -> 1013; with 1013 first: 1013. And 1518.75 * 0.5
        (Backoff(200, 1.5, 5000, jitter="proportional"), 5, 0.0, 759),  # 759.375; vs 759.5
    ],
)
def test_jitter_scales_the_unrounded_ceiling(
    backoff: Backoff, n: int, r: float, expected: int
) -> None:
    assert backoff.next_wait(n, r) == expected
    assert backoff.next_waits([n], [r]).tolist() == [expected]


def test_the_table_ceiling_stays_the_rounded_integer() -> None:
    b = Backoff(300, 1.5, 5000, jitter="full")
    assert b.ceiling(3) == 1013 and b.ceilings([3]).tolist() == [1013]
    assert Backoff(300, 1.5, 5000).next_wait(3, 0.5) == 1013  # no jitter: the table value


_JS = """
const [base, factor, cap, cases] = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const ustel = (n) => Math.min(cap, base * factor ** n);
console.log(JSON.stringify(cases.map(([n, r]) => Math.round(r * ustel(n)))));
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
@pytest.mark.parametrize(
    ("base", "factor", "cap"), [(300, 1.5, 5000), (200, 2, 5000), (137, 1.37, 60_000)]
)
def test_full_jitter_agrees_with_the_lesson_formula_run_by_node(
    base: int, factor: float, cap: int
) -> None:
    rng = Mulberry32(20260114)
    cases = [(n, float(r)) for n in range(12) for r in rng.random(50)]
    node = shutil.which("node")
    assert node is not None
    out = subprocess.run(
        [node, "-e", _JS],
        input=json.dumps([base, factor, cap, cases]),
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    ).stdout
    b = Backoff(base, factor, cap, jitter="full")
    assert [b.next_wait(n, r) for n, r in cases] == json.loads(out)
    ns, rs = zip(*cases, strict=True)
    assert b.next_waits(list(ns), list(rs)).tolist() == json.loads(out)


# -- silent nonsense is refused by name ---------------------------------------------------


@pytest.mark.parametrize("r", [math.nan, math.inf, -1.0, 1.0, 1.5])
def test_a_bad_draw_is_refused(r: float) -> None:
    b = Backoff(200, 2, 5000, jitter="full")
    with pytest.raises(
        ValueError,
        match=r"r=.* is out of range: r must be a number >= 0 "
        r"and < 1",
    ):
        b.next_waits([0], [r])
    with pytest.raises(ValueError, match=r"r must be a number >= 0 and < 1"):
        b.next_wait(0, r)


def test_nan_draw_no_longer_gives_int64_min() -> None:
    with pytest.raises(ValueError, match="r=nan"):
        Backoff(200, 2, 5000, jitter="full").next_waits([0], [math.nan])


@pytest.mark.parametrize("jitter", ["decorrelated"])
def test_a_negative_previous_wait_is_refused(jitter: str) -> None:
    b = Backoff(200, 2, 5000, jitter=jitter)  # type: ignore[arg-type]
    with pytest.raises(
        ValueError,
        match=r"prev=-1000.* is out of range: prev must be a "
        r"number >= 0",
    ):
        b.next_wait(0, 0.5, -1000)
    with pytest.raises(ValueError, match=r"prev=-1000.* is out of range"):
        b.next_waits([0], [0.5], [-1000])
    with pytest.raises(ValueError, match=r"prev=nan is out of range"):
        b.next_waits([0], [0.5], [math.nan])


@pytest.mark.parametrize("n", [[-1], [math.nan], [1.5], [True]])
def test_bad_retry_numbers_are_refused(n: list[float]) -> None:
    with pytest.raises(ValueError, match=r"n=.* is out of range: n must be"):
        Backoff(200, 2, 5000, jitter="full").next_waits(n, [0.5])


def test_uncapped_ceilings_do_not_saturate_at_4096() -> None:
    lin = Backoff(1, cap=None, growth="linear")
    assert lin.ceilings([4096, 5000, 10_000]).tolist() == [4097, 5001, 10_001]
    assert lin.ceilings([10_000]).tolist() == [lin.ceiling(10_000)]
    slow = Backoff(1, 1.001, None)
    assert slow.ceilings([5000, 9000]).tolist() == [slow.ceiling(5000), slow.ceiling(9000)]


def test_capped_linear_ceilings_are_exact_past_4096() -> None:
    b = Backoff(1, cap=86_400_000, step=1, growth="linear")
    assert b.ceilings([5000, 100_000]).tolist() == [5001, 100_001]


def test_an_uncapped_ceiling_past_2_53_is_refused_not_wrapped() -> None:
    with pytest.raises(
        ValueError,
        match=r"n=60 is out of range: without a cap its ceiling "
        r"passes 2\*\*53 ms",
    ):
        Backoff(200, 2, None).ceilings([0, 60])
    assert Backoff(200, 2, None).ceilings([44]).tolist() == [200 * 2**44]


def test_herd_maxima_uncapped_are_exact() -> None:
    from retrylab.sim.herd import wakeups

    w = wakeups(Backoff(1, cap=None, growth="linear", jitter="none"), 3, 5000)
    assert w.tolist() == [5000] * 3
    full = wakeups(Backoff(1, cap=None, growth="linear", jitter="full"), 1000, 5000, Mulberry32(1))
    assert 4000 < int(full.max()) <= 5000


def test_vector_ceilings_match_scalar_everywhere() -> None:
    for b in (
        Backoff(200, 2, 5000),
        Backoff(100, 1.5, 86_400_000),
        Backoff(7, 3, None),
        Backoff(100, step=3, cap=9000, growth="linear"),
    ):
        n = np.arange(0, 30)
        assert b.ceilings(n).tolist() == [b.ceiling(int(k)) for k in n]
