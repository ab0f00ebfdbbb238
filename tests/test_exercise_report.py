"""tools/exercise_report.py: every wrong answer it tries is caught, and each build-it
exercise is tried with at least ten wrong implementations."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


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
    assert len({r.exercise for r in rows}) == 37  # every checked exercise of the 49


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


def _plain(value: object) -> bool:
    if isinstance(value, (list, tuple, set, frozenset)):
        return all(_plain(v) for v in value)
    if isinstance(value, dict):
        return all(_plain(k) and _plain(v) for k, v in value.items())
    return value is None or isinstance(value, (bool, int, float, str))
