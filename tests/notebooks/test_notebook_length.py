"""Each notebook states the time the reading-and-doing model gives it (issue 40).

tools/notebook_length.py estimates a careful student's minutes from what a notebook
holds (prose, printed words, code cells, figures, explorers, exercises), calibrated
against the reviews' measured times. A notebook's heading states that figure rounded
to 5 minutes, the same in English and in Turkish; the model's own check is that it
reproduces the reviews' ranges.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from _tools import load_tool

ROOT = Path(__file__).resolve().parents[2]
length = load_tool("notebook_length")
STUDENT = sorted((ROOT / "notebooks").glob("[0-9A]*.ipynb"))
#: What the reviews of 2026-12-06 measured for a careful student (minutes, low-high).
MEASURED = {
    "00_start_here": (30, 40),
    "02_computing_the_wait": (100, 130),
    "03_the_retry_loop": (70, 80),
    "04_circuit_breaker": (70, 90),
    "06_retry_storms_lab": (90, 120),
    "07_summary_and_exercises": (35, 45),
    "08_from_lesson_to_production": (40, 50),
}


@pytest.mark.parametrize("path", STUDENT, ids=lambda p: p.stem)
def test_the_stated_time_is_the_models(path: Path) -> None:
    _screens, minutes, _words, _code = length.measure(path)
    said, said_tr = length.stated(path.stem), length.stated_tr(path.stem)
    assert said == said_tr, f"{path.stem}: English says {said} minutes, Turkish {said_tr}"
    assert said is not None and abs(said - minutes) <= max(7.5, 0.1 * minutes), (
        f"{path.stem} states about {said} minutes; the model gives {minutes:.0f}: "
        f"state {5 * round(minutes / 5)} (python tools/notebook_length.py)"
    )


@pytest.mark.parametrize("stem", list(MEASURED))
def test_the_model_reproduces_the_measured_times(stem: str) -> None:
    low, high = MEASURED[stem]
    _screens, minutes, _words, _code = length.measure(ROOT / "notebooks" / f"{stem}.ipynb")
    assert 0.85 * low <= minutes <= 1.15 * high, (stem, round(minutes), (low, high))
