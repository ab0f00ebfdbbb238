"""The package's map in CONTRIBUTING.md: every module of every layer, with what it holds.

    python tools/package_map.py          rewrite the map between its markers
    python tools/package_map.py --check  exit 1 if the map is not today's

Each row is a module and the first sentence of its docstring, so the map says what
the code says and cannot leave a module out; ``tests/project/test_project.py`` runs --check.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "retrylab"
DOC = ROOT / "CONTRIBUTING.md"
BEGIN = "<!-- package map: tools/package_map.py writes what follows -->"
END = "<!-- end of the package map -->"
#: The layers, lowest first: imports only run from a later one to an earlier one.
LAYERS = ("i18n", "core", "sim", "lab", "viz", "lessons", "exercises")


def first_sentence(path: Path) -> str:
    """The first sentence of a module's docstring, on one line."""
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    text = " ".join(doc.split("\n\n", 1)[0].split())
    if ". " in text:
        text = text.split(". ", 1)[0] + "."
    return text.replace("|", "\\|")


def package_map() -> str:
    """The map: a table per layer, a row per module (``__init__`` is the layer's row)."""
    parts = []
    for layer in LAYERS:
        folder = PACKAGE / layer
        parts.append(f"**`retrylab/{layer}/`**: {first_sentence(folder / '__init__.py')}\n")
        parts.append("| module | what it holds |\n|---|---|")
        for path in sorted(folder.rglob("*.py")):
            if path.name == "__init__.py" and path.parent == folder:
                continue
            name = path.relative_to(folder).with_suffix("").as_posix()
            parts.append(f"| `{name}` | {first_sentence(path)} |")
        parts.append("")
    return "\n".join(parts)


def rewritten(text: str) -> str:
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{BEGIN}\n\n{package_map()}\n{END}{tail}"


def main(argv: list[str]) -> int:
    text = DOC.read_text(encoding="utf-8")
    new = rewritten(text)
    if "--check" in argv:
        if new != text:
            print("CONTRIBUTING.md's package map is stale: run python tools/package_map.py")
            return 1
        return 0
    DOC.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
