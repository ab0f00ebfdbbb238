"""The test tiers: the quick one for the edit-run loop, and what it leaves out.

``./run quick`` (``pytest -m "not slow and not browser"``) runs in about a minute
on two cores: the package's unit and property tests and doctests. What it leaves
out is marked ``slow`` here, by what it is rather than one by one: every notebook
run under nbval (five editions of each), and the test files that start a
JupyterLab, a hub, a grader or a whole experiment (:data:`SLOW_FILES`). The
everyday set (``./run test``) runs both tiers.
"""

from __future__ import annotations

from pathlib import Path

import pytest

#: Test files whose tests start servers, kernels or whole notebooks' worth of work.
SLOW_FILES = frozenset({
    "test_classroom.py",          # JupyterLab servers, a wheel build, nbgitpuller
    "test_nbgrader.py",           # nbgrader's generate and autograde round trip
    "test_voila.py",              # a Voila server rendering the explorers page
    "test_urllib3_suite.py",      # urllib3's own retry tests, fetched and run
    "test_exercise_report.py",    # every listed wrong answer through every checker
    "test_figure_text_layout.py", # every explorer's text extents, both languages
    "test_lab_experiments.py",    # the 1,000-write experiments on a live lab
    "test_notebooks_built.py",    # every edition rebuilt in memory and compared
})


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "slow: left out of the quick tier (./run quick); the everyday set runs it")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        path = Path(str(item.path))
        if path.suffix == ".ipynb" or path.name in SLOW_FILES:
            item.add_marker(pytest.mark.slow)
