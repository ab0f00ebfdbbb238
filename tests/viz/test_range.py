"""The range sliders (retrylab.viz.range): the traits the explorers rely on, kernel side.

The browser side (a label that names the input, dragging, keys, focus) is tested in
tests/browser/test_controls.py against a running JupyterLab.
"""

from __future__ import annotations

import ipywidgets as widgets
import pytest
import traitlets

from retrylab.i18n import language
from retrylab.viz.controls import float_slider, int_slider, number_box
from retrylab.viz.range import FloatRange, IntRange


def test_values_are_clamped_into_the_range_as_ipywidgets_sliders_clamp() -> None:
    s = IntRange(value=200, min=50, max=2000, step=50)
    s.value = -5
    assert s.value == 50
    s.value = 10**9
    assert s.value == 2000
    s.max = 1000
    assert s.value == 1000
    s.min = 1000
    assert (s.min, s.value) == (1000, 1000)


def test_constructed_out_of_range_is_clamped_whatever_the_keyword_order() -> None:
    assert IntRange(value=9, min=0, max=5).value == 5
    assert IntRange(max=5, value=9, min=0).value == 5
    assert FloatRange(value=-1.0, min=0.5, max=0.95).value == 0.5


def test_min_above_max_is_refused_with_both_values() -> None:
    s = IntRange(value=1, min=0, max=5)
    with pytest.raises(traitlets.TraitError, match="min=6 is above max=5"):
        s.min = 6
    with pytest.raises(traitlets.TraitError, match="min=0 is above max=-1"):
        s.max = -1
    assert (s.min, s.max, s.value) == (0, 5, 1)  # nothing half-changed


def test_whole_numbers_stay_whole_and_reals_real() -> None:
    i, f = int_slider("clients", 24, 1, 1000), float_slider("factor", 2, 1.0, 4.0)
    assert type(i.value) is int and type(f.value) is float
    f.value = 3  # what the browser sends for 3.0 (JSON has one number type)
    assert f.value == 3.0 and type(f.value) is float
    with pytest.raises(traitlets.TraitError):
        i.value = 2.5


def test_labels_units_and_the_number_box_move_together() -> None:
    base = int_slider("base", 200, 50, 2000, 50)
    assert (base.description, base.unit) == ("base (ms)", "ms")
    assert int_slider("base", 200, 50, 2000, 50, unit="").unit == ""
    assert float_slider("factor", 2.0, 1.0, 4.0).unit == ""
    box = number_box(base)
    assert isinstance(box, widgets.Text) and not box.continuous_update  # taken on Enter
    box.value = "450"
    assert base.value == 450
    base.disabled = True
    assert box.disabled


def test_the_number_box_writes_and_reads_numbers_the_notebooks_way() -> None:
    """Issue 37: Chromium wrote ``<input type=number>`` in the browser's language (``0.2``
    in a Turkish notebook, under a note saying ``0,2``); the box is text the kernel
    writes, and it reads either mark, names a text that is no number, and holds a
    number out of range at the nearer end, saying so."""
    notes: list[str] = []
    with language("tr"):
        rate = float_slider("base_failure", 0.2, 0.0, 0.4, 0.05)
        box = number_box(rate, notes.append)
        assert box.value == "0,2" and rate.decimal_mark == ","
        box.value = "0,35"
        assert rate.value == 0.35 and box.value == "0,35" and notes == []
        box.value = "0.1"  # the English way is understood too, and rewritten
        assert rate.value == 0.1 and box.value == "0,1"
        rate.value = 0.1 + 0.2  # a float's noise is not written
        assert box.value == "0,3"
        box.value = "yarım"
        assert rate.value == 0.1 + 0.2 and box.value == "0,3"
        assert notes[-1].startswith("olağan hata oranı") and "'yarım'" in notes[-1], notes
        box.value = "7"
        assert rate.value == 0.4 and box.value == "0,4"
        assert "7" in notes[-1] and "0 ile 0,4" in notes[-1], notes
        clients = int_slider("clients", 24, 1, 60000)
        number_box(clients).value = "12.000"  # thousands grouped the Turkish way
        assert clients.value == 12000
    with language("en"):
        assert float_slider("factor", 2.5, 1.0, 4.0).decimal_mark == "."


def test_the_front_end_names_the_input_by_its_label_and_keeps_its_keys() -> None:
    esm = IntRange()._esm
    assert "label.htmlFor = id" in esm and "input.type = 'range'" in esm
    assert "setAttribute('aria-label', model.get('description'))" in esm
    assert "aria-valuetext" in esm and "stopPropagation" in esm
    assert "continuous_update" in esm and "'change'" in esm


def test_the_kernel_answers_a_value_from_the_page_after_its_observers_ran() -> None:
    """The page sends a dragged value only once the last one is answered: the answer
    comes after every observer of the value (an explorer's redraw) has run, so the
    image and readout it sent are ahead of it."""
    s = IntRange(value=200, min=50, max=2000, step=50)
    events: list[object] = []
    s.observe(lambda change: events.append(("redraw", change["new"])), names="value")
    s.send = lambda content, buffers=None: events.append(content)  # type: ignore[method-assign]
    s.set_state({"value": 450})  # what a move on the page sends
    assert events == [("redraw", 450), {"answered": 450}]
    s.set_state({"description": "base"})  # not a value: nothing to answer
    assert events[-1] == {"answered": 450} and len(events) == 2


def test_every_slider_follows_the_hand() -> None:
    """The factories make every slider send while dragged (issue 34), and no caller can
    ask for release-only (the argument that was accepted and ignored is gone); the front
    end gates the sends on the kernel's answer."""
    assert int_slider("clients", 24, 1, 10000).continuous_update
    assert float_slider("slow", 0.02, 0.0, 0.1, 0.01).continuous_update
    with pytest.raises(TypeError, match="continuous_update"):
        int_slider("clients", 24, 1, 10000, continuous_update=False)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="continuous_update"):
        float_slider("slow", 0.02, 0.0, 0.1, continuous_update=False)  # type: ignore[call-arg]
    esm = IntRange()._esm
    assert "msg:custom" in esm and "answered" in esm and "waiting = v" in esm
