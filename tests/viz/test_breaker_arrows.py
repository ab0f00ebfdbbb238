"""The breaker's state diagram, the course's central picture: no arrow runs through a
label. The text-layout tests measure text against text and nodes, not against the
arrows' curves; here every arrow's path, as Matplotlib draws it, stays at least
:data:`CLEAR_PX` from every label, in the explorer (its defaults and each slider's ends)
and the static figure, in English and Turkish, with the projector switch on and off.

Before: "trial failed" and "trial succeeded" touched their own arrows in most states
(and in every Turkish one), and the Turkish cooldown label touched its arrow with the
switch on.
"""

from __future__ import annotations

from typing import Any

import _projector
import pytest
from matplotlib.figure import Figure

from retrylab.i18n import language
from retrylab.viz.breaker import NODE_GID, BreakerExplorer, breaker_diagram

switch = _projector.switch  # the projector switch, off then on (a fixture)

#: How far (display px) every point of an arrow stays from every label's box.
CLEAR_PX = 4.0

SETTINGS: tuple[dict[str, int], ...] = (
    {},
    {"threshold": 1},
    {"threshold": 6},
    {"cooldown": 0},
    {"cooldown": 10000},
    {"step": 9},
)


def arrows_through_labels(fig: Figure, ax: Any) -> list[str]:
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    labels = [t for t in ax.texts if t.get_text().strip() and t.get_gid() != NODE_GID]
    found = []
    for (source, target), arrow in ax.retrylab_arrows.items():
        patch = arrow.arrow_patch
        path = patch.get_transform().transform_path(patch.get_path()).interpolated(20)
        for label in labels:
            box = label.get_window_extent(renderer).padded(CLEAR_PX)
            if any(box.contains(x, y) for x, y in path.vertices):
                text = label.get_text().replace("\n", " ")
                found.append(f"{source.value} -> {target.value} runs through {text!r}")
    return found


@pytest.mark.parametrize("lang", ["en", "tr"])
def test_no_arrow_runs_through_a_label_in_the_explorer(lang: str, switch: bool) -> None:
    problems = []
    with language(lang):
        for values in SETTINGS:
            ex = BreakerExplorer(**values)
            found = arrows_through_labels(ex.figure, ex.plot.diagram)
            problems += [f"{values}: {p}" for p in found]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("lang", ["en", "tr"])
def test_no_arrow_runs_through_a_label_in_the_static_diagram(lang: str, switch: bool) -> None:
    with language(lang):
        fig = breaker_diagram(threshold=3, cooldown=5000)
        assert not arrows_through_labels(fig, fig.axes[0])
