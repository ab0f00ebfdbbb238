"""grade_all.py's table: its docstring examples (no nbgrader run, no root needed)."""

from __future__ import annotations

import doctest
import sys
from pathlib import Path

COURSE = Path(__file__).resolve().parents[2] / "classroom" / "nbgrader"
sys.path.insert(0, str(COURSE))  # grade_all imports sandbox_kernel from its folder
import grade_all  # noqa: E402

sys.path.remove(str(COURSE))


def test_the_docstring_examples() -> None:
    result = doctest.testmod(grade_all)
    assert result.attempted >= 1 and result.failed == 0
