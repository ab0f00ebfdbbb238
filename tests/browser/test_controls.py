"""Every control of the explorers of 01, 02, 04, 06 and 09, used with the mouse and the keyboard.

Each slider is dragged with the mouse (down on its range input's thumb, across its
track to its right end, up) and the readout must then say what the package
computes for the values the page shows (or the message, when the end is an
invalid setting). Then every control is stepped with the keyboard: a slider's
handle gets an arrow key (a press at its end must show the limit note), a
dropdown is opened and changed as a keyboard user does it in JupyterLab
(``sliders.DROPDOWN_KEYS``), a checkbox gets Space, toggle buttons Enter on another
option; the control must take focus and show it (``:focus-visible``). Last, the
explorer's ARIA snapshot (what a screen reader reads) must name every control by
its label: dropdowns, checkboxes, buttons, each slider (a native range input its
``<label>`` names, ``retrylab.viz.range``) and the number box beside it. Reuses
the pages the slider tests opened.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

from .explorers import Control, ExplorerKinds, normalize
from .sliders import ExplorerDriver
from .test_sliders import _expected, _open

if TYPE_CHECKING:
    from .conftest import BrowserRun
    from .pages import NotebookPage

pytestmark = pytest.mark.browser

#: The issue's four notebooks, and 01 for the decision explorer (choices only: two
#: dropdowns and a checkbox).
STEMS = (
    "01_which_errors_to_retry",
    "02_computing_the_wait",
    "04_circuit_breaker",
    "06_retry_storms_lab",
    "09_beyond_the_lessons",
)


@pytest.fixture(scope="module")
def kinds() -> ExplorerKinds:
    return ExplorerKinds()


def _settled(drv: ExplorerDriver, kind: object, moved: str) -> str | None:
    """None if the page shows what the package says after ``moved``; else what differs."""
    values, want, want_msg = _expected(kind, drv, moved)  # type: ignore[arg-type]
    if want is None:
        ok = drv.wait_text(".retrylab-message", want_msg, "contains", timeout_ms=30_000)
        return None if ok else f"message {drv.message()!r} != {want_msg!r} for {values}"
    ok = drv.wait_text(".retrylab-readout", normalize(want), timeout_ms=30_000)
    return None if ok else f"readout {drv.readout()!r} != {normalize(want)!r} for {values}"


#: The width of Chromium's range thumb (the default, unstyled ``<input type=range>``).
THUMB_PX = 16

CONTROL_ROLES = ("slider", "textbox", "combobox", "checkbox", "button")


def _named_controls(aria: str) -> list[str]:
    """``role:accessible name`` of every control in an ARIA snapshot (Playwright's
    ``locator.aria_snapshot()``, one ``- role "name"`` line a node); ``?`` when unnamed."""
    out = []
    for line in aria.splitlines():
        m = re.match(r'\s*- (\w+)(?: "([^"]*)")?', line)
        if m and m.group(1) in CONTROL_ROLES:
            out.append(f"{m.group(1)}:{m.group(2) or '?'}")
    return out


@pytest.mark.parametrize("stem", STEMS)
def test_every_control_drags_and_steps(
    stem: str,
    notebook: Callable[[str], NotebookPage],
    kinds: ExplorerKinds,
    browser_run: BrowserRun,
) -> None:
    nb = _open(stem, notebook)
    page = nb.page
    boxes = page.locator(".retrylab-explorer")
    failures: list[str] = []
    for k in range(boxes.count()):
        drv = ExplorerDriver(page, boxes.nth(k))
        drv.box.scroll_into_view_if_needed()
        kind = kinds.match(drv.controls(), drv.readout() or "")
        where = f"{stem} explorer {k} ({kind.cls.__name__})"
        for control in drv.controls():
            if control.disabled:
                continue
            name = kind.name_of(control.name)
            if control.kind == "slider":
                # the mouse: drag the handle across the track to its right end
                handle = drv.handle(control.name)
                handle.scroll_into_view_if_needed()
                track = handle.bounding_box()
                if track is None:
                    failures.append(f"{where}: {control.name} has no handle on screen")
                    continue
                # the thumb's centre: Chromium draws a 16 px thumb inside the input's box
                ratio = handle.evaluate("i => (i.value - i.min) / ((i.max - i.min) || 1)")
                x0 = track["x"] + THUMB_PX / 2 + ratio * (track["width"] - THUMB_PX)
                y = track["y"] + track["height"] / 2
                page.mouse.move(x0, y)
                page.mouse.down()
                for i in range(1, 6):
                    page.mouse.move(
                        x0 + (track["x"] + track["width"] + 20 - x0) * i / 5, y, steps=3
                    )
                page.mouse.up()
                after = drv.control(control.name)
                if not after.at_max:
                    failures.append(
                        f"{where}: dragging {control.name} to the right end left it at {after.text}"
                    )
                problem = _settled(drv, kind, name)
                if problem:
                    failures.append(f"{where}: after dragging {control.name}: {problem}")
                # the keyboard: at the end a press changes nothing, and the note says so
                handle.focus()
                focused = handle.evaluate("h => h.matches(':focus')")
                handle.press("ArrowRight")
                # the note comes in its own widget message after the readout's, so the
                # page may show the readout a moment before it: wait for it, bounded
                sign = f"{control.name} is at its maximum"
                shown = drv.wait_text(".retrylab-limit", sign, "contains", timeout_ms=10_000)
                note = drv.limit_note() or ""
                if not focused:
                    failures.append(f"{where}: {control.name}'s handle takes no focus")
                if not shown:
                    failures.append(
                        f"{where}: ArrowRight at {control.name}'s end gave no"
                        f" sign (limit note {note!r})"
                    )
                if not drv.press(control.name, "ArrowLeft"):
                    failures.append(f"{where}: ArrowLeft did not move {control.name}")
                elif problem := _settled(drv, kind, name):
                    failures.append(f"{where}: after ArrowLeft on {control.name}: {problem}")
                drv.press(control.name, "Home")
                _settled(drv, kind, name)
                # the number box beside it: type the largest value, Enter; the slider follows
                box = drv.number_box(control.name)
                top = handle.evaluate("i => i.max")
                if box.count() == 0:
                    failures.append(f"{where}: {control.name} has no number box")
                    continue
                drv.wait_answered(control.name)  # else the kernel's update may overwrite it
                box.fill(str(float(top)) if "." in top else top)
                box.press("Enter")
                try:
                    page.wait_for_function(
                        "i => Number(i.value) === Number(i.max)",
                        arg=handle.element_handle(),
                        timeout=10_000,
                        polling=50,
                    )
                except Exception:
                    failures.append(
                        f"{where}: typing {top} in {control.name}'s number box left"
                        f" the slider at {drv.control(control.name).text}"
                    )
                    continue
                if problem := _settled(drv, kind, name):
                    failures.append(f"{where}: after typing in {control.name}'s box: {problem}")
                # put it back where the notebook left it: the other tests on this page
                # (run in any order, on any worker) start from the notebook's settings
                if not drv.type_number(control.name, control.text):
                    failures.append(
                        f"{where}: typing {control.text} in {control.name}'s"
                        f" number box did not put the slider back"
                    )
                _settled(drv, kind, name)
            elif control.kind in ("dropdown", "checkbox", "choice"):
                before = control.text
                key = " ".join(drv.choice_target(control)[1])
                visible, changed = drv.step_choice(control)
                if not visible:
                    failures.append(f"{where}: {control.name} takes no visible focus")
                if not changed:
                    failures.append(
                        f"{where}: {key} on {control.name} changed nothing ({before!r})"
                    )
                elif problem := _settled(drv, kind, name):
                    failures.append(f"{where}: after {key} on {control.name}: {problem}")
        named = _named_controls(drv.box.aria_snapshot())
        browser_run.notes.append(f"{where} accessible names: {', '.join(named)}")
        failures += [f"{where}: {problem}" for problem in _unnamed(named, drv.controls())]
    assert not failures, "\n".join(failures)


def _unnamed(named: list[str], controls: list[Control]) -> list[str]:
    """What a screen reader could not name: any control with no accessible name, a
    slider not named by its own label, or a slider without its number box named so.

    >>> base = [Control("base (ms)", "slider", "1")]
    >>> _unnamed(["slider:base (ms)", "textbox:base (ms)"], base)
    []
    >>> _unnamed(["slider:?", "textbox:base (ms)"], base)[0]
    'a slider has no accessible name'
    """
    problems = [
        f"a {entry.split(':')[0]} has no accessible name" for entry in named if entry.endswith(":?")
    ]
    for role in ("slider", "textbox"):
        names = {entry.split(":", 1)[1] for entry in named if entry.startswith(role + ":")}
        problems += [
            f"slider {c.name!r} has no {role} named {c.name!r} (names: {named})"
            for c in controls
            if c.kind == "slider" and c.name not in names
        ]
    return problems
