"""One way for the tests to load a script from ``tools/`` (they are not a package).

>>> load_tool("twins") is load_tool("twins")
True
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]


def load_tool(name: str) -> ModuleType:
    """``tools/<name>.py`` as a module, loaded once and registered as ``name``.

    Registered before it runs, because dataclasses (and pickling, for the
    builder's worker processes) look a class's module up in ``sys.modules``.
    """
    loaded = sys.modules.get(name)
    path = ROOT / "tools" / f"{name}.py"
    if loaded is not None and Path(getattr(loaded, "__file__", "") or "") == path:
        return loaded
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise FileNotFoundError(f"no tool named {name!r}: {path} does not exist")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module
