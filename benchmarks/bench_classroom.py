"""A class on one machine: a local JupyterHub from classroom/, N students, notebooks 02 and 06.

    python benchmarks/bench_classroom.py --students 10 [--seconds 60]     # as root

Starts the hub of classroom/jupyterhub_config.py on 127.0.0.1 as its README says
(a system account per student, rlbench00, rlbench01, ..., made by
classroom/hub_setup.py and removed at the end; temporary state; the student edition
copied into each home as nbgitpuller would put it there; the proxy from
`npm ci --prefix classroom`, installed here if missing),
starts every student's server through the hub's REST API, and then:

1. all students open 02 at once: a kernel each (the server's sessions API), every
   code cell of the student edition run over the kernel's websocket; "ready" is
   when the last student's last cell has replied. Each websocket is held as
   JupyterLab's page holds it: read all the time, named by a session id, and
   connected again if the server closes it (the server replays what it sent
   meanwhile, so nothing is run twice);
2. each opens 06 the same way;
3. every student moves a slider at a student's pace, one step every 2 s (random
   phase): the code a slider change runs (``herd_view.set(...)`` on 06's fleet
   explorer), timed from the request to the kernel's reply through the hub's proxy;
4. memory: the resident set of every process of every student's server (the
   server, its kernels and whatever they started), and their CPU while sliding;
5. every student closes 02 as JupyterLab does with the class's settings (its session
   deleted, so the server shuts its kernel down) and the memory is measured again,
   with 06 in front; and one kernel more, which only imports the stack every
   notebook imports, gives the least two notebooks open can cost.

Prints the figures against the targets (30 students: <= 250 MB each, step
median <= 100 ms and p95 <= 250 ms, all 30 opening 02 ready within 60 s). It
measures the package as it is at run time (this checkout first on the path).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import pwd
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import nbformat
import psutil
from tornado.httpclient import HTTPClientError, HTTPRequest
from tornado.iostream import StreamClosedError
from tornado.websocket import WebSocketClosedError, websocket_connect

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from _processes import stop_hub  # the hub isolation test stops its hub so too

from retrylab import Backoff, Outcome, RetryPolicy, retry_statuses

ROOT = Path(__file__).resolve().parents[1]
CLASSROOM = ROOT / "classroom"
TOKEN = uuid.uuid4().hex
#: One slider step each: the settings a student's key presses walk through.
STEPS = [
    f'herd_view.set(cap={cap}, jitter="{jitter}")'
    for cap in (2000, 3000, 4000, 5000)
    for jitter in ("full", "none")
]
#: How long one cell may wait for its kernel (30 kernels starting on 2 busy cores queue).
CELL_TIMEOUT = 900.0
#: A student's server can refuse the sessions API a moment after it reports ready (seen
#: at 30 students on 2 cores: 404 "Not allowing user" for a token made for her): those
#: statuses are asked again, 5 attempts in all, waiting 1, 2, 4 then 8 s.
SESSION_RETRY = RetryPolicy(
    5, Backoff(1000, 2, 8000, jitter="none"), rule=retry_statuses([403, 404, 502, 503])
)
#: A kernel's websocket refused (a 5xx of the proxy) or dropped while connecting is tried
#: again as a GET is (the lesson's rule), waiting 1, 2, 4 then 8 s; one the server closes
#: later is connected again this many times, as JupyterLab's page would.
SOCKET_RETRY = RetryPolicy(5, Backoff(1000, 2, 8000, jitter="none"))
SOCKET_RECONNECTS = 5
TARGETS = {"students": 30, "mb": 250.0, "median_ms": 100.0, "p95_ms": 250.0, "ready_s": 60.0}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def ensure_proxy() -> None:
    if not (CLASSROOM / "node_modules" / ".bin" / "configurable-http-proxy").exists():
        subprocess.run(
            ["npm", "ci", "--prefix", str(CLASSROOM), "--no-audit", "--no-fund"], check=True
        )


class Kernel:
    """One notebook's session through the hub's proxy, held as JupyterLab holds it.

    Its kernel's websocket is read all the time (tornado's client answers the server's
    pings only while nothing waits unread: a socket left unread is closed after two
    minutes) and is named by a session id, so a socket the server drops is connected
    again and the server replays what the kernel sent meanwhile: nothing is run twice.
    ``run`` sends code and awaits its reply; ``close`` closes the notebook.
    """

    def __init__(
        self, base: str, user: str, token: str, path: str, session_id: str, kernel_id: str
    ) -> None:
        self.base, self.user, self.token, self.path = base, user, token, path
        self.session_id = session_id  # the server's session (the notebook's)
        self.session = uuid.uuid4().hex  # this client's, which the server buffers for
        ws_base = base.replace("http://", "ws://")
        self.url = (
            f"{ws_base}/user/{user}/api/kernels/{kernel_id}/channels?session_id={self.session}"
        )
        self.ws: Any = None
        self.replies: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self.reconnects = 0
        self.closing = False
        self.lost: str = ""  # why the socket was given up, if it was
        self.reader: asyncio.Task[None] | None = None

    @classmethod
    async def open(cls, base: str, user: str, token: str, path: str) -> Kernel:
        async with httpx.AsyncClient(timeout=600) as http:
            answers: list[httpx.Response] = []

            async def ask() -> Outcome:
                r = await http.post(
                    f"{base}/user/{user}/api/sessions",
                    headers={"Authorization": f"token {token}"},
                    json={
                        "path": path,
                        "type": "notebook",
                        "name": "",
                        "kernel": {"name": "python3"},
                    },
                )
                answers.append(r)
                return Outcome.success() if r.is_success else Outcome.http(r.status_code)

            async def wait(ms: float) -> None:
                # Refused before any kernel started, so asking again starts only one;
                # a student reloads the same way.
                print(
                    f"{user}: {answers[-1].status_code} on opening {path}; asking again "
                    f"in {ms / 1000:.0f} s",
                    flush=True,
                )
                await asyncio.sleep(ms / 1000)

            await SESSION_RETRY.run_async(ask, "POST", sleep=wait)
            r = answers[-1]
            r.raise_for_status()
            model = r.json()
        kernel = cls(base, user, token, path, model["id"], model["kernel"]["id"])
        await kernel._connect()
        kernel.reader = asyncio.create_task(kernel._read())
        return kernel

    async def _connect(self) -> None:
        """Open the websocket; a refused or dropped attempt is tried again (SOCKET_RETRY)."""

        async def attempt() -> Outcome:
            try:
                self.ws = await websocket_connect(
                    HTTPRequest(
                        self.url,
                        headers={"Authorization": f"token {self.token}"},
                        connect_timeout=600,
                        request_timeout=600,
                    ),
                    max_message_size=64 * 1024 * 1024,
                )
            except HTTPClientError as e:
                return Outcome.http(e.code)
            except (OSError, StreamClosedError) as e:
                return Outcome.network(f"{type(e).__name__}: {e}")
            return Outcome.success()

        result = await SOCKET_RETRY.run_async(attempt, "GET")
        if not result.ok:
            raise RuntimeError(f"{self.user}: {self.path}'s kernel websocket: {result}")

    async def _read(self) -> None:
        """Read every message; hand each shell reply to the ``run`` awaiting it."""
        while True:
            raw = await self.ws.read_message()
            if raw is None:
                if self.closing:
                    return
                if self.reconnects == SOCKET_RECONNECTS:
                    self._give_up(f"closed more than {SOCKET_RECONNECTS} times")
                    return
                self.reconnects += 1
                print(
                    f"{self.user}: {self.path}'s kernel websocket closed; connecting "
                    "again (the server replays what it missed)",
                    flush=True,
                )
                try:
                    await self._connect()
                except RuntimeError as e:
                    self._give_up(str(e))
                    return
                continue
            if isinstance(raw, bytes):
                continue
            msg = json.loads(raw)
            if msg.get("channel") == "shell":
                reply = self.replies.pop(msg.get("parent_header", {}).get("msg_id"), None)
                if reply is not None and not reply.done():
                    reply.set_result(msg["content"])

    def _give_up(self, why: str) -> None:
        self.lost = why
        for reply in self.replies.values():
            if not reply.done():
                reply.set_exception(RuntimeError(f"{self.path}'s kernel websocket {why}"))

    async def run(self, code: str, timeout: float = 300) -> str:
        msg_id = uuid.uuid4().hex
        reply: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.replies[msg_id] = reply
        message = json.dumps(
            {
                "header": {
                    "msg_id": msg_id,
                    "username": "bench",
                    "session": self.session,
                    "msg_type": "execute_request",
                    "version": "5.3",
                    "date": "",
                },
                "parent_header": {},
                "metadata": {},
                "buffers": [],
                "channel": "shell",
                "content": {
                    "code": code,
                    "silent": False,
                    "store_history": True,
                    "user_expressions": {},
                    "allow_stdin": False,
                    "stop_on_error": True,
                },
            }
        )
        deadline = time.monotonic() + timeout
        while True:  # a socket being connected again takes the message once it is open
            if self.lost:
                raise RuntimeError(f"{self.path}'s kernel websocket {self.lost}")
            try:
                self.ws.write_message(message)
                break
            except WebSocketClosedError:
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.2)
        content = await asyncio.wait_for(reply, max(0.1, deadline - time.monotonic()))
        if content["status"] != "ok":
            raise RuntimeError(f"{code[:60]!r}: {content.get('ename')} {content.get('evalue')}")
        return str(content["status"])

    async def close(self) -> None:
        """Close the notebook: with the class's JupyterLab setting ``kernelShutdown``
        (classroom/jupyter-config/labconfig) the page deletes its session, and the
        server shuts the kernel down."""
        self.closing = True
        self.ws.close()
        if self.reader is not None:
            await self.reader
        async with httpx.AsyncClient(timeout=120) as http:
            r = await http.delete(
                f"{self.base}/user/{self.user}/api/sessions/{self.session_id}",
                headers={"Authorization": f"token {self.token}"},
            )
            r.raise_for_status()


def code_cells(path: Path) -> list[str]:
    nb = nbformat.read(path, as_version=4)
    return [c.source for c in nb.cells if c.cell_type == "code" and c.source.strip()]


def server_processes(hub: psutil.Process) -> dict[str, list[psutil.Process]]:
    """Each student's processes: a single-user server and all it started."""
    out: dict[str, list[psutil.Process]] = {}
    for child in hub.children(recursive=False):
        try:
            env = child.environ()
        except (psutil.AccessDenied, psutil.NoSuchProcess):
            continue
        user = env.get("JUPYTERHUB_USER")
        if user:
            out[user] = [child, *child.children(recursive=True)]
    return out


def rss_mb(procs: list[psutil.Process]) -> float:
    """Resident set: counts every shared page (libraries) once per process that maps it."""
    total = 0
    for p in procs:
        with contextlib.suppress(psutil.NoSuchProcess):
            total += p.memory_info().rss
    return total / 2**20


def smaps_mb(procs: list[psutil.Process], field: str) -> float:
    """A field of /proc/PID/smaps_rollup summed over processes, in MB.

    ``Pss``: proportional set size, each shared page divided among the processes
    that map it, so the students' PSS add up to what the class costs the machine.
    ``Private``: pages no other process maps (USS), the floor of what one more
    student costs. Linux only; 0 where the file cannot be read.
    """
    total = 0
    for p in procs:
        try:
            text = Path(f"/proc/{p.pid}/smaps_rollup").read_text()
        except OSError:
            continue
        for line in text.splitlines():
            key, _, rest = line.partition(":")
            if key == field or (field == "Private" and key in ("Private_Clean", "Private_Dirty")):
                total += int(rest.split()[0]) * 1024
    return total / 2**20


def memory(procs: dict[str, list[psutil.Process]]) -> dict[str, list[float]]:
    """RSS, PSS and private (USS) MB per student, measured at one instant."""
    return {
        "rss": [rss_mb(p) for p in procs.values()],
        "pss": [smaps_mb(p, "Pss") for p in procs.values()],
        "uss": [smaps_mb(p, "Private") for p in procs.values()],
    }


async def kernels_gone(
    hub: psutil.Process, users: list[str], kernels: int, seconds: float = 120
) -> None:
    """Wait, bounded, until every student's server runs ``kernels`` kernels."""
    deadline = time.monotonic() + seconds
    while True:
        procs = server_processes(hub)
        counts = [len(procs[u][0].children()) if u in procs else -1 for u in users]
        if all(c == kernels for c in counts):
            return
        if time.monotonic() > deadline:
            raise SystemExit(
                f"kernels per student after {seconds:.0f} s: {counts}, expected {kernels}"
            )
        await asyncio.sleep(0.5)


#: What every notebook's kernel imports (its first cells and the package's own imports):
#: a kernel that ran only this is the least a notebook open can cost.
STACK = (
    "import numpy, pandas, matplotlib.pyplot, ipywidgets, retrylab, retrylab.viz, "
    "retrylab.exercises, retrylab.sim"
)


async def stack_kernel_pss(base: str, hub: psutil.Process, user: str, token: str) -> float:
    """PSS MB of one more kernel of ``user`` that has only imported the STACK."""
    before = {p.pid for p in server_processes(hub)[user]}
    kernel = await Kernel.open(base, user, token, "retrylab/notebooks/00_start_here.ipynb")
    await kernel.run(STACK, timeout=CELL_TIMEOUT)
    new = [p for p in server_processes(hub)[user] if p.pid not in before]
    pss = smaps_mb(new, "Pss")
    await kernel.close()
    return pss


def cpu_seconds(procs: list[psutil.Process]) -> float:
    total = 0.0
    for p in procs:
        try:
            t = p.cpu_times()
            total += t.user + t.system
        except psutil.NoSuchProcess:
            pass
    return total


def cpu_by_part(hub: psutil.Process) -> dict[str, float]:
    """CPU seconds used so far by each part of the class: the kernels, the students'
    servers (without their kernels), the hub with its proxy and culler, and this
    process (the simulated students' browsers: in a real class they run on the
    students' own machines, so their share is the benchmark's, not the server's)."""
    students = server_processes(hub)
    servers = [group[0] for group in students.values()]
    kernels = [p for group in students.values() for p in group[1:]]
    pids = {p.pid for group in students.values() for p in group}
    others = [hub] + [p for p in hub.children(recursive=True) if p.pid not in pids]
    me = psutil.Process().cpu_times()
    return {
        "kernels": cpu_seconds(kernels),
        "servers": cpu_seconds(servers),
        "hub and proxy": cpu_seconds(others),
        "simulated browsers": me.user + me.system,
    }


def cpu_line(before: dict[str, float], after: dict[str, float], wall: float, kernels: int) -> str:
    """Where the CPU of one phase went, in core-seconds, against what the cores had."""
    used = {k: after[k] - before[k] for k in after}
    cores = os.cpu_count() or 1
    parts = ", ".join(f"{k} {v:.0f} s" for k, v in used.items())
    return (
        f"  CPU in it: {sum(used.values()):.0f} of {wall * cores:.0f} core-seconds"
        f" ({parts}; {used['kernels'] / max(kernels, 1):.2f} s a kernel)"
    )


async def student_opens(base: str, user: str, token: str, stem: str) -> tuple[Kernel, float]:
    """Open a notebook and run every code cell; the time until the last reply."""
    start = time.perf_counter()
    kernel = await Kernel.open(base, user, token, f"retrylab/notebooks/{stem}.ipynb")
    await kernel.run(
        "import os; os.chdir(os.path.expanduser('~/retrylab/notebooks'))", timeout=CELL_TIMEOUT
    )
    for code in code_cells(ROOT / "notebooks" / f"{stem}.ipynb"):
        await kernel.run(code, timeout=CELL_TIMEOUT)
    return kernel, time.perf_counter() - start


async def slide(kernel: Kernel, seconds: float, times: list[float]) -> None:
    await asyncio.sleep(random.uniform(0, 2))
    end = time.monotonic() + seconds
    i = random.randrange(len(STEPS))
    while time.monotonic() < end:
        t0 = time.perf_counter()
        await kernel.run(STEPS[i % len(STEPS)])
        took = time.perf_counter() - t0
        times.append(took * 1000)
        i += 1
        await asyncio.sleep(max(0.0, 2.0 - took))


#: The teacher's account of the benchmark's class (the hub's admin).
BENCH_ADMIN = "rlbenchteacher"


def student_names(count: int) -> list[str]:
    """The benchmark's students: system accounts made for the run, removed after it."""
    return [f"rlbench{i:02d}" for i in range(count)]


async def start_servers(base: str, count: int) -> tuple[list[str], list[str], float]:
    """Start the rostered students' servers through the hub's API: their names, a token
    each, and the seconds until the last server was ready."""
    users = student_names(count)
    api = f"{base}/hub/api"
    head = {"Authorization": f"token {TOKEN}"}
    async with httpx.AsyncClient(timeout=180, headers=head) as http:
        for _ in range(120):
            try:
                if (await http.get(f"{api}/")).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            await asyncio.sleep(0.5)
        t0 = time.perf_counter()  # the roster's names: the hub made their users
        await asyncio.gather(*(http.post(f"{api}/users/{u}/server") for u in users))
        for _ in range(600):
            states = await asyncio.gather(*(http.get(f"{api}/users/{u}") for u in users))
            if all(s.json()["servers"].get("", {}).get("ready") for s in states):
                break
            await asyncio.sleep(0.5)
        else:
            raise SystemExit("the students' servers did not start within 5 minutes")
        spawn_s = time.perf_counter() - t0
        tokens = []
        for u in users:
            r = await http.post(f"{api}/users/{u}/tokens", json={"note": "bench"})
            r.raise_for_status()
            tokens.append(r.json()["token"])
    return users, tokens, spawn_s


async def main_async(args: argparse.Namespace, base: str, hub: psutil.Process) -> None:
    users, tokens, spawn_s = await start_servers(base, args.students)
    idle = memory(server_processes(hub))
    print(
        f"{args.students} servers started in {spawn_s:.1f} s; idle server "
        f"PSS {statistics.median(idle['pss']):.0f} MB, "
        f"RSS {statistics.median(idle['rss']):.0f} MB each (median)"
    )

    cpu_start = cpu_by_part(hub)
    t_open = time.perf_counter()
    opened = await asyncio.gather(
        *(
            student_opens(base, u, t, "02_computing_the_wait")
            for u, t in zip(users, tokens, strict=True)
        )
    )
    ready = [s for _, s in opened]
    print(
        f"all open 02 at once: the last ready after {max(ready):.1f} s "
        f"(median {statistics.median(ready):.1f} s)",
        flush=True,
    )
    print(
        cpu_line(cpu_start, cpu_by_part(hub), time.perf_counter() - t_open, len(users)), flush=True
    )
    opened6 = await asyncio.gather(
        *(
            student_opens(base, u, t, "06_retry_storms_lab")
            for u, t in zip(users, tokens, strict=True)
        )
    )
    ready6 = [s for _, s in opened6]
    print(f"then all open 06 at once: the last ready after {max(ready6):.1f} s")

    procs = server_processes(hub)
    before = memory(procs)
    print(
        f"memory per student, 02 and 06 open: PSS {statistics.mean(before['pss']):.0f} MB, "
        f"RSS {statistics.mean(before['rss']):.0f} MB, USS "
        f"{statistics.mean(before['uss']):.0f} MB (mean); now sliding",
        flush=True,
    )
    nprocs = [len(p) for p in procs.values()]
    cpu0 = {u: cpu_seconds(p) for u, p in procs.items()}
    times: list[float] = []
    t0 = time.perf_counter()
    await asyncio.gather(*(slide(k, args.seconds, times) for k, _ in opened6))
    wall = time.perf_counter() - t0
    procs = server_processes(hub)
    cpu = [(cpu_seconds(p) - cpu0.get(u, 0.0)) / wall for u, p in procs.items()]
    after = memory(procs)
    times.sort()
    median = statistics.median(times)
    p95 = times[min(len(times) - 1, int(0.95 * len(times)))]
    # per student: the larger of the means before and after sliding
    mem = {k: max(statistics.mean(before[k]), statistics.mean(after[k])) for k in before}
    top = {k: max(before[k] + after[k]) for k in before}
    # Every student closes 02 (JupyterLab shuts its kernel down: kernelShutdown in the
    # class's settings) and goes on with 06: what the class costs from then on.
    await asyncio.gather(*(k.close() for k, _ in opened))
    await kernels_gone(hub, users, 1)
    one = memory(server_processes(hub))["pss"]
    # The least two notebooks open can cost: an idle server and two kernels that have
    # only imported the stack every notebook imports.
    stack = await stack_kernel_pss(base, hub, users[0], tokens[0])
    idle_server = statistics.median(idle["pss"])
    floor = idle_server + 2 * stack
    cores = os.cpu_count() or 1
    gb = psutil.virtual_memory().total / 2**30
    load_end = os.getloadavg()

    def verdict(ok: bool) -> str:
        return "ok" if ok else "OVER"

    print(
        f"\n{args.students} students for {args.seconds:.0f} s of sliding, {cores} cores, "
        f"{gb:.0f} GB; load average at start {args.load[0]:.2f} / {args.load[1]:.2f} / "
        f"{args.load[2]:.2f} (1 / 5 / 15 min), at the end {load_end[0]:.2f}"
    )
    print(f"processes per student (server + kernels): {statistics.median(nprocs):.0f}")
    print(
        f"memory per student, 02 and 06 open (mean; max):\n"
        f"  PSS {mem['pss']:.0f} MB (max {top['pss']:.0f})   target <= "
        f"{TARGETS['mb']:.0f}: {verdict(mem['pss'] <= TARGETS['mb'])}"
        "   <- the cost per student (shared pages divided among processes)\n"
        f"  RSS {mem['rss']:.0f} MB (max {top['rss']:.0f})"
        "   (counts shared libraries once per process: overstates)\n"
        f"  private (USS) {mem['uss']:.0f} MB (max {top['uss']:.0f})"
        "   (pages only this student's processes hold)\n"
        f"  02 closed (its kernel shut down, as the class's JupyterLab does on close), "
        f"06 in front: PSS {statistics.mean(one):.0f} MB (max {max(one):.0f})   target <= "
        f"{TARGETS['mb']:.0f}: {verdict(statistics.mean(one) <= TARGETS['mb'])}\n"
        f"  the least two notebooks open cost: an idle server "
        f"{idle_server:.0f} MB + 2 x a kernel that only imported "
        f"numpy, pandas, matplotlib, ipywidgets and retrylab {stack:.0f} MB = "
        f"{floor:.0f} MB PSS ({'below' if floor <= TARGETS['mb'] else 'above'} the "
        f"target before any cell's results)"
    )
    print(
        f"slider step round trip, {len(times)} steps: median {median:.0f} ms "
        f"(target {TARGETS['median_ms']:.0f}: {verdict(median <= TARGETS['median_ms'])}), "
        f"p95 {p95:.0f} ms (target {TARGETS['p95_ms']:.0f}: "
        f"{verdict(p95 <= TARGETS['p95_ms'])}), max {times[-1]:.0f} ms"
    )
    print(
        f"all opening 02 at once: ready in {max(ready):.1f} s "
        f"(target {TARGETS['ready_s']:.0f} s for {TARGETS['students']}: "
        f"{verdict(max(ready) <= TARGETS['ready_s'])})"
    )
    reconnects = sum(k.reconnects for k, _ in (*opened, *opened6))
    print(
        f"kernel websockets the server closed and the page connected again: {reconnects}"
        " (nothing run twice: the server replays what the kernel sent meanwhile)"
    )
    print(
        f"CPU per student while sliding: {statistics.mean(cpu):.3f} cores "
        f"({args.students * statistics.mean(cpu):.2f} of {cores} for the class)"
    )
    if statistics.mean(cpu) > 0:
        print(
            f"implied: about {1 / statistics.mean(cpu):.0f} sliding students per core, "
            f"{1024 / mem['pss']:.1f} students per GB (PSS; "
            f"{1024 / mem['rss']:.1f} by RSS)"
        )
    if args.students < TARGETS["students"]:
        print(
            f"(the targets are for {TARGETS['students']} students: "
            f"--students {TARGETS['students']})"
        )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=5)
    parser.add_argument(
        "--seconds",
        type=float,
        default=40.0,
        help="how long every student moves a slider (default 40)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=2400.0,
        help="give up after this many seconds (default 2400)",
    )
    parser.add_argument("--keep", action="store_true", help="keep the temporary hub folder")
    args = parser.parse_args(argv)
    args.load = os.getloadavg()
    print(
        f"load average at start: {args.load[0]:.2f} / {args.load[1]:.2f} / "
        f"{args.load[2]:.2f} (1 / 5 / 15 min) on {os.cpu_count()} cores"
        + (
            "  (a busy machine: the times will be pessimistic)"
            if args.load[0] > 0.5 * (os.cpu_count() or 1)
            else ""
        )
    )
    if os.geteuid() != 0:
        raise SystemExit(
            "run it as root: the hub makes a system account per student "
            "(classroom/README.md) and starts each server as her"
        )
    ensure_proxy()
    work = Path(tempfile.mkdtemp(prefix="retrylab-hub-"))
    work.chmod(0o755)  # the room's font cache is in it: every student reads it
    users = student_names(args.students)
    roster = work / "roster.txt"
    roster.write_text("".join(f"{u}\n" for u in users))
    # the README's setup step: a system account per student, homes 0700
    subprocess.run(
        [
            sys.executable,
            str(CLASSROOM / "hub_setup.py"),
            "accounts",
            str(roster),
            "--admin",
            BENCH_ADMIN,
        ],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    sys.path.insert(0, str(CLASSROOM))
    import hub_setup

    try:
        with hub_setup.searchable(
            [Path(sys.executable).resolve(), Path(sys.executable).parent, ROOT]
        ):
            run_bench(args, work, roster, users)
    finally:
        for name in [*users, BENCH_ADMIN]:
            subprocess.run(["userdel", "--remove", name], capture_output=True)
    return 0


def run_bench(args: argparse.Namespace, work: Path, roster: Path, users: list[str]) -> None:
    for user in users:  # what nbgitpuller would clone: the student edition
        entry = pwd.getpwnam(user)
        dest = Path(entry.pw_dir) / "retrylab" / "notebooks"
        dest.mkdir(parents=True)
        for nb in (ROOT / "notebooks").glob("*.ipynb"):
            shutil.copy(nb, dest)
        for path in [dest.parent, dest, *dest.iterdir()]:
            os.chown(path, entry.pw_uid, entry.pw_gid)
    port = free_port()
    (work / "bench_config.py").write_text(
        f"load_subconfig({str(CLASSROOM / 'jupyterhub_config.py')!r})\n"
        "c.JupyterHub.services.append({'name': 'bench', "
        f"'api_token': {TOKEN!r}}})\n"
        "c.JupyterHub.load_roles.append({'name': 'bench', 'scopes': ['admin:users', "
        "'admin:servers', 'tokens', 'access:servers'], 'services': ['bench']})\n"
        f"c.ConfigurableHTTPProxy.api_url = 'http://127.0.0.1:{free_port()}'\n"
        f"c.JupyterHub.hub_port = {free_port()}\n"
    )
    env = dict(
        os.environ,
        RETRYLAB_HUB_ROSTER=str(roster),
        RETRYLAB_HUB_ADMIN=BENCH_ADMIN,
        RETRYLAB_HUB_IP="127.0.0.1",
        RETRYLAB_HUB_PORT=str(port),
        RETRYLAB_HUB_STATE=str(work / "state"),
        RETRYLAB_HUB_CACHE=str(work / "cache"),
        PYTHONPATH=os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p),
        PATH=os.pathsep.join((str(Path(sys.executable).parent), os.environ["PATH"])),
    )
    log = (work / "hub.log").open("w")
    proc = subprocess.Popen(
        [str(Path(sys.executable).parent / "jupyterhub"), "-f", str(work / "bench_config.py")],
        cwd=work,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        asyncio.run(
            asyncio.wait_for(
                main_async(args, f"http://127.0.0.1:{port}", psutil.Process(proc.pid)),
                timeout=args.timeout,
            )
        )
    finally:
        stop_hub(proc, 120)  # and every process it started, by pid (tests/_processes.py)
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print(f"hub folder kept: {work}")


if __name__ == "__main__":
    from results import recorded

    raise SystemExit(recorded(lambda: main(sys.argv[1:])))
