"""The grading kernel: ipykernel as an unprivileged user, with resource limits.

nbgrader's autograde starts this as the kernel ``retrylab-grader`` (nbgrader_config.py:
``Execute.kernel_name``). Started as root by the grader, it

- copies the kernel's connection file into a fresh private home (mode 700) owned by the
  grading user, so the kernel never reads the grader's runtime directory;
- gives the kernel a minimal environment (no variable of the grader's but the path,
  the language and the locale: nothing secret it may hold);
- then ``exec``s, keeping its process id (jupyter_client's interrupts and kills reach
  the kernel itself): ``setpriv`` to the dedicated system user ``retrylab-grader``
  (no groups, no capabilities, ``no_new_privs``) and ``prlimit`` (address space, CPU
  seconds, processes, file size, no core files), then ipykernel.

Why a dedicated uid and not bubblewrap: the grader talks to the kernel over TCP on
loopback, which a network namespace would cut, and the protection needed is the one
Unix permissions give: as ``retrylab-grader`` a submission cannot write the gradebook,
the course source, the checkers' code or the grader's files (all the teacher's or
root's), cannot read the course source (its solutions and the hidden tests' expected
values), the other submissions or the gradebook (classroom/nbgrader/grade_all.py makes
them private before grading), and cannot signal the grader (another uid): ``os.kill(
os.getppid(), 9)`` gets PermissionError. The limits stop what a uid does not: a memory
hog (address space), a loop that ignores interrupts (CPU seconds), a fork bomb
(processes), a disk filler (file size). What it does not hide: world-readable files of
the machine (as for any local user), and the network.

Set up once, as root (the grading user, no login, no home):

    useradd --system --no-create-home --shell /usr/sbin/nologin retrylab-grader

``python classroom/nbgrader/sandbox_kernel.py install [DIR]`` writes the kernelspec
(default: this interpreter's ``share/jupyter/kernels``); grade_all.py writes its own.
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import sys
import tempfile
from pathlib import Path

#: The kernel's name (nbgrader_config.py) and the user it runs as.
KERNEL_NAME = "retrylab-grader"
USER = os.environ.get("RETRYLAB_GRADER_USER", "retrylab-grader")
#: prlimit's limits for one notebook's kernel: address space (bytes; a notebook's kernel
#: with numpy, pandas and Matplotlib maps about 1.3 GB), CPU seconds (the slowest
#: notebook needs about 20), processes and threads of the user (ipykernel's threads, a
#: hidden test's fresh interpreter), file size (bytes).
LIMITS = {"as": 4 * 2**30, "cpu": 300, "nproc": 256, "fsize": 64 * 2**20, "core": 0}
#: The kernel's interpreter: the grader's own unless RETRYLAB_GRADER_PYTHON names another
#: (the grading user must be able to read it and its standard library: an interpreter
#: under /root, e.g. pyenv's, is not; the same version's /usr/bin/python3.X with the
#: environment's site-packages on PYTHONPATH is).
PYTHON = os.environ.get("RETRYLAB_GRADER_PYTHON", sys.executable)
#: Temporary homes are made here and named with this prefix (grade_all.py removes them).
HOME_PREFIX = "retrylab-grade-"
#: The grader's variables a kernel keeps (everything else is left out).
KEPT = ("PATH", "PYTHONPATH", "LANG", "LC_ALL", "LANGUAGE", "TZ")


def kernelspec() -> dict[str, object]:
    """The kernel.json of the grading kernel (this interpreter, this file)."""
    return {
        "argv": [sys.executable, str(Path(__file__).resolve()), "-f", "{connection_file}"],
        "display_name": "Python 3 (retrylab grading sandbox)",
        "language": "python",
        "interrupt_mode": "signal",
        "metadata": {"debugger": False},
    }


def install(kernels: Path) -> Path:
    """Write the kernelspec under ``kernels`` (a ``kernels`` folder of a Jupyter path)."""
    folder = kernels / KERNEL_NAME
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "kernel.json").write_text(json.dumps(kernelspec(), indent=1) + "\n")
    return folder


def grader_user() -> pwd.struct_passwd:
    try:
        user = pwd.getpwnam(USER)
    except KeyError:
        raise SystemExit(
            f"no user {USER!r} to grade as: create it once, as root: useradd "
            f"--system --no-create-home --shell /usr/sbin/nologin {USER}"
        ) from None
    if user.pw_uid == 0:
        raise SystemExit(f"the grading user {USER!r} is root: use an unprivileged user")
    return user


def command(user: pwd.struct_passwd, connection_file: str) -> list[str]:
    """setpriv, prlimit, ipykernel: the chain this process becomes."""
    limits = [f"--{name}={value}" for name, value in LIMITS.items()]
    return [
        "setpriv",
        f"--reuid={user.pw_uid}",
        f"--regid={user.pw_gid}",
        "--clear-groups",
        "--no-new-privs",
        "--bounding-set=-all",
        "--",
        "prlimit",
        *limits,
        "--",
        PYTHON,
        "-m",
        "ipykernel_launcher",
        "-f",
        connection_file,
    ]


def main(argv: list[str]) -> int:
    if argv[:1] == ["install"]:
        where = Path(argv[1]) if len(argv) > 1 else Path(sys.prefix) / "share/jupyter/kernels"
        print(install(where))
        return 0
    if len(argv) != 2 or argv[0] != "-f":
        raise SystemExit("usage: sandbox_kernel.py -f CONNECTION_FILE | install [DIR]")
    user = grader_user()
    if os.geteuid() != 0:
        raise SystemExit(
            f"the grading kernel starts as root to become {USER!r}: run the "
            "grader as root (sudo python classroom/nbgrader/grade_all.py)"
        )
    home = Path(tempfile.mkdtemp(prefix=HOME_PREFIX))
    connection = home / "kernel.json"
    shutil.copyfile(argv[1], connection)
    for path in (home, connection):
        os.chown(path, user.pw_uid, user.pw_gid)
    connection.chmod(0o600)
    env = {k: v for k, v in os.environ.items() if k in KEPT}
    env.update(
        HOME=str(home),
        TMPDIR=str(home),
        IPYTHONDIR=str(home / ".ipython"),
        MPLCONFIGDIR=str(home / "matplotlib"),
        JUPYTER_RUNTIME_DIR=str(home),
        MPLBACKEND="agg",
        OPENBLAS_NUM_THREADS="1",
        OMP_NUM_THREADS="1",
        USER=user.pw_name,
        LOGNAME=user.pw_name,
    )
    cmd = command(user, str(connection))
    os.execvpe(cmd[0], cmd, env)
    return 1  # not reached


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
