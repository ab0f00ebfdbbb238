"""Drive one notebook in JupyterLab with playwright, as a person would.

Use ``NotebookPage`` from the browser tests: ``open()`` loads
``/lab/tree/NAME?token=...&reset`` and waits for the kernel to be idle,
``run_all()`` clears the outputs and runs every cell from the Run menu (the
command palette if the menu fails), then ``problems()`` lists what a student
would see go wrong: tracebacks, stderr, widgets that never rendered.

``notebook_facts`` reads what the saved ``.ipynb`` promises (which cells have
code, which displayed widgets) so the checks follow the notebook, not a list.

>>> facts = notebook_facts_from_json({"cells": [
...     {"cell_type": "markdown", "source": "# t"},
...     {"cell_type": "code", "source": "", "outputs": []},
...     {"cell_type": "code", "source": "ex = BackoffExplorer()\\nex", "outputs": [
...         {"output_type": "execute_result", "data": {
...             "application/vnd.jupyter.widget-view+json": {},
...             "text/plain": "BackoffExplorer (wait schedule): waits 200 ms"}}]}]})
>>> [(c.kind, c.has_code, c.saved_widgets, c.saved_explorers) for c in facts.cells]
[('markdown', False, 0, 0), ('code', False, 0, 0), ('code', True, 1, 1)]
>>> facts.mentions_explorer
True
"""

from __future__ import annotations

import contextlib
import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
# A cell that builds an explorer (class call or factory), or an output showing one (the
# Explorer text/plain repr is "ClassName (title): readout").
EXPLORER_CALL = re.compile(r"\b\w*Explorer\(|\b\w+_explorer\(")
EXPLORER_REPR = re.compile(r"^\w*Explorer \(")


@dataclass(frozen=True)
class CellFacts:
    """One cell of the saved notebook."""

    kind: str  # "code" | "markdown" | "raw"
    has_code: bool  # a non-empty code cell: Run All gives it an execution count
    saved_widgets: int  # widget views among its saved outputs
    source: str
    saved_explorers: int = 0  # saved outputs that are an explorer (its text/plain repr)


@dataclass(frozen=True)
class NotebookFacts:
    """What the saved .ipynb says the page should show after Run All."""

    cells: list[CellFacts]
    mentions_explorer: bool


def notebook_facts_from_json(nb: dict[str, Any]) -> NotebookFacts:
    """Facts from a notebook's JSON (see the module doctest)."""
    cells = []
    explorer = False
    for cell in nb.get("cells", []):
        src = cell.get("source", "")
        src = "".join(src) if isinstance(src, list) else src
        kind = cell.get("cell_type", "code")
        outputs = cell.get("outputs", [])
        widgets = sum(1 for out in outputs if WIDGET_MIME in out.get("data", {}))
        shown = sum(
            1
            for out in outputs
            if EXPLORER_REPR.match(_text(out.get("data", {}).get("text/plain", "")))
        )
        cells.append(CellFacts(kind, kind == "code" and bool(src.strip()), widgets, src, shown))
        explorer = explorer or bool(shown) or (kind == "code" and bool(EXPLORER_CALL.search(src)))
    return NotebookFacts(cells, explorer)


def _text(value: object) -> str:
    return "".join(value) if isinstance(value, list) else str(value)


def notebook_facts(path: Path) -> NotebookFacts:
    """Facts from a notebook file."""
    return notebook_facts_from_json(json.loads(path.read_text(encoding="utf-8")))


# -- JavaScript run in the page ------------------------------------------------

# Execution counts and states from JupyterLab's own notebook model (window.jupyterapp,
# exposed by the test server): the DOM shows no prompt for a cell whose input is
# collapsed (the notebooks' solution cells), so the page alone cannot tell that it ran.
JS_MODEL = r"""
() => {
  const panel = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  const model = panel && panel.content && panel.content.model;
  if (!model) return null;
  const out = [];
  for (let i = 0; i < model.cells.length; i++) {
    const c = model.cells.get(i);
    out.push({type: c.type, count: c.type === 'code' ? c.executionCount : null,
              running: c.type === 'code' && c.executionState === 'running'});
  }
  return out;
}
"""

# One entry per cell, in notebook order: prompt text, stderr/error texts, widget state.
JS_CELLS = r"""
() => {
  const model = (___MODEL___)();
  return Array.from(document.querySelectorAll('.jp-Notebook .jp-Cell')).map((cell, i) => {
  const prompt = cell.querySelector('.jp-InputArea-prompt');
  const area = cell.querySelector('.jp-Cell-outputArea');
  const outs = area ? Array.from(area.querySelectorAll('.jp-OutputArea-output')) : [];
  const top = area ? Array.from(area.querySelectorAll(
      ':scope > .jp-OutputArea-child > .jp-OutputArea-output')) : [];
  const m = model && model[i];
  return {
    index: i,
    code: cell.classList.contains('jp-CodeCell'),
    prompt: m ? (m.count === null ? '[ ]' : `[${m.count}]`)
              : (prompt ? prompt.textContent.trim() : ''),
    stderr: outs.filter(o => o.getAttribute('data-mime-type') ===
                             'application/vnd.jupyter.stderr').map(o => o.innerText),
    widgets: top.filter(o => o.querySelector(':scope > .jupyter-widgets')).length,
    loading: outs.filter(o => /Loading widget/i.test(o.innerText)).length,
    broken: outs.filter(o => /Error displaying widget/i.test(o.innerText))
                .map(o => o.innerText.slice(0, 300)),
    explorers: cell.querySelectorAll('.retrylab-explorer').length,
    callbackErrors: Array.from(cell.querySelectorAll('.retrylab-errors'))
                         .map(o => o.innerText.trim()).filter(t => t),
  };
  });
}
"""

# True once Run All has finished: kernel idle, no cell running, and every code cell
# numbered (or an error stopped the run). Falls back to the prompts without the model.
JS_RUN_DONE = r"""
(expectRun) => {
  const ind = document.querySelector('.jp-Notebook-ExecutionIndicator');
  if (ind && ind.getAttribute('data-status') !== 'idle') return false;
  const model = (___MODEL___)();
  let prompts;
  if (model) {
    if (model.some(c => c.running)) return false;
    prompts = model.map(c => c.type === 'code' ? (c.count === null ? '[ ]' : `[${c.count}]`)
                                              : null);
  } else {
    prompts = Array.from(document.querySelectorAll('.jp-Notebook .jp-Cell'))
      .map(c => c.classList.contains('jp-CodeCell')
           ? (c.querySelector('.jp-InputArea-prompt')?.textContent || '') : null);
    if (prompts.some(p => p !== null && p.includes('*'))) return false;
  }
  const numbered = prompts.every((p, i) => !expectRun[i] || /\[\d+\]/.test(p || ''));
  if (numbered) return true;
  return Array.from(document.querySelectorAll(
      ".jp-Notebook .jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']"))
      .some(o => /Traceback|Error/.test(o.innerText));
}
"""

JS_CELLS = JS_CELLS.replace("___MODEL___", JS_MODEL)
JS_RUN_DONE = JS_RUN_DONE.replace("___MODEL___", JS_MODEL)

JS_NO_LOADING = r"""
() => !Array.from(document.querySelectorAll('.jp-Notebook .jp-OutputArea-output'))
        .some(o => /Loading widget/i.test(o.innerText))
"""

JS_ALL_CLEARED = r"""
() => Array.from(document.querySelectorAll('.jp-Notebook .jp-CodeCell')).every(c =>
    !/\d/.test(c.querySelector('.jp-InputArea-prompt')?.textContent || '') &&
    c.querySelectorAll('.jp-Cell-outputArea .jp-OutputArea-output').length === 0)
  && ((___MODEL___)() || []).every(c => c.count === null)
"""
JS_ALL_CLEARED = JS_ALL_CLEARED.replace("___MODEL___", JS_MODEL)

# Records when a key went down and when an explorer image last changed (ms, page clock).
JS_INSTALL_PROBES = r"""
() => {
  if (window.__rl) return;
  window.__rl = {key: 0, img: 0};
  document.addEventListener('keydown', () => { window.__rl.key = performance.now(); }, true);
  new MutationObserver(ms => {
    for (const m of ms) {
      if (m.target.tagName === 'IMG' && m.target.closest('.retrylab-explorer')) {
        window.__rl.img = performance.now();
      }
    }
  }).observe(document.body, {subtree: true, attributes: true, attributeFilter: ['src']});
}
"""


class OpenTimeout(Exception):
    """The notebook did not become interactive in time."""


@dataclass
class NotebookPage:
    """A browser tab showing one notebook of the lab server."""

    context: Any  # playwright BrowserContext (own storage: no workspace clashes)
    page: Any  # playwright Page
    name: str
    facts: NotebookFacts
    console_errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    open_seconds: float = 0.0
    run_seconds: float = 0.0
    ran: bool = False  # Run All finished (whatever the outcome)

    # -- opening and running -------------------------------------------------
    def open(self, url: str, timeout_ms: float, kernel_idle: Callable[[], bool]) -> None:
        """Load the notebook; wait until its kernel is started and idle.

        ``kernel_idle()`` asks the server whether this notebook's session has an idle
        kernel: the page's indicator alone also reads idle while no kernel is attached.
        A "Select Kernel" dialog (JupyterLab sometimes asks on a cold start, before it
        has the kernelspecs) is answered with the preferred kernel, as a person would,
        and noted in ``notes``.
        """
        page = self.page
        page.on(
            "console", lambda m: self.console_errors.append(m.text) if m.type == "error" else None
        )
        page.on("pageerror", lambda e: self.console_errors.append(f"pageerror: {e}"))
        t0 = time.monotonic()
        page.goto(url, timeout=timeout_ms)
        page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=timeout_ms)
        deadline = t0 + timeout_ms / 1000
        while True:
            dialog = page.locator(".jp-Dialog")
            if dialog.count():
                text = _squash(dialog.first.inner_text(), 200)
                if "Select Kernel" not in text:
                    raise OpenTimeout(f"{self.name}: unexpected dialog: {text!r}")
                dialog.first.locator(".jp-mod-accept").first.click()
                self.notes.append(
                    f"answered a 'Select Kernel' dialog after {time.monotonic() - t0:.1f} s"
                )
            indicator = page.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']")
            if indicator.count() and kernel_idle():
                break
            if time.monotonic() > deadline:
                raise OpenTimeout(
                    f"{self.name}: kernel not idle {timeout_ms / 1000:.0f} s after opening"
                )
            page.wait_for_timeout(200)
        self.open_seconds = time.monotonic() - t0

    def _menu(self, menu: str, item: str) -> None:
        """Click menu > item in the menu bar (raises if either is missing)."""
        page = self.page
        page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(f"^{menu}$")).first.click()
        entry = page.locator(
            ".lm-Menu .lm-Menu-item:visible .lm-Menu-itemLabel",
            has_text=re.compile(f"^{re.escape(item)}$"),
        ).first
        entry.click(timeout=5_000)

    def _palette(self, label: str) -> None:
        """Run a command by its label from the command palette (Ctrl+Shift+C)."""
        page = self.page
        page.locator(".jp-Notebook").first.click(position={"x": 5, "y": 5})
        page.keyboard.press("Escape")
        page.keyboard.press("Control+Shift+C")
        search = page.locator(".lm-CommandPalette-input")
        search.fill(label)
        page.locator(".lm-CommandPalette-item", has_text=label).first.click(timeout=5_000)

    def _command(self, menu: str, item: str) -> None:
        try:
            self._menu(menu, item)
        except Exception:  # the menu moved or was covered: a keyboard user has the palette
            self.page.keyboard.press("Escape")
            self._palette(item)

    def run_all(self, timeout_ms: float) -> None:
        """Clear all outputs, Run All Cells, wait until the kernel is done."""
        page = self.page
        self._command("Edit", "Clear Outputs of All Cells")
        page.wait_for_function(JS_ALL_CLEARED, timeout=10_000)
        expect_run = [c.has_code for c in self.facts.cells]
        t0 = time.monotonic()
        self._command("Run", "Run All Cells")
        deadline = t0 + timeout_ms / 1000
        while True:  # short waits, so a dialog stuck on the page fails fast
            try:
                page.wait_for_function(JS_RUN_DONE, arg=expect_run, timeout=2_000, polling=200)
                break
            except Exception:
                dialog = page.locator(".jp-Dialog")
                if dialog.count():
                    raise AssertionError(
                        f"{self.name}: a dialog blocks Run All: "
                        f"{_squash(dialog.first.inner_text(), 300)!r}"
                    ) from None
                if time.monotonic() > deadline:
                    raise AssertionError(
                        f"{self.name}: Run All not finished after {timeout_ms / 1000:.0f} s"
                    ) from None
        self.run_seconds = time.monotonic() - t0
        self.ran = True
        # Widget views render after the kernel is idle; give them a moment.
        with contextlib.suppress(Exception):  # what is left is reported by problems()
            page.wait_for_function(JS_NO_LOADING, timeout=15_000, polling=200)
        page.evaluate(JS_INSTALL_PROBES)

    # -- what went wrong ------------------------------------------------------
    def cells(self) -> list[dict[str, Any]]:
        """The JS_CELLS snapshot of every cell."""
        result: list[dict[str, Any]] = self.page.evaluate(JS_CELLS)
        return result

    def problems(self) -> list[str]:
        """Everything a student would see go wrong, one line each (empty = fine)."""
        found: list[str] = []
        cells = self.cells()
        if len(cells) != len(self.facts.cells):
            found.append(f"page shows {len(cells)} cells, the file has {len(self.facts.cells)}")
        for cell, fact in zip(cells, self.facts.cells, strict=False):
            where = f"cell {cell['index']} ({_first_line(fact.source)!r})"
            for text in cell["stderr"]:
                kind = "traceback" if re.search(r"Traceback|Error\b", text) else "stderr"
                found.append(f"{where}: {kind}: {_squash(text, 600)}")
            for text in cell["broken"]:
                found.append(f"{where}: widget failed: {_squash(text, 300)}")
            if cell["loading"]:
                found.append(f"{where}: {cell['loading']} widget(s) still 'Loading widget...'")
            for text in cell["callbackErrors"]:
                found.append(f"{where}: explorer callback error: {_squash(text, 600)}")
            if fact.has_code and not re.search(r"\[\d+\]", cell["prompt"]):
                found.append(f"{where}: did not run (prompt {cell['prompt']!r})")
            if cell["widgets"] < fact.saved_widgets:
                found.append(
                    f"{where}: {cell['widgets']} widget(s) rendered, the saved"
                    f" notebook shows {fact.saved_widgets}"
                )
            if cell["explorers"] < fact.saved_explorers:
                found.append(
                    f"{where}: {cell['explorers']} explorer(s) rendered, the saved"
                    f" notebook shows {fact.saved_explorers}"
                )
        if self.facts.mentions_explorer and not sum(c["explorers"] for c in cells):
            found.append("the notebook uses an explorer but no .retrylab-explorer rendered")
        return found

    def explorer_count(self) -> int:
        """How many explorers the page shows."""
        return int(self.page.locator(".retrylab-explorer").count())

    # -- screenshots ---------------------------------------------------------------
    def screenshot_full(self, path: Path, max_height: int = 15_000) -> None:
        """Screenshot the whole notebook: grow the viewport to its height, then restore."""
        page = self.page
        size = page.viewport_size or {"width": 1280, "height": 1000}
        height = page.evaluate("""() => {
            const outer = document.querySelector('.jp-NotebookPanel .jp-WindowedPanel-outer');
            return outer ? outer.scrollHeight : document.body.scrollHeight; }""")
        tall = int(min(max_height, max(size["height"], height + 250)))
        try:
            page.set_viewport_size({"width": size["width"], "height": tall})
            page.evaluate("""() => { const outer = document.querySelector(
                '.jp-NotebookPanel .jp-WindowedPanel-outer'); if (outer) outer.scrollTop = 0; }""")
            page.wait_for_timeout(600)
            page.screenshot(path=str(path))
        finally:
            page.set_viewport_size(size)
            page.wait_for_timeout(200)

    def screenshot_element(self, locator: Any, path: Path) -> None:
        """Screenshot one element whole (the viewport grows for a tall explorer)."""
        page = self.page
        size = page.viewport_size or {"width": 1280, "height": 1000}
        box = locator.bounding_box()
        need = int(box["height"]) + 250 if box else 0
        if need > size["height"]:
            page.set_viewport_size({"width": size["width"], "height": min(need, 15_000)})
        try:
            locator.scroll_into_view_if_needed()
            locator.screenshot(path=str(path))
        finally:
            if need > size["height"]:
                page.set_viewport_size(size)

    def close(self) -> None:
        """Close the tab and its browser context (the kernel stays until server stop)."""
        with contextlib.suppress(Exception):
            self.context.close()


def _first_line(src: str) -> str:
    line = next((ln for ln in src.splitlines() if ln.strip()), "")
    return line[:60]


def _squash(text: str, limit: int) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    return text if len(text) <= limit else text[: limit - 3] + "..."
