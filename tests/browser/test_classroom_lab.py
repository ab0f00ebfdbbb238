"""A class's JupyterLab: closing a notebook shuts its kernel down.

The hub of ``classroom/`` starts every student's server with two config folders,
``classroom/jupyter-config/`` first and the project's ``jupyter-config/``. The first
turns on JupyterLab's own ``kernelShutdown`` setting, so a student who closes 02
before opening 06 holds one kernel, not two. Here a real page closes a real
notebook's tab (its close button, as a student does) and the server is asked
which kernels still run; with the project's settings alone (a learner's own
JupyterLab) the kernel stays, JupyterLab's default, so the test sees the setting
and not some other way the kernel could go. The same folder turns off the menus of
the server extensions the hub's servers do not load (nbgrader's among them).
"""

from __future__ import annotations

import importlib.util
import time
from pathlib import Path
from typing import Any

import nbformat
import pytest

from .conftest import OPEN_TIMEOUT_MS, VIEWPORT
from .lab import JUPYTER_CONFIG, REPO, LabServer
from .pages import NotebookPage, notebook_facts

pytestmark = pytest.mark.browser

CLASSROOM_CONFIG = REPO / "classroom" / "jupyter-config"
NAME = "one_cell.ipynb"


def kernels(server: LabServer) -> list[Any]:
    found = server.api("kernels")
    assert isinstance(found, list)
    return found


@pytest.mark.parametrize(
    ("config_path", "shut_down"),
    [
        ((CLASSROOM_CONFIG, JUPYTER_CONFIG), True),  # the hub's servers
        ((JUPYTER_CONFIG,), False),  # the README's open command
    ],
    ids=["classroom", "project-alone"],
)
def test_closing_a_notebook_in_a_class_shuts_its_kernel_down(
    browser: Any, tmp_path: Path, artifacts: Path, config_path: tuple[Path, ...], shut_down: bool
) -> None:
    folder = tmp_path / "notebooks"
    folder.mkdir()
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1")])
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3 (ipykernel)",
        "language": "python",
    }
    nbformat.write(nb, folder / NAME)
    server = LabServer(folder, config_path=config_path).start()
    context = browser.new_context(viewport=VIEWPORT)
    try:
        assert server.root is not None
        page = NotebookPage(context, context.new_page(), NAME, notebook_facts(server.root / NAME))
        page.open(
            server.url(f"lab/tree/{NAME}", reset=""),
            OPEN_TIMEOUT_MS,
            lambda: server.kernel_idle(NAME),
        )
        assert len(kernels(server)) == 1
        label = "classroom" if shut_down else "project-alone"
        page.page.screenshot(path=str(artifacts / f"lab-{label}.png"))
        if importlib.util.find_spec("nbgrader") is not None:
            # nbgrader's menu is off where its server extension is (classroom/jupyter-config)
            menus = page.page.locator(".lm-MenuBar-itemLabel").all_inner_texts()
            assert ("Nbgrader" in menus) is not shut_down, menus
        # the notebook tab's close button, clicked as a student closes a notebook
        tab = page.page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab", has_text=NAME)
        tab.locator(".lm-TabBar-tabCloseIcon").click()
        # opening filled in the kernel's metadata, so JupyterLab asks "Save your work"
        # first: the student saves
        dialog = page.page.locator(".jp-Dialog", has_text="Save")
        dialog.get_by_role("button", name="Save", exact=True).click(timeout=10_000)
        page.page.locator(".jp-Notebook").first.wait_for(state="detached", timeout=10_000)
        deadline = time.monotonic() + (20 if shut_down else 3)
        while kernels(server) and time.monotonic() < deadline:
            time.sleep(0.2)
        left = kernels(server)
        assert (left == []) is shut_down, (
            f"{len(left)} kernel(s) running after the notebook was closed, with "
            f"JUPYTER_CONFIG_PATH {[str(p) for p in config_path]}"
        )
    finally:
        context.close()
        server.stop()
