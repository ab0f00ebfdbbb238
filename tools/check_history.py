"""Commit messages a reader of `git log --oneline` can use: a subject of at most 72
characters saying what changed, a blank line, then the why and the figures.

    python tools/check_history.py [BASE]

checks every commit after BASE (default: the last commit before this rule, below)
up to HEAD, merges included; prints each offender and exits 1 if there is any.
CI runs it (.ci/run). The history before BASE keeps its long subjects: rewriting
published history would break every clone.

    >>> problems("Fix the lab's keep-alive framing\\n\\nWhy: ...")
    []
    >>> problems("x" * 73)
    ['subject is 73 characters (at most 72)']
    >>> problems("Subject\\nbody right under it")
    ['no blank line between the subject and the body']
"""

from __future__ import annotations

import subprocess
import sys

#: The last commit whose subject was written before the rule (stop 32's proof).
BASE = "5ad4f7a"
LIMIT = 72


def problems(message: str) -> list[str]:
    """What is wrong with one commit message (empty: nothing)."""
    lines = message.rstrip("\n").split("\n")
    found = []
    if not lines[0].strip():
        found.append("empty subject")
    if len(lines[0]) > LIMIT:
        found.append(f"subject is {len(lines[0])} characters (at most {LIMIT})")
    if len(lines) > 1 and lines[1].strip():
        found.append("no blank line between the subject and the body")
    return found


def main(argv: list[str]) -> int:
    base = argv[0] if argv else BASE
    known = subprocess.run(["git", "cat-file", "-e", f"{base}^{{commit}}"], capture_output=True)
    if known.returncode != 0:
        print(f"check_history: {base} is not in this clone's history; nothing to check")
        return 0
    out = subprocess.run(
        ["git", "log", "--format=%H%x00%B%x01", f"{base}..HEAD"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    bad = 0
    for entry in filter(str.strip, out.split("\x01")):
        sha, _, message = entry.strip("\n").partition("\x00")
        for problem in problems(message):
            bad += 1
            print(f"{sha[:10]} {message.splitlines()[0][:60]!r}: {problem}")
    count = out.count("\x01")
    print(f"check_history: {count} commits after {base}, {bad} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
