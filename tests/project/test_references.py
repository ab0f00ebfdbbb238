"""Every Sphinx cross-reference in the package resolves to an object that exists.

A docstring (or a ``#:`` comment) that says :func:`backoff_delay` where the function
is ``Backoff.next_wait`` points a reader at nothing, and no Sphinx build is needed to
see it: each ``:func:``, ``:class:``, ``:meth:``, ``:attr:``, ``:data:``, ``:mod:``,
``:exc:`` and ``:obj:`` target is looked up by import and attribute access, with the
Python domain's rules: a leading ``~`` only shortens the text shown; a name is tried
in the class the reference sits in, then its module, then as a full dotted path; a
leading ``.`` also matches any object of the package whose dotted name ends so.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import inspect
import pkgutil
import re
from functools import cache
from pathlib import Path
from types import ModuleType

import pytest

import retrylab

ROOT = Path(__file__).resolve().parents[2]
ROLE = re.compile(r":(func|class|meth|attr|data|mod|exc|obj):`([^`<]*?)(?:\s*<([^`>]+)>)?`")


def modules() -> list[str]:
    names = ["retrylab"]
    for info in pkgutil.walk_packages(retrylab.__path__, "retrylab."):
        names.append(info.name)
    return sorted(names)


def resolve_dotted(path: str) -> bool:
    """``a.b.c`` names an object: the longest importable module, then attributes."""
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for i, name in enumerate(parts[cut:], cut):
            if not has(obj, name):
                return False
            obj = getattr(obj, name, None) if i < len(parts) - 1 else obj
        return True
    return hasattr(builtins, path)


def has(owner: object, name: str) -> bool:
    """``owner.name`` exists: an attribute, or a class's field or instance attribute."""
    if hasattr(owner, name):
        return True
    if not inspect.isclass(owner):
        return False
    for klass in owner.__mro__:
        if name in vars(klass).get("__annotations__", {}):  # reading never creates it
            return True
        try:
            source = inspect.getsource(klass)
        except (OSError, TypeError):
            continue
        if re.search(rf"\bself\.{re.escape(name)}\s*[:=]", source):
            return True
    return False


@cache
def package_names() -> frozenset[str]:
    """Every dotted name of the package's modules, their top-level objects and members."""
    found: set[str] = set()
    for name in modules():
        module = importlib.import_module(name)
        found.add(name)
        for attr, value in vars(module).items():
            found.add(f"{name}.{attr}")
            if inspect.isclass(value):
                found.update(f"{name}.{attr}.{member}" for member in vars(value))
    return frozenset(found)


def classes_at(tree: ast.Module) -> list[tuple[int, int, str]]:
    """(first line, last line, dotted class name) of every class, outer ones first."""
    spans: list[tuple[int, int, str]] = []

    def walk(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                name = f"{prefix}{child.name}"
                spans.append((child.lineno, child.end_lineno or child.lineno, name))
                walk(child, name + ".")
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                walk(child, prefix)

    walk(tree, "")
    return spans


def resolves(module: ModuleType, klass: str | None, target: str) -> bool:
    target = target.strip().lstrip("~").removesuffix("()")
    suffix = target.startswith(".")
    target = target.lstrip(".")
    tries = [f"{module.__name__}.{target}", target]
    if klass:
        tries.insert(0, f"{module.__name__}.{klass}.{target}")
        if "." in klass:  # a nested class also sees its outer class's names
            tries.insert(1, f"{module.__name__}.{klass.rsplit('.', 1)[0]}.{target}")
    if any(resolve_dotted(t) for t in tries):
        return True
    if suffix:
        return any(name.endswith("." + target) for name in package_names())
    return False


def references() -> list[tuple[str, int, str, str, str | None]]:
    """(module, line, role, target, enclosing class) of every reference in retrylab."""
    found = []
    for name in modules():
        module = importlib.import_module(name)
        path = Path(module.__file__ or "")
        text = path.read_text(encoding="utf-8")
        spans = classes_at(ast.parse(text))
        for number, line in enumerate(text.splitlines(), 1):
            for match in ROLE.finditer(line):
                target = match.group(3) or match.group(2)
                inner = [s for s in spans if s[0] <= number <= s[1]]
                klass = inner[-1][2] if inner else None
                found.append((name, number, match.group(1), target, klass))
    return found


REFERENCES = references()


def test_the_package_has_references_to_check() -> None:
    assert len(REFERENCES) > 100


def test_every_cross_reference_resolves() -> None:
    broken = [
        f"{module.replace('.', '/')}.py:{line}: :{role}:`{target}`"
        for module, line, role, target, klass in REFERENCES
        if not resolves(importlib.import_module(module), klass, target)
    ]
    assert not broken, "points at nothing:\n" + "\n".join(broken)


@pytest.mark.parametrize(
    ("target", "ok"),
    [
        ("~retrylab.core.policy.RetryPolicy", True),
        ("RetryPolicy.run", True),
        (".Backoff.next_wait", True),
        ("retrylab.core.policy.NoSuchThing", False),
        ("backoff_delay", False),
        ("int", True),
    ],
)
def test_the_rules_resolve_what_sphinx_does(target: str, ok: bool) -> None:
    assert resolves(importlib.import_module("retrylab.core.policy"), None, target) is ok
