"""The nbgrader course (classroom/nbgrader): built from the sources, and graded by nbgrader.

Here nbgrader's ``generate_assignment`` runs in a temporary course directory: the
release holds no solution and no hidden test, its answer cells are the student
edition's scaffolds and its checker-import cells are locked. Grading itself (in the
sandbox, with cheats) is tests/classroom/test_grading.py.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from _course import copy_config
from _tools import load_tool

nbgrader = pytest.importorskip("nbgrader", reason="nbgrader is in the classroom and test extras")

ROOT = Path(__file__).resolve().parents[2]
COURSE = ROOT / "classroom" / "nbgrader"
SOURCES = sorted((ROOT / "notebooks" / "src").glob("*.md"))

builder = load_tool("build_notebooks")

GRADED = [s for s in SOURCES if builder.has_exercises(builder.parse(s.read_text()))]
GRADED_IDS = [s.stem for s in GRADED]


def cells(nb: nbformat.NotebookNode) -> list[tuple[str, str, object]]:
    return [(c.cell_type, c.source, c.metadata.get("nbgrader")) for c in nb.cells]


def test_the_course_holds_every_notebook_with_exercises() -> None:
    built = sorted(p.stem for p in builder.NBGRADER.out.glob("*.ipynb"))
    assert built == GRADED_IDS, "run python tools/build_notebooks.py --edition nbgrader"
    assert len(GRADED) >= 10


@pytest.mark.parametrize("src", GRADED, ids=GRADED_IDS)
def test_course_notebook_matches_its_source(src: Path) -> None:
    path = builder.NBGRADER.path(src.stem)
    committed = nbformat.read(path, as_version=4)
    expected = builder.make_notebook(src.stem, builder.NBGRADER)
    assert cells(committed) == cells(expected), (
        f"{path.relative_to(ROOT)} is stale: run python tools/build_notebooks.py "
        f"--edition nbgrader {src.stem}"
    )
    assert all(not c.get("outputs") for c in committed.cells if c.cell_type == "code")


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    # nbgrader runs alembic (its database migrations) from the interpreter's bin/
    env["PATH"] = os.pathsep.join((str(Path(sys.executable).parent), env.get("PATH", "")))
    done = subprocess.run(
        [sys.executable, "-m", "nbgrader", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A temporary course: the repository's config, every notebook released."""
    root = tmp_path_factory.mktemp("course")
    copy_config(COURSE, root)
    shutil.copytree(builder.NBGRADER.out, root / "source" / builder.NBGRADER_ASSIGNMENT)
    _run(["generate_assignment", builder.NBGRADER_ASSIGNMENT, "--force"], root)
    return root


def _release(course: Path, stem: str) -> nbformat.NotebookNode:
    return nbformat.read(
        course / "release" / builder.NBGRADER_ASSIGNMENT / f"{stem}.ipynb", as_version=4
    )


@pytest.mark.parametrize("src", GRADED, ids=GRADED_IDS)
def test_release_shows_no_solution_and_matches_the_student_scaffolds(
    course: Path, src: Path
) -> None:
    release = _release(course, src.stem)
    student = builder.edition_notebook(builder.parse(src.read_text()), builder.STUDENT)
    scaffolds = [c.source for c in student.cells if "scaffold" in c.metadata.get("tags", [])]
    source = nbformat.read(builder.NBGRADER.path(src.stem), as_version=4)
    assert "BEGIN SOLUTION" in "".join(c.source for c in source.cells)
    answers = [
        c
        for c in release.cells
        if c.metadata.get("nbgrader", {}).get("solution") and c.cell_type == "code"
    ]
    assert len(answers) == len(scaffolds) > 0
    for answer, scaffold in zip(answers, scaffolds, strict=True):
        stub = scaffold.rstrip().rsplit("\n", 1)[0].rstrip() if "\n" in scaffold else ""
        # the same lines, but for the empty stub line where a region began or ended a cell
        assert answer.source.strip("\n") == stub, f"{src.stem}: {answer.source!r} != {stub!r}"
    text = "\n".join(c.source for c in release.cells)
    assert "BEGIN SOLUTION" not in text
    opens = [
        c
        for c in release.cells
        if c.cell_type == "markdown" and c.metadata.get("nbgrader", {}).get("solution")
    ]
    assert all(c.source == "YOUR ANSWER HERE" for c in opens)
    assert len(opens) == sum(
        1
        for c in source.cells
        if c.cell_type == "markdown" and c.metadata.get("nbgrader", {}).get("solution")
    )
    graded = [c.metadata["nbgrader"] for c in release.cells if "nbgrader" in c.metadata]
    tests = [m for m in graded if m["grade"] and not m["solution"]]
    assert tests and all(m["locked"] and m["points"] > 0 for m in tests)


def test_release_hides_the_hidden_tests_and_locks_the_checker_imports(course: Path) -> None:
    for src in GRADED:
        source = nbformat.read(builder.NBGRADER.path(src.stem), as_version=4)
        release = _release(course, src.stem)
        tests = [
            c
            for c in source.cells
            if c.metadata.get("nbgrader", {}).get("grade") and c.cell_type == "code"
        ]
        assert tests and all("### BEGIN HIDDEN TESTS" in c.source for c in tests)
        text = "\n".join(c.source for c in release.cells)
        assert "HIDDEN TESTS" not in text and "EXPECTED" not in text
        imports = [
            c
            for c in release.cells
            if c.cell_type == "code"
            and builder.CHECKER_IMPORT.search(c.source)
            and not c.metadata.get("nbgrader", {}).get("solution")
        ]
        # (09 imports each checker in its answer cell: nothing to lock there)
        assert imports or src.stem.startswith("09"), src.stem
        assert all(c.metadata["nbgrader"]["locked"] for c in imports), src.stem


def test_every_graded_exercise_has_its_expected_value() -> None:
    expected = load_tool("hidden_tests").expected_values()
    for src in GRADED:
        for cell in builder.make_notebook(src.stem, builder.NBGRADER).cells:
            grade_id = cell.metadata.get("nbgrader", {}).get("grade_id", "")
            if grade_id.startswith("test_"):
                check = grade_id.removeprefix("test_")
                kind = load_tool("hidden_tests").probe(check).kind
                assert kind == "checker" or check in expected, check
