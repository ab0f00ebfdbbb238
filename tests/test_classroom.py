"""A class's session: fresh settings, and nbgitpuller updates that keep a student's work."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_news_notification_is_off_in_the_shipped_settings() -> None:
    settings = json.loads((ROOT / "jupyter-settings" / "overrides.d" / "retrylab.json").read_text())
    notification = settings["@jupyterlab/apputils-extension:notification"]
    assert notification["fetchNews"] == "false" and notification["checkForUpdates"] is False
    text = (ROOT / "pyproject.toml").read_text()
    assert ('"share/jupyter/lab/settings/overrides.d" = '
            '["jupyter-settings/overrides.d/retrylab.json"]') in text
    hub = json.loads((ROOT / "classroom" / "jupyter-config" / "jupyter_server_config.json")
                     .read_text())
    assert hub["LabApp"]["news_url"] is None


def test_the_installed_environment_has_the_settings() -> None:
    """Where pip put this environment's retrylab, the settings went too (not an editable one)."""
    installed = (Path(sys.prefix) / "share" / "jupyter" / "lab" / "settings" / "overrides.d"
                 / "retrylab.json")
    if not installed.exists():
        pytest.skip(f"{installed} is missing: this environment was not installed from "
                    "this checkout with pip install . (an editable install has no data files)")
    assert json.loads(installed.read_text()) == json.loads(
        (ROOT / "jupyter-settings" / "overrides.d" / "retrylab.json").read_text())


def git(*args: str, cwd: Path) -> str:
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.org",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.org")
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True,
                          capture_output=True, text=True).stdout


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

    gitpull()                                    # the first login: a clone
    saved = home / "notebooks" / "02_computing_the_wait.ipynb"
    nb = nbformat.read(saved, as_version=4)      # Run All + save: outputs and an edit
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
        (ROOT / "notebooks" / "03_the_retry_loop.ipynb").read_bytes())
    other = work / "notebooks" / "00_start_here.ipynb"
    other.write_text(other.read_text().replace("Start here", "Start here (updated)", 1))
    changed = work / "notebooks" / "02_computing_the_wait.ipynb"
    upstream_nb = nbformat.read(changed, as_version=4)
    upstream_nb.cells[-1].source += "\n\nAn upstream correction."
    nbformat.write(upstream_nb, changed)
    git("add", "-A", cwd=work)
    git("commit", "-q", "-m", "second", cwd=work)
    git("push", "-q", "origin", "HEAD:main", cwd=work)

    gitpull()                                    # the next login: a merge
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
