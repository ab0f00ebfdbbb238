"""An exercise's code cell: the student's scaffold and the instructor's answer in one cell.

In a notebook's source an exercise is one code cell. The lines both editions
share are written once; where they differ, the student's lines (the stub: ``...``,
``x = ...``, a longer docstring) sit between ``### BEGIN STUB`` and ``### END STUB``,
and the instructor's between nbgrader's ``### BEGIN SOLUTION`` and ``### END
SOLUTION``, the stub first::

    def full_jitter(n, r):
        \"\"\"The full-jitter wait (ms) before retry n for the draw r in [0, 1).\"\"\"
        ### BEGIN STUB
        ...
        ### END STUB
        ### BEGIN SOLUTION
        return js_round(r * min(5000, 200 * 2 ** n))
        ### END SOLUTION


    check_full_jitter(full_jitter)

The student edition drops every solution region and keeps the stubs' lines; the
instructor edition drops every stub and keeps the solutions' lines; the nbgrader
edition is made from both (tools/build_notebooks.py). Markers may be indented
(they are matched on their stripped text); a region may have no stub (the
student sees nothing there) or no solution. Run as it stands (a teacher's
JupyterLab opening the source), the cell runs the stub and then the solution,
which replaces it.
"""

from __future__ import annotations

import difflib

BEGIN_STUB, END_STUB = "### BEGIN STUB", "### END STUB"
BEGIN_SOLUTION, END_SOLUTION = "### BEGIN SOLUTION", "### END SOLUTION"
MARKERS = (BEGIN_STUB, END_STUB, BEGIN_SOLUTION, END_SOLUTION)


def is_exercise(source: str) -> bool:
    """True if a code cell's source holds a stub or solution region.

    >>> is_exercise("x = 1"), is_exercise("x = ...\\n### BEGIN SOLUTION\\nx = 1\\n### END SOLUTION")
    (False, True)
    """
    return any(line.strip() in MARKERS for line in source.splitlines())


def split(source: str, where: str = "cell") -> tuple[str, str]:
    """(the student's scaffold, the instructor's solution) of an exercise cell.

    >>> split("def f(n):\\n    ### BEGIN STUB\\n    ...\\n    ### END STUB\\n"
    ...       "    ### BEGIN SOLUTION\\n    return n\\n    ### END SOLUTION\\n\\ncheck_f(f)")
    ('def f(n):\\n    ...\\n\\ncheck_f(f)', 'def f(n):\\n    return n\\n\\ncheck_f(f)')
    >>> split("x = 1\\n### END SOLUTION")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: cell line 2: '### END SOLUTION' outside its region (regions: ...)
    """
    stub: list[str] = []
    solution: list[str] = []
    region: str | None = None  # None, "stub" or "solution"
    opens = {BEGIN_STUB: "stub", BEGIN_SOLUTION: "solution"}
    closes = {END_STUB: "stub", END_SOLUTION: "solution"}
    for number, line in enumerate(source.splitlines(), 1):
        marker = line.strip()
        if marker in opens and region is None:
            region = opens[marker]
        elif marker in closes and region == closes[marker]:
            region = None
        elif marker in MARKERS:
            raise ValueError(
                f"{where} line {number}: {marker!r} outside its region (regions: "
                f"{BEGIN_STUB} ... {END_STUB}, {BEGIN_SOLUTION} ... {END_SOLUTION})"
            )
        else:
            if region != "solution":
                stub.append(line)
            if region != "stub":
                solution.append(line)
    if region is not None:
        raise ValueError(f"{where}: a {region} region is not closed")
    return "\n".join(stub), "\n".join(solution)


def _indent(lines: list[str]) -> str:
    first = next((line for line in lines if line.strip()), "")
    return first[: len(first) - len(first.lstrip())]


def merge(scaffold: str, solution: str) -> str:
    """One exercise cell from a scaffold and its solution (the inverse of :func:`split`).

    >>> print(merge("x = ...\\ncheck_x(x)", "x = 2\\ncheck_x(x)"))
    ### BEGIN STUB
    x = ...
    ### END STUB
    ### BEGIN SOLUTION
    x = 2
    ### END SOLUTION
    check_x(x)
    """
    a, b = scaffold.splitlines(), solution.splitlines()
    out: list[str] = []
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            out += a[i1:i2]
            continue
        indent = _indent(a[i1:i2] + b[j1:j2])
        if i2 > i1:
            out += [indent + BEGIN_STUB, *a[i1:i2], indent + END_STUB]
        if j2 > j1:
            out += [indent + BEGIN_SOLUTION, *b[j1:j2], indent + END_SOLUTION]
    merged = "\n".join(out)
    if split(merged) != (scaffold, solution):
        raise ValueError(f"cannot merge losslessly:\n{scaffold}\n--- and ---\n{solution}")
    return merged
