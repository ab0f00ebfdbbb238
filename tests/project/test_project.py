"""The project's own files agree with each other (a newcomer's first ten minutes)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

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
    wanted = (
        names(project["dependencies"])
        | names(extras["notebooks"])
        | names(extras["present"])
        | names(extras["bridge"])
    )
    have = names(conda_deps()) - {"python", "pip"}
    # conda-forge's matplotlib without the Qt backend is matplotlib-base
    have = {"matplotlib" if n == "matplotlib-base" else n for n in have}
    assert have == wanted
    assert not have & names(extras["test"]), "test tools belong in the test extra, not here"
    text = (ROOT / "environment.yml").read_text()
    assert "-e ." in text
    assert re.search(r"^  - python=3\.\d+$", text, re.M), "repo2docker needs python=X.Y"


def test_readme_commands_are_what_ci_runs() -> None:
    """The README's two commands are ./run's, and CI runs the test one as it is."""
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    run = (ROOT / "run").read_text()
    assert "```bash\n./run lab\n```" in readme and "./run test" in readme
    assert "\n./run test\n" in ci and "./run install test,browser\n" in ci
    assert "CI=true ./run browser" in ci
    assert ".venv/bin/python -m pytest -n auto" in run
    assert '.venv/bin/pip install -q -e ".[$1]" -c constraints.txt' in run
    assert '[ "$(id -u)" = 0 ] && root=(--allow-root)' in run  # as root, in a container
    assert 'JUPYTER_CONFIG_PATH="$PWD/jupyter-config"' in run


def test_run_explains_itself() -> None:
    """``./run`` is an executable bash script; without a command it prints its commands."""
    import os
    import subprocess

    assert os.access(ROOT / "run", os.X_OK)
    subprocess.run(["bash", "-n", str(ROOT / "run")], check=True)
    done = subprocess.run([str(ROOT / "run")], capture_output=True, text=True)
    assert done.returncode == 2
    for command in ("./run lab", "./run test", "./run quick", "./run browser"):
        assert command in done.stdout


def test_readme_lists_every_notebook() -> None:
    readme = (ROOT / "README.md").read_text()
    for nb in sorted((ROOT / "notebooks").glob("*.ipynb")):
        assert nb.name in readme, f"README.md does not list {nb.name}"


def test_package_is_typed() -> None:
    assert (ROOT / "retrylab" / "py.typed").exists()


def test_readme_example_runs() -> None:
    import doctest

    result = doctest.testfile(
        str(ROOT / "README.md"), module_relative=False, optionflags=doctest.NORMALIZE_WHITESPACE
    )
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


def test_no_absolute_path_of_one_machine() -> None:
    """Nothing in the project names a folder of the machine it was written on (the
    Jupyter images' /home/jovyan is every container's, not one machine's)."""
    import shutil
    import subprocess

    if not (ROOT / ".git").exists() or shutil.which("git") is None:
        pytest.skip("not a git checkout")
    pattern = r"/wor[k]/|/roo[t]/|/hom[e]/[a-z]"
    found = subprocess.run(
        ["git", "grep", "-n", "-I", "-E", pattern], cwd=ROOT, capture_output=True, text=True
    ).stdout
    found = "\n".join(line for line in found.splitlines() if "/home/jovyan" not in line)
    assert found == "", found


def test_contributings_package_map_is_todays() -> None:
    """CONTRIBUTING.md's map names every module with its docstring's first sentence."""
    import subprocess

    done = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "package_map.py"), "--check"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout
