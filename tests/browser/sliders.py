"""Move one explorer's sliders with the keyboard and read what the page shows.

Use ``ExplorerDriver`` in the slider tests: ``press(name, key)`` focuses the
slider's range input (``retrylab.viz.range``) and presses a key, as a person tabbing
to it would, and returns the page's controls once the slider moved;
``wait_redraw(old_src)`` waits for the explorer's ``<img>`` to get a new ``src``
and returns the key-to-redraw latency measured in the page (performance.now());
``wait_text`` waits for the readout or message to say what the package says.

>>> key_for(vertical=False, at_max=False), key_for(vertical=False, at_max=True)
('ArrowRight', 'ArrowLeft')
"""

from __future__ import annotations

import contextlib
import itertools
import re
from dataclasses import dataclass
from typing import Any

from .explorers import Control, page_controls

JS_TEXT = r"""
(el) => {
  if (!el) return null;
  const inner = el.querySelector('.widget-html-content') || el;
  return inner.innerText.replace(/\s+/g, ' ').trim();
}
"""

JS_WAIT_TEXT = r"""
([el, want, mode]) => {
  const inner = el.querySelector('.widget-html-content') || el;
  const got = inner.innerText.replace(/\s+/g, ' ').trim();
  if (mode === 'equals') return got === want;
  if (mode === 'contains') return got.includes(want);
  return new RegExp(want).test(got);
}
"""

JS_SRC_CHANGED = r"""
([box, old]) => { const img = box.querySelector('img'); return !!img && img.src !== old; }
"""

JS_SLIDER_TEXT = r"""
([box, name]) => {
  for (const el of box.querySelectorAll('.retrylab-range')) {
    const label = el.querySelector(':scope > .retrylab-range-label');
    if (label && label.textContent.trim() === name) {
      return el.querySelector('input[type=range]').value;
    }
  }
  return null;
}
"""


#: How a keyboard user changes a dropdown in JupyterLab: Alt+ArrowDown opens its list,
#: ArrowDown moves to the next option, Enter picks it. A plain ArrowDown on the closed
#: <select> does nothing there: JupyterLab's command-mode shortcut for ArrowDown
#: (notebook:move-cursor-down, on any focused element that is not read-write) takes the
#: key first and prevents its default, so the select never sees it.
DROPDOWN_KEYS = ("Alt+ArrowDown", "ArrowDown", "Enter")


JS_CHOICE_TEXT = r"""
(box) => Array.from(box.querySelectorAll('select, input[type=checkbox], .mod-active'))
  .map(e => e.tagName === 'SELECT' ? e.selectedIndex : e.tagName === 'INPUT' ? e.checked
       : e.textContent).join('|')
"""


def key_for(vertical: bool, at_max: bool) -> str:
    """The arrow key that moves a slider one step (back, if it is at its maximum)."""
    if vertical:
        return "ArrowDown" if at_max else "ArrowUp"
    return "ArrowLeft" if at_max else "ArrowRight"


@dataclass
class ExplorerDriver:
    """One ``.retrylab-explorer`` on a page."""

    page: Any  # playwright Page
    box: Any  # playwright Locator of the explorer

    def controls(self) -> list[Control]:
        return page_controls(self.box)

    def control(self, name: str) -> Control:
        return next(c for c in self.controls() if c.name == name)

    def handle(self, name: str) -> Any:
        """The ``<input type=range>`` of slider ``name`` (its label's text)."""
        label = self.page.locator(
            ".retrylab-range-label", has_text=re.compile(f"^{re.escape(name)}$")
        )
        return (
            self.box.locator(".retrylab-range")
            .filter(has=label)
            .first.locator("input[type=range]")
            .first
        )

    def number_box(self, name: str) -> Any:
        """The <input> of the number box beside slider ``name`` (in the slider's HBox)."""
        return (
            self.handle(name)
            .locator(
                "xpath=ancestor::div[contains(@class, 'widget-hbox')][1]"
                "//div[contains(@class, 'widget-text')]//input"
            )
            .first
        )

    def wait_answered(self, name: str, timeout_ms: float = 10_000) -> bool:
        """True once the kernel has taken slider ``name``'s last move (within
        ``timeout_ms``): the slider has no value in flight or waiting (its
        ``data-settled``) and its number box, linked to it kernel side, shows the slider's
        value. Until then a value typed in the box races the kernel's update of it."""
        try:
            self.page.wait_for_function(
                "([i, b]) => i.closest('.retrylab-range').dataset.settled === 'true'"
                " && b.value !== ''"
                " && Number(b.value.replace(',', '.')) === Number(i.value)",
                arg=[self.handle(name).element_handle(), self.number_box(name).element_handle()],
                timeout=timeout_ms,
                polling=50,
            )
        except Exception:
            return False
        return True

    def type_number(self, name: str, text: str, message: str | None = None) -> bool:
        """Type ``text`` in slider ``name``'s number box and press Enter; True once the
        slider shows ``text`` (and the explorer's message is ``message``, if given)
        within 10 s. The box is first given time to show the slider's value (the kernel
        answered its last move: :meth:`wait_answered`)."""
        self.wait_answered(name)
        box = self.number_box(name)
        box.fill(text)
        box.press("Enter")
        for _ in range(200):
            if self.control(name).text == text and message in (None, self.message()):
                return True
            self.page.wait_for_timeout(50)
        return False

    def state(self, name: str) -> str:
        """Slider ``name`` as the page has it, for a failure's message: the handle's
        value, whether it is settled, the number box's text, the explorer's message."""
        settled = self.handle(name).evaluate("i => i.closest('.retrylab-range').dataset.settled")
        return (
            f"slider {self.slider_state(name)!r} (settled {settled}), number box "
            f"{self.number_box(name).input_value()!r}, message {self.message()!r}"
        )

    def img_src(self) -> str | None:
        img = self.box.locator("img").first
        return img.get_attribute("src") if img.count() else None

    def _text(self, css: str) -> str | None:
        el = self.box.locator(css).first
        return el.evaluate(JS_TEXT) if el.count() else None

    def readout(self) -> str | None:
        """The explorer's readout text, whitespace-normalized (None: no readout)."""
        return self._text(".retrylab-readout")

    def message(self) -> str | None:
        """The explorer's message text (empty when the settings are fine)."""
        return self._text(".retrylab-message")

    def limit_note(self) -> str | None:
        """The note on the sliders at an end of their range (empty when none is)."""
        return self._text(".retrylab-limit")

    def slider_state(self, name: str) -> str | None:
        """The value of slider ``name``'s range input (changes when the handle moves)."""
        return self.box.evaluate("(box, name) => (" + JS_SLIDER_TEXT + ")([box, name])", name)

    def press(self, name: str, key: str, timeout_ms: float = 5_000) -> bool:
        """Focus ``name``'s handle, press ``key``; True once the slider moved."""
        before = self.slider_state(name)
        for attempt in (1, 2):
            handle = self.handle(name)
            if attempt == 2:  # the key went elsewhere (focus lost to a redraw): as a person
                handle.scroll_into_view_if_needed()  # would, look and put focus back
                handle.focus()
            handle.press(key)
            try:
                self.page.wait_for_function(
                    "([box, name, before]) => (" + JS_SLIDER_TEXT + ")([box, name]) !== before",
                    arg=[self.box.element_handle(), name, before],
                    timeout=timeout_ms,
                    polling=50,
                )
            except Exception:
                continue
            return True
        return False

    def choice_target(self, control: Control) -> tuple[Any, tuple[str, ...]]:
        """The element a keyboard user focuses to change choice ``control``, and the keys
        that change it: a dropdown's <select> (:data:`DROPDOWN_KEYS`; ArrowUp instead
        when its last option is picked), a checkbox's box
        (Space), toggle buttons' first inactive button (Enter)."""
        el = (
            self.box.locator(".widget-dropdown, .widget-checkbox, .widget-toggle-buttons")
            .filter(has_text=control.name)
            .first
        )
        if control.kind == "dropdown":
            select = el.locator("select").first
            last = select.evaluate("s => s.selectedIndex === s.options.length - 1")
            return select, DROPDOWN_KEYS if not last else tuple(
                "ArrowUp" if k == "ArrowDown" else k for k in DROPDOWN_KEYS
            )
        if control.kind == "checkbox":
            return el.locator("input").first, ("Space",)
        return el.locator("button:not(.mod-active)").first, ("Enter",)

    def step_choice(self, control: Control) -> tuple[bool, bool]:
        """Focus choice ``control`` and press its keys: (took focus, changed its value)."""
        target, keys = self.choice_target(control)
        before = self._choices()
        target.focus()
        focused = bool(target.evaluate("e => e.matches(':focus-visible') || e.matches(':focus')"))
        for key in keys:
            self.page.keyboard.press(key)
            self.page.wait_for_timeout(100)
        try:
            self.page.wait_for_function(
                "([box, before]) => (" + JS_CHOICE_TEXT + ")(box) !== before",
                arg=[self.box.element_handle(), before],
                timeout=3_000,
                polling=50,
            )
        except Exception:
            return focused, False
        return focused, True

    def _choices(self) -> str:
        return str(self.box.evaluate(JS_CHOICE_TEXT))

    def wait_redraw(self, old_src: str | None, timeout_ms: float = 30_000) -> float:
        """Wait for a new image src; return ms from the last keydown to the change."""
        self.page.wait_for_function(
            JS_SRC_CHANGED,
            arg=[self.box.element_handle(), old_src],
            timeout=timeout_ms,
            polling="raf",
        )
        latency = self.page.evaluate("() => window.__rl ? window.__rl.img - window.__rl.key : -1")
        return float(latency)

    def wait_text(
        self, css: str, want: str, mode: str = "equals", timeout_ms: float = 10_000
    ) -> bool:
        """Wait until the element's text equals/contains/matches ``want``; False on timeout."""
        el = self.box.locator(css).first
        if not el.count():
            return False
        try:
            self.page.wait_for_function(
                JS_WAIT_TEXT, arg=[el.element_handle(), want, mode], timeout=timeout_ms, polling=50
            )
        except Exception:
            return False
        return True


# -- dragging with the mouse ------------------------------------------------------------

#: Records one drag on the page's clock: mouse down and up, each value the range input
#: took (``input`` events), each new ``src`` of the explorer's image.
JS_DRAG_PROBE = r"""
([box, input]) => {
  const img = box.querySelector('img');
  const rec = {down: 0, up: 0, inputs: [], images: [], same: 0};
  window.__rlDrag = rec;
  if (window.__rlDragObserver) window.__rlDragObserver.disconnect();
  if (window.__rlSameObserver) window.__rlSameObserver.disconnect();
  if (img) {
    window.__rlDragObserver = new MutationObserver(
      () => rec.images.push([performance.now(), img.src]));
    window.__rlDragObserver.observe(img, {attributes: true, attributeFilter: ['src']});
  }
  // when the limit line last said a move drew the same figure (no image comes for it)
  window.__rlSameObserver = new MutationObserver(() => {
    const same = box.querySelector('.retrylab-same');
    if (same && same.textContent) rec.same = performance.now();
  });
  window.__rlSameObserver.observe(box, {childList: true, subtree: true, characterData: true});
  input.addEventListener('input', () => rec.inputs.push([performance.now(), input.value]));
  document.addEventListener('mousedown', () => { rec.down = performance.now(); },
                            {capture: true, once: true});
  document.addEventListener('mouseup', () => { rec.up = performance.now(); },
                            {capture: true, once: true});
}
"""

#: The hand has lingered enough: ``n`` distinct images came during the drag, or the
#: kernel answered the last value with "the same figure" (no image will come for it).
JS_HELD = r"""
(n) => {
  const r = window.__rlDrag;
  const last = r.inputs.length ? r.inputs[r.inputs.length - 1][0] : Infinity;
  return new Set(r.images.map(i => i[1])).size >= n || r.same > last;
}
"""

JS_DRAG_RECORD = (
    "() => ({down: window.__rlDrag.down, up: window.__rlDrag.up,"
    " inputs: window.__rlDrag.inputs, images: window.__rlDrag.images})"
)

#: The bytes of the explorer's image as base64 (its src is a blob: URL of the PNG).
JS_IMAGE_BYTES = r"""
async (box) => {
  const img = box.querySelector('img');
  if (!img || !img.src) return null;
  const bytes = new Uint8Array(await (await fetch(img.src)).arrayBuffer());
  let text = '';
  for (let i = 0; i < bytes.length; i += 8192) {
    text += String.fromCharCode.apply(null, bytes.subarray(i, i + 8192));
  }
  return btoa(text);
}
"""


@dataclass
class Drag:
    """One drag of a slider with the mouse, as the page saw it (ms on the page's clock)."""

    slider: str
    start: str  #: the slider's value before the drag
    end: str  #: its value when the mouse was let go
    down: float
    up: float
    inputs: list[tuple[float, str]]  #: each value the input took while dragged
    images: list[tuple[float, str]]  #: each new image src, until the drag settled

    @property
    def during(self) -> list[float]:
        """When each new image came while the mouse was down."""
        return [t for t, _src in self.images if self.down < t <= self.up]

    @property
    def gaps(self) -> list[float]:
        """The intervals between new images while the handle moved: from the first
        move to the first image, then image to image, then the last one to the release.

        >>> Drag("s", "1", "5", 0, 300, [(10, "2")], [(90, "a"), (200, "b"), (350, "c")]).gaps
        [80, 110, 100]
        """
        first = self.inputs[0][0] if self.inputs else self.down
        times = [first, *self.during, self.up]
        return [b - a for a, b in itertools.pairwise(times) if b > a]

    @property
    def changes(self) -> list[float]:
        """When the input took a value other than the one before it (the first counts)."""
        values = [None, *(v for _t, v in self.inputs)]
        return [t for (t, v), old in zip(self.inputs, values, strict=False) if v != old]

    @property
    def value_gaps(self) -> list[float]:
        """The intervals between the value's changes while the mouse was down: a new image
        can come no more often (a slider of few steps crosses few values in a drag,
        whatever the kernel's speed).

        >>> moves = [(10, "2"), (50, "2"), (90, "3"), (200, "4")]
        >>> Drag("s", "1", "5", 0, 300, moves, []).value_gaps
        [80, 110]
        """
        times = [t for t in self.changes if self.down < t <= self.up]
        return [b - a for a, b in itertools.pairwise(times)]

    @property
    def lags(self) -> list[float]:
        """For each new image while the mouse was down, the time since the latest value
        change before it (an upper bound of what the hand waited for it).

        >>> Drag("s", "1", "5", 0, 300, [(10, "2"), (90, "3")], [(60, "a"), (200, "b")]).lags
        [50, 110]
        """
        lags = []
        for t in self.during:
            before = [c for c in self.changes if c < t]
            if before:
                lags.append(t - before[-1])
        return lags

    @property
    def release_ms(self) -> float:
        """From the release to the final image (0 when the image of the last value was
        on screen before the release)."""
        return max(0.0, self.images[-1][0] - self.up) if self.images else 0.0


def _thumb_x(handle: Any, track: dict[str, float], thumb_px: float) -> float:
    ratio = handle.evaluate("i => (i.value - i.min) / ((i.max - i.min) || 1)")
    return float(track["x"] + thumb_px / 2 + ratio * (track["width"] - thumb_px))


def drag_slider(
    drv: ExplorerDriver,
    name: str,
    *,
    moves: int = 10,
    pause_ms: int = 80,
    span: float = 0.5,
    thumb_px: float = 16,
    hold_images: int = 0,
    hold_ms: float = 0,
) -> Drag:
    """Drag slider ``name`` with the mouse as a hand does: down on its thumb, ``moves``
    moves ``pause_ms`` apart across ``span`` of the track (towards the side with more
    room), up. With ``hold_images``, the hand lingers at its last place, the button
    still down, until that many new images came during the drag, or the page said the
    last value drew the same figure (at most ``hold_ms``): a slow explorer then shows
    its frames before the release, one that redraws only on release shows none however
    long the hand waits, and a range the figure does not depend on (a cap above every
    wait) ends the wait once the kernel said so. Returns what the page
    recorded, once the kernel has answered the last value (the number box shows the
    slider's value) and the image has settled."""
    page = drv.page
    handle = drv.handle(name)
    handle.scroll_into_view_if_needed()
    track = handle.bounding_box()
    assert track is not None, f"{name} has no handle on screen"
    start = drv.control(name).text
    x0 = _thumb_x(handle, track, thumb_px)
    y = track["y"] + track["height"] / 2
    room_right = track["x"] + track["width"] - x0
    direction = 1 if room_right >= x0 - track["x"] else -1
    distance = span * (track["width"] - thumb_px) * direction
    page.evaluate(JS_DRAG_PROBE, [drv.box.element_handle(), handle.element_handle()])
    page.mouse.move(x0, y)
    page.mouse.down()
    for i in range(1, moves + 1):
        page.mouse.move(x0 + distance * i / moves, y, steps=2)
        page.wait_for_timeout(pause_ms)
    if hold_images:
        with contextlib.suppress(Exception):  # the caller judges how many came
            page.wait_for_function(JS_HELD, arg=hold_images, timeout=hold_ms, polling=50)
    page.mouse.up()
    drv.wait_answered(name, timeout_ms=30_000)
    _wait_quiet(page, 500, 30_000)
    rec = page.evaluate(JS_DRAG_RECORD)
    return Drag(
        name,
        start,
        drv.control(name).text,
        float(rec["down"]),
        float(rec["up"]),
        [(float(t), str(v)) for t, v in rec["inputs"]],
        [(float(t), str(s)) for t, s in rec["images"]],
    )


def _wait_quiet(page: Any, quiet_ms: float, timeout_ms: float) -> None:
    """Wait until no new image has come for ``quiet_ms`` (bounded by ``timeout_ms``)."""
    page.wait_for_function(
        "(q) => { const r = window.__rlDrag; const last = Math.max(r.up, r.images.length ?"
        " r.images[r.images.length - 1][0] : 0); return performance.now() - last > q; }",
        arg=quiet_ms,
        timeout=timeout_ms,
        polling=50,
    )


def image_bytes(drv: ExplorerDriver) -> bytes | None:
    """The PNG bytes the explorer's image shows now (None: no image)."""
    import base64

    text = drv.box.evaluate(JS_IMAGE_BYTES)
    return base64.b64decode(text) if text else None
