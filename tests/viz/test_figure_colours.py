"""One visual language: each concept one colour and one marker in every figure, taken
from the style kit's concept map (``retrylab.viz.kit.CONCEPTS``), never from a literal."""

from __future__ import annotations

import re
from pathlib import Path

from matplotlib.colors import to_hex

from retrylab.core.backoff import Backoff
from retrylab.viz import backoff, contention, kit
from retrylab.viz.breaker import TIMELINE_KINDS

VIZ = Path(kit.__file__).parent
#: A colour written in a figure module: hex, a Matplotlib cycle or Tableau name, or a
#: named colour passed as a keyword.
LITERAL = re.compile(
    r"""#[0-9A-Fa-f]{6}\b|["']C\d["']|["']tab:\w+["']|"""
    r"""\b(?:colou?r|facecolor|edgecolor|markerfacecolor|markeredgecolor|c)"""
    r"""\s*=\s*["'](?!none\b)[a-z]+["']"""
)


#: A colour taken from the palette by its name (``PALETTE["blue"]``), not by its concept.
PALETTE_INDEX = re.compile(r"\bPALETTE\s*\[")

#: The kit itself, and the modules that draw no figure (the controls' CSS).
NOT_FIGURES = ("kit.py", "png.py", "range.py", "controls.py")


def _lines_matching(pattern: re.Pattern[str]) -> dict[str, str]:
    return {
        f"{path.name}:{n}": line.strip()
        for path in sorted(VIZ.glob("*.py"))
        if path.name not in NOT_FIGURES
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if pattern.search(line.split("#  ")[0])
    }


def test_no_figure_module_writes_a_colour_of_its_own() -> None:
    assert _lines_matching(LITERAL) == {}


def test_no_figure_module_picks_a_palette_colour_by_name() -> None:
    """Every colour of a figure is a concept's (``look(kind, name).colour``, ``INK``): a
    ``PALETTE["..."]`` outside the kit is a colour chosen for one figure only."""
    assert _lines_matching(PALETTE_INDEX) == {}


def test_one_concept_one_colour_across_figures() -> None:
    from retrylab.viz.beyond import BREAKER_COLOURS
    from retrylab.viz.fleet import FleetExplorer

    ex = FleetExplorer()
    assert to_hex(ex.plot.offered.get_color()) == kit.look("load", "sent").colour.lower()
    assert to_hex(ex.plot.served.get_color()) == kit.look("outcome", "served").colour.lower()
    assert BREAKER_COLOURS["rate"] == kit.look("breaker", "rate").colour


def test_every_concept_colour_is_okabe_ito_and_unique_within_its_kind() -> None:
    palette = set(kit.PALETTE.values())
    for kind, looks in kit.CONCEPTS.items():
        colours = [v.colour for v in looks.values()]
        assert set(colours) <= palette, kind
        assert len(set(colours)) == len(colours), kind
        assert len({v.marker for v in looks.values()}) == len(looks), kind


def test_full_jitter_is_the_same_look_in_every_figure() -> None:
    full = kit.look("jitter", "full")
    schedule = backoff.wait_schedule(
        {
            "exponential": Backoff(1000, 2, None),
            "full": Backoff(1000, 2, 30_000, jitter="full"),
            "fixed": Backoff(2000, growth="constant", cap=None),
        },
        retries=4,
        shared=False,
    )
    lines = schedule.retrylab_plot.lines
    assert to_hex(lines["full"].get_color()) == full.colour.lower()
    assert lines["full"].get_marker() == full.marker
    assert (
        to_hex(lines["exponential"].get_color())
        == kit.look("strategy", "exponential").colour.lower()
    )
    assert to_hex(lines["fixed"].get_color()) == kit.look("strategy", "fixed").colour.lower()
    curve = contention.STRATEGY_STYLE["full"]
    assert (curve[0], curve[1]) == (full.colour, full.marker)
    assert TIMELINE_KINDS["failed"][:2] == (
        kit.look("outcome", "failed").marker,
        kit.look("outcome", "failed").colour,
    )
