"""CircuitBreaker: stop sending requests that cannot succeed.

Retrying is one request's business. When the service is down altogether, every
request makes its own attempts, keeping the user waiting and the server loaded
for nothing. A breaker sees this one level up: after ``threshold`` failures in
a row it *opens* and lets nothing through; the call fails at once, without
touching the network. After ``cooldown`` ms it turns *half-open* and lets a
trial request through: if the trial fails, it opens again and the cooldown
restarts; if it succeeds, the breaker *closes* and the count starts over.

Time is a logical clock the caller passes in (``now``, integer ms), so a trace
is exactly reproducible and tests never sleep.
"""

from __future__ import annotations

import math
import threading
from collections import Counter, deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TypeVar

import numpy as np

from ..i18n import _
from ._check import ArgumentTypeError, check_int, type_error
from ._compat import StrEnum
from ._copies import OwnLock

T = TypeVar("T")


class State(StrEnum):
    """The three states of a breaker."""

    CLOSED = "closed"
    OPEN = "open"
    HALF_OPEN = "half_open"


class BreakerOpen(Exception):
    """The breaker refused the call: no request was sent.

    Distinct from a network error on purpose: the user should read "the
    service is not answering right now, try again in N s", and a "try again"
    button does nothing until ``retry_in`` ms have passed (always > 0).
    """

    def __init__(self, name: str, retry_in: int, state: State) -> None:
        self.name = name
        self.retry_in = retry_in
        self.state = state
        if state is State.HALF_OPEN:
            text = (
                _(
                    "circuit half-open for {name}: no request sent; the trial calls are in "
                    "flight, another is allowed in {retry_in} ms at the latest"
                )
                if name
                else _(
                    "circuit half-open: no request sent; the trial calls are in flight, "
                    "another is allowed in {retry_in} ms at the latest"
                )
            )
        else:
            text = (
                _("circuit open for {name}: no request sent; a trial is allowed in {retry_in} ms")
                if name
                else _("circuit open: no request sent; a trial is allowed in {retry_in} ms")
            )
        text = text.format(name=repr(name), retry_in=retry_in)
        super().__init__(text)


@dataclass(frozen=True)
class Transition:
    """One change of state: at ``at`` ms, ``source`` -> ``target``, and why."""

    at: int
    source: State
    target: State
    reason: str


#: How many transitions a breaker keeps in ``transitions`` (the oldest are dropped).
MAX_TRANSITIONS = 10_000


def check_now(now: object) -> int:
    """The caller's clock reading as an int (ms), refusing NaN, inf, fractions and bools.

    A NaN clock would otherwise compare False with everything and leave a
    breaker open forever.

    >>> check_now(1500), check_now(1500.0)
    (1500, 1500)
    >>> check_now(float("nan"))
    Traceback (most recent call last):
    ...
    ValueError: now=nan is out of range: now must be a whole number of ms (an integer clock)
    >>> check_now("1500")
    Traceback (most recent call last):
    ...
    retrylab.ArgumentTypeError: now='1500' is out of range: now must be a whole number of
    ms (an integer clock), not a str
    """
    allowed = "a whole number of ms (an integer clock)"
    if isinstance(now, (bool, np.bool_)) or not isinstance(now, (int, float, np.integer)):
        raise type_error("now", now, allowed)
    if isinstance(now, (int, np.integer)):
        return int(now)
    if math.isfinite(now) and now.is_integer():
        return int(now)
    raise ValueError(f"now={now!r} is out of range: now must be {allowed}")


def check_success(success: object) -> bool:
    """A result as a bool; only ``True``/``False`` (or numpy's bools) are accepted.

    ``record("failed", now)`` would otherwise count as a success (a non-empty
    string is true) and close the breaker.

    >>> check_success("failed")
    Traceback (most recent call last):
    ...
    retrylab.ArgumentTypeError: success='failed' is not a bool: pass True for a success,
    False for a failure
    """
    if isinstance(success, (bool, np.bool_)):
        return bool(success)
    raise ArgumentTypeError(
        f"success={success!r} is not a bool: pass True for a success, False for a failure"
    )


class CircuitBreaker(OwnLock):
    """A breaker on a caller-supplied clock.

    - ``threshold``: failures in a row that open it, >= 1.
    - ``cooldown``: ms the breaker stays open before a trial, >= 0.
    - ``half_open_max_calls``: trial calls let through while half-open, >= 1.
      The lesson's JavaScript lets *every* call through while half-open (its
      ``izinVer`` returns true until a result is reported); with concurrent
      callers that is a flood, not a trial, so the default here is 1.
    - ``trial_timeout``: ms a trial may stay unanswered, >= 1; default the
      cooldown (at least 1). A trial admitted but never recorded (its task was
      cancelled, its thread died) would otherwise hold its slot forever and
      keep the breaker half-open and refusing. When the oldest trial's lease
      runs out, the breaker opens again as if that trial had failed, and the
      cooldown restarts: resilience4j's "maximum wait duration in half-open
      state" is the same fix.

    Invariant: ``retry_in(now) > 0`` exactly when ``allow(now)`` would refuse.

    Thread-safe: one lock guards every read and change, so threads (and
    asyncio tasks, which never interleave inside a method) can share one
    breaker; at most ``half_open_max_calls`` trials are ever in flight.
    ``copy.copy``, ``copy.deepcopy`` and pickle give an independent breaker in
    the same state (its own trials, log and lock).

    The lesson's trace:

    >>> cb = CircuitBreaker(threshold=3, cooldown=5000)
    >>> [cb.record(False, t) for t in (0, 200, 600)][-1]
    <State.OPEN: 'open'>
    >>> cb.allow(900), cb.allow(6000), cb.state
    (False, True, <State.HALF_OPEN: 'half_open'>)

    A trial that never reports back loses its lease after the cooldown:

    >>> cb.allow(6001), cb.retry_in(6001)         # the trial from 6000 is in flight
    (False, 9999)
    >>> cb.allow(11_000), cb.state                # lease over at 11000: open again
    (False, <State.OPEN: 'open'>)
    >>> cb.allow(16_000)
    True
    """

    @staticmethod
    def _new_lock() -> threading.RLock:
        # reentrant: ``call`` holds it while it asks ``allow`` and records
        return threading.RLock()

    def __init__(
        self,
        threshold: int = 3,
        cooldown: int = 5000,
        half_open_max_calls: int = 1,
        name: str = "",
        trial_timeout: int | None = None,
    ) -> None:
        self.threshold = check_int("threshold", threshold, low=1, high=1_000_000)
        self.cooldown = check_int("cooldown", cooldown, low=0, high=86_400_000)
        self.half_open_max_calls = check_int(
            "half_open_max_calls", half_open_max_calls, low=1, high=1_000_000
        )
        self.trial_timeout = (
            max(1, self.cooldown)
            if trial_timeout is None
            else check_int("trial_timeout", trial_timeout, low=1, high=86_400_000)
        )
        self.name = name
        self._state = State.CLOSED
        self._failures = 0
        self._opened_at = 0
        # the trials in flight: their tickets (one per admission) -> admission time
        self._trials: dict[int, int] = {}
        self._tickets = 0
        # reentrant: ``call`` holds it while it asks ``allow`` and records
        self._lock = threading.RLock()
        #: The last :data:`MAX_TRANSITIONS` changes of state, oldest first (a deque:
        #: a breaker that flaps for weeks keeps a bounded log).
        self.transitions: deque[Transition] = deque(maxlen=MAX_TRANSITIONS)

    # -- reading --------------------------------------------------------------

    @property
    def state(self) -> State:
        """The state as of the last ``allow`` or ``record``."""
        return self._state

    @property
    def failures(self) -> int:
        """Failures in a row counted while closed."""
        return self._failures

    @property
    def trials_in_flight(self) -> int:
        """Half-open trials admitted and not yet recorded or released."""
        return len(self._trials)

    def retry_in(self, now: int) -> int:
        """ms until ``allow`` would let a call through: 0 if it would now, else > 0.

        Open: the rest of the cooldown. Half-open with every trial slot taken:
        until the oldest trial's lease ends plus a cooldown (a result recorded
        earlier can make it sooner; the figure is the latest it can be).
        """
        now = check_now(now)
        with self._lock:
            state, opened_at = self._state, self._opened_at
            trials = list(self._trials.values())
            # what allow(now) would do first (see _advance), without doing it
            if state is State.HALF_OPEN and trials and now >= min(trials) + self.trial_timeout:
                state, opened_at, trials = State.OPEN, min(trials) + self.trial_timeout, []
            if state is State.OPEN and now - opened_at >= self.cooldown:
                state, trials = State.HALF_OPEN, []
            if state is State.CLOSED:
                return 0
            if state is State.OPEN:
                return opened_at + self.cooldown - now
            if len(trials) < self.half_open_max_calls:
                return 0
            return min(trials) + self.trial_timeout + self.cooldown - now

    def transition_counts(self) -> Counter[tuple[State, State]]:
        """How often each arrow of the state diagram was taken."""
        with self._lock:
            return Counter((t.source, t.target) for t in self.transitions)

    # -- the two calls of the lesson -------------------------------------------

    def allow(self, now: int) -> bool:
        """May a request go now? Open turns half-open once the cooldown is over.

        A True while half-open admits a trial: report it with :meth:`record`
        (or give the slot back with :meth:`release`); otherwise its lease runs
        out after ``trial_timeout`` ms.
        """
        return self._admit(check_now(now)) is not False

    def _admit(self, now: int) -> int | bool | None:
        """``allow`` with the admission's ticket: False if refused, None if admitted
        while closed (no trial), else the trial's ticket, which only its owner releases."""
        with self._lock:
            self._advance(now)
            if self._state is State.CLOSED:
                return None
            if self._state is State.HALF_OPEN and len(self._trials) < self.half_open_max_calls:
                self._tickets += 1
                self._trials[self._tickets] = now
                return self._tickets
            return False

    def record(self, success: bool, now: int) -> State:
        """Report a sent request's result; returns the new state.

        A success closes the breaker and clears the count. A failure counts;
        the ``threshold``-th in a row, or any failure of a half-open trial,
        opens it and restarts the cooldown. Results that arrive while open
        (calls let through before it opened) change nothing. ``success`` must
        be a bool. Time alone moves nothing here (``allow`` applies cooldowns and
        leases), so a late result of a trial whose lease ran out still counts.
        """
        ok = check_success(success)
        now = check_now(now)
        with self._lock:
            if self._state is State.OPEN:
                return self._state
            if ok:
                if self._state is State.HALF_OPEN:
                    self._move(now, State.CLOSED, "trial succeeded")
                self._failures = 0
                return self._state
            self._failures += 1
            if self._state is State.HALF_OPEN:
                self._open(now, "trial failed")
            elif self._failures >= self.threshold:
                self._open(now, f"{self._failures} failures in a row")
            return self._state

    def release(self, now: int) -> None:
        """Give back a trial slot without a result (the call was cancelled before it ended).

        ``now`` is the time the call was admitted (the ``now`` its ``allow``
        was given): only a trial admitted then is given back, so a call let
        through while closed, or a trial of an earlier half-open spell, never
        frees the slot of a trial in flight now. The state does not change: a
        cancellation says nothing about the service. Nothing happens unless a
        trial admitted at ``now`` is in flight.

        >>> cb = CircuitBreaker(threshold=1, cooldown=1000)
        >>> cb.allow(100), cb.record(False, 150), cb.allow(1200)   # 100: closed; 1200: the trial
        (True, <State.OPEN: 'open'>, True)
        >>> cb.release(100)              # the call from 100 was cancelled: it held no trial
        >>> cb.trials_in_flight, cb.allow(1201)
        (1, False)
        >>> cb.release(1200)
        >>> cb.trials_in_flight, cb.allow(1202)
        (0, True)
        """
        now = check_now(now)
        with self._lock:
            for ticket, admitted in self._trials.items():
                if admitted == now:
                    del self._trials[ticket]
                    return

    def _release_ticket(self, ticket: int | None) -> None:
        """Give back the trial slot of ``ticket``, if it still holds one."""
        if ticket is not None:
            with self._lock:
                self._trials.pop(ticket, None)

    def call(
        self, fn: Callable[[], T], now: int, is_failure: Callable[[T], bool] = lambda _: False
    ) -> T:
        """Run ``fn`` through the breaker; raise :class:`BreakerOpen` if refused.

        An exception from ``fn`` counts as a failure and propagates, as does a
        result for which ``is_failure`` is true (that one is returned). Any
        other exit (``CancelledError``, ``KeyboardInterrupt``, ``SystemExit``)
        releases the call's own trial slot (none if it was let through while
        closed) without a result and is re-raised: the slot is given back on
        every path, and never another call's.
        """
        now = check_now(now)
        with self._lock:
            ticket = self._admit(now)
            if ticket is False:
                raise BreakerOpen(self.name, self.retry_in(now), self._state)
        success: bool | None = None
        try:
            result = fn()
            success = not is_failure(result)
        except Exception:
            success = False
            raise
        finally:
            if success is None:
                self._release_ticket(ticket if isinstance(ticket, int) else None)
            else:
                self.record(success, now)
        return result

    def _advance(self, now: int) -> None:
        """Apply what time alone does: a lost trial's lease ends, a cooldown ends."""
        if self._state is State.HALF_OPEN and self._trials:
            expired = min(self._trials.values()) + self.trial_timeout
            if now >= expired:
                self._open(expired, f"trial not recorded within {self.trial_timeout} ms")
        if self._state is State.OPEN and now - self._opened_at >= self.cooldown:
            self._move(now, State.HALF_OPEN, f"cooldown of {self.cooldown} ms over")

    def _open(self, now: int, reason: str) -> None:
        self._move(now, State.OPEN, reason)
        self._opened_at = now
        self._failures = 0

    def _move(self, now: int, target: State, reason: str) -> None:
        self.transitions.append(Transition(now, self._state, target, reason))
        self._state = target
        self._trials = {}

    def __repr__(self) -> str:
        return (
            f"CircuitBreaker(threshold={self.threshold}, cooldown={self.cooldown}, "
            f"state={self._state.value!r}, failures={self._failures})"
        )


def each_endpoint(endpoint: str) -> str:
    """The default grouping of :class:`BreakerRegistry`: every endpoint a group of its own.

    >>> each_endpoint("GET /stations")
    'GET /stations'
    """
    return endpoint


class BreakerRegistry(OwnLock):
    """One breaker per endpoint group, made on first use.

    With a single breaker for the whole app, one failing endpoint stops every
    screen. Per group, the measurement write path can be broken while the
    station list still reads. Thread-safe: ``get`` hands out exactly one
    breaker per group, however many threads ask at once. A copy (or pickle)
    has copies of the breakers, independent of the original's.

    >>> reg = BreakerRegistry(threshold=1, cooldown=5000)
    >>> reg.get("POST /measurements").record(False, 0)
    <State.OPEN: 'open'>
    >>> reg.get("GET /stations").allow(10)
    True
    """

    def __init__(
        self,
        threshold: int = 3,
        cooldown: int = 5000,
        half_open_max_calls: int = 1,
        group: Callable[[str], str] = each_endpoint,
        trial_timeout: int | None = None,
    ) -> None:
        # checks the arguments
        CircuitBreaker(threshold, cooldown, half_open_max_calls, trial_timeout=trial_timeout)
        self._args = (threshold, cooldown, half_open_max_calls)
        self._trial_timeout = trial_timeout
        self._group = group
        self._breakers: dict[str, CircuitBreaker] = {}
        self._lock = threading.Lock()

    def get(self, endpoint: str) -> CircuitBreaker:
        """The breaker guarding ``endpoint``'s group."""
        key = self._group(endpoint)
        with self._lock:
            breaker = self._breakers.get(key)
            if breaker is None:
                breaker = CircuitBreaker(*self._args, name=key, trial_timeout=self._trial_timeout)
                self._breakers[key] = breaker
            return breaker

    def states(self) -> dict[str, State]:
        """Every group's current state."""
        with self._lock:
            return {k: b.state for k, b in self._breakers.items()}


@dataclass(frozen=True)
class TraceRow:
    """One event of a breaker trace, as the lesson prints it."""

    now: int
    allowed: bool
    state_before: State
    success: bool | None
    state_after: State


def replay(events: Iterable[tuple[int, bool]], breaker: CircuitBreaker) -> list[TraceRow]:
    """Feed ``(now, success)`` events through ``breaker`` the lesson's way.

    For each event: ask ``allow(now)``; if refused the request is not sent
    (``success`` is then None); else ``record(success, now)``. The "before"
    state is the one ``allow`` left (so a trial shows as half-open).
    """
    rows: list[TraceRow] = []
    for now, success in events:
        allowed = breaker.allow(now)
        before = breaker.state
        if not allowed:
            rows.append(TraceRow(now, False, before, None, before))
            continue
        rows.append(TraceRow(now, True, before, success, breaker.record(success, now)))
    return rows
