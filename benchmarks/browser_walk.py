"""What the browser benchmarks share: a JupyterLab in headless Chromium that opens each
notebook in turn, one kernel at a time as a student's page would, and the machine's load.

``bench_browser_keys.py`` presses keys and ``bench_drag.py`` drags sliders on what
:func:`opened_notebooks` opens; both use the browser tests' harness (``tests/browser/``)
as it is.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.browser.catalog import slider_notebook  # noqa: E402
from tests.browser.conftest import CHROMIUM_FLAGS, VIEWPORT  # noqa: E402
from tests.browser.pages import NotebookPage, notebook_facts  # noqa: E402

OPEN_TIMEOUT_MS = 90_000


def load_line() -> str:
    """The machine's cores and load, for a figure's context."""
    one, five, _ = os.getloadavg()
    return f"{os.cpu_count()} CPUs, load average {one:.2f} (1 min), {five:.2f} (5 min)"


def opened_notebooks(
    server: Any, chromium: str, stems: list[str], missing: list[str]
) -> Iterator[tuple[str, Path, NotebookPage, float]]:
    """Start ``server`` and Chromium, and open each of ``stems`` in turn: yields its stem,
    path, page and the moment its opening began. Once the caller is done with one, its
    page is closed and its kernel shut down; a stem with no notebook goes to ``missing``.
    Everything started is stopped when the walk ends, however it ends (use it under
    ``contextlib.closing``)."""
    from playwright.sync_api import sync_playwright

    try:
        server.start()
        pw = sync_playwright().start()
        try:
            chrome = pw.chromium.launch(
                executable_path=chromium, headless=True, args=CHROMIUM_FLAGS
            )
            for stem in stems:
                path = slider_notebook(stem)
                if path is None:
                    missing.append(f"{stem}: no such notebook")
                    continue
                assert server.root is not None
                facts = notebook_facts(server.root / path.name)
                context = chrome.new_context(viewport=VIEWPORT)
                nb = NotebookPage(context, context.new_page(), path.name, facts)
                t0 = time.monotonic()
                nb.open(
                    server.url(f"lab/tree/{path.name}", reset=""),
                    OPEN_TIMEOUT_MS,
                    lambda name=path.name: server.kernel_idle(name),
                )
                yield stem, path, nb, t0
                nb.close()
                server.shutdown_session(path.name)  # one kernel at a time, as a student
            chrome.close()
        finally:
            pw.stop()
    finally:
        server.stop()
