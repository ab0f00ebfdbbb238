"""Each checker of notebooks 05, 05b, A1, 06 and 07 answers garbage with a Feedback."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from retrylab.exercises import Feedback, ex05, ex06, ex07

CHECKERS: list[Callable[[Any], Feedback]] = [
    ex05.check_retryable,
    ex05.check_proportional_range,
    ex05.check_outage_policy,
    ex05.check_lifecycle,
    ex05.check_kotlin_waits,
    ex06.check_wave_capacity,
    ex06.check_layered,
    ex06.check_throttle_recovery,
    ex06.check_jitter_calls_ratio,
    ex07.check_capstone,
    ex07.check_quiz,
]


def _raising() -> Any:
    yield "A"
    raise RuntimeError("a generator that fails half-way")


GARBAGE: list[Any] = [
    None,
    ...,
    "x",
    "",
    b"1",
    True,
    False,
    math.nan,
    math.inf,
    -math.inf,
    -1,
    0,
    10**100,
    -(10**100),
    2.5,
    1j,
    [],
    (),
    {},
    set(),
    {"a": 1},
    lambda: 1,
    object(),
    (1,),
    (1, 2, 3),
    [1, 2, 3, 4, 5],
    [None, None],
    [math.nan, 1],
    [True, False],
    np.int64(248),
    np.array([1, 2]),
    np.array([]),
    [[1, 2]],
    ["x", "y"],
]


@pytest.mark.parametrize("checker", CHECKERS, ids=lambda c: c.__name__)
def test_checker_answers_garbage_with_feedback(checker: Callable[[Any], Feedback]) -> None:
    for odd in [
        *GARBAGE,
        _raising(),
        itertools.count(),
        itertools.repeat("A"),
        iter([4000, 12000] * 1000),
    ]:
        fb = checker(odd)
        assert isinstance(fb, Feedback), (checker.__name__, odd)
        assert isinstance(fb.message, str) and fb.message
        assert not fb.correct, (checker.__name__, odd, fb)


@pytest.mark.parametrize("checker", CHECKERS, ids=lambda c: c.__name__)
def test_unanswered_is_a_prompt_not_an_answer(checker: Callable[[Any], Feedback]) -> None:
    for blank in (None, ...):
        fb = checker(blank)
        assert not fb.answered and repr(fb).startswith("Not yet")
