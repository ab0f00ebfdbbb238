"""Autograde every collected submission, one student at a time, in the grading sandbox.

Run as root from anywhere (the course folder is this file's folder unless --course):

    python classroom/nbgrader/grade_all.py [--course DIR] [--student NAME ...]
                                           [--timeout SECONDS] [--nbgrader-arg ARG ...]

For each student under submitted/ it runs ``nbgrader autograde retrylab --student NAME``
in its own process (a submission that kills its kernel or tries to kill the grader
costs only itself), with the grading kernel of sandbox_kernel.py (its kernelspec
written for this run), and a wall-clock limit per student. Before grading it makes the
course's private parts private (source/, submitted/, autograded/, feedback/,
gradebook.db: the teacher's only), so the sandboxed kernel can neither read the
solutions nor another student's work; after each student it ends what the grading user
left running and removes the kernel's temporary home.

nbgrader, when a notebook's kernel dies, drops that student's autograded folder but
keeps the grades already in the gradebook. Here a student whose grading failed has
their submission removed from the gradebook (no stale points in grades.csv) and is
marked failed. At the end a table: every student, graded or failed and why, score.
One run grades at a time on a machine (a lock under /run, root's only): each ends every
process of the grading user after a student, so a second run would kill the first's
kernels; it waits, and says so.
Exit status 0 if every student was graded, 1 if any failed, 2 if it could not start.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import fcntl
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import sandbox_kernel  # noqa: E402 (this folder is not a package)

ASSIGNMENT = "retrylab"
#: What only the teacher may read or write during grading.
PRIVATE = (
    "source",
    "submitted",
    "autograded",
    "feedback",
    "gradebook.db",
    "grading_logs",
    "expected.json",
)
#: A student's grading, all notebooks, may take this long (s) before it is stopped.
STUDENT_TIMEOUT = 1800
REPORT = "grading_report.csv"
#: nbgrader's output for each student whose grading failed (the teacher's only).
LOGS = "grading_logs"
#: One grading run at a time on the machine; under /run, where only root writes, so a
#: student cannot hold it.
LOCK = Path("/run/retrylab-grade_all.lock")


@dataclass
class Result:
    student: str
    status: str  #: "graded" or "failed"
    reason: str = ""
    score: float = 0.0
    max_score: float = 0.0
    seconds: float = 0.0
    #: the points of the max score that are hand-graded (open answers), not yet given
    by_hand: float = 0.0


def config_problem(course: Path) -> str:
    """Why the course's nbgrader config would not grade in the sandbox ("" if it would).

    nbgrader logs a config file that fails to load and goes on with its defaults: the
    teacher's own kernel, no hidden-test judge. So the config is loaded here first."""
    from traitlets.config.loader import PyFileConfigLoader

    try:
        config = PyFileConfigLoader("nbgrader_config.py", str(course)).load_config()
    except Exception as error:  # any error in the teacher's config file stops the batch
        return f"{course / 'nbgrader_config.py'} does not load: {error!r}"
    if config.Execute.get("kernel_name") != sandbox_kernel.KERNEL_NAME:
        return (
            f"nbgrader_config.py does not set Execute.kernel_name = {sandbox_kernel.KERNEL_NAME!r}"
        )
    steps = [getattr(s, "__name__", s) for s in config.Autograde.get("autograde_preprocessors", [])]
    if "CheckHiddenResults" not in steps:
        return "nbgrader_config.py does not judge the hidden tests (CheckHiddenResults)"
    return ""


def make_private(course: Path) -> None:
    """The teacher's parts of the course: no access for anyone else."""
    for name in PRIVATE:
        path = course / name
        if path.exists():
            path.chmod(0o700 if path.is_dir() else 0o600)


def grader_processes(uid: int) -> list[int]:
    """Process ids running as the grading user (left behind by a submission)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if entry.stat().st_uid == uid:
                    pids.append(int(entry.name))
            except FileNotFoundError:
                continue
    return pids


def clean_up(uid: int) -> None:
    """End what the grading user still runs; remove the kernels' temporary homes."""
    for pid in grader_processes(uid):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    for home in Path(tempfile.gettempdir()).glob(sandbox_kernel.HOME_PREFIX + "*"):
        if home.stat().st_uid == uid:
            shutil.rmtree(home, ignore_errors=True)


def why_failed(log: str, returncode: int) -> str:
    """The reason a student's autograde failed, from its exit status and log."""
    if returncode < 0:
        return f"the grader was killed by signal {signal.Signals(-returncode).name}"
    for pattern, reason in (
        (r"Exception while loading config", "nbgrader_config.py did not load"),
        (
            r"before replying to kernel_info",
            f"the grading kernel did not start (the sandbox: see {LOGS}/)",
        ),
        (
            r"DeadKernelError|Kernel died",
            "the kernel died (it exited or was killed) while running the notebook",
        ),
        (r"CellTimeoutError|Timeout waiting", "a cell timed out"),
        (r"MemoryError", "out of memory"),
    ):
        if re.search(pattern, log):
            return reason
    errors = [line for line in log.splitlines() if "ERROR" in line]
    return errors[-1].strip()[-200:] if errors else f"nbgrader exited with {returncode}"


def scores(course: Path, student: str) -> tuple[float, float, int, float]:
    """(score, max score, notebooks graded, points still to grade by hand) of the
    student's submission in the gradebook."""
    from nbgrader.api import Gradebook, MissingEntry

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        try:
            sub = gb.find_submission(ASSIGNMENT, student)
        except MissingEntry:
            return 0.0, 0.0, 0, 0.0
        by_hand = sum(
            g.max_score for nb in sub.notebooks for g in nb.grades if g.needs_manual_grade
        )
        return sub.score, sub.max_score, len(sub.notebooks), by_hand


def forget(course: Path, student: str) -> None:
    """Remove a failed grading's submission from the gradebook (no stale points)."""
    from nbgrader.api import Gradebook, MissingEntry

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb, contextlib.suppress(MissingEntry):
        gb.remove_submission(ASSIGNMENT, student)


def grade(
    course: Path,
    student: str,
    env: dict[str, str],
    timeout: float,
    extra: list[str],
    notebooks: int,
) -> Result:
    """Autograde one student in a process of its own; the result, never an exception."""
    start = time.monotonic()
    cmd = [
        sys.executable,
        "-m",
        "nbgrader",
        "autograde",
        ASSIGNMENT,
        "--student",
        student,
        "--force",
        "--create",
        *extra,
    ]
    reason, log, returncode = "", "", 0
    try:
        done = subprocess.run(
            cmd,
            cwd=course,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            start_new_session=True,
        )
        returncode, log = done.returncode, done.stdout + done.stderr
    except subprocess.TimeoutExpired:
        reason = f"grading took more than {timeout:.0f} s"
    took = time.monotonic() - start
    score, max_score, graded, by_hand = scores(course, student)
    if "Exception while loading config" in log:
        reason = why_failed(log, returncode)
    if not reason and returncode == 0 and graded >= notebooks:
        return Result(student, "graded", "", score, max_score, took, by_hand)
    if not reason:
        reason = why_failed(log, returncode) if returncode else "notebooks missing"
    logs = course / LOGS
    logs.mkdir(mode=0o700, exist_ok=True)
    (logs / f"{student}.log").write_text(log)
    forget(course, student)
    return Result(student, "failed", reason, 0.0, 0.0, took)


def table(results: list[Result]) -> str:
    """The run's table: a row a student; ``by hand`` is how much of the max score waits
    for the teacher (open answers, graded in formgrader), so a perfect autograde reads
    ``8/9`` with ``1`` by hand, not as a lost point.

    >>> print(table([Result("ada", "graded", "", 8, 9, 4.2, 1), Result("bo", "failed", "x")]))
    student  status  score  by hand  seconds  why
    ada      graded  8/9    1        4
    bo       failed  -      -        0        x
    """
    rows = [("student", "status", "score", "by hand", "seconds", "why")]
    rows += [
        (
            r.student,
            r.status,
            f"{r.score:g}/{r.max_score:g}" if r.status == "graded" else "-",
            f"{r.by_hand:g}" if r.status == "graded" else "-",
            f"{r.seconds:.0f}",
            r.reason,
        )
        for r in results
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(5)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row[:5], widths, strict=True)) for row in rows]
    return "\n".join(
        f"{line}  {row[5]}" if row[5] else line.rstrip()
        for line, row in zip(lines, rows, strict=True)
    )


@contextlib.contextmanager
def one_run_at_a_time(lock: Path) -> Iterator[None]:
    """Hold ``lock`` for the run, waiting (and saying so) while another run holds it."""
    fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            print(
                f"another grade_all.py is grading on this machine ({lock}): waiting for it",
                file=sys.stderr,
                flush=True,
            )
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--course", type=Path, default=HERE, help="the course folder")
    parser.add_argument("--student", action="append", help="only these (default: all)")
    parser.add_argument(
        "--timeout",
        type=float,
        default=STUDENT_TIMEOUT,
        help=f"seconds a student's grading may take (default {STUDENT_TIMEOUT})",
    )
    parser.add_argument(
        "--nbgrader-arg",
        action="append",
        default=[],
        help="passed to nbgrader autograde (e.g. --Execute.timeout=30)",
    )
    args = parser.parse_args(argv)
    course = args.course.resolve()
    if os.geteuid() != 0:
        print(
            "grade_all.py runs as root: it drops each kernel to the grading user", file=sys.stderr
        )
        return 2
    try:
        user = sandbox_kernel.grader_user()
    except SystemExit as no_user:
        print(no_user, file=sys.stderr)
        return 2
    problem = config_problem(course)
    if problem:
        print(problem, file=sys.stderr)
        return 2
    submitted = course / "submitted"
    students = args.student or (
        sorted(p.name for p in submitted.iterdir() if (p / ASSIGNMENT).is_dir())
        if submitted.is_dir()
        else []
    )
    source = course / "source" / ASSIGNMENT
    notebooks = len(list(source.glob("*.ipynb")))
    only = [a.split("=", 1)[1] for a in args.nbgrader_arg if a.startswith("--notebook=")]
    if only:
        notebooks = len(only)
    make_private(course)
    jupyter = Path(tempfile.mkdtemp(prefix="retrylab-kernels-"))
    sandbox_kernel.install(jupyter / "kernels")
    env = dict(os.environ)
    env["JUPYTER_PATH"] = os.pathsep.join(p for p in (str(jupyter), env.get("JUPYTER_PATH")) if p)
    env["PATH"] = os.pathsep.join((str(Path(sys.executable).parent), env.get("PATH", "")))
    results = []
    try:
        with one_run_at_a_time(LOCK):
            for student in students:
                result = grade(course, student, env, args.timeout, args.nbgrader_arg, notebooks)
                clean_up(user.pw_uid)
                make_private(course)
                print(f"{student}: {result.status} {result.reason}".rstrip(), flush=True)
                results.append(result)
    finally:
        shutil.rmtree(jupyter, ignore_errors=True)
    with open(course / REPORT, "w", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(["student", "status", "reason", "score", "max_score", "seconds", "by_hand"])
        for r in results:
            writer.writerow(
                [
                    r.student,
                    r.status,
                    r.reason,
                    r.score,
                    r.max_score,
                    f"{r.seconds:.1f}",
                    r.by_hand,
                ]
            )
    (course / REPORT).chmod(0o600)
    print(table(results))
    return 1 if any(r.status == "failed" for r in results) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
