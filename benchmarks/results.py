"""The one results file every benchmark writes to: ``benchmarks/RESULTS.md``.

Measured figures live here, with the date, the machine and the command that made
them, and nowhere else: the READMEs and docstrings state targets and link here, so
no figure in prose goes stale with the next dependency bump.

Each benchmark's ``main`` is run through :func:`recorded`: what it prints goes to
the terminal as before and, once it ends, into a new section at the end of the
file (the newest last; older sections stay as history). ``--no-record`` (or
``RETRYLAB_NO_RECORD=1``) leaves the file alone, for a trial run.

    >>> import io
    >>> out = io.StringIO()
    >>> section("bench_x.py --n 3", "a  1.0 ms  target 2 ms\\n", now="2026-12-06 04:00 UTC",
    ...         machine="2 cores, 24 GiB").splitlines()[:4]
    ['## bench_x.py --n 3', '', '2026-12-06 04:00 UTC · 2 cores, 24 GiB', '']
"""

from __future__ import annotations

import contextlib
import io
import os
import platform
import shlex
import sys
import time
from collections.abc import Callable
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "RESULTS.md"
HEADER = (
    "# Benchmark results\n\n"
    "Written by the scripts in `benchmarks/` (`benchmarks/results.py`), one section a run,\n"
    "the newest last: the command, when, on what machine, and what it printed (each\n"
    "figure beside its target). Compare runs only on the same machine and a quiet one.\n"
)


def machine() -> str:
    """Cores, memory, system and Python of this machine, in one line."""
    cores = os.cpu_count() or 0
    memory = ""
    with contextlib.suppress(OSError, ValueError):
        pages = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        memory = f", {pages / 2**30:.0f} GiB"
    with contextlib.suppress(OSError):
        load = os.getloadavg()[0]
        memory += f", load {load:.1f} at the end"
    return (
        f"{cores} cores{memory}, {platform.system()} {platform.machine()}, "
        f"Python {platform.python_version()}"
    )


def section(command: str, printed: str, *, now: str, machine: str) -> str:
    """One run's section of RESULTS.md."""
    return f"## {command}\n\n{now} · {machine}\n\n```\n{printed.rstrip()}\n```\n"


class _Tee(io.StringIO):
    """What is printed, kept and passed on to the terminal."""

    def write(self, text: str) -> int:
        if sys.__stdout__ is not None:
            sys.__stdout__.write(text)
        return super().write(text)


def recorded(main: Callable[[], int | None]) -> int:
    """Run a benchmark's ``main``, printing as usual, and append what it printed.

    A run is recorded when it measured: exit status 0 (every target met) or 1 (a
    target missed, which is a result too); not when it could not measure (2 or
    more, or an exception).
    """
    argv = [a for a in sys.argv if a != "--no-record"]
    record = len(argv) == len(sys.argv) and not os.environ.get("RETRYLAB_NO_RECORD")
    sys.argv = argv
    captured = _Tee()
    with contextlib.redirect_stdout(captured):
        code = main() or 0
    if record and code in (0, 1):
        command = " ".join(shlex.quote(a) for a in [Path(argv[0]).name, *argv[1:]])
        now = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
        text = RESULTS.read_text() if RESULTS.exists() else HEADER
        RESULTS.write_text(
            text.rstrip("\n")
            + "\n\n"
            + section(command, captured.getvalue(), now=now, machine=machine())
        )
        print(f"(recorded in {RESULTS})")
    return code
