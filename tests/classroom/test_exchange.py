"""Release, fetch, submit, collect: nbgrader's exchange on one machine, with real users.

The teacher (root) releases the course into an exchange made as classroom/GRADING.md
says (a folder every user can write); two students, real Unix users, fetch it with the
students' config (classroom/jupyter-config/nbgrader_config.py, as the hub's servers read
it) and submit; the teacher collects. Checked: the students get the release (no
solution, no hidden test), a student cannot read the other's submission in the
exchange, and the teacher collects each student's own work under their name.
Runs as root (CI does): it creates the two users and removes them.
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest
from _course import copy_config
from _tools import load_tool

pytest.importorskip("nbgrader", reason="nbgrader is in the classroom and test extras")
if os.geteuid() != 0 or not shutil.which("setpriv") or not shutil.which("useradd"):
    pytest.skip("real users need root, useradd and setpriv", allow_module_level=True)

ROOT = Path(__file__).resolve().parents[2]
builder = load_tool("build_notebooks")
ASSIGNMENT = builder.NBGRADER_ASSIGNMENT
STEM = "00_start_here"
STUDENTS = ("rlx-alice", "rlx-bob")


def readable_python(user: pwd.struct_passwd, path: str) -> str:
    """An interpreter the user can read (pyenv's under /root is not): this one or the
    system's of the same version, with this environment's site-packages on the path."""
    for python in (sys.executable, f"/usr/bin/python{sys.version_info[0]}.{sys.version_info[1]}"):
        probe = subprocess.run(
            [
                "setpriv",
                f"--reuid={user.pw_uid}",
                f"--regid={user.pw_gid}",
                "--clear-groups",
                python,
                "-c",
                "import fractions, nbgrader",
            ],
            env={"PYTHONPATH": path, "HOME": user.pw_dir},
            cwd="/",
            capture_output=True,
        )
        if probe.returncode == 0:
            return python
    pytest.skip("no Python the students can read")


@pytest.fixture(scope="module")
def machine() -> Iterator[dict[str, object]]:
    """An exchange, a course, two students with homes: removed at the end."""
    top = Path(tempfile.mkdtemp(prefix="retrylab-exchange-test-"))
    top.chmod(0o755)
    exchange = top / "exchange"
    exchange.mkdir()
    exchange.chmod(0o777)  # nbgrader's documented setup: chmod ugo+rw
    users = []
    try:
        for name in STUDENTS:
            subprocess.run(
                [
                    "useradd",
                    "--create-home",
                    "--home-dir",
                    str(top / name),
                    "--shell",
                    "/usr/sbin/nologin",
                    name,
                ],
                check=True,
            )
            users.append(pwd.getpwnam(name))
            (top / name).chmod(0o700)
        site = next(p for p in sys.path if p.endswith("site-packages"))
        path = os.pathsep.join((str(ROOT), site))
        yield {
            "top": top,
            "exchange": exchange,
            "users": users,
            "path": path,
            "python": readable_python(users[0], path),
        }
    finally:
        for name in STUDENTS:
            subprocess.run(["userdel", name], capture_output=True)
        shutil.rmtree(top, ignore_errors=True)


def nbgrader(
    args: list[str],
    cwd: Path,
    env: dict[str, str],
    python: str = sys.executable,
    user: pwd.struct_passwd | None = None,
) -> subprocess.CompletedProcess[str]:
    cmd = [python, "-m", "nbgrader", *args]
    if user is not None:
        cmd = ["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--init-groups", *cmd]
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def test_release_fetch_submit_collect(machine: dict[str, object]) -> None:
    top, exchange = Path(str(machine["top"])), str(machine["exchange"])
    alice, bob = machine["users"]  # type: ignore[misc]
    course = top / "course"
    (course / "source" / ASSIGNMENT).mkdir(parents=True)
    course.chmod(0o700)
    copy_config(ROOT / "classroom" / "nbgrader", course)
    shutil.copy(builder.NBGRADER.path(STEM), course / "source" / ASSIGNMENT)
    teacher = {**os.environ, "RETRYLAB_NBGRADER_EXCHANGE": exchange}
    teacher["PATH"] = os.pathsep.join((str(Path(sys.executable).parent), teacher["PATH"]))
    nbgrader(["generate_assignment", ASSIGNMENT, "--force"], course, teacher)
    nbgrader(["release_assignment", ASSIGNMENT, "--force"], course, teacher)

    answers = {}
    for user in (alice, bob):
        home = Path(user.pw_dir)
        env = {
            "HOME": str(home),
            "USER": user.pw_name,
            "PATH": "/usr/bin:/bin",
            "PYTHONPATH": str(machine["path"]),
            "JUPYTER_CONFIG_PATH": str(ROOT / "classroom" / "jupyter-config"),
            "RETRYLAB_NBGRADER_EXCHANGE": exchange,
        }
        python = str(machine["python"])
        listed = nbgrader(["list"], home, env, python, user)
        assert ASSIGNMENT in listed.stdout + listed.stderr
        nbgrader(["fetch_assignment", ASSIGNMENT], home, env, python, user)
        path = home / ASSIGNMENT / f"{STEM}.ipynb"
        nb = nbformat.read(path, as_version=4)
        text = "\n".join(c.source for c in nb.cells)
        assert "BEGIN SOLUTION" not in text and "HIDDEN TESTS" not in text
        answer = next(
            c
            for c in nb.cells
            if c.metadata.get("nbgrader", {}).get("solution") and c.cell_type == "code"
        )
        answer.source += f"\n# the work of {user.pw_name}"
        answers[user.pw_name] = answer.source
        nbformat.write(nb, path)
        os.chown(path, user.pw_uid, user.pw_gid)
        nbgrader(["submit", ASSIGNMENT], home, env, python, user)

    # bob cannot read alice's submission in the exchange (inbound is write-only for him)
    inbound = Path(exchange) / "retrylab" / "inbound"
    peek = subprocess.run(
        [
            "setpriv",
            f"--reuid={bob.pw_uid}",
            f"--regid={bob.pw_gid}",
            "--clear-groups",
            "ls",
            str(inbound),
        ],
        capture_output=True,
        text=True,
    )
    assert peek.returncode != 0 and alice.pw_name not in peek.stdout
    for home in (Path(alice.pw_dir), Path(bob.pw_dir)):
        stat = home.stat()
        assert stat.st_mode & 0o077 == 0, oct(stat.st_mode)

    nbgrader(["collect", ASSIGNMENT], course, teacher)
    for user in (alice, bob):
        got = nbformat.read(
            course / "submitted" / user.pw_name / ASSIGNMENT / f"{STEM}.ipynb", as_version=4
        )
        sources = [c.source for c in got.cells]
        assert answers[user.pw_name] in sources
        other = answers[(alice if user is bob else bob).pw_name]
        assert other not in sources
    assert json.loads(
        (Path(exchange) / "retrylab" / "outbound" / ASSIGNMENT / f"{STEM}.ipynb").read_text()
    )["cells"]
