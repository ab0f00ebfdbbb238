from __future__ import annotations

import numpy as np
import pytest

from retrylab import Mulberry32


def reference(seed: int, n: int) -> list[float]:
    """A literal transcription of the lesson's JavaScript with explicit masks."""

    def imul(x: int, y: int) -> int:
        return (x * y) & 0xFFFFFFFF

    a = seed & 0xFFFFFFFF
    out = []
    for _ in range(n):
        a = (a + 0x6D2B79F5) & 0xFFFFFFFF
        t = imul(a ^ (a >> 15), 1 | a)
        t = ((t + imul(t ^ (t >> 7), 61 | t)) & 0xFFFFFFFF) ^ t
        out.append(((t ^ (t >> 14)) & 0xFFFFFFFF) / 4294967296)
    return out


def test_first_draws_of_lesson_seed() -> None:
    rng = Mulberry32(20260114)
    draws = [rng() for _ in range(4)]
    assert draws == reference(20260114, 4)
    assert [round(d * c) for d, c in zip(draws[::2], (200, 400), strict=False)] == [70, 296]


@pytest.mark.parametrize("seed", [0, 1, 20260114, 2**32 - 1, -5])
def test_vector_equals_scalar(seed: int) -> None:
    a, b = Mulberry32(seed), Mulberry32(seed)
    assert np.array_equal(a.random(1000), np.array([b() for _ in range(1000)]))
    assert a.state == b.state
    assert a() == b()


def test_vector_across_chunks_and_wraparound() -> None:
    a, b = Mulberry32(12345), Mulberry32(12345)
    big = a.random((1 << 20) + 7)
    tail = [b() for _ in range(1 << 20)]
    assert big[(1 << 20) - 3 : (1 << 20)].tolist() == tail[-3:]
    assert big[-7:].tolist() == [b() for _ in range(7)]


def test_draws_in_unit_interval_and_copy() -> None:
    rng = Mulberry32(3)
    x = rng.random(10000)
    assert x.min() >= 0 and x.max() < 1
    twin = rng.copy()
    assert rng() == twin()
    assert rng.random(0).size == 0


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="seed"):
        Mulberry32(1.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"n=-1 .* >= 0"):
        Mulberry32(1).random(-1)
