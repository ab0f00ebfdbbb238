"""One way for the tests to load a script from ``tools/`` (they are not a package), and
one to import a test module of another folder of ``tests/``.

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


def load_test(name: str) -> ModuleType:
    """The test module ``tests/<folder>/<name>.py``, imported as pytest imports it.

    pytest puts a test file's own folder on ``sys.path`` and imports it by its name,
    so a test imports another of its folder by name; one of another folder needs its
    folder on the path first, which this puts there (as pytest would). The import goes
    through pytest's assertion rewriting, and pytest finds it already imported.
    """
    if name not in sys.modules:
        (path,) = (ROOT / "tests").glob(f"*/{name}.py")
        if str(path.parent) not in sys.path:
            sys.path.insert(0, str(path.parent))
    return importlib.import_module(name)
