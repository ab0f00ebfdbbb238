"""Which notebooks the browser tests open, found on disk at collection time.

Use ``notebook_params()`` to parametrize over every ``notebooks/*.ipynb`` that
exists now (a notebook added later is picked up with no edit here), and
``slider_notebook(stem)`` for the notebooks whose explorers get keyboard tests.
``RETRYLAB_NOTEBOOKS`` points at another folder (used to develop the harness on a
scratch notebook).

>>> SLIDER_NOTEBOOKS[0]
'02_computing_the_wait'
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = Path(os.environ.get("RETRYLAB_NOTEBOOKS") or REPO / "notebooks")

# Notebooks with slider explorers (from the task list; matched by name, then by number).
SLIDER_NOTEBOOKS = ("02_computing_the_wait", "04_circuit_breaker", "06_retry_storms_lab")
#: The notebooks whose every control test_controls drags and steps, each key with the
#: package's readout; 01 for the decision explorer (choices only).
CONTROLS_NOTEBOOKS = (
    "01_which_errors_to_retry",
    "02_computing_the_wait",
    "04_circuit_breaker",
    "06_retry_storms_lab",
    "09_beyond_the_lessons",
)


def notebook_paths() -> list[Path]:
    """Every notebook in the folder, sorted by name (NN_ prefix = lesson order)."""
    return sorted(NOTEBOOKS.glob("*.ipynb"))


def notebook_params() -> list[object]:
    """pytest params: one per notebook, or one skipped param when there are none."""
    paths = notebook_paths()
    if not paths:
        return [
            pytest.param(
                None,
                marks=pytest.mark.skip(reason=f"no notebooks yet: {NOTEBOOKS}/*.ipynb is empty"),
                id="no-notebooks",
            )
        ]
    return [pytest.param(p.name, id=p.stem) for p in paths]


def slider_stems() -> list[str]:
    """The three explorer notebooks of the task, plus any other notebook that uses an
    explorer (its source mentions one), so a new explorer is keyboard-tested too."""
    from .pages import notebook_facts

    extra = [p.stem for p in notebook_paths() if notebook_facts(p).mentions_explorer]
    taken = {slider_notebook(s).stem for s in SLIDER_NOTEBOOKS if slider_notebook(s)}
    return [*SLIDER_NOTEBOOKS, *sorted(s for s in extra if s not in taken)]


def key_stems() -> list[str]:
    """The explorer notebooks test_controls does not step (``explorers``, the projector's
    page, and any new one): test_sliders presses a key on each of their sliders. The
    controls test already presses keys on every slider of the others, with the package's
    readout after each (the two passes over the same keys took 90 s of a browser run).

    >>> "explorers" in key_stems(), "06_retry_storms_lab" in key_stems()
    (True, False)
    """
    return [s for s in slider_stems() if s not in CONTROLS_NOTEBOOKS]


def slider_notebook(stem: str) -> Path | None:
    """The notebook file for ``stem``, or the one with the same NN_ prefix, or None."""
    exact = NOTEBOOKS / f"{stem}.ipynb"
    if exact.exists():
        return exact
    prefix = stem.split("_", 1)[0] + "_"
    same_number = sorted(NOTEBOOKS.glob(f"{prefix}*.ipynb"))
    return same_number[0] if same_number else None
