"""Every exercise table of the package: its mistakes caught and named, in English and
Turkish, by the one engine; a right answer passes.

The tables are found in the package (every :class:`~retrylab.exercises.table.Exercise`
a module defines), so a new table is covered without a line here.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Iterator

import pytest

import retrylab.exercises as exercises
from retrylab.exercises.table import Exercise, examples, hints, judge
from retrylab.i18n import _, current, set_language


def tables() -> list[tuple[str, Exercise]]:
    found = []
    for info in pkgutil.walk_packages(exercises.__path__, "retrylab.exercises."):
        module = importlib.import_module(info.name)
        found += [
            (f"{info.name.rsplit('.', 1)[1]}.{name}", value)
            for name, value in vars(module).items()
            if isinstance(value, Exercise)
        ]
    return found


TABLES = tables()


@pytest.fixture(params=["en", "tr"])
def language(request: pytest.FixtureRequest) -> Iterator[str]:
    before = current()
    set_language(request.param)
    try:
        yield request.param
    finally:
        set_language(before)


def test_the_tables_are_found() -> None:
    assert {"ex06.WAVES", "ex06.LAYERED", "ex06.THROTTLE", "ex06.RATIO"} <= dict(TABLES).keys()


@pytest.mark.parametrize(("name", "table"), TABLES, ids=[n for n, _ in TABLES])
def test_each_mistake_is_caught_and_named(name: str, table: Exercise, language: str) -> None:
    for message, answer in examples(table):
        fb = judge(table, answer)
        assert not fb.correct and fb.answered, (name, answer)
        # the mistake's own message, translated (its fields filled in)
        pattern = re.escape(_(message))
        pattern = re.sub(r"\\\{\w+\\\}", ".*", pattern)
        assert re.fullmatch(pattern, fb.message, re.S), (name, answer, fb.message)


@pytest.mark.parametrize(("name", "table"), TABLES, ids=[n for n, _ in TABLES])
def test_the_right_answer_passes_and_every_message_is_translated(
    name: str, table: Exercise, language: str
) -> None:
    want = table.want(table.inputs())
    assert judge(table, want).correct
    assert judge(table, str(want)).correct or table.read("1") is None
    if language == "tr":
        for message in hints(table):
            assert _(message) != message, message
