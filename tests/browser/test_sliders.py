"""Sliders in the explorer notebooks, moved with the keyboard in a real browser.

For the explorer notebooks test_controls does not step (``catalog.key_stems``: the
projector's ``explorers`` page, which holds 02's, 04's and 06's explorers, and any
new notebook that uses one): for every explorer and every slider in it (base,
factor, cap, jitter, threshold, cooldown, ...), focus the handle, press an arrow
key, wait for the explorer's image to be redrawn, and check that the readout says
exactly what the package computes, ``readout_for(**values)`` of the explorer's class
evaluated here from the values the page shows (an invalid setting: the message, and
the old image kept). For every explorer notebook (02, 04 and 06 skipped, with the
reason, while one does not exist): each explorer fits on a 1280 x 800 screen with its
readout above the figure, and a cap set below base is drawn capped, with no message,
its limit line saying base is above cap; the number box puts cap back.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from .catalog import key_stems, slider_notebook, slider_stems
from .explorers import ExplorerKind, ExplorerKinds, normalize
from .sliders import ExplorerDriver, key_for

if TYPE_CHECKING:
    from .conftest import BrowserRun
    from .pages import NotebookPage

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def kinds() -> ExplorerKinds:
    """Every explorer class the package offers, with its controls."""
    return ExplorerKinds()


def _open(stem: str, notebook: Callable[[str], NotebookPage]) -> NotebookPage:
    path = slider_notebook(stem)
    if path is None:
        pytest.skip(f"notebooks/{stem}.ipynb does not exist yet")
    nb = notebook(path.name)
    if nb.explorer_count() == 0:
        pytest.fail(
            f"{path.name}: no .retrylab-explorer on the page after Run All"
            f" (problems: {nb.problems()})"
        )
    return nb


def _expected(
    kind: ExplorerKind, drv: ExplorerDriver, moved: str | None = None
) -> tuple[dict[str, Any], str | None, str]:
    """(values on the page, expected readout or None, expected message or '') after
    the slider ``moved`` changed."""
    values = kind.values(drv.controls())
    try:
        return values, kind.readout_for(values), ""
    except ValueError:
        return values, None, normalize(kind.message_for(moved, values))


def _same_png(kind: ExplorerKind, before: dict[str, Any], after: dict[str, Any]) -> bool:
    """True if the package renders identical images for both settings."""
    a, b = kind.png_for(before), kind.png_for(after)
    return a is not None and a == b


def _shot(drv: ExplorerDriver, artifacts: Path, name: str) -> str:
    path = artifacts / f"FAIL-{name}.png"
    try:
        drv.box.screenshot(path=str(path))
    except Exception:
        drv.page.screenshot(path=str(path))
    return str(path)


@pytest.mark.parametrize("stem", key_stems())
def test_every_slider_redraws_with_the_package_readout(
    stem: str,
    notebook: Callable[[str], NotebookPage],
    kinds: ExplorerKinds,
    artifacts: Path,
    browser_run: BrowserRun,
) -> None:
    nb = _open(stem, notebook)
    boxes = nb.page.locator(".retrylab-explorer")
    failures: list[str] = []
    moved = 0
    for k in range(boxes.count()):
        drv = ExplorerDriver(nb.page, boxes.nth(k))
        drv.box.scroll_into_view_if_needed()
        controls = drv.controls()
        kind = kinds.match(controls, drv.readout() or "")
        where = f"{stem} explorer {k} ({kind.cls.__name__})"
        values, want, _ = _expected(kind, drv)
        if want is not None and drv.readout() != normalize(want):
            failures.append(
                f"{where}: first readout {drv.readout()!r} != package's"
                f" {normalize(want)!r} for {values}"
                f" [{_shot(drv, artifacts, f'{stem}-{k}-initial')}]"
            )
        sliders = [c for c in controls if c.kind == "slider" and not c.disabled]
        if not sliders:  # choices only (the decision explorer): change each, as a keyboard
            for control in controls:  # user does, and compare the readout
                _, changed = drv.step_choice(control)
                moved += changed
                values, want, _ = _expected(kind, drv, kind.name_of(control.name))
                if not changed:
                    failures.append(f"{where}: the keys did not change {control.name}")
                elif want is not None and not drv.wait_text(".retrylab-readout", normalize(want)):
                    failures.append(
                        f"{where}: after {control.name} the readout is"
                        f" {drv.readout()!r}, the package computes"
                        f" {normalize(want)!r} for {values}"
                    )
        for control in sliders:
            src0, text0 = drv.img_src(), drv.readout()
            values0 = kind.values(drv.controls())
            key = key_for(control.vertical, control.at_max)
            if not drv.press(control.name, key):
                failures.append(
                    f"{where}: {key} on {control.name} did not move the slider"
                    f" [{_shot(drv, artifacts, f'{stem}-{k}-{control.name}-key')}]"
                )
                continue
            moved += 1
            values, want, want_msg = _expected(kind, drv, kind.name_of(control.name))
            sample = {
                "notebook": stem,
                "explorer": k,
                "class": kind.cls.__name__,
                "slider": control.name,
                "key": key,
                "from": control.text,
                "to": drv.control(control.name).text,
            }
            if want is None:  # this step made the settings invalid: message, no redraw
                ok = drv.wait_text(".retrylab-message", want_msg, "contains")
                sample["message"] = drv.message()
                if not ok or drv.img_src() != src0:
                    failures.append(
                        f"{where}: {control.name} -> {values} is invalid;"
                        f" expected message {want_msg!r} and the old image,"
                        f" got {drv.message()!r}"
                        f" [{_shot(drv, artifacts, f'{stem}-{k}-{control.name}')}]"
                    )
                browser_run.key_samples.append(sample)
                # Step back to the valid settings and let that redraw land.
                drv.press(control.name, key_for(control.vertical, not control.at_max))
                drv.wait_text(".retrylab-message", "", "equals")
                if src0 is not None:  # same settings as before may give the same image
                    with contextlib.suppress(Exception):
                        drv.wait_redraw(src0, timeout_ms=10_000)
                continue
            # A step that changes nothing drawn (cap above every ceiling) gives the same
            # PNG bytes, which the widget does not resend: then no new src is expected.
            same_png = (
                src0 is not None and normalize(want) == text0 and _same_png(kind, values0, values)
            )
            if same_png:
                sample["image"] = "unchanged: the package draws the same PNG"
            elif src0 is not None:  # text-only explorers (figsize None) have no image
                try:
                    latency = drv.wait_redraw(src0)
                except Exception:
                    if _same_png(kind, values0, values):
                        sample["image"] = "unchanged: the package draws the same PNG"
                    else:
                        failures.append(
                            f"{where}: {key} on {control.name} ({sample['from']} ->"
                            f" {sample['to']}) did not redraw the image within 30 s"
                            f" [{_shot(drv, artifacts, f'{stem}-{k}-{control.name}')}]"
                        )
                        continue
                else:
                    browser_run.key_to_redraw_ms.append(latency)
                    sample["latency_ms"] = round(latency, 1)
            ok = drv.wait_text(".retrylab-readout", normalize(want))
            sample["readout_changed"] = drv.readout() != text0
            browser_run.key_samples.append(sample)
            if not ok:
                failures.append(
                    f"{where}: after {control.name} {sample['from']} ->"
                    f" {sample['to']} the readout is {drv.readout()!r}, the package"
                    f" computes {normalize(want)!r} for {values}"
                    f" [{_shot(drv, artifacts, f'{stem}-{k}-{control.name}')}]"
                )
            if not drv.wait_text(".retrylab-message", "", "equals", timeout_ms=5_000):
                failures.append(f"{where}: valid {values} but message {drv.message()!r}")
    assert moved, f"{stem}: no control moved"
    assert not failures, "\n".join(failures)


#: The tallest an explorer may be (issue 14): a 1280 x 800 screen shows it whole, with
#: its readout and message, while a slider moves (issue 34: the breaker was 693 px, the
#: storm 731, before three columns of controls and shorter figures).
EXPLORER_MAX_PX = 650


def _readout_offset(box: Any) -> float:
    """How far below the explorer's top its readout starts, in px."""
    top, where = box.bounding_box(), box.locator(".retrylab-readout").first.bounding_box()
    assert top is not None and where is not None
    return float(where["y"] - top["y"])


@pytest.mark.parametrize("stem", slider_stems())
def test_every_explorer_fits_on_screen_with_its_readout_above_the_figure(
    stem: str, notebook: Callable[[str], NotebookPage], browser_run: BrowserRun
) -> None:
    nb = _open(stem, notebook)
    boxes = nb.page.locator(".retrylab-explorer")
    failures: list[str] = []
    tall: list[str] = []
    for k in range(boxes.count()):
        box = boxes.nth(k)
        box.scroll_into_view_if_needed()
        whole = box.bounding_box()
        assert whole is not None, f"{stem} explorer {k}: not on the page"
        height = round(whole["height"])
        browser_run.notes.append(f"{stem} explorer {k}: {height} px tall")
        shots = os.environ.get("RETRYLAB_SHOTS")  # a folder for every explorer's picture
        if shots:
            Path(shots).mkdir(parents=True, exist_ok=True)
            box.screenshot(path=str(Path(shots) / f"{stem}-{k}.png"))
        if height > EXPLORER_MAX_PX:
            tall.append(f"{stem} explorer {k}: {height} px tall, more than {EXPLORER_MAX_PX}")
        # a slider pushed to an end brings the limit note: its line is kept all along, so
        # what is below it (the readout, then the image) does not move (a student dragging
        # would have the image jump under the mouse); the number box then puts it back
        drv = ExplorerDriver(nb.page, box)
        message0 = drv.message()
        offset0 = _readout_offset(box)
        for slider in [c for c in drv.controls() if c.kind == "slider" and not c.disabled]:
            drv.press(slider.name, "Home" if slider.at_max else "End")
            # the kernel's answer, not any note: a slider that starts at an end (09's
            # outage_failure) has a note on screen before the press, and a value typed
            # before the box got the kernel's update was overwritten by it (failed once)
            if not (
                drv.wait_answered(slider.name)
                and drv.wait_text(
                    ".retrylab-limit", f"{slider.name} is at its", "contains", timeout_ms=10_000
                )
            ):
                failures.append(
                    f"{stem} explorer {k}: {slider.name} at an end: no limit "
                    f"note for it ({drv.message()!r}, "
                    f"{drv.limit_note()!r})"
                )
                break
            offset = _readout_offset(box)
            if abs(offset - offset0) > 1:
                failures.append(
                    f"{stem} explorer {k}: with {slider.name} at an end the "
                    f"readout moved from {offset0:.0f} to {offset:.0f} px below "
                    f"the explorer's top (the limit note pushed it)"
                )
            if not drv.type_number(slider.name, slider.text, message=message0):
                failures.append(
                    f"{stem} explorer {k}: {slider.name}'s number box did not"
                    f" put it back to {slider.text} (message {message0!r} wanted):"
                    f" {drv.state(slider.name)}"
                )
            break
        image = box.locator("img").first
        if image.count() == 0:
            continue
        img = image.bounding_box()
        for part in (".retrylab-readout", ".retrylab-message"):
            where = box.locator(part).first.bounding_box()
            if img is not None and where is not None and where["y"] > img["y"]:
                failures.append(
                    f"{stem} explorer {k}: {part} is below the figure "
                    f"({where['y']:.0f} px against {img['y']:.0f} px)"
                )
    assert not failures, "\n".join(failures)
    assert not tall, "\n".join(tall)


@pytest.mark.parametrize("stem", slider_stems())
def test_cap_below_base_is_drawn_capped_and_said(
    stem: str, notebook: Callable[[str], NotebookPage], kinds: ExplorerKinds, artifacts: Path
) -> None:
    """Issue 34: a cap pressed below the base is a state to show, not an error: no
    message, the readout and image of the capped waits (the package's, for the values on
    the page), and the limit line naming both sliders; the number box then puts the cap
    back and the note goes."""
    nb = _open(stem, notebook)
    boxes = nb.page.locator(".retrylab-explorer")
    tested = 0
    for k in range(boxes.count()):
        drv = ExplorerDriver(nb.page, boxes.nth(k))
        kind = kinds.match(drv.controls(), drv.readout() or "")
        label = {kind.name_of(c.name): c.name for c in drv.controls() if c.kind == "slider"}
        if not {"base", "cap"} <= set(label):
            continue
        tested += 1
        where = f"{stem} explorer {k} ({kind.cls.__name__})"
        drv.box.scroll_into_view_if_needed()
        start = drv.control(label["cap"]).text
        src0 = drv.img_src()
        drv.press(label["cap"], "Home")
        values = kind.values(drv.controls())
        assert values["cap"] < values["base"], f"{where}: Home left cap >= base ({values})"
        want = normalize(kind.readout_for(values))
        shot = artifacts / f"{stem}-explorer-{k}-cap-below-base.png"
        settled = drv.wait_text(".retrylab-readout", want, timeout_ms=30_000)
        nb.screenshot_element(drv.box, shot)
        assert settled, f"{where}: readout {drv.readout()!r} != package's {want!r} [{shot}]"
        assert drv.message() == "", f"{where}: message {drv.message()!r} [{shot}]"
        assert drv.wait_text(".retrylab-limit", label["base"], "contains"), (
            f"{where}: the limit line {drv.limit_note()!r} does not say base is above cap"
        )
        assert label["cap"] in (drv.limit_note() or ""), drv.limit_note()
        if src0 is not None and not _same_png(kind, kind.values(drv.controls()), values):
            with contextlib.suppress(Exception):
                drv.wait_redraw(src0, timeout_ms=10_000)
        assert drv.type_number(label["cap"], start, message=""), (
            f"{where}: the number box did not put cap back to {start}: {drv.state(label['cap'])}"
        )
        assert drv.wait_text(
            ".retrylab-readout", normalize(kind.readout_for(kind.values(drv.controls())))
        ), where
    if not tested:
        pytest.skip(f"{stem}: no explorer has both a base and a cap slider")
