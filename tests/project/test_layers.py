"""The package's layers: imports run only downward, and each layer keeps to its job.

    i18n  <-  core  <-  sim, lab  <-  viz  <-  lessons  <-  exercises  <-  notebooks

A module may import from its own layer or from a lower one; ``sim`` and ``lab``
are peers and import neither each other nor anything above. ``retrylab/__init__.py``
is the facade that re-exports the public API, so it is the one module allowed to
import from every layer. The imports are read from the source (AST), so nothing
here depends on a third-party tool or on what happens to be installed.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PKG = ROOT / "retrylab"

#: Layer -> rank; a module may import only ranks below its own (or its own layer).
RANK = {"i18n": 0, "core": 1, "sim": 2, "lab": 2, "viz": 3, "lessons": 4, "exercises": 5}
#: Third-party or standard modules a layer must never import.
BANNED = {
    "i18n": {
        "matplotlib",
        "ipywidgets",
        "IPython",
        "numpy",
        "pandas",
        "socket",
        "http",
        "httpx",
        "time",
        "datetime",
    },
    "core": {
        "matplotlib",
        "ipywidgets",
        "IPython",
        "socket",
        "socketserver",
        "http",
        "urllib",
        "urllib3",
        "httpx",
        "h11",
        "selectors",
        "time",
        "datetime",
    },
    "sim": {
        "matplotlib",
        "ipywidgets",
        "IPython",
        "socket",
        "socketserver",
        "http",
        "urllib",
        "urllib3",
        "httpx",
        "h11",
        "selectors",
    },
    "lab": {"matplotlib", "ipywidgets", "IPython"},
    "lessons": {"matplotlib", "ipywidgets", "socket", "socketserver"},
    "exercises": {"matplotlib", "ipywidgets", "socket", "socketserver"},
}
#: Where the drawing libraries and the sockets may appear at all.
ONLY_IN = {"matplotlib": {"viz"}, "ipywidgets": {"viz"}, "socket": {"lab"}, "socketserver": {"lab"}}


def modules() -> list[Path]:
    return sorted(p for p in PKG.rglob("*.py"))


def dotted(path: Path) -> list[str]:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return parts[:-1] if parts[-1] == "__init__" else parts


def imports(path: Path) -> list[tuple[int, str]]:
    """(line, absolute module name) for every import in ``path``, lazy ones included."""
    tree = ast.parse(path.read_text(), filename=str(path))
    here = dotted(path)
    package = here if path.name == "__init__.py" else here[:-1]
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
                if not node.module:  # from . import x: x may be a module
                    found += [(node.lineno, f"{mod}.{a.name}") for a in node.names]
                    continue
            else:
                mod = node.module or ""
            found.append((node.lineno, mod))
    return found


def layer_of(parts: list[str]) -> str | None:
    return parts[1] if len(parts) > 1 and parts[1] in RANK else None


def test_every_module_sits_in_a_layer() -> None:
    loose = [
        str(p.relative_to(ROOT))
        for p in modules()
        if layer_of(dotted(p)) is None and p != PKG / "__init__.py"
    ]
    assert loose == [], f"modules outside the layer folders: {loose}"


def arrows_up() -> list[str]:
    bad = []
    for path in modules():
        if path == PKG / "__init__.py":
            continue
        src = layer_of(dotted(path))
        assert src is not None
        for line, mod in imports(path):
            parts = mod.split(".")
            if parts[0] == "retrylab":
                dst = layer_of(parts)
                if dst is None:
                    if len(parts) == 1:
                        bad.append(
                            f"{path.relative_to(ROOT)}:{line} imports the facade "
                            f"'retrylab' (import from the layer instead)"
                        )
                    continue
                if dst != src and RANK[dst] >= RANK[src]:
                    bad.append(f"{path.relative_to(ROOT)}:{line} ({src}) imports {mod} ({dst})")
            else:
                top = parts[0]
                if top in BANNED.get(src, set()):
                    bad.append(f"{path.relative_to(ROOT)}:{line} ({src}) imports {mod}")
                if top in ONLY_IN and src not in ONLY_IN[top]:
                    bad.append(
                        f"{path.relative_to(ROOT)}:{line} ({src}) imports {mod}, "
                        f"which belongs in {sorted(ONLY_IN[top])}"
                    )
    return bad


def test_imports_only_run_downward() -> None:
    assert arrows_up() == []


def test_the_walker_sees_an_upward_arrow(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The check itself can fail: a core module importing the viz layer is caught."""
    fake = tmp_path / "retrylab"
    (fake / "core").mkdir(parents=True)
    (fake / "__init__.py").write_text("")
    (fake / "core" / "__init__.py").write_text("")
    (fake / "core" / "bad.py").write_text(
        "from ..viz.plots import herd_data\nimport matplotlib.pyplot\ndef f():\n    import socket\n"
    )
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    monkeypatch.setattr(sys.modules[__name__], "PKG", fake)
    bad = arrows_up()
    assert any("imports retrylab.viz.plots (viz)" in b for b in bad)
    assert any("imports matplotlib.pyplot" in b for b in bad)
    assert any("imports socket" in b for b in bad)


BLOCK_DRAWING = """
import importlib.abc, sys
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("matplotlib", "ipywidgets", "IPython"):
            raise ModuleNotFoundError(f"No module named {name!r}")
        return None
sys.meta_path.insert(0, Block())
"""


def run_code(code: str) -> subprocess.CompletedProcess[str]:
    """``code`` run in a fresh interpreter from the checkout."""
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )


def run_python(code: str) -> subprocess.CompletedProcess[str]:
    """``code`` run in a fresh interpreter where Matplotlib and ipywidgets cannot load."""
    return run_code(BLOCK_DRAWING + code)


def test_base_install_needs_no_drawing_library() -> None:
    """Without matplotlib and ipywidgets, core, sim and lab all work."""
    done = run_python(
        "import retrylab\n"
        "from retrylab import Backoff, Mulberry32, Outcome, RetryPolicy, LabServer, contention\n"
        "import retrylab.lessons.outputs, retrylab.lessons.mobile_mistakes\n"
        "answers = iter([Outcome.http(503), Outcome.success()])\n"
        "r = RetryPolicy().run(lambda: next(answers), rng=Mulberry32(1), sleep=lambda ms: None)\n"
        "print(r.attempts, contention(5, 'full', runs=2).calls > 0)\n"
        "assert not any(m.startswith(('matplotlib', 'ipywidgets')) for m in sys.modules)\n"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["2", "True"]


def test_viz_without_matplotlib_names_the_extra() -> None:
    done = run_python("import retrylab.viz.backoff\n")
    assert done.returncode != 0
    assert "ImportError" in done.stderr
    assert 'pip install "retrylab[notebooks]"' in done.stderr


def test_star_import_without_the_bridge_extra() -> None:
    """An install without tenacity (the bridge extra) star-imports everything else; a
    bridge name asked for by name says which extra to install."""
    done = run_code(
        "import sys\n"
        "sys.modules['tenacity'] = None  # as if not installed: import fails, find_spec None\n"
        "from retrylab import *\n"
        "print('RetryPolicy' in dir(), 'to_tenacity' in dir())\n"
        "try:\n"
        "    from retrylab import to_tenacity\n"
        "except ImportError as e:\n"
        "    print('retrylab[bridge]' in str(e))\n"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "False", "True"]


def test_the_lab_is_imported_on_first_use() -> None:
    """A notebook that never opens the lab (02, 06, every kernel of a class opening them)
    loads neither httpx nor the lab's server; every public name still resolves."""
    done = run_code(
        "import sys, retrylab, retrylab.viz.explorers, retrylab.viz.fleet\n"
        "print(sorted(m for m in sys.modules if m.startswith(('httpx', 'retrylab.lab'))))\n"
        "from retrylab import *\n"
        "missing = [n for n in retrylab.__all__ if n not in retrylab._BRIDGE\n"
        "           and getattr(retrylab, n, None) is None]\n"
        "print(missing, LabServer.__module__, 'httpx' in sys.modules)\n"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:2] == ["[]", "[] retrylab.lab.server True"]


def lab_coupling(pkg: Path) -> tuple[list[str], list[str]]:
    """(import circles among the lab's modules, private members used across modules).

    A private member is a name with one leading underscore (not gettext's ``_``):
    imported from another lab module (``from .handler import _LIMIT``), or reached on
    something that is not ``self`` or ``cls`` (``lab._lock``). Imports under
    ``TYPE_CHECKING`` count.
    """
    graph: dict[str, set[str]] = {}
    private: list[str] = []
    for path in sorted((pkg / "lab").glob("*.py")):
        name = ".".join(dotted(path))
        graph[name] = {m for _, m in imports(path) if m.startswith("retrylab.lab.")}
        for node in ast.walk(ast.parse(path.read_text())):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.ImportFrom) and node.level == 1
                else []
            )  # from .x
            if isinstance(node, ast.Attribute) and not (
                isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")
            ):
                names = [node.attr]
            private += [
                f"{path.name}:{node.lineno} {n}"
                for n in names  # type: ignore[attr-defined]
                if n.startswith("_") and not n.startswith("__") and n != "_"
            ]
    circles: list[str] = []

    def visit(module: str, trail: list[str]) -> None:
        if module in trail:
            circles.append(" -> ".join([*trail[trail.index(module) :], module]))
            return
        for dst in sorted(graph.get(module, ())):
            visit(dst, [*trail, module])

    for module in graph:
        visit(module, [])
    return sorted(set(circles)), private


def test_the_lab_has_one_face_and_no_import_circle(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 39: the lab's modules import each other one way, and none reaches into
    another's private members (before: the handler used nine of LabServer's)."""
    assert lab_coupling(PKG) == ([], [])
    fake = tmp_path / "retrylab" / "lab"  # the check itself can fail
    fake.mkdir(parents=True)
    (fake / "a.py").write_text("from .b import _LIMIT\n")
    (fake / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
        "    from .a import x\ndef f(lab):\n    return lab._lock\n"
    )
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    circles, private = lab_coupling(tmp_path / "retrylab")
    assert len(circles) >= 1 and "retrylab.lab.b" in circles[0]
    assert private == ["a.py:1 _LIMIT", "b.py:5 _lock"]
