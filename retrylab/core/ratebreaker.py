"""RateBreaker: a circuit breaker that opens on a failure *rate*, not a run of failures.

The lesson's :class:`~retrylab.core.breaker.CircuitBreaker` opens after
``threshold`` failures *in a row*: one success in between resets it, so a
service failing 60% of the time may never trip it, while three unlucky
failures on a healthy one do. Production breakers judge a *window* of recent
calls instead.

Semantics (source: resilience4j ``CircuitBreakerConfig`` and
``CircuitBreakerStateMachine``, resilience4j.readme.io/docs/circuitbreaker;
its ``CircuitBreakerMetrics.checkIfThresholdsExceeded``. Polly's circuit
breaker, pollydocs.org ``CircuitBreakerStrategyOptions``: ``FailureRatio``
over a ``SamplingDuration`` once ``MinimumThroughput`` calls were seen, then
``BreakDuration`` open, is the same idea with a time window and a single
probe, i.e. ``window_type="time"`` and ``half_open_calls=1`` here):

- the window is the last ``window_size`` calls (``"count"``, resilience4j's
  COUNT_BASED) or the calls of the last ``window_size`` whole seconds of the
  logical clock (``"time"``, TIME_BASED: buckets of 1000 ms, the current
  one included);
- a call is *slow* when its duration is strictly greater than
  ``slow_call_duration`` ms (a slow call can also be a failure);
- ``failure rate = 100 * failures / calls`` and ``slow rate = 100 * slow /
  calls`` over the window, but only once it holds ``minimum_calls`` calls
  (for a count window, ``min(minimum_calls, window_size)``); before that the
  rates are -1 and the breaker cannot open;
- closed -> open when ``failure rate >= failure_rate_threshold`` or ``slow
  rate >= slow_call_rate_threshold`` (both ``>=``, as resilience4j);
- open refuses every call until ``now > opened_at + wait_in_open`` (strictly
  after, as resilience4j's ``Instant.isAfter``); the first call after that
  turns it half-open;
- half-open lets ``half_open_calls`` calls through and judges *them* as a
  window of their own (a count window of that size, minimum that size): when
  all have reported, the same thresholds decide open or closed;
- with ``max_wait_in_half_open > 0``, a half-open breaker that has not
  decided within that many ms goes back to open (the fix for "stuck in
  HALF_OPEN" when trial calls never report); 0 waits for ever (the default).

Time is a logical clock passed in (``now``, integer ms). Safe to share across
threads: every method takes one lock.

>>> b = RateBreaker(window_size=4, minimum_calls=4, failure_rate_threshold=50,
...                 wait_in_open=1000, half_open_calls=2)
>>> [b.record(ok, t).value for t, ok in enumerate([True, False, True, False])]
['closed', 'closed', 'closed', 'open']
>>> b.allow(1003), b.allow(1004), b.state.value     # opened at 3: open until 1003
(False, True, 'half_open')
>>> b.allow(1005), b.allow(1006)                   # 2 trial calls, then none
(True, False)
>>> b.record(True, 1010).value, b.record(True, 1020).value
('half_open', 'closed')
"""

from __future__ import annotations

import copy
import math
import threading
from collections import deque
from dataclasses import dataclass
from typing import TypeVar

from .. import i18n
from ._check import check_choice, check_int, check_number, type_error
from ._copies import OwnLock
from .breaker import MAX_TRANSITIONS, State, Transition, check_success


def _percent_g(value: float) -> str:
    """``value`` percent written as ``f"{value:g}%"`` would, in the current language."""
    text = f"{value:g}"
    return i18n.percent(float(text), len(text.split(".")[1]) if "." in text else 0)


__all__ = ["WINDOW_TYPES", "RateBreaker", "RateWindow", "check_clock"]

_T = TypeVar("_T")

#: ``"count"`` is resilience4j's COUNT_BASED, ``"time"`` its TIME_BASED.
WINDOW_TYPES: tuple[str, ...] = ("count", "time")


@dataclass
class _Bucket:
    second: int
    calls: int = 0
    failures: int = 0
    slow: int = 0


class RateWindow:
    """The calls a breaker judges: a count window or a time window of 1 s buckets.

    >>> w = RateWindow("count", size=3, minimum=3)
    >>> for failed in (True, False, True, True):
    ...     w.add(failed, slow=False, now=0)
    >>> w.calls(0), w.failure_rate(0)
    (3, 66.66666666666667)
    >>> t = RateWindow("time", size=2, minimum=1)
    >>> t.add(True, False, now=100); t.add(False, False, now=1500)
    >>> t.failure_rate(1999), t.failure_rate(2000), t.failure_rate(3000)
    (50.0, 0.0, -1.0)
    """

    def __init__(self, kind: str, size: int, minimum: int) -> None:
        self.kind = check_choice("window_type", kind, WINDOW_TYPES)
        self.size = check_int("window_size", size, low=1, high=1_000_000)
        minimum = check_int("minimum_calls", minimum, low=1, high=1_000_000)
        self.minimum = min(minimum, self.size) if kind == "count" else minimum
        self._calls: deque[tuple[bool, bool]] = deque(maxlen=self.size)
        self._buckets: deque[_Bucket] = deque()

    def __copy__(self) -> RateWindow:
        """An independent window with the same calls (a shallow copy would share them)."""
        return copy.deepcopy(self)

    def add(self, failed: bool, slow: bool, now: int) -> None:
        """Count one call's result at ``now``."""
        if self.kind == "count":
            self._calls.append((failed, slow))
            return
        second = now // 1000
        self._evict(second)
        if not self._buckets or self._buckets[-1].second != second:
            self._buckets.append(_Bucket(second))
        b = self._buckets[-1]
        b.calls += 1
        b.failures += failed
        b.slow += slow

    def _evict(self, second: int) -> None:
        while self._buckets and self._buckets[0].second <= second - self.size:
            self._buckets.popleft()

    def _totals(self, now: int) -> tuple[int, int, int]:
        if self.kind == "count":
            return (
                len(self._calls),
                sum(f for f, _ in self._calls),
                sum(s for _, s in self._calls),
            )
        self._evict(now // 1000)
        return (
            sum(b.calls for b in self._buckets),
            sum(b.failures for b in self._buckets),
            sum(b.slow for b in self._buckets),
        )

    def calls(self, now: int) -> int:
        """Calls in the window at ``now``."""
        return self._totals(now)[0]

    def failure_rate(self, now: int) -> float:
        """Percent of the window's calls that failed; -1 below the minimum."""
        calls, failures, _ = self._totals(now)
        return -1.0 if calls == 0 or calls < self.minimum else 100.0 * failures / calls

    def slow_rate(self, now: int) -> float:
        """Percent of the window's calls that were slow; -1 below the minimum."""
        calls, _, slow = self._totals(now)
        return -1.0 if calls == 0 or calls < self.minimum else 100.0 * slow / calls


def check_clock(now: _T) -> _T:
    """A logical clock reading in ms: any finite number (an int stays an int).

    >>> check_clock(1500)
    1500
    >>> check_clock(float("nan"))
    Traceback (most recent call last):
    ...
    ValueError: now=nan is out of range: now must be a finite number of ms
    """
    if isinstance(now, bool) or not isinstance(now, (int, float)):
        raise type_error("now", now, "a finite number of ms")
    if isinstance(now, float) and not math.isfinite(now):
        raise ValueError(f"now={now!r} is out of range: now must be a finite number of ms")
    return now


class RateBreaker(OwnLock):
    """A failure-rate breaker with resilience4j's settings (see the module docstring).

    Same vocabulary as :class:`~retrylab.core.breaker.CircuitBreaker`:
    ``allow(now)``, ``record(success, now, duration=0)``, ``state``,
    ``transitions``. Defaults are resilience4j's, in ms: a count window of
    100 calls, minimum 100, 50% failures, slow calls off (100% of calls slower
    than 60 s), 10 half-open calls, 60 s open. ``copy.copy``, ``copy.deepcopy``
    and pickle give an independent breaker (its own window, log and lock).
    """

    def __init__(
        self,
        window_type: str = "count",
        window_size: int = 100,
        minimum_calls: int = 100,
        failure_rate_threshold: float = 50.0,
        slow_call_rate_threshold: float = 100.0,
        slow_call_duration: int = 60_000,
        half_open_calls: int = 10,
        wait_in_open: int = 60_000,
        max_wait_in_half_open: int = 0,
        name: str = "",
    ) -> None:
        self.window_type = check_choice("window_type", window_type, WINDOW_TYPES)
        self.window_size = check_int("window_size", window_size, low=1, high=1_000_000)
        self.minimum_calls = check_int("minimum_calls", minimum_calls, low=1, high=1_000_000)
        self.failure_rate_threshold = check_number(
            "failure_rate_threshold", failure_rate_threshold, low=0, high=100, low_open=True
        )
        self.slow_call_rate_threshold = check_number(
            "slow_call_rate_threshold", slow_call_rate_threshold, low=0, high=100, low_open=True
        )
        self.slow_call_duration = check_int(
            "slow_call_duration", slow_call_duration, low=0, high=86_400_000
        )
        self.half_open_calls = check_int("half_open_calls", half_open_calls, low=1, high=1_000_000)
        self.wait_in_open = check_int("wait_in_open", wait_in_open, low=0, high=86_400_000)
        self.max_wait_in_half_open = check_int(
            "max_wait_in_half_open", max_wait_in_half_open, low=0, high=86_400_000
        )
        self.name = name
        self._lock = threading.Lock()
        self._state = State.CLOSED
        self._window = self._closed_window()
        self._since = 0
        self._permits = 0
        self._trials = 0  # half-open calls let through, not yet recorded or released
        self.not_permitted = 0  #: calls refused so far
        #: The last :data:`~retrylab.core.breaker.MAX_TRANSITIONS` changes of state.
        self.transitions: deque[Transition] = deque(maxlen=MAX_TRANSITIONS)

    def _closed_window(self) -> RateWindow:
        return RateWindow(self.window_type, self.window_size, self.minimum_calls)

    # -- reading ----------------------------------------------------------------

    @property
    def state(self) -> State:
        """The state as of the last ``allow`` or ``record``."""
        return self._state

    def failure_rate(self, now: int) -> float:
        """The current window's failure rate in percent (-1 below its minimum)."""
        now = check_clock(now)
        with self._lock:
            return self._window.failure_rate(now)

    def slow_rate(self, now: int) -> float:
        """The current window's slow-call rate in percent (-1 below its minimum)."""
        now = check_clock(now)
        with self._lock:
            return self._window.slow_rate(now)

    def retry_in(self, now: int) -> int:
        """ms until a call may go: 0 when :meth:`allow` would let one through, else > 0.

        Open: the rest of ``wait_in_open``. Half-open with every trial out: with
        ``max_wait_in_half_open``, until it gives up on them and has waited in
        open again (the latest it can be); without it nobody knows when the
        trials will report, so ``wait_in_open`` (at least 1 ms) is the hint.
        """
        now = check_clock(now)
        with self._lock:
            state, since = self._state, self._since
            if (
                state is State.HALF_OPEN
                and self.max_wait_in_half_open > 0
                and now - since >= self.max_wait_in_half_open
            ):
                state, since = State.OPEN, now
            if state is State.OPEN:
                if now > since + self.wait_in_open:
                    return 0
                return max(1, math.ceil(since + self.wait_in_open + 1 - now))
            if state is State.CLOSED or self._permits > 0:
                return 0
            if self.max_wait_in_half_open > 0:
                return max(
                    1, math.ceil(since + self.max_wait_in_half_open + self.wait_in_open + 1 - now)
                )
            return max(1, self.wait_in_open)

    # -- the two calls ------------------------------------------------------------

    def allow(self, now: int) -> bool:
        """May a call go now? Open turns half-open strictly after ``wait_in_open``."""
        now = check_clock(now)
        with self._lock:
            self._expire_half_open(now)
            if self._state is State.OPEN and now > self._since + self.wait_in_open:
                self._move(
                    now,
                    State.HALF_OPEN,
                    i18n._("waited {ms} ms in open").format(ms=self.wait_in_open),
                )
            if self._state is State.CLOSED:
                return True
            if self._state is State.HALF_OPEN and self._permits > 0:
                self._permits -= 1
                self._trials += 1
                return True
            self.not_permitted += 1
            return False

    def record(self, success: bool, now: int, duration: int = 0) -> State:
        """Report a sent call's result (``duration`` in ms); returns the new state.

        ``success`` must be a bool (``"failed"`` is a TypeError, not a success).
        """
        ok = check_success(success)
        now = check_clock(now)
        duration = check_int("duration", duration, low=0, high=86_400_000)
        with self._lock:
            self._expire_half_open(now)
            if self._state is State.HALF_OPEN and self._trials > 0:
                self._trials -= 1
            success = ok
            self._window.add(not success, duration > self.slow_call_duration, now)
            if self._state is State.OPEN:
                return self._state  # late results are counted, nothing is decided
            fail = self._window.failure_rate(now)
            slow = self._window.slow_rate(now)
            if fail == -1 or slow == -1:
                return self._state
            if fail >= self.failure_rate_threshold:
                self._move(
                    now,
                    State.OPEN,
                    i18n._("failure rate {rate} >= {threshold}").format(
                        rate=i18n.percent(fail), threshold=_percent_g(self.failure_rate_threshold)
                    ),
                )
            elif slow >= self.slow_call_rate_threshold:
                self._move(
                    now,
                    State.OPEN,
                    i18n._("slow-call rate {rate} >= {threshold}").format(
                        rate=i18n.percent(slow), threshold=_percent_g(self.slow_call_rate_threshold)
                    ),
                )
            elif self._state is State.HALF_OPEN:
                self._move(
                    now,
                    State.CLOSED,
                    i18n._("{n} trial calls: failure rate {rate}").format(
                        n=self.half_open_calls, rate=i18n.percent(fail)
                    ),
                )
            return self._state

    def release(self, now: int) -> None:
        """Give back a half-open trial that will never report (its call was cancelled).

        The permit is handed out again, so a lost trial does not leave the
        breaker half-open and refusing; the state does not change. Nothing
        happens unless a trial is in flight.
        """
        now = check_clock(now)
        with self._lock:
            self._expire_half_open(now)
            if self._state is State.HALF_OPEN and self._trials > 0:
                self._trials -= 1
                self._permits += 1

    def _expire_half_open(self, now: int) -> None:
        if (
            self._state is State.HALF_OPEN
            and self.max_wait_in_half_open > 0
            and now - self._since >= self.max_wait_in_half_open
        ):
            self._move(
                now,
                State.OPEN,
                i18n._("no verdict within {ms} ms in half-open").format(
                    ms=self.max_wait_in_half_open
                ),
            )

    def _move(self, now: int, target: State, reason: str) -> None:
        self.transitions.append(Transition(now, self._state, target, reason))
        self._state = target
        self._since = now
        self._trials = 0
        if target is State.HALF_OPEN:
            self._permits = self.half_open_calls
            self._window = RateWindow("count", self.half_open_calls, self.half_open_calls)
        elif target is State.CLOSED:
            self._window = self._closed_window()
        # to OPEN: the window is kept (resilience4j keeps the closed metrics)

    def __repr__(self) -> str:
        return (
            f"RateBreaker(window_type={self.window_type!r}, window_size={self.window_size}, "
            f"failure_rate_threshold={self.failure_rate_threshold:g}, "
            f"state={self._state.value!r})"
        )
