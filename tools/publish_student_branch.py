"""Publish the student edition as a branch: what a class's nbgitpuller link delivers.

    python tools/publish_student_branch.py                 # main -> student, here
    python tools/publish_student_branch.py --source v1.2 --branch student
    git push origin student                                # then hand out the link

The branch holds what a student works with and nothing a teacher keeps: the student
editions (``notebooks/*.ipynb``, ``notebooks/tr/*.ipynb``), the package, its
settings (``jupyter-config/``), README, LICENSE and the install files. It leaves out
the instructor editions (``notebooks/solutions/``, ``notebooks/tr/solutions/``), the
notebooks' sources with their solution cells (``notebooks/src/``), the nbgrader
course (``classroom/``) and the tests, tools and benchmarks.

Built with git's plumbing from the source commit's tree (no checkout, no working
tree touched): the kept entries go into a temporary index, ``git write-tree``, and a
commit whose only parent is the branch's previous tip, never the source commit, so
a student's clone holds no object of the instructor's tree, and every update is a
fast-forward nbgitpuller merges into her work. Nothing is committed when the
student edition did not change. Prints the branch's commit.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

#: What a student's clone holds: a path is kept when it matches one of these
#: (a folder ends in "/"; "notebooks/*.ipynb" is the folder's own files only).
KEEP_FILES = ("README.md", "LICENSE", "pyproject.toml", "environment.yml", "start")
KEEP_FOLDERS = ("retrylab/", "jupyter-config/")
KEEP_NOTEBOOK_FOLDERS = ("notebooks/", "notebooks/tr/")


def kept(path: str) -> bool:
    """Whether ``path`` (a file of the source tree) is in the student edition.

    >>> [kept(p) for p in ("notebooks/02_computing_the_wait.ipynb",
    ...                    "notebooks/tr/02_computing_the_wait.ipynb", "retrylab/core/x.py")]
    [True, True, True]
    >>> [kept(p) for p in ("notebooks/solutions/02_computing_the_wait.ipynb",
    ...                    "notebooks/tr/solutions/02_computing_the_wait.ipynb",
    ...                    "notebooks/src/02_computing_the_wait.md",
    ...                    "classroom/nbgrader/source/retrylab/02_computing_the_wait.ipynb",
    ...                    "tests/test_x.py", "tools/build_notebooks.py")]
    [False, False, False, False, False, False]
    """
    if path in KEEP_FILES or path.startswith(KEEP_FOLDERS):
        return True
    folder, _, name = path.rpartition("/")
    return f"{folder}/" in KEEP_NOTEBOOK_FOLDERS and name.endswith(".ipynb")


def git(*args: str, repo: Path, env: dict[str, str] | None = None, stdin: str | None = None) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args],
        check=True,
        text=True,
        capture_output=True,
        input=stdin,
        env={**os.environ, **(env or {})},
    ).stdout.strip()


def publish(repo: Path, source: str = "main", branch: str = "student") -> str:
    """Commit the student edition of ``source`` onto ``branch`` in ``repo``; its tip."""
    commit = git("rev-parse", "--verify", f"{source}^{{commit}}", repo=repo)
    listing = git("ls-tree", "-r", "-z", "--full-tree", commit, repo=repo)
    entries = [line for line in listing.split("\0") if line]
    index_info = "".join(
        f"{entry}\0"
        for entry in entries
        if entry.split(" ", 2)[1] == "blob" and kept(entry.split("\t", 1)[1])
    )
    if "notebooks/" not in index_info:
        raise ValueError(f"{source} ({commit[:12]}) has no student edition under notebooks/")
    with tempfile.TemporaryDirectory() as tmp:
        env = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}
        git("read-tree", "--empty", repo=repo, env=env)
        git("update-index", "--add", "-z", "--index-info", repo=repo, env=env, stdin=index_info)
        tree = git("write-tree", repo=repo, env=env)
    ref = f"refs/heads/{branch}"
    try:
        previous = git("rev-parse", "--verify", "--quiet", ref, repo=repo)
    except subprocess.CalledProcessError:
        previous = ""
    if previous and git("rev-parse", f"{previous}^{{tree}}", repo=repo) == tree:
        return previous
    parents = ["-p", previous] if previous else []
    message = (
        f"Student edition of {source} ({commit[:12]})\n\n"
        "Built by tools/publish_student_branch.py: no solutions, no nbgrader source."
    )
    who = {}
    try:
        git("config", "user.email", repo=repo)
    except subprocess.CalledProcessError:  # no identity configured (a CI machine)
        who = {
            f"GIT_{role}_{part}": value
            for role in ("AUTHOR", "COMMITTER")
            for part, value in (
                ("NAME", "publish_student_branch"),
                ("EMAIL", "publish_student_branch@localhost"),
            )
        }
    new = git("commit-tree", tree, *parents, "-m", message, repo=repo, env=who)
    git(
        "update-ref",
        "-m",
        f"publish_student_branch: {commit[:12]}",
        ref,
        new,
        previous or "0" * 40,
        repo=repo,
    )
    return new


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", default="main", help="the commit to publish (main)")
    parser.add_argument("--branch", default="student", help="the branch to publish to")
    parser.add_argument("--repo", default=".", type=Path, help="the repository (here)")
    args = parser.parse_args(argv)
    try:
        print(publish(args.repo, args.source, args.branch))
    except (ValueError, subprocess.CalledProcessError) as e:
        print(f"publish_student_branch: {getattr(e, 'stderr', '') or e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
