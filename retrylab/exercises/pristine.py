"""The package as it was imported: what an answer changed in it, named and put back.

A checker judges against retrylab's own code, so an answer that changes that code
(``Backoff.next_wait = lambda *a: 7``, ``Feedback.__bool__ = ...``) would bend the
reference, or the verdict, and stay changed for every later cell. :func:`restore`
compares the functions, classes and constants of every ``retrylab`` module, and every
attribute of the classes they define, with those captured the first time it saw the
module (at import of :mod:`retrylab.exercises` for the modules loaded by then); it
puts back what differs and returns the names, for the verdict to say
("your answer changed Backoff.next_wait").

>>> from retrylab.core.backoff import Backoff
>>> real = Backoff.next_wait
>>> Backoff.next_wait = lambda *a, **k: 7
>>> restore()
['Backoff.next_wait']
>>> Backoff.next_wait is real, restore()
(True, [])
"""

from __future__ import annotations

import contextlib
import operator
import sys
from types import BuiltinFunctionType, FunctionType, ModuleType
from typing import Any

#: Module values compared: what a module defines (not state it may keep).
_KEPT = (
    type,
    FunctionType,
    BuiltinFunctionType,
    ModuleType,
    int,
    float,
    str,
    bytes,
    tuple,
    frozenset,
)
_MISSING = object()
#: Module settings a test (or a teacher) may tune: the checks' bounds.
_TUNABLE = ("LIMIT", "TICK", "GRACE", "PATROL")
#: What Python itself adds to a class on first use: copyreg caches ``__slotnames__`` the
#: first time an instance is copied or pickled (a breaker's copy, a fleet's records).
_RUNTIME = frozenset({"__slotnames__"})


class _Owner:
    """A module or class and its attributes as first seen."""

    __slots__ = ("label", "names", "owner", "size", "values")

    def __init__(self, owner: Any, label: str, items: dict[str, Any]) -> None:
        self.owner, self.label = owner, label
        self.names = tuple(items)
        self.values = tuple(items.values())
        self.size = len(vars(owner))

    def changed(self) -> list[str]:
        now = vars(self.owner)
        found = [
            name
            for name, differs in zip(
                self.names,
                map(
                    operator.is_not,
                    map(now.get, self.names, [_MISSING] * len(self.names)),
                    self.values,
                ),
                strict=True,
            )
            if differs
        ]
        if isinstance(self.owner, type) and len(now) != self.size:
            found += [name for name in now if name not in self.names and name not in _RUNTIME]
        return found

    def put_back(self, name: str) -> None:
        if name in self.names:
            setattr(self.owner, name, self.values[self.names.index(name)])
        else:
            delattr(self.owner, name)


_owners: list[_Owner] = []
_seen: set[str] = set()
_modules = [0]  #: how many modules sys.modules held at the last capture


def _capture() -> None:
    """Capture every retrylab module not seen yet, and the classes it defines."""
    if len(sys.modules) == _modules[0]:
        return
    _modules[0] = len(sys.modules)
    for name, module in list(sys.modules.items()):
        if name in _seen or not (name == "retrylab" or name.startswith("retrylab.")):
            continue
        if not isinstance(module, ModuleType):
            continue
        _seen.add(name)
        items = vars(module)
        _owners.append(
            _Owner(
                module,
                name,
                {
                    k: v
                    for k, v in items.items()
                    if isinstance(v, _KEPT) and not k.startswith("__") and not k.endswith(_TUNABLE)
                },
            )
        )
        for value in list(items.values()):
            if isinstance(value, type) and value.__module__ == name:
                _owners.append(_Owner(value, value.__qualname__, dict(vars(value))))


def restore() -> list[str]:
    """Put back what differs from the package as first seen; the changed names."""
    _capture()
    names: list[str] = []
    for owner in _owners:
        for name in owner.changed():
            with contextlib.suppress(AttributeError, TypeError):  # refused: still named
                owner.put_back(name)
            names.append(
                f"{owner.label.rsplit('.', 1)[-1]}.{name}"
                if isinstance(owner.owner, ModuleType)
                else f"{owner.label}.{name}"
            )
    return names


def capture() -> None:
    """Capture the modules loaded by now (retrylab.exercises calls it once defined)."""
    _capture()
