"""Time you can watch: a run's trace played in the browser, clients as dots.

:class:`Player` is an anywidget (a front end of inline ESM and CSS, as
:mod:`retrylab.viz.range`) that draws a :class:`~retrylab.sim.trace.Trace` on a
canvas: every client a dot coloured by its state, the requests of the moment
travelling to one server whose load meter fills against its capacity line, the
server's outage as it happens, and (04's trace) the breaker's state. Play,
pause, step one tick, scrub, a speed list; keyboard: space plays or pauses, the
arrows step, Home and End jump to the ends. A text line says what happens at the
current tick (``aria-live`` while paused, for a screen reader and for a paused
projector). Nothing plays by itself, and a browser that asks for reduced motion
gets no travelling dots and no replay that starts on its own.

The kernel computes the trace once and sends it as bytes
(:meth:`~retrylab.sim.trace.Trace.encode`, 260 kB for 06's storm) with the text
line's templates from the catalogue (:func:`templates`, filled in per tick as
:func:`moment_texts` fills them); every frame is drawn from those alone, so a
playing view costs the kernel nothing. ``tick`` tells Python where the view stands
after a pause, a step or a scrub (not while it plays).
:meth:`Player.show_trace` replays from the start with a new trace;
:func:`linked_player` does it whenever an explorer's control moves.
:meth:`Player.mark_on` links the player to the figure beside it: the page marks
the current moment on the figure's image (a line at its time, the meter's window
shaded), moved with every tick in the browser, so the link too costs the kernel
nothing per frame (02's histograms, 04's timeline, 06's storm timeline).

Where widgets do not run (nbconvert, GitHub) the display falls back to a static
PNG of the run (:func:`still`), carried in the same mimebundle.

>>> from retrylab.sim.trace import herd_trace
>>> p = Player(herd_trace(jitter=True), title="herd")
>>> p.ticks, p.tick, p.kind
(100, 0, 'herd')
>>> print(moment_texts(p.current)[0])  # doctest: +NORMALIZE_WHITESPACE
0 ms: 24 clients failed together and wait their backoff; 0 requests in this 200 ms
bucket (even spread 6).
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import anywidget
import numpy as np
import traitlets
from matplotlib.axes import Axes

from ..core._check import check_choice
from ..core.backoff import JITTERS, Backoff
from ..core.breaker import CircuitBreaker
from ..core.constants import BREAKER_EVENTS
from ..i18n import _, current, number, pgettext
from ..i18n.terms import jitter_name
from ..sim.trace import BREAKER_STATES, STATES, Trace, breaker_trace, fleet_trace, herd_trace
from .controls import value_of
from .kit import GROUND, INK, STATE_COLOURS, look, new_figure, style, to_png

__all__ = [
    "STATE_COLOURS_PLAYER",
    "Player",
    "breaker_player",
    "explorer_settings",
    "figure_axes",
    "herd_player",
    "linked_player",
    "mark_spans",
    "moment_texts",
    "still",
    "storm_player",
    "templates",
]

#: One colour per client state (:data:`~retrylab.sim.trace.STATES`), each its concept's.
STATE_COLOURS_PLAYER: dict[str, str] = {
    "idle": GROUND["pending"],  # not arrived yet: a light grey, behind the rest
    "sending": look("load", "sent").colour,
    "waiting": look("load", "retries").colour,
    "served": look("outcome", "served").colour,
    "gave_up": look("outcome", "given_up").colour,
    "blocked": look("outcome", "blocked").colour,
}
#: The speeds offered, in ticks per second.
SPEEDS: tuple[int, ...] = (2, 5, 10, 20, 50, 100)


def _state_labels(kind: str) -> list[str]:
    gave_up = pgettext("player", "failed") if kind == "breaker" else pgettext("player", "gave up")
    return [
        pgettext("player", "not yet"),
        pgettext("player", "sending"),
        pgettext("player", "waiting"),
        pgettext("player", "served"),
        gave_up,
        pgettext("player", "refused by breaker"),
    ]


def _breaker_name(code: int) -> str:
    return pgettext("player", BREAKER_STATES[code].replace("_", "-"))


def templates() -> dict[str, str]:
    """The text line's templates in the current language, by name: the front end fills
    them in for each tick as :func:`moment_texts` does (numbers with a decimal comma in
    Turkish)."""
    return {
        "herd_first": _("{time} ms: {clients} clients failed together and wait their backoff"),
        "herd_later": _("{time} ms: {sending} sending, {waiting} waiting, {served} served"),
        "herd": _("{head}; {load} requests in this {width} ms bucket (even spread {capacity})."),
        "refused": _("a request is refused: nothing is sent"),
        "succeeds": _("a request is sent and succeeds"),
        "fails": _("a request is sent and fails"),
        "quiet": _("no request"),
        "up": _("Server up."),
        "down": _("Server down."),
        "breaker": _("{time} ms: breaker {state}; {what}. {server}"),
        "fleet_up": _("server up, {load} requests (capacity {capacity})"),
        "fleet_down": _("server DOWN, {load} requests turned away"),
        "fleet": _(
            "{time} s: {server}; clients: {sending} sending, {waiting} waiting, "
            "{served} served, {gave_up} gave up, {blocked} refused by their "
            "breaker."
        ),
    }


def moment_texts(trace: Trace) -> list[str]:
    """One line per tick saying what happens then, in the current language: what the
    player's front end shows (it fills in :func:`templates` the same way).

    >>> from retrylab.sim.trace import breaker_trace
    >>> moment_texts(breaker_trace())[6]
    '600 ms: breaker closed; a request is sent and fails. Server down.'
    """
    tpl = templates()
    counts = trace.count_table().tolist()
    meter = trace.meter().tolist()
    load, capacity, up = trace.load.tolist(), trace.capacity.tolist(), trace.up.tolist()
    served = trace.served.tolist()
    blocked_at = set(trace.event_tick[trace.event_state == 5].tolist())
    lines = []
    for t in range(trace.ticks):
        c = dict(zip(STATES, counts[t], strict=True))
        ms = t * trace.tick_ms
        if trace.kind == "herd":
            head = (
                tpl["herd_first"].format(time=ms, clients=trace.clients)
                if t == 0
                else tpl["herd_later"].format(time=ms, **c)
            )
            lines.append(
                tpl["herd"].format(
                    head=head,
                    load=meter[t],
                    width=trace.window * trace.tick_ms,
                    capacity=capacity[t],
                )
            )
        elif trace.kind == "breaker":
            what = (
                tpl["refused"]
                if t in blocked_at
                else (tpl["succeeds"] if served[t] else tpl["fails"])
                if load[t]
                else tpl["quiet"]
            )
            lines.append(
                tpl["breaker"].format(
                    time=ms,
                    state=_breaker_name(int(trace.breaker[t])),
                    what=what,
                    server=tpl["up"] if up[t] else tpl["down"],
                )
            )
        else:
            server = tpl["fleet_up" if up[t] else "fleet_down"].format(
                load=load[t], capacity=capacity[t]
            )
            lines.append(tpl["fleet"].format(time=number(ms / 1000, 2), server=server, **c))
    return lines


def still(trace: Trace, title: str = "") -> bytes:
    """A static PNG of the whole run: the clients in each state over time and the
    server's load against its capacity (for where widgets do not run)."""
    counts = trace.count_table()
    x = np.arange(trace.ticks) * trace.tick_ms / 1000
    fig = new_figure((9.0, 4.2))
    top, bottom = fig.subplots(2, 1, sharex=True, height_ratios=(3, 2))
    labels = _state_labels(trace.kind)
    top.stackplot(
        x, counts.T, colors=[STATE_COLOURS_PLAYER[s] for s in STATES], labels=labels, step="post"
    )
    style(
        top, title or None, None, _("requests") if trace.kind == "breaker" else _("clients")
    )  # 04: a dot a request
    top.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=10.08, frameon=False)
    bottom.step(
        x,
        trace.meter(),
        where="post",
        color=look("load", "sent").colour,
        label=_("requests at the server"),
    )
    bottom.step(x, trace.capacity, where="post", color=INK, linestyle="--", label=_("capacity"))
    style(bottom, None, _("time (s)"), _("requests"))
    bottom.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=10.08, frameon=False)
    return to_png(fig)


def figure_axes(axes: Iterable[Axes], ms_per_unit: float = 1.0) -> list[dict[str, float]]:
    """Each of ``axes`` as the page places a mark on its figure's image: its box as
    fractions of the figure (``left``, ``right``, ``top``, ``bottom``, from the top left
    corner) and its x range in ms (``x0``, ``x1``; the axis's unit is ``ms_per_unit`` ms).

    >>> fig = new_figure((4.0, 2.0), layout=None); fig.subplots_adjust(left=0.25, right=0.75)
    >>> ax = fig.add_subplot(); ax.set_xlim(0, 2)
    (0.0, 2.0)
    >>> [round(v, 2) for v in figure_axes([ax], 1000)[0].values()]
    [0.25, 0.75, 0.12, 0.89, 0.0, 2000.0]
    """
    out = []
    for ax in axes:
        box = ax.get_position()
        x0, x1 = ax.get_xlim()
        out.append(
            {
                "left": round(float(box.x0), 6),
                "right": round(float(box.x1), 6),
                "top": round(1 - float(box.y1), 6),
                "bottom": round(1 - float(box.y0), 6),
                "x0": round(float(x0) * ms_per_unit, 6),
                "x1": round(float(x1) * ms_per_unit, 6),
            }
        )
    return out


def _x(ax: Mapping[str, float], ms: float) -> float:
    return ax["left"] + (ms - ax["x0"]) / (ax["x1"] - ax["x0"]) * (ax["right"] - ax["left"])


def mark_spans(marks: Mapping[str, Any], ms: float) -> list[dict[str, float] | None]:
    """Where the page draws the moment ``ms`` on each axes of ``marks``
    (:attr:`Player.marks`), as fractions of the image's width: the line, and the meter's
    window holding ``ms`` (``lo`` to ``hi``, clipped to the axes; equal to ``line``
    without a window). ``None`` for axes whose x range does not hold ``ms``. The
    player's ``markSpans`` computes the same.

    >>> m = {"band_ms": 200, "axes": [{"left": 0.1, "right": 0.5, "top": 0, "bottom": 1,
    ...                                "x0": 0, "x1": 1000}]}
    >>> mark_spans(m, 250), mark_spans(m, 1001)
    ([{'line': 0.2, 'lo': 0.18, 'hi': 0.26}], [None])
    """
    band = float(marks.get("band_ms", 0))
    out: list[dict[str, float] | None] = []
    for ax in marks.get("axes", []):
        if not ax["x1"] > ax["x0"] or not ax["x0"] <= ms <= ax["x1"]:
            out.append(None)
            continue
        lo = hi = ms
        if band > 0:
            lo = max(ax["x0"], ms // band * band)
            hi = min(ax["x1"], ms // band * band + band)
        out.append(
            {
                "line": round(_x(ax, ms), 6),
                "lo": round(_x(ax, lo), 6),
                "hi": round(_x(ax, hi), 6),
            }
        )
    return out


_ESM = r"""
// -- the trace, as Trace.encode packs it (retrylab/sim/trace.py) ----------------------
export function decode(view) {
  const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength).slice();
  const buf = bytes.buffer;
  const head = new Uint32Array(buf, 0, 10);
  if (head[0] !== 0x31544C52 || head[1] !== 1) throw new Error('not a retrylab trace');
  const [clients, ticks, events, tickMs, windowTicks, width] = head.slice(2, 8);
  let pos = 40;
  const u32 = (n) => { const a = new Uint32Array(buf, pos, n); pos += 4 * n; return a; };
  const offsets = u32(ticks + 1), load = u32(ticks), served = u32(ticks),
        capacity = u32(ticks);
  let who;
  if (width === 4) { who = u32(events); }
  else { who = new Uint16Array(buf, pos, events); pos += 2 * events; pos += (4 - pos % 4) % 4; }
  const u8 = (n) => { const a = new Uint8Array(buf, pos, n); pos += n; return a; };
  const state = u8(events), up = u8(ticks), breaker = u8(ticks);
  return { clients, ticks, events, tickMs, windowTicks, offsets, load, served, capacity,
           who, state, up, breaker };
}

// every client's state at tick t: its changes up to t applied in order (later ones win)
export function statesAt(tr, t, into) {
  const s = into || new Uint8Array(tr.clients);
  s.fill(0);
  applyTicks(tr, s, 0, t);
  return s;
}

// apply the changes of ticks from..to (inclusive) to the states s
export function applyTicks(tr, s, from, to) {
  const end = tr.offsets[to + 1];
  for (let i = tr.offsets[from]; i < end; i++) s[tr.who[i]] = tr.state[i];
}

// the load meter at tick t: requests so far in t's window
export function meterAt(tr, t) {
  let m = 0;
  for (let i = Math.floor(t / tr.windowTicks) * tr.windowTicks; i <= t; i++) m += tr.load[i];
  return m;
}

// where the moment ms is marked on each axes of a figure beside the player, as fractions
// of its image's width (retrylab.viz.player.mark_spans computes the same)
const round6 = (v) => Math.round(v * 1e6) / 1e6;
export function markSpans(marks, ms) {
  const band = Number(marks.band_ms || 0);
  const x = (ax, v) => round6(ax.left + (v - ax.x0) / (ax.x1 - ax.x0) * (ax.right - ax.left));
  return (marks.axes || []).map((ax) => {
    if (!(ax.x1 > ax.x0) || ms < ax.x0 || ms > ax.x1) return null;
    let lo = ms, hi = ms;
    if (band > 0) {
      const start = Math.floor(ms / band) * band;
      lo = Math.max(ax.x0, start); hi = Math.min(ax.x1, start + band);
    }
    return { line: x(ax, ms), lo: x(ax, lo), hi: x(ax, hi) };
  });
}

// icons drawn, not taken from a font (a missing glyph shows as a box)
const svg = (d) => `<svg viewBox="0 0 16 16" width="16" height="16" aria-hidden="true"
  focusable="false"><path d="${d}" fill="currentColor"/></svg>`;
const ICONS = { play: svg('M4 2 L14 8 L4 14 Z'), pause: svg('M3 2 H7 V14 H3 Z M9 2 H13 V14 H9 Z'),
                step: svg('M2 2 L10 8 L2 14 Z M11 2 H14 V14 H11 Z'),
                back: svg('M14 2 L6 8 L14 14 Z M2 2 H5 V14 H2 Z') };

// the text line at tick t, as retrylab.viz.player.moment_texts writes it
const fill = (tpl, v) => tpl.replace(/\{(\w+)\}/g, (m, k) => (k in v ? String(v[k]) : m));
const NAMES = ['idle', 'sending', 'waiting', 'served', 'gave_up', 'blocked'];
export function momentText(tr, t, counts, T, lang, breakerLabels, kind) {
  const c = {};
  NAMES.forEach((name, i) => { c[name] = counts[i]; });
  const ms = t * tr.tickMs;
  if (kind === 'herd') {
    const head = t === 0 ? fill(T.herd_first, { time: 0, clients: tr.clients })
      : fill(T.herd_later, { time: ms, ...c });
    return fill(T.herd, { head, load: meterAt(tr, t), width: tr.windowTicks * tr.tickMs,
                          capacity: tr.capacity[t] });
  }
  if (kind === 'breaker') {
    let refused = false;
    for (let k = tr.offsets[t]; k < tr.offsets[t + 1]; k++) if (tr.state[k] === 5) refused = true;
    const what = refused ? T.refused
      : tr.load[t] ? (tr.served[t] ? T.succeeds : T.fails) : T.quiet;
    return fill(T.breaker, { time: ms, state: breakerLabels[tr.breaker[t]], what,
                             server: tr.up[t] ? T.up : T.down });
  }
  const server = fill(tr.up[t] ? T.fleet_up : T.fleet_down,
                      { load: tr.load[t], capacity: tr.capacity[t] });
  let time = (ms / 1000).toFixed(2);
  if (lang === 'tr') time = time.replace('.', ',');
  return fill(T.fleet, { time, server, ...c });
}

const IGNORE = new Set(['ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown', 'Home', 'End',
                        'PageUp', 'PageDown', ' ']);

function render({ model, el }) {
  // asked each time: the setting may change while the page is open
  const reduce = () => Boolean(window.matchMedia &&
    window.matchMedia('(prefers-reduced-motion: reduce)').matches);
  const L = () => model.get('labels');
  el.classList.add('retrylab-player');
  const root = document.createElement('div');
  root.className = 'retrylab-player-root';
  root.tabIndex = 0;
  root.setAttribute('role', 'group');
  const canvas = document.createElement('canvas');
  canvas.className = 'retrylab-player-canvas';
  canvas.setAttribute('role', 'img');
  const bar = document.createElement('div');
  bar.className = 'retrylab-player-bar';
  const button = (cls) => { const b = document.createElement('button');
    b.type = 'button'; b.className = `retrylab-player-${cls}`; return b; };
  const play = button('play'), back = button('back'), fwd = button('step');
  const scrub = document.createElement('input');
  scrub.type = 'range'; scrub.min = '0'; scrub.step = '1';
  scrub.className = 'retrylab-player-scrub';
  const speed = document.createElement('select');
  speed.className = 'retrylab-player-speed';
  const clock = document.createElement('span');
  clock.className = 'retrylab-player-clock';
  bar.append(play, back, fwd, scrub, speed, clock);
  const legend = document.createElement('div');
  legend.className = 'retrylab-player-legend';
  const line = document.createElement('p');
  line.className = 'retrylab-player-line';
  line.setAttribute('aria-live', 'polite');
  root.append(canvas, bar, legend, line);
  el.append(root);

  let tr = null, states = null, tick = 0, pos = 0, playing = false;
  let last = null, raf = 0, frames = 0, top = 1;
  const W = 760, H = 300;
  const dpr = window.devicePixelRatio || 1;
  canvas.width = W * dpr; canvas.height = H * dpr;
  canvas.style.width = `${W}px`; canvas.style.height = `${H}px`;
  const ctx = canvas.getContext('2d', { alpha: false });

  const labelAll = () => {
    const l = L();
    root.setAttribute('aria-label', model.get('title'));
    canvas.setAttribute('aria-label', model.get('title'));
    back.innerHTML = ICONS.back; back.setAttribute('aria-label', l.back); back.title = l.back;
    fwd.innerHTML = ICONS.step; fwd.setAttribute('aria-label', l.step); fwd.title = l.step;
    scrub.setAttribute('aria-label', l.time);
    speed.setAttribute('aria-label', l.speed); speed.title = l.speed;
    speed.replaceChildren(...model.get('speeds').map((v) => {
      const o = document.createElement('option'); o.value = String(v);
      o.textContent = l.per_second.replace('{n}', String(v)); return o; }));
    speed.value = String(model.get('speed'));
    legend.replaceChildren(...model.get('state_labels').map((name, i) => {
      const item = document.createElement('span'); item.className = 'retrylab-player-key';
      const sw = document.createElement('span'); sw.className = 'retrylab-player-swatch';
      sw.style.background = model.get('colours')[i];
      item.append(sw, document.createTextNode(name)); return item; }));
    showPlaying();
  };
  const showPlaying = () => {
    const l = L();
    play.innerHTML = playing ? ICONS.pause : ICONS.play;
    play.setAttribute('aria-label', playing ? l.pause : l.play);
    play.title = playing ? l.pause : l.play;
    play.setAttribute('aria-pressed', String(playing));
    root.dataset.playing = String(playing);
    line.setAttribute('aria-live', playing ? 'off' : 'polite');
  };

  const load = () => {
    tr = decode(model.get('trace'));
    states = new Uint8Array(tr.clients);
    layout();
    paintAll();
    top = 1;
    for (let t = 0; t < tr.ticks; t++) top = Math.max(top, meterAt(tr, t), tr.capacity[t]);
    top *= 1.15;
    scrub.max = String(tr.ticks - 1);
    root.dataset.ticks = String(tr.ticks);
    root.dataset.generation = String(model.get('generation'));
  };

  // the clients' dots live on a canvas of their own, repainted only where a state changed
  const dots = document.createElement('canvas');
  dots.width = W * dpr; dots.height = H * dpr;
  const dctx = dots.getContext('2d');
  let xs = null, ys = null, size = 1, round = false, sending = [];
  const layout = () => {
    const n = tr.clients, gw = 470, gh = H - 20, gx = 10, gy = 10;
    const cols = Math.max(1, Math.ceil(Math.sqrt(n * gw / gh)));
    const rows = Math.max(1, Math.ceil(n / cols));
    const cell = Math.min(gw / cols, gh / rows);
    size = Math.max(1, cell < 6 ? cell - 0.5 : cell * 0.7);
    round = cell >= 8;
    xs = new Float32Array(n); ys = new Float32Array(n);
    for (let i = 0; i < n; i++) {
      xs[i] = gx + (i % cols) * cell + cell / 2;
      ys[i] = gy + Math.floor(i / cols) * cell + cell / 2;
    }
  };
  const paintDot = (i, colours) => {
    const x = xs[i], y = ys[i], h = size / 2 + 1;
    dctx.clearRect(x - h, y - h, 2 * h, 2 * h);
    dctx.fillStyle = colours[states[i]];
    if (round) { dctx.beginPath(); dctx.arc(x, y, size / 2, 0, 2 * Math.PI); dctx.fill(); }
    else dctx.fillRect(x - size / 2, y - size / 2, size, size);
  };
  const paintAll = () => {
    const colours = model.get('colours');
    dctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    dctx.clearRect(0, 0, W, H);
    for (let i = 0; i < tr.clients; i++) paintDot(i, colours);
  };

  // move to tick t (incrementally when it is the next one)
  const seek = (t) => {
    t = Math.max(0, Math.min(tr.ticks - 1, t));
    if (t === tick + 1) {
      applyTicks(tr, states, t, t);
      const colours = model.get('colours');
      for (let k = tr.offsets[t]; k < tr.offsets[t + 1]; k++) paintDot(tr.who[k], colours);
    } else if (t !== tick) { statesAt(tr, t, states); paintAll(); }
    tick = t;
    const counts = [0, 0, 0, 0, 0, 0];
    sending = [];
    for (let i = 0; i < states.length; i++) {
      counts[states[i]] += 1;
      if (states[i] === 1) sending.push(i);
    }
    const text = momentText(tr, t, counts, model.get('templates'), model.get('lang'),
                            model.get('breaker_labels'), model.get('kind'));
    scrub.value = String(t);
    scrub.setAttribute('aria-valuetext', text);
    clock.textContent = model.get('clock_format').replace('{time}', fmtTime(t));
    line.textContent = text;
    root.dataset.tick = String(t);
    root.dataset.counts = counts.join(',');    // what the frame shows, for tests and tools
    mark();
  };

  // the same moment marked on the figure beside the player (Player.mark_on): a layer over
  // its image, moved here, so the kernel does nothing per frame
  const overlays = new Map();                 // the image -> its layer
  const layer = (img, n) => {
    let o = overlays.get(img);
    if (o && o.isConnected && o.parentElement === img.parentElement && o.children.length === 2 * n)
      return o;
    if (o) o.remove();
    const host = img.parentElement;
    if (getComputedStyle(host).position === 'static') host.style.position = 'relative';
    o = document.createElement('div');
    o.className = 'retrylab-player-mark';
    o.setAttribute('aria-hidden', 'true');
    Object.assign(o.style, { position: 'absolute', pointerEvents: 'none' });
    for (let i = 0; i < n; i++) {
      const band = document.createElement('div'); band.className = 'retrylab-player-mark-band';
      Object.assign(band.style, { position: 'absolute', opacity: '0.2',
                                  background: model.get('colours')[1] });
      const bar = document.createElement('div'); bar.className = 'retrylab-player-mark-line';
      Object.assign(bar.style, { position: 'absolute', width: '2px', marginLeft: '-1px',
                                 background: model.get('ink') });
      o.append(band, bar);
    }
    img.after(o);
    overlays.set(img, o);
    return o;
  };
  const mark = () => {
    const m = model.get('marks');
    for (const [img, o] of overlays) if (!img.isConnected) { o.remove(); overlays.delete(img); }
    if (!m || !m.target || !tr || tick < 0) return;
    const ms = tick * tr.tickMs;
    const spans = markSpans(m, ms);
    let shown = 0;
    for (const img of document.querySelectorAll(`img.${m.target}`)) {
      const o = layer(img, spans.length);
      const w = img.offsetWidth, h = img.offsetHeight;
      o.style.display = w && h ? 'block' : 'none';
      Object.assign(o.style, { left: `${img.offsetLeft}px`, top: `${img.offsetTop}px`,
                               width: `${w}px`, height: `${h}px` });
      spans.forEach((s, i) => {
        const ax = m.axes[i], band = o.children[2 * i], bar = o.children[2 * i + 1];
        band.style.display = bar.style.display = s ? 'block' : 'none';
        if (!s) return;
        const top = `${ax.top * 100}%`, height = `${(ax.bottom - ax.top) * 100}%`;
        Object.assign(bar.style, { left: `${s.line * 100}%`, top, height });
        Object.assign(band.style, { left: `${s.lo * 100}%`, width: `${(s.hi - s.lo) * 100}%`,
                                    top, height, display: s.hi > s.lo ? 'block' : 'none' });
      });
      o.dataset.tick = String(tick);
      o.dataset.ms = String(ms);
      o.dataset.target = m.target;
      shown += 1;
    }
    root.dataset.marked = String(shown);      // how many images show the moment, on
    root.dataset.target = m.target;           // layers of this class name
  };
  const fmtTime = (t) => {
    const ms = t * tr.tickMs;
    const lang = model.get('lang') === 'tr' ? 'tr-TR' : 'en-US';
    return ms >= 2000 ? `${(ms / 1000).toLocaleString(lang, { minimumFractionDigits: 1,
      maximumFractionDigits: 1, useGrouping: false })} s` : `${ms} ms`;
  };
  const report = () => {   // the tick, and the trace it is a moment of
    if (model.get('tick') !== tick) {
      model.set({ tick, tick_generation: model.get('generation') }); model.save_changes();
    }
  };

  let drawMs = 0;
  const draw = (frac) => {
    const began = performance.now();
    const reduced = reduce();
    const colours = model.get('colours');
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.fillStyle = model.get('paper');
    ctx.fillRect(0, 0, W * dpr, H * dpr);
    ctx.drawImage(dots, 0, 0);
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    const sx = 610, sy = 60, sw = 110, sh = 200;           // the server
    // the requests of this tick, on their way to the server
    const p = reduced ? 0.5 : frac;
    const r = Math.max(1.5, Math.min(4, size / 2));
    ctx.fillStyle = colours[1];
    ctx.beginPath();
    for (const i of sending) {
      const x = xs[i] + (sx - xs[i]) * p, y = ys[i] + (sy + sh / 2 - ys[i]) * p;
      ctx.moveTo(x + r, y); ctx.arc(x, y, r, 0, 2 * Math.PI);
    }
    ctx.fill();
    // the server: its box, up or down, and its load meter against the capacity line
    const up = tr.up[tick] === 1;
    const l = L();
    ctx.lineWidth = 3;
    ctx.strokeStyle = up ? model.get('server_up') : model.get('server_down');
    ctx.fillStyle = up ? model.get('paper') : model.get('outage');
    ctx.fillRect(sx, sy, sw, sh); ctx.strokeRect(sx, sy, sw, sh);
    const load = meterAt(tr, tick), cap = tr.capacity[tick];
    const mh = (v) => sh * Math.min(1, v / top);
    ctx.fillStyle = colours[1];                 // the requests, in the sending colour
    ctx.fillRect(sx + 30, sy + sh - mh(load), sw - 60, mh(load));
    ctx.strokeStyle = model.get('ink'); ctx.lineWidth = 2; ctx.setLineDash([6, 4]);
    ctx.beginPath(); ctx.moveTo(sx - 6, sy + sh - mh(cap));
    ctx.lineTo(sx + sw + 6, sy + sh - mh(cap));
    ctx.stroke(); ctx.setLineDash([]);
    ctx.fillStyle = model.get('ink'); ctx.font = '14px sans-serif'; ctx.textAlign = 'center';
    ctx.fillText(up ? l.server_up : l.server_down, sx + sw / 2, sy - 24);
    ctx.fillText(`${load} / ${cap}`, sx + sw / 2, sy - 6);
    ctx.fillText(l.capacity_line, sx + sw / 2, sy + sh + 18);
    const b = tr.breaker[tick];
    if (b !== 255) {
      ctx.fillStyle = model.get('breaker_colours')[b];
      ctx.beginPath(); ctx.arc(540, 40, 16, 0, 2 * Math.PI); ctx.fill();
      ctx.fillStyle = model.get('ink');
      ctx.fillText(model.get('breaker_labels')[b], 540, 76);
    }
    frames += 1;
    drawMs += ((performance.now() - began) - drawMs) / Math.min(frames, 50);
    root.dataset.frames = String(frames);
    root.dataset.drawMs = drawMs.toFixed(2);   // the mean cost of a frame, recent frames
  };

  const frame = (now) => {
    raf = 0;
    if (!playing) return;
    if (last !== null) pos += (now - last) / 1000 * Number(speed.value);
    last = now;
    const t = Math.floor(pos);
    if (t >= tr.ticks - 1) { seek(tr.ticks - 1); stop(); draw(0.5); return; }
    if (t !== tick) seek(t);
    draw(pos - t);
    raf = requestAnimationFrame(frame);
  };
  const start = () => {
    if (tick >= tr.ticks - 1) seek(0);
    playing = true; pos = tick; last = null; showPlaying();
    if (!raf) raf = requestAnimationFrame(frame);
  };
  const halt = () => {
    playing = false; showPlaying();
    if (raf) { cancelAnimationFrame(raf); raf = 0; }
  };
  const stop = () => { halt(); report(); };     // Python hears where a pause left the view
  const goto = (t) => { if (playing) halt(); seek(t); draw(0.5); report(); };

  play.addEventListener('click', () => { if (playing) { stop(); draw(0.5); } else start(); });
  back.addEventListener('click', () => goto(tick - 1));
  fwd.addEventListener('click', () => goto(tick + 1));
  scrub.addEventListener('input', () => goto(Number(scrub.value)));
  root.addEventListener('keydown', (e) => {
    const tag = e.target.tagName;
    if (IGNORE.has(e.key)) e.stopPropagation();   // JupyterLab's command-mode shortcuts
    if (tag === 'SELECT' || (tag === 'INPUT' && e.key !== ' ')) return;  // native keys
    if (e.key === ' ') { e.preventDefault(); if (playing) { stop(); draw(0.5); } else start(); }
    else if (e.key === 'ArrowRight' || e.key === 'ArrowUp') { e.preventDefault(); goto(tick + 1); }
    else if (e.key === 'ArrowLeft' || e.key === 'ArrowDown') { e.preventDefault(); goto(tick - 1); }
    else if (e.key === 'Home') { e.preventDefault(); goto(0); }
    else if (e.key === 'End') { e.preventDefault(); goto(tr.ticks - 1); }
  });
  root.addEventListener('keyup', (e) => { if (e.key === ' ') e.preventDefault(); });

  model.on('change:labels', labelAll);
  model.on('change:speed', () => { speed.value = String(model.get('speed')); });
  model.on('change:title', labelAll);
  model.on('change:generation', () => {
    const was = playing;
    if (playing) halt();                  // the old trace's tick means nothing now
    // from the tick the kernel set with the trace (its start, or the moment kept): read
    // from `start`, as the kernel sends `tick` only when it changed, and the page's model
    // may hold a tick of its own the kernel has not met yet
    load(); tick = -1; seek(model.get('start')); draw(0.5); report();
    if (was && !reduce()) start();        // a changed policy plays on from there
  });
  model.on('change:marks', () => { for (const o of overlays.values()) o.remove();
    overlays.clear(); mark(); });
  model.on('change:tick', () => {
    const t = model.get('tick');
    if (!playing && t !== tick) { seek(t); draw(0.5); }
  });
  load(); labelAll(); tick = -1; seek(model.get('tick')); draw(0.5);
  return () => { if (raf) cancelAnimationFrame(raf);
    for (const o of overlays.values()) o.remove(); };
}
export default { render };
"""

_CSS = """
.retrylab-player-root { display: flex; flex-direction: column; gap: 6px; max-width: 780px;
                        font-size: 14px; color: var(--jp-ui-font-color1, #000); }
.retrylab-player-root:focus-visible { outline: 2px solid var(--jp-brand-color1, BLUE);
                                      outline-offset: 2px; }
.retrylab-player-canvas { border: 1px solid #ccc; background: #fff; }
.retrylab-player-bar { display: flex; align-items: center; gap: 8px; }
.retrylab-player-bar button { min-width: 36px; height: 30px; cursor: pointer; display: inline-flex;
                             align-items: center; justify-content: center; }
.retrylab-player-scrub { flex: 1 1 auto; min-width: 0; accent-color: BLUE; }
.retrylab-player-clock { min-width: 5em; text-align: right; font-variant-numeric: tabular-nums; }
.retrylab-player-legend { display: flex; flex-wrap: wrap; gap: 4px 14px; }
.retrylab-player-key { display: inline-flex; align-items: center; gap: 5px; }
.retrylab-player-swatch { width: 12px; height: 12px; border-radius: 6px;
                          display: inline-block; border: 1px solid #0003; }
.retrylab-player-line { margin: 0; min-height: 2.6em; }
.retrylab-player button:focus-visible, .retrylab-player select:focus-visible,
.retrylab-player input:focus-visible { outline: 2px solid var(--jp-brand-color1, BLUE);
                                       outline-offset: 2px; }
"""


class Player(anywidget.AnyWidget):
    """A trace played in the browser; see the module docstring.

    ``tick`` is where the view stands (set by a pause, a step or a scrub; set it
    from Python to show a moment while paused).
    """

    _esm = traitlets.Unicode(_ESM).tag(sync=True)
    _css = traitlets.Unicode(_CSS.replace("BLUE", look("load", "sent").colour)).tag(sync=True)
    trace = traitlets.Bytes(b"").tag(sync=True)
    kind = traitlets.Unicode("fleet").tag(sync=True)
    templates = traitlets.Dict().tag(sync=True)
    generation = traitlets.Int(0).tag(sync=True)
    tick = traitlets.Int(0).tag(sync=True)
    #: the tick the trace of this ``generation`` starts at; only the kernel writes it
    start = traitlets.Int(0).tag(sync=True)
    #: the ``generation`` a ``tick`` from the page is a moment of (the page sends both)
    tick_generation = traitlets.Int(0).tag(sync=True)
    title = traitlets.Unicode("").tag(sync=True)
    lang = traitlets.Unicode("en").tag(sync=True)
    labels = traitlets.Dict().tag(sync=True)
    state_labels = traitlets.List(traitlets.Unicode()).tag(sync=True)
    breaker_labels = traitlets.List(traitlets.Unicode()).tag(sync=True)
    clock_format = traitlets.Unicode("{time}").tag(sync=True)
    colours = traitlets.List(traitlets.Unicode(), [STATE_COLOURS_PLAYER[s] for s in STATES]).tag(
        sync=True
    )
    breaker_colours = traitlets.List(
        traitlets.Unicode(), [STATE_COLOURS[s] for s in BREAKER_STATES]
    ).tag(sync=True)
    server_up = traitlets.Unicode(INK).tag(sync=True)
    ink = traitlets.Unicode(INK).tag(sync=True)
    paper = traitlets.Unicode(GROUND["paper"]).tag(sync=True)
    outage = traitlets.Unicode(GROUND["outage"]).tag(sync=True)
    server_down = traitlets.Unicode(look("mark", "alarm").colour).tag(sync=True)
    speeds = traitlets.List(traitlets.Int(), list(SPEEDS)).tag(sync=True)
    #: the speed the list starts at, ticks per second (one of ``speeds``)
    speed = traitlets.Int(10).tag(sync=True)
    #: the figure the page marks the current moment on (:meth:`mark_on`): the CSS class
    #: of its image, the meter's window to shade (ms, 0: none) and its axes
    #: (:func:`figure_axes`); empty: no figure
    marks = traitlets.Dict().tag(sync=True)

    def __init__(self, trace: Trace, title: str = "", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.lang = current()
        self.title = title
        self.labels = {
            "play": pgettext("player", "play"),
            "pause": pgettext("player", "pause"),
            "back": pgettext("player", "step back one tick"),
            "step": pgettext("player", "step one tick"),
            "time": pgettext("player", "time"),
            "speed": pgettext("player", "speed"),
            "per_second": pgettext("player", "{n} ticks/s"),
            "server_up": pgettext("player", "server up"),
            "server_down": pgettext("player", "server DOWN"),
            "capacity_line": pgettext("player", "- - capacity"),
        }
        self.breaker_labels = [_breaker_name(i) for i in range(len(BREAKER_STATES))]
        self.templates = templates()
        self._marked: tuple[str, Callable[[], Iterable[Axes]], float, bool] | None = None
        self.show_trace(trace)

    @property
    def ticks(self) -> int:
        """How many ticks the trace being played has."""
        return self._trace.ticks

    def set_state(self, sync_data: dict[str, Any]) -> None:
        """The page's state, less a ``tick`` it sent for an earlier trace: a scrub the
        kernel meets after a new trace (it queued behind a busy kernel) is a moment of
        the old run, not of this one."""
        if (
            "tick" in sync_data
            and sync_data.get("tick_generation", self.tick_generation) != self.generation
        ):
            sync_data = {k: v for k, v in sync_data.items() if k != "tick"}
        super().set_state(sync_data)

    @property
    def current(self) -> Trace:
        """The trace being played."""
        return self._trace

    def show_trace(self, trace: Trace, at: int = 0) -> None:
        """Play ``trace`` from tick ``at`` (default its start; past its end, its last
        tick); a view that was playing plays it on."""
        if not isinstance(trace, Trace):
            raise ValueError(f"trace={trace!r} is out of range: a retrylab.sim.trace.Trace")
        self._trace = trace
        self.state_labels = _state_labels(trace.kind)
        with self.hold_sync():
            self.kind = trace.kind
            self.trace = trace.encode()
            self.tick = self.start = max(0, min(int(at), trace.ticks - 1))
            self._remark()
            self.generation += 1

    def mark_on(
        self,
        image: Any,
        axes_of: Callable[[], Iterable[Axes]],
        ms_per_unit: float = 1.0,
        band: bool = False,
    ) -> None:
        """Mark the moment the view stands at on a figure beside it: ``image`` (an
        ``ipywidgets.Image`` of the whole figure, an explorer's) gets a vertical line at
        the tick's time on each of ``axes_of()``'s axes (their x in units of
        ``ms_per_unit`` ms) and, with ``band``, the meter's window holding it shaded
        (the herd's bucket).

        The page draws the mark over the image as the view moves (playing, stepping,
        scrubbing): the kernel does nothing per frame. ``axes_of`` is asked again at
        every :meth:`show_trace` (an explorer's x range follows its setting)."""
        token = f"retrylab-marked-{self.model_id}"
        image.add_class(token)
        self._marked = (token, axes_of, float(ms_per_unit), bool(band))
        self._remark()

    def _remark(self) -> None:
        if self._marked is None:
            return
        token, axes_of, ms_per_unit, band = self._marked
        trace = self._trace
        self.marks = {
            "target": token,
            "band_ms": trace.window * trace.tick_ms if band else 0,
            "axes": figure_axes(axes_of(), ms_per_unit),
        }

    def mark_spans(self, tick: int) -> list[dict[str, float] | None]:
        """Where the page marks ``tick`` on the figure (:func:`mark_spans`)."""
        return mark_spans(self.marks, tick * self._trace.tick_ms)

    def __repr__(self) -> str:
        """The plain-text view: what is played, with no memory address (a notebook built
        again changes only where the run does), as code writes it (no English words in a
        Turkish notebook's output)."""
        trace = self._trace
        return (
            f"Player(kind={trace.kind!r}, ticks={trace.ticks}, tick_ms={trace.tick_ms},"
            f" title={self.title!r})"
        )

    def _repr_mimebundle_(self, **kwargs: Any) -> tuple[dict[Any, Any], dict[Any, Any]] | None:
        """The widget's view, and a PNG of the run where widgets do not run."""
        bundle = super()._repr_mimebundle_(**kwargs)
        if bundle is None:
            return None
        data, metadata = bundle
        png = base64.b64encode(still(self._trace, self.title)).decode()
        return {**data, "image/png": png}, metadata


def linked_player(
    controls: Mapping[str, Any],
    trace_for: Callable[..., Trace],
    title: str = "",
    names: Iterable[str] | None = None,
    settings: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
    keep_moment: bool = False,
) -> Player:
    """A player whose trace follows ``controls`` (an explorer's ``controls``): whenever
    one's value changes, ``trace_for(**values)`` is played from the start, or with
    ``keep_moment`` from the tick it stood at (values as the
    code names them, :func:`~retrylab.viz.controls.value_of`). A setting ``trace_for``
    refuses (ValueError) leaves the last trace playing. ``names``: only these controls
    replay it (default: all), e.g. not a control the player itself moves. ``settings``
    maps the controls' values to the ones computed (an explorer's
    :func:`explorer_settings`: a base above the cap drawn as the cap)."""

    def values() -> dict[str, Any]:
        shown = {name: value_of(w) for name, w in controls.items()}
        return shown if settings is None else settings(shown)

    player = Player(trace_for(**values()), title=title)

    def moved(_change: Any) -> None:
        try:
            trace = trace_for(**values())
        except ValueError:  # a setting the explorer refuses (it says why): keep the last
            return
        player.show_trace(trace, at=player.tick if keep_moment else 0)

    for name, w in controls.items():
        if names is None or name in names:
            w.observe(moved, "value")
    return player


def explorer_settings(explorer: Any) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """The values ``explorer`` computes for its controls' values (its ``effective``): a
    player following it plays what its figure draws."""

    def settings(shown: dict[str, Any]) -> dict[str, Any]:
        return dict(explorer.effective(shown, explorer.controls, explorer.panel.defaults))

    return settings


# -- the lessons' players ----------------------------------------------------------------


def herd_player(jitter: str | None = None, explorer: Any = None) -> Player:
    """02's herd: 24 clients that failed together waking for their third retry (base
    200 ms, factor 2, cap 5000 ms, seed 20260114), with ``jitter`` (default ``"full"``)
    or ``"none"``.

    Given 02's herd explorer, the player plays its setting: its jitter panel (``jitter``
    ``None``) or its no-jitter panel (``"none"``), replays from the start when a slider
    moves, and the histograms mark the moment it stands at, its bucket shaded.

    >>> from retrylab.viz.herd import herd_explorer
    >>> ex = herd_explorer()
    >>> p = herd_player(explorer=ex)
    >>> p.marks["band_ms"], [ax["x1"] for ax in p.marks["axes"]]  # 200 ms buckets, axes to 2 s
    (200, [2000.0, 2000.0])
    >>> s = p.mark_spans(45)[0]      # 450 ms: in the 400-600 ms bucket, its left panel
    >>> s["lo"] < s["line"] < s["hi"], round((s["hi"] - s["lo"]) / (s["line"] - s["lo"]), 2)
    (True, 4.0)
    >>> ex.set(retry=3); ex.readout, p.current.peak(), p.tick  # replayed from the start
    ('peak 24 → 6 clients per 200 ms (0.25×)', 6, 0)
    """
    if explorer is None:
        kind = check_choice("jitter", "full" if jitter is None else jitter, JITTERS)
        backoff = Backoff(200, 2, 5000, jitter=kind)  # type: ignore[arg-type]
        return Player(
            herd_trace(jitter=kind != "none", backoff=backoff),
            title=_(
                "24 clients that failed together, waking for their third retry: {jitter}"
            ).format(jitter=jitter_name(kind)),
        )
    if jitter not in (None, "none"):
        raise ValueError(
            f"jitter={jitter!r} is out of range: with an explorer, None (its jitter panel) "
            "or 'none' (its no-jitter panel)"
        )
    plain = jitter == "none"

    def trace_for(
        base: int, factor: float, cap: int, jitter: str, clients: int, retry: int, width: int
    ) -> Trace:
        backoff = Backoff(base, factor, cap, jitter=jitter)  # type: ignore[arg-type]
        return herd_trace(not plain, backoff, clients, retry, width=width)

    title = (
        _("The herd explorer's setting, played: its no-jitter panel")
        if plain
        else _("The herd explorer's setting, played: its jitter panel")
    )
    player = linked_player(
        explorer.controls, trace_for, title=title, settings=explorer_settings(explorer)
    )
    player.mark_on(explorer.image, lambda: explorer.plot.axes, band=True)
    return player


def breaker_player(explorer: Any = None) -> Player:
    """04's breaker (threshold 3, cooldown 5000 ms) fed the lesson's nine events.

    Given 04's breaker explorer, the player plays the new breaker from the moment it
    stands at when its ``threshold`` or ``cooldown`` moves (the explorer's ``step``
    stays where the student put it), and a pause, a step or a scrub sets the explorer's ``step``
    to the events up to that moment: the diagram and the timeline show it too. The
    explorer's ``step`` moved by hand moves the player to that event. While it plays,
    the page marks the moment on the timeline (:meth:`Player.mark_on`).

    >>> from retrylab.viz.breaker import breaker_explorer
    >>> ex = breaker_explorer()
    >>> p = breaker_player(ex)
    >>> p.tick = 7; ex.values["step"]              # 0, 200 and 600 ms have happened
    3
    >>> ex.set(step=6); p.tick                     # the sixth event, at 6000 ms
    60
    >>> ex.set(step=0); p.tick, ex.values["step"]  # before the first event: it stays
    (0, 0)
    >>> ex.set(threshold=4); p.current.counts_at(p.ticks - 1)["blocked"]
    2
    """
    title = _("The lesson's breaker: nine requests, threshold 3, cooldown 5000 ms")
    if explorer is None:
        return Player(breaker_trace(), title=title)

    def trace_for(threshold: int, cooldown: int, **_rest: Any) -> Trace:
        return breaker_trace(BREAKER_EVENTS, CircuitBreaker(threshold, cooldown))

    player = linked_player(  # the same nine events: the new breaker at the same moment
        explorer.controls,
        trace_for,
        title=title,
        names=("threshold", "cooldown"),
        keep_moment=True,
    )
    ticks = [now // player.current.tick_ms for now, _ok in BREAKER_EVENTS]

    def tick_of(step: int) -> int:
        return ticks[step - 1] if step else 0

    def moment(change: Any) -> None:
        # step 0 (before the first event) and step 1 (the first, at 0 ms) share tick 0:
        # a tick the explorer's step already stands at leaves the step alone
        if tick_of(explorer.values["step"]) != change["new"]:
            explorer.set(step=sum(1 for t in ticks if t <= change["new"]))

    def stepped(change: Any) -> None:  # the explorer's step moved: the player follows
        player.tick = tick_of(int(change["new"]))

    player.observe(moment, "tick")
    explorer.controls["step"].observe(stepped, "value")
    # while it plays (the kernel hears nothing then), the page marks the tick on the timeline
    player.mark_on(explorer.image, lambda: [explorer.plot.timeline])
    return player


def _storm_trace(**values: Any) -> Trace:
    from .fleet import StormExplorer

    return fleet_trace(StormExplorer.compute(**values).scale.simulated)[0]


def storm_player(explorer: Any = None) -> Player:
    """06's storm at the storm explorer's scale (6000 clients, 100 ms steps); given
    that explorer, the player follows its sliders (budget, breaker, jitter...),
    replaying from the start, and its timeline marks the moment the player stands at."""
    from .fleet import StormExplorer

    title = _("The retry storm, one dot per client (1/10 scale)")
    if explorer is None:
        return Player(_storm_trace(**StormExplorer.default_values()), title=title, speed=20)

    def trace_for(**values: Any) -> Trace:  # the explorer's own run, simulated once
        return fleet_trace(explorer.result_for(values).scale.simulated)[0]

    player = linked_player(
        explorer.controls, trace_for, title=title, settings=explorer_settings(explorer)
    )
    player.speed = 20  # 601 ticks: half a minute
    plot = explorer.plot  # its timeline (x in seconds) and the clients waiting under it
    player.mark_on(
        explorer.image, lambda: [a for a in (plot.ax, plot.ax_wait) if a is not None], 1000
    )
    return player
