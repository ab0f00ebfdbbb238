"""A number typed the Turkish way ("2,33") is read by every checker that reads a number,
and a Turkish hint writes its numbers with a decimal comma.

The tables are found in the package, so a new table is covered without a line here.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Iterator
from typing import Any

import pytest

import retrylab.exercises as exercises
from retrylab.exercises import as_number, as_whole, ex00, ex06, shown_number
from retrylab.exercises.table import Exercise, examples, judge
from retrylab.i18n import current, set_language


def _tables() -> list[tuple[str, Exercise]]:
    found = []
    for info in pkgutil.walk_packages(exercises.__path__, "retrylab.exercises."):
        module = importlib.import_module(info.name)
        found += [
            (f"{info.name.rsplit('.', 1)[1]}.{name}", value)
            for name, value in vars(module).items()
            if isinstance(value, Exercise)
        ]
    return found


TABLES = _tables()


@pytest.fixture(params=["en", "tr"])
def language(request: pytest.FixtureRequest) -> Iterator[str]:
    before = current()
    set_language(request.param)
    try:
        yield request.param
    finally:
        set_language(before)


def _shape(message: str) -> str:
    """A message with its numbers (quoted or not, either decimal mark) left out."""
    return re.sub(r"'?\d[\d.,]*'?", "#", message)


def _comma(value: float) -> str:
    return repr(float(value)).replace(".", ",")


def test_the_shared_reader_takes_a_decimal_comma(language: str) -> None:
    assert as_number("2,33") == 2.33
    assert as_number(" 0,37 ") == 0.37
    assert as_whole("4,0") == 4
    assert as_number("2,3,3") is None
    # "1,400" is 1400 grouped by thousands in English, 1,4 in Turkish
    assert as_number("1,400") == (1.4 if language == "tr" else 1400)


@pytest.mark.parametrize(("name", "table"), TABLES, ids=[n for n, _ in TABLES])
def test_a_fractional_answer_typed_with_a_comma_is_judged_alike(
    name: str, table: Exercise, language: str
) -> None:
    """The wanted value and every example answer that is a fraction get the same verdict
    and message typed as "2,33" as they do typed as 2.33."""
    want = table.want(table.inputs())
    tried: list[Any] = [want] + [answer for _m, answer in examples(table)]
    fractions = [
        x for x in tried if as_number(x) is not None and not float(as_number(x) or 0).is_integer()
    ]
    for x in fractions:
        plain, comma = judge(table, float(x)), judge(table, _comma(float(x)))
        assert comma.correct == plain.correct, (name, x, comma)
        assert _shape(comma.message) == _shape(plain.message), (name, x, comma, plain)


def test_decimal_comma_answers_pass(language: str) -> None:
    assert ex06.check_jitter_calls_ratio("2,70").correct
    assert not ex06.check_jitter_calls_ratio("0,37").correct
    assert _shape(ex06.check_jitter_calls_ratio("0,37").message) == _shape(
        ex06.check_jitter_calls_ratio(0.37).message
    )
    assert _shape(ex00.check_longest_wait("1,4").message) == _shape(
        ex00.check_longest_wait(1.4).message
    )


def test_turkish_hints_write_numbers_with_a_decimal_comma() -> None:
    before = current()
    set_language("tr")
    try:
        ratio = ex06.check_jitter_calls_ratio(0.37).message
        assert "0,37" in ratio and "0.37" not in ratio
        right = ex06.check_jitter_calls_ratio(2.7).message
        assert "2,70" in right and "0,37" in right
        share = ex06.check_wave_capacity(0.4).message
        assert "0,4" in share and "0.4" not in share
        assert "5,1" in ex06.check_throttle_recovery(5.1).message
        assert shown_number(3.52) == "3,52"
    finally:
        set_language(before)
    assert "0.37" in ex06.check_jitter_calls_ratio(0.37).message
