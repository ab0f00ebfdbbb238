"""Retry budgets: a limit on retries shared by many requests, so a fleet cannot storm.

An attempt limit bounds one request; it does nothing about a thousand requests
failing at once, each making its full number of attempts (3 attempts each is 3x
the load on a service that is already down). A retry budget looks at the whole
stream of requests a client sends and stops retrying when too many of them are
failing or retried. Two published designs are implemented here, each as a
scalar object for :meth:`retrylab.core.policy.RetryPolicy.run` (the
``RetryBudgetLike`` protocol: ``can_retry()``, ``on_request(first_try)``,
``on_outcome(success)``) and as a vectorized variant holding one counter per
*group* of clients for the fleet simulator (:mod:`retrylab.sim.fleet`):

- :class:`GrpcRetryThrottle`, gRPC's retry throttling. Source: gRPC proposal
  A6 "gRPC Retry Design" (github.com/grpc/proposal, ``A6-client-retries.md``),
  the ``retryThrottling`` setting with ``maxTokens`` and ``tokenRatio``: the
  token count starts at ``maxTokens`` and stays in [0, maxTokens]; every failed
  RPC *with a retryable status* takes 1 token ("each failed RPC (with a status
  code considered retryable ...) will decrement the token count by 1"), every
  successful RPC adds ``tokenRatio``; a failure that would not be retried (a
  404, a 422, a body error, a cancellation) changes nothing; "if token_count
  is less than or equal to maxTokens / 2, then RPCs will not be retried".
  gRPC keeps the count in thousandths of a token (integer "milli-tokens",
  ``tokenRatio`` has at most 3 decimals); so does this class, so 0.1 is exact.
- :class:`SreRetryBudget`, the retry budget of Google's SRE book: Beyer,
  Jones, Petoff, Murphy (eds.), *Site Reliability Engineering*, O'Reilly
  2016, chapter 21 "Handling Overload", section "Deciding to Retry": a
  *per-request* budget of up to three attempts ("if a request has already
  failed three times, we let the failure bubble up to the caller") and a
  *per-client* budget: the client tracks the ratio of its requests that are
  retries and retries only while that ratio is below 10%.

Which failures count: :meth:`retrylab.core.policy.RetryPolicy.run` reports a
success, and a failure only if its rule would retry it (so a 404 never drains
the gRPC bucket; five of them leave a real 503 retried). The SRE budget counts
requests and retries sent, so a failure that is not retried never charges it.

Threads and tasks: both scalar budgets lock their counters, so one object can
be shared by threads (and by asyncio tasks, which never interleave inside a
method). The SRE budget's per-request attempt count follows one request at a
time; with concurrent requests rely on the ratio and the policy's
``max_attempts``. The vectorized arrays are for one simulation loop only.

The book's client counts since start here; production budgets (Finagle's
``RetryBudget``, for one) count over a sliding window of a few seconds so old
successes cannot pay for a new storm. That refinement is left out on purpose:
the simulations here last seconds to a minute.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Protocol

import numpy as np
import numpy.typing as npt

from ._check import check_choice, check_int, check_number
from ._copies import OwnLock

__all__ = [
    "BudgetArray",
    "GrpcRetryThrottle",
    "GrpcThrottleArray",
    "SreBudgetArray",
    "SreRetryBudget",
    "budget_from_name",
]

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


def _milli(name: str, value: float, low_open: float, high: float) -> int:
    """``value`` in thousandths, checking it has at most 3 decimals (as gRPC parses it)."""
    v = check_number(name, value, low=low_open, high=high, low_open=True)
    milli = round(v * 1000)
    if milli < 1 or abs(milli - v * 1000) > 1e-6:
        raise ValueError(
            f"{name}={value!r} is out of range: {name} must be a number "
            f"> {low_open:g} and <= {high:g} with at most 3 decimal places"
        )
    return milli


# -- gRPC retry throttling -------------------------------------------------------


@dataclass
class GrpcRetryThrottle(OwnLock):
    """gRPC's ``retryThrottling``: a token bucket that failures drain and successes refill.

    Use it when many requests share one connection to a service (gRPC keeps
    one per server name): a burst of failures shuts retries off for all of
    them until successes earn the tokens back. First tries are never blocked.

    - ``max_tokens``: the bucket size, > 0 and <= 1000 (gRPC's ``maxTokens``).
    - ``token_ratio``: tokens a success adds, > 0 and <= 1, at most 3
      decimals (``tokenRatio``).

    Rule: ``tokens`` starts at ``max_tokens``; a failure subtracts 1, a
    success adds ``token_ratio``, clipped to [0, max_tokens]; a retry is
    allowed only while ``tokens > max_tokens / 2``. With the proposal's
    example (10, 0.1): five failures in a row leave 5 tokens and stop
    retries; each success then adds 0.1, so retries resume after one
    success, and are shut off again by the next failure.

    >>> t = GrpcRetryThrottle(max_tokens=10, token_ratio=0.1)
    >>> for _ in range(5):
    ...     t.on_outcome(False)
    >>> t.tokens, t.can_retry()
    (5.0, False)
    >>> t.on_outcome(True); t.tokens, t.can_retry()
    (5.1, True)
    """

    max_tokens: float = 10
    token_ratio: float = 0.1
    _max_milli: int = field(init=False, repr=False)
    _ratio_milli: int = field(init=False, repr=False)
    _milli: int = field(init=False, repr=False)
    _lock: threading.Lock = field(
        init=False, repr=False, compare=False, default_factory=threading.Lock
    )

    def __post_init__(self) -> None:
        self._max_milli = _milli("max_tokens", self.max_tokens, 0, 1000)
        self._ratio_milli = _milli("token_ratio", self.token_ratio, 0, 1)
        self._milli = self._max_milli

    @property
    def tokens(self) -> float:
        """The current token count (a multiple of 0.001)."""
        return self._milli / 1000

    def can_retry(self) -> bool:
        """May a failed request be retried now? ``tokens > max_tokens / 2``."""
        return 2 * self._milli > self._max_milli

    def on_request(self, first_try: bool) -> None:
        """Sending costs nothing: only outcomes move the tokens."""

    def on_outcome(self, success: bool, retryable: bool = True) -> None:
        """A success adds ``token_ratio``; a retryable failure takes 1 token.

        ``retryable=False`` (a 404, a body error, a cancellation: failures the
        rule would not retry) changes nothing, as in gRPC A6.

        >>> t = GrpcRetryThrottle(10, 0.1)
        >>> for _ in range(5):
        ...     t.on_outcome(False, retryable=False)
        >>> t.tokens, t.can_retry()
        (10.0, True)
        """
        if not success and not retryable:
            return
        step = self._ratio_milli if success else -1000
        with self._lock:
            self._milli = min(self._max_milli, max(0, self._milli + step))

    def vectorized(self, groups: int) -> GrpcThrottleArray:
        """The same throttle for ``groups`` independent groups of clients (fresh buckets)."""
        return GrpcThrottleArray(groups, self.max_tokens, self.token_ratio)

    def describe(self) -> str:
        """One line for a readout.

        >>> GrpcRetryThrottle(10, 0.1).describe()
        'gRPC retry throttling (max_tokens=10, token_ratio=0.1)'
        """
        return (
            f"gRPC retry throttling (max_tokens={self.max_tokens:g}, "
            f"token_ratio={self.token_ratio:g})"
        )


# -- the SRE book's retry budget ---------------------------------------------------


@dataclass
class SreRetryBudget(OwnLock):
    """The SRE book's budget: retries below 10% of requests, at most 3 attempts each.

    Use it for a client that sends a steady stream of requests: in normal
    times a few failures are retried; when most requests fail, the client
    adds at most ``ratio`` extra load instead of ``attempts``-fold load.

    - ``ratio``: the largest share of requests that may be retries, > 0 and
      <= 1 (the book's 10%: 0.1). A retry is allowed while
      ``retries / requests < ratio``, counted over every request sent.
    - ``per_request``: attempts per request, first included (the book's 3).
      The scalar object counts the attempts of the request in progress, which
      is right when requests run one after another (as in ``RetryPolicy.run``);
      the fleet applies it as an attempt limit per client instead.

    >>> b = SreRetryBudget()
    >>> b.on_request(first_try=True); b.on_outcome(False)
    >>> b.can_retry()                  # 0 retries of 1 request: 0% < 10%
    True
    >>> b.on_request(first_try=False); b.on_outcome(False)
    >>> b.can_retry()                  # 1 retry of 2 requests: 50%
    False
    >>> for _ in range(9):
    ...     b.on_request(first_try=True)
    >>> b.requests, b.retries, b.can_retry()   # 1 of 11 is 9%, below 10%
    (11, 1, True)
    """

    ratio: float = 0.1
    per_request: int = 3
    requests: int = field(default=0, init=False)
    retries: int = field(default=0, init=False)
    successes: int = field(default=0, init=False)
    _attempts: int = field(default=0, init=False, repr=False)
    _fraction: Fraction = field(init=False, repr=False)
    _lock: threading.Lock = field(
        init=False, repr=False, compare=False, default_factory=threading.Lock
    )

    def __post_init__(self) -> None:
        check_number("ratio", self.ratio, low=0, high=1, low_open=True)
        check_int("per_request", self.per_request, low=1, high=1000)
        self._fraction = Fraction(self.ratio).limit_denominator(1_000_000)

    def can_retry(self) -> bool:
        """Retry only while ``retries / requests < ratio`` and this request has attempts left."""
        with self._lock:
            under = self.retries * self._fraction.denominator < (
                self._fraction.numerator * self.requests
            )
            return under and self._attempts < self.per_request

    def on_request(self, first_try: bool) -> None:
        """Count a request, and a retry unless it is a first try."""
        with self._lock:
            self.requests += 1
            if first_try:
                self._attempts = 1
            else:
                self.retries += 1
                self._attempts += 1

    def on_outcome(self, success: bool, retryable: bool = True) -> None:
        """Only counted for reporting: the budget looks at requests and retries sent."""
        with self._lock:
            self.successes += int(success)

    def vectorized(self, groups: int) -> SreBudgetArray:
        """The same budget for ``groups`` independent groups of clients (fresh counters)."""
        return SreBudgetArray(groups, self.ratio, self.per_request)

    def describe(self) -> str:
        """One line for a readout.

        >>> SreRetryBudget().describe()
        'SRE retry budget (retries < 10% of requests, 3 attempts per request)'
        """
        return (
            f"SRE retry budget (retries < {self.ratio:.0%} of requests, "
            f"{self.per_request} attempts per request)"
        )


# -- vectorized variants for the fleet ---------------------------------------------------


class BudgetArray(Protocol):
    """One budget per group of clients, driven a whole simulation step at a time.

    ``group`` arrays hold, for each event, the index of the budget it belongs
    to. Within one call the events of a group are applied together, which is
    what concurrent clients do: decisions taken in the same step all see the
    counters as they were after that step's outcomes.
    """

    groups: int
    max_attempts: int | None

    def can_retry(self, group: npt.ArrayLike) -> BoolArray: ...

    def on_requests(self, group: npt.ArrayLike, first_try: npt.ArrayLike) -> None: ...

    def on_outcomes(self, group: npt.ArrayLike, success: npt.ArrayLike) -> None: ...


def _groups_arg(groups: int) -> int:
    return check_int("groups", groups, low=1, high=100_000_000)


class GrpcThrottleArray:
    """:class:`GrpcRetryThrottle` for many groups at once: an array of milli-token counts.

    Outcomes of one group in one call are summed before clipping:
    ``tokens = clip(tokens + token_ratio * successes - failures, 0, max_tokens)``.
    With at most one outcome per group per call this is exactly the scalar rule.

    >>> t = GrpcThrottleArray(2, max_tokens=10, token_ratio=0.1)
    >>> t.on_outcomes([0, 0, 0, 0, 0, 1], [False] * 5 + [True])
    >>> t.tokens.tolist(), t.can_retry([0, 1]).tolist()
    ([5.0, 10.0], [False, True])
    """

    max_attempts: int | None = None

    def __init__(self, groups: int, max_tokens: float = 10, token_ratio: float = 0.1) -> None:
        self.groups = _groups_arg(groups)
        self.max_tokens = max_tokens
        self.token_ratio = token_ratio
        self._max_milli = _milli("max_tokens", max_tokens, 0, 1000)
        self._ratio_milli = _milli("token_ratio", token_ratio, 0, 1)
        self.milli: IntArray = np.full(self.groups, self._max_milli, dtype=np.int64)

    @property
    def tokens(self) -> npt.NDArray[np.float64]:
        """Token counts per group."""
        return self.milli / 1000

    def can_retry(self, group: npt.ArrayLike) -> BoolArray:
        """For each event's group: ``tokens > max_tokens / 2``."""
        g = np.asarray(group, dtype=np.int64)
        return np.asarray(2 * self.milli[g] > self._max_milli)

    def on_requests(self, group: npt.ArrayLike, first_try: npt.ArrayLike) -> None:
        """Sending costs nothing."""

    def on_outcomes(self, group: npt.ArrayLike, success: npt.ArrayLike) -> None:
        """Add ``token_ratio`` per success and take 1 per failure, per group, then clip."""
        g = np.asarray(group, dtype=np.int64)
        ok = np.asarray(success, dtype=bool)
        if g.size == 0:
            return
        wins = np.bincount(g[ok], minlength=self.groups)
        losses = np.bincount(g[~ok], minlength=self.groups)
        np.clip(
            self.milli + wins * self._ratio_milli - losses * 1000,
            0,
            self._max_milli,
            out=self.milli,
        )

    def describe(self) -> str:
        """One line for a readout."""
        return GrpcRetryThrottle(self.max_tokens, self.token_ratio).describe()


class SreBudgetArray:
    """:class:`SreRetryBudget` for many groups at once: arrays of request and retry counts.

    ``max_attempts`` is the per-request limit (3 in the book); the fleet caps
    each client's attempts with it.

    >>> b = SreBudgetArray(1)
    >>> b.on_requests([0] * 10, [True] * 10)
    >>> b.can_retry([0]).tolist()        # 0 retries of 10 requests
    [True]
    >>> b.on_requests([0], [False])
    >>> b.requests.tolist(), b.retries.tolist(), b.can_retry([0]).tolist()  # 1 of 11
    ([11], [1], [True])
    >>> b.on_requests([0], [False]); b.can_retry([0]).tolist()            # 2 of 12
    [False]
    """

    def __init__(self, groups: int, ratio: float = 0.1, per_request: int = 3) -> None:
        self.groups = _groups_arg(groups)
        check_number("ratio", ratio, low=0, high=1, low_open=True)
        self.ratio = ratio
        self.max_attempts: int | None = check_int("per_request", per_request, low=1, high=1000)
        frac = Fraction(ratio).limit_denominator(1_000_000)
        self._num, self._den = frac.numerator, frac.denominator
        self.requests: IntArray = np.zeros(self.groups, dtype=np.int64)
        self.retries: IntArray = np.zeros(self.groups, dtype=np.int64)

    def can_retry(self, group: npt.ArrayLike) -> BoolArray:
        """For each event's group: ``retries / requests < ratio``."""
        g = np.asarray(group, dtype=np.int64)
        return np.asarray(self.retries[g] * self._den < self._num * self.requests[g])

    def on_requests(self, group: npt.ArrayLike, first_try: npt.ArrayLike) -> None:
        """Count requests per group, and retries among them."""
        g = np.asarray(group, dtype=np.int64)
        first = np.asarray(first_try, dtype=bool)
        if g.size == 0:
            return
        self.requests += np.bincount(g, minlength=self.groups)
        self.retries += np.bincount(g[~first], minlength=self.groups)

    def on_outcomes(self, group: npt.ArrayLike, success: npt.ArrayLike) -> None:
        """Outcomes do not move this budget."""

    def describe(self) -> str:
        """One line for a readout."""
        assert self.max_attempts is not None
        return SreRetryBudget(self.ratio, self.max_attempts).describe()


def budget_from_name(name: str) -> GrpcRetryThrottle | SreRetryBudget | None:
    """The budgets an explorer offers by name: ``"none"``, ``"grpc"``, ``"sre"``.

    >>> budget_from_name("grpc").describe()
    'gRPC retry throttling (max_tokens=10, token_ratio=0.1)'
    >>> budget_from_name("none") is None
    True
    """
    check_choice("budget", name, ("none", "grpc", "sre"))
    if name == "grpc":
        return GrpcRetryThrottle()
    if name == "sre":
        return SreRetryBudget()
    return None
