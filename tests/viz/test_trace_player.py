"""The player's trace is the simulators' run, and the browser's decoding shows it.

- a fleet's trace has the simulator's numbers (served, gave up, per-step load and
  successes, peak), and each client's changes are its attempts;
- the herd's trace has ``herd_data``'s peaks; the breaker's, ``replay``'s rows;
- the front end's own JavaScript (the player's ESM, run under node) decodes the
  bytes to the same state at every tick as :meth:`Trace.states_at`.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from retrylab.core.breaker import CircuitBreaker, replay
from retrylab.core.budget import GrpcRetryThrottle
from retrylab.core.constants import BREAKER_EVENTS
from retrylab.i18n import language
from retrylab.sim.breakers import BreakerSettings
from retrylab.sim.fleet import outage_fleet, storm_fleet
from retrylab.sim.fleetview import slider_scale
from retrylab.sim.herd import herd_data
from retrylab.sim.trace import (
    BREAKER_STATES,
    STATES,
    breaker_trace,
    decode,
    fleet_trace,
    herd_trace,
)
from retrylab.viz.player import Player, linked_player, moment_texts

FLEETS = {
    "herd none": outage_fleet("none", clients=300),
    "herd full": outage_fleet("full", clients=300),
    "herd breaker": outage_fleet("full", clients=200, breaker=BreakerSettings(3, 500)),
    "storm 1/100": slider_scale(storm_fleet(), 100, 100).simulated,
    "storm budget": slider_scale(storm_fleet(retry_budget=GrpcRetryThrottle()), 100, 100).simulated,
    "storm breaker": slider_scale(
        storm_fleet(breaker=BreakerSettings(3, 5000)), 100, 100
    ).simulated,
}


@pytest.mark.parametrize("name", list(FLEETS))
def test_fleet_trace_has_the_simulators_numbers(name: str) -> None:
    fleet = FLEETS[name]
    trace, result = fleet_trace(fleet)
    again = fleet.run()  # recording changes nothing in the run
    assert again.served == result.served and again.total_requests == result.total_requests
    steps = result.steps
    n = len(steps)
    assert trace.ticks == n + 1
    assert trace.load[:n].tolist() == steps["offered"].tolist()
    assert trace.served[:n].tolist() == steps["successes"].tolist()
    assert trace.peak() == int(steps["offered"].max())
    assert trace.served_total() == result.served
    assert trace.gave_up_total() == result.gave_up
    counts = trace.count_table()
    # at every step: those sending are the step's requests, the served so far its
    # successes so far, the blocked so far its breaker refusals so far
    assert counts[:n, STATES.index("sending")].tolist() == steps["offered"].tolist()
    served_so_far = np.concatenate([[0], np.cumsum(steps["successes"])])[:n]
    assert counts[:n, STATES.index("served")].tolist() == served_so_far.tolist()
    blocked = np.cumsum(steps["blocked_by_breaker"]).tolist()
    assert counts[:n, STATES.index("blocked")].tolist() == blocked
    # each client: one 'sending' per attempt, and its end as the simulator's table says
    sends = np.bincount(trace.event_client[trace.event_state == 1], minlength=fleet.clients)
    assert sends.tolist() == result.clients["attempts"].tolist()
    final = trace.states_at(trace.ticks - 1)
    assert (final == 3).tolist() == result.clients["succeeded"].tolist()
    arrived = counts[:, 0]
    arrivals = np.searchsorted(
        np.sort(result.clients["arrival_ms"].to_numpy()), np.arange(n) * fleet.step_ms, side="right"
    )
    assert (fleet.clients - arrived[:n]).tolist() == arrivals.tolist()


def test_states_at_equals_the_count_table_at_every_tick() -> None:
    trace, _ = fleet_trace(FLEETS["herd breaker"])
    table = trace.count_table()
    for t in range(0, trace.ticks, 37):
        assert np.bincount(trace.states_at(t), minlength=6).tolist() == table[t].tolist()


@pytest.mark.parametrize("width", [50, 100, 200, 400])
def test_herd_trace_peaks_are_herd_datas(width: int) -> None:
    data = herd_data(width=width)
    assert herd_trace(jitter=False, width=width).peak() == data.peak_plain
    assert herd_trace(jitter=True, width=width).peak() == data.peak_jittered
    trace = herd_trace(jitter=True, width=width)
    assert trace.served_total() == 24 and trace.gave_up_total() == 0


def test_breaker_trace_is_replays_rows() -> None:
    trace = breaker_trace()
    rows = replay(BREAKER_EVENTS, CircuitBreaker(3, 5000))
    for i, (row, (now, _ok)) in enumerate(zip(rows, BREAKER_EVENTS, strict=True)):
        t = now // trace.tick_ms
        assert trace.states_at(t)[i] == (1 if row.allowed else 5)
        assert BREAKER_STATES[trace.breaker[t]] == row.state_before.value
        if row.allowed:
            assert trace.states_at(t + 1)[i] == (3 if row.success else 4)
    assert BREAKER_STATES[trace.breaker[-1]] == rows[-1].state_after.value


@pytest.mark.parametrize(
    "make",
    [
        lambda: herd_trace(jitter=True),
        lambda: fleet_trace(FLEETS["storm breaker"])[0],
        breaker_trace,
    ],
)
def test_encode_decode_round_trip(make) -> None:  # type: ignore[no-untyped-def]
    trace = make()
    back = decode(trace.encode())
    for name in (
        "event_tick",
        "event_client",
        "event_state",
        "load",
        "served",
        "capacity",
        "up",
        "breaker",
    ):
        assert getattr(back, name).tolist() == getattr(trace, name).tolist(), name
    with pytest.raises(ValueError, match="not a retrylab trace"):
        decode(b"\0" * 64)


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_front_ends_decoding_shows_the_simulators_state(tmp_path: Path) -> None:
    """The player's own ESM, run under node, decodes the bytes to states_at(t) (by a
    jump and step by step), and writes every tick's line as moment_texts does, in
    English and in Turkish."""
    from retrylab.viz import player

    module = tmp_path / "player.mjs"
    module.write_text(player._ESM)
    traces = {
        "storm": fleet_trace(FLEETS["storm breaker"])[0],
        "breaker": breaker_trace(),
        "herd": herd_trace(jitter=True),
    }
    words = {}
    for lang in ("en", "tr"):
        with language(lang):
            words[lang] = {
                "templates": player.templates(),
                "breaker": Player(breaker_trace()).breaker_labels,
                "lines": {name: moment_texts(tr) for name, tr in traces.items()},
            }
    (tmp_path / "words.json").write_text(json.dumps(words))
    for name, trace in traces.items():
        (tmp_path / f"{name}.bin").write_bytes(trace.encode())
    ticks = {name: sorted({0, 1, 7, tr.ticks // 2, tr.ticks - 1}) for name, tr in traces.items()}
    script = tmp_path / "run.mjs"
    script.write_text(f"""
import {{ readFileSync }} from 'node:fs';
import {{ decode, statesAt, applyTicks, meterAt, momentText }} from './player.mjs';
const ticks = {json.dumps(ticks)};
const kinds = {json.dumps({name: tr.kind for name, tr in traces.items()})};
const words = JSON.parse(readFileSync(new URL('./words.json', import.meta.url)));
const out = {{}};
const wrong = [];
for (const [name, ts] of Object.entries(ticks)) {{
  const b = readFileSync(new URL(`./${{name}}.bin`, import.meta.url));
  const tr = decode(new DataView(b.buffer, b.byteOffset, b.byteLength));
  const walked = statesAt(tr, 0);
  const rows = {{}};
  let at = 0;
  for (const t of ts) {{
    for (; at < t; at++) applyTicks(tr, walked, at + 1, at + 1);   // as play steps
    rows[t] = {{ jumped: Array.from(statesAt(tr, t)), walked: Array.from(walked),
                meter: meterAt(tr, t) }};
  }}
  out[name] = rows;
  // every tick's text line, in both languages, as the page fills it in
  const s = new Uint8Array(tr.clients);
  for (let t = 0; t < tr.ticks; t++) {{
    applyTicks(tr, s, t, t);
    const counts = [0, 0, 0, 0, 0, 0];
    for (const v of s) counts[v] += 1;
    for (const lang of ['en', 'tr']) {{
      const w = words[lang];
      const got = momentText(tr, t, counts, w.templates, lang, w.breaker, kinds[name]);
      if (got !== w.lines[name][t]) wrong.push([name, lang, t, got, w.lines[name][t]]);
    }}
  }}
}}
console.log(JSON.stringify({{ out, wrong: wrong.slice(0, 5), nwrong: wrong.length }}));
""")
    done = subprocess.run(
        ["node", str(script)], capture_output=True, text=True, timeout=60, check=True
    )
    result = json.loads(done.stdout)
    assert result["nwrong"] == 0, result["wrong"]
    got = result["out"]
    for name, trace in traces.items():
        meter = trace.meter()
        for t in ticks[name]:
            want = trace.states_at(t).tolist()
            assert got[name][str(t)]["jumped"] == want, (name, t)
            assert got[name][str(t)]["walked"] == want, (name, t)
            assert got[name][str(t)]["meter"] == int(meter[t]), (name, t)


def test_player_texts_and_replay() -> None:
    player = Player(herd_trace(jitter=False), title="herd")
    assert player.ticks == len(moment_texts(player.current)) == 100
    assert "24 requests in this 200 ms bucket" in moment_texts(player.current)[80]
    first = player.generation
    player.tick = 50
    player.show_trace(herd_trace(jitter=True))
    assert player.generation == first + 1 and player.tick == 0
    bundle = player._repr_mimebundle_()
    assert bundle is not None
    data, _metadata = bundle
    assert data["image/png"].startswith("iVBORw0KGgo")  # where widgets do not run
    assert "application/vnd.jupyter.widget-view+json" in data
    with pytest.raises(ValueError, match="trace="):
        player.show_trace("herd")  # type: ignore[arg-type]


def test_a_tick_the_page_sent_for_an_earlier_trace_moves_nothing() -> None:
    """The page sends ``tick`` with the generation it is a moment of (only what changed:
    a second tick of the same trace comes alone); one that reaches the kernel after a new
    trace is dropped, and the new trace's own ticks are taken."""
    player = Player(herd_trace(jitter=False))
    old = player.generation
    player.set_state({"tick": 7, "tick_generation": old})
    assert player.tick == 7
    player.show_trace(herd_trace(jitter=True), at=3)
    assert (player.tick, player.start) == (3, 3)
    player.set_state({"tick": 5})  # queued behind the new trace, of the old one
    player.set_state({"tick": 6, "tick_generation": old})
    assert player.tick == 3
    player.set_state({"tick": 9, "tick_generation": player.generation})
    player.set_state({"tick": 10})
    assert player.tick == 10


def test_linked_player_replays_when_a_control_moves() -> None:
    from retrylab.viz.range import IntRange

    controls = {"width": IntRange(value=200, min=50, max=400, step=50)}
    player = linked_player(controls, lambda width: herd_trace(jitter=True, width=width))
    assert player.current.window == 20
    first = player.generation
    controls["width"].value = 100
    assert player.current.window == 10 and player.generation == first + 1
    assert player.current.peak() == herd_data(width=100).peak_jittered


def test_turkish_texts_use_the_catalogue_and_the_decimal_comma() -> None:
    trace, _ = fleet_trace(FLEETS["storm 1/100"])
    with language("tr"):
        texts = moment_texts(trace)
        player = Player(trace)
    assert texts[125].startswith("12,50 s:"), texts[125]
    assert "sunucu" in texts[125]
    assert player.labels["play"] == "oynat" and player.lang == "tr"
    assert player.templates["fleet_down"] == "sunucu ÇÖKTÜ, {load} istek geri çevrildi"
    assert player.state_labels[3] == "hizmet verildi"


def test_breaker_player_and_explorer_show_the_same_moment() -> None:
    from retrylab.viz.breaker import BreakerExplorer, breaker_explorer
    from retrylab.viz.player import breaker_player

    explorer = breaker_explorer()
    player = breaker_player(explorer)
    player.tick = 61  # just after the failed trial at 6000 ms
    assert explorer.values["step"] == 6
    assert explorer.readout == BreakerExplorer.readout_for(step=6)
    explorer.set(step=8)  # by hand: the player goes to 11500 ms
    assert player.tick == 115
    explorer.set(cooldown=2000)  # the new breaker, at the same moment
    assert (
        player.current.breaker.tolist()
        == breaker_trace(BREAKER_EVENTS, CircuitBreaker(3, 2000)).breaker.tolist()
    )
    # the step the student chose stays: the diagram shows the new breaker there
    assert player.tick == 115 and explorer.values["step"] == 8
    assert explorer.readout == BreakerExplorer.readout_for(cooldown=2000, step=8)


def _pixel_fraction(ax: Any, x: float) -> float:
    """Where Matplotlib draws data ``x`` on ``ax``, as a fraction of the figure's width."""
    fig = ax.figure
    return float(ax.transData.transform((x, 0))[0] / fig.bbox.width)


def test_herd_player_follows_the_herd_explorer_and_marks_its_histograms() -> None:
    """02: the player plays the herd explorer's setting, replays when base, cap, jitter,
    retry move (a base above the cap as the explorer draws it: capped), and the moment
    it stands at lies where Matplotlib puts that time on both histograms."""
    from retrylab.core.backoff import Backoff
    from retrylab.viz.herd import herd_explorer
    from retrylab.viz.player import herd_player

    explorer = herd_explorer()
    player = herd_player(explorer=explorer)
    plain = herd_player("none", explorer)
    assert player.marks["target"] in explorer.image._dom_classes
    assert plain.marks["target"] in explorer.image._dom_classes
    assert player.current.peak() == herd_data().peak_jittered
    assert plain.current.peak() == herd_data().peak_plain

    def check_marks(p: Player, tick: int) -> None:
        ms = tick * p.current.tick_ms
        spans = p.mark_spans(tick)
        assert len(spans) == 2
        width = p.current.window * p.current.tick_ms
        for ax, span in zip(explorer.plot.axes, spans, strict=True):
            assert span is not None
            assert span["line"] == pytest.approx(_pixel_fraction(ax, ms), abs=1e-5)
            assert span["lo"] == pytest.approx(_pixel_fraction(ax, ms // width * width), abs=1e-5)

    check_marks(player, 45)
    moves = [
        ({"base": 100}, Backoff(100, 2, 5000, jitter="full")),
        ({"cap": 300}, Backoff(100, 2, 300, jitter="full")),
        ({"jitter": "equal"}, Backoff(100, 2, 300, jitter="equal")),
        ({"base": 400}, Backoff(300, 2, 300, jitter="equal")),  # above the cap: capped
        ({"cap": 5000, "retry": 6}, Backoff(400, 2, 5000, jitter="equal")),
    ]
    for values, backoff in moves:
        generation = player.generation
        player.tick = 7
        explorer.set(**values)
        retry = explorer.values["retry"]
        assert player.generation > generation and player.tick == 0, values
        want = herd_trace(True, backoff, 24, retry)
        assert player.current.encode() == want.encode(), values
        assert plain.current.encode() == herd_trace(False, backoff, 24, retry).encode()
        assert explorer.message == ""
    check_marks(player, 333)  # the explorer's wider x range, after retry = 6
    assert player.marks["axes"][0]["x1"] == explorer.plot.axes[0].get_xlim()[1]
    with pytest.raises(ValueError, match="jitter='full' is out of range"):
        herd_player("full", explorer)


def test_storm_player_replays_and_marks_the_storm_timeline() -> None:
    """06: the budget and the breaker replay the storm from the start, and the moment
    is marked where Matplotlib puts it on the timeline (x in seconds) and the panel
    under it."""
    from retrylab.viz.fleet import StormExplorer, fleet_explorer
    from retrylab.viz.player import storm_player

    explorer = fleet_explorer("storm")
    player = storm_player(explorer)
    assert player.marks["target"] in explorer.image._dom_classes
    assert player.marks["band_ms"] == 0
    axes = [explorer.plot.ax, explorer.plot.ax_wait]
    for tick in (0, 150, 600):
        spans = player.mark_spans(tick)
        for ax, span in zip(axes, spans, strict=True):
            assert span is not None
            x = _pixel_fraction(ax, tick * player.current.tick_ms / 1000)
            assert span["line"] == pytest.approx(x, abs=1e-5)
            assert span["lo"] == span["hi"] == span["line"]
    for values in ({"budget": "grpc"}, {"breaker": "on"}, {"base": 1500}):
        generation = player.generation
        explorer.set(**values)
        assert player.generation > generation and player.tick == 0
        settings = StormExplorer.effective(explorer.values)
        want = fleet_trace(StormExplorer.compute(**settings).scale.simulated)[0]
        assert player.current.encode() == want.encode(), values
    assert explorer.values["base"] == 1500 and settings["base"] == 1000  # drawn capped


def test_breaker_player_marks_the_timeline_while_it_plays() -> None:
    from retrylab.viz.breaker import breaker_explorer
    from retrylab.viz.player import breaker_player

    explorer = breaker_explorer()
    player = breaker_player(explorer)
    (span,) = player.mark_spans(60)
    assert span is not None
    assert span["line"] == pytest.approx(_pixel_fraction(explorer.plot.timeline, 6000), abs=1e-5)


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_front_end_marks_where_python_says(tmp_path: Path) -> None:
    """The page's markSpans (the player's ESM under node) equals mark_spans."""
    from retrylab.viz import player
    from retrylab.viz.herd import herd_explorer
    from retrylab.viz.player import herd_player, mark_spans

    marks = herd_player(explorer=herd_explorer(width=150)).marks
    times = [-10, 0, 149.5, 150, 450, 1234, 1999, 2000, 2001, 10_000]
    (tmp_path / "player.mjs").write_text(player._ESM)
    script = tmp_path / "run.mjs"
    script.write_text(
        "import { markSpans } from './player.mjs';\n"
        f"const marks = {json.dumps(marks)};\n"
        f"console.log(JSON.stringify({json.dumps(times)}.map((ms) => markSpans(marks, ms))));\n"
    )
    done = subprocess.run(
        ["node", str(script)], capture_output=True, text=True, timeout=60, check=True
    )
    assert json.loads(done.stdout) == [mark_spans(marks, ms) for ms in times]
    assert mark_spans(marks, 2001) == [None, None] and mark_spans(marks, -10) == [None, None]


def test_storm_player_plays_the_explorers_run_without_simulating_it_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """06: a storm slider moved simulates the storm once; the player takes the explorer's
    run (before, each move simulated it twice, once for the figure, once for the player)."""
    from retrylab.viz.fleet import StormExplorer, fleet_explorer
    from retrylab.viz.player import storm_player

    explorer = fleet_explorer("storm")
    player = storm_player(explorer)
    runs: list[dict[str, Any]] = []
    simulate = StormExplorer.compute

    def counted(**values: Any) -> Any:
        runs.append(values)
        return simulate(**values)

    monkeypatch.setattr(StormExplorer, "compute", staticmethod(counted))
    explorer.set(base=200)
    assert len(runs) == 1
    want = fleet_trace(simulate(**runs[0]).scale.simulated)[0]
    assert player.current.encode() == want.encode()


def test_a_players_plain_text_names_its_run_not_its_address() -> None:
    """A rebuilt notebook changed in every player's text/plain output: the default repr
    holds the object's memory address."""
    from retrylab.viz.player import breaker_player

    text = repr(breaker_player())
    assert "0x" not in text and text == repr(breaker_player())
    assert text.startswith("Player(kind='breaker', ticks=120, tick_ms=100, title="), text
