"""Every slider of notebooks 02, 04, 06 and 09 follows the hand: dragged with the mouse,
the explorer's image is redrawn during the drag, and the last image is the last value's.

For every enabled slider of every explorer on the page: mouse down on its thumb,
ten moves 80 ms apart across half of its track, a pause at the end (the button still
down) until two images came or 8 s passed, mouse up (``sliders.drag_slider``).
At least two distinct images must come before the release (the page sends a value
while dragging each time the kernel has answered the last one, so a slow redraw
shows fewer frames, never stale ones), and once the drag settles the image must be
the very PNG the package draws for the values the page shows (``Explorer.png``), with
its readout. The slider is then put back with its number box, so the other tests on
the page start from the notebook's settings. Timings go to the session's notes; the
targets are judged by ``benchmarks/bench_drag.py``.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest

from .explorers import Control, ExplorerKind, ExplorerKinds, normalize
from .sliders import Drag, ExplorerDriver, drag_slider, image_bytes
from .test_sliders import _open

if TYPE_CHECKING:
    from .conftest import BrowserRun
    from .pages import NotebookPage

pytestmark = pytest.mark.browser

STEMS = (
    "02_computing_the_wait",
    "04_circuit_breaker",
    "06_retry_storms_lab",
    "09_beyond_the_lessons",
)
#: Distinct images a drag must show before the mouse is let go.
IMAGES_DURING_DRAG = 2
#: How long the hand may linger at the end of its moves, the button down, for them: a
#: slow explorer on a loaded machine (the storm's 60,000 clients) takes a second or two
#: a redraw; one that redraws only on release shows nothing before it however long.
HOLD_MS = 8_000


@pytest.fixture(scope="module")
def kinds() -> ExplorerKinds:
    return ExplorerKinds()


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


@pytest.mark.parametrize("stem", STEMS)
def test_dragging_every_slider_redraws_while_it_moves(
    stem: str,
    notebook: Callable[[str], NotebookPage],
    kinds: ExplorerKinds,
    browser_run: BrowserRun,
) -> None:
    nb = _open(stem, notebook)
    boxes = nb.page.locator(".retrylab-explorer")
    failures: list[str] = []
    dragged = 0
    for k in range(boxes.count()):
        drv = ExplorerDriver(nb.page, boxes.nth(k))
        drv.box.scroll_into_view_if_needed()
        if drv.img_src() is None:
            continue
        kind = kinds.match(drv.controls(), drv.readout() or "")
        where = f"{stem} explorer {k} ({kind.cls.__name__})"
        for control in [c for c in drv.controls() if c.kind == "slider" and not c.disabled]:
            before = kind.values(drv.controls())
            drag = drag_slider(drv, control.name, hold_images=IMAGES_DURING_DRAG, hold_ms=HOLD_MS)
            dragged += 1
            shown = len({src for t, src in drag.images if drag.down < t <= drag.up})
            browser_run.notes.append(
                f"drag {where} {control.name} {drag.start} -> {drag.end}: {len(drag.inputs)}"
                f" values, {shown} images during the drag, gaps median"
                f" {statistics.median(drag.gaps):.0f} ms, final image"
                f" {drag.release_ms:.0f} ms after release"
            )
            if drag.end == drag.start:
                failures.append(f"{where}: dragging {control.name} left it at {drag.start}")
                continue
            values = kind.values(drv.controls())
            png = kind.png_for(values)
            # a range the figure does not depend on (a cap above every wait) draws the same
            # PNG at both ends, which the page is not sent again: the limit line says why
            same = png is not None and png == kind.png_for(before)
            if same:
                if not drv.wait_text(".retrylab-limit", "the same figure", "contains"):
                    failures.append(
                        f"{where}: dragging {control.name} {drag.start} ->"
                        f" {drag.end} drew the same figure and said nothing"
                    )
            elif shown < IMAGES_DURING_DRAG and shown < _new_images(
                kind, before, kind.name_of(control.name), drag
            ):
                failures.append(
                    f"{where}: dragging {control.name} {drag.start} ->"
                    f" {drag.end} showed {shown} image(s) before the release"
                    f" ({len(drag.inputs)} values moved through)"
                )
            want = normalize(kind.readout_for(values))
            if not drv.wait_text(".retrylab-readout", want, timeout_ms=30_000):
                failures.append(
                    f"{where}: after dragging {control.name} to {drag.end} the"
                    f" readout is {drv.readout()!r}, the package's {want!r}"
                )
            if png is None or image_bytes(drv) != png:
                failures.append(
                    f"{where}: after dragging {control.name} to {drag.end} the"
                    f" image is not the package's PNG for {values}"
                )
            if not drv.type_number(control.name, drag.start):
                failures.append(
                    f"{where}: the number box did not put {control.name} back to {drag.start}"
                )
    assert dragged, f"{stem}: no slider dragged"
    assert not failures, "\n".join(failures)
