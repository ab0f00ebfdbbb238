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
        label = self.page.locator(".retrylab-range-label",
                                  has_text=re.compile(f"^{re.escape(name)}$"))
        return self.box.locator(".retrylab-range").filter(has=label).first.locator(
            "input[type=range]").first

    def number_box(self, name: str) -> Any:
        """The <input> of the number box beside slider ``name`` (in the slider's HBox)."""
        return self.handle(name).locator(
            "xpath=ancestor::div[contains(@class, 'widget-hbox')][1]"
            "//div[contains(@class, 'widget-text')]//input").first

    def wait_answered(self, name: str, timeout_ms: float = 10_000) -> bool:
        """True once the kernel has taken slider ``name``'s last move (within
        ``timeout_ms``): its number box, linked to it kernel side, shows the slider's
        value. Until then a value typed in the box races the kernel's update of it."""
        try:
            self.page.wait_for_function(
                "([i, b]) => b.value !== '' && Number(b.value) === Number(i.value)",
                arg=[self.handle(name).element_handle(),
                     self.number_box(name).element_handle()],
                timeout=timeout_ms, polling=50)
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
                    arg=[self.box.element_handle(), name, before], timeout=timeout_ms,
                    polling=50)
            except Exception:
                continue
            return True
        return False

    def choice_target(self, control: Control) -> tuple[Any, tuple[str, ...]]:
        """The element a keyboard user focuses to change choice ``control``, and the keys
        that change it: a dropdown's <select> (:data:`DROPDOWN_KEYS`; ArrowUp instead
        when its last option is picked), a checkbox's box
        (Space), toggle buttons' first inactive button (Enter)."""
        el = self.box.locator(".widget-dropdown, .widget-checkbox, .widget-toggle-buttons"
                              ).filter(has_text=control.name).first
        if control.kind == "dropdown":
            select = el.locator("select").first
            last = select.evaluate("s => s.selectedIndex === s.options.length - 1")
            return select, DROPDOWN_KEYS if not last else tuple(
                "ArrowUp" if k == "ArrowDown" else k for k in DROPDOWN_KEYS)
        if control.kind == "checkbox":
            return el.locator("input").first, ("Space",)
        return el.locator("button:not(.mod-active)").first, ("Enter",)

    def step_choice(self, control: Control) -> tuple[bool, bool]:
        """Focus choice ``control`` and press its keys: (took focus, changed its value)."""
        target, keys = self.choice_target(control)
        before = self._choices()
        target.focus()
        focused = bool(target.evaluate(
            "e => e.matches(':focus-visible') || e.matches(':focus')"))
        for key in keys:
            self.page.keyboard.press(key)
            self.page.wait_for_timeout(100)
        try:
            self.page.wait_for_function(
                "([box, before]) => (" + JS_CHOICE_TEXT + ")(box) !== before",
                arg=[self.box.element_handle(), before], timeout=3_000, polling=50)
        except Exception:
            return focused, False
        return focused, True

    def _choices(self) -> str:
        return str(self.box.evaluate(JS_CHOICE_TEXT))

    def wait_redraw(self, old_src: str | None, timeout_ms: float = 30_000) -> float:
        """Wait for a new image src; return ms from the last keydown to the change."""
        self.page.wait_for_function(JS_SRC_CHANGED, arg=[self.box.element_handle(), old_src],
                                    timeout=timeout_ms, polling="raf")
        latency = self.page.evaluate("() => window.__rl ? window.__rl.img - window.__rl.key : -1")
        return float(latency)

    def wait_text(self, css: str, want: str, mode: str = "equals",
                  timeout_ms: float = 10_000) -> bool:
        """Wait until the element's text equals/contains/matches ``want``; False on timeout."""
        el = self.box.locator(css).first
        if not el.count():
            return False
        try:
            self.page.wait_for_function(JS_WAIT_TEXT, arg=[el.element_handle(), want, mode],
                                        timeout=timeout_ms, polling=50)
        except Exception:
            return False
        return True
