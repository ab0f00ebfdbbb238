"""A numeric slider a screen reader can name: a native ``<input type="range">`` and its ``<label>``.

ipywidgets 8's ``IntSlider`` and ``FloatSlider`` draw their handle with noUiSlider: a
``<div role="slider">`` tied to no label, with no trait to name it, so a screen reader
announces "slider, 200" and never "base (ms)". :class:`IntRange` and :class:`FloatRange`
are anywidget widgets (a supported way to ship a small front end with a widget) that
render the browser's own range input, named by its label (``aria-label``, and a
``<label for>`` so a click on the label focuses it).
The browser gives it what a slider needs: dragging with the mouse, arrow keys, Page
Up/Down, Home/End, a visible focus ring, ``disabled``. ``aria-valuetext`` reads the
value with its unit ("200 ms").

The traits are those of ipywidgets' sliders that the explorers use (``value``, ``min``,
``max``, ``step``, ``description``, ``tooltip``, ``continuous_update``, ``disabled``),
so ``ipywidgets.link`` ties one to a number box, and a value set from Python is
clamped into ``[min, max]`` as an ``IntSlider`` clamps it.

>>> s = IntRange(value=200, min=50, max=2000, step=50, description="base (ms)")
>>> s.value = 5000; s.value
2000
>>> FloatRange(value=2.0, min=1.0, max=4.0, step=0.1).value
2.0
"""

from __future__ import annotations

from typing import Any

import anywidget
import traitlets

__all__ = ["FloatRange", "IntRange"]

#: The front end: one label and one range input; the model is the single source of the
#: value. The handle follows the hand: ``input`` events (each move of a drag, each key
#: press) send the value when ``continuous_update`` is on, ``change`` (the handle let go)
#: always does; but only one value is in flight at a time. A value is sent when the
#: kernel has answered the previous one (its ``{"answered": ...}`` message, sent after
#: every observer of the value, the explorer's redraw, has run: its image and readout
#: are on their way first), and the latest value waits for that answer, replacing any
#: older waiting one: stale frames are dropped, never queued, and the last value sent is
#: the last the hand chose. A kernel that never answers (no retrylab kernel side) is
#: given ``ANSWER_WAIT_MS``. While a value waits, the model's value is not put back on
#: the input (it would pull the handle from under the mouse). A key press fires ``input``
#: then ``change`` with one value: the second is the value in flight, so it does not wait
#: (else it would be sent again on the answer, over a value the kernel set meanwhile,
#: e.g. one typed in the number box). ``data-settled`` on the element is ``true`` when no
#: value is in flight or waiting: the kernel has every move of the hand.
#: Arrow keys and Home/End stay with the slider: JupyterLab would otherwise take them
#: as command-mode shortcuts (ArrowDown: next cell), as it does on a closed <select>.
_ESM = r"""
const KEYS = new Set(['ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown', 'Home', 'End',
                      'PageUp', 'PageDown']);
const ANSWER_WAIT_MS = 3000;
function render({ model, el }) {
  el.classList.add('retrylab-range');
  // anywidget may load this module once a widget, so a module-level counter is not
  // unique on the page: the id is random (it only lets a click on the label focus the
  // input); the accessible name is set on the input itself (aria-label).
  const id = `retrylab-range-${Math.random().toString(36).slice(2)}`;
  const label = document.createElement('label');
  label.className = 'retrylab-range-label';
  label.htmlFor = id;
  const input = document.createElement('input');
  input.type = 'range';
  input.id = id;
  input.className = 'retrylab-range-input';
  el.append(label, input);
  let inFlight = false;   // a value was sent and the kernel has not answered it yet
  let sent = null;        // that value
  let waiting = null;     // the latest value chosen while one was in flight
  let timer = null;
  const settle = () => {
    el.dataset.settled = String(!inFlight && waiting === null);
  };
  const valuetext = () => {
    const unit = model.get('unit');
    const value = input.value.replace('.', model.get('decimal_mark') || '.');
    input.setAttribute('aria-valuetext', unit ? `${value} ${unit}` : value);
  };
  const sync = () => {
    label.textContent = model.get('description');
    input.setAttribute('aria-label', model.get('description'));
    label.style.width = model.get('description_width');
    input.min = String(model.get('min'));
    input.max = String(model.get('max'));
    input.step = String(model.get('step'));
    if (waiting === null) input.value = String(model.get('value'));
    input.disabled = model.get('disabled');
    valuetext();
    el.title = model.get('tooltip') || '';
  };
  const answered = () => {
    clearTimeout(timer);
    inFlight = false;
    const next = waiting;
    waiting = null;
    if (next !== null) send(next);
    settle();
  };
  const send = (v) => {
    if (!Number.isFinite(v)) return;
    if (inFlight) { waiting = v === sent ? null : v; settle(); return; }
    if (v === model.get('value')) return;
    inFlight = true;
    sent = v;
    settle();
    timer = setTimeout(answered, ANSWER_WAIT_MS);
    model.set('value', v);
    model.save_changes();
  };
  model.on('msg:custom', (msg) => { if (msg && 'answered' in msg) answered(); });
  input.addEventListener('input', () => {
    valuetext();
    if (model.get('continuous_update')) send(Number(input.value));
  });
  input.addEventListener('change', () => send(Number(input.value)));
  input.addEventListener('keydown', (e) => { if (KEYS.has(e.key)) e.stopPropagation(); });
  for (const name of ['value', 'min', 'max', 'step', 'description', 'description_width',
                      'disabled', 'unit', 'decimal_mark', 'tooltip']) {
    model.on(`change:${name}`, sync);
  }
  sync();
  settle();
}
export default { render };
"""

_CSS = """
.retrylab-range { display: flex; align-items: center; gap: 8px; min-width: 0;
                  min-height: var(--jp-widgets-inline-height, 28px); }
.retrylab-range-label { flex: 0 0 auto; white-space: normal; text-align: right;
                        line-height: 1.15; overflow-wrap: break-word;
                        font-size: var(--jp-widgets-font-size, 13px);
                        color: var(--jp-widgets-label-color, inherit); }
.retrylab-range-input { flex: 1 1 auto; min-width: 0; margin: 0; cursor: pointer;
                        accent-color: var(--jp-brand-color1, #1976d2); }
.retrylab-range-input:disabled { cursor: not-allowed; opacity: 0.5; }
/* the number box beside a range: its label (the range's) names it to a screen reader only */
.retrylab-number .widget-label { position: absolute !important; width: 1px !important;
                                 height: 1px !important; margin: -1px !important;
                                 padding: 0 !important; overflow: hidden !important;
                                 clip: rect(0 0 0 0) !important; white-space: nowrap !important;
                                 border: 0 !important; }
.retrylab-range-input:focus-visible { outline: 2px solid var(--jp-brand-color1, #1976d2);
                                      outline-offset: 2px; }
"""


class _Range(anywidget.AnyWidget):
    """What both ranges share: the front end and the traits besides ``value``."""

    _esm = traitlets.Unicode(_ESM).tag(sync=True)
    _css = traitlets.Unicode(_CSS).tag(sync=True)
    description = traitlets.Unicode("").tag(sync=True)
    tooltip = traitlets.Unicode("").tag(sync=True)
    #: the label's CSS width ("" fits its text), one for an explorer's controls so their
    #: tracks start at the same x (:func:`~retrylab.viz.controls.align_descriptions`)
    description_width = traitlets.Unicode("").tag(sync=True)
    #: read after the value by a screen reader ("200 ms"); "" for none
    unit = traitlets.Unicode("").tag(sync=True)
    #: the decimal mark the value is read with ("0,5 ms" in a Turkish notebook)
    decimal_mark = traitlets.Unicode(".").tag(sync=True)
    continuous_update = traitlets.Bool(True).tag(sync=True)
    disabled = traitlets.Bool(False).tag(sync=True)

    value: Any
    min: Any
    max: Any

    def _clamped(self, value: Any) -> Any:
        return min(max(value, self.min), self.max)

    @traitlets.validate("value")
    def _valid_value(self, proposal: Any) -> Any:
        return self._clamped(proposal["value"])

    @traitlets.validate("min")
    def _valid_min(self, proposal: Any) -> Any:
        if proposal["value"] > self.max:  # refused before it is set: the range stays whole
            raise traitlets.TraitError(f"min={proposal['value']!r} is above max={self.max!r}")
        return proposal["value"]

    @traitlets.validate("max")
    def _valid_max(self, proposal: Any) -> Any:
        if proposal["value"] < self.min:
            raise traitlets.TraitError(f"min={self.min!r} is above max={proposal['value']!r}")
        return proposal["value"]

    @traitlets.observe("min", "max")
    def _keep_inside(self, _change: Any) -> None:
        self.value = self._clamped(self.value)

    def set_state(self, sync_data: Any) -> None:
        """Take a state from the page (ipywidgets' entry point), then answer it: once every
        observer of the new value has run (an explorer's redraw has sent its image and
        readout), the page may send the next value (see the front end's comment)."""
        try:
            super().set_state(sync_data)
        finally:
            if "value" in sync_data:
                self.send({"answered": sync_data["value"]})


class IntRange(_Range):
    """A whole-number slider (``value``, ``min``, ``max``, ``step`` are ints)."""

    value = traitlets.Int(0).tag(sync=True)
    min = traitlets.Int(0).tag(sync=True)
    max = traitlets.Int(100).tag(sync=True)
    step = traitlets.Int(1).tag(sync=True)


class FloatRange(_Range):
    """A slider of real numbers (``value``, ``min``, ``max``, ``step`` are floats)."""

    value = traitlets.Float(0.0).tag(sync=True)
    min = traitlets.Float(0.0).tag(sync=True)
    max = traitlets.Float(10.0).tag(sync=True)
    step = traitlets.Float(0.1).tag(sync=True)
