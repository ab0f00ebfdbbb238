"""Every exercise table of the package: its mistakes caught and named, in English and
Turkish, by the one engine; a right answer passes.

The tables are found in the package (every :class:`~retrylab.exercises.table.Exercise`
a module defines), so a new table is covered without a line here.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from _tools import load_tool
from hypothesis import given
from hypothesis import strategies as st

from retrylab.exercises.ex08 import RetrySettings
from retrylab.exercises.table import (
    Exercise,
    examples,
    hints,
    in_seconds,
    judge,
    names,
    tables,
    unexampled,
)
from retrylab.i18n import _, current, language, set_language

TABLES = tables()


@pytest.fixture(params=["en", "tr"])
def in_language(request: pytest.FixtureRequest) -> Iterator[str]:
    before = current()
    set_language(request.param)
    try:
        yield request.param
    finally:
        set_language(before)


def test_the_tables_are_found() -> None:
    assert {"ex06.WAVES", "ex06.LAYERED", "ex06.THROTTLE", "ex06.RATIO"} <= dict(TABLES).keys()


@pytest.mark.parametrize(("name", "table"), TABLES, ids=[n for n, _ in TABLES])
def test_each_mistake_is_caught_and_named(name: str, table: Exercise, in_language: str) -> None:
    for message, answer in examples(table):
        fb = judge(table, answer)
        assert not fb.correct and fb.answered, (name, answer)
        # the mistake's own message, translated (its fields filled in)
        assert names(message, fb.message), (name, answer, fb.message)


@pytest.mark.parametrize(("name", "table"), TABLES, ids=[n for n, _ in TABLES])
def test_the_right_answer_passes_and_every_message_is_translated(
    name: str, table: Exercise, in_language: str
) -> None:
    want = table.want(table.inputs())
    assert judge(table, want).correct
    assert judge(table, str(want)).correct or table.read("1") is None
    if in_language == "tr":
        for message in hints(table):
            assert _(message) != message, message


@pytest.mark.parametrize(("name", "table"), TABLES, ids=[n for n, _ in TABLES])
def test_every_mistake_gives_an_answer_to_try(name: str, table: Exercise) -> None:
    """Each mistake says the value it gives or an example answer, so the tests above, the
    Turkish check and tools/exercise_report.py try every mistake of every table."""
    assert unexampled(table) == [], name
    assert len(examples(table)) >= len(table.early + table.raw + table.mistakes)


english = load_tool("english_words")

#: A prompt names its answer in the instrumental case (-(y)la/-(y)le or "ile"), before
#: "değiştirin" (what follows it may explain the answer: "iki tam sayıyla: ...").
INSTRUMENTAL = re.compile(r"(\w(y?l[ae])|\bile)\b.* değiştirin, sonra")


def _typed(value: Any) -> list[str]:
    """The texts among a table's inputs (labels a student types as they are)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, (list, tuple, set, frozenset)):
        return [t for v in value for t in _typed(v)]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _typed(v)]
    return []


@pytest.mark.parametrize(("name", "table"), TABLES, ids=[n for n, _ in TABLES])
def test_every_verdict_of_a_table_reads_turkish(name: str, table: Exercise) -> None:
    """The prompt, an unreadable answer, the right one and every mistake's example, in
    Turkish: no English prose word (tools/english_words.py; the labels a student types
    and the answer's own name left out), a prompt in the instrumental case. Replaces
    the hand lists of answers per checker."""
    inputs = table.inputs()
    labels = sorted(set(_typed(inputs)), key=len, reverse=True)
    answers = [None, "x", table.want(inputs), *(a for _m, a in examples(table))]
    with language("tr"):
        for answer in answers:
            fb = judge(table, answer)
            text = f"{fb.verdict}: {fb.message}"
            for label in labels:
                text = text.replace(label, "")
            for code in table.named:  # the answer's own name (retry=..., a Retry)
                text = re.sub(rf"\b{code}\b", "", text, flags=re.I)
            assert english.english_words(text) == [], (name, answer, text)
        assert INSTRUMENTAL.search(judge(table, None).message), name


def test_the_tables_of_notebooks_01_to_05_are_found() -> None:
    assert {
        "ex01.CASES_RETRIED",
        "ex01.STATUSES_RETRIED",
        "ex01.DUPLICATES",
        "ex02.CEILINGS_TABLE",
        "ex02.ALONE",
        "ex02.SECOND",
        "ex02.THIRD_WIDTH",
        "ex02.HERD4",
        "ex03.WAITS",
        "ex03.GIVE_UP",
        "ex05.RETRYABLE",
        "ex05.PROPORTIONAL_RANGE",
        "ex05.LIFECYCLE",
        "ex05.KOTLIN_WAITS",
    } <= dict(TABLES).keys()


def _equivalents(want: object) -> list[object]:
    """Other forms of a right answer a student types: a tuple or an array for a list, a
    frozenset for a set, the number as text (with the Turkish decimal comma too); for an
    answer of several parts, a list of them, each part in another form; for urllib3's
    Retry, its statuses and methods in other collections and cases."""
    if isinstance(want, RetrySettings):
        return _retries(want)
    if isinstance(want, tuple):
        return [
            list(want),
            tuple(_equivalents(part)[0] for part in want),
            [_equivalents(part)[-1] for part in want],
        ]
    if isinstance(want, list):
        return [tuple(want), np.array(want), [float(x) for x in want]]
    if isinstance(want, (set, frozenset)):
        return [frozenset(want)]
    if isinstance(want, (int, float)) and not isinstance(want, bool):
        return [str(want), str(float(want)).replace(".", ","), np.float64(want)]
    return [f" {str(want).upper()} "] if isinstance(want, str) else []


def _retries(want: RetrySettings) -> list[object]:
    from urllib3.util import Retry

    statuses, methods = sorted(want.statuses or ()), sorted(want.methods or ())
    return [
        Retry(
            total=want.total,
            backoff_factor=want.factor,
            backoff_max=want.cap,
            status_forcelist=statuses,
            allowed_methods=methods,
        ),
        Retry(
            total=want.total,
            backoff_factor=want.factor,
            backoff_max=int(want.cap or 0),
            status_forcelist=set(statuses),
            allowed_methods=frozenset(m.lower() for m in methods),
        ),
        Retry(
            total=want.total,
            backoff_factor=want.factor,
            backoff_max=want.cap,
            status_forcelist=tuple(reversed(statuses)),
            allowed_methods=tuple(methods),
        ),
    ]


@pytest.mark.parametrize(("name", "table"), TABLES, ids=[n for n, _ in TABLES])
def test_equivalent_forms_pass(name: str, table: Exercise, in_language: str) -> None:
    want = table.want(table.inputs())
    forms = _equivalents(want)
    assert forms, (name, want)
    for form in forms:
        assert judge(table, form).correct, (name, form)


@given(st.lists(st.integers(1, 100_000), min_size=1, max_size=6))
def test_ms_written_in_seconds_are_named_whatever_the_floats(ms: list[int]) -> None:
    """``in_seconds`` reads each second back as JavaScript rounds: 0.57 x 1000 is
    569.99..., which ``int`` made 569 (ex05 did, until it used the one entry)."""
    mistake = in_seconds("{got}")
    seconds = [w / 1000 for w in ms]
    expected = not all(w % 1000 == 0 for w in ms)  # whole seconds could be whole ms
    assert mistake.matches(seconds, {"want": ms}, operator.eq) is expected
    assert not mistake.matches([float(w) for w in ms], {"want": ms}, operator.eq)
