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
#: value. ``input`` events (while dragging, on each key press) send the value only when
#: ``continuous_update`` is on; ``change`` (the handle let go, a key press) always does.
#: Arrow keys and Home/End stay with the slider: JupyterLab would otherwise take them
#: as command-mode shortcuts (ArrowDown: next cell), as it does on a closed <select>.
_ESM = r"""
const KEYS = new Set(['ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown', 'Home', 'End',
                      'PageUp', 'PageDown']);
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
  const sync = () => {
    label.textContent = model.get('description');
    input.setAttribute('aria-label', model.get('description'));
    label.style.width = model.get('description_width');
    input.min = String(model.get('min'));
    input.max = String(model.get('max'));
    input.step = String(model.get('step'));
    input.value = String(model.get('value'));
    input.disabled = model.get('disabled');
    const unit = model.get('unit');
    input.setAttribute('aria-valuetext', unit ? `${input.value} ${unit}` : input.value);
    el.title = model.get('tooltip') || '';
  };
  const send = () => {
    const v = Number(input.value);
    if (Number.isFinite(v) && v !== model.get('value')) {
      model.set('value', v);
      model.save_changes();
    }
  };
  input.addEventListener('input', () => { if (model.get('continuous_update')) send(); });
  input.addEventListener('change', send);
  input.addEventListener('keydown', (e) => { if (KEYS.has(e.key)) e.stopPropagation(); });
  for (const name of ['value', 'min', 'max', 'step', 'description', 'description_width',
                      'disabled', 'unit', 'tooltip']) {
    model.on(`change:${name}`, sync);
  }
  sync();
}
export default { render };
"""

_CSS = """
.retrylab-range { display: flex; align-items: center; gap: 8px; min-width: 0;
                  height: var(--jp-widgets-inline-height, 28px); }
.retrylab-range-label { flex: 0 0 auto; white-space: nowrap; text-align: right;
                        overflow: hidden; text-overflow: ellipsis;
                        font-size: var(--jp-widgets-font-size, 13px);
                        color: var(--jp-widgets-label-color, inherit); }
.retrylab-range-input { flex: 1 1 auto; min-width: 0; margin: 0; cursor: pointer;
                        accent-color: var(--jp-brand-color1, #1976d2); }
.retrylab-range-input:disabled { cursor: not-allowed; opacity: 0.5; }
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
