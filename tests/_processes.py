"""Stopping a JupyterHub and every process it started, by pid.

The hub stops its servers when told to, but they, the proxy and the culler run in
sessions of their own: a hub killed before it finished (30 servers take longer than a
few seconds) left them all running. So the hub's whole tree is taken first, the hub's
session is told to stop, and whatever of the tree is left is stopped too. Used by the
hub's isolation test and by ``benchmarks/bench_classroom.py``.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess

import psutil


def stop_hub(hub: subprocess.Popen[bytes], wait: float) -> None:
    """Stop ``hub`` (started with ``start_new_session=True``) and everything it started:
    SIGTERM to its session, SIGKILL after ``wait`` seconds, then the same for each
    process it had started (30 s to end before it is killed)."""
    started: list[psutil.Process] = []
    with contextlib.suppress(psutil.NoSuchProcess):
        started = psutil.Process(hub.pid).children(recursive=True)
    os.killpg(hub.pid, signal.SIGTERM)
    try:
        hub.wait(wait)
    except subprocess.TimeoutExpired:
        os.killpg(hub.pid, signal.SIGKILL)
        hub.wait(10)
    for p in started:
        with contextlib.suppress(psutil.NoSuchProcess):
            p.terminate()
    for p in psutil.wait_procs(started, timeout=30)[1]:
        with contextlib.suppress(psutil.NoSuchProcess):
            p.kill()
