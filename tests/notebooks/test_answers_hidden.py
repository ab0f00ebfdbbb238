"""No checked answer is printed, stated or one lookup away above its exercise.

``tests/_answers.py`` lists, in ``ANSWERS``, by checker module, the forms in which
the page could show what a closed exercise's checker accepts (a table checker with
no entry: the value its table wants, as printed). This test builds each
notebook's student edition in memory from ``notebooks/src`` (the markdown as a student reads it) and
takes the outputs of the executed student notebooks: those committed in
``notebooks/`` (only for cells whose source is unchanged since they were built),
or a fresh build given by ``RETRYLAB_EXECUTED=/some/folder`` (the folder holding
``NN_name.ipynb`` files, e.g. built into /tmp with tools/build_notebooks.py). It
fails when an answer appears in a markdown cell or an output above the cell
that calls its checker.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from _answers import ANSWERS
from _tools import load_tool

ROOT = Path(__file__).resolve().parents[2]
build_tool = load_tool("build_notebooks")

#: Every notebook with a checked exercise (a cell calling ``check_...(``), by stem.
NOTEBOOKS = sorted(
    path.stem
    for path in build_tool.sources()
    if re.search(r"^\s*check_\w+\(", path.read_text(), re.M)
)


def imported_checkers(stem: str) -> dict[str, str]:
    """checker name -> the exercises module the notebook imports it from."""
    tree = ast.parse(build_tool.as_python(build_tool.source(stem).read_text()))
    found: dict[str, str] = {}
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.ImportFrom)
            and node.module
            and node.module.startswith("retrylab.exercises.")
        ):
            for alias in node.names:
                found[alias.name] = node.module.rsplit(".", 1)[1]
    return found


def called_checkers(stem: str) -> set[str]:
    """The checkers the student edition of ``stem`` calls."""
    return {
        name
        for _id, _read, src in page(stem)
        for name in re.findall(r"^\s*(check_\w+)\(", src, re.M)
    }


def answers_of(stem: str) -> dict[str, tuple[str, ...]]:
    """The ANSWERS entries of every checker the notebook calls, from its modules."""
    modules = imported_checkers(stem)
    out: dict[str, tuple[str, ...]] = {}
    for name in sorted(called_checkers(stem)):
        assert name in modules, f"{stem}: {name} is called but not imported from an ex module"
        answers = ANSWERS.get(modules[name], {})
        found = answers.get(name, table_answer(modules[name], name))
        assert found is not None, (
            f"{stem}: tests/_answers.py ANSWERS[{modules[name]!r}] has no "
            f"entry for {name} (give its printable forms, or () for a "
            "design or build-it exercise)"
        )
        out[name] = found
    return out


def table_answer(module: str, name: str) -> tuple[str, ...] | None:
    """A table checker's answer as printed (``str`` of the value its table wants), for a
    checker with no ANSWERS entry; None if ``name`` judges no one table of plain value.

    >>> table_answer("ex06", "check_layered")
    ('81',)
    """
    from retrylab.exercises.table import Exercise

    mod = importlib.import_module(f"retrylab.exercises.{module}")
    fn = inspect.unwrap(getattr(mod, name))
    tables = [
        getattr(mod, n) for n in fn.__code__.co_names if isinstance(getattr(mod, n, None), Exercise)
    ]
    if len(tables) != 1:
        return None
    want = tables[0].want(tables[0].inputs())
    return (str(want),) if isinstance(want, (int, float, str)) else None


def executed(stem: str) -> dict[str, tuple[str, str]]:
    """cell id -> (source, text of its outputs) from the executed student notebook."""
    folder = Path(os.environ.get("RETRYLAB_EXECUTED", ROOT / "notebooks"))
    path = folder / f"{stem}.ipynb"
    if not path.exists():
        return {}
    nb = json.loads(path.read_text())
    out: dict[str, tuple[str, str]] = {}
    for cell in nb["cells"]:
        texts = []
        for o in cell.get("outputs", []):
            data = o.get("data", {})
            for key in ("text",):
                if key in o:
                    texts.append("".join(o[key]))
            for mime in ("text/plain", "text/html", "text/markdown"):
                if mime in data:
                    texts.append("".join(data[mime]))
        out[cell.get("id", "")] = ("".join(cell["source"]), "\n".join(texts))
    return out


def page(stem: str) -> list[tuple[str, str, str]]:
    """The student edition's cells as (id, what the student reads, its source)."""
    full = build_tool.parse(build_tool.source(stem).read_text(), stem)
    nb = build_tool.edition_notebook(full, build_tool.STUDENT)
    outputs = executed(stem)
    cells = []
    for cell in nb.cells:
        read = cell.source if cell.cell_type == "markdown" else ""
        source, text = outputs.get(cell["id"], ("", ""))
        if cell.cell_type == "code" and source == cell.source:  # not stale
            read = text
        cells.append((cell["id"], read, cell.source))
    return cells


def shown_above(stem: str, answers: dict[str, tuple[str, ...]]) -> list[str]:
    cells = page(stem)
    found = []
    for name, forms in answers.items():
        at = next((i for i, (_id, _read, src) in enumerate(cells) if cell_calls(src, name)), None)
        assert at is not None, f"{stem}: no cell calls {name}"
        for cid, read, _src in cells[:at]:
            for form in forms:
                if re.search(rf"(?<![\w.]){re.escape(form)}(?![\w])", read):
                    found.append(f"{stem} {name}: {form!r} shows in cell {cid}, above it")
    return found


def cell_calls(source: str, name: str) -> bool:
    return re.search(rf"^\s*{name}\(", source, re.M) is not None


def test_every_notebook_with_a_checked_exercise_is_covered() -> None:
    """The list is found, not kept by hand: every notebook calling a checker."""
    assert {
        "00_start_here",
        "05_mobile_retry_policy",
        "05b_common_mistakes",
        "06_retry_storms_lab",
        "07_summary_and_exercises",
        "A1_code_samples",
    } <= set(NOTEBOOKS)
    assert len(NOTEBOOKS) == 12, NOTEBOOKS


@pytest.mark.parametrize("stem", NOTEBOOKS)
def test_no_answer_shows_above_its_exercise(stem: str) -> None:
    answers = answers_of(stem)
    assert any(answers.values()), f"{stem}: no closed exercise has printable forms"
    assert shown_above(stem, answers) == []


EX_MODULES = (
    "build",
    "ex00",
    "ex01",
    "ex02",
    "ex03",
    "ex04",
    "ex05",
    "ex06",
    "ex07",
    "ex08",
    "ex09",
)


@pytest.mark.parametrize("module_name", EX_MODULES)
def test_the_answers_listed_are_what_the_checkers_accept(module_name: str) -> None:
    """Each ANSWERS entry names a checker of its module (so the list cannot go stale)."""
    module = importlib.import_module(f"retrylab.exercises.{module_name}")
    for name in ANSWERS[module_name]:
        assert callable(getattr(module, name)), name


def test_the_package_holds_no_answer_list() -> None:
    """No ANSWERS table in the package a student imports (it was one lookup away)."""
    import pkgutil

    import retrylab.exercises as exercises

    for info in pkgutil.walk_packages(exercises.__path__, "retrylab.exercises."):
        module = importlib.import_module(info.name)
        assert not hasattr(module, "ANSWERS"), info.name


def test_the_detector_sees_an_answer_above(tmp_path: Path, monkeypatch: Any) -> None:
    """The check itself can fail: the old exercise 4 of notebook 01 (the run above prints
    ``duplicates 249``, and 249 was accepted) is caught."""
    assert shown_above("01_which_errors_to_retry", {"check_expected_duplicates": ("1,249",)}) != []


def test_exercise_2_of_01_is_not_a_lookup_in_the_verdict_table() -> None:
    """No case of 01's exercise 2 is a row (outcome) and column (method) of the table."""
    from retrylab import decision_table, verdict_table
    from retrylab.exercises.ex01 import CASES
    from retrylab.viz.explorers import ERRORS, METHODS, outcome_for

    # the notebook's own table: verdict_table(decision_table(METHODS, outcomes))
    table = verdict_table(decision_table(METHODS, {e: outcome_for(e) for e in ERRORS}))
    rows, columns = {str(r) for r in table.index}, {str(c) for c in table.columns}
    assert {"network", "429", "GET", "POST"} <= rows | columns
    for letter, (method, outcome, _key) in CASES.items():
        label = outcome.label().removeprefix("http/")
        assert not (label in rows and method in columns), (letter, method, label)


def test_the_lifecycle_measurement_waits_for_the_prediction() -> None:
    from retrylab.exercises.ex05 import measure_lifecycle

    fb = measure_lifecycle(...)
    assert not fb.answered and "prediction" in fb.message


def test_no_checker_docstring_shows_its_right_answer() -> None:
    """``check_x?`` in a cell shows the docstring: its examples show wrong answers only
    (27 of them printed the right one, e.g. ``check_quiz({"A", "E"})`` -> Correct)."""
    import doctest
    import inspect

    parser = doctest.DocTestParser()
    for module_name in EX_MODULES:
        module = importlib.import_module(f"retrylab.exercises.{module_name}")
        for name, fn in vars(module).items():
            if not name.startswith("check_") or getattr(fn, "__module__", "") != module.__name__:
                continue
            for example in parser.get_examples(inspect.getdoc(fn) or ""):
                shown = example.want.strip()
                assert not shown.startswith("Correct") and "True" not in shown, (
                    f"{module_name}.{name}: {example.source.strip()} -> {shown}"
                )
