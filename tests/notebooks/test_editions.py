"""The student edition gives no answer away; the instructor edition holds every answer.

Two levels: the cells each edition is made of (from the sources, always
checked), and the outputs of the committed, executed notebooks (checked when
they are built: after a rebuild, before a release).
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
from _tools import load_tool

from retrylab.lessons.names import FIELDS, ROUTES

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted((ROOT / "notebooks" / "src").glob("*.md"))
IDS = [p.stem for p in SOURCES]

builder = load_tool("build_notebooks")
STUDENT, INSTRUCTOR = builder.STUDENT, builder.INSTRUCTOR
CHECK = re.compile(r"^\s*(check_\w+)\(", re.M)


def tags(cell: nbformat.NotebookNode) -> set[str]:
    return set(cell.metadata.get("tags", []))


#: Shorter lines (``waits = []``, ``return False``) are too common to count as a leak.
MIN_LEAK = 16


def code_lines(text: str) -> set[str]:
    """The telling lines of a code cell (no short ones, comments, imports or bare checks)."""
    out = set()
    for line in text.splitlines():
        s = line.split("#", 1)[0].strip()
        if len(s) >= MIN_LEAK and not s.startswith(("from ", "import ")) and not CHECK.match(s):
            out.add(s)
    return out


def text_of(cell: nbformat.NotebookNode) -> str:
    parts = []
    for out in cell.get("outputs", []):
        if "text" in out:
            parts.append(out["text"])
        for kind in ("text/plain", "text/html", "text/markdown"):
            if kind in out.get("data", {}):
                parts.append(out["data"][kind])
    return "\n".join(parts)


# -- the cells of each edition ---------------------------------------------------------


@pytest.mark.parametrize("src", SOURCES, ids=IDS)
def test_student_edition_has_no_solution(src: Path) -> None:
    full = builder.parse(src.read_text())
    student = builder.edition_notebook(full, STUDENT)
    assert not [c for c in student.cells if "solution" in tags(c)]
    shown = set().union(*(code_lines(c.source) for c in student.cells if c.cell_type == "code"))
    cells = full.cells
    for i, cell in enumerate(cells):
        if "solution" not in tags(cell):
            continue
        if cell.cell_type == "markdown":
            assert cell.source not in {c.source for c in student.cells}
            continue
        scaffold = code_lines(cells[i - 1].source)
        leaked = (code_lines(cell.source) - scaffold) & shown
        assert not leaked, f"{src.stem} cell {i}: the student edition shows {sorted(leaked)}"


@pytest.mark.parametrize("src", SOURCES, ids=IDS)
def test_every_scaffold_has_its_solution(src: Path) -> None:
    full = builder.parse(src.read_text())
    instructor = builder.edition_notebook(full, INSTRUCTOR)
    assert not [c for c in instructor.cells if "scaffold" in tags(c)]
    kept = {c["id"] for c in instructor.cells}
    for i, cell in enumerate(full.cells):
        if "scaffold" not in tags(cell):
            continue
        after = full.cells[i + 1] if i + 1 < len(full.cells) else None
        assert after is not None and "solution" in tags(after), (
            f"{src.stem} cell {i}: a scaffold without a solution right after it"
        )
        assert after["id"] in kept
        assert CHECK.findall(cell.source) == CHECK.findall(after.source), (
            f"{src.stem} cell {i}: the scaffold and its solution call different checkers"
        )
        assert "..." in cell.source


@pytest.mark.parametrize("src", SOURCES, ids=IDS)
def test_no_untagged_cell_calls_a_checker(src: Path) -> None:
    """A checker called outside a scaffold/solution pair would print an answer to both."""
    for i, cell in enumerate(builder.parse(src.read_text()).cells):
        if cell.cell_type == "code" and CHECK.search(cell.source):
            assert tags(cell) & {"scaffold", "solution"}, f"{src.stem} cell {i}"


def cell(text: str, meta: str = "") -> str:
    """A MyST code cell (``meta``: its option lines, e.g. ``:tags: [solution]``)."""
    return "```{code-cell}\n" + (meta + "\n\n" if meta else "") + text + "\n```\n"


EXERCISE = cell(
    "### BEGIN STUB\nx = ...\n### END STUB\n### BEGIN SOLUTION\nx = 1\n### END SOLUTION"
)


def test_the_language_mechanism() -> None:
    text = "\n".join(
        [
            "Hello",
            "",
            '+++ {"tags": ["tr"]}',
            "",
            "Merhaba",
            "",
            EXERCISE,
            '+++ {"tags": ["solution"]}',
            "",
            "Because.",
            "",
            '+++ {"tags": ["tr"]}',
            "",
            "Çünkü.",
            "",
        ]
    )
    full = builder.parse(text)
    tr_student = builder.Edition("student-tr", "tr", frozenset({"solution"}), "tr")
    tr_solutions = builder.Edition("instructor-tr", "tr/solutions", frozenset({"scaffold"}), "tr")
    seen = {
        e.name: [c.source for c in builder.edition_notebook(full, e).cells]
        for e in (STUDENT, INSTRUCTOR, tr_student, tr_solutions)
    }
    assert seen == {
        "student": ["Hello", "x = ..."],
        "instructor": ["Hello", "x = 1", "Because."],
        "student-tr": ["Merhaba", "x = ..."],
        "instructor-tr": ["Merhaba", "x = 1", "Çünkü."],
    }
    ids = [c["id"] for c in builder.edition_notebook(full, tr_solutions).cells]
    assert ids == [c["id"] for c in builder.edition_notebook(full, INSTRUCTOR).cells]
    student = builder.edition_notebook(full, STUDENT).cells
    assert [c["id"] for c in student] == [ids[0], ids[1].removesuffix("-s")]
    assert [c.metadata.get("tags") for c in student] == [None, ["scaffold"]]
    tagged = builder.edition_notebook(full, tr_solutions).cells
    assert [c.metadata.get("tags") for c in tagged] == [None, ["solution"], ["solution"]]


def test_inserting_a_cell_changes_no_other_cells_id() -> None:
    """Ids come from what a cell is, not where: one new cell renumbers nothing."""
    text = builder.source("02_computing_the_wait").read_text()
    before = builder.parse(text)
    at = text.index("```{code-cell}")  # before the first code cell
    inserted = text[:at] + "+++\n\nA new paragraph.\n\n" + cell("x = 1") + "\n" + text[at:]
    after = builder.parse(inserted)
    new = {c["id"]: c.source for c in after.cells}
    assert len(after.cells) == len(before.cells) + 2
    assert all(new.get(c["id"]) == c.source for c in before.cells)
    for edition in (*builder.EDITIONS,):
        ids = [c["id"] for c in builder.edition_notebook(before, edition).cells]
        again = [c["id"] for c in builder.edition_notebook(after, edition).cells]
        assert [i for i in again if i in set(ids)] == ids, edition.name
        assert len(set(again)) == len(again), f"{edition.name}: ids are unique"


@pytest.mark.parametrize(
    "bad",
    [
        '+++ {"tags": ["tr"]}\n\nMerhaba\n',  # nothing to replace
        cell("x = 1") + '\n+++ {"tags": ["tr"]}\n\nMerhaba\n',  # after code
        "Hi\n\n" + cell("x = 1", ":tags: [tr]"),  # code after markdown
        EXERCISE + "\n" + cell("x = 2", ":tags: [tr]"),  # an exercise
        cell("x = 1") + "\n" + cell("x = 2", ":tags: [solution]"),  # no exercise before
        cell("x = 1", ":tags: [answer]"),  # unknown tag
        cell("x = 1", ":tags: [test]"),  # a page check: tests/notebooks/test_page_checks.py
        cell("x = ...", ":tags: [scaffold]") + "\n" + cell("x = 1", ":tags: [solution]"),
        cell("### BEGIN SOLUTION\nx = 1"),  # a region not closed
        cell("x = 1\n### END STUB"),  # a marker outside its region
        EXERCISE.replace("```{code-cell}\n", "```{code-cell}\n:tags: [solution]\n\n"),
    ],
)
def test_bad_sources_are_refused(bad: str) -> None:
    with pytest.raises(SystemExit):
        builder.parse(bad)


# -- the committed, executed notebooks -------------------------------------------------


def committed(edition: object, src: Path) -> nbformat.NotebookNode:
    path = edition.path(src.stem)  # type: ignore[attr-defined]
    if not path.exists():
        pytest.skip(
            f"{path.relative_to(ROOT)} is not built "
            "(tests/notebooks/test_notebooks_built.py reports it)"
        )
    return nbformat.read(path, as_version=4)


@pytest.mark.parametrize("src", SOURCES, ids=IDS)
def test_student_outputs_give_nothing_away(src: Path) -> None:
    nb = committed(STUDENT, src)
    for cell in nb.cells:
        out = text_of(cell)
        assert "Correct:" not in out and "Correct</b>" not in out, (
            f"{src.stem} cell {cell.get('id')}: a 'Correct' in the student edition"
        )
        if "scaffold" in tags(cell) and CHECK.search(cell.source):
            assert "Not yet" in out, f"{src.stem} cell {cell.get('id')}: no 'Not yet' prompt"


@pytest.mark.parametrize("src", SOURCES, ids=IDS)
def test_instructor_shows_correct_for_every_checked_exercise(src: Path) -> None:
    nb = committed(INSTRUCTOR, src)
    for cell in nb.cells:
        if "solution" in tags(cell) and cell.cell_type == "code" and CHECK.search(cell.source):
            assert "Correct:" in text_of(cell), (
                f"{src.stem} cell {cell.get('id')}: the solution does not show 'Correct'"
            )


@pytest.mark.parametrize("src", SOURCES, ids=IDS)
def test_turkish_editions_differ_only_in_prose_and_the_language_cell(src: Path) -> None:
    """Code cells of a Turkish edition are the English ones, but for the language cell."""
    full = builder.parse(src.read_text())
    for en, tr in (
        (builder.STUDENT, builder.STUDENT_TR),
        (builder.INSTRUCTOR, builder.INSTRUCTOR_TR),
    ):
        a, b = builder.edition_notebook(full, en), builder.edition_notebook(full, tr)
        assert [c.cell_type for c in a.cells] == [c.cell_type for c in b.cells]
        assert [c["id"] for c in a.cells] == [c["id"] for c in b.cells]
        language = [i for i, c in enumerate(a.cells) if "language" in tags(c)]
        assert len(language) == 1, f"{src.name}: one language cell, not {len(language)}"
        for i, (x, y) in enumerate(zip(a.cells, b.cells, strict=True)):
            if x.cell_type != "code":
                if x.source.strip():
                    assert x.source != y.source, (
                        f"{src.name}: markdown cell {x['id']} has no Turkish twin"
                    )
                continue
            if i in language:
                assert 'set_language("en")' in x.source
                assert y.source == x.source.replace('set_language("en")', 'set_language("tr")')
            else:
                assert y.source in (x.source, in_lesson_words(x.source)), (
                    f"{src.name}: code cell {x['id']} differs in more than the lesson's "
                    "routes and field names"
                )


def in_lesson_words(source: str) -> str:
    """An English code cell's quoted routes and field names as the seed lesson names them
    (retrylab.lessons.names): what a Turkish code twin may change, and all it may."""
    for english, turkish in (*ROUTES.items(), *FIELDS.items()):
        source = re.sub(rf'(["\']){re.escape(english)}\1', rf"\g<1>{turkish}\g<1>", source)
    return source


def test_a_code_twin_changes_only_the_lesson_words() -> None:
    english = 'lab.script("POST", "/measurements")\nsend({"value": 1, "ref": "x"}, "value")\n'
    assert in_lesson_words(english) == (
        'lab.script("POST", "/olcumler")\nsend({"deger": 1, "ref": "x"}, "deger")\n'
    )
    full = builder.parse(
        'Hi\n\n+++ {"tags": ["tr"]}\n\nMerhaba\n\n'
        + cell('url = "/measurements"')
        + "\n"
        + cell('url = "/olcumler"', ":tags: [tr]")
    )
    tr = builder.edition_notebook(full, builder.STUDENT_TR)
    en = builder.edition_notebook(full, builder.STUDENT)
    assert [c.source for c in tr.cells] == ["Merhaba", 'url = "/olcumler"']
    assert [c.source for c in en.cells] == ["Hi", 'url = "/measurements"']
    assert [c["id"] for c in tr.cells] == [c["id"] for c in en.cells]


@pytest.mark.parametrize("src", SOURCES, ids=IDS)
def test_in_notebook_links_land_on_a_heading_in_every_edition(src: Path) -> None:
    full = builder.parse(src.read_text())
    for edition in builder.EDITIONS:
        nb = builder.edition_notebook(full, edition)
        anchors = {
            builder._anchor(h)
            for c in nb.cells
            if c.cell_type == "markdown"
            for h in builder._headings(c.source)
        }
        for c in nb.cells:
            for target in re.findall(
                r"\]\(#([^)]+)\)", c.source if c.cell_type == "markdown" else ""
            ):
                assert target in anchors, (
                    f"{src.stem} [{edition.name}]: link #{target} has no heading"
                )


@pytest.mark.parametrize("src", SOURCES, ids=IDS)
def test_test_code_stays_out_of_every_edition(src: Path) -> None:
    """The page's own checks (asserts on an explorer's readout, figure or message) are
    test code: they live in tests/notebooks/test_page_checks.py, and no edition shows one in
    a reader's flow."""
    full = builder.parse(src.read_text())
    for edition in builder.EDITIONS:
        nb = builder.edition_notebook(full, edition)
        asserts = [
            c.source.splitlines()[0]
            for c in nb.cells
            if c.cell_type == "code" and re.search(r"^\s*assert ", c.source, re.M)
        ]
        assert asserts == [], f"{src.name} [{edition.name}]: test code in sight: {asserts}"
