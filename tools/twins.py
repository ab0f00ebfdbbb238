"""Turkish twins that cannot go stale silently.

A Turkish cell (tagged ``tr``) right after an English one of its kind translates
it: markdown, or a code cell that shows the lesson's data in the lesson's words
(``/olcumler``, ``deger``). It records a short hash of the English text it was
made from, in the cell's metadata in the source (the MyST lines that start the
cell)::

    +++ {"tags": ["tr"], "en_hash": "1a2b3c4d"}

    ```{code-cell}
    :tags: [tr]
    :en_hash: 1a2b3c4d

(a new twin may start as ``+++ {"tags": ["tr"]}``, or a code cell with only
``:tags: [tr]``: stamping adds the hash).

When the English cell changes and its twin does not, the hashes differ and
``tests/notebooks/test_twins.py`` fails, naming the notebook, the English cell's first
line and the twin's. After translating the change, stamp the twin again:

    python tools/twins.py check [NAME ...]           list stale or unstamped twins (exit 1)
    python tools/twins.py stamp NAME [--line TEXT]   record the English hash in NAME's
                                                     twins (only those whose English cell's
                                                     first line contains TEXT)
    python tools/twins.py stamp --new NAME           only the twins without a hash yet (a new
                                                     cell's; a stale twin stays stale)

The builder (tools/build_notebooks.py) accepts the key and leaves it out of the
editions: a twin takes its English cell's metadata.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import jupytext
import yaml

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "notebooks" / "src"
SUFFIX, FORMAT = ".md", "md:myst"
KEY = "en_hash"
LANGS = ("tr",)
#: A markdown cell's metadata line in a MyST source.
HEADER = re.compile(r"^\+\+\+ (\{.*\})$")
#: The line that opens a code cell, and one of the ``:key: value`` options after it.
CODE_CELL = re.compile(r"^```\{code-cell\}")
OPTION = re.compile(r"^:([\w-]+): (.*)$")


def _twin_header(line: str) -> dict[str, object] | None:
    """The metadata of a twin's MyST line (``+++ {"tags": ["tr"], ...}``), else None."""
    found = HEADER.match(line)
    if not found:
        return None
    meta = json.loads(found.group(1))
    return meta if set(meta.get("tags", [])) & set(LANGS) else None


def _code_options(lines: list[str], start: int) -> dict[str, tuple[int, object]]:
    """The ``:key: value`` option lines right after the code cell opened at ``start``:
    each key, its line's index and its value."""
    found = {}
    for i in range(start + 1, len(lines)):
        option = OPTION.match(lines[i].rstrip("\n"))
        if not option:
            break
        found[option.group(1)] = (i, yaml.safe_load(option.group(2)))
    return found


def _markers(lines: list[str]) -> list[int]:
    """The line index that starts each twin: a markdown twin's ``+++`` line, a code
    twin's ```` ```{code-cell} ```` line (its tags given as ``:tags: [...]``)."""
    found = []
    for i, line in enumerate(lines):
        if _twin_header(line.rstrip("\n")) is not None:
            found.append(i)
        elif CODE_CELL.match(line):
            tags = _code_options(lines, i).get("tags", (i, []))[1]
            if isinstance(tags, list) and set(tags) & set(LANGS):
                found.append(i)
    return found


def _hash_option(value: str) -> str:
    """The option line recording ``value`` (quoted when YAML would read it otherwise)."""
    text = value if yaml.safe_load(value) == value else f"'{value}'"
    return f":{KEY}: {text}\n"


def en_hash(text: str) -> str:
    """The 8 hex digits recorded for an English cell's text (whitespace at the ends ignored).

    >>> en_hash("Hello"), en_hash("Hello\\n") == en_hash("Hello")
    ('185f8db3', True)
    """
    return hashlib.sha256(text.strip().encode()).hexdigest()[:8]


def _first(text: str) -> str:
    return next((line for line in text.splitlines() if line.strip()), "")


@dataclass(frozen=True)
class Twin:
    """One translated cell and the English cell it translates."""

    notebook: str
    english: str  #: the English cell's text
    twin: str  #: the translation's text
    recorded: str | None  #: the hash in the twin's metadata

    @property
    def fresh(self) -> bool:
        return self.recorded == en_hash(self.english)

    def describe(self) -> str:
        state = "unstamped" if self.recorded is None else "stale"
        return (
            f"{self.notebook}: {state} twin: English cell {_first(self.english)!r} "
            f"has changed since its translation {_first(self.twin)!r} was made "
            f"(translate it, then: python tools/twins.py stamp {self.notebook})"
        )


def twins(path: Path) -> list[Twin]:
    """Every translated cell of the source ``path``, in order."""
    nb = jupytext.reads(path.read_text(), fmt=FORMAT)
    found = []
    for english, cell in zip(nb.cells, nb.cells[1:], strict=False):
        if set(cell.metadata.get("tags", [])) & set(LANGS):
            found.append(Twin(path.stem, english.source, cell.source, cell.metadata.get(KEY)))
    return found


def stale(path: Path) -> list[Twin]:
    return [t for t in twins(path) if not t.fresh]


def stamp(path: Path, line: str | None = None, new_only: bool = False) -> int:
    """Record the English hash in ``path``'s twins (those whose English first line
    contains ``line``, or all; with ``new_only``, only those with no hash yet); returns
    how many markers changed."""
    found = twins(path)
    lines = path.read_text().splitlines(keepends=True)
    markers = _markers(lines)
    if len(markers) != len(found):
        raise SystemExit(f"{path}: {len(markers)} twin markers but {len(found)} twins")
    changed = 0
    for i, twin in reversed(list(zip(markers, found, strict=True))):
        if line is not None and line not in _first(twin.english):
            continue
        if new_only and twin.recorded is not None:
            continue
        meta = _twin_header(lines[i].rstrip("\n"))
        if meta is not None:
            meta[KEY] = en_hash(twin.english)
            new = [f"+++ {json.dumps(meta, ensure_ascii=False)}\n"]
            at, old = i, 1
        else:  # a code twin: replace or add its en_hash option
            options = _code_options(lines, i)
            new = [_hash_option(en_hash(twin.english))]
            if KEY in options:
                at, old = options[KEY][0], 1
            else:
                at, old = max(index for index, _ in options.values()) + 1, 0
        if lines[at : at + old] != new:
            lines[at : at + old] = new
            changed += 1
    path.write_text("".join(lines))
    return changed


def _sources(names: list[str]) -> list[Path]:
    paths = [SRC / (Path(n).stem + SUFFIX) for n in names] or sorted(SRC.glob("*" + SUFFIX))
    for p in paths:
        if not p.exists():
            raise SystemExit(f"no source {p}")
    return paths


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    check = sub.add_parser("check", help="list stale or unstamped twins")
    check.add_argument("names", nargs="*")
    st = sub.add_parser("stamp", help="record the English hash in a notebook's twins")
    st.add_argument("names", nargs="+")
    st.add_argument("--line", help="only twins whose English first line contains this")
    st.add_argument("--new", action="store_true", help="only twins without a hash yet")
    args = parser.parse_args(argv)
    if args.command == "check":
        bad = [t for p in _sources(args.names) for t in stale(p)]
        for t in bad:
            print(t.describe())
        return 1 if bad else 0
    for p in _sources(args.names):
        print(f"{p.stem}: {stamp(p, args.line, args.new)} twin(s) stamped")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
