"""Every slider explorer the package defines, found by walking ``retrylab.viz``.

A benchmark or a test that must cover every explorer asks here, so a new
explorer module is covered with no edit anywhere else. Base classes that
leave :meth:`~retrylab.viz.explorer.Explorer.make_controls` to a subclass are
left out: they cannot be shown.

>>> names = [c.__name__ for c in explorer_classes()]
>>> "BackoffExplorer" in names and "StormExplorer" in names and "Explorer" not in names
True
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil

from .explorer import Explorer

__all__ = ["explorer_classes"]


def _has_controls(cls: type[Explorer]) -> bool:
    """False for a base class that leaves ``make_controls`` to its subclasses."""
    try:
        cls.make_controls()
    except NotImplementedError:
        return False
    return True


def explorer_classes() -> list[type[Explorer]]:
    """Every concrete :class:`Explorer` subclass defined in a ``retrylab.viz`` module,
    module by module (alphabetical), each module's in name order."""
    from . import __path__ as here

    found: dict[str, type[Explorer]] = {}
    for info in pkgutil.iter_modules(here, prefix=f"{__package__}."):
        mod = importlib.import_module(info.name)
        for _, obj in inspect.getmembers(mod, inspect.isclass):
            if (
                issubclass(obj, Explorer)
                and obj is not Explorer
                and obj.__module__ == mod.__name__
                and not inspect.isabstract(obj)
                and _has_controls(obj)
            ):
                found[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return list(found.values())
