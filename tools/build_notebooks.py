"""Build every edition of every notebook from notebooks/src/NN_name.md, then execute it.

The .md source is the single place a notebook is edited: markdown with code
cells, in jupytext's MyST format (the prose previews, reflows and spell-checks
as markdown; JupyterLab with jupytext opens it as a notebook), reviewable as a
diff. jupytext reads it into cells; this script makes each *edition* of it (see
:data:`EDITIONS`), executes each in a fresh kernel from the folder it is written
to, and writes it with its outputs (so it reads on GitHub without a kernel, and
nbval compares against it); an edition whose only changes are what nbval masks (the
lab's port, elapsed seconds) is left as it is, so a rebuild's diff is what changed.

Editions (the convention every source follows):

    student     notebooks/NN_name.ipynb            no answers: scaffolds, "Not yet" prompts
    instructor  notebooks/solutions/NN_name.ipynb  worked answers and their "Correct" outputs
    (and both in Turkish, under notebooks/tr/)
    nbgrader    classroom/nbgrader/source/retrylab/NN_name.ipynb
                an nbgrader course source (one assignment, every notebook with
                checked exercises; not executed, no outputs): see
                :func:`nbgrader_notebook`

An edition is data: a name, an output folder, the cell tags it drops, and a
language. For a language other than English, a cell tagged with the
language's code (e.g. ``tr``) placed right after an English cell of its kind
(markdown, or code that is no exercise) replaces that cell (and keeps its
tags); in the English editions such cells are dropped.

Cells are MyST's: markdown is written as it is, a markdown cell with metadata
starts with ``+++ {"tags": [...]}`` (a bare ``+++`` separates two markdown
cells), and a code cell is a ```` ```{code-cell} ```` block whose tags follow as
``:tags: [...]``. The tags and forms used here:

    markdown                               a markdown cell (every edition)
    {code-cell}                            a code cell (every edition)
    {code-cell} with ### BEGIN SOLUTION    an exercise (tools/exercise_cells.py): the student
                                           editions get its stub (tagged "scaffold": `...` to
                                           fill in + the check), the instructor editions its
                                           solution (tagged "solution")
    :tags: [solution]                      instructor editions only: a further demonstration
                                           after an exercise
    +++ {"tags": ["solution"]}             instructor editions only: an open exercise's discussion
    :tags: [nbval-ignore-output]           nbval does not compare its output (widgets)
    :tags: [nbval-skip]                    never executed in CI
    +++ {"tags": ["tr"], "en_hash": "..."} replaces the markdown cell above it in Turkish
                                           editions (tools/twins.py)
    :tags: [tr] + :en_hash: ...            replaces the code cell above it (no exercise) in
                                           Turkish editions: the lesson's data in the
                                           lesson's words (/olcumler)

Tags combine (``:tags: [solution, nbval-ignore-output]``). A solution code cell
comes right after its exercise (or another solution cell); a solution markdown
cell, for an open exercise, after the markdown that asks it. The pages' own
checks live in tests/notebooks/test_page_checks.py, not in the sources. Cell ids come from
what a cell is, not where (:func:`cell_ids`): the same cell has the same id in
every edition and between builds, and a new cell changes no other cell's id.

Usage: python tools/build_notebooks.py [-j JOBS] [--edition NAME] [NAME ...]
       (default: every source, every edition, two kernels at a time)
"""

from __future__ import annotations

import argparse
import configparser
import difflib
import hashlib
import json
import os
import re
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import jupytext
import nbformat
from nbclient import NotebookClient

sys.path.insert(0, str(Path(__file__).resolve().parent))
import exercise_cells  # (tools/ is not a package: its folder is put on the path)
import hidden_tests

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "notebooks" / "src"
#: A source's file name ends so; jupytext reads it in this format.
SUFFIX, FORMAT = ".md", "md:myst"
OUT = ROOT / "notebooks"
#: Languages a translated cell may be tagged with (English is the source's own).
LANGS = ("en", "tr")
#: Tags of an exercise's two halves (each in its editions); a Turkish code twin never
#: replaces one (the checkers and the nbgrader course read the one English cell).
EDITION_TAGS = {"scaffold", "solution"}
#: The one code cell that differs between languages: it calls ``set_language("en")``,
#: which an edition in another language builds as ``set_language("tr")``.
LANGUAGE_TAG = "language"
LANGUAGE_CALL = 'set_language("en")'
TAGS = {"nbval-ignore-output", "nbval-skip", LANGUAGE_TAG} | EDITION_TAGS | (set(LANGS) - {"en"})
#: What JupyterLab writes for ipykernel's kernel, so opening a notebook changes nothing.
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}


@dataclass(frozen=True)
class Edition:
    """One edition of the notebooks: where it goes, which cells it leaves out, its language."""

    name: str
    folder: str  #: relative to ``root`` ("" for ``root`` itself)
    drops: frozenset[str]  #: a cell with any of these tags is left out
    lang: str = "en"
    root: Path = OUT
    #: "executed": run in a fresh kernel and written with its outputs;
    #: "nbgrader": an nbgrader source (:func:`nbgrader_notebook`), written unexecuted
    kind: str = "executed"

    @property
    def out(self) -> Path:
        return self.root / self.folder if self.folder else self.root

    def path(self, stem: str) -> Path:
        return self.out / (stem + ".ipynb")


STUDENT = Edition("student", "", frozenset({"solution"}))
INSTRUCTOR = Edition("instructor", "solutions", frozenset({"scaffold"}))
STUDENT_TR = Edition("student-tr", "tr", frozenset({"solution"}), "tr")
INSTRUCTOR_TR = Edition("instructor-tr", "tr/solutions", frozenset({"scaffold"}), "tr")
#: The nbgrader course: classroom/nbgrader is the course directory, "retrylab" the assignment.
NBGRADER_COURSE = ROOT / "classroom" / "nbgrader"
NBGRADER_ASSIGNMENT = "retrylab"
NBGRADER = Edition(
    "nbgrader", f"source/{NBGRADER_ASSIGNMENT}", frozenset(), "en", NBGRADER_COURSE, "nbgrader"
)
#: Every edition that is executed and committed with its outputs.
EDITIONS: tuple[Edition, ...] = (STUDENT, INSTRUCTOR, STUDENT_TR, INSTRUCTOR_TR)
#: Every edition the build makes.
ALL_EDITIONS: tuple[Edition, ...] = (*EDITIONS, NBGRADER)


def source(stem: str) -> Path:
    """The source of the notebook ``stem``: notebooks/src/<stem>.md."""
    return SRC / (stem + SUFFIX)


def sources() -> list[Path]:
    """Every notebook's source, by name."""
    return sorted(SRC.glob("*" + SUFFIX))


def as_python(text: str) -> str:
    """A source's cells as one Python script (jupytext's percent format: the prose as
    comments, an exercise cell's stub and solution both), for tools that read code."""
    return jupytext.writes(jupytext.reads(text, fmt=FORMAT), fmt="py:percent")


def _first(source: str) -> str:
    return next((line for line in source.splitlines() if line.strip()), "")


def cell_ids(cells: list[nbformat.NotebookNode]) -> list[str]:
    """Each cell's id, from what it is rather than where it is.

    A cell's id is a hash of its type and first line (an exercise: of its check,
    its last line); a translation takes its English cell's id and ``-tr``; a
    second cell with the same type and first line gets ``-2`` (a third ``-3``).
    So inserting, moving or deleting a cell changes no other cell's id (unless it
    begins like a later one), and an edit changes an id only if it changes the
    first line.

    >>> md = nbformat.v4.new_markdown_cell
    >>> cell_ids([md("# Title"), md("Text\\nmore"), md("Text")])
    ['c16e478e3', 'cfd5e50df', 'cfd5e50df-2']
    """
    ids: list[str] = []
    seen: dict[str, int] = {}
    for cell in cells:
        if set(cell.metadata.get("tags", [])) & set(LANGS) and ids:
            ids.append(ids[-1] + "-" + "-".join(sorted(set(cell.metadata["tags"]) & set(LANGS))))
            continue
        if cell.cell_type == "code" and exercise_cells.is_exercise(cell.source):
            key = "exercise:" + cell.source.rstrip().splitlines()[-1].strip()
        else:
            key = f"{cell.cell_type}:{_first(cell.source).strip()}"
        base = "c" + hashlib.sha256(key.encode()).hexdigest()[:8]
        seen[base] = seen.get(base, 0) + 1
        ids.append(base if seen[base] == 1 else f"{base}-{seen[base]}")
    return ids


def expand_exercises(nb: nbformat.NotebookNode, where: str) -> None:
    """Split each exercise cell into the student's scaffold (tagged ``scaffold``) and,
    right after it, the instructor's solution (tagged ``solution``), with the cell's
    other tags and metadata; their ids are the cell's and the cell's with ``-s``."""
    cells = []
    for cell in nb.cells:
        if "scaffold" in cell.metadata.get("tags", []):
            raise SystemExit(
                f"{where} cell {cell['id']}: write a scaffold and its solution as one exercise "
                f"cell (tools/exercise_cells.py), not a cell tagged scaffold: {_first(cell.source)}"
            )
        if cell.cell_type != "code" or not exercise_cells.is_exercise(cell.source):
            cells.append(cell)
            continue
        tags = list(cell.metadata.get("tags", []))
        if set(tags) & EDITION_TAGS:
            raise SystemExit(
                f"{where} cell {cell['id']}: an exercise cell (with ### BEGIN SOLUTION) is "
                f"not tagged {sorted(EDITION_TAGS)}: its markers make both: {_first(cell.source)}"
            )
        try:
            scaffold, solution = exercise_cells.split(cell.source, f"{where} cell {cell['id']}")
        except ValueError as error:
            raise SystemExit(str(error)) from None
        for tag, text, suffix in (("scaffold", scaffold, ""), ("solution", solution, "-s")):
            part = nbformat.v4.new_code_cell(text)
            part.metadata = nbformat.from_dict({**cell.metadata, "tags": [tag, *tags]})
            part["id"] = cell["id"] + suffix
            cells.append(part)
    nb.cells = cells


def parse(text: str, where: str = "source") -> nbformat.NotebookNode:
    """Read a MyST source into its full notebook: every cell, every tag.

    Gives every cell a stable id (:func:`cell_ids`), splits each exercise cell
    into its scaffold and solution cells (:func:`expand_exercises`), and checks
    the tags and the edition rules (a solution follows its scaffold or a
    markdown cell; a translation follows a markdown cell).
    """
    nb = jupytext.reads(text, fmt=FORMAT)
    nb.metadata = nbformat.from_dict(
        {"kernelspec": dict(KERNELSPEC), "language_info": {"name": "python"}}
    )
    for cell, cell_id in zip(nb.cells, cell_ids(nb.cells), strict=True):
        cell["id"] = cell_id
    expand_exercises(nb, where)
    for i, cell in enumerate(nb.cells):
        first = cell.source.splitlines()[:1]
        tags = cell.metadata.get("tags", [])
        unknown = sorted(set(tags) - TAGS)
        if unknown:
            raise SystemExit(f"{where}: unknown cell tag(s) {unknown} in cell {i}: {first}")
        cell.metadata.pop("lines_to_next_cell", None)  # jupytext's layout hint only
        extra = set(cell.metadata) - {"tags", *twin_metadata(cell)}
        if extra:
            raise SystemExit(f"{where}: unexpected cell metadata {sorted(extra)} in cell {i}")
        if {"scaffold", "solution"} <= set(tags):
            raise SystemExit(f"{where} cell {i} is tagged both scaffold and solution: {first}")
        if LANGUAGE_TAG in tags and (
            cell.cell_type != "code" or cell.source.count(LANGUAGE_CALL) != 1
        ):
            raise SystemExit(
                f"{where} cell {i}: the {LANGUAGE_TAG!r} cell is a code cell that calls "
                f"{LANGUAGE_CALL} exactly once: {first}"
            )
        if "scaffold" in tags and cell.cell_type != "code":
            raise SystemExit(f"{where} cell {i}: a scaffold is a code cell: {first}")
        langs = set(tags) & set(LANGS)
        if langs:
            before = nb.cells[i - 1] if i else None
            before_tags = set(before.metadata.get("tags", [])) if before is not None else set()
            if (
                before is None
                or before.cell_type != cell.cell_type
                or before_tags & set(LANGS)
                or (cell.cell_type == "code" and (before_tags | set(tags)) & EDITION_TAGS)
            ):
                raise SystemExit(
                    f"{where} cell {i}: a {sorted(langs)} cell comes right after the English "
                    f"cell it translates, of its kind (markdown, or a code cell that is no "
                    f"exercise's scaffold or solution): {first}"
                )
        if "solution" in tags and cell.cell_type == "code":
            before_tags = set(nb.cells[i - 1].metadata.get("tags", [])) if i else set()
            if not before_tags & {"scaffold", "solution"}:
                raise SystemExit(
                    f"{where} cell {i}: a solution code cell comes right after its "
                    f"exercise (or another solution cell): {first}"
                )
    return nb


def twin_metadata(cell: nbformat.NotebookNode) -> set[str]:
    """The metadata a translated cell may carry besides its tags: ``en_hash``, the hash of
    the English cell it translates (tools/twins.py; editions take the English cell's
    metadata, so it is left out of them)."""
    return {"en_hash"} if set(cell.metadata.get("tags", [])) & set(LANGS) else set()


def edition_notebook(full: nbformat.NotebookNode, edition: Edition) -> nbformat.NotebookNode:
    """The cells of ``full`` (from :func:`parse`) that ``edition`` shows, in its language."""
    nb = nbformat.from_dict(dict(full))
    cells = []
    for cell in full.cells:
        tags = list(cell.metadata.get("tags", []))
        lang = next((t for t in tags if t in LANGS), None)
        if lang is not None:
            if lang == edition.lang and cells:
                # the translation replaces the English cell before it, keeping its tags
                english = cells.pop()
                if english is None:
                    cells.append(None)
                    continue
                kept = [t for t in english.metadata.get("tags", [])]
                cell = nbformat.from_dict(dict(cell))
                cell.metadata = nbformat.from_dict(dict(english.metadata))
                if kept:
                    cell.metadata["tags"] = kept
                else:
                    cell.metadata.pop("tags", None)
                cell["id"] = english["id"]
                tags = kept
            else:
                continue
        if set(tags) & edition.drops:
            cells.append(None)  # a placeholder, so a translation after it is dropped too
            continue
        cell = nbformat.from_dict(dict(cell))
        if LANGUAGE_TAG in tags and edition.lang != "en":
            cell.source = cell.source.replace(LANGUAGE_CALL, f'set_language("{edition.lang}")')
        cells.append(cell)
    nb.cells = [c for c in cells if c is not None]
    if edition.lang != "en":
        _relink(full, nb, edition.lang)
    return nb


def _anchor(heading: str) -> str:
    """JupyterLab's anchor for a markdown heading: its text, spaces as dashes."""
    return heading.lstrip("#").strip().replace(" ", "-")


def _headings(source: str) -> list[str]:
    return [line for line in source.splitlines() if re.match(r"^#{1,6} ", line)]


def _relink(full: nbformat.NotebookNode, nb: nbformat.NotebookNode, lang: str) -> None:
    """Point in-notebook links (``](#English-heading)``) at the translated headings.

    A translation keeps its English cell's headings in the same order, so the
    n-th heading of a twin is the n-th heading of the cell it translates.
    """
    moved: dict[str, str] = {}
    for english, twin in zip(full.cells, full.cells[1:], strict=False):
        if lang in twin.metadata.get("tags", []) and english.cell_type == "markdown":
            for a, b in zip(_headings(english.source), _headings(twin.source), strict=False):
                moved[_anchor(a)] = _anchor(b)
    for cell in nb.cells:
        if cell.cell_type == "markdown" and "](#" in cell.source:
            cell.source = re.sub(
                r"\]\(#([^)]+)\)", lambda m: f"](#{moved.get(m.group(1), m.group(1))})", cell.source
            )


def strip_widget_views(nb: nbformat.NotebookNode) -> None:
    """Keep what reads without a kernel; drop live widget state.

    Widget state has random model ids (every build would change the diff) and
    is useless without a kernel. Each explorer's output also carries an
    ``image/png`` of its first render and a ``text/plain`` line, which stay: a
    reader on GitHub, nbviewer or in JupyterLab before running sees the figure.
    """
    nb.metadata.pop("widgets", None)
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            data.pop("application/vnd.jupyter.widget-view+json", None)


#: nbgrader's cell metadata schema (nbgrader 0.9 writes version 3).
NBGRADER_SCHEMA = 3
BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"
#: The code that stands for a solution region in the release. The answer cell
#: keeps the student edition's scaffold lines around each region, so an empty stub
#: makes the release's answer cell the student edition's scaffold (see
#: :func:`answer_source`); classroom/nbgrader/nbgrader_config.py sets it.
CODE_STUB = ""


def _nbgrader(
    cell: nbformat.NotebookNode,
    grade_id: str,
    *,
    solution: bool,
    grade: bool,
    points: int = 0,
    locked: bool = False,
) -> None:
    meta = {
        "grade": grade,
        "grade_id": grade_id,
        "locked": locked or (grade and not solution),
        "schema_version": NBGRADER_SCHEMA,
        "solution": solution,
        "task": False,
    }
    if grade:
        meta["points"] = points
    cell.metadata["nbgrader"] = meta


def answer_source(stub: list[str], solution: list[str]) -> str:
    """An nbgrader answer cell: the scaffold's lines, each change in a solution region.

    Where the scaffold and the solution differ, the scaffold's lines stay and the
    solution's follow between ``### BEGIN SOLUTION`` and ``### END SOLUTION``
    (flush left: a comment's indentation means nothing to Python). The
    instructor's cell therefore runs the stub (``...``, ``x = ...``) and then the
    solution, which replaces it; nbgrader's release drops each region for the
    empty stub (one empty line), which takes the place of a blank line that
    follows the region in the scaffold. So the release's cell is the scaffold
    line for line (at most one empty line more, where no blank line followed).

    >>> print(answer_source(["def f(n):", "    ...", "", "x = ..."],
    ...                     ["def f(n):", "    return n", "", "x = f(2)"]))
    def f(n):
        ...
    ### BEGIN SOLUTION
        return n
    ### END SOLUTION
    x = ...
    ### BEGIN SOLUTION
    x = f(2)
    ### END SOLUTION
    """
    out: list[str] = []
    after_region = False
    matcher = difflib.SequenceMatcher(a=stub, b=solution, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            same = stub[i1:i2]
            if after_region and not same[0].strip():
                same = same[1:]  # the release's empty stub line stands for it
            out += same
            after_region = False
        else:
            out += [*stub[i1:i2], BEGIN, *solution[j1:j2], END]
            after_region = True
    return "\n".join(out)


def _split_check(source: str, where: str) -> tuple[list[str], str]:
    """A scaffold or solution cell's lines: (the answer, the last line: its ``check_...``)."""
    lines = source.rstrip().splitlines()
    if not lines or not re.match(r"^check_\w+\(.*\)$", lines[-1]):
        raise SystemExit(f"{where}: an exercise cell ends with its one-line check_...(...)")
    answer = lines[:-1]
    while answer and not answer[-1].strip():
        answer.pop()
    return answer, lines[-1]


def _is_open(cells: list[nbformat.NotebookNode]) -> bool:
    """True if the last exercise asked before these cells is an open one."""
    for cell in reversed(cells):
        if cell.cell_type == "markdown" and "**Exercise" in cell.source:
            asked = cell.source.rsplit("**Exercise", 1)[1]
            return "(open" in asked.split("**", 1)[0]
    return False


#: A cell that imports the checkers: read-only in the release, restored by nbgrader's
#: checksum if a submission changes it.
CHECKER_IMPORT = re.compile(r"^from retrylab\.exercises[.\w]* import", re.M)


def nbgrader_notebook(full: nbformat.NotebookNode, stem: str) -> nbformat.NotebookNode:
    """The nbgrader course source of one notebook (English), from :func:`parse`'s cells.

    - a checked exercise (a scaffold and its solution): an autograded answer cell
      (:func:`answer_source`) and, after it, a locked test cell worth points (2 for
      a function or class to build, 1 for a closed question) that shows the
      checker's verdict (for the student) and then runs the exercise's hidden test
      (tools/hidden_tests.py): it prints the answer's plain values, which the grader
      judges against classroom/nbgrader/expected.json (hidden_results.py);
    - a cell that imports the checkers: locked (read-only, checksummed);
    - an open exercise's discussion (a solution markdown cell after an exercise
      marked "open"): a manually graded answer cell (1 point), which the release
      replaces by nbgrader's "YOUR ANSWER HERE";
    - the instructor's further solution cells (demonstrations) and the
      discussions of closed exercises are left out, as in the student edition.

    Outputs are empty: nbgrader runs the notebooks itself.
    """
    nb = edition_notebook(full, Edition("nbgrader-all", "", frozenset(), "en"))
    cells: list[nbformat.NotebookNode] = []
    scaffold: nbformat.NotebookNode | None = None
    opened = 0
    for cell in nb.cells:
        tags = cell.metadata.get("tags", [])
        where = f"{stem} cell {cell['id']}"
        if "scaffold" in tags:
            scaffold = cell
            continue
        if "solution" in tags and cell.cell_type == "code":
            if scaffold is None:
                continue  # a second solution cell: the instructor's demonstration
            stub, check = _split_check(scaffold.source, where)
            answer, check_solution = _split_check(cell.source, where)
            if check != check_solution:
                raise SystemExit(
                    f"{where}: the solution checks with {check_solution}, its scaffold with {check}"
                )
            name = check.split("(", 1)[0]
            built = any(re.match(r"^(def|class) ", line) for line in stub)
            ans = nbformat.v4.new_code_cell(answer_source(stub, answer))
            ans["id"] = scaffold["id"]
            _nbgrader(ans, f"answer_{name}", solution=True, grade=False)
            test = nbformat.v4.new_code_cell(
                f"feedback = {check}\n"
                "display(feedback)\n"
                'assert feedback, "not correct yet: see the message above"\n'
                + hidden_tests.hidden_test(check)
            )
            test["id"] = cell["id"]
            _nbgrader(test, f"test_{name}", solution=False, grade=True, points=2 if built else 1)
            cells += [ans, test]
            scaffold = None
            continue
        scaffold = None
        if "solution" in tags:  # markdown: an open exercise's discussion
            if not _is_open(cells):
                continue
            opened += 1
            answer_cell = nbformat.v4.new_markdown_cell(cell.source)
            answer_cell["id"] = cell["id"]
            _nbgrader(answer_cell, f"open_{opened}", solution=True, grade=True, points=1)
            cells.append(answer_cell)
            continue
        cell = nbformat.from_dict(dict(cell))
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
            if CHECKER_IMPORT.search(cell.source):
                _nbgrader(cell, f"checkers_{cell['id']}", solution=False, grade=False, locked=True)
        cells.append(cell)
    nb.cells = cells
    return nb


def _seconds(cell: nbformat.NotebookNode) -> float:
    """How long a cell took in an nbclient run (its execution timestamps), 0 if not run."""
    from datetime import datetime

    times = cell.get("metadata", {}).get("execution", {})
    start, end = times.get("iopub.execute_input"), times.get("shell.execute_reply")
    if not (start and end):
        return 0.0
    parsed = [datetime.fromisoformat(t.replace("Z", "+00:00")) for t in (start, end)]
    return (parsed[1] - parsed[0]).total_seconds()


def record_expected(stems: list[str]) -> dict[str, object]:
    """Run the course source of ``stems`` (the solutions) and collect the plain values
    each hidden test prints; merged into :data:`hidden_tests.EXPECTED_FILE`. Returns the
    values found."""
    found: dict[str, object] = {}
    for stem in stems:
        nb = nbgrader_notebook(parse(source(stem).read_text(), stem), stem)
        os.environ.update(kernel_env())
        NotebookClient(
            nb,
            timeout=300,
            kernel_name="python3",
            resources={"metadata": {"path": str(NBGRADER.out)}},
        ).execute()
        text = "\n".join(
            o.get("text", "")
            for c in nb.cells
            for o in c.get("outputs", [])
            if o.get("output_type") == "stream"
        )
        got = hidden_tests.recorded(text)
        slowest = max(_seconds(c) for c in nb.cells)
        print(f"{stem}: {len(got)} expected values; slowest cell {slowest:.1f} s")
        found.update(got)
    values = {**hidden_tests.expected_values(), **found}
    table = hidden_tests.grading_table(values)
    hidden_tests.EXPECTED_FILE.write_text(json.dumps(table, indent=1) + "\n")
    return found


def has_exercises(full: nbformat.NotebookNode) -> bool:
    """True if a notebook has a checked exercise (the nbgrader course holds only those)."""
    return any("scaffold" in c.metadata.get("tags", []) for c in full.cells)


def make_notebook(stem: str, edition: Edition) -> nbformat.NotebookNode:
    """One edition of one source notebook, before any execution."""
    full = parse(source(stem).read_text(), stem)
    if edition.kind == "nbgrader":
        return nbgrader_notebook(full, stem)
    return edition_notebook(full, edition)


def kernel_env() -> dict[str, str]:
    """The kernel's environment: this checkout's retrylab first on the path."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    return env


#: nbval's sanitizers (the README's test command passes them): the outputs that change on
#: every run (the lab's port, elapsed seconds, addresses) and are compared as masked.
SANITIZE = ROOT / "tests" / "sanitize.cfg"


def masks() -> list[tuple[re.Pattern[str], str]]:
    """The (regex, replacement) pairs of :data:`SANITIZE`, in order."""
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(SANITIZE, encoding="utf-8")
    return [(re.compile(parser[s]["regex"]), parser[s]["replace"]) for s in parser.sections()]


def _as_compared(nb: nbformat.NotebookNode, rules: list[tuple[re.Pattern[str], str]]) -> str:
    """The notebook as nbval compares it: each code cell's outputs masked, each run of
    stream outputs of one name joined (a print may arrive in one piece or two); sources,
    metadata and ids as they are (a masked pattern in a source is still a change)."""
    cells = []
    for cell in nb.cells:
        row = {k: v for k, v in cell.items() if k != "outputs"}
        if "outputs" in cell:
            outputs: list[dict[str, object]] = []
            for out in cell.outputs:
                last = outputs[-1] if outputs else None
                if (
                    out.get("output_type") == "stream"
                    and last is not None
                    and last.get("output_type") == "stream"
                    and last["name"] == out["name"]
                ):
                    last["text"] = str(last["text"]) + out["text"]
                else:
                    outputs.append(dict(out))
            text = json.dumps(outputs, sort_keys=True)
            for pattern, replace in rules:
                text = pattern.sub(replace, text)
            row["outputs"] = text
        cells.append(row)
    return json.dumps(cells, sort_keys=True)


def differs(built: nbformat.NotebookNode, path: Path) -> bool:
    """True unless ``path`` holds this notebook already, but for what nbval masks: a
    rebuild then leaves the committed file alone (no diff of a new port and timings).

    >>> nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print(1)")])
    >>> differs(nb, Path("no/such/notebook.ipynb"))
    True
    """
    if not path.exists():
        return True
    old = nbformat.read(path, as_version=4)
    rules = masks()
    return old.metadata != built.metadata or _as_compared(old, rules) != _as_compared(built, rules)


def build(stem: str, edition_name: str) -> tuple[str, str, float]:
    """Make one edition of one notebook, execute it in a fresh kernel, write it.

    Returns (notebook, edition, seconds taken).
    """
    edition = next(e for e in ALL_EDITIONS if e.name == edition_name)
    nb = make_notebook(stem, edition)
    edition.out.mkdir(parents=True, exist_ok=True)
    if edition.kind == "nbgrader":
        nbformat.write(nb, edition.path(stem))
        return stem, edition.name, 0.0
    os.environ.update(kernel_env())  # this worker's kernels inherit it
    start = time.perf_counter()
    NotebookClient(
        nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(edition.out)}}
    ).execute()
    took = time.perf_counter() - start
    strip_widget_views(nb)
    if differs(nb, edition.path(stem)):
        nbformat.write(nb, edition.path(stem))
    return stem, edition.name, took


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="notebook names (default: every source)")
    parser.add_argument(
        "-j",
        "--jobs",
        type=int,
        default=2,
        help="kernels run at a time (default 2: a notebook's two editions)",
    )
    parser.add_argument(
        "--edition",
        action="append",
        choices=[e.name for e in ALL_EDITIONS],
        help="build only this edition (repeatable; default: all)",
    )
    parser.add_argument(
        "--record",
        action="store_true",
        help="first run the nbgrader course's solutions and record its hidden "
        "tests' expected values (classroom/nbgrader/expected.json)",
    )
    args = parser.parse_args(argv)
    stems = [Path(n).stem for n in args.names] or [p.stem for p in sources()]
    for stem in stems:
        if not source(stem).exists():
            parser.error(f"no source notebooks/src/{stem}{SUFFIX}")
    editions = args.edition or [e.name for e in ALL_EDITIONS]
    graded = {s for s in stems if has_exercises(parse(source(s).read_text(), s))}
    if args.record:
        record_expected(sorted(graded))
    jobs = [
        (stem, ed) for stem in stems for ed in editions if ed != NBGRADER.name or stem in graded
    ]
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for stem, ed, took in pool.map(build, *zip(*jobs, strict=True)):
            print(f"{stem} [{ed}]: executed in {took:.1f} s")
    print(f"all: {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
