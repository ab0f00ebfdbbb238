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

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TypeVar

from ._check import check_int
from ._compat import StrEnum

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
    button does nothing until ``retry_in`` ms have passed.
    """

    def __init__(self, name: str, retry_in: int, state: State) -> None:
        self.name = name
        self.retry_in = retry_in
        self.state = state
        where = f" for {name!r}" if name else ""
        super().__init__(f"circuit open{where}: no request sent; a trial is allowed "
                         f"in {retry_in} ms")


@dataclass(frozen=True)
class Transition:
    """One change of state: at ``at`` ms, ``source`` -> ``target``, and why."""

    at: int
    source: State
    target: State
    reason: str


class CircuitBreaker:
    """A breaker on a caller-supplied clock.

    - ``threshold``: failures in a row that open it, >= 1.
    - ``cooldown``: ms the breaker stays open before a trial, >= 0.
    - ``half_open_max_calls``: trial calls let through while half-open, >= 1.
      The lesson's JavaScript lets *every* call through while half-open (its
      ``izinVer`` returns true until a result is reported); with concurrent
      callers that is a flood, not a trial, so the default here is 1.

    The lesson's trace:

    >>> cb = CircuitBreaker(threshold=3, cooldown=5000)
    >>> [cb.record(False, t) for t in (0, 200, 600)][-1]
    <State.OPEN: 'open'>
    >>> cb.allow(900), cb.allow(6000), cb.state
    (False, True, <State.HALF_OPEN: 'half_open'>)
    """

    def __init__(self, threshold: int = 3, cooldown: int = 5000,
                 half_open_max_calls: int = 1, name: str = "") -> None:
        self.threshold = check_int("threshold", threshold, low=1, high=1_000_000)
        self.cooldown = check_int("cooldown", cooldown, low=0, high=86_400_000)
        self.half_open_max_calls = check_int("half_open_max_calls", half_open_max_calls,
                                             low=1, high=1_000_000)
        self.name = name
        self._state = State.CLOSED
        self._failures = 0
        self._opened_at = 0
        self._trials = 0
        self.transitions: list[Transition] = []

    # -- reading --------------------------------------------------------------

    @property
    def state(self) -> State:
        """The state as of the last ``allow`` or ``record``."""
        return self._state

    @property
    def failures(self) -> int:
        """Failures in a row counted while closed."""
        return self._failures

    def retry_in(self, now: int) -> int:
        """ms until a trial is allowed (0 unless open)."""
        if self._state is not State.OPEN:
            return 0
        return max(0, self._opened_at + self.cooldown - now)

    def transition_counts(self) -> Counter[tuple[State, State]]:
        """How often each arrow of the state diagram was taken."""
        return Counter((t.source, t.target) for t in self.transitions)

    # -- the two calls of the lesson -------------------------------------------

    def allow(self, now: int) -> bool:
        """May a request go now? Open turns half-open once the cooldown is over."""
        if self._state is State.OPEN and now - self._opened_at >= self.cooldown:
            self._move(now, State.HALF_OPEN, f"cooldown of {self.cooldown} ms over")
        if self._state is State.CLOSED:
            return True
        if self._state is State.HALF_OPEN and self._trials < self.half_open_max_calls:
            self._trials += 1
            return True
        return False

    def record(self, success: bool, now: int) -> State:
        """Report a sent request's result; returns the new state.

        A success closes the breaker and clears the count. A failure counts;
        the ``threshold``-th in a row, or any failure of a half-open trial,
        opens it and restarts the cooldown. Results that arrive while open
        (calls let through before it opened) change nothing.
        """
        if self._state is State.OPEN:
            return self._state
        if success:
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

    def call(self, fn: Callable[[], T], now: int,
             is_failure: Callable[[T], bool] = lambda _: False) -> T:
        """Run ``fn`` through the breaker; raise :class:`BreakerOpen` if refused.

        An exception from ``fn`` counts as a failure and propagates, as does a
        result for which ``is_failure`` is true (that one is returned).
        """
        if not self.allow(now):
            raise BreakerOpen(self.name, self.retry_in(now), self._state)
        try:
            result = fn()
        except Exception:
            self.record(False, now)
            raise
        self.record(not is_failure(result), now)
        return result

    def _open(self, now: int, reason: str) -> None:
        self._move(now, State.OPEN, reason)
        self._opened_at = now
        self._failures = 0

    def _move(self, now: int, target: State, reason: str) -> None:
        self.transitions.append(Transition(now, self._state, target, reason))
        self._state = target
        self._trials = 0

    def __repr__(self) -> str:
        return (f"CircuitBreaker(threshold={self.threshold}, cooldown={self.cooldown}, "
                f"state={self._state.value!r}, failures={self._failures})")


class BreakerRegistry:
    """One breaker per endpoint group, made on first use.

    With a single breaker for the whole app, one failing endpoint stops every
    screen. Per group, the measurement write path can be broken while the
    station list still reads.

    >>> reg = BreakerRegistry(threshold=1, cooldown=5000)
    >>> reg.get("POST /measurements").record(False, 0)
    <State.OPEN: 'open'>
    >>> reg.get("GET /stations").allow(10)
    True
    """

    def __init__(self, threshold: int = 3, cooldown: int = 5000,
                 half_open_max_calls: int = 1,
                 group: Callable[[str], str] = lambda endpoint: endpoint) -> None:
        CircuitBreaker(threshold, cooldown, half_open_max_calls)  # checks the arguments
        self._args = (threshold, cooldown, half_open_max_calls)
        self._group = group
        self._breakers: dict[str, CircuitBreaker] = {}

    def get(self, endpoint: str) -> CircuitBreaker:
        """The breaker guarding ``endpoint``'s group."""
        key = self._group(endpoint)
        if key not in self._breakers:
            self._breakers[key] = CircuitBreaker(*self._args, name=key)
        return self._breakers[key]

    def states(self) -> dict[str, State]:
        """Every group's current state."""
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
