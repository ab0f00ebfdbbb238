"""What a student's clone holds: the student branch, as the class's nbgitpuller link clones it."""

from __future__ import annotations

import doctest
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import publish_student_branch as publish  # noqa: E402

sys.path.remove(str(ROOT / "tools"))

#: Never in a student's clone, at any commit of her history.
INSTRUCTOR_ONLY = (
    "notebooks/solutions/",
    "notebooks/tr/solutions/",
    "notebooks/src/",
    "classroom/",
)


def git(*args: str, cwd: Path) -> str:
    env = dict(
        os.environ,
        GIT_AUTHOR_NAME="t",
        GIT_AUTHOR_EMAIL="t@example.org",
        GIT_COMMITTER_NAME="t",
        GIT_COMMITTER_EMAIL="t@example.org",
    )
    return subprocess.run(
        ["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True
    ).stdout


def test_the_docstring_examples() -> None:
    assert doctest.testmod(publish).failed == 0


def every_path(clone: Path) -> set[str]:
    """Every file path of every commit the clone holds (all refs, all history)."""
    objects = git("rev-list", "--objects", "--all", cwd=clone).splitlines()
    return {line.split(" ", 1)[1] for line in objects if " " in line}


def test_a_students_clone_holds_the_student_edition_only(tmp_path: Path) -> None:
    pull = pytest.importorskip("nbgitpuller.pull", reason="nbgitpuller is in the hub extra")
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    teacher = tmp_path / "teacher"
    git("clone", "-q", "--no-checkout", str(ROOT), str(teacher), cwd=tmp_path)
    head = git("rev-parse", "HEAD", cwd=ROOT).strip()
    git("checkout", "-q", head, cwd=teacher)
    # the tool, run as its docstring says, in the teacher's clone
    subprocess.run(
        [sys.executable, str(ROOT / "tools" / "publish_student_branch.py"), "--source", head],
        cwd=teacher,
        check=True,
        capture_output=True,
    )

    home = tmp_path / "home" / "retrylab"  # what the hub's link does: nbgitpuller's clone
    for _ in pull.GitPuller(str(teacher), str(home), branch="student").pull():
        pass
    files = set(git("ls-files", cwd=home).splitlines())
    assert "notebooks/00_start_here.ipynb" in files
    assert "notebooks/tr/00_start_here.ipynb" in files
    assert "retrylab/__init__.py" in files and "README.md" in files
    assert any(f.startswith("jupyter-config/") for f in files)
    editions = {
        f
        for f in git("ls-tree", "-r", "--name-only", head, "notebooks/", cwd=ROOT).split()
        if re.fullmatch(r"notebooks/(tr/)?[^/]+\.ipynb", f)
    }
    assert {f for f in files if f.startswith("notebooks/")} == editions
    history = every_path(home)
    leaked = sorted(
        p
        for p in history
        if p.startswith(INSTRUCTOR_ONLY) or p.startswith(("tests/", "tools/", "benchmarks/"))
    )
    assert not leaked, f"a student's clone holds {leaked[:5]}"
    for path in files:  # no solution cell in anything she has
        text = (home / path).read_bytes()
        assert b"BEGIN SOLUTION" not in text, path

    # the teacher publishes again after a change: a fast-forward into the student's
    # work, still without the instructor's files
    (teacher / "notebooks" / "solutions" / "10_extra.ipynb").write_text("{}")
    extra = json.loads((ROOT / "notebooks" / "00_start_here.ipynb").read_text())
    (teacher / "notebooks" / "10_extra.ipynb").write_text(json.dumps(extra))
    git("add", "-A", cwd=teacher)
    git("commit", "-q", "-m", "a new lesson", cwd=teacher)
    first = git("rev-parse", "student", cwd=teacher).strip()
    subprocess.run(
        [sys.executable, str(ROOT / "tools" / "publish_student_branch.py"), "--source", "HEAD"],
        cwd=teacher,
        check=True,
        capture_output=True,
    )
    second = git("rev-parse", "student", cwd=teacher).strip()
    assert git("rev-parse", f"{second}^", cwd=teacher).strip() == first  # one parent
    (home / "notebooks" / "my_notes.md").write_text("mine")
    for _ in pull.GitPuller(str(teacher), str(home), branch="student").pull():
        pass
    assert (home / "notebooks" / "10_extra.ipynb").exists()
    assert (home / "notebooks" / "my_notes.md").read_text() == "mine"
    assert not (home / "notebooks" / "solutions").exists()
    assert not [p for p in every_path(home) if p.startswith(INSTRUCTOR_ONLY)]
    # nothing changed for students: nothing published
    subprocess.run(
        [sys.executable, str(ROOT / "tools" / "publish_student_branch.py"), "--source", "HEAD"],
        cwd=teacher,
        check=True,
        capture_output=True,
    )
    assert git("rev-parse", "student", cwd=teacher).strip() == second


def test_the_hub_and_the_docs_link_to_the_student_branch() -> None:
    hub = (ROOT / "classroom" / "jupyterhub_config.py").read_text()
    assert 'os.environ.get("RETRYLAB_BRANCH", "student")' in hub
    assert "targetpath=retrylab" in hub
    readme = (ROOT / "classroom" / "README.md").read_text()
    links = [line for line in readme.splitlines() if "git-pull?repo=" in line]
    assert links and all("&branch=student&" in line for line in links), links
    values = (ROOT / "classroom" / "values.yaml").read_text()
    assert "gitpuller https://github.com/retrylab/retrylab student retrylab" in values
