"""The workshop hub, started as classroom/README.md says, with two real students.

As root (CI runs as root): hub_setup.py makes the accounts from a roster, the hub
starts on 127.0.0.1 with its state in a private folder, alice, bob and the teacher
set their passwords at their first login; logins as bob with alice's password (or a
shared one) and as names not on the roster are refused, and only the teacher gets
the admin page. Alice and bob start their servers, bob writes a file and runs a
kernel, and from alice's kernel every attack of the teacher's review is tried: bob's
files, his kernel's connection file and sockets, his server's token in /proc, the
hub's secrets and environment, bob's server through the proxy. All refused; no
process of a student's server runs as root. Then alice follows the class's link
(the hub's default URL): nbgitpuller clones the student branch, which
tools/publish_student_branch.py published, and her clone holds no instructor file.

Outside CI, skipped with the reason when not root (or without useradd, npm or
JupyterHub); in CI (CI=true) those are failures. About 75 s on two quiet
cores, 90-125 s with a load average of 10-12.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import pwd
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _processes import stop_hub
from _waiting import wait_until

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "classroom"))
import hub_setup

sys.path.pop(0)

ROOT = Path(__file__).resolve().parents[2]
CLASSROOM = ROOT / "classroom"
BIN = Path(sys.executable).parent
IN_CI = os.environ.get("CI") == "true"


def need(condition: bool, why: str) -> None:
    if not condition:
        if IN_CI:
            pytest.fail(f"CI must run the hub test: {why}")
        pytest.skip(why)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def ensure_proxy() -> None:
    if not (CLASSROOM / "node_modules" / ".bin" / "configurable-http-proxy").exists():
        need(shutil.which("npm") is not None, "npm is missing (configurable-http-proxy)")
        subprocess.run(
            ["npm", "ci", "--prefix", str(CLASSROOM), "--no-audit", "--no-fund"],
            check=True,
            capture_output=True,
        )


#: Run in alice's kernel: every way at bob's work and the hub's secrets, each one's
#: outcome ("refused: ..." or what it got).
ATTACKS = r"""
import json, os, socket, urllib.request, urllib.error
P = json.loads(PARAMS)
out = {"uid": os.getuid(), "euid": os.geteuid(), "groups": os.getgroups()}
def attempt(label, fn):
    try:
        out[label] = "got: " + repr(fn())[:80]
    except OSError as e:
        out[label] = f"refused: {type(e).__name__}"
def read(path):
    with open(path, "rb") as f:
        return f.read()
def write(path):
    with open(path, "w") as f:
        return f.write("alice was here")
def unix_connect(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect(path)
    finally:
        s.close()
    return "connected"
def http(url, token):
    req = urllib.request.Request(url, headers={"Authorization": f"token {token}"})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status
    except urllib.error.HTTPError as e:
        raise PermissionError(e.code) if e.code in (403, 404) else e
# the controls: what alice may do works from here
attempt("control: list her own home", lambda: os.listdir(os.path.expanduser("~")))
attempt("control: her own server with her token", lambda: http(
    P["hub"] + "/user/" + P["alice"] + "/api/contents", os.environ["JUPYTERHUB_API_TOKEN"]))
attempt("read bob's notes", lambda: read(P["bob_notes"]))
attempt("list bob's home", lambda: os.listdir(P["bob_home"]))
attempt("write into bob's home", lambda: write(P["bob_home"] + "/from-alice.txt"))
attempt("overwrite bob's notebook", lambda: write(P["bob_notes"]))
attempt("open bob's kernel connection file", lambda: read(P["bob_connection_file"]))
attempt("connect to bob's kernel's shell socket", lambda: unix_connect(P["bob_shell_socket"]))
attempt("read bob's server's environ", lambda: read(f"/proc/{P['bob_server_pid']}/environ"))
attempt("read bob's kernel's environ", lambda: read(f"/proc/{P['bob_kernel_pid']}/environ"))
attempt("list bob's server's cwd", lambda: os.listdir(f"/proc/{P['bob_server_pid']}/cwd"))
attempt("signal bob's kernel", lambda: os.kill(P["bob_kernel_pid"], 0))
attempt("read the hub's environ", lambda: read(f"/proc/{P['hub_pid']}/environ"))
attempt("read the proxy's environ", lambda: read(f"/proc/{P['proxy_pid']}/environ"))
attempt("list the hub's state", lambda: os.listdir(P["state"]))
for name in ("jupyterhub_cookie_secret", "jupyterhub.sqlite", "passwords.dbm"):
    attempt(f"read the hub's {name}", lambda: read(P["state"] + "/" + name))
attempt("bob's server with alice's token", lambda: http(
    P["hub"] + "/user/" + P["bob"] + "/api/contents", os.environ["JUPYTERHUB_API_TOKEN"]))
attempt("bob's hub record with alice's token", lambda: http(
    P["hub"] + "/hub/api/users/" + P["bob"], os.environ["JUPYTERHUB_API_TOKEN"]))
print(json.dumps(out))
"""


class Hub:
    """The hub's address, and a student's session in it (httpx with her cookies)."""

    def __init__(self, url: str) -> None:
        self.url = url

    def login(self, name: str, password: str) -> tuple[Any, int]:
        import httpx

        client = httpx.Client(base_url=self.url, timeout=60)
        client.get("/hub/login")
        answer = client.post(
            "/hub/login",
            data={"username": name, "password": password, "_xsrf": client.cookies.get("_xsrf")},
        )
        return client, answer.status_code

    def token(self, client: Any, name: str) -> str:
        answer = client.post(
            f"/hub/api/users/{name}/tokens",
            json={"note": "test"},
            headers={"X-XSRFToken": client.cookies.get("_xsrf")},
        )
        answer.raise_for_status()
        return str(answer.json()["token"])


async def execute(url: str, token: str, kernel: str, code: str) -> str:
    """Run ``code`` in a kernel over its websocket (JupyterLab's way): its stdout."""
    from tornado.httpclient import HTTPRequest
    from tornado.websocket import websocket_connect

    ws_url = url.replace("http://", "ws://") + f"/api/kernels/{kernel}/channels"
    ws = await websocket_connect(HTTPRequest(ws_url, headers={"Authorization": f"token {token}"}))
    msg_id = uuid.uuid4().hex
    ws.write_message(
        json.dumps(
            {
                "header": {
                    "msg_id": msg_id,
                    "msg_type": "execute_request",
                    "username": "",
                    "session": uuid.uuid4().hex,
                    "version": "5.3",
                    "date": "",
                },
                "parent_header": {},
                "metadata": {},
                "channel": "shell",
                "content": {
                    "code": code,
                    "silent": False,
                    "store_history": False,
                    "user_expressions": {},
                    "allow_stdin": False,
                },
            }
        )
    )
    stdout: list[str] = []
    errors: list[str] = []
    replied = idle = False
    while not (replied and idle):  # the reply (shell) and the kernel idle again (iopub)
        raw = await asyncio.wait_for(ws.read_message(), timeout=120)
        assert raw is not None, "the kernel's websocket closed"
        msg = json.loads(raw)
        if msg.get("parent_header", {}).get("msg_id") != msg_id:
            continue
        kind = msg["header"]["msg_type"]
        if kind == "stream":
            stdout.append(msg["content"]["text"])
        elif kind == "error":
            errors.append("\n".join(msg["content"]["traceback"]))
        elif kind == "execute_reply":
            replied = True
        elif kind == "status":
            idle = msg["content"]["execution_state"] == "idle"
    ws.close()
    assert not errors, errors
    return "".join(stdout)


@pytest.fixture(scope="module")
def accounts() -> Iterator[dict[str, str]]:
    need(
        os.geteuid() == 0,
        "the hub runs as root to start each student's server as her "
        "own account; run as root (CI does)",
    )
    need(
        shutil.which("useradd") is not None and shutil.which("userdel") is not None,
        "useradd/userdel missing",
    )
    for module in ("jupyterhub", "firstuseauthenticator", "httpx", "psutil"):
        try:
            __import__(module)
        except ImportError:
            need(False, f"{module} is not installed (pip install -e '.[test]')")
    suffix = uuid.uuid4().hex[:6]
    names = {"alice": f"alice{suffix}", "bob": f"bob{suffix}", "teacher": f"teacher{suffix}"}
    work = Path(tempfile.mkdtemp(prefix="retrylab-hubtest-"))
    roster = work / "roster.txt"
    roster.write_text(f"# the class\n{names['alice']}\n{names['bob']}\n")
    try:
        # the README's setup step
        subprocess.run(
            [
                sys.executable,
                str(CLASSROOM / "hub_setup.py"),
                "accounts",
                str(roster),
                "--admin",
                names["teacher"],
            ],
            check=True,
            capture_output=True,
            text=True,
        )
        yield {**names, "roster": str(roster), "work": str(work)}
    finally:
        for name in names.values():
            subprocess.run(["userdel", "--remove", name], capture_output=True)
        shutil.rmtree(work, ignore_errors=True)


def test_two_students_on_a_hub_cannot_reach_each_other_or_the_hubs_secrets(
    accounts: dict[str, str],
) -> None:

    ensure_proxy()
    alice, bob, teacher = accounts["alice"], accounts["bob"], accounts["teacher"]
    for name in (alice, bob, teacher):  # what hub_setup made: private homes, not root
        entry = pwd.getpwnam(name)
        assert entry.pw_uid != 0 and stat.S_IMODE(os.stat(entry.pw_dir).st_mode) == 0o700
    work = Path(accounts["work"])
    state, cache = work / "state", work / "cache"
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("RETRYLAB_", "JUPYTER", "CONFIGPROXY"))
    }
    env.update(
        RETRYLAB_HUB_ROSTER=accounts["roster"],
        RETRYLAB_HUB_ADMIN=teacher,
        RETRYLAB_HUB_STATE=str(state),
        RETRYLAB_HUB_CACHE=str(cache),
        RETRYLAB_HUB_PORT=str(port),
        PYTHONPATH=os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p),
        PATH=os.pathsep.join((str(BIN), os.environ["PATH"])),
    )
    # the class's repository: the student branch published by the documented tool, in
    # a bare clone of this checkout that also holds every other branch (main's
    # solutions too); alice's own, so git lets her read it (safe.directory)
    class_repo = work / "class.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(ROOT), str(class_repo)], check=True)
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout.strip()
    subprocess.run(
        [
            sys.executable,
            str(ROOT / "tools" / "publish_student_branch.py"),
            "--repo",
            str(class_repo),
            "--source",
            head,
        ],
        check=True,
        capture_output=True,
    )
    subprocess.run(["chown", "-R", f"{alice}:", str(class_repo)], check=True)
    env["RETRYLAB_REPO"] = str(class_repo)
    log_path = work / "hub.log"
    with (
        hub_setup.searchable([Path(sys.executable).resolve(), BIN, ROOT]),
        log_path.open("w") as log,
    ):
        work.chmod(0o755)  # the font cache's folder: every student reads it
        hub = subprocess.Popen(
            [
                str(BIN / "jupyterhub"),
                "-f",
                str(CLASSROOM / "jupyterhub_config.py"),
                f"--JupyterHub.hub_port={free_port()}",
                f"--ConfigurableHTTPProxy.api_url=http://127.0.0.1:{free_port()}",
            ],
            cwd=work,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            run_the_class(Hub(url), hub, alice, bob, teacher, state, log_path)
            # every file the hub made is one .gitignore keeps out, were it made here
            made = sorted(p.name for p in state.iterdir())
            assert "jupyterhub_cookie_secret" in made and "jupyterhub.sqlite" in made
            if (ROOT / ".git").exists():
                ignored = subprocess.run(
                    ["git", "check-ignore", "--no-index", *made],
                    cwd=ROOT,
                    capture_output=True,
                    text=True,
                ).stdout
                assert sorted(ignored.split()) == made, (made, ignored)
        finally:
            stop_hub(hub, 60)


def hub_is_up(url: str, hub: subprocess.Popen[bytes], log: Path) -> bool:
    import httpx

    assert hub.poll() is None, f"the hub stopped:\n{log.read_text()[-3000:]}"
    try:
        return httpx.get(f"{url}/hub/api", timeout=5).status_code == 200
    except httpx.HTTPError:
        return False


def run_the_class(
    hub: Hub,
    proc: subprocess.Popen[bytes],
    alice: str,
    bob: str,
    teacher: str,
    state: Path,
    log: Path,
) -> None:
    import psutil

    wait_until(lambda: hub_is_up(hub.url, proc, log), limit=120, what="the hub answering")
    assert stat.S_IMODE(state.stat().st_mode) == 0o700
    passwords = {
        alice: "alice-first-login-1",
        bob: "bob-first-login-22",
        teacher: "teacher-first-login-333",
    }
    sessions = {}
    for name, password in passwords.items():  # the first login sets each one's password
        sessions[name], status = hub.login(name, password)
        assert status == 302, (name, status)
    # logging in as another student, or as nobody on the roster, is refused
    for name, password in [
        (bob, passwords[alice]),
        (alice, passwords[bob]),
        (bob, "a-shared-class-password"),
        (teacher, passwords[bob]),
        ("mallory", "mallory-password"),
        ("root", passwords[alice]),
    ]:
        assert hub.login(name, password)[1] == 403, (name, password)
    # the teacher is the admin; a student is not
    assert sessions[teacher].get("/hub/admin").status_code == 200
    assert sessions[alice].get("/hub/admin").status_code == 403

    tokens = {name: hub.token(sessions[name], name) for name in (alice, bob)}
    for name in (alice, bob):
        answer = sessions[name].post(
            f"/hub/api/users/{name}/server", headers={"Authorization": f"token {tokens[name]}"}
        )
        assert answer.status_code in (201, 202), answer.text
    import httpx

    def ready(name: str) -> bool:
        record = httpx.get(
            f"{hub.url}/hub/api/users/{name}",
            timeout=30,
            headers={"Authorization": f"token {tokens[name]}"},
        ).json()
        return bool(record["servers"].get("", {}).get("ready"))

    for name in (alice, bob):
        wait_until(lambda name=name: ready(name), limit=150, what=f"{name}'s server")
    # alice's token cannot start (or stop) bob's server
    assert httpx.post(
        f"{hub.url}/hub/api/users/{bob}/server",
        timeout=30,
        headers={"Authorization": f"token {tokens[alice]}"},
    ).status_code in (403, 404)

    kernels = {}
    for name in (alice, bob):
        answer = httpx.post(
            f"{hub.url}/user/{name}/api/kernels",
            json={"name": "python3"},
            timeout=60,
            headers={"Authorization": f"token {tokens[name]}"},
        )
        assert answer.status_code == 201, answer.text
        kernels[name] = answer.json()["id"]
    bob_home = pwd.getpwnam(bob).pw_dir
    said = asyncio.run(
        execute(
            f"{hub.url}/user/{bob}",
            tokens[bob],
            kernels[bob],
            "import os\n"
            "open(os.path.expanduser('~/notes.txt'), 'w').write('mine')\n"
            "print(os.getuid())",
        )
    )
    assert int(said) == pwd.getpwnam(bob).pw_uid

    # what alice would need: bob's kernel's connection file and its sockets' paths
    runtime = Path(bob_home) / ".local" / "share" / "jupyter" / "runtime"
    connection_file = runtime / f"kernel-{kernels[bob]}.json"
    connection = json.loads(connection_file.read_text())
    assert connection["transport"] == "ipc", connection
    shell_socket = f"{connection['ip']}-{connection['shell_port']}"
    if not shell_socket.startswith("/"):
        shell_socket = str(runtime / shell_socket)
    assert Path(shell_socket).exists()
    hub_process = psutil.Process(proc.pid)
    servers = {p.username(): p for p in hub_process.children() if p.username() in (alice, bob)}
    assert set(servers) == {alice, bob}, servers
    (bob_kernel,) = [
        p for p in servers[bob].children(recursive=True) if "ipykernel" in " ".join(p.cmdline())
    ]
    (proxy,) = [
        p for p in hub_process.children() if "configurable-http-proxy" in " ".join(p.cmdline())
    ]
    params = {
        "alice": alice,
        "bob": bob,
        "bob_home": bob_home,
        "bob_notes": f"{bob_home}/notes.txt",
        "bob_connection_file": str(connection_file),
        "bob_shell_socket": shell_socket,
        "bob_server_pid": servers[bob].pid,
        "bob_kernel_pid": bob_kernel.pid,
        "hub_pid": proc.pid,
        "proxy_pid": proxy.pid,
        "state": str(state),
        "hub": hub.url,
    }
    code = f"PARAMS = {json.dumps(params)!r}\n{ATTACKS}"
    result = json.loads(
        asyncio.run(execute(f"{hub.url}/user/{alice}", tokens[alice], kernels[alice], code))
    )
    assert result.pop("uid") == result.pop("euid") == pwd.getpwnam(alice).pw_uid != 0
    assert 0 not in result.pop("groups")
    for control in ("control: list her own home", "control: her own server with her token"):
        assert result.pop(control).startswith("got"), control
    got = {
        attack: outcome for attack, outcome in result.items() if not outcome.startswith("refused")
    }
    assert not got, f"alice got at bob's work or the hub's secrets: {got}"
    assert len(result) == 18, result
    assert Path(f"{bob_home}/notes.txt").read_text() == "mine"

    # the room's Matplotlib font cache, built once by the hub, was copied into each
    # student's own cache by her server's start command (her kernels build none)
    (room,) = (state.parent / "cache").glob("fontlist-*.json")
    for name in (alice, bob):
        copied = Path(pwd.getpwnam(name).pw_dir) / ".cache" / "matplotlib" / room.name
        assert copied.read_bytes() == room.read_bytes()
        assert copied.stat().st_uid == pwd.getpwnam(name).pw_uid

    # the class's link (the hub's default URL, as alice's browser follows it): the
    # student branch into ~/retrylab, with no instructor file in the tree or its history
    default_url = servers[alice].environ()["JUPYTERHUB_DEFAULT_URL"]
    assert default_url.startswith("/git-pull?"), default_url
    with httpx.stream(
        "GET",
        f"{hub.url}/user/{alice}/git-pull/api?{default_url.split('?')[1]}",
        headers={"Authorization": f"token {tokens[alice]}"},
        timeout=120,
    ) as r:
        events = "".join(r.iter_text())
    assert '"phase": "finished"' in events, events[-2000:]
    clone = Path(pwd.getpwnam(alice).pw_dir) / "retrylab"
    assert (clone / "notebooks" / "00_start_here.ipynb").exists()
    assert (clone / "notebooks" / "tr" / "00_start_here.ipynb").exists()
    assert clone.stat().st_uid == pwd.getpwnam(alice).pw_uid
    held = subprocess.run(
        ["git", "-c", f"safe.directory={clone}", "rev-list", "--objects", "--all"],
        cwd=clone,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    for instructor_only in (
        "notebooks/solutions/",
        "notebooks/tr/solutions/",
        "classroom/nbgrader/",
        "notebooks/src/",
    ):
        assert not (clone / instructor_only).exists(), instructor_only
        assert f" {instructor_only}" not in held, instructor_only

    # a terminal too runs as the student; nothing of a student's server runs as root
    answer = httpx.post(
        f"{hub.url}/user/{alice}/api/terminals",
        timeout=60,
        headers={"Authorization": f"token {tokens[alice]}"},
    )
    assert answer.status_code == 200, answer.text
    for name, server in servers.items():
        processes = [server, *server.children(recursive=True)]
        assert len(processes) >= 2  # the server and its kernel (and alice's shell)
        uids = set()
        for p in processes:  # one that ended since the listing is skipped
            with contextlib.suppress(psutil.NoSuchProcess):
                uids |= set(p.uids())  # real, effective, saved
        assert uids == {pwd.getpwnam(name).pw_uid}, (name, uids)
