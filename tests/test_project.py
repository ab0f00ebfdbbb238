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


def test_environment_yml_is_the_runtime_of_pyproject() -> None:
    """environment.yml (students, Binder) = base + notebooks + present extras, no test tools."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    wanted = (names(project["dependencies"]) | names(extras["notebooks"])
              | names(extras["present"]) | names(extras["bridge"]))
    have = names(conda_deps()) - {"python", "pip"}
    # conda-forge's matplotlib without the Qt backend is matplotlib-base
    have = {"matplotlib" if n == "matplotlib-base" else n for n in have}
    assert have == wanted
    assert not have & names(extras["test"]), "test tools belong in the test extra, not here"
    text = (ROOT / "environment.yml").read_text()
    assert "-e ." in text
    assert re.search(r"^  - python=3\.\d+$", text, re.M), "repo2docker needs python=X.Y"


def test_readme_commands_are_what_ci_runs() -> None:
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    command = ".venv/bin/python -m pytest -n auto\n"
    assert command in readme and command in ci
    browser = ".venv/bin/python -m pytest -m browser tests/browser -n 2"
    assert browser in readme and browser in ci
    assert '.venv/bin/pip install -e ".[test,browser]" -c constraints.txt' in readme
    assert '.venv/bin/pip install -q -e ".[test,browser]" -c constraints.txt' in ci
    assert ".venv/bin/jupyter lab notebooks/00_start_here.ipynb" in readme
    assert '$([ "$(id -u)" = 0 ] && echo --allow-root)' in readme


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


def test_constraints_pin_every_dependency() -> None:
    """constraints.txt pins (==) every dependency the committed outputs depend on."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = names(project["dependencies"])
    for extra in project["optional-dependencies"].values():
        wanted |= names(extra)
    pins = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        if line and not line.startswith("#"):
            name, _, rest = line.partition("==")
            pins[name.strip().lower().replace("_", "-")] = rest
    missing = sorted(n for n in wanted - {"retrylab"} if n.replace("_", "-") not in pins)
    assert missing == [], f"constraints.txt does not pin {missing}: run tools/freeze_constraints.sh"
