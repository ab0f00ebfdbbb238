"""Issue 35: no answer in plain text in the package a student imports.

Every table's wanted value is computed from its inputs: it is not written as a literal
anywhere in its module (one ``inspect.getsource`` away), and no module keeps an
``ANSWERS`` table. A value that must be stored is a digest (``table.sealed``). The
tables are found in the package, so a new one is covered without a line here.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
import pkgutil
from typing import Any

import pytest

import retrylab.exercises as exercises
from retrylab.exercises.table import Exercise, tables

TABLES = tables()
MODULES = [
    importlib.import_module(info.name)
    for info in pkgutil.walk_packages(exercises.__path__, "retrylab.exercises.")
]


def _plain(value: Any) -> Any:
    """``value`` in a form that compares the way an answer does (a set is a set)."""
    if isinstance(value, (set, frozenset)):
        return frozenset(_plain(v) for v in value)
    if isinstance(value, (list, tuple)):
        return tuple(_plain(v) for v in value)
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return float(value)
    return value


def _telling(value: Any) -> bool:
    """An answer worth hiding: a collection of two or more, or a number beyond the small
    ones every module writes (indices, counts of 1 to 10)."""
    if isinstance(value, (frozenset, tuple)):
        return len(value) >= 2
    return isinstance(value, float) and abs(value) > 10


def _parts(want: Any) -> list[Any]:
    """The wanted value and, for a record or a tuple, each of its parts."""
    parts = [want]
    if dataclasses.is_dataclass(want) and not isinstance(want, type):
        parts += [getattr(want, f.name) for f in dataclasses.fields(want)]
    elif isinstance(want, tuple):
        parts += list(want)
    return [p for p in map(_plain, parts) if _telling(p)]


def _literals(source: str) -> list[Any]:
    """Every literal number or collection of literals the source writes (text left out:
    the catalogue's messages are prose)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.List, ast.Tuple, ast.Set, ast.Constant, ast.UnaryOp)):
            try:
                value = ast.literal_eval(node)
            except ValueError:
                continue
            if not isinstance(value, (str, bytes)) and value is not None:
                found.append(_plain(value))
    return found


@pytest.mark.parametrize(("name", "table"), TABLES, ids=[n for n, _ in TABLES])
def test_the_wanted_value_is_not_written_in_its_module(name: str, table: Exercise) -> None:
    module = importlib.import_module(f"retrylab.exercises.{name.split('.')[0]}")
    written = _literals(inspect.getsource(module))
    leaked = [part for part in _parts(table.want(table.inputs())) if part in written]
    assert leaked == [], (name, leaked)


def test_no_module_keeps_an_answers_table() -> None:
    kept = [
        f"{m.__name__}.{name}"
        for m in MODULES
        for name in vars(m)
        if name.upper().strip("_") in ("ANSWERS", "ANSWER", "SOLUTIONS", "EXPECTED")
    ]
    assert kept == []


def test_the_literal_finder_finds_a_written_answer() -> None:
    """The check above would see an answer written as a literal, in any container."""
    source = "IDEMPOTENT = frozenset({'GET', 'PUT'})\nWAITS = [70, 184, 592]\nX = -2.70\n"
    written = _literals(source)
    assert _plain({"GET", "PUT"}) in written
    assert _plain([70, 184, 592]) in written and _plain(-2.70) in written
