"""A class's session: fresh settings, and nbgitpuller updates that keep a student's work."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
import zipfile
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]


SETTINGS = ROOT / "jupyter-config" / "labconfig" / "default_setting_overrides.d" / "retrylab.json"
NOTIFICATION = "@jupyterlab/apputils-extension:notification"


def test_news_notification_is_off_in_the_shipped_settings() -> None:
    settings = json.loads(SETTINGS.read_text())
    notification = settings[NOTIFICATION]
    assert notification["fetchNews"] == "false" and notification["checkForUpdates"] is False
    text = (ROOT / "pyproject.toml").read_text()
    assert (
        '"etc/jupyter/labconfig/default_setting_overrides.d" = [\n'
        '    "jupyter-config/labconfig/default_setting_overrides.d/retrylab.json",'
    ) in text
    hub = (ROOT / "classroom" / "jupyterhub_config.py").read_text()
    assert 'str(HERE.parent / "jupyter-config")' in hub  # the hub's servers read it too


def test_the_documented_open_commands_put_the_settings_on_the_config_path() -> None:
    """./run lab (the README's) and TEACHING.md's conda and by-hand commands."""
    run = (ROOT / "run").read_text()
    opens = [line for line in run.splitlines() if "jupyter lab" in line and "exec" in line]
    teaching = (ROOT / "TEACHING.md").read_text()
    opens += [line for line in teaching.splitlines() if "jupyter lab notebooks/" in line]
    assert len(opens) >= 3  # ./run, conda, by hand
    for line in opens:
        assert 'JUPYTER_CONFIG_PATH="$PWD/jupyter-config"' in line, line


def lab_answers(
    config_path: Path | list[Path] | None,
    tmp_path: Path,
    paths: list[str],
    launcher: tuple[str, ...] = (),
) -> list[bytes]:
    """What a fresh JupyterLab answers on each of ``paths`` (its token added), started
    with ``config_path`` on JUPYTER_CONFIG_PATH (a list: the first folder wins).

    ``launcher``: a command that starts the server's command (Binder's ``start``);
    ``config_path`` None: no JUPYTER_CONFIG_PATH beyond what the launcher sets.
    """
    port = free_port()
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("JUPYTER")}
    if config_path is not None:
        folders = config_path if isinstance(config_path, list) else [config_path]
        env["JUPYTER_CONFIG_PATH"] = os.pathsep.join(str(p) for p in folders)
    env.update(
        HOME=str(home),
        JUPYTERLAB_SETTINGS_DIR=str(home / "user-settings"),
        JUPYTER_RUNTIME_DIR=str(home / "runtime"),
    )
    cmd = [
        *launcher,
        sys.executable,
        "-m",
        "jupyterlab",
        "--no-browser",
        "--ip=127.0.0.1",
        f"--port={port}",
        "--ServerApp.port_retries=0",
        "--IdentityProvider.token=t",
        f"--ServerApp.root_dir={tmp_path}",
    ]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-root")
    urls = [f"http://127.0.0.1:{port}/{path}?token=t" for path in paths]
    with subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) as lab:
        try:
            deadline = time.monotonic() + 120
            while True:
                try:
                    answers = []
                    for url in urls:
                        with urllib.request.urlopen(url, timeout=10) as r:
                            answers.append(r.read())
                    return answers
                except OSError:
                    if lab.poll() is not None or time.monotonic() > deadline:
                        raise
                    time.sleep(0.5)
        finally:
            lab.terminate()
            lab.wait(30)


def settings_path(plugin: str) -> str:
    return f"lab/api/settings/{plugin}"


def composite(answer: bytes) -> dict[str, object]:
    """The settings a fresh session starts from, out of a settings API answer.

    A setting nobody changed is its schema's default, which overrides replace
    (the page computes the composite from it).
    """
    props = json.loads(answer)["schema"]["properties"]
    return {k: v.get("default") for k, v in props.items()}


def lab_settings(
    config_path: Path | list[Path] | None,
    tmp_path: Path,
    launcher: tuple[str, ...] = (),
    plugin: str = NOTIFICATION,
) -> dict[str, object]:
    """The settings of ``plugin`` (the notifications') a fresh JupyterLab starts from."""
    (answer,) = lab_answers(config_path, tmp_path, [settings_path(plugin)], launcher)
    return composite(answer)


def disabled_extensions(page: bytes) -> list[str]:
    """The front-end extensions JupyterLab's page turns off (its page config)."""
    found = re.search(
        rb'<script id="jupyter-config-data" type="application/json">(.*?)'
        rb"</script>",
        page,
        re.DOTALL,
    )
    assert found, "no page config in JupyterLab's page"
    return list(json.loads(found.group(1))["disabledExtensions"])


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_an_editable_install_gets_the_settings_through_the_config_path(tmp_path: Path) -> None:
    """`pip install -e` installs no data files: the README's command names the checkout's."""
    composite = lab_settings(ROOT / "jupyter-config", tmp_path)
    assert composite["fetchNews"] == "false" and composite["checkForUpdates"] is False


def test_a_wheel_installs_the_settings_where_jupyterlab_reads_them(tmp_path: Path) -> None:
    """`pip install .` goes through a wheel: its data lands in {prefix}/etc/jupyter."""
    src = tmp_path / "src"  # a copy: the build writes build/ and egg-info beside its source
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        src.mkdir(exist_ok=True)
        shutil.copy(ROOT / name, src)
    for name in ("retrylab", "jupyter-config"):
        shutil.copytree(
            ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info")
        )
    wheels = tmp_path / "wheels"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(src)],
        check=True,
        cwd=tmp_path,
    )
    (wheel,) = wheels.glob("retrylab-*.whl")
    prefix = tmp_path / "prefix"  # what pip does with the wheel's .data/data/ folder
    with zipfile.ZipFile(wheel) as z:
        data = [n for n in z.namelist() if ".data/data/" in n]
        assert data == [
            n
            for n in data
            if n.endswith("etc/jupyter/labconfig/default_setting_overrides.d/retrylab.json")
        ], data
        for name in data:
            target = prefix / name.split(".data/data/", 1)[1]
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(z.read(name))
    composite = lab_settings(prefix / "etc" / "jupyter", tmp_path)
    assert composite["fetchNews"] == "false" and composite["checkForUpdates"] is False


CLASSROOM_CONFIG = ROOT / "classroom" / "jupyter-config"
CLASSROOM_SETTINGS = (
    CLASSROOM_CONFIG / "labconfig" / "default_setting_overrides.d" / "retrylab-classroom.json"
)
TRACKER = "@jupyterlab/notebook-extension:tracker"


#: The front ends a class's JupyterLab turns off, each beside the server extension the
#: hub's servers do not load (classroom/jupyter-config/jupyter_server_config.json):
#: shown without it, its menu, button or panel would fail when a student used it.
FRONT_ENDS_WITHOUT_THEIR_SERVER = {
    "@jupyter/nbgrader": "nbgrader.server_extensions.assignment_list",
    "@jupyter-notebook/lab-extension": "notebook",
    "@voila-dashboards/jupyterlab-preview": "voila.server_extension",
    "jupyterlab-jupytext": "jupyterlab_jupytext",
}


def test_a_class_shuts_a_notebooks_kernel_down_when_it_is_closed(tmp_path: Path) -> None:
    """The hub's two config folders: closing a notebook shuts its kernel down (a student
    who closes 02 before opening 06 holds one kernel), the project's settings still count
    (no news), and no menu of a server extension the hub leaves off is shown. A learner's
    own JupyterLab keeps JupyterLab's default (the kernel stays, so a tab closed by
    mistake costs her nothing there) and every front end."""
    hub = (ROOT / "classroom" / "jupyterhub_config.py").read_text()
    assert '(str(HERE / "jupyter-config"), str(HERE.parent / "jupyter-config"))' in hub
    server = json.loads((CLASSROOM_CONFIG / "jupyter_server_config.json").read_text())
    off = server["ServerApp"]["jpserver_extensions"]
    assert all(off[name] is False for name in FRONT_ENDS_WITHOUT_THEIR_SERVER.values())
    paths = [settings_path(TRACKER), settings_path(NOTIFICATION), "lab"]
    (tmp_path / "class").mkdir()
    tracker, news, page = lab_answers(
        [CLASSROOM_CONFIG, ROOT / "jupyter-config"], tmp_path / "class", paths
    )
    assert composite(tracker)["kernelShutdown"] is True
    assert composite(news)["fetchNews"] == "false"
    assert set(FRONT_ENDS_WITHOUT_THEIR_SERVER) <= set(disabled_extensions(page))
    (tmp_path / "alone").mkdir()
    tracker, page = lab_answers(
        ROOT / "jupyter-config", tmp_path / "alone", [settings_path(TRACKER), "lab"]
    )
    assert composite(tracker)["kernelShutdown"] is False
    assert not set(FRONT_ENDS_WITHOUT_THEIR_SERVER) & set(disabled_extensions(page))


def test_a_students_server_builds_no_iri_parser() -> None:
    """Every single-user server imports jupyter_events, which loads jsonschema's format
    checkers; from jsonschema 4.25 they import rfc3987-syntax, which builds an Earley
    parser on import (20 MB a server). The hub extra keeps jsonschema below 4.25."""
    loaded = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, jupyter_events, jsonschema; "
            "print(sorted({'rfc3987_syntax', 'lark'} & set(sys.modules)))",
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    assert loaded == "[]", f"a student's server would import {loaded}"


def test_without_the_settings_jupyterlab_would_ask(tmp_path: Path) -> None:
    """The check above means something: a bare config dir leaves fetchNews at "none"."""
    (tmp_path / "empty").mkdir()
    assert lab_settings(tmp_path / "empty", tmp_path)["fetchNews"] == "none"


def test_the_installed_environment_has_the_settings() -> None:
    """Where pip put this environment's retrylab, the settings went too (not an editable one)."""
    installed = (
        Path(sys.prefix)
        / "etc"
        / "jupyter"
        / "labconfig"
        / "default_setting_overrides.d"
        / "retrylab.json"
    )
    if not installed.exists():
        pytest.skip(
            f"{installed} is missing: this environment was not installed from "
            "this checkout with pip install . (an editable install has no data files; "
            "the README's command puts jupyter-config/ on JUPYTER_CONFIG_PATH)"
        )
    assert json.loads(installed.read_text()) == json.loads(SETTINGS.read_text())


START = ROOT / "start"  # Binder's (repo2docker's) start file, in the repository's root


def test_binders_start_file_is_a_valid_executable_script() -> None:
    """repo2docker runs ``start`` with the server's command; it must be executable bash."""
    assert START.read_text().startswith("#!/bin/bash\n")
    assert os.access(START, os.X_OK), "start must be executable (git mode 100755)"
    subprocess.run(["bash", "-n", str(START)], check=True)  # parses
    if (ROOT / ".git").exists() and shutil.which("git"):
        mode = git("ls-files", "-s", "start", cwd=ROOT).split(" ", 1)[0]
        assert mode in ("", "100755"), mode  # "" before its first commit
    # repo2docker reads root files only when there is no binder/ or .binder/ folder
    assert not (ROOT / "binder").exists() and not (ROOT / ".binder").exists()


def run_start(env: dict[str, str], cwd: Path) -> dict[str, str]:
    """The environment ``start`` hands its command (``env -0``), from ``cwd``."""
    out = subprocess.run(
        [str(START), "env", "-0"], env=env, cwd=cwd, check=True, capture_output=True, text=True
    ).stdout
    return dict(item.split("=", 1) for item in out.split("\0") if "=" in item)


def test_binders_start_file_puts_the_projects_settings_first() -> None:
    base = {k: v for k, v in os.environ.items() if not k.startswith("JUPYTER")}
    base.pop("REPO_DIR", None)
    # repo2docker sets REPO_DIR (where the repository is in the image)
    env = run_start({**base, "REPO_DIR": str(ROOT)}, cwd=Path("/"))
    assert env["JUPYTER_CONFIG_PATH"] == str(ROOT / "jupyter-config")
    # without it: the folder start is in; a path already set stays, after the project's
    env = run_start({**base, "JUPYTER_CONFIG_PATH": "/elsewhere"}, cwd=Path("/"))
    assert env["JUPYTER_CONFIG_PATH"] == f"{ROOT / 'jupyter-config'}{os.pathsep}/elsewhere"
    # it runs the command it was given, and passes on its exit status
    assert subprocess.run([str(START), "sh", "-c", "exit 3"], env=base).returncode == 3


def test_a_session_started_through_binders_start_file_has_no_news(tmp_path: Path) -> None:
    """A throwaway copy of the repository as repo2docker lays it out: start, then JupyterLab.

    The same settings as jupyter-config/ gives an editable install (the README's
    commands), and the news notification off.
    """
    repo = tmp_path / "repo"
    repo.mkdir()
    shutil.copy2(START, repo / "start")
    shutil.copytree(ROOT / "jupyter-config", repo / "jupyter-config")
    composite = lab_settings(None, tmp_path, launcher=(str(repo / "start"),))
    assert composite["fetchNews"] == "false" and composite["checkForUpdates"] is False
    (tmp_path / "direct").mkdir()
    assert composite == lab_settings(ROOT / "jupyter-config", tmp_path / "direct")


def git(*args: str, cwd: Path) -> str:
    env = dict(
        os.environ,
        GIT_AUTHOR_NAME="t",
        GIT_AUTHOR_EMAIL="t@example.org",
        GIT_COMMITTER_NAME="t",
        GIT_COMMITTER_EMAIL="t@example.org",
    )
    return subprocess.run(
        ["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True
    ).stdout


def test_nbgitpuller_keeps_a_students_work_and_brings_the_new(tmp_path: Path) -> None:
    pull = pytest.importorskip("nbgitpuller.pull", reason="nbgitpuller is in the hub extra")
    upstream, work, home = tmp_path / "upstream.git", tmp_path / "work", tmp_path / "home"
    git("init", "-q", "--bare", "-b", "main", str(upstream), cwd=tmp_path)
    git("clone", "-q", str(upstream), str(work), cwd=tmp_path)
    (work / "notebooks").mkdir()
    for name in ("00_start_here.ipynb", "02_computing_the_wait.ipynb"):
        (work / "notebooks" / name).write_bytes((ROOT / "notebooks" / name).read_bytes())
    git("add", "-A", cwd=work)
    git("commit", "-q", "-m", "first", cwd=work)
    git("push", "-q", "origin", "HEAD:main", cwd=work)

    def gitpull() -> None:
        for _ in pull.GitPuller(str(upstream), str(home), branch="main").pull():
            pass

    gitpull()  # the first login: a clone
    saved = home / "notebooks" / "02_computing_the_wait.ipynb"
    nb = nbformat.read(saved, as_version=4)  # Run All + save: outputs and an edit
    nb.cells[0].source += "\n\nMy note."
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.execution_count = 1
            cell.outputs = [nbformat.v4.new_output("stream", text="ran\n")]
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": {}}}
    nbformat.write(nb, saved)
    mine = saved.read_text()

    # upstream: a new notebook, a change to a file the student saved, one she did not touch
    (work / "notebooks" / "03_new.ipynb").write_bytes(
        (ROOT / "notebooks" / "03_the_retry_loop.ipynb").read_bytes()
    )
    other = work / "notebooks" / "00_start_here.ipynb"
    other.write_text(other.read_text().replace("Start here", "Start here (updated)", 1))
    changed = work / "notebooks" / "02_computing_the_wait.ipynb"
    upstream_nb = nbformat.read(changed, as_version=4)
    upstream_nb.cells[-1].source += "\n\nAn upstream correction."
    nbformat.write(upstream_nb, changed)
    git("add", "-A", cwd=work)
    git("commit", "-q", "-m", "second", cwd=work)
    git("push", "-q", "origin", "HEAD:main", cwd=work)

    gitpull()  # the next login: a merge
    # nbgitpuller commits the student's changes, then merges upstream with
    # "-Xours" (where both changed the same lines, the student's side wins): here
    # they changed different cells, so her note and outputs stay and the
    # correction comes too
    after = saved.read_text()
    assert "My note." in after and '"ran\\n"' in after, "the student's work was lost"
    assert "An upstream correction." in after
    nbformat.validate(nbformat.reads(after, as_version=4))
    assert after != mine
    assert (home / "notebooks" / "03_new.ipynb").exists(), "the new notebook did not come"
    assert "Start here (updated)" in (home / "notebooks" / "00_start_here.ipynb").read_text()


def test_the_kubernetes_image_gets_the_same_settings_and_extensions() -> None:
    yaml = pytest.importorskip("yaml")
    files = yaml.safe_load((ROOT / "classroom" / "values.yaml").read_text())["singleuser"][
        "extraFiles"
    ]
    assert files["lab-settings"]["data"] == json.loads(SETTINGS.read_text())
    classroom = files["lab-settings-classroom"]
    assert classroom["data"] == json.loads(CLASSROOM_SETTINGS.read_text())
    assert classroom["mountPath"] == (
        "/etc/jupyter/labconfig/default_setting_overrides.d/" + CLASSROOM_SETTINGS.name
    )
    page = files["lab-page-config"]
    assert page["mountPath"] == "/etc/jupyter/labconfig/page_config.json"
    assert page["data"] == json.loads(
        (CLASSROOM_CONFIG / "labconfig" / "page_config.json").read_text()
    )
    hub = json.loads(
        (ROOT / "classroom" / "jupyter-config" / "jupyter_server_config.json").read_text()
    )["ServerApp"]["jpserver_extensions"]
    k8s = files["server-config"]["data"]["ServerApp"]["jpserver_extensions"]
    assert k8s.items() <= hub.items() and not any(k8s.values())


def test_run_all_and_save_then_an_update_keeps_the_work_and_brings_the_new(tmp_path: Path) -> None:
    """A real Run All of 02 (its explorer's widget views and all), saved, then an update.

    What JupyterLab saves after Run All: every output, each explorer's widget view
    with a fresh model id, and no widget state in the metadata (``saveState: false``
    in jupyter-config/). Upstream then corrects a markdown cell and adds a notebook.
    """
    pull = pytest.importorskip("nbgitpuller.pull", reason="nbgitpuller is in the hub extra")
    nbclient = pytest.importorskip("nbclient")
    upstream, work, home = tmp_path / "upstream.git", tmp_path / "work", tmp_path / "home"
    git("init", "-q", "--bare", "-b", "main", str(upstream), cwd=tmp_path)
    git("clone", "-q", str(upstream), str(work), cwd=tmp_path)
    (work / "notebooks").mkdir()
    name = "02_computing_the_wait.ipynb"
    (work / "notebooks" / name).write_bytes((ROOT / "notebooks" / name).read_bytes())
    git("add", "-A", cwd=work)
    git("commit", "-q", "-m", "first", cwd=work)
    git("push", "-q", "origin", "HEAD:main", cwd=work)

    def gitpull() -> None:
        for _ in pull.GitPuller(str(upstream), str(home), branch="main").pull():
            pass

    gitpull()
    saved = home / "notebooks" / name
    nb = nbformat.read(saved, as_version=4)
    nb.cells[-1].source += "\n\nMy answer."  # the student's edit, in the last cell
    nbclient.NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(saved.parent)}}
    ).execute()
    nb.metadata.pop("widgets", None)  # saveState: false
    nbformat.write(nb, saved)
    mine = nbformat.read(saved, as_version=4)
    views = [
        o
        for c in mine.cells
        if c.cell_type == "code"
        for o in c.outputs
        if "application/vnd.jupyter.widget-view+json" in o.get("data", {})
    ]
    assert views, "02's explorer shows no widget view after Run All"

    changed = work / "notebooks" / name
    upstream_nb = nbformat.read(changed, as_version=4)
    markdown = [i for i, c in enumerate(upstream_nb.cells) if c.cell_type == "markdown"]
    fix = markdown[len(markdown) // 2]  # a correction in the middle of the lesson
    upstream_nb.cells[fix].source += "\n\nAn upstream correction."
    nbformat.write(upstream_nb, changed)
    (work / "notebooks" / "03_new.ipynb").write_bytes(
        (ROOT / "notebooks" / "03_the_retry_loop.ipynb").read_bytes()
    )
    git("add", "-A", cwd=work)
    git("commit", "-q", "-m", "second", cwd=work)
    git("push", "-q", "origin", "HEAD:main", cwd=work)

    gitpull()
    after = nbformat.read(saved, as_version=4)
    nbformat.validate(after)
    assert "My answer." in after.cells[-1].source, "the student's edit was lost"
    assert [c.get("outputs") for c in after.cells if c.cell_type == "code"] == [
        c.get("outputs") for c in mine.cells if c.cell_type == "code"
    ], "outputs were lost"
    assert "An upstream correction." in after.cells[fix].source, "the update did not come"
    assert (home / "notebooks" / "03_new.ipynb").exists(), "the new notebook did not come"
