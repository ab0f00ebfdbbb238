"""JupyterHub for a workshop machine: one server, 20-40 students, one afternoon.

    npm ci --prefix classroom                       # configurable-http-proxy, from package-lock.json
    pip install -e ".[classroom]" -c constraints.txt
    RETRYLAB_HUB_PASSWORD=... jupyterhub -f classroom/jupyterhub_config.py

Every setting is JupyterHub's own (or its idle culler's, or nbgitpuller's); the
environment variables below only say where things go. Defaults are for a room:
the hub listens on every interface, port 8000 (put TLS in front of it, or set
``c.JupyterHub.ssl_cert`` / ``ssl_key``, when the room's network is not yours).

    RETRYLAB_HUB_PASSWORD        the password the class shares (required)
    RETRYLAB_HUB_ADMIN_PASSWORD  the teacher's (user "teacher"); unset: no admin
    RETRYLAB_HUB_IP / _PORT      where the hub listens ("" = every interface, 8000)
    RETRYLAB_HUB_STATE           the hub's database, cookie secret, pid file, Matplotlib's
                                 font cache for every student (./hub-state)
    RETRYLAB_HUB_HOMES           one folder per student ({RETRYLAB_HUB_STATE}/homes)
    RETRYLAB_REPO / _BRANCH      what nbgitpuller puts in each home (the project's repository)
    RETRYLAB_HUB_MEM / _CPU      limits per student (see "Limits" below)

Who is who: a workshop has no accounts, so SharedPasswordAuthenticator (JupyterHub
>= 5) lets anyone with the shared password in under a name of their choice, and
SimpleLocalProcessSpawner runs each student's server as the hub's own Unix user in
a home folder of its own. Students can therefore read each other's folders; for a
graded course use real accounts (LocalProcessSpawner with PAM, or
systemdspawner's ``dynamic_users``) or the Kubernetes set-up in values.yaml.
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
STATE = Path(os.environ.get("RETRYLAB_HUB_STATE", "hub-state")).resolve()
HOMES = Path(os.environ.get("RETRYLAB_HUB_HOMES", STATE / "homes"))
REPO = os.environ.get("RETRYLAB_REPO", "https://github.com/retrylab/retrylab")
BRANCH = os.environ.get("RETRYLAB_BRANCH", "main")
STATE.mkdir(parents=True, exist_ok=True)
HOMES.mkdir(parents=True, exist_ok=True)

# -- the hub -------------------------------------------------------------------------
c.JupyterHub.ip = os.environ.get("RETRYLAB_HUB_IP", "")
c.JupyterHub.port = int(os.environ.get("RETRYLAB_HUB_PORT", "8000"))
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
    sys.exit("no configurable-http-proxy: run `npm ci --prefix classroom` first")
# a class logs in within a minute: let them all start at once
c.JupyterHub.concurrent_spawn_limit = 60
c.JupyterHub.active_server_limit = 0

# -- who may log in ----------------------------------------------------------------
c.JupyterHub.authenticator_class = "shared-password"
c.SharedPasswordAuthenticator.user_password = os.environ.get("RETRYLAB_HUB_PASSWORD", "")
if not c.SharedPasswordAuthenticator.user_password:
    sys.exit("set RETRYLAB_HUB_PASSWORD (at least 8 characters): the password the class shares")
if os.environ.get("RETRYLAB_HUB_ADMIN_PASSWORD"):
    c.SharedPasswordAuthenticator.admin_password = os.environ["RETRYLAB_HUB_ADMIN_PASSWORD"]
    c.Authenticator.admin_users = {"teacher"}
c.Authenticator.allow_all = True

# -- each student's server -----------------------------------------------------------
c.JupyterHub.spawner_class = "simple"   # SimpleLocalProcessSpawner: one folder per student
c.SimpleLocalProcessSpawner.home_dir_template = str(HOMES / "{username}")
c.Spawner.cmd = [str(Path(sys.executable).parent / "jupyterhub-singleuser")]
c.Spawner.start_timeout = 120
c.Spawner.http_timeout = 120
# The first page: nbgitpuller clones the repository into ~/retrylab on the first
# login and merges upstream changes on every later one (keeping the student's
# edits), then opens the student edition's first notebook.
c.Spawner.default_url = (
    f"/git-pull?repo={quote(REPO, safe='')}&branch={BRANCH}"
    "&urlpath=" + quote("lab/tree/retrylab/notebooks/00_start_here.ipynb", safe=""))
c.Spawner.environment = {
    # Two Jupyter config dirs, the first winning: classroom/jupyter-config/ (a
    # student's server loads only the server extensions a student uses: JupyterLab,
    # nbgitpuller, terminals; nbgrader's, Voila's, the language server's and the
    # classic notebook's stay off, 46 MB of each server's 116; and closing a notebook
    # shuts its kernel down, JupyterLab's kernelShutdown setting) and the project's
    # jupyter-config/ (JupyterLab's settings: no news pop-up over the explorers'
    # legends, whatever the install, editable or not).
    "JUPYTER_CONFIG_PATH": os.pathsep.join(
        (str(HERE / "jupyter-config"), str(HERE.parent / "jupyter-config"))),
    # glibc's malloc with two arenas rather than eight per core: a kernel's threads
    # (shell, control, iopub, heartbeat) otherwise keep memory in arenas of their
    # own (about 10 MB less a kernel; documented in mallopt(3), M_ARENA_MAX)
    "MALLOC_ARENA_MAX": os.environ.get("MALLOC_ARENA_MAX", "2"),
    # and a fixed mmap threshold (128 KiB, glibc's initial one): a figure's pixel
    # buffers are mapped and given back when freed, rather than kept in the heap
    # once glibc's dynamic threshold has grown to 32 MB (mallopt(3),
    # M_MMAP_THRESHOLD; 06's kernel 176 -> 167 MB PSS, measured alone)
    "MALLOC_MMAP_THRESHOLD_": os.environ.get("MALLOC_MMAP_THRESHOLD_", "131072"),
}
# Matplotlib's font cache, built once for the room: a fresh home has none, so every
# student's first kernel would scan the system's fonts to build it (0.45 s a student
# with this machine's 38 fonts, more where more are installed; 30 students opening
# their first notebook at once pay it together). MPLCONFIGDIR is Matplotlib's own
# setting for its cache (and config) folder; a student's own ~/.config/matplotlib is
# then not read. Built here, before any server starts, so no two kernels race to write it.
MPL_DIR = STATE / "matplotlib"
MPL_DIR.mkdir(exist_ok=True)
subprocess.run([sys.executable, "-c", "import matplotlib.font_manager"], check=True,
               timeout=300, env={**os.environ, "MPLCONFIGDIR": str(MPL_DIR)})
c.Spawner.environment["MPLCONFIGDIR"] = str(MPL_DIR)
c.Spawner.args = [
    # The kernel of a notebook the student left (a tab closed, or one still open
    # behind the one in front of her: cull_connected) goes after 20 idle minutes.
    # A student has one notebook in front of her; the one she left holds 110-170 MB.
    # Twenty minutes, not five: reading a section without running a cell or moving
    # a slider takes minutes, and a culled kernel means running the notebook again.
    "--MappingKernelManager.cull_idle_timeout=1200",
    "--MappingKernelManager.cull_interval=120",
    "--MappingKernelManager.cull_connected=True",
]
if os.geteuid() == 0:   # the hub runs as root (a container): so do the students' servers
    c.Spawner.args.append("--allow-root")

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
c.JupyterHub.services = [{
    "name": "idle-culler",
    "command": [sys.executable, "-m", "jupyterhub_idle_culler",
                "--timeout=1800", "--cull-every=300"],
}]
c.JupyterHub.load_roles = [{
    "name": "idle-culler",
    "scopes": ["list:users", "read:users:activity", "read:servers", "delete:servers"],
    "services": ["idle-culler"],
}]
