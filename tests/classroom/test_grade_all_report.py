"""grade_all.py's table: its docstring examples (no nbgrader run, no root needed)."""

from __future__ import annotations

import doctest
import importlib.util
import sys
from pathlib import Path

COURSE = Path(__file__).resolve().parents[2] / "classroom" / "nbgrader"


def test_the_docstring_examples() -> None:
    sys.path.insert(0, str(COURSE))  # grade_all imports sandbox_kernel from its folder
    try:
        spec = importlib.util.spec_from_file_location("grade_all", COURSE / "grade_all.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["grade_all"] = module  # its dataclass looks its module up
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(COURSE))
        sys.modules.pop("grade_all", None)
    result = doctest.testmod(module)
    assert result.attempted >= 1 and result.failed == 0
