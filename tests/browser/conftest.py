"""Fixtures for the real-browser tests: one JupyterLab server, one headless Chromium.

Session fixtures start JupyterLab (``lab.LabServer``: temp copy of notebooks/,
fresh Jupyter dirs, kernel = this Python) and Chromium (Debian's /usr/bin/chromium
through playwright; never ``playwright install``), and stop both at the end, also
after a failure. A missing browser or playwright skips these tests with the reason
in the summary, except under ``CI=true`` where it fails: CI must not pass silently.

Screenshots (every notebook after Run All, every explorer, every failure), the
server log and timings.json go to ``browser-artifacts/`` at the repo root, or to
``$RETRYLAB_ARTIFACTS``; the terminal summary prints the folder and the timings.

Under pytest-xdist (``-n 2``, as CI runs them) each worker has its own JupyterLab
and Chromium, writes ``timings-gwN.json`` and ``jupyterlab-server-gwN.log``, and
removes only files older than itself (not another worker's fresh screenshots); the
controller's summary merges the workers' timings into ``timings.json``.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import re
import shutil
import signal
import statistics
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from .catalog import NOTEBOOKS, REPO, slider_stems
from .lab import LabServer
from .pages import NotebookPage, OpenTimeout, notebook_facts

CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
    "--disable-dev-shm-usage",
]
VIEWPORT = {"width": 1280, "height": 1000}
OPEN_TIMEOUT_MS = 60_000  # page load + kernel idle
RUN_ALL_TIMEOUT_MS = 120_000  # a notebook runs in < 30 s headless; the browser adds some


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Run the browser tests last, after every other test and notebook.

    playwright's sync API keeps an asyncio event loop running in the main thread
    until its session fixture ends; any test after it that calls ``asyncio.run``
    would fail with "cannot be called from a running event loop".
    """
    items.sort(key=lambda item: item.get_closest_marker("browser") is not None)


# -- what the run measured -------------------------------------------------------
@dataclass
class BrowserRun:
    """Timings and notes of this session, printed in the terminal summary."""

    artifacts: Path | None = None
    skip_reason: str = ""
    server_ready_s: float | None = None
    first_interactive_s: float | None = None
    cold_retries: list[str] = field(default_factory=list)
    open_s: dict[str, float] = field(default_factory=dict)
    run_all_s: dict[str, float] = field(default_factory=dict)
    key_to_redraw_ms: list[float] = field(default_factory=list)
    key_samples: list[dict[str, Any]] = field(default_factory=list)
    session_started: float | None = None
    session_s: float | None = None
    notes: list[str] = field(default_factory=list)

    def raw(self) -> dict[str, Any]:
        """The fields as JSON values (what a worker hands the controller)."""
        return {
            name: (str(value) if isinstance(value, Path) else value)
            for name, value in self.__dict__.items()
        }

    @classmethod
    def merged(cls, raws: list[dict[str, Any]]) -> BrowserRun:
        """One record of several workers' :meth:`raw` records: lists joined, dicts
        united, each time the slowest worker's.

        >>> a = BrowserRun(server_ready_s=2.0, open_s={"01": 3.0}, key_to_redraw_ms=[50.0])
        >>> b = BrowserRun(server_ready_s=3.5, open_s={"02": 4.0}, key_to_redraw_ms=[70.0])
        >>> run = BrowserRun.merged([a.raw(), b.raw()])
        >>> run.server_ready_s, sorted(run.open_s), run.key_to_redraw_ms
        (3.5, ['01', '02'], [50.0, 70.0])
        """
        run = cls()
        for raw in raws:
            for name, value in raw.items():
                mine = getattr(run, name, None)
                if isinstance(mine, list):
                    mine.extend(value)
                elif isinstance(mine, dict):
                    mine.update(value)
                elif name == "skip_reason":
                    run.skip_reason = run.skip_reason or value
                elif name.endswith("_s") and value is not None:
                    setattr(run, name, value if mine is None else max(mine, value))
        return run

    def as_dict(self) -> dict[str, Any]:
        lat = self.key_to_redraw_ms
        return {
            "server_start_to_api_ready_s": self.server_ready_s,
            "server_start_to_first_notebook_interactive_s": self.first_interactive_s,
            "cold_start_retries": self.cold_retries,
            "open_s": self.open_s,
            "run_all_s": self.run_all_s,
            "key_to_redraw_ms": {
                "n": len(lat),
                "median": statistics.median(lat) if lat else None,
                "min": min(lat) if lat else None,
                "max": max(lat) if lat else None,
            },
            "key_to_redraw_by_notebook": key_press_table(self.key_samples),
            "key_samples": self.key_samples,
            "browser_session_s": self.session_s,
            "notes": self.notes,
        }


RUN = BrowserRun()

#: Key press to redrawn image (issue 14): median at most this, over at least this many
#: presses in these notebooks (the issue's; the others are printed, not judged).
KEY_MEDIAN_TARGET_MS = 100.0
KEY_PRESSES_WANTED = 20
KEY_TARGET_NOTEBOOKS = ("02_computing_the_wait", "04_circuit_breaker", "06_retry_storms_lab")


def key_press_target(samples: list[dict[str, Any]]) -> tuple[int, float | None, bool]:
    """(presses, median ms, target met) over the presses in :data:`KEY_TARGET_NOTEBOOKS`.

    >>> key_press_target([{"notebook": "02_computing_the_wait", "latency_ms": 80.0},
    ...                   {"notebook": "09_beyond_the_lessons", "latency_ms": 10.0}])
    (1, 80.0, False)
    """
    lat = [
        float(x["latency_ms"])
        for x in samples
        if "latency_ms" in x and x["notebook"] in KEY_TARGET_NOTEBOOKS
    ]
    median = statistics.median(lat) if lat else None
    ok = len(lat) >= KEY_PRESSES_WANTED and median is not None and (median <= KEY_MEDIAN_TARGET_MS)
    return len(lat), median, ok


def key_press_table(samples: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Median, max and count of the key-to-redraw latencies by notebook, then by explorer.

    >>> key_press_table([{"notebook": "02", "class": "A", "latency_ms": 40.0},
    ...                  {"notebook": "02", "class": "A", "latency_ms": 60.0}])["02"]
    {'median': 50.0, 'max': 60.0, 'n': 2}
    """
    groups: dict[str, list[float]] = {}
    for sample in samples:
        if "latency_ms" not in sample:
            continue
        for name in (sample["notebook"], f"{sample['notebook']} {sample['class']}"):
            groups.setdefault(name, []).append(float(sample["latency_ms"]))
    return {
        name: {"median": statistics.median(v), "max": max(v), "n": len(v)}
        for name, v in sorted(groups.items())
    }


#: When this process started: the last run's files are older than it; under xdist,
#: another worker's screenshots of this run are newer, and kept.
STARTED = time.time()

#: "gw0", "gw1", ... in a pytest-xdist worker; "" in a run without workers.
WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")


def artifacts_path() -> Path:
    """Where the artifacts go (not created)."""
    env = os.environ.get("RETRYLAB_ARTIFACTS")
    return (Path(env) if env else REPO / "browser-artifacts").resolve()


def worker_file(stem: str, suffix: str) -> str:
    """``stem.suffix``, or ``stem-gwN.suffix`` in an xdist worker.

    >>> worker_file("timings", "json") in ("timings.json", f"timings-{WORKER}.json")
    True
    """
    return f"{stem}-{WORKER}.{suffix}" if WORKER else f"{stem}.{suffix}"


def artifacts_dir() -> Path:
    """The screenshot folder (created; stale files of this harness removed)."""
    if RUN.artifacts is None:
        path = artifacts_path()
        path.mkdir(parents=True, exist_ok=True)
        # Last run's files would mislead: remove what this harness writes (only that).
        ours = re.compile(
            r"^(FAIL-.*|\d\d_.*)\.png$"
            r"|^(timings(-gw\d+)?\.json|jupyterlab-server(-gw\d+)?\.log)$"
        )
        for old in path.iterdir():
            if old.is_file() and ours.match(old.name) and old.stat().st_mtime < STARTED:
                old.unlink()
        RUN.artifacts = path
    return RUN.artifacts


def safe_name(text: str) -> str:
    """A file-name-safe version of a test id."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_")[:150]


# -- requirements ------------------------------------------------------------------
def _missing(what: str, hint: str) -> None:
    reason = f"{what} not installed: {hint}"
    RUN.skip_reason = reason
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"CI=true and {reason}", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def chromium_path() -> str:
    """Path of the system Chromium; skip (fail under CI=true) if it or playwright is missing."""
    wanted = os.environ.get("RETRYLAB_CHROMIUM")  # another Chromium build, if set
    if wanted:
        path = wanted if Path(wanted).is_file() else None
    elif Path("/usr/bin/chromium").exists():
        path = "/usr/bin/chromium"
    else:
        path = shutil.which("chromium")
    if not path:
        _missing(
            f"chromium ({wanted or '/usr/bin/chromium or chromium on PATH'})",
            "apt-get install -y chromium",
        )
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        _missing(
            "playwright (Python package)",
            "pip install -e '.[browser]' (never `playwright install`)",
        )
    try:
        import ipywidgets  # noqa: F401
        import jupyterlab  # noqa: F401
    except ImportError:
        _missing("jupyterlab/ipywidgets", "pip install -e .")
    assert path is not None
    return path


# -- the server and the browser ----------------------------------------------------------
@pytest.fixture(scope="session")
def lab_server(chromium_path: str) -> Iterator[LabServer]:
    """JupyterLab serving a temp copy of notebooks/; stopped at session end."""
    RUN.session_started = time.monotonic()
    server = LabServer(NOTEBOOKS)
    atexit.register(server.stop)  # belt and braces: even if pytest dies before teardown
    # A SIGTERM (e.g. `timeout`) ends pytest like Ctrl+C, so the teardown below still runs.
    previous = signal.getsignal(signal.SIGTERM)

    def _terminate(signum: int, frame: object) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _terminate)
    try:
        server.start()
        RUN.server_ready_s = server.ready_after
        argv = server.kernelspec_argv()
        assert argv[0] == sys.executable, (
            f"kernelspec runs {argv[0]!r}, not this Python {sys.executable!r}"
        )
        yield server
    finally:
        log = server.log_tail(10_000)
        server.stop()
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, previous)
        if log:
            (artifacts_dir() / worker_file("jupyterlab-server", "log")).write_text(log + "\n")
        RUN.session_s = time.monotonic() - RUN.session_started


@pytest.fixture(scope="session")
def browser(chromium_path: str) -> Iterator[Any]:
    """Headless Debian Chromium driven by playwright; closed at session end."""
    from playwright.sync_api import sync_playwright

    pw = sync_playwright().start()
    try:
        chrome = pw.chromium.launch(
            executable_path=chromium_path, headless=True, args=CHROMIUM_FLAGS
        )
        try:
            yield chrome
        finally:
            chrome.close()
    finally:
        pw.stop()


class Lab:
    """Opens notebooks in fresh tabs; keeps each notebook's run page for later tests."""

    def __init__(self, server: LabServer, chrome: Any) -> None:
        self.server = server
        self.chrome = chrome
        self.pages: dict[str, NotebookPage] = {}
        self.opened_any = False
        self.keep = set(slider_stems())  # pages the slider tests will use again

    def _open(self, name: str) -> NotebookPage:
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        first = not self.opened_any
        assert self.server.root is not None
        facts = notebook_facts(self.server.root / name)  # the copy being served
        for attempt in (1, 2):
            context = self.chrome.new_context(viewport=VIEWPORT)
            nb = NotebookPage(context, context.new_page(), name, facts)
            try:
                nb.open(
                    self.server.url(f"lab/tree/{name}", reset=""),
                    OPEN_TIMEOUT_MS,
                    lambda: self.server.kernel_idle(name),
                )
            except (PlaywrightTimeout, OpenTimeout) as exc:
                # Only a cold start of the very first notebook gets one more try.
                shot = artifacts_dir() / f"FAIL-cold-start-{safe_name(name)}-{attempt}.png"
                with contextlib.suppress(Exception):
                    nb.page.screenshot(path=str(shot))
                nb.close()
                if first and attempt == 1:
                    RUN.cold_retries.append(f"{name}: {str(exc).splitlines()[0]} ({shot})")
                    continue
                raise
            if first:
                RUN.first_interactive_s = time.monotonic() - self.server.started_at
            self.opened_any = True
            RUN.open_s[name] = round(nb.open_seconds, 2)
            RUN.notes.extend(f"{name}: {note}" for note in nb.notes)
            return nb
        raise AssertionError("unreachable")

    def notebook(self, name: str, register: Callable[[NotebookPage], None]) -> NotebookPage:
        """The page of ``name`` after Run All (opened and run on first use)."""
        nb = self.pages.get(name)
        if nb is not None and nb.ran:
            register(nb)
            return nb
        nb = self._open(name)
        register(nb)
        nb.run_all(RUN_ALL_TIMEOUT_MS)
        RUN.run_all_s[name] = round(nb.run_seconds, 2)
        self.pages[name] = nb
        return nb

    def release(self, name: str) -> None:
        """Close a notebook's tab and shut its kernel down, unless a slider test will use
        it again (a student has one or two notebooks open, not thirteen)."""
        if Path(name).stem in self.keep:
            return
        nb = self.pages.pop(name, None)
        if nb is not None:
            nb.close()
        self.server.shutdown_session(name)

    def close_all(self) -> None:
        for nb in self.pages.values():
            nb.close()
        self.pages.clear()


@pytest.fixture(scope="session")
def lab(lab_server: LabServer, browser: Any) -> Iterator[Lab]:
    """The server + browser pair the tests talk to."""
    session = Lab(lab_server, browser)
    try:
        yield session
    finally:
        session.close_all()


PAGES_KEY = pytest.StashKey[list[NotebookPage]]()


@pytest.fixture
def notebook(lab: Lab, request: pytest.FixtureRequest) -> Callable[[str], NotebookPage]:
    """``notebook(name)`` -> its page after Run All; screenshotted if the test fails."""
    used = request.node.stash.setdefault(PAGES_KEY, [])

    def get(name: str) -> NotebookPage:
        return lab.notebook(name, used.append)

    return get


@pytest.fixture
def artifacts() -> Path:
    return artifacts_dir()


@pytest.fixture(scope="session")
def browser_run() -> BrowserRun:
    """The session's timing record (tests append key-to-redraw latencies)."""
    return RUN


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()
    if report.when != "call" or not report.failed:
        return
    for k, nb in enumerate(item.stash.get(PAGES_KEY, [])):
        shot = artifacts_dir() / f"FAIL-{safe_name(item.name)}-{k}.png"
        try:
            nb.page.screenshot(path=str(shot))
        except Exception as exc:  # the page may be gone; the report still stands
            shot = Path(f"(screenshot failed: {exc})")
        report.sections.append(
            (
                "browser",
                f"failure screenshot: {shot}\nconsole errors:\n"
                + "\n".join(nb.console_errors[-20:]),
            )
        )


def _ran(run: BrowserRun) -> bool:
    return not (run.artifacts is None and not run.skip_reason and run.server_ready_s is None)


def pytest_sessionfinish(session: pytest.Session) -> None:
    """A worker hands its record to the controller in ``timings-gwN.json``."""
    if WORKER and _ran(RUN):
        (artifacts_dir() / worker_file("timings", "json")).write_text(
            json.dumps(RUN.raw(), indent=2) + "\n"
        )


def _workers_run() -> BrowserRun | None:
    """The xdist workers' records of this run, merged; None if there are none."""
    folder = artifacts_path()
    files = sorted(folder.glob("timings-gw*.json")) if folder.is_dir() else []
    raws = [json.loads(f.read_text()) for f in files if f.stat().st_mtime >= STARTED]
    if not raws:
        return None
    run = BrowserRun.merged(raws)
    run.artifacts = folder
    return run


def pytest_terminal_summary(terminalreporter: Any) -> None:
    run = RUN if _ran(RUN) else _workers_run()
    if run is None:
        return  # no browser test ran
    tr = terminalreporter
    tr.section("retrylab browser tests")
    if run.skip_reason and run.server_ready_s is None:
        tr.write_line(f"browser tests skipped: {run.skip_reason}")
        return
    data = run.as_dict()
    if run.artifacts is not None:
        (run.artifacts / "timings.json").write_text(json.dumps(data, indent=2) + "\n")
        tr.write_line(f"artifacts (screenshots, server log, timings.json): {run.artifacts}")

    def sec(v: float | None) -> str:
        return "n/a" if v is None else f"{v:.1f} s"

    tr.write_line(
        f"server start -> API ready: {sec(run.server_ready_s)};"
        f" server start -> first notebook interactive (kernel idle):"
        f" {sec(run.first_interactive_s)}"
    )
    if run.cold_retries:
        tr.write_line(f"cold-start retries used: {run.cold_retries}")
    for note in run.notes:
        tr.write_line(f"note: {note}")
    for name in sorted(run.run_all_s):
        tr.write_line(
            f"  {name}: open {run.open_s.get(name, 0):.1f} s, Run All {run.run_all_s[name]:.1f} s"
        )
    lat = data["key_to_redraw_ms"]
    if lat["n"]:
        n, median, ok = key_press_target(run.key_samples)
        shown = "n/a" if median is None else f"{median:.0f} ms"
        tr.write_line(
            f"slider key press -> redrawn image in 02, 04 and 06: median {shown}"
            f" over {n} presses; target median <= {KEY_MEDIAN_TARGET_MS:.0f} ms"
            f" over >= {KEY_PRESSES_WANTED}: {'PASS' if ok else 'FAIL'}"
        )
        tr.write_line(
            f"  every notebook: median {lat['median']:.0f} ms (min {lat['min']:.0f},"
            f" max {lat['max']:.0f}, n={lat['n']})"
        )
        for name, row in key_press_table(run.key_samples).items():
            tr.write_line(
                f"  {name}: median {row['median']:.0f} ms, max {row['max']:.0f} ms, n={row['n']}"
            )
    tr.write_line(f"browser session (server start to teardown): {sec(run.session_s)}")
