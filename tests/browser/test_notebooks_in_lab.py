"""Every notebook, Run All in JupyterLab in headless Chromium: no errors, widgets render.

One test per ``notebooks/*.ipynb`` (found at collection time). Each opens the
notebook in a fresh tab, clears the outputs, runs Run > Run All Cells, and then
checks what a student would see: no traceback or stderr in any cell, every cell
numbered, no "Loading widget..." / "Error displaying widget", as many widgets per
cell as the saved notebook shows, and an explorer where the notebook uses one.
A full-page screenshot of each notebook (and one per explorer) is saved.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from .catalog import notebook_params

if TYPE_CHECKING:
    from .conftest import Lab
    from .pages import NotebookPage

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("name", notebook_params())
def test_run_all_cells_without_errors(
    name: str, notebook: Callable[[str], NotebookPage], lab: Lab, artifacts: Path
) -> None:
    nb = notebook(name)
    stem = Path(name).stem
    shot = artifacts / f"{stem}.png"
    nb.screenshot_full(shot)
    boxes = nb.page.locator(".retrylab-explorer")
    for k in range(boxes.count()):
        nb.screenshot_element(boxes.nth(k), artifacts / f"{stem}-explorer-{k}.png")
    problems = nb.problems()
    assert not problems, (
        f"{name}: {len(problems)} problem(s) after Run All"
        f" (screenshot {shot}):\n  " + "\n  ".join(problems)
    )
    assert nb.run_seconds > 0
    lab.release(name)
