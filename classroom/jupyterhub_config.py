"""JupyterHub for a workshop machine: one server, 20-40 students, one afternoon.

As root, on the machine the class uses (classroom/README.md, "Before your class")::

    npm ci --prefix classroom                       # configurable-http-proxy (package-lock)
    pip install ".[classroom]" -c constraints.txt   # into a venv every student can read
    python classroom/hub_setup.py accounts roster.txt --admin teacher
    RETRYLAB_HUB_ROSTER=roster.txt RETRYLAB_HUB_ADMIN=teacher \
        jupyterhub -f classroom/jupyterhub_config.py

Every setting is JupyterHub's own (or its idle culler's, nbgitpuller's, jupyter_client's);
the environment variables below only say where things go and who is who.

    RETRYLAB_HUB_ROSTER          the class: one student's account name a line (required)
    RETRYLAB_HUB_ADMIN           the teacher's account name, the hub's admin (required)
    RETRYLAB_HUB_IP / _PORT      where the hub listens (127.0.0.1, 8000)
    RETRYLAB_HUB_SSL_CERT / _KEY its TLS certificate and key (needed beyond loopback)
    RETRYLAB_HUB_BEHIND_TLS_PROXY=1  instead: a reverse proxy in front terminates TLS
    RETRYLAB_HUB_STATE           the hub's database, cookie secret, passwords, pid files:
                                 outside the repository, 0700 (/var/lib/retrylab-hub)
    RETRYLAB_HUB_CACHE           Matplotlib's font cache for the room, readable by all
                                 (/var/cache/retrylab-hub)
    RETRYLAB_REPO / _BRANCH      what nbgitpuller puts in each home: the student edition
                                 (the project's repository, branch "student")
    RETRYLAB_HUB_MEM / _CPU      limits per student (see "Limits" below)

Who is who: every rostered name is a system account of its own (hub_setup.py makes
them; homes 0700). A student sets her password at her first login
(jupyterhub-firstuseauthenticator; bcrypt hashes in the state folder) and only
rostered names, and the teacher, get in. JupyterHub's LocalProcessSpawner starts
each server as the student's own account: the hub runs as root for that (it must
switch to each student's uid; sudospawner would let an unprivileged hub do it through
a sudo rule, one more package and a sudoers file to get right), and it refuses to
start a server for uid 0. Kernels talk to their server over Unix sockets in the
student's private runtime folder (KernelManager.transport=ipc), so no kernel listens
on a TCP port another student could reach.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

c = get_config()  # noqa: F821 (JupyterHub provides it)

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import hub_setup  # noqa: E402 (the checks, beside this file)


def refuse(why: object) -> None:
    """Stop the hub before it starts, saying what to change."""
    sys.exit(f"retrylab hub: not starting: {why}")


STATE = Path(os.environ.get("RETRYLAB_HUB_STATE", "/var/lib/retrylab-hub")).resolve()
CACHE = Path(os.environ.get("RETRYLAB_HUB_CACHE", "/var/cache/retrylab-hub")).resolve()
REPO = os.environ.get("RETRYLAB_REPO", "https://github.com/retrylab/retrylab")
BRANCH = os.environ.get("RETRYLAB_BRANCH", "student")
IP = os.environ.get("RETRYLAB_HUB_IP", "127.0.0.1")
SSL_CERT = os.environ.get("RETRYLAB_HUB_SSL_CERT", "")
SSL_KEY = os.environ.get("RETRYLAB_HUB_SSL_KEY", "")
ADMIN = os.environ.get("RETRYLAB_HUB_ADMIN", "")

if os.geteuid() != 0:
    refuse(
        "run the hub as root: JupyterHub's LocalProcessSpawner starts each student's "
        "server as her own account, which only root can do (classroom/README.md)"
    )
if os.environ.get("RETRYLAB_HUB_PASSWORD") or os.environ.get("RETRYLAB_HUB_ADMIN_PASSWORD"):
    refuse(
        "the shared class password is gone: unset RETRYLAB_HUB_PASSWORD and "
        "RETRYLAB_HUB_ADMIN_PASSWORD; each student sets her own at her first login"
    )
try:
    hub_setup.check_bind(
        IP, SSL_CERT, SSL_KEY, os.environ.get("RETRYLAB_HUB_BEHIND_TLS_PROXY") == "1"
    )
    hub_setup.check_state_dir(STATE, HERE.parent, os.geteuid())
    ROSTER = hub_setup.read_roster(os.environ.get("RETRYLAB_HUB_ROSTER", ""))
    if not ADMIN:
        raise ValueError("set RETRYLAB_HUB_ADMIN to the teacher's account name (the admin)")
    hub_setup.check_accounts([*ROSTER, ADMIN])
    # each server runs as its student: she must be able to run this Python (the venv's
    # and the interpreter it links to), read classroom/jupyter-config/ and the font cache
    hub_setup.check_reachable(
        [
            Path(sys.executable).parent,
            Path(sys.executable).resolve(),
            HERE / "jupyter-config",
            CACHE,
        ]
    )
except ValueError as _e:
    refuse(_e)

# -- the hub -------------------------------------------------------------------------
c.JupyterHub.ip = IP
c.JupyterHub.port = int(os.environ.get("RETRYLAB_HUB_PORT", "8000"))
if SSL_CERT:
    c.JupyterHub.ssl_cert = SSL_CERT
    c.JupyterHub.ssl_key = SSL_KEY
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.db_url = f"sqlite:///{STATE / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(STATE / "jupyterhub_cookie_secret")
c.JupyterHub.pid_file = str(STATE / "jupyterhub.pid")
c.ConfigurableHTTPProxy.pid_file = str(STATE / "jupyterhub-proxy.pid")
# the proxy installed by `npm ci --prefix classroom`, else one on PATH
_proxy = HERE / "node_modules" / ".bin" / "configurable-http-proxy"
if _proxy.exists():
    c.ConfigurableHTTPProxy.command = [str(_proxy)]
elif not shutil.which("configurable-http-proxy"):
    refuse("no configurable-http-proxy: run `npm ci --prefix classroom` first")
# a class logs in within a minute: let them all start at once (only rostered names can)
c.JupyterHub.concurrent_spawn_limit = 60
c.JupyterHub.active_server_limit = 0

# -- who may log in ----------------------------------------------------------------
# A password per student, set at her first login and kept as a bcrypt hash in the
# state folder; only the roster's names (and the teacher) are allowed. A student who
# forgot hers: the teacher deletes her user on the admin page (her files stay) and
# adds her again there (or restarts the hub); her next login sets a new one.
c.JupyterHub.authenticator_class = "firstuseauthenticator.FirstUseAuthenticator"
c.FirstUseAuthenticator.dbm_path = str(STATE / "passwords.dbm")
c.FirstUseAuthenticator.min_password_length = 8
c.FirstUseAuthenticator.create_users = False  # only users the hub knows: the roster's
c.Authenticator.allowed_users = set(ROSTER)
c.Authenticator.admin_users = {ADMIN}
c.Authenticator.allow_all = False
c.Authenticator.allow_existing_users = False  # the roster, not the database, says who

# -- each student's server -----------------------------------------------------------
# JupyterHub's LocalProcessSpawner: the server (and so its kernels and terminals) runs
# as the student's own account, in her own home, with her own uid and groups.
c.JupyterHub.spawner_class = "localprocess"


def _never_root(spawner: object) -> None:
    """Checked again at every start: the account may have changed since the hub began."""
    name = spawner.user.name
    try:
        hub_setup.check_accounts([name])
    except ValueError as e:
        raise RuntimeError(f"not starting {name}'s server: {e}") from None


c.Spawner.pre_spawn_hook = _never_root
# Matplotlib's font cache, built once for the room: a fresh home has none, so every
# student's first kernel would scan the system's fonts to build it (0.45 s a student
# with this machine's 38 fonts, more where more are installed; 30 students opening
# their first notebook at once pay it together). Built here, before any server starts,
# in a folder every student can read and none can write; each server, as the student,
# copies it into her own cache (~/.cache/matplotlib, where Matplotlib looks) before it
# starts, if she has none yet. (A shared MPLCONFIGDIR would have to be writable by all:
# Matplotlib ignores one it cannot write to, and any student could then change the
# matplotlibrc of every other.)
CACHE.mkdir(parents=True, exist_ok=True)
CACHE.chmod(0o755)
subprocess.run(
    [sys.executable, "-c", "import matplotlib.font_manager"],
    check=True,
    timeout=300,
    env={**os.environ, "MPLCONFIGDIR": str(CACHE)},
)
for _f in CACHE.iterdir():
    _f.chmod(0o755 if _f.is_dir() else 0o644)
SEED_FONT_CACHE = (
    'd="$HOME/.cache/matplotlib"; mkdir -p "$d" && '
    'for f in "$RETRYLAB_FONT_CACHE"/fontlist-*.json; do '
    '[ -e "$f" ] && [ ! -e "$d/${f##*/}" ] && cp "$f" "$d/"; done; exec "$0" "$@"'
)
c.Spawner.cmd = [
    "/bin/sh",
    "-c",
    SEED_FONT_CACHE,
    str(Path(sys.executable).parent / "jupyterhub-singleuser"),
]
c.Spawner.start_timeout = 120
c.Spawner.http_timeout = 120
# The first page: nbgitpuller clones the student edition (a branch with no solutions
# and no grading source: tools/publish_student_branch.py builds it) into ~/retrylab on
# the first login and merges upstream changes on every later one (keeping the
# student's edits), then opens its first notebook. targetpath: ~/retrylab whatever the
# URL ends in (a URL ending in .git would otherwise clone into ~/retrylab.git).
c.Spawner.default_url = (
    f"/git-pull?repo={quote(REPO, safe='')}&branch={quote(BRANCH, safe='')}"
    "&targetpath=retrylab"
    "&urlpath=" + quote("lab/tree/retrylab/notebooks/00_start_here.ipynb", safe="")
)
c.Spawner.environment = {
    # Two Jupyter config dirs, the first winning: classroom/jupyter-config/ (a
    # student's server loads only the server extensions a student uses: JupyterLab,
    # nbgitpuller, terminals; nbgrader's, Voila's, the language server's and the
    # classic notebook's stay off, 46 MB of each server's 116; and closing a notebook
    # shuts its kernel down, JupyterLab's kernelShutdown setting) and the project's
    # jupyter-config/ (JupyterLab's settings: no news pop-up over the explorers'
    # legends, whatever the install, editable or not).
    "JUPYTER_CONFIG_PATH": os.pathsep.join(
        (str(HERE / "jupyter-config"), str(HERE.parent / "jupyter-config"))
    ),
    # glibc's malloc with two arenas rather than eight per core: a kernel's threads
    # (shell, control, iopub, heartbeat) otherwise keep memory in arenas of their
    # own (about 10 MB less a kernel; documented in mallopt(3), M_ARENA_MAX)
    "MALLOC_ARENA_MAX": os.environ.get("MALLOC_ARENA_MAX", "2"),
    # and a fixed mmap threshold (128 KiB, glibc's initial one): a figure's pixel
    # buffers are mapped and given back when freed, rather than kept in the heap
    # once glibc's dynamic threshold has grown to 32 MB (mallopt(3),
    # M_MMAP_THRESHOLD; 06's kernel 176 -> 167 MB PSS, measured alone)
    "MALLOC_MMAP_THRESHOLD_": os.environ.get("MALLOC_MMAP_THRESHOLD_", "131072"),
    "RETRYLAB_FONT_CACHE": str(CACHE),
}
c.Spawner.args = [
    # Kernels talk to the server over Unix sockets beside their connection files, in
    # the student's runtime folder (~/.local/share/jupyter/runtime, in her 0700 home):
    # over TCP every kernel's five ports are open to every account on the machine,
    # and its connection file's key is all another student would need.
    "--KernelManager.transport=ipc",
    # The kernel of a notebook the student left (a tab closed, or one still open
    # behind the one in front of her: cull_connected) goes after 20 idle minutes.
    # A student has one notebook in front of her; the one she left holds 110-170 MB.
    # Twenty minutes, not five: reading a section without running a cell or moving
    # a slider takes minutes, and a culled kernel means running the notebook again.
    "--MappingKernelManager.cull_idle_timeout=1200",
    "--MappingKernelManager.cull_interval=120",
    "--MappingKernelManager.cull_connected=True",
]

# -- limits --------------------------------------------------------------------------
# Per student, from benchmarks/bench_classroom.py (the README's instructor section
# gives the figures). A local process spawner only *tells* the server its limits
# (MEM_LIMIT / CPU_LIMIT in its environment, shown by jupyter-resource-usage):
# it enforces neither. To enforce them on one machine, use systemdspawner
# (pip install jupyterhub-systemdspawner; c.JupyterHub.spawner_class = "systemd",
# c.SystemdSpawner.mem_limit / cpu_limit become cgroup limits), or Kubernetes.
c.Spawner.mem_limit = os.environ.get("RETRYLAB_HUB_MEM", "1G")
c.Spawner.cpu_limit = float(os.environ.get("RETRYLAB_HUB_CPU", "1"))

# -- the idle culler: a server nobody used for 30 minutes is stopped ------------------
c.JupyterHub.services = [
    {
        "name": "idle-culler",
        "command": [
            sys.executable,
            "-m",
            "jupyterhub_idle_culler",
            "--timeout=1800",
            "--cull-every=300",
        ],
    }
]
c.JupyterHub.load_roles = [
    {
        "name": "idle-culler",
        "scopes": ["list:users", "read:users:activity", "read:servers", "delete:servers"],
        "services": ["idle-culler"],
    }
]
