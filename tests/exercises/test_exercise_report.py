"""tools/exercise_report.py: every wrong answer it tries is caught, and each build-it
exercise is tried with at least ten wrong implementations."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

from retrylab.exercises.table import examples, table_of, tables

ROOT = Path(__file__).resolve().parents[2]


def test_every_wrong_answer_tried_is_caught() -> None:
    spec = importlib.util.spec_from_file_location(
        "exercise_report", ROOT / "tools" / "exercise_report.py"
    )
    assert spec and spec.loader
    report = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("exercise_report", report)
    spec.loader.exec_module(report)
    rows = report.tried()
    assert [r for r in rows if not r.caught] == []
    for exercise in (
        "01 Ex 1",
        "02 Ex 1",
        "02 Ex 2",
        "03 Ex 1",
        "04 Ex 1",
        "09 Ex 1",
        "09 Ex 2",
        "09 Ex 3",
    ):
        mine = [r for r in rows if r.exercise == exercise]
        assert len(mine) >= 10, exercise
    # every table of the package, every build-it exercise and every closed checker that
    # is not a table, each under its own name (39 today: 28 tables, 8 built, 3 closed)
    reported = {r.exercise for r in rows}
    assert reported == {n for n, _t in tables()} | set(report._build()) | set(report._closed())
    assert len(reported) >= 39


def _report() -> object:
    spec = importlib.util.spec_from_file_location(
        "exercise_report", ROOT / "tools" / "exercise_report.py"
    )
    assert spec and spec.loader
    report = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("exercise_report", report)
    spec.loader.exec_module(report)
    return report


def test_every_exercise_ten_distinct_mistakes_each_named() -> None:
    """Issue 22: at least ten wrong answers a student would give per checked exercise,
    each caught, each with a hint that names the mistake (not numbers only), and no two
    of them the same answer."""
    report: Any = _report()
    rows = report.tried()
    exercises = sorted({r.exercise for r in rows})
    assert len(exercises) >= 37, exercises
    for exercise in exercises:
        mine = [r for r in rows if r.exercise == exercise]
        assert len(mine) >= 10, (exercise, len(mine))
    numbers_only = [
        f"{r.exercise}: {r.mistake}: {r.message}" for r in rows if not (r.caught and r.named)
    ]
    assert numbers_only == []
    for exercise, (_check, _probe, cases) in report._closed().items():
        # plain data compares by its repr (a urllib3 Retry's repr leaves most fields out)
        answers = [repr(args) for _name, args in cases if _plain(args)]
        assert len(answers) == len(set(answers)), exercise
    for exercise, table in tables():
        tried = [repr(_sorted(a)) for _m, a in examples(table) if _plain(a)]
        assert len(tried) == len(set(tried)), exercise


def test_tables_are_read_from_the_package_not_listed() -> None:
    """Every table's mistakes are tried, each named by its own message, and no hand
    entry is left for a checker judged by a table."""
    report: Any = _report()
    rows = report.tried()
    for exercise, table in tables():
        mine = [r for r in rows if r.exercise == exercise]
        assert len(mine) == len(examples(table)) >= 10, exercise
        assert all(r.caught and r.named for r in mine), exercise
    listed = [e for e, (check, _p, _c) in report._closed().items() if table_of(check)]
    assert listed == []


def _sorted(value: object) -> object:
    return sorted(value) if isinstance(value, (set, frozenset)) else value


def _plain(value: object) -> bool:
    if isinstance(value, (list, tuple, set, frozenset)):
        return all(_plain(v) for v in value)
    if isinstance(value, dict):
        return all(_plain(k) and _plain(v) for k, v in value.items())
    return value is None or isinstance(value, (bool, int, float, str))
