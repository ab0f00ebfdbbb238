"""Opening and saving a notebook in JupyterLab changes nothing on disk.

A student who opens a notebook, looks, and saves (or lets autosave run) must not
end up with a modified file, or their next ``git pull`` conflicts. The build writes
the metadata exactly as JupyterLab does (kernelspec display name, language_info
from the kernel, nbformat 4.5 cell ids), so the saved bytes equal the committed
ones. Checked on the served copy: the server's folder starts as a byte copy of
``notebooks/``, so "the file is unchanged" is ``git diff`` being empty.
"""

from __future__ import annotations

import configparser
import json
import re
import shutil
import time
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from .catalog import notebook_paths

if TYPE_CHECKING:
    from .conftest import Lab

pytestmark = pytest.mark.browser

#: Every edition's first notebook and the longest one: enough to cover each metadata path.
CHOSEN = (
    "00_start_here",
    "02_computing_the_wait",
    "solutions/02_computing_the_wait",
    "tr/00_start_here",
)


def chosen() -> list[object]:
    names = {p.stem for p in notebook_paths()}
    return [
        pytest.param(f"{stem}.ipynb", id=stem.replace("/", "-"))
        for stem in CHOSEN
        if stem.split("/")[-1] in names
    ]


def _own_copy(lab: Lab, name: str) -> tuple[str, Path]:
    """A copy of ``name`` beside it, opened instead: a second tab on the same path would
    share the kernel of the page the slider tests keep, and Run All there would replace
    the explorers that page shows."""
    assert lab.server.root is not None
    src = lab.server.root / name
    if not src.exists():
        pytest.skip(f"{name} is not built")
    copy = src.with_name(f"saved-{src.name}")
    shutil.copy2(src, copy)
    return str(Path(name).with_name(copy.name)), copy


def _whole(data: bytes) -> bool:
    """Whether ``data`` is a whole JSON document (not a file caught mid-write)."""
    try:
        json.loads(data)
    except ValueError:
        return False
    return True


def _diff(before: str, after: str) -> str:
    a, b = json.loads(before), json.loads(after)
    if a.get("metadata") != b.get("metadata"):
        return f"notebook metadata: {a.get('metadata')} -> {b.get('metadata')}"
    for i, (x, y) in enumerate(zip(a["cells"], b["cells"], strict=False)):
        if x != y:
            keys = sorted(k for k in set(x) | set(y) if x.get(k) != y.get(k))
            return f"cell {i} differs in {keys}"
    return "whitespace or key order"


@pytest.mark.parametrize("name", chosen())
def test_open_then_save_leaves_the_file_unchanged(name: str, lab: Lab) -> None:
    name, path = _own_copy(lab, name)
    before = path.read_bytes()
    mtime = path.stat().st_mtime_ns
    nb = lab._open(name)
    try:
        page = nb.page
        page.locator(".jp-Notebook").first.click(position={"x": 5, "y": 5})
        dirty = page.locator(".jp-mod-dirty").count()
        page.keyboard.press("Escape")
        page.keyboard.press("Control+s")
        deadline = time.monotonic() + 20
        while path.stat().st_mtime_ns == mtime and time.monotonic() < deadline:
            page.wait_for_timeout(200)
        assert path.stat().st_mtime_ns != mtime, f"{name}: Ctrl+S did not save within 20 s"
        # The server writes the file after changing its mtime, in more than one write:
        # read it until it is whole and two reads 300 ms apart agree (an empty or cut
        # read under load made json.loads fail in _diff; a read between the JSON and
        # its final newline found the newline missing).
        after, previous = path.read_bytes(), b""
        while (not _whole(after) or after != previous) and time.monotonic() < deadline + 10:
            page.wait_for_timeout(300)
            previous, after = after, path.read_bytes()
        assert after == before, (
            f"{name}: saving an unchanged notebook rewrote it "
            f"({_diff(before.decode(), after.decode())})"
        )
        assert dirty == 0, f"{name}: JupyterLab marked the notebook modified on opening"
    finally:
        nb.close()
        lab.server.shutdown_session(name)


def _sanitizers() -> list[tuple[re.Pattern[str], str]]:
    cfg = configparser.ConfigParser()
    cfg.read(Path(__file__).resolve().parents[1] / "sanitize.cfg")
    return [(re.compile(cfg[s]["regex"]), cfg[s]["replace"]) for s in cfg.sections()]


def _seeded(text: str) -> dict[str, object]:
    """The notebook with what no seed fixes taken out: live widget views (their model
    ids are new in every kernel), execution counts, and what tests/sanitize.cfg
    sanitises for nbval (addresses, ports, elapsed seconds)."""
    nb = json.loads(text)
    subs = _sanitizers()
    for cell in nb["cells"]:
        cell.pop("execution_count", None)
        for out in cell.get("outputs", []):
            out.pop("execution_count", None)
            data = out.get("data", {})
            data.pop("application/vnd.jupyter.widget-view+json", None)
            if "text" in out:
                out["text"] = _sub("".join(out["text"]), subs)
            if "text/plain" in data:
                data["text/plain"] = _sub("".join(data["text/plain"]), subs)
    nb["metadata"].pop("widgets", None)
    return nb


def _read_whole(path: Path, deadline: float) -> str:
    """The file once the save has finished writing it: the server may truncate it before
    writing, and a read in between finds an empty or half-written file."""
    while True:
        text = path.read_text()
        try:
            json.loads(text)
        except ValueError:
            if time.monotonic() > deadline:
                return text  # the test then shows what was there
            time.sleep(0.1)
            continue
        return text


def _sub(text: str, subs: list[tuple[re.Pattern[str], str]]) -> str:
    for pattern, replace in subs:
        text = pattern.sub(replace, text)
    return text


@pytest.mark.parametrize("name", chosen()[:2])
def test_run_all_then_save_changes_only_what_no_seed_fixes(name: str, lab: Lab) -> None:
    """After Run All and a save, the file differs only in widget ids, counts and timings."""
    name, path = _own_copy(lab, name)
    before = path.read_text()
    nb = lab._open(name)
    try:
        nb.run_all(120_000)
        mtime = path.stat().st_mtime_ns
        nb.page.locator(".jp-Notebook").first.click(position={"x": 5, "y": 5})
        nb.page.keyboard.press("Escape")
        nb.page.keyboard.press("Control+s")
        deadline = time.monotonic() + 20
        while path.stat().st_mtime_ns == mtime and time.monotonic() < deadline:
            nb.page.wait_for_timeout(200)
        after = _read_whole(path, deadline)
    finally:
        nb.close()
        lab.server.shutdown_session(name)
    a, b = _seeded(before), _seeded(after)
    for i, (x, y) in enumerate(zip(a["cells"], b["cells"], strict=True)):
        assert x == y, f"{name}: cell {i} changed after Run All + save: {x} != {y}"
    assert a == b
