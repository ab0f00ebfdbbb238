"""Start and stop a throw-away JupyterLab server for the browser tests.

Use it from the session fixture in ``conftest.py``: ``LabServer(notebooks).start()``
copies ``notebooks`` to a temp dir, starts ``jupyter lab`` on 127.0.0.1 with a free
port, a random token and fresh config/data/runtime/IPython dirs, and a kernelspec
that runs ``sys.executable`` (the Python running pytest, so the kernel imports the
same ``retrylab``). ``stop()`` shuts kernels and server down and removes the dirs.

>>> server = LabServer(Path("no-such-notebooks-dir"))
>>> server.url("lab/tree/x.ipynb").startswith("http://127.0.0.1:")
True
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

# The project's own JupyterLab settings (news and update checks off, widget state not
# saved), on the path as the README's open command puts them: the browser tests see
# what a student sees, and no toast covers the page in screenshots.
JUPYTER_CONFIG = REPO / "jupyter-config"


def _die_with_parent() -> None:
    """In the child: get SIGTERM when pytest dies, even by SIGKILL (Linux prctl).

    The server then shuts its kernels down itself; nothing is left running.
    """
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass


def free_port() -> int:
    """Return a TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class LabServer:
    """One JupyterLab server serving a temp copy of a notebooks folder."""

    def __init__(
        self,
        notebooks: Path,
        startup_timeout: float = 90.0,
        config_path: tuple[Path, ...] = (JUPYTER_CONFIG,),
    ) -> None:
        self.notebooks = notebooks
        self.config_path = config_path  # JUPYTER_CONFIG_PATH, the first folder winning
        self.startup_timeout = startup_timeout
        self.token = secrets.token_hex(16)
        self.port = free_port()
        self.tmp: Path | None = None
        self.root: Path | None = None
        self.proc: subprocess.Popen[bytes] | None = None
        self.log_path: Path | None = None
        self.started_at = 0.0  # time.monotonic() when the process was launched
        self.ready_after = 0.0  # seconds from launch to the REST API answering

    # -- URLs ----------------------------------------------------------------
    def url(self, path: str, **query: str) -> str:
        """``http://127.0.0.1:PORT/PATH?token=...`` (plus any extra query items)."""
        items = [f"token={self.token}"] + [f"{k}={v}" if v else k for k, v in query.items()]
        return f"http://127.0.0.1:{self.port}/{path.lstrip('/')}?{'&'.join(items)}"

    def api(self, path: str, method: str = "GET") -> object:
        """Call the server's REST API; return the decoded JSON (None if empty)."""
        req = urllib.request.Request(self.url(f"api/{path.lstrip('/')}"), method=method)
        with urllib.request.urlopen(req, timeout=10) as resp:
            body = resp.read()
        return json.loads(body) if body else None

    # -- life cycle ----------------------------------------------------------
    def _prepare_dirs(self) -> dict[str, str]:
        self.tmp = Path(tempfile.mkdtemp(prefix="retrylab-lab-"))
        dirs = {
            name: self.tmp / name.lower()
            for name in (
                "JUPYTER_CONFIG_DIR",
                "JUPYTER_DATA_DIR",
                "JUPYTER_RUNTIME_DIR",
                "IPYTHONDIR",
            )
        }
        for d in dirs.values():
            d.mkdir()
        # The kernel must be the Python running pytest (same retrylab, same packages).
        spec_dir = dirs["JUPYTER_DATA_DIR"] / "kernels" / "python3"
        spec_dir.mkdir(parents=True)
        # The display name ipykernel gives its own kernelspec: a notebook opened here
        # and saved keeps the metadata the build wrote (tests/browser/test_open_save.py).
        spec = {
            "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
            "display_name": "Python 3 (ipykernel)",
            "language": "python",
        }
        (spec_dir / "kernel.json").write_text(json.dumps(spec))
        # Serve a COPY: Run All must never touch the committed notebooks.
        self.root = self.tmp / "notebooks"
        if self.notebooks.is_dir():
            shutil.copytree(
                self.notebooks,
                self.root,
                ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"),
            )
        else:
            self.root.mkdir()
        return {k: str(v) for k, v in dirs.items()}

    def start(self) -> LabServer:
        """Launch the server and wait until its REST API answers (or raise)."""
        env = dict(os.environ)
        env.update(self._prepare_dirs())
        env.pop("JUPYTER_PATH", None)
        env["JUPYTER_CONFIG_PATH"] = os.pathsep.join(str(p) for p in self.config_path)
        env.pop("JUPYTER_TOKEN", None)
        env["JUPYTER_PREFER_ENV_PATH"] = "0"  # our kernelspec, not the venv one
        # The kernel inherits this: the repo's retrylab wins over anything else.
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH", "")) if p)
        env.pop("MPLBACKEND", None)  # the kernel picks its own (inline) backend
        assert self.tmp is not None and self.root is not None
        for attempt in range(3):
            cmd = [
                sys.executable,
                "-m",
                "jupyterlab",
                "--no-browser",
                "--ip=127.0.0.1",
                f"--port={self.port}",
                "--ServerApp.port_retries=0",
                f"--IdentityProvider.token={self.token}",
                f"--ServerApp.root_dir={self.root}",
                # window.jupyterapp: the tests read cells' execution counts from
                # the notebook model (a collapsed cell shows no prompt in the page).
                "--LabApp.expose_app_in_browser=True",
                # kernels talk to this server over Unix sockets in its runtime dir:
                # over TCP a kernel picks free ports, which another worker's server
                # may take before it binds them (once: "Address already in use", the
                # kernel restarted and the page sat at "Connecting" past 60 s)
                "--KernelManager.transport=ipc",
                "--ServerApp.open_browser=False",
            ]
            if hasattr(os, "geteuid") and os.geteuid() == 0:
                cmd.append("--allow-root")
            self.log_path = self.tmp / f"jupyterlab-{attempt}.log"
            log = self.log_path.open("wb")
            self.started_at = time.monotonic()
            # Own process group: stop() can end the server and its kernels by group id.
            self.proc = subprocess.Popen(
                cmd,
                cwd=self.root,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
                preexec_fn=_die_with_parent,
            )
            log.close()
            if self._wait_ready():
                self.ready_after = time.monotonic() - self.started_at
                return self
            if self.proc.poll() is None:  # alive but never answered: give up
                break
            self.port = free_port()  # port taken between probe and bind: try another
        log_text = self.log_tail()
        self.stop()
        raise RuntimeError(
            f"JupyterLab did not start within {self.startup_timeout:.0f} s; log tail:\n{log_text}"
        )

    def _wait_ready(self) -> bool:
        assert self.proc is not None
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                return False
            try:
                self.api("status")
                return True
            except (urllib.error.URLError, ConnectionError, OSError):
                time.sleep(0.2)
        return False

    def log_tail(self, n: int = 40) -> str:
        """The last ``n`` lines of the server log (for failure messages)."""
        if self.log_path is None or not self.log_path.exists():
            return ""
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-n:])

    def kernelspec_argv(self) -> list[str]:
        """argv of the server's default kernelspec (to check it is sys.executable)."""
        specs = self.api("kernelspecs")
        assert isinstance(specs, dict)
        default = specs["default"]
        return list(specs["kernelspecs"][default]["spec"]["argv"])

    def kernel_idle(self, path: str) -> bool:
        """True if the session of notebook ``path`` has a started, idle kernel."""
        try:
            sessions = self.api("sessions")
        except Exception:
            return False
        assert isinstance(sessions, list)
        return any(
            s.get("path") == path and (s.get("kernel") or {}).get("execution_state") == "idle"
            for s in sessions
        )

    def shutdown_session(self, path: str) -> None:
        """Shut the kernel of notebook ``path`` down (best effort), as closing it and
        choosing "Shut Down Kernel" would: its idle kernel and prefetch worker no longer
        share the machine with the notebooks still being tested."""
        with contextlib.suppress(Exception):
            sessions = self.api("sessions")
            assert isinstance(sessions, list)
            for session in sessions:
                if session.get("path") == path:
                    with contextlib.suppress(Exception):
                        self.api(f"sessions/{session['id']}", method="DELETE")

    def shutdown_kernels(self) -> None:
        """Shut every running kernel down through the REST API (best effort)."""
        with contextlib.suppress(Exception):
            kernels = self.api("kernels")
            assert isinstance(kernels, list)
            for kernel in kernels:
                with contextlib.suppress(Exception):
                    self.api(f"kernels/{kernel['id']}", method="DELETE")

    def stop(self) -> None:
        """Stop kernels and server (escalating to SIGKILL), remove the temp dirs."""
        proc, self.proc = self.proc, None
        if proc is not None and proc.poll() is None:
            self.shutdown_kernels()
            with contextlib.suppress(Exception):
                self.api("shutdown", method="POST")
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.terminate()
                try:
                    proc.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(timeout=5)
        if proc is not None:
            # Anything the server started and left behind (a kernel) is in its group.
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
        if self.tmp is not None:
            shutil.rmtree(self.tmp, ignore_errors=True)
            self.tmp = None
