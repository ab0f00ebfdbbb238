"""Every notebook works in every documented class install: what the notebooks and the
package import is in the ``classroom`` extra (the workshop hub's venv, nbgrader's) and
in the Kubernetes image (classroom/Dockerfile). Notebook 08 once raised ImportError
under ``[classroom]``: it lacked the bridge extra (tenacity)."""

from __future__ import annotations

import ast
import contextlib
import importlib.metadata as md
import re
import sys
from pathlib import Path

import pytest
from _tools import load_tool

ROOT = Path(__file__).resolve().parents[2]
tomllib = pytest.importorskip("tomllib", reason="Python 3.11+ reads pyproject.toml")
requirements = pytest.importorskip("packaging.requirements")


def imported_distributions() -> dict[str, set[str]]:
    """The distributions whose modules the notebooks' sources and the package import,
    each with a file that imports it."""
    providers = md.packages_distributions()
    found: dict[str, set[str]] = {}
    builder = load_tool("build_notebooks")
    files = [*builder.sources(), *(ROOT / "retrylab").rglob("*.py")]
    for path in files:
        text = path.read_text()
        code = builder.as_python(text) if path.suffix == builder.SUFFIX else text
        for node in ast.walk(ast.parse(code)):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top in sys.stdlib_module_names or top == "retrylab":
                    continue
                assert top in providers, f"{path}: no installed distribution provides {top}"
                for dist in providers[top]:
                    found.setdefault(canonical(dist), set()).add(str(path.relative_to(ROOT)))
    return found


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def closure(extras: set[str]) -> set[str]:
    """Every distribution ``pip install retrylab[extras]`` brings (the installed ones'
    own requirements followed, retrylab's own read from pyproject.toml)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    todo = list(project["dependencies"])
    seen_extras: set[str] = set()
    pending = set(extras)
    while pending:
        extra = pending.pop()
        seen_extras.add(extra)
        for spec in project["optional-dependencies"][extra]:
            req = requirements.Requirement(spec)
            if canonical(req.name) == "retrylab":
                pending |= set(req.extras) - seen_extras
            else:
                todo.append(spec)
    dists: set[str] = set()
    while todo:
        req = requirements.Requirement(todo.pop())
        if req.marker is not None and not req.marker.evaluate({"extra": ""}):
            continue
        name = canonical(req.name)
        if name in dists:
            continue
        dists.add(name)
        # one not installed here: its own requirements are not followed
        with contextlib.suppress(md.PackageNotFoundError):
            todo.extend(md.requires(name) or [])
    return dists


def dockerfile_extras() -> set[str]:
    text = (ROOT / "classroom" / "Dockerfile").read_text()
    (extras,) = re.findall(r'"/tmp/retrylab\[([a-z,]+)\]"', text)
    return set(extras.split(","))


@pytest.mark.parametrize("install", ["classroom extra", "Kubernetes image"])
def test_a_class_install_brings_everything_the_notebooks_import(install: str) -> None:
    extras = {"classroom"} if install == "classroom extra" else dockerfile_extras()
    brought = closure(extras)
    missing = {
        dist: sorted(files)[:2]
        for dist, files in imported_distributions().items()
        if dist not in brought
    }
    assert not missing, f"the {install} lacks {missing}"


def test_the_hub_extra_set_is_what_the_hub_config_uses() -> None:
    brought = closure({"classroom"})
    assert {
        "jupyterhub",
        "jupyterhub-idle-culler",
        "jupyterhub-firstuseauthenticator",
        "nbgitpuller",
        "tenacity",
        "urllib3",
    } <= brought
