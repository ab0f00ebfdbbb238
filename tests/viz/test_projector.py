"""The projector switch (issue 34): ``retrylab.viz.projector()`` (or
``RETRYLAB_PROJECTOR=1`` in the kernel's environment) draws every figure so that its
smallest text is 18 px, at the same pixel size as without it, and puts the explorers'
controls, readout and notes in 18 px text.

Measured as tests/test_figure_text_layout.py measures the 14 px floor: Matplotlib's own
text extents, as shown in JupyterLab's 848 px column (at 1024 x 768 with the left
sidebar closed the column is as wide, so the figures are shown at their drawn size), at
every explorer's defaults and each slider's two ends, in English and Turkish.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from test_figure_text_layout import CLASSES, explorer_problems

from retrylab.i18n import language
from retrylab.viz import kit, projector
from retrylab.viz.explorer import Explorer

#: The explorers whose layout (not their text size) does not hold 18 px text yet: labels
#: past the edge, ticks and legends that meet (issue 34). None now: every explorer holds
#: it. One listed here is expected to fail (strict: a test fails once it holds).
CROWDED: frozenset[str] = frozenset()


@pytest.fixture
def projecting() -> Iterator[None]:
    projector(True)
    try:
        yield
    finally:
        projector(False)


def _sizes_and_layout(cls: type[Explorer], lang: str) -> tuple[list[str], list[str]]:
    with language(lang):
        found = explorer_problems(cls, kit.PROJECTOR_MIN_PX)
    lines = [line for problems in found.values() for line in problems]
    small = [line for line in lines if "px as shown" in line]
    return small, [line for line in lines if line not in small]


@pytest.mark.parametrize("lang", ["en", "tr"])
@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_every_text_is_18_px_and_the_figure_keeps_its_size(
    cls: type[Explorer], lang: str, projecting: None
) -> None:
    small, _layout = _sizes_and_layout(cls, lang)
    assert small == []
    ex = cls()
    assert ex.figure is not None and cls.figsize is not None
    size = [round(v) for v in ex.figure.bbox.size]
    assert size == [round(v * kit.DPI) for v in cls.figsize]  # no taller than without it
    assert "retrylab-projector" in ex.widget._dom_classes


@pytest.mark.parametrize("lang", ["en", "tr"])
@pytest.mark.parametrize(
    "cls",
    [
        pytest.param(
            c,
            marks=pytest.mark.xfail(
                c.__name__ in CROWDED, reason="layout too crowded for 18 px", strict=True
            ),
        )
        for c in CLASSES
    ],
    ids=lambda c: c.__name__,
)
def test_no_text_runs_into_another_or_off_the_figure(
    cls: type[Explorer], lang: str, projecting: None
) -> None:
    _small, layout = _sizes_and_layout(cls, lang)
    assert layout == []


def test_the_switch_is_off_by_default_and_the_figures_unchanged() -> None:
    assert not kit.projecting()
    ex = CLASSES[0]()
    assert ex.figure is not None and ex.figure.dpi == kit.DPI
    assert "retrylab-projector" not in ex.widget._dom_classes


def test_the_projector_css_reaches_every_control_text_and_widens_the_number_box() -> None:
    """Seen in Chromium at 1024x768 with the switch on: the checkbox's label (ipywidgets
    puts it in ``.widget-label-basic``, not ``.widget-label``) stayed at 13 px, and the
    68 px number box cut the storm's 60000 clients to "6000(". A page check over every
    explorer (no text under 18 px, no number box narrower than its value) passed after
    this rule, in both languages, at 1024x768 and 1280x800."""
    css = kit.PROJECTOR_CSS
    assert ".retrylab-projector .widget-label-basic" in css
    assert ".retrylab-projector .widget-checkbox span" in css
    widest = max(
        len(str(w.max))
        for cls in CLASSES
        for w in cls.make_controls().values()
        if hasattr(w, "max") and isinstance(w.max, int)
    )
    box = int(css.split("--retrylab-number-width: ")[1].split("px")[0])
    assert ".retrylab-projector .retrylab-controls" in css  # the grid's ch follow the text
    # an 18 px digit is at most about 11 px wide; the box's padding and border take 20
    assert box >= widest * 11 + 20, (widest, box)
