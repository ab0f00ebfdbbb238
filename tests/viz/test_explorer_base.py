"""Every explorer, by construction: the same PNG bytes however a setting is reached (a
step or a fresh draw, in English and in Turkish), text no smaller than the projector
floor where it is made, and no helper process in the kernel."""

from __future__ import annotations

import inspect
import multiprocessing
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from matplotlib.figure import Figure
from matplotlib.text import Text

from retrylab.i18n import language
from retrylab.viz import backoff, beyond, breaker, contention, fleet, herd
from retrylab.viz.catalog import explorer_classes
from retrylab.viz.controls import neighbours, shown_value
from retrylab.viz.explorer import Explorer
from retrylab.viz.kit import MIN_FONT_PX
from retrylab.viz.range import FloatRange, IntRange

CLASSES = explorer_classes()


def _steps(cls: type[Explorer]) -> Iterator[tuple[str, Any]]:
    """Every single key press from the defaults: each control one step either way."""
    for name, control in cls.make_controls().items():
        for value in neighbours(control):
            yield name, value


@pytest.mark.parametrize("lang", ["en", "tr"])
@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_a_step_draws_the_bytes_a_fresh_explorer_draws(cls: type[Explorer], lang: str) -> None:
    """The saved backgrounds and the redraw cache serve only what a fresh draw makes."""
    with language(lang):
        moved = cls()
        defaults = moved.values
        if moved.figure is None:
            pytest.skip("text only: no image")
        for name, value in _steps(cls):
            moved.set(**{name: value})
            fresh = cls(**{name: value})
            assert moved.message == fresh.message, f"{name}={value!r}"
            assert moved.png == fresh.png, f"{cls.__name__}: {name}={value!r} in {lang}"
            moved.set(**{name: defaults[name]})


def _shown(t: Text) -> bool:
    """Whether ``t`` is drawn: visible, with text, and not a tick label of an axis turned off."""
    if not (t.get_visible() and t.get_text()):
        return False
    ax = t.axes
    return ax is None or ax.axison or t in ax.texts or t is ax.title


def _small_texts(fig: Figure) -> list[str]:
    fig.canvas.draw()  # type: ignore[no-untyped-call]
    floor_pt = MIN_FONT_PX * 72 / fig.dpi
    hidden = {
        id(t)
        for ax in fig.axes
        if not ax.axison
        for axis in (ax.xaxis, ax.yaxis)
        for t in axis.findobj(Text)
    }
    return sorted(
        {
            f"{t.get_text()!r} at {t.get_fontsize():.2f} pt"
            for t in fig.findobj(Text)
            if id(t) not in hidden
            if _shown(t) and float(t.get_fontsize()) < floor_pt - 1e-9
        }
    )


#: The figure modules whose default figures these tests check.
FIGURE_MODULES = (backoff, herd, breaker, fleet, contention, beyond)


def _default_figures() -> Iterator[tuple[str, Figure]]:
    for mod in FIGURE_MODULES:
        for name, fn in inspect.getmembers(mod, inspect.isfunction):
            if fn.__module__ != mod.__name__ or name.startswith("_"):
                continue
            params = inspect.signature(fn).parameters.values()
            if any(
                p.default is inspect.Parameter.empty
                and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
                for p in params
            ):
                continue
            if inspect.signature(fn).return_annotation not in (Figure, "Figure"):
                continue
            yield f"{mod.__name__}.{name}", fn()
    counts = pd.DataFrame(
        {"key": [1000, 0, 2], "unsafe": [1000, 249, 2]},
        index=["writes", "duplicates", "unacknowledged"],
    )
    yield "retry_after_bars", backoff.retry_after_bars([70, 184, 592, 1402], 2000)
    yield "wait_histogram", backoff.wait_histogram([70, 296, 780, 303, 480, 957], 200)
    yield "write_bars", backoff.write_bars(counts, 0.2)


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_every_explorer_text_is_at_least_14_px(cls: type[Explorer]) -> None:
    ex = cls()
    if ex.figure is None:
        pytest.skip("text only: no image")
    assert _small_texts(ex.figure) == []


def test_every_default_figure_text_is_at_least_14_px() -> None:
    small = {name: _small_texts(fig) for name, fig in _default_figures()}
    assert small and {k: v for k, v in small.items() if v} == {}


def test_a_kernel_that_shows_every_explorer_starts_no_process() -> None:
    before = set(_children(os.getpid()))  # what other tests in this session started
    for cls in CLASSES:
        ex = cls()
        ex._repr_mimebundle_()
        for name, value in list(_steps(cls))[:4]:
            ex.set(**{name: value})
    assert multiprocessing.active_children() == []
    assert sorted(set(_children(os.getpid())) - before) == []


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (from /proc; none where there is no /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # ended while we looked
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


@pytest.mark.parametrize("lang", ["en", "tr"])
@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_every_slider_has_a_named_number_box_and_its_ends_a_note(
    cls: type[Explorer], lang: str
) -> None:
    """Issue 25: each numeric slider's value sits in a box a screen reader names by the
    slider's label (its tooltip, a title); the box and the slider move together; a
    slider at an end of its range is named in the limit note before any key press."""
    with language(lang):
        ex = cls()
        sliders = {n: w for n, w in ex.controls.items() if hasattr(w, "step")}
        assert set(ex.number_boxes) == set(sliders)
        for name, slider in sliders.items():
            box = ex.number_boxes[name]
            assert box.description == box.placeholder == slider.description
            assert box.value == shown_value(slider)  # written as the notebook writes numbers
            assert isinstance(slider, IntRange | FloatRange)  # its label names its input
        for name, slider in sliders.items():
            if slider.disabled:
                assert ex.number_boxes[name].disabled
                continue
            ex.number_boxes[name].value = shown_value(slider, slider.max)  # typed in the box
            assert slider.value == slider.max
            assert slider.description in ex.limit_widget.value, (name, ex.limit_widget.value)
            ex.set(**{name: cls.default_values()[name]})
            break


def _ends(cls: type[Explorer]) -> list[dict[str, Any]]:
    """Every slider at its minimum and at its maximum in turn (the others at their
    defaults), and each :attr:`Explorer.ceilings` pair crossed at its ends (the bounded
    slider at its maximum, its ceiling at its minimum)."""
    controls = cls.make_controls()
    sliders = {n: w for n, w in controls.items() if hasattr(w, "min") and hasattr(w, "step")}
    cases = [{name: end} for name, w in sliders.items() for end in (w.min, w.max)]
    cases += [
        {low: sliders[low].max, high: sliders[high].min}
        for low, high in cls.ceilings.items()
        if {low, high} <= set(sliders)
    ]
    return cases


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_every_end_a_drag_can_reach_draws_or_explains_itself(cls: type[Explorer]) -> None:
    """Issue 34: a drag can reach any end of any slider, and past a ceiling (the storm's
    base past its cap of 1000 ms): each draws (no message, no error: the figure stays
    right) and its readout is the package's; a setting past a ceiling is drawn capped
    and the limit line says so, naming both sliders."""
    ex = cls()
    ex.on_page()  # as displayed: every setting renders
    defaults = cls.default_values()
    for case in _ends(cls):
        ex.set(**case)
        where = f"{cls.__name__} at {case}"
        assert ex.message == "" and ex.error == "", (where, ex.message, ex.error)
        assert ex.readout == cls.readout_for(**case), where
        crossed = [
            (low, high)
            for low, high in cls.ceilings.items()
            if {low, high} <= set(ex.values) and ex.values[low] > ex.values[high]
        ]
        for low, high in crossed:
            names = (ex.controls[low].description, ex.controls[high].description)
            assert all(n in ex.note for n in names), (where, ex.note)
        ex.set(**{name: defaults[name] for name in case})


@pytest.mark.parametrize("lang", ["en", "tr"])
@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_every_control_says_its_words_and_unit_and_keeps_its_code_name_as_tooltip(
    cls: type[Explorer], lang: str
) -> None:
    """Issue 34: a label is words a person reads ("failure rate, healthy (0–1)", Turkish
    «olağan hata oranı (0–1)»), never the code's ``base_failure`` or ``k``; the code's
    name, as ``Explorer.set`` takes it, is the tooltip; a slider whose parameter has a
    unit shows it."""
    from retrylab.viz.controls import UNITS

    with language(lang):
        for name, control in cls.make_controls().items():
            label = control.description
            assert control.tooltip == name, (name, control.tooltip)
            code_like = "_" in label or (label == name and len(name) <= 2)
            assert not code_like, (name, label)
            if name in UNITS and hasattr(control, "step") and control.unit:
                assert label.endswith(f" ({control.unit})"), (name, label)
