"""Turkish twins that cannot go stale silently.

A Turkish markdown cell (tagged ``tr``) right after an English one translates
it. It records a short hash of the English text it was made from, in the
cell's metadata in the source::

    # %% [markdown] tags=["tr"] en_hash="1a2b3c4d"

When the English cell changes and its twin does not, the hashes differ and
``tests/test_twins.py`` fails, naming the notebook, the English cell's first
line and the twin's. After translating the change, stamp the twin again:

    python tools/twins.py check [NAME ...]           list stale or unstamped twins (exit 1)
    python tools/twins.py stamp NAME [--line TEXT]   record the English hash in NAME's
                                                     twins (only those whose English cell's
                                                     first line contains TEXT)

The builder (tools/build_notebooks.py) accepts the key and leaves it out of the
editions: a twin takes its English cell's metadata.
"""

from __future__ import annotations

import argparse
import hashlib
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import jupytext

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "notebooks" / "src"
KEY = "en_hash"
LANGS = ("tr",)
#: A twin's cell marker in the source (its tags, then optionally its hash).
HEADER = re.compile(r'^# %% \[markdown\] tags=\[[^\]]*"(?:tr)"[^\]]*\](?: en_hash="[0-9a-f]*")?$')


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
    nb = jupytext.reads(path.read_text(), fmt="py:percent")
    found = []
    for english, cell in zip(nb.cells, nb.cells[1:], strict=False):
        if set(cell.metadata.get("tags", [])) & set(LANGS):
            found.append(Twin(path.stem, english.source, cell.source, cell.metadata.get(KEY)))
    return found


def stale(path: Path) -> list[Twin]:
    return [t for t in twins(path) if not t.fresh]


def stamp(path: Path, line: str | None = None) -> int:
    """Record the English hash in ``path``'s twins (those whose English first line
    contains ``line``, or all); returns how many markers changed."""
    found = twins(path)
    lines = path.read_text().splitlines(keepends=True)
    markers = [i for i, text in enumerate(lines) if HEADER.match(text.rstrip("\n"))]
    if len(markers) != len(found):
        raise SystemExit(f"{path}: {len(markers)} twin markers but {len(found)} twins")
    changed = 0
    for i, twin in zip(markers, found, strict=True):
        if line is not None and line not in _first(twin.english):
            continue
        head = re.sub(r' en_hash="[0-9a-f]*"$', "", lines[i].rstrip("\n"))
        new = f'{head} {KEY}="{en_hash(twin.english)}"\n'
        if new != lines[i]:
            lines[i] = new
            changed += 1
    path.write_text("".join(lines))
    return changed


def _sources(names: list[str]) -> list[Path]:
    paths = [SRC / (Path(n).stem + ".py") for n in names] or sorted(SRC.glob("*.py"))
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
    args = parser.parse_args(argv)
    if args.command == "check":
        bad = [t for p in _sources(args.names) for t in stale(p)]
        for t in bad:
            print(t.describe())
        return 1 if bad else 0
    for p in _sources(args.names):
        print(f"{p.stem}: {stamp(p, args.line)} twin(s) stamped")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
