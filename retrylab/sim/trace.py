"""A run's whole trace, tick by tick, for a player that draws it in the browser.

A :class:`Trace` says, for every tick, what each client is doing (one of
:data:`STATES`) and what the server sees: the requests arriving, those served,
its capacity and whether it is up. It is computed once, from the same
simulators as the figures and exact to their numbers:

- :func:`herd_trace`: the lesson's 24 clients that failed together, waking for
  their third retry (:func:`~retrylab.sim.herd.wakeups`, seed 20260114);
- :func:`fleet_trace`: any :class:`~retrylab.sim.fleet.Fleet` (06's herd and
  storm, with budgets and breakers), every attempt of every client recorded
  as the simulator makes it;
- :func:`breaker_trace`: 04's breaker fed the lesson's events
  (:func:`~retrylab.core.breaker.replay`), each request a dot.

A client's states are stored as changes (tick, client, new state), so the
frame at tick ``t`` is every change up to ``t`` applied in order
(:meth:`Trace.states_at`); :meth:`Trace.encode` packs it into a few kilobytes
of little-endian arrays for the browser, and :func:`decode` reads them back the
way the player's JavaScript does.

>>> t = herd_trace(jitter=True)
>>> t.clients, t.peak(), t.served_total(), t.gave_up_total()
(24, 7, 24, 0)
>>> herd_trace(jitter=False).peak()
24
"""

from __future__ import annotations

import dataclasses
import itertools
import struct
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ..core._check import check_int
from ..core.backoff import Backoff
from ..core.breaker import CircuitBreaker, replay
from ..core.constants import BREAKER_EVENTS, SEED
from ..core.rng import Mulberry32
from .fleet import Fleet, _Simulation
from .fleetresult import FleetResult
from .herd import wakeups

__all__ = [
    "BREAKER_STATES",
    "STATES",
    "Trace",
    "breaker_trace",
    "decode",
    "fleet_trace",
    "herd_trace",
]

IntArray = npt.NDArray[np.int64]
#: What a client can be doing at a tick, by code: not yet arrived, a request on its way
#: (sent this tick), waiting its backoff, served, given up (or, in 04's trace, failed),
#: refused by its breaker (nothing sent).
STATES: tuple[str, ...] = ("idle", "sending", "waiting", "served", "gave_up", "blocked")
IDLE, SENDING, WAITING, SERVED, GAVE_UP, BLOCKED = range(6)
#: The breaker's states by code in :attr:`Trace.breaker` (255: no breaker shown).
BREAKER_STATES: tuple[str, ...] = ("closed", "open", "half_open")
NO_BREAKER = 255
MAGIC = 0x31544C52  # b"RLT1", little-endian
_HEADER = struct.Struct("<10I")


@dataclass(frozen=True, eq=False)
class Trace:
    """Every client's state changes and the server's numbers, per tick.

    ``event_tick`` is sorted; a client's state at tick ``t`` is its last change
    at or before ``t`` (``idle`` before its first). ``load[t]`` requests reach
    the server in tick ``t`` and ``served[t]`` of them succeed; ``capacity[t]``
    is what the server can take in one meter window of ``window`` ticks (0
    while it is down); ``up[t]`` says whether it is up. ``breaker[t]`` is a
    breaker's state (:data:`BREAKER_STATES`) or 255 where none is shown.
    """

    kind: str
    tick_ms: int
    clients: int
    event_tick: IntArray
    event_client: IntArray
    event_state: npt.NDArray[np.uint8]
    load: IntArray
    served: IntArray
    capacity: IntArray
    up: npt.NDArray[np.bool_]
    breaker: npt.NDArray[np.uint8]
    window: int = 1

    @property
    def ticks(self) -> int:
        """How many ticks the trace has."""
        return int(self.load.size)

    def offsets(self) -> IntArray:
        """Where each tick's changes start in the event arrays (``ticks + 1`` entries)."""
        return np.searchsorted(self.event_tick, np.arange(self.ticks + 1), side="left")

    def states_at(self, tick: int) -> npt.NDArray[np.uint8]:
        """Every client's state at ``tick`` (its changes up to and including it).

        >>> t = herd_trace(jitter=False)       # all wait, then all send at 800 ms
        >>> t.states_at(0)[:2].tolist(), t.states_at(80)[:2].tolist()
        ([2, 2], [1, 1])
        """
        tick = check_int("tick", tick, low=0, high=self.ticks - 1)
        state = np.zeros(self.clients, dtype=np.uint8)
        end = int(self.offsets()[tick + 1])
        state[self.event_client[:end]] = self.event_state[:end]  # later changes win
        return state

    def counts_at(self, tick: int) -> dict[str, int]:
        """How many clients are in each state at ``tick``."""
        c = np.bincount(self.states_at(tick), minlength=len(STATES))
        return dict(zip(STATES, (int(v) for v in c), strict=True))

    def count_table(self) -> IntArray:
        """How many clients are in each state at every tick: ``(ticks, len(STATES))``.

        >>> herd_trace(jitter=False).count_table()[[0, 80, 81]].tolist()
        [[0, 0, 24, 0, 0, 0], [0, 24, 0, 0, 0, 0], [0, 0, 0, 24, 0, 0]]
        """
        e = self.event_tick.size
        order = np.lexsort((np.arange(e), self.event_client))
        prev = np.zeros(e, dtype=np.int64)
        same = np.zeros(e, dtype=bool)
        same[1:] = self.event_client[order[1:]] == self.event_client[order[:-1]]
        prev_sorted = np.zeros(e, dtype=np.int64)
        prev_sorted[1:] = self.event_state[order[:-1]]
        prev[order] = np.where(same, prev_sorted, IDLE)
        k = len(STATES)
        size = self.ticks * k
        delta = (
            np.bincount(self.event_tick * k + self.event_state, minlength=size)
            - np.bincount(self.event_tick * k + prev, minlength=size)
        ).reshape(-1, k)
        delta[0, IDLE] += self.clients
        return np.cumsum(delta, axis=0)

    def meter(self) -> IntArray:
        """The load meter at each tick: requests so far in the tick's window."""
        starts = np.arange(self.ticks) // self.window * self.window
        cum = np.concatenate([[0], np.cumsum(self.load)])
        return np.asarray(cum[1:] - cum[starts], dtype=np.int64)

    def peak(self) -> int:
        """Most requests in one meter window (one step of a fleet, a bucket of the herd)."""
        return int(self.meter().max()) if self.ticks else 0

    def served_total(self) -> int:
        """Clients served by the end."""
        return self.counts_at(self.ticks - 1)["served"]

    def gave_up_total(self) -> int:
        """Clients that gave up (or failed) or were refused by a breaker, by the end."""
        c = self.counts_at(self.ticks - 1)
        return c["gave_up"] + c["blocked"]

    def encode(self) -> bytes:
        """The trace as little-endian arrays, for the browser (see :func:`decode`).

        A header of ten uint32 (magic, version, clients, ticks, events, tick_ms,
        window, client width in bytes, 0, 0); uint32 arrays: the tick offsets
        (ticks + 1), load, served, capacity (ticks each); the events' clients (uint16
        or uint32, padded to 4 bytes); uint8 arrays: the events' states, up, breaker.

        >>> t = herd_trace(jitter=True)
        >>> len(t.encode()) < 3000, decode(t.encode()).peak()
        (True, 7)
        """
        wide = self.clients > 0xFFFF
        head = _HEADER.pack(
            MAGIC,
            1,
            self.clients,
            self.ticks,
            self.event_tick.size,
            self.tick_ms,
            self.window,
            4 if wide else 2,
            0,
            0,
        )
        u32 = [
            np.asarray(a, dtype="<u4").tobytes()
            for a in (self.offsets(), self.load, self.served, self.capacity)
        ]
        who = np.asarray(self.event_client, dtype="<u4" if wide else "<u2").tobytes()
        who += b"\0" * (-len(who) % 4)
        tail = [
            np.asarray(a, dtype=np.uint8).tobytes()
            for a in (self.event_state, self.up, self.breaker)
        ]
        return b"".join([head, *u32, who, *tail])


def decode(data: bytes, kind: str = "") -> Trace:
    """A trace from :meth:`Trace.encode`'s bytes, read as the player's JavaScript reads them.

    ValueError for bytes that are not a trace.
    """
    if len(data) < _HEADER.size:
        raise ValueError(
            f"data is out of range: {len(data)} bytes, a trace has at least {_HEADER.size}"
        )
    magic, version, clients, ticks, events, tick_ms, window, width, _a, _b = _HEADER.unpack_from(
        data
    )
    if magic != MAGIC or version != 1 or width not in (2, 4):
        raise ValueError("data is out of range: not a retrylab trace (version 1)")
    pos = _HEADER.size

    def take(dtype: str, n: int) -> npt.NDArray[np.int64]:
        nonlocal pos
        a = np.frombuffer(data, dtype=dtype, count=n, offset=pos)
        pos += a.nbytes
        return a.astype(np.int64)

    offsets = take("<u4", ticks + 1)
    load, served, capacity = (take("<u4", ticks) for _ in range(3))
    who = take("<u4" if width == 4 else "<u2", events)
    pos += -pos % 4
    state = take("u1", events).astype(np.uint8)
    up = take("u1", ticks).astype(bool)
    breaker = take("u1", ticks).astype(np.uint8)
    tick = np.repeat(np.arange(ticks, dtype=np.int64), np.diff(offsets))
    return Trace(
        kind, tick_ms, clients, tick, who, state, load, served, capacity, up, breaker, window
    )


def _sorted_trace(
    kind: str,
    tick_ms: int,
    clients: int,
    changes: Iterable[IntArray],
    load: IntArray,
    served: IntArray,
    capacity: IntArray,
    up: npt.NDArray[np.bool_],
    breaker: npt.NDArray[np.uint8] | None = None,
    window: int = 1,
) -> Trace:
    """Build a trace from blocks of (tick, client, state) rows, sorted stably by tick:
    within a tick, a later block's change wins."""
    rows = [np.asarray(c, dtype=np.int64).reshape(-1, 3) for c in changes]
    allrows = np.concatenate(rows) if rows else np.zeros((0, 3), dtype=np.int64)
    order = np.argsort(allrows[:, 0], kind="stable")
    allrows = allrows[order]
    ticks = int(load.size)
    return Trace(
        kind,
        tick_ms,
        clients,
        allrows[:, 0],
        allrows[:, 1],
        allrows[:, 2].astype(np.uint8),
        load,
        served,
        capacity,
        up,
        np.full(ticks, NO_BREAKER, dtype=np.uint8) if breaker is None else breaker,
        window,
    )


# -- the herd (lesson 02) ---------------------------------------------------------------


def herd_trace(
    jitter: bool = True,
    backoff: Backoff | None = None,
    clients: int = 24,
    retry: int = 2,
    seed: int = SEED,
    tick_ms: int = 10,
    width: int = 200,
) -> Trace:
    """The lesson's herd as time: ``clients`` fail together at 0 ms and wake for retry
    ``retry`` (from 0; the default is the third) as :func:`~retrylab.sim.herd.wakeups`
    draws them, with the backoff's jitter or without (``jitter=False``).

    Tick 0 (0 ms): every client has just failed and waits its backoff. A client
    waking at ``w`` ms sends in the tick holding ``w`` and is served from the next
    (the lesson counts wake-ups, it turns nobody away). The meter counts requests
    per ``width`` ms bucket from 0 ms, as the histogram does, so :meth:`Trace.peak`
    is ``herd_data``'s peak; the capacity line is the even spread (the clients
    shared alike by the buckets under the ceiling).

    >>> int(herd_trace(jitter=False).meter()[80]), herd_trace(jitter=True).load[:3].tolist()
    (24, [0, 0, 0])
    """
    backoff = Backoff(200, 2, 5000, jitter="full") if backoff is None else backoff
    tick_ms = check_int("tick_ms", tick_ms, low=1, high=10_000)
    width = check_int("width", width, low=tick_ms, high=86_400_000)
    if width % tick_ms:
        raise ValueError(f"width={width} is out of range: a multiple of tick_ms={tick_ms}")
    retry = check_int("retry", retry, low=0, high=9_999)
    if jitter:
        wake = wakeups(backoff, clients, retry + 1, Mulberry32(seed))
    else:
        wake = wakeups(dataclasses.replace(backoff, jitter="none"), clients, retry + 1)
    ceiling = backoff.ceiling(retry)
    window = width // tick_ms
    send = wake // tick_ms
    buckets = -(-(max(int(wake.max(initial=0)), ceiling) + 1) // width)
    ticks = max(buckets * window, int(send.max(initial=0)) + 2)
    who = np.arange(clients, dtype=np.int64)
    changes = [
        np.column_stack([np.zeros(clients, dtype=np.int64), who, np.full(clients, WAITING)]),
        np.column_stack([send, who, np.full(clients, SENDING)]),
        np.column_stack([send + 1, who, np.full(clients, SERVED)]),
    ]
    load = np.bincount(send, minlength=ticks).astype(np.int64)
    even = -(-clients // max(1, -(-ceiling // width)))
    return _sorted_trace(
        "herd",
        tick_ms,
        clients,
        changes,
        load,
        load.copy(),
        np.full(ticks, even, dtype=np.int64),
        np.ones(ticks, dtype=bool),
        window=window,
    )


# -- a fleet (lesson 06) ----------------------------------------------------------------


class _Recording(_Simulation):
    """The fleet's simulation, recording every client's changes as it makes them."""

    def __init__(self, fleet: Fleet) -> None:
        super().__init__(fleet)
        self.changes: list[IntArray] = []

    def _rows(self, tick: int | IntArray, who: IntArray, state: int | IntArray) -> None:
        n = who.size
        if n:
            self.changes.append(
                np.column_stack(
                    [
                        np.broadcast_to(np.asarray(tick, dtype=np.int64), (n,)),
                        who,
                        np.broadcast_to(np.asarray(state, dtype=np.int64), (n,)),
                    ]
                )
            )

    def _quiet(self, start: int, end: int, lo: int, hi: int) -> None:
        super()._quiet(start, end, lo, hi)
        who = np.arange(lo, hi, dtype=np.int64)
        self._rows(self.arrive_step[lo:hi], who, SENDING)
        self._rows(self.arrive_step[lo:hi] + 1, who, SERVED)

    def _step(self, t: int, now: int, due: IntArray, cap: int, all_fail: bool) -> int:
        before = self.attempts[due].copy()
        done = super()._step(t, now, due, cap, all_fail)
        sent = self.attempts[due] > before
        self._rows(t, due[~sent], BLOCKED)  # refused by its breaker: nothing sent
        went = due[sent]
        self._rows(t, went, SENDING)
        reason = self.reason[went]
        after = np.where(reason == 0, WAITING, np.where(reason == 1, SERVED, GAVE_UP))
        self._rows(t + 1, went, after)
        return done


def fleet_trace(fleet: Fleet) -> tuple[Trace, FleetResult]:
    """Run ``fleet`` once, recording every client; the trace and the simulator's result.

    A client is idle until it arrives, sending in each step it sends an attempt,
    then waiting, served or given up from the next step (blocked: refused by its
    breaker in that step). The server's numbers are the result's own per-step
    columns (``offered``, ``successes``, ``capacity``), and one tick more after the
    last step, where its answers arrive.

    >>> from retrylab.sim.fleet import outage_fleet
    >>> trace, result = fleet_trace(outage_fleet("full"))
    >>> trace.served_total() == result.served, trace.peak() == int(result.steps["offered"].max())
    (True, True)
    """
    sim = _Recording(fleet)
    result = sim.run()
    s = result.steps
    lo, hi = fleet.outage if fleet.outage is not None else (0, 0)
    # one tick past the last step: the answers to that step's requests
    now = np.append(s["time_ms"].to_numpy(dtype=np.int64), fleet.duration_ms)
    up = ~((now >= lo) & (now < hi))

    def column(name: str, last: int = 0) -> IntArray:
        return np.append(s[name].to_numpy(dtype=np.int64), last)

    capacity = column("capacity", fleet.capacity if bool(up[-1]) else 0)
    trace = _sorted_trace(
        "fleet",
        fleet.step_ms,
        fleet.clients,
        sim.changes,
        column("offered"),
        column("successes"),
        capacity,
        up,
    )
    return trace, result


# -- the breaker (lesson 04) ------------------------------------------------------------


def breaker_trace(
    events: Iterable[tuple[int, bool]] = BREAKER_EVENTS,
    breaker: CircuitBreaker | None = None,
    tick_ms: int = 100,
) -> Trace:
    """04's breaker fed ``events`` (``(ms, success)``), one dot per request, on a clock of
    ``tick_ms`` ticks; :attr:`Trace.breaker` is the breaker's state after each tick.

    A request is idle before its time; at its tick it is sending (the breaker
    allowed it) or blocked (refused); from the next tick it is served or failed
    (``gave_up``). The server is up at a tick where a request succeeded.

    >>> t = breaker_trace()
    >>> t.counts_at(t.ticks - 1)
    {'idle': 0, 'sending': 0, 'waiting': 0, 'served': 2, 'gave_up': 4, 'blocked': 3}
    >>> [BREAKER_STATES[b] for b in t.breaker[[5, 7, 60, 61, 115, 117]].tolist()]
    ['closed', 'open', 'half_open', 'open', 'half_open', 'closed']
    """
    events = list(events)
    tick_ms = check_int("tick_ms", tick_ms, low=1, high=86_400_000)
    rows = replay(events, CircuitBreaker(3, 5000) if breaker is None else breaker)
    at = [now // tick_ms for now, _ok in events]
    if any(b < a for a, b in itertools.pairwise(at)):
        raise ValueError("events is out of range: their times must not go backwards")
    ticks = (at[-1] if at else 0) + 2
    n = len(rows)
    changes: list[IntArray] = []
    load = np.zeros(ticks, dtype=np.int64)
    served = np.zeros(ticks, dtype=np.int64)
    up = np.zeros(ticks, dtype=bool)
    up_now = True
    state = np.zeros(ticks, dtype=np.uint8)
    code = {name: i for i, name in enumerate(BREAKER_STATES)}
    current = code["closed"]
    nxt = 0
    for i, (row, t) in enumerate(zip(rows, at, strict=True)):
        state[nxt:t] = current  # between events: as the last left it
        if row.allowed:
            changes.append(
                np.array([[t, i, SENDING], [t + 1, i, SERVED if row.success else GAVE_UP]])
            )
            load[t] += 1
            served[t] += int(bool(row.success))
            up_now = bool(row.success)
        else:
            changes.append(np.array([[t, i, BLOCKED]]))
        up[t:] = up_now
        state[t] = code[row.state_before.value]  # the state the request met
        current = code[row.state_after.value]
        nxt = t + 1
    state[nxt:] = current
    capacity = np.ones(ticks, dtype=np.int64)
    return _sorted_trace("breaker", tick_ms, n, changes, load, served, capacity, up, state)
