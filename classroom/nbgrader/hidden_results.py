"""Judge the hidden tests' results in the grader, where no submission's code runs.

Each graded test cell of the course ends with a hidden test that prints one line,
``RETRYLAB-GOT [check, plain values]`` (tools/hidden_tests.py): the answer's plain
values, computed afresh. The expected values are not in the notebook the kernel runs:
they are in expected.json, next to this file, which only the teacher (and the grader)
can read. This nbgrader preprocessor, registered in nbgrader_config.py between the
kernel's run and nbgrader's scoring (SaveAutoGrades), puts an error first in a test
cell's outputs unless the cell printed exactly one such line for its own exercise and
the values are right, so nbgrader scores the cell 0. A kernel a submission patched
(a transformer that empties the test cells, a ``Feedback`` that is always true) can
print whatever it likes: to score, it has to print the right answer.

Judging: a number within the exercise's margin (``tolerance``), a set in any order (or
as "A, C" as the checkers take it), everything else equal with its exact JSON type; a
policy to design (``rebuild``) is rebuilt from its plain fields here and judged by the
package's checker.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
from pathlib import Path
from typing import Any

from nbformat import NotebookNode
from nbformat.v4 import new_output
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Unicode

MARK = "RETRYLAB-GOT "
EXPECTED = Path(__file__).resolve().parent / "expected.json"


def same(got: Any, want: Any, tol: float) -> bool:
    """``got`` (JSON from the kernel) is ``want`` (expected.json)?

    >>> same([1, 2.0000000001], [1, 2], 1e-9), same(True, 1, 1e-9), same(390, 390.0, 1.0)
    (True, False, True)
    >>> same("C, A", {"set": ["A", "C"]}, 0), same({"set": ["A"]}, {"set": ["A", "C"]}, 0)
    (True, False)
    """
    if type(got) is dict and set(got) == {"set"}:
        got = got["set"]
    if type(want) is dict:  # a set: any order, or "A, C"
        if type(got) is str:
            got = [g for g in got.replace(",", " ").split() if g]
        return type(got) is list and sorted(str(g).strip() for g in got) == sorted(
            str(w) for w in want["set"]
        )
    numbers = (int, float)
    if type(want) in numbers and type(got) in numbers:
        margin = tol if tol >= 1e-6 else tol * max(1.0, abs(want))  # else: relative
        return bool(abs(got - want) <= margin)
    if type(want) is list:
        return (
            type(got) is list
            and len(got) == len(want)
            and all(same(g, w, tol) for g, w in zip(got, want, strict=True))
        )
    return type(got) is type(want) and bool(got == want)


def rebuilt(kind: str, fields: Any) -> object:
    """The library object a design answer's plain fields describe."""
    if type(fields) is not dict:
        raise TypeError("fields are a dict")
    if kind == "policy":
        from retrylab.core.backoff import Backoff
        from retrylab.core.policy import RetryPolicy

        fields = dict(fields)
        fields["backoff"] = Backoff(**fields["backoff"])
        if fields.get("safe_methods") is not None:
            fields["safe_methods"] = frozenset(fields["safe_methods"])
        return RetryPolicy(**fields)
    from urllib3.util.retry import Retry

    return Retry(**fields)


def checker(check: str) -> Any:
    import retrylab.exercises as package

    for module in pkgutil.iter_modules(package.__path__):
        found = getattr(importlib.import_module(f"{package.__name__}.{module.name}"), check, None)
        if found is not None:
            return found
    raise LookupError(check)


class CheckHiddenResults(NbGraderPreprocessor):  # type: ignore[misc]
    """Zero every graded test cell whose hidden test did not print the right answer."""

    expected_file = Unicode(str(EXPECTED), help="the expected values").tag(config=True)

    def preprocess(
        self, nb: NotebookNode, resources: dict[str, Any]
    ) -> tuple[NotebookNode, dict[str, Any]]:
        self.table = json.loads(Path(self.expected_file).read_text())
        return super().preprocess(nb, resources)  # type: ignore[no-any-return]

    def verdict(self, check: str, lines: list[str]) -> str:
        """ "" if right, else why not."""
        if len(lines) != 1:
            return f"{len(lines)} hidden-test results (one expected)"
        try:
            name, got = json.loads(lines[0][len(MARK) :])
        except ValueError:
            return "an unreadable hidden-test result"
        if name != check:
            return f"a result for {name!r}"
        kind = self.table.get("rebuild", {}).get(check)
        if kind is not None:
            try:
                return "" if checker(check)(rebuilt(kind, got)).correct is True else "not right"
            except Exception as error:  # a student's fields: any failure is a wrong answer
                return f"not a valid answer ({type(error).__name__})"
        if check not in self.table["expected"]:
            return f"no expected value for {check}: the course's expected.json is stale"
        tol = self.table.get("tolerance", {}).get(check, 1e-9)
        return "" if same(got, self.table["expected"][check], tol) else "not the expected answer"

    def preprocess_cell(
        self, cell: NotebookNode, resources: dict[str, Any], index: int
    ) -> tuple[NotebookNode, dict[str, Any]]:
        meta = cell.metadata.get("nbgrader", {})
        grade_id = meta.get("grade_id", "")
        if not (
            meta.get("grade")
            and not meta.get("solution")
            and cell.cell_type == "code"
            and grade_id.startswith("test_check_")
        ):
            return cell, resources
        check = grade_id.removeprefix("test_")
        lines = [
            line
            for out in cell.get("outputs", [])
            if out.get("output_type") == "stream" and out.get("name") == "stdout"
            for line in out.get("text", "").splitlines()
            if line.startswith(MARK)
        ]
        why = self.verdict(check, lines)
        if why:
            cell.outputs.insert(
                0,
                new_output(
                    "error", ename="HiddenTestFailed", evalue=f"{check}: {why}", traceback=[]
                ),
            )
        return cell, resources
