"""Client-side adaptive throttling: a client that slows itself down when the server says no.

A retry budget limits *retries*; these limit *every* request, first tries
included, from what the client sees of the server's answers. Two published
designs:

- :class:`SreThrottle`, Google's adaptive throttling. Source: Beyer, Jones,
  Petoff, Murphy (eds.), *Site Reliability Engineering*, O'Reilly 2016,
  chapter 21 "Handling Overload", section "Client-Side Throttling": each client
  keeps, over a trailing window (the book: two minutes), ``requests`` (asked
  for by the application, whether sent or not) and ``accepts`` (accepted by
  the backend), and rejects a new request locally with probability
  ``max(0, (requests - K * accepts) / (requests + 1))``; ``K = 2`` lets the
  client send about twice what the backend accepts.
- :class:`AdaptiveRateLimiter`, botocore's ``retry_mode="adaptive"``. Source:
  botocore ``botocore/retries/adaptive.py`` (``ClientRateLimiter``,
  ``RateClocker``), ``throttling.py`` (``CubicCalculator``) and ``bucket.py``
  (``TokenBucket``): a token bucket whose fill rate follows TCP CUBIC (Ha,
  Rhee, Xu, "CUBIC: A New TCP-Friendly High-Speed TCP Variant", 2008) -
  after a throttling response the rate becomes ``beta * r`` with
  ``W_max = r``; after a success ``rate(t) = C * (t - t_fail - K)**3 + W_max``
  with ``K = cbrt(W_max * (1 - beta) / C)``, ``C = 0.4``, ``beta = 0.7``;
  the bucket's rate is capped at twice the measured send rate (an
  exponential moving average, smoothing 0.8, updated every 0.5 s). The
  bucket is only used once the first throttling response arrived.

Times are logical ms passed in; rates are requests per second. Each class
takes one lock per call, so it can be shared across threads.

>>> t = SreThrottle(k=2.0, window=120_000)
>>> for i in range(10):
...     _ = t.request(i)                    # 10 asked for ...
>>> for i in range(3):
...     t.accepted(i)                       # ... 3 accepted
>>> round(t.reject_probability(10), 4)      # (10 - 2*3) / (10 + 1)
0.3636
"""

from __future__ import annotations

import math
import threading
from collections import deque

from ._check import check_int, check_number
from ._copies import OwnLock

__all__ = [
    "AdaptiveRateLimiter",
    "CubicRate",
    "RateClocker",
    "SreThrottle",
    "TokenBucket",
    "sre_reject_probability",
]


def sre_reject_probability(requests: float, accepts: float, k: float = 2.0) -> float:
    """The SRE book's ``max(0, (requests - K * accepts) / (requests + 1))``.

    >>> sre_reject_probability(100, 50), sre_reject_probability(100, 20)
    (0.0, 0.594059405940594)
    """
    requests = check_number("requests", requests, low=0)
    accepts = check_number("accepts", accepts, low=0)
    k = check_number("k", k, low=0)
    return max(0.0, (requests - k * accepts) / (requests + 1))


class SreThrottle(OwnLock):
    """The SRE book's client-side throttle over a trailing window (see the module docstring).

    Use ``request(now, draw)`` before each request: it counts the request and
    returns whether to send it (``draw`` in [0, 1) from a seeded generator,
    compared with the rejection probability); call ``accepted(now)`` when the
    backend accepted one.
    """

    def __init__(self, k: float = 2.0, window: int = 120_000) -> None:
        self.k = check_number("k", k, low=1.0, high=100.0)
        self.window = check_int("window", window, low=1, high=86_400_000)
        self._requests: deque[int] = deque()
        self._accepts: deque[int] = deque()
        self._lock = threading.Lock()

    def _evict(self, now: int) -> None:
        for q in (self._requests, self._accepts):
            while q and q[0] <= now - self.window:
                q.popleft()

    def counts(self, now: int) -> tuple[int, int]:
        """(requests, accepts) in the window ending at ``now``."""
        now = check_int("now", now)
        with self._lock:
            self._evict(now)
            return len(self._requests), len(self._accepts)

    def reject_probability(self, now: int) -> float:
        """The probability the next request is rejected locally."""
        requests, accepts = self.counts(now)
        return sre_reject_probability(requests, accepts, self.k)

    def request(self, now: int, draw: float = 1.0) -> bool:
        """Count a request; True if it should be sent (``draw >= p``)."""
        check_number("draw", draw, low=0.0, high=1.0)
        now = check_int("now", now)
        p = self.reject_probability(now)
        with self._lock:
            self._requests.append(now)
        return draw >= p

    def accepted(self, now: int) -> None:
        """The backend accepted a request."""
        now = check_int("now", now)
        with self._lock:
            self._accepts.append(now)


class CubicRate:
    """botocore's ``CubicCalculator``: TCP CUBIC's window curve as a send rate.

    >>> c = CubicRate(start_time=0)
    >>> c.error_received(10.0, 0)          # throttled at 10/s: back off to 7/s
    7.0
    >>> round(c.k, 4)                      # cbrt(10 * 0.3 / 0.4) seconds to regain 10/s
    1.9574
    >>> round(c.success_received(1957), 2), round(c.success_received(4000), 2)
    (10.0, 13.41)
    """

    def __init__(
        self,
        starting_max_rate: float = 0.0,
        start_time: int = 0,
        scale: float = 0.4,
        beta: float = 0.7,
    ) -> None:
        self.w_max = check_number("starting_max_rate", starting_max_rate, low=0.0)
        self.scale = check_number("scale", scale, low=0.0, low_open=True)
        self.beta = check_number("beta", beta, low=0.0, high=1.0, low_open=True)
        self.last_fail = check_int("start_time", start_time)
        self.k = self._zero_point()

    def _zero_point(self) -> float:
        return float((self.w_max * (1 - self.beta) / self.scale) ** (1 / 3))

    def success_received(self, now: int) -> float:
        """The rate after a success at ``now``: ``C * (dt - K)**3 + W_max``, dt in s."""
        dt = (now - self.last_fail) / 1000
        return self.scale * (dt - self.k) ** 3 + self.w_max

    def error_received(self, rate: float, now: int) -> float:
        """The rate after a throttling response at ``now`` while sending at ``rate``."""
        self.w_max = float(rate)
        self.k = self._zero_point()
        self.last_fail = now
        return float(rate) * self.beta


class TokenBucket(OwnLock):
    """botocore's ``TokenBucket`` on a logical clock: ``acquire`` says how long to wait.

    Capacity starts at 0 and refills at ``max_rate`` tokens a second (at
    least ``min_rate``), up to ``max(1, max_rate)`` tokens. botocore blocks
    until a token is there; here :meth:`acquire` takes the token and returns
    the wait in ms (0 if one was there), and the caller sleeps that long.

    >>> b = TokenBucket(max_rate=2.0, now=0)
    >>> b.acquire(0), b.acquire(0), b.acquire(1500)
    (500, 1000, 0)
    """

    def __init__(self, max_rate: float, now: int = 0, min_rate: float = 0.5) -> None:
        self.min_rate = check_number("min_rate", min_rate, low=0.0, low_open=True)
        self.capacity = 0.0
        self.fill_rate = self.min_rate
        self.max_capacity = 1.0
        self._last = check_int("now", now)
        self._lock = threading.Lock()
        self.set_rate(max_rate, now)

    def _refill(self, now: int) -> None:
        if now > self._last:
            self.capacity = min(
                self.max_capacity, self.capacity + (now - self._last) / 1000 * self.fill_rate
            )
            self._last = now

    def set_rate(self, rate: float, now: int) -> None:
        """botocore's ``max_rate`` setter: refill at the old rate, then change it."""
        now = check_int("now", now)
        rate = check_number("max_rate", rate, low=0.0)
        with self._lock:
            self._refill(now)
            self.fill_rate = max(rate, self.min_rate)
            self.max_capacity = rate if rate >= 1 else 1.0
            self.capacity = min(self.capacity, self.max_capacity)

    def acquire(self, now: int, amount: float = 1.0) -> int:
        """Take ``amount`` tokens; return the ms to wait before sending (0: send now).

        ``amount`` is a number of tokens > 0 and at most 1,000,000.
        """
        now = check_int("now", now)
        amount = check_number("amount", amount, low=0, high=1_000_000, low_open=True)
        with self._lock:
            self._refill(now)
            if amount <= self.capacity and self._last <= now:
                self.capacity -= amount
                return 0
            start = max(now, self._last)  # after the tokens already promised
            wait = start - now + math.ceil((amount - self.capacity) / self.fill_rate * 1000)
            self._refill(now + wait)
            self.capacity = max(0.0, self.capacity - amount)
            return wait


class RateClocker(OwnLock):
    """botocore's ``RateClocker``: the measured send rate, an EMA over 0.5 s buckets.

    >>> c = RateClocker(now=0)
    >>> [round(c.record(t), 2) for t in (100, 200, 300, 600)]
    [0.0, 0.0, 0.0, 6.4]
    """

    def __init__(self, now: int = 0, smoothing: float = 0.8, bucket: int = 500) -> None:
        self.smoothing = check_number("smoothing", smoothing, low=0.0, high=1.0)
        self.bucket = check_int("bucket", bucket, low=1)
        self.rate = 0.0
        self._count = 0
        self._last = (check_int("now", now) // 1000) * 1000  # botocore: floor(time)
        self._lock = threading.Lock()

    def record(self, now: int) -> float:
        """Count one request sent at ``now``; return the measured rate."""
        with self._lock:
            start = (now // self.bucket) * self.bucket
            self._count += 1
            if start > self._last:
                current = self._count / ((start - self._last) / 1000)
                self.rate = current * self.smoothing + self.rate * (1 - self.smoothing)
                self._count = 0
                self._last = start
            return self.rate


class AdaptiveRateLimiter(OwnLock):
    """botocore's ``ClientRateLimiter``: CUBIC rate + token bucket + measured rate.

    ``before_send(now)`` returns the ms to wait before sending (0 until the
    first throttling response); ``on_response(throttled, now)`` adjusts the
    rate: ``rate = min(cubic, 2 * measured)``.

    >>> lim = AdaptiveRateLimiter(now=0)
    >>> lim.before_send(0)
    0
    >>> for t in range(0, 2000, 50):               # 20/s, all accepted
    ...     lim.on_response(False, t)
    >>> lim.on_response(True, 2000)                # throttled
    >>> lim.enabled, round(lim.bucket.fill_rate, 2)
    (True, 13.99)
    """

    MAX_RATE_ADJUST_SCALE = 2.0

    def __init__(self, now: int = 0) -> None:
        self.cubic = CubicRate(0.0, now)
        self.bucket = TokenBucket(1.0, now)
        self.clocker = RateClocker(now)
        self.enabled = False
        self._lock = threading.Lock()

    def before_send(self, now: int) -> int:
        """ms to wait before this request may go."""
        return self.bucket.acquire(now) if self.enabled else 0

    def on_response(self, throttled: bool, now: int) -> None:
        """A response arrived: a throttling error (429, ``Throttling``...) or not."""
        measured = self.clocker.record(now)
        with self._lock:
            if not throttled:
                rate = self.cubic.success_received(now)
            else:
                use = measured if not self.enabled else min(measured, self.bucket.fill_rate)
                rate = self.cubic.error_received(use, now)
                self.enabled = True
            self.bucket.set_rate(max(0.0, min(rate, self.MAX_RATE_ADJUST_SCALE * measured)), now)
