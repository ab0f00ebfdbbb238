"""The tests are shaped like the package: one folder a layer, no test file flat in tests/.

Which folder holds a test, decided in this order (the first that fits):

============  ==================================================================
folder        what its tests are about
============  ==================================================================
classroom     the class's setup: reads ``classroom/``, starts a hub, nbgrader,
              Voila or nbgitpuller
project       the repository as a whole: its layers, its files agreeing with
              each other, this layout, the docstrings' references
notebooks     the notebooks: reads or builds ``notebooks/`` (its sources, the
              built editions, ``tools/build_notebooks.py``, ``tools/twins.py``)
exercises     otherwise the highest layer of ``retrylab`` the test imports
lessons       (directly, a name of ``from retrylab import ...`` counting as the
viz           layer that defines it, or through the ``tools/`` script it runs):
lab, sim      i18n < core < sim, lab < viz < lessons < exercises
core, i18n
browser       the browser tests (JupyterLab in headless Chromium), a package
============  ==================================================================

A test in a layer's folder imports nothing of a layer above it: the check below
reads every import, as ``test_layers.py`` does for the package. The shared helpers
(``tests/_waiting.py``, ``_processes.py``, ``_tools.py``, ...) stay in ``tests/``.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

import retrylab

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"
LAYERS = ("i18n", "core", "sim", "lab", "viz", "lessons", "exercises")
FOLDERS = {*LAYERS, "notebooks", "classroom", "project", "browser"}


def layers_imported(path: Path) -> set[str]:
    """The layers of retrylab a file imports, ``from retrylab import X`` as X's layer."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            modules = [(alias.name, []) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            modules = [(node.module, [alias.name for alias in node.names])]
        else:
            continue
        for module, names in modules:
            parts = module.split(".")
            if parts[0] != "retrylab":
                continue
            if len(parts) > 1:
                found.add(parts[1])
                continue
            for name in names:
                home = getattr(getattr(retrylab, name, None), "__module__", "") or ""
                found.update(home.split(".")[1:2])
    return found & set(LAYERS)


def folder_for(path: Path) -> str:
    """Where the table above puts a test file (a guess for classroom and notebooks)."""
    text = path.read_text(encoding="utf-8")
    if "classroom" in text:
        return "classroom"
    if "notebooks" in text or "build_notebooks" in text:
        return "notebooks"
    imported = layers_imported(path)
    return max(imported, key=LAYERS.index) if imported else "project"


def test_no_test_file_sits_flat_in_tests() -> None:
    flat = sorted(TESTS.glob("test_*.py"))
    assert not flat, (
        "move each into its layer's folder (tests/project/test_layout.py): "
        + ", ".join(f"git mv tests/{p.name} tests/{folder_for(p)}/" for p in flat)
    )


def test_every_test_folder_is_one_of_the_table() -> None:
    folders = {p.parent.relative_to(TESTS).parts[0] for p in TESTS.glob("*/**/test_*.py")}
    assert folders <= FOLDERS, sorted(folders - FOLDERS)


@pytest.mark.parametrize(
    "path",
    sorted(p for layer in LAYERS for p in (TESTS / layer).glob("test_*.py")),
    ids=lambda p: str(p.relative_to(TESTS)),
)
def test_a_test_imports_no_layer_above_its_folder(path: Path) -> None:
    folder = path.parent.name
    above = {layer for layer in layers_imported(path) if LAYERS.index(layer) > LAYERS.index(folder)}
    assert not above, f"{path.relative_to(ROOT)} imports {sorted(above)}: its folder is the highest"


def test_the_slow_lists_name_tests_that_exist() -> None:
    """A renamed file or test listed as slow would silently join the quick tier."""
    conftest = importlib.import_module("conftest")
    files = {p.name for p in TESTS.rglob("test_*.py")}
    assert files >= conftest.SLOW_FILES, sorted(conftest.SLOW_FILES - files)
    source = "\n".join(p.read_text(encoding="utf-8") for p in TESTS.rglob("test_*.py"))
    missing = [name for name in conftest.SLOW_TESTS if f"def {name.split('[')[0]}(" not in source]
    assert not missing, missing
