"""The pages' own checks, run in each notebook's namespace, out of the teaching flow.

An explorer on a page must show what its class computes for the same setting
(``readout == Explorer.readout_for(...)``), redraw when a setting changes, and
say nothing is wrong when nothing is; a few simulations must give the figures
the prose quotes. These checks used to sit in the sources as instructor-only
cells (tagged ``test``); here each runs at the same point of the page: the
notebook's English instructor edition is built in memory and its code cells
run in one IPython namespace (so top-level ``await`` works as in a kernel), and
each check runs right after the cell it follows (:data:`CHECKS`: that cell's
first line, then the check's code).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from _tools import load_tool
from IPython.core.interactiveshell import InteractiveShell

builder = load_tool("build_notebooks")

#: notebook -> (the first line of the code cell the check follows, the check), in page order.
CHECKS: dict[str, list[tuple[str, str]]] = {
    "01_which_errors_to_retry": [
        (
            'explorer.set(method="PUT", error="network", idempotency_key=False)',
            "assert explorer.readout == DecisionExplorer.readout_for(\n"
            '    method="PUT", error="network", idempotency_key=False)',
        ),
    ],
    "02_computing_the_wait": [
        ("schedule = backoff_explorer()", "first = schedule.png"),
        (
            'schedule.set(jitter="decorrelated")',
            "assert schedule.png != first\n"
            'assert schedule.readout == BackoffExplorer.readout_for(jitter="decorrelated")',
        ),
        ('schedule.set(jitter="decorrelated")', "kept = schedule.png"),
        (
            "schedule.set(cap=100)",
            'assert schedule.png != kept and schedule.message == ""\n'
            "assert schedule.readout == BackoffExplorer.readout_for("
            'jitter="decorrelated", cap=100)',
        ),
        ('schedule.set(cap=5000, jitter="full")', 'assert schedule.message == ""'),
        (
            "herd_check = herd_explorer()  # its own explorer: the one above keeps its defaults",
            "assert herd_check.png != herd_explorer().png  # the setting redrew the figure\n"
            "assert herd_check.readout == HerdExplorer.readout_for(clients=10_000)",
        ),
    ],
    "03_the_retry_loop": [
        (
            'cost = pd.DataFrame({name: {"attempts": r.attempts, "waits (ms)": sum(w),',
            "assert all(wire >= 0.1 * r.attempts for r, wire, _ in runs.values())",
        ),
    ],
    "04_circuit_breaker": [
        ("explorer = breaker_explorer()", "first = explorer.png"),
        (
            "explorer.set(step=6)",
            "assert explorer.png != first\n"
            "assert explorer.readout == BreakerExplorer.readout_for(step=6)",
        ),
    ],
    "06_retry_storms_lab": [
        (
            "herd_check = fleet_explorer()  # its own explorer: the one above keeps its defaults",
            "assert herd_check.png != fleet_explorer().png  # the setting redrew the figure\n"
            'assert herd_check.readout == FleetExplorer.readout_for(jitter="full")',
        ),
        ("herd_check.set(cap=100)", 'assert herd_check.message == ""'),
        (
            'herd_budgets = {name: outage_fleet("full", retry_budget=budget).run()',
            "assert [run.served for run in herd_budgets.values()] == [998, 0, 0]\n"
            "assert [run.total_requests for run in herd_budgets.values()] == [5937, 1000, 2099]\n"
            "assert [run.recovery_ms for run in herd_budgets.values()] == [4870, 10, 10]\n"
            'assert herd_budgets["gRPC throttling"].reasons() == {"retry_budget": 1000}\n'
            'assert herd_budgets["SRE budget"].reasons() == '
            '{"max_attempts": 99, "retry_budget": 901}',
        ),
        (
            'storm_check = fleet_explorer("storm", budget="grpc")  '
            '# its own: the one above keeps "none"',
            'assert storm_check.readout == StormExplorer.readout_for(budget="grpc")',
        ),
        (
            "aws_check = contention_explorer()  "
            "# its own explorer: the one above keeps its defaults",
            "assert aws_check.readout == ContentionExplorer.readout_for(\n"
            '    strategy="decorrelated", clients=190)',
        ),
    ],
    "09_beyond_the_lessons": [
        (
            "breaker_view.set(base_failure=0.2)",
            "assert breaker_view.readout == RateBreakerExplorer.readout_for(base_failure=0.2)",
        ),
        (
            "hedge_view.set(hedging_delay=100)",
            "assert hedge_view.readout == HedgingExplorer.readout_for(hedging_delay=100)",
        ),
        (
            'throttle_view.set(throttle="adaptive")',
            'assert throttle_view.readout == ThrottleExplorer.readout_for(throttle="adaptive")',
        ),
        (
            'meta_view.set(budget="10%")',
            'assert meta_view.readout == MetastableExplorer.readout_for(budget="10%")',
        ),
    ],
}


def first_line(source: str) -> str:
    return source.splitlines()[0] if source.strip() else ""


def page_steps(stem: str, checks: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The code to run for ``stem``: (what it is, its code), every code cell of the
    English instructor edition up to the last check, each check right after the one
    cell whose first line it names."""
    nb = builder.make_notebook(stem, builder.INSTRUCTOR)
    code = [c.source for c in nb.cells if c.cell_type == "code"]
    steps: list[tuple[str, str]] = []
    last = 0
    for after, check in checks:
        found = [i for i, source in enumerate(code) if first_line(source) == after]
        assert len(found) == 1, (
            f"{stem}: {len(found)} code cells begin with {after!r}; the check "
            f"{first_line(check)!r} runs after exactly one (update CHECKS)"
        )
        assert found[0] + 1 >= last, f"{stem}: the checks of CHECKS are out of page order"
        steps += [(f"cell {first_line(s)!r}", s) for s in code[last : found[0] + 1]]
        steps.append((f"check {first_line(check)!r}", check))
        last = found[0] + 1
    return steps


@pytest.fixture
def shell(monkeypatch: pytest.MonkeyPatch) -> InteractiveShell:
    """A fresh IPython namespace, run from the instructor edition's folder (as the build
    runs the page), drawing with Matplotlib's file-only backend."""
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.chdir(builder.INSTRUCTOR.out)
    ip = InteractiveShell.instance()
    ip.reset(new_session=True)
    yield ip
    ip.reset(new_session=True)


@pytest.mark.parametrize("stem", sorted(CHECKS))
def test_the_page_passes_its_checks(stem: str, shell: InteractiveShell) -> None:
    for what, source in page_steps(stem, CHECKS[stem]):
        result = shell.run_cell(source, silent=True)
        error = result.error_before_exec or result.error_in_exec
        assert error is None, f"{stem}: {what} failed: {error!r}"


def test_a_check_that_fails_is_reported() -> None:
    """The check runs in the page's namespace: a wrong expectation fails."""
    shell = InteractiveShell.instance()
    shell.reset(new_session=True)
    here = os.getcwd()
    try:
        os.chdir(Path(builder.INSTRUCTOR.out))
        steps = page_steps("04_circuit_breaker", [("explorer = breaker_explorer()", "")])
        for _, source in steps[:-1]:
            assert shell.run_cell(source, silent=True).error_in_exec is None
        wrong = "assert explorer.readout == BreakerExplorer.readout_for(step=6)"
        assert shell.run_cell(wrong, silent=True).error_in_exec is not None
    finally:
        os.chdir(here)
        shell.reset(new_session=True)
