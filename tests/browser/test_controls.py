"""Every control of the explorers of 01, 02, 04, 06 and 09, used with the mouse and the keyboard.

**The hand.** Every enabled slider is dragged as a hand drags it (``sliders.drag_slider``):
mouse down on its thumb, ten moves 80 ms apart across half of its track, a pause at the
end (the button still down) until two images came, the page said the last value drew
the same figure, or 8 s passed, mouse up. At least two distinct images must come before
the release (the page sends a value while dragging each time the kernel has answered
the last one, so a slow redraw shows fewer frames, never stale ones), and once the drag
settles the image must be the very PNG the package draws for the values the page shows
(``Explorer.png``), with its readout. Timings go to the session's notes; the targets
are judged by ``benchmarks/bench_drag.py``.

**The keys and the number box**, from where the hand left the slider: its number box
takes the largest value (Enter; the slider follows), an arrow key at that end must show
the limit note, ArrowLeft moves it back and Home to its start, each time with the
readout the package computes for the values the page shows (or the message, when a
setting is invalid); the number box then puts it back where the notebook left it, so
the other tests on the page start from the notebook's settings. A dropdown is opened
and changed as a keyboard user does it in JupyterLab (``sliders.DROPDOWN_KEYS``), a
checkbox gets Space, toggle buttons Enter on another option; every control must take
focus and show it (``:focus-visible``).

**The names.** Last, the explorer's ARIA snapshot (what a screen reader reads) must name
every control by its label: dropdowns, checkboxes, buttons, each slider (a native range
input its ``<label>`` names, ``retrylab.viz.range``) and the number box beside it.
Reuses the pages the slider tests opened.

One pass a slider for the hand and the keys: they were two tests that each moved every
slider and put it back.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest

from .catalog import CONTROLS_NOTEBOOKS
from .explorers import Control, ExplorerKind, ExplorerKinds, normalize
from .sliders import Drag, ExplorerDriver, drag_slider, image_bytes
from .test_sliders import _expected, _open

if TYPE_CHECKING:
    from .conftest import BrowserRun
    from .pages import NotebookPage

pytestmark = pytest.mark.browser


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


#: Distinct images a drag must show before the mouse is let go.
IMAGES_DURING_DRAG = 2
#: How long the hand may linger at the end of its moves, the button down, for them: a
#: slow explorer on a loaded machine (the storm's 60,000 clients) takes a second or two
#: a redraw; one that redraws only on release shows nothing before it however long.
HOLD_MS = 8_000

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


@pytest.mark.parametrize("stem", CONTROLS_NOTEBOOKS)
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
    sliders = 0
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
                sliders += 1
                if drv.img_src() is not None:
                    failures += _follows_the_hand(drv, kind, control, where, browser_run)
                failures += _steps_with_the_keys(drv, kind, control, where)
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
    assert sliders or stem == "01_which_errors_to_retry", f"{stem}: no slider moved"
    assert not failures, "\n".join(failures)


def _new_images(kind: ExplorerKind, before: dict[str, Any], name: str, drag: Drag) -> int:
    """How many images other than the first one the package draws for the values the drag
    moved through (a refusal cost past 0.25 changes nothing the storm figure shows), up
    to :data:`IMAGES_DURING_DRAG`: only a drag that showed fewer asks, and it stops there
    (each image is a redraw in this process, a storm's a quarter of a second)."""
    ex = kind.cls(**before)
    ex.on_page()
    seen = {ex.png}
    for _t, text in drag.inputs:
        value = Control(name, "slider", text).python_value(kind.types.get(name), {})
        ex.set(**{name: value})
        seen.add(ex.png)
        if len(seen) > IMAGES_DURING_DRAG:
            break
    return len(seen) - 1


def _follows_the_hand(
    drv: ExplorerDriver, kind: ExplorerKind, control: Control, where: str, browser_run: BrowserRun
) -> list[str]:
    """Drag ``control`` as a hand does; what the page got wrong (see the module)."""
    before = kind.values(drv.controls())
    drag = drag_slider(drv, control.name, hold_images=IMAGES_DURING_DRAG, hold_ms=HOLD_MS)
    shown = len({src for t, src in drag.images if drag.down < t <= drag.up})
    browser_run.notes.append(
        f"drag {where} {control.name} {drag.start} -> {drag.end}: {len(drag.inputs)}"
        f" values, {shown} images during the drag, gaps median"
        f" {statistics.median(drag.gaps):.0f} ms, final image"
        f" {drag.release_ms:.0f} ms after release"
    )
    if drag.end == drag.start:
        return [f"{where}: dragging {control.name} left it at {drag.start}"]
    failures = []
    values = kind.values(drv.controls())
    png = kind.png_for(values)
    # a range the figure does not depend on (a cap above every wait) draws the same PNG
    # at both ends, which the page is not sent again: the limit line says why
    if png is not None and png == kind.png_for(before):
        if not drv.wait_text(".retrylab-limit", "the same figure", "contains"):
            failures.append(
                f"{where}: dragging {control.name} {drag.start} -> {drag.end} drew the"
                " same figure and said nothing"
            )
    elif shown < IMAGES_DURING_DRAG and shown < _new_images(
        kind, before, kind.name_of(control.name), drag
    ):
        failures.append(
            f"{where}: dragging {control.name} {drag.start} -> {drag.end} showed {shown}"
            f" image(s) before the release ({len(drag.inputs)} values moved through)"
        )
    want = normalize(kind.readout_for(values))
    if not drv.wait_text(".retrylab-readout", want, timeout_ms=30_000):
        failures.append(
            f"{where}: after dragging {control.name} to {drag.end} the readout is"
            f" {drv.readout()!r}, the package's {want!r}"
        )
    if png is None or image_bytes(drv) != png:
        failures.append(
            f"{where}: after dragging {control.name} to {drag.end} the image is not the"
            f" package's PNG for {values}"
        )
    return failures


def _steps_with_the_keys(
    drv: ExplorerDriver, kind: ExplorerKind, control: Control, where: str
) -> list[str]:
    """The number box to the largest value, the keys at that end and back, the number box
    back to the notebook's value; what the page got wrong (see the module)."""
    page, name = drv.page, kind.name_of(control.name)
    handle = drv.handle(control.name)
    handle.scroll_into_view_if_needed()
    box = drv.number_box(control.name)
    if box.count() == 0:
        return [f"{where}: {control.name} has no number box"]
    failures = []
    # the number box: type the largest value, Enter; the slider follows
    top = handle.evaluate("i => i.max")
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
            f"{where}: typing {top} in {control.name}'s number box left the slider at"
            f" {drv.control(control.name).text}"
        )
    else:
        if problem := _settled(drv, kind, name):
            failures.append(f"{where}: after typing in {control.name}'s box: {problem}")
        # the keyboard: at the end a press changes nothing, and the note says so
        handle.focus()
        focused = handle.evaluate("h => h.matches(':focus')")
        handle.press("ArrowRight")
        # the note comes in its own widget message after the readout's, so the page may
        # show the readout a moment before it: wait for it, bounded
        sign = f"{control.name} is at its maximum"
        shown = drv.wait_text(".retrylab-limit", sign, "contains", timeout_ms=10_000)
        if not focused:
            failures.append(f"{where}: {control.name}'s handle takes no focus")
        if not shown:
            failures.append(
                f"{where}: ArrowRight at {control.name}'s end gave no sign (limit note"
                f" {drv.limit_note() or ''!r})"
            )
        if not drv.press(control.name, "ArrowLeft"):
            failures.append(f"{where}: ArrowLeft did not move {control.name}")
        elif problem := _settled(drv, kind, name):
            failures.append(f"{where}: after ArrowLeft on {control.name}: {problem}")
        # Home to the start (a slider of two positions is there already)
        if handle.evaluate("i => Number(i.value) !== Number(i.min)"):
            if not drv.press(control.name, "Home"):
                failures.append(f"{where}: Home did not move {control.name}")
            elif problem := _settled(drv, kind, name):
                failures.append(f"{where}: after Home on {control.name}: {problem}")
    # put it back where the notebook left it: the other tests on this page (run in any
    # order, on any worker) start from the notebook's settings
    if not drv.type_number(control.name, control.text):
        failures.append(
            f"{where}: typing {control.text} in {control.name}'s number box did not put the"
            f" slider back: {drv.state(control.name)}"
        )
    _settled(drv, kind, name)
    return failures


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
