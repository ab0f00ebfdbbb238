"""The project's own files agree with each other (a newcomer's first ten minutes)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    tomllib = pytest.importorskip("tomli")


def names(requirements: list[str]) -> set[str]:
    return {re.split(r"[<>=!~ \[]", r.strip(), maxsplit=1)[0].lower() for r in requirements}


def conda_deps() -> list[str]:
    text = (ROOT / "environment.yml").read_text()
    deps = []
    for line in text.split("\ndependencies:\n", 1)[1].splitlines():
        m = re.match(r"^  - ([A-Za-z0-9_.\-]+.*)$", line)
        if m and not m.group(1).startswith("pip"):
            deps.append(m.group(1))
    return deps


def test_environment_yml_lists_the_same_dependencies() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    wanted = (names(project["dependencies"]) | names(extras["notebooks"])
              | names(extras["present"]) | names(extras["test"])) - {"retrylab"}
    have = names(conda_deps()) - {"python", "pip"}
    assert have == wanted
    assert "-e ." in (ROOT / "environment.yml").read_text()


def test_readme_commands_are_what_ci_runs() -> None:
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    assert ".venv/bin/python -m pytest" in readme and ".venv/bin/python -m pytest" in ci
    assert '.venv/bin/pip install -e ".[test,browser]"' in readme
    assert '.venv/bin/pip install -q -e ".[test,browser]"' in ci
    assert ".venv/bin/jupyter lab notebooks/00_start_here.ipynb" in readme


def test_readme_lists_every_notebook() -> None:
    readme = (ROOT / "README.md").read_text()
    for nb in sorted((ROOT / "notebooks").glob("*.ipynb")):
        assert nb.name in readme, f"README.md does not list {nb.name}"


def test_package_is_typed() -> None:
    assert (ROOT / "retrylab" / "py.typed").exists()


def test_readme_example_runs() -> None:
    import doctest

    result = doctest.testfile(str(ROOT / "README.md"), module_relative=False,
                              optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 3 and result.failed == 0
