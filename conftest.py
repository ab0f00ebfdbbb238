"""The test tiers: the quick one for the edit-run loop, and what it leaves out.

``./run quick`` (``pytest -m "not slow and not browser"``) runs in about a minute
on two cores: the package's unit and property tests and doctests. What it leaves
out is marked ``slow`` here, by what it is rather than one by one: every notebook
run under nbval (five editions of each), and the test files that start a
JupyterLab, a hub, a grader or a whole experiment (:data:`SLOW_FILES`), and the
few single tests that redraw every explorer in both languages (:data:`SLOW_TESTS`). The
everyday set (``./run test``) runs both tiers.
"""

from __future__ import annotations

from fnmatch import fnmatchcase
from pathlib import Path

import pytest

#: Test files whose tests start servers, kernels or whole notebooks' worth of work.
SLOW_FILES = frozenset(
    {
        "test_classroom.py",  # JupyterLab servers, a wheel build, nbgitpuller
        "test_nbgrader.py",  # nbgrader's generate and autograde round trip
        "test_voila.py",  # a Voila server rendering the explorers page
        "test_urllib3_suite.py",  # urllib3's own retry tests, fetched and run
        "test_exercise_report.py",  # every listed wrong answer through every checker
        "test_figure_text_layout.py",  # every explorer's text extents, both languages
        "test_projector.py",  # the same at the projector's 18 px, at every slider's ends
        "test_lab_experiments.py",  # the 1,000-write experiments on a live lab
        "test_notebooks_built.py",  # every edition rebuilt in memory and compared
        "test_hub_isolation.py",  # a hub with two real students
        "test_grading.py",  # nbgrader's autograde, sandboxed, per submission
        "test_exchange.py",  # nbgrader's exchange between real users
        "test_student_branch.py",  # the student branch built and cloned by nbgitpuller
        "test_page_checks.py",  # six notebooks' code run up to each page check
    }
)


#: Single tests that redraw every explorer, or start a kernel, in both languages; and
#: the cases of a parametrized test that wait for a limit by design ("name[*-loop]":
#: the cases whose id ends with "-loop"), each the whole 0.2-0.4 s limit of a check.
SLOW_TESTS = frozenset(
    {
        # every checker against an answer that loops, sleeps or grows until the limit
        # stops it (the quick tier keeps the other hostile answers for every checker,
        # and test_exercises_runaway.py's runaway answers)
        "test_every_checker_survives_every_hostile_answer[*-loop]",
        "test_every_checker_survives_every_hostile_answer[*-sleep]",
        "test_every_checker_survives_every_hostile_answer[*-grow]",
        # every explorer in Turkish, every explorer at every end of every slider
        "test_every_explorer_label_has_its_turkish",
        "test_every_explorer_works_in_turkish",
        "test_every_end_a_drag_can_reach_draws_or_explains_itself",
        # eight whole storms run twice, step by step and with quiet steps skipped
        "test_the_storm_is_the_same_bit_for_bit_with_quiet_runs",
        "test_a_step_draws_the_bytes_a_fresh_explorer_draws",
        "test_a_kernel_that_shows_every_explorer_starts_no_process",
        "test_every_lesson_figure_text_has_its_turkish",
        "test_every_explorer_speaks_turkish",
        "test_a_cached_setting_never_rendered_is_rendered_when_met_on_a_page",
        "test_looking_later_gives_the_bytes_of_an_explorer_on_a_page_from_the_start",
        "test_the_lab_is_imported_on_first_use",
    }
)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "slow: left out of the quick tier (./run quick); the everyday set runs it"
    )


#: The "name[pattern]" entries of SLOW_TESTS: name -> the patterns of its case ids.
_SLOW_CASES: dict[str, list[str]] = {}
for _entry in SLOW_TESTS:
    if _entry.endswith("]"):
        _name, _cases = _entry[:-1].split("[", 1)
        _SLOW_CASES.setdefault(_name, []).append(_cases)


def _is_slow(item: pytest.Item) -> bool:
    path = Path(str(item.path))
    name = getattr(item, "originalname", item.name)
    if path.suffix == ".ipynb" or path.name in SLOW_FILES or name in SLOW_TESTS:
        return True
    case = item.name[len(name) + 1 : -1] if item.name.startswith(name + "[") else ""
    return any(fnmatchcase(case, pattern) for pattern in _SLOW_CASES.get(name, ()))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if _is_slow(item):
            item.add_marker(pytest.mark.slow)
