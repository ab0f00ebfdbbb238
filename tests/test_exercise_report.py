"""tools/exercise_report.py: every wrong answer it tries is caught, and each build-it
exercise is tried with at least ten wrong implementations."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def test_every_wrong_answer_tried_is_caught() -> None:
    spec = importlib.util.spec_from_file_location("exercise_report",
                                                  ROOT / "tools" / "exercise_report.py")
    assert spec and spec.loader
    report = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("exercise_report", report)
    spec.loader.exec_module(report)
    rows = report.tried()
    assert [r for r in rows if not r.caught] == []
    for exercise in ("01 Ex 1", "02 Ex 1", "02 Ex 2", "03 Ex 1", "04 Ex 1",
                     "09 Ex 1", "09 Ex 2", "09 Ex 3"):
        mine = [r for r in rows if r.exercise == exercise]
        assert len(mine) >= 10, exercise
    assert len({r.exercise for r in rows}) == 37   # every checked exercise of the 49


#: Issue 22, notebooks 00-04: every exercise the report tries.
ISSUE_22_00_04 = ("00 Ex 1", "00 Ex 2", "01 Ex 1", "01 Ex 2", "01 Ex 3", "01 Ex 4", "02 Ex 1",
                  "02 Ex 2", "02 Ex 3", "02 Ex 4", "02 Ex 5", "02 Ex 6", "03 Ex 1", "03 Ex 2",
                  "03 Ex 3", "03 Ex 4", "04 Ex 1", "04 Ex 2", "04 Ex 3", "04 Ex 4")


def _report() -> object:
    spec = importlib.util.spec_from_file_location("exercise_report",
                                                  ROOT / "tools" / "exercise_report.py")
    assert spec and spec.loader
    report = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("exercise_report", report)
    spec.loader.exec_module(report)
    return report


def test_notebooks_00_to_04_ten_distinct_mistakes_each_named() -> None:
    """Issue 22: at least ten wrong answers a student would give per exercise of notebooks
    00-04, each caught, each with a hint that names the mistake (not numbers only), and no
    two of them the same answer."""
    report: Any = _report()
    rows = report.tried()
    for exercise in ISSUE_22_00_04:
        mine = [r for r in rows if r.exercise == exercise]
        assert len(mine) >= 10, (exercise, len(mine))
        assert [r.mistake for r in mine if not r.caught] == [], exercise
        assert [r.mistake for r in mine if not r.named] == [], exercise
    for exercise, (_check, _probe, cases) in report._closed().items():
        if exercise in ISSUE_22_00_04:
            answers = [repr(args) for _name, args in cases]
            assert len(answers) == len(set(answers)), exercise
