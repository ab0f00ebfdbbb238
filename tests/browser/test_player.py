"""The player in JupyterLab: play, pause, step, scrub, keyboard, a changed slider replays.

A notebook of two players is written into the served folder and run: 02's herd with
full jitter (its ``tick`` echoed by a label the kernel sets, so the page shows what
Python received) and a herd whose bucket width follows a slider
(:func:`~retrylab.viz.player.linked_player`). Every check reads the player's root
(``data-tick``, ``data-playing``, ``data-counts``, ``data-frames``) and its text
line, and compares them with the trace the package computes.
"""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import nbformat
import pytest

from retrylab.sim.trace import herd_trace
from retrylab.viz.player import moment_texts

if TYPE_CHECKING:
    from .conftest import Lab

pytestmark = pytest.mark.browser

NAME = "player-check.ipynb"
CELLS = [
    """import ipywidgets
from retrylab.sim.trace import herd_trace
from retrylab.viz.player import herd_player, linked_player
from retrylab.viz.range import IntRange
p = herd_player("full")
echo = ipywidgets.Label(value="python tick 0")
echo.add_class("player-echo")
p.observe(lambda c: setattr(echo, "value", f"python tick {c['new']}"), "tick")
display(p, echo)""",
    """import time
w = IntRange(value=200, min=50, max=400, step=50, description="width")
lp = linked_player({"width": w}, lambda width: herd_trace(True, width=width))
busy = ipywidgets.Button(description="keep the kernel busy")
busy.add_class("kernel-busy")
busy.on_click(lambda _b: time.sleep(BUSY_S))
display(w, lp, busy)""",
    """from retrylab.viz.player import storm_player
storm_player()""",
    """from retrylab.viz.herd import herd_explorer
hv = herd_explorer()
display(hv, herd_player(explorer=hv))""",
]
#: How long the button of the second cell keeps the kernel busy, seconds: enough for
#: the page to queue its messages behind it.
BUSY_S = 2
#: Enough animation frames that a playing view moves on and a paused one would have.
FRAMES = 30
JS_FRAMES = """(n) => new Promise((done) => { let k = 0;
  const f = () => { k += 1; if (k >= n) done(k); else requestAnimationFrame(f); };
  requestAnimationFrame(f); })"""


#: Each player's ``[playing, tick]`` as the page first showed it: the module's tests
#: share one page in whatever order a worker runs them, and each leaves its players
#: where it stopped, so "no autoplay" is read before any of them runs.
AT_OPEN: list[list[str]] = []


@pytest.fixture(scope="module")
def page(lab: Lab) -> Any:
    assert lab.server.root is not None
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(src.replace("BUSY_S", str(BUSY_S))) for src in CELLS]
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3 (ipykernel)",
        "language": "python",
    }
    nbformat.write(nb, lab.server.root / NAME)
    notebook = lab.notebook(NAME, lambda _nb: None)
    notebook.page.wait_for_function(
        "(n) => document.querySelectorAll('.retrylab-player-root[data-tick]').length === n",
        arg=len(CELLS),
        timeout=30_000,
        polling=50,
    )
    AT_OPEN[:] = notebook.page.evaluate(
        "() => [...document.querySelectorAll('.retrylab-player-root')]"
        ".map((r) => [r.dataset.playing, r.dataset.tick])"
    )
    yield notebook
    lab.release(NAME)


def _root(page: Any, i: int = 0) -> Any:
    return page.page.locator(".retrylab-player-root").nth(i)


def _data(root: Any, key: str) -> str:
    return str(root.get_attribute(f"data-{key}"))


def _wait_data(page: Any, i: int, key: str, test: str, arg: Any = None) -> None:
    """Wait (bounded) until ``test`` (a JS expression of ``v``, the attribute, and
    ``arg``) holds for player ``i``'s data attribute."""
    page.page.wait_for_function(
        f"""([i, arg]) => {{ const v = document.querySelectorAll(
             '.retrylab-player-root')[i].dataset['{key}']; return {test}; }}""",
        arg=[i, arg],
        timeout=15_000,
        polling=50,
    )


def _python_has(page: Any, tick: int) -> None:
    """Wait (bounded) until the label the kernel sets shows ``tick`` exactly."""
    page.page.wait_for_function(
        "(want) => { const e = document.querySelector('.player-echo');"
        " return e !== null && e.textContent.trim() === want; }",
        arg=f"python tick {tick}",
        timeout=15_000,
        polling=50,
    )


def _frames(page: Any) -> None:
    page.page.evaluate(JS_FRAMES, FRAMES)


def test_play_pause_step_scrub_with_the_mouse(page: Any, artifacts: Path) -> None:
    root = _root(page)
    trace = herd_trace(jitter=True)
    texts = moment_texts(trace)
    table = trace.count_table()
    assert AT_OPEN[0] == ["false", "0"]  # no autoplay: paused at the start
    assert _data(root, "playing") == "false"  # every test leaves its players paused
    still = _data(root, "tick")
    _frames(page)
    assert _data(root, "tick") == still
    root.locator(".retrylab-player-play").click()
    _wait_data(page, 0, "tick", "Number(v) >= 3")  # play runs
    assert _data(root, "playing") == "true"
    root.locator(".retrylab-player-play").click()  # pause stops
    _wait_data(page, 0, "playing", "v === 'false'")
    stopped = int(_data(root, "tick"))
    _frames(page)
    assert int(_data(root, "tick")) == stopped
    _python_has(page, stopped)  # Python was told
    root.locator(".retrylab-player-step").click()  # step: one tick
    _wait_data(page, 0, "tick", "Number(v) === arg", stopped + 1)
    root.locator(".retrylab-player-back").click()
    _wait_data(page, 0, "tick", "Number(v) === arg", stopped)
    for t in (57, 12, trace.ticks - 1):  # scrub lands there
        root.locator(".retrylab-player-scrub").fill(str(t))
        _wait_data(page, 0, "tick", "Number(v) === arg", t)
        assert _data(root, "counts") == ",".join(str(c) for c in table[t].tolist())
        assert root.locator(".retrylab-player-line").inner_text() == texts[t]
        _python_has(page, t)
    assert int(_data(root, "frames")) > 3
    root.locator(".retrylab-player-scrub").fill("45")
    _wait_data(page, 0, "tick", "v === '45'")
    page.screenshot_element(root, artifacts / "player-herd-45.png")


def test_the_keyboard_operates_it(page: Any) -> None:
    root = _root(page)
    trace = herd_trace(jitter=True)
    root.locator(".retrylab-player-scrub").fill("40")
    _wait_data(page, 0, "tick", "v === '40'")
    root.focus()
    keys = page.page.keyboard
    keys.press("ArrowRight")
    _wait_data(page, 0, "tick", "v === '41'")
    keys.press("ArrowLeft")
    keys.press("ArrowLeft")
    _wait_data(page, 0, "tick", "v === '39'")
    keys.press("End")
    _wait_data(page, 0, "tick", "Number(v) === arg", trace.ticks - 1)
    keys.press("Home")
    _wait_data(page, 0, "tick", "v === '0'")
    keys.press(" ")
    _wait_data(page, 0, "tick", "Number(v) >= 2")
    assert _data(root, "playing") == "true"
    keys.press(" ")
    _wait_data(page, 0, "playing", "v === 'false'")
    # the keys stayed with the player: JupyterLab did not move to another cell
    assert page.page.evaluate("document.activeElement.classList.contains('retrylab-player-root')")


def _other_width(slider: Any) -> tuple[int, int]:
    """The width slider's value and another one: the tests that move it share one page
    with the player tests a worker runs in whatever order --dist load gives it, and a
    fill with the value already there changes nothing (no new run to wait for)."""
    before = int(slider.input_value())
    return before, 100 if before != 100 else 250


def test_a_changed_slider_replays_from_the_start(page: Any) -> None:
    root = _root(page, 1)
    generation = int(_data(root, "generation"))
    slider = page.page.locator(".retrylab-range-input").first
    before, width = _other_width(slider)
    assert _data(root, "ticks") == str(herd_trace(True, width=before).ticks)
    root.locator(".retrylab-player-play").click()
    _wait_data(page, 1, "tick", "Number(v) >= 3")
    slider.fill(str(width))
    slider.dispatch_event("change")
    _wait_data(page, 1, "generation", "Number(v) === arg", generation + 1)
    want = herd_trace(True, width=width)
    assert _data(root, "ticks") == str(want.ticks)
    _wait_data(page, 1, "tick", "Number(v) >= 1")  # it plays the new trace on
    root.locator(".retrylab-player-play").click()
    _wait_data(page, 1, "playing", "v === 'false'")
    root.locator(".retrylab-player-scrub").fill("5")
    _wait_data(page, 1, "tick", "v === '5'")
    assert root.locator(".retrylab-player-line").inner_text() == moment_texts(want)[5]


def test_reduced_motion_replays_nothing_by_itself(page: Any) -> None:
    """A browser asking for reduced motion: a changed slider shows the new run at its
    start, paused, instead of playing it."""
    root = _root(page, 1)
    page.page.emulate_media(reduced_motion="reduce")
    try:
        generation = int(_data(root, "generation"))
        root.locator(".retrylab-player-play").click()
        _wait_data(page, 1, "playing", "v === 'true'")
        slider = page.page.locator(".retrylab-range-input").first
        slider.fill(str(_other_width(slider)[1]))
        slider.dispatch_event("change")
        _wait_data(page, 1, "generation", "Number(v) === arg", generation + 1)
        _frames(page)
        assert _data(root, "playing") == "false" and _data(root, "tick") == "0"
    finally:
        page.page.emulate_media(reduced_motion="no-preference")


def test_a_new_trace_starts_where_the_kernel_says_while_a_tick_is_unechoed(page: Any) -> None:
    """A tick the page sent for the old trace reaches the kernel after the new trace: the
    kernel must drop it (``tick_generation``), or it and its echo put the new trace at the
    old trace's moment.

    The kernel is kept busy while the page scrubs twice (the first tick sent, the second
    buffered behind it, as ipywidgets sends one message a model at a time) and the slider
    moves: the kernel meets the slider before the buffered tick."""
    root = _root(page, 1)
    if _data(root, "playing") == "true":
        root.locator(".retrylab-player-play").click()
        _wait_data(page, 1, "playing", "v === 'false'")
    generation = int(_data(root, "generation"))
    slider = page.page.locator(".retrylab-range-input").first
    width = _other_width(slider)[1]
    page.page.locator(".kernel-busy").click()
    scrub = root.locator(".retrylab-player-scrub")
    scrub.fill("7")
    scrub.fill("5")
    _wait_data(page, 1, "tick", "v === '5'")
    slider.fill(str(width))
    slider.dispatch_event("change")
    _wait_data(page, 1, "generation", "Number(v) === arg", generation + 1)
    _frames(page)  # the kernel's echo of 5 comes after: it must move nothing
    assert _data(root, "ticks") == str(herd_trace(True, width=width).ticks)
    assert _data(root, "playing") == "false" and _data(root, "tick") == "0"


def test_the_storm_plays_and_draws(page: Any, artifacts: Path) -> None:
    """06's storm (6000 dots) in the third view: scrub into the outage, step, play."""
    from retrylab.sim.trace import fleet_trace
    from retrylab.viz.fleet import StormExplorer

    trace = fleet_trace(StormExplorer.compute(**StormExplorer.default_values()).scale.simulated)[0]
    root = _root(page, 2)
    assert root.locator(".retrylab-player-speed").input_value() == "20"  # storm_player's
    table = trace.count_table()
    for t in (150, 151, 300):
        root.locator(".retrylab-player-scrub").fill(str(t))
        _wait_data(page, 2, "tick", "Number(v) === arg", t)
        assert _data(root, "counts") == ",".join(str(c) for c in table[t].tolist())
    root.locator(".retrylab-player-step").click()
    _wait_data(page, 2, "counts", "v === arg", ",".join(str(c) for c in table[301].tolist()))
    page.screenshot_element(root, artifacts / "player-storm-301.png")
    root.locator(".retrylab-player-play").click()
    _wait_data(page, 2, "tick", "Number(v) >= 305")
    root.locator(".retrylab-player-play").click()
    _wait_data(page, 2, "playing", "v === 'false'")


JS_MARK = """(i) => {
  const root = document.querySelectorAll('.retrylab-player-root')[i];
  const o = document.querySelector(
    `.retrylab-player-mark[data-target="${root.dataset.target}"]`);
  const img = o && o.previousElementSibling;
  if (!img || !img.classList.contains(root.dataset.target)) return null;
  const r = img.getBoundingClientRect();
  const spans = [];
  for (let k = 0; k < o.children.length; k += 2) {
    const band = o.children[k].getBoundingClientRect(), bar = o.children[k + 1];
    const line = bar.getBoundingClientRect();
    spans.push({ shown: bar.style.display !== 'none',
                 line: (line.left + line.width / 2 - r.left) / r.width,
                 lo: (band.left - r.left) / r.width, hi: (band.right - r.left) / r.width,
                 top: (line.top - r.top) / r.height, bottom: (line.bottom - r.top) / r.height });
  }
  return { tick: Number(o.dataset.tick), width: r.width, spans };
}"""


def _mark(page: Any, tick: int, i: int = 3) -> dict[str, Any]:
    """The mark player ``i`` lays over the herd explorer's image, once it stands at
    ``tick`` (bounded wait): each axes' line and band as fractions of the image as the
    page lays it out."""
    page.page.wait_for_function(
        f"([i, t]) => {{ const m = ({JS_MARK})(i); return m !== null && m.tick === t; }}",
        arg=[i, tick],
        timeout=15_000,
        polling=50,
    )
    return dict(page.page.evaluate(JS_MARK, i))


def _retry_slider(page: Any) -> Any:
    """The herd explorer's ``retry`` slider (its range input)."""
    label = page.page.locator(".retrylab-range-label", has_text=re.compile(r"^\s*retry\s*$"))
    return (
        page.page.locator(".retrylab-explorer .retrylab-range")
        .filter(has=label)
        .locator("input[type=range]")
    )


def _check_mark(got: dict[str, Any], want: list[Any], axes: list[dict[str, float]]) -> None:
    px = 1.5 / got["width"]  # a pixel and a half of the image, as drawn
    assert len(got["spans"]) == len(want) == 2
    for span, expected, ax in zip(got["spans"], want, axes, strict=True):
        assert span["shown"] and expected is not None
        assert abs(span["line"] - expected["line"]) < px, (span, expected)
        assert abs(span["lo"] - expected["lo"]) < px and abs(span["hi"] - expected["hi"]) < px
        assert abs(span["top"] - ax["top"]) < 0.01 and abs(span["bottom"] - ax["bottom"]) < 0.01


def test_scrub_marks_the_moment_on_the_herd_histograms(page: Any, artifacts: Path) -> None:
    """02's player beside the herd explorer: wherever it stands (scrubbed, stepped,
    played), a line on both histograms is at that time and its bucket is shaded, where
    Matplotlib puts them (mark_spans)."""
    from retrylab.viz.herd import herd_explorer
    from retrylab.viz.player import herd_player

    python = herd_player(explorer=herd_explorer(retry=int(_retry_slider(page).input_value())))
    root = _root(page, 3)
    for t in (45, 81, 3):
        root.locator(".retrylab-player-scrub").fill(str(t))
        _wait_data(page, 3, "tick", "Number(v) === arg", t)
        _check_mark(_mark(page, t), python.mark_spans(t), python.marks["axes"])
    root.locator(".retrylab-player-step").click()
    _check_mark(_mark(page, 4), python.mark_spans(4), python.marks["axes"])
    root.locator(".retrylab-player-play").click()  # playing, the mark moves with it
    _wait_data(page, 3, "tick", "Number(v) >= 12")
    root.locator(".retrylab-player-play").click()
    _wait_data(page, 3, "playing", "v === 'false'")
    t = int(_data(root, "tick"))
    _check_mark(_mark(page, t), python.mark_spans(t), python.marks["axes"])
    root.locator(".retrylab-player-scrub").fill("45")
    _mark(page, 45)
    page.screenshot_element(
        page.page.locator(".retrylab-explorer").first, artifacts / "player-herd-marked-45.png"
    )


def test_a_changed_explorer_slider_replays_and_moves_the_mark(page: Any) -> None:
    """Moving the herd explorer's ``retry`` replays the player from the start with the
    new herd, and the mark follows the explorer's new time axis."""
    from retrylab.viz.herd import herd_explorer
    from retrylab.viz.player import herd_player

    root = _root(page, 3)
    generation = int(_data(root, "generation"))
    root.locator(".retrylab-player-play").click()
    _wait_data(page, 3, "playing", "v === 'true'")
    slider = _retry_slider(page)
    slider.fill("5")
    slider.dispatch_event("change")
    _wait_data(page, 3, "generation", "Number(v) === arg", generation + 1)
    explorer = herd_explorer(retry=5)
    python = herd_player(explorer=explorer)
    assert _data(root, "ticks") == str(python.ticks) == str(herd_trace(True, retry=5).ticks)
    root.locator(".retrylab-player-play").click()
    _wait_data(page, 3, "playing", "v === 'false'")
    t = python.ticks // 2
    root.locator(".retrylab-player-scrub").fill(str(t))
    _wait_data(page, 3, "tick", "Number(v) === arg", t)
    assert root.locator(".retrylab-player-line").inner_text() == moment_texts(python.current)[t]
    _check_mark(_mark(page, t), python.mark_spans(t), python.marks["axes"])


VOILA_CELL = """from retrylab.viz.herd import herd_explorer
from retrylab.viz.player import herd_player
hv = herd_explorer()
display(hv, herd_player(explorer=hv))"""


@pytest.fixture(scope="module")
def voila(browser: Any, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The herd explorer and its player in Voila (the classroom's presentation view), in
    a page of the session's Chromium; its console errors in ``page.errors``."""
    import os
    import socket
    import subprocess
    import sys
    import time

    pytest.importorskip("voila")
    folder = tmp_path_factory.mktemp("voila")
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(VOILA_CELL)]
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nbformat.write(nb, folder / "player-voila.ipynb")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    dirs = ("JUPYTER_CONFIG_DIR", "JUPYTER_RUNTIME_DIR", "IPYTHONDIR")
    env = {**os.environ, **{k: str(folder / k.lower()) for k in dirs}}
    # as `./run present` starts it: jupyter-config/voila.json leaves out the JupyterLab
    # extensions that fail in Voila (nbgrader's said so on the console)
    env["JUPYTER_CONFIG_PATH"] = str(Path(__file__).resolve().parents[2] / "jupyter-config")
    log = folder / "voila.log"
    with log.open("w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "voila", "player-voila.ipynb", "--no-browser",
             f"--port={port}", "--Voila.ip=127.0.0.1"],
            cwd=folder, env=env, stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    try:
        deadline = time.monotonic() + 60
        while True:  # bounded: the server answers, or the test fails
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert proc.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.2)
        page = context.new_page()
        page.errors = []
        page.on("console", lambda m: page.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: page.errors.append(f"pageerror: {e}"))
        page.goto(f"http://127.0.0.1:{port}/", timeout=120_000)
        page.wait_for_selector(".retrylab-player-root[data-tick]", timeout=120_000)
        yield page
    finally:
        context.close()
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def test_in_voila_the_player_plays_marks_and_replays(voila: Any, artifacts: Path) -> None:
    """Voila: the keys step it, a scrub marks t on the histograms, a moved slider
    replays the new herd, and nothing goes to the console."""
    import re

    from retrylab.viz.herd import herd_explorer
    from retrylab.viz.player import herd_player

    page = SimpleNamespace(page=voila)
    python = herd_player(explorer=herd_explorer())
    root = _root(page)
    root.locator(".retrylab-player-scrub").fill("45")
    _wait_data(page, 0, "tick", "v === '45'")
    _check_mark(_mark(page, 45, 0), python.mark_spans(45), python.marks["axes"])
    assert root.locator(".retrylab-player-line").inner_text() == moment_texts(python.current)[45]
    root.focus()
    voila.keyboard.press("ArrowRight")
    _check_mark(_mark(page, 46, 0), python.mark_spans(46), python.marks["axes"])
    voila.keyboard.press(" ")
    _wait_data(page, 0, "tick", "Number(v) >= 50")
    voila.keyboard.press(" ")
    _wait_data(page, 0, "playing", "v === 'false'")
    generation = int(_data(root, "generation"))
    label = voila.locator(".retrylab-range-label", has_text=re.compile(r"^\s*retry\s*$"))
    slider = voila.locator(".retrylab-range").filter(has=label).locator("input[type=range]")
    slider.fill("4")
    slider.dispatch_event("change")
    _wait_data(page, 0, "generation", "Number(v) === arg", generation + 1)
    python = herd_player(explorer=herd_explorer(retry=4))
    assert _data(root, "ticks") == str(python.ticks) and _data(root, "tick") == "0"
    _check_mark(_mark(page, 0, 0), python.mark_spans(0), python.marks["axes"])
    voila.screenshot(path=str(artifacts / "player-voila.png"), full_page=True)
    # no error at all, but this: Voila's page asks a CDN for Font Awesome, which a
    # machine without the internet (CI's) cannot resolve
    offline = "Failed to load resource: net::ERR_NAME_NOT_RESOLVED"
    errors = [e for e in voila.errors if e != offline]
    assert not errors, errors


def test_no_error_in_the_console(page: Any) -> None:
    assert not page.problems(), page.problems()
    errors = [e for e in page.console_errors if "player" in e.lower() or "pageerror" in e]
    assert not errors, errors
