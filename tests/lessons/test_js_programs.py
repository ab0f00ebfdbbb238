"""The lesson's JavaScript, as the notebooks show it, is the seed's text exactly."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from retrylab.lessons.js_programs import PROGRAMS, Listing, js_program

ROOT = Path(__file__).resolve().parents[2]
# The seeds sit in shared/ beside the repository (as CI lays them); RETRYLAB_SEEDS names
# another folder, e.g. for a checkout in a worktree elsewhere.
CANDIDATES = [Path(os.environ.get("RETRYLAB_SEEDS", ROOT.parent / "shared" / "seeds"))]
SEEDS = next((p for p in CANDIDATES if p.is_dir() and list(p.glob("000_*.txt"))), None)


@pytest.mark.skipif(
    SEEDS is None, reason="the lesson's seed (shared/seeds) is not beside the repository"
)
@pytest.mark.parametrize("name", list(PROGRAMS))
def test_program_is_verbatim_in_the_seed(name: str) -> None:
    assert SEEDS is not None
    text = next(SEEDS.glob("000_*.txt")).read_text(encoding="utf-8")
    program = PROGRAMS[name]
    assert program in text
    lines = text.split("\n")
    first = lines.index(program.split("\n")[0])
    assert lines[first].startswith(f"// {name}")
    # the whole program: the line after it is blank, and then the lesson's output starts
    after = lines[first + len(program.split("\n"))]
    assert after == ""


def test_programs_are_the_lessons_three() -> None:
    assert list(PROGRAMS) == ["geri-cekilme.mjs", "yeniden-deneme.mjs", "devre-kesici.mjs"]
    assert "Math.round(rastgele() * ustel(n))" in PROGRAMS["geri-cekilme.mjs"]
    assert (
        'const GUVENLI_YONTEM = new Set(["GET", "HEAD", "OPTIONS"]);'
        in PROGRAMS["yeniden-deneme.mjs"]
    )
    assert "const ESIK = 3, SOGUMA = 5000;" in PROGRAMS["devre-kesici.mjs"]


def test_excerpt_is_whole_lines_of_the_program() -> None:
    part = js_program("yeniden-deneme.mjs", "function denenirMi", "return false;")
    assert isinstance(part, Listing)
    assert part in PROGRAMS["yeniden-deneme.mjs"]
    assert part.startswith("function denenirMi") and part.endswith("// gövde hatasi, iptal")
    assert repr(part) == str(part)
    assert part._repr_markdown_().startswith("```javascript\nfunction denenirMi")


def test_bad_names_and_markers_are_refused() -> None:
    with pytest.raises(ValueError, match=r"name='retry\.js'"):
        js_program("retry.js")
    with pytest.raises(ValueError, match="start='nowhere'"):
        js_program("devre-kesici.mjs", "nowhere")
    with pytest.raises(ValueError, match="end='nowhere'"):
        js_program("devre-kesici.mjs", "ESIK", "nowhere")
