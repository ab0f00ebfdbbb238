"""One circuit breaker per client, vectorized: the semantics of
:class:`retrylab.core.breaker.CircuitBreaker` over a numpy array of clients.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ..core._check import check_int
from ..core.breaker import CircuitBreaker

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


# -- the breaker, one per client -----------------------------------------------------


@dataclass(frozen=True)
class BreakerSettings:
    """The settings of every client's breaker (checked as ``CircuitBreaker`` checks them).

    >>> BreakerSettings(threshold=3, cooldown=5000).describe()
    'breaker: opens after 3 failures in a row, trial after 5000 ms'
    """

    threshold: int = 3
    cooldown: int = 5000
    half_open_max_calls: int = 1
    trial_timeout: int | None = None

    def __post_init__(self) -> None:
        CircuitBreaker(
            self.threshold,
            self.cooldown,
            self.half_open_max_calls,
            trial_timeout=self.trial_timeout,
        )

    def describe(self) -> str:
        """One line for a readout."""
        return (
            f"breaker: opens after {self.threshold} failures in a row, "
            f"trial after {self.cooldown} ms"
        )


class BreakerArray:
    """:class:`~retrylab.core.breaker.CircuitBreaker` for ``n`` clients as state arrays.

    Use it where a loop over breaker objects would be too slow. ``allow`` and
    ``record`` take an array of client indices (each at most once per call)
    and behave for each client exactly as ``CircuitBreaker.allow`` and
    ``CircuitBreaker.record`` would. ``state`` holds 0 closed, 1 open,
    2 half-open (:attr:`NAMES`).

    The lesson's trace for one client:

    >>> b = BreakerArray(1, threshold=3, cooldown=5000)
    >>> for t in (0, 200, 600):
    ...     b.record([0], [False], t)
    >>> b.allow([0], 900).tolist(), b.allow([0], 6000).tolist(), b.names()
    ([False], [True], ['half_open'])
    """

    NAMES: tuple[str, ...] = ("closed", "open", "half_open")

    def __init__(
        self,
        n: int,
        threshold: int = 3,
        cooldown: int = 5000,
        half_open_max_calls: int = 1,
        trial_timeout: int | None = None,
    ) -> None:
        self.n = check_int("n", n, low=0, high=100_000_000)
        settings = BreakerSettings(threshold, cooldown, half_open_max_calls, trial_timeout)
        self.threshold = settings.threshold
        self.cooldown = settings.cooldown
        self.half_open_max_calls = settings.half_open_max_calls
        self.trial_timeout = CircuitBreaker(
            cooldown=self.cooldown, trial_timeout=trial_timeout
        ).trial_timeout
        self.state = np.zeros(self.n, dtype=np.int8)
        self.failures = np.zeros(self.n, dtype=np.int64)
        self.opened_at = np.zeros(self.n, dtype=np.int64)
        self.trials = np.zeros(self.n, dtype=np.int64)
        self.trial_start = np.zeros(self.n, dtype=np.int64)  # first trial of the round
        self.opened = 0  #: how many times a breaker opened, over all clients

    def allow(self, idx: npt.ArrayLike, now: int) -> BoolArray:
        """May each of these clients send now? Open turns half-open after the cooldown.

        As in ``CircuitBreaker``, a trial unanswered for ``trial_timeout`` ms
        (on a clock that never runs backwards) reopens the breaker.
        """
        i = np.asarray(idx, dtype=np.int64)
        st = self.state[i]
        lost = (st == 2) & (self.trials[i] > 0) & (now >= self.trial_start[i] + self.trial_timeout)
        if lost.any():
            w = i[lost]
            self.state[w] = 1
            self.opened_at[w] = self.trial_start[w] + self.trial_timeout
            self.trials[w] = 0
            self.failures[w] = 0
            self.opened += int(w.size)
            st = self.state[i]
        wake = (st == 1) & (now - self.opened_at[i] >= self.cooldown)
        if wake.any():
            w = i[wake]
            self.state[w] = 2
            self.trials[w] = 0
            st = self.state[i]
        trial = (st == 2) & (self.trials[i] < self.half_open_max_calls)
        if trial.any():
            first = i[trial & (self.trials[i] == 0)]
            self.trial_start[first] = now
            self.trials[i[trial]] += 1
        return np.asarray((st == 0) | trial)

    def record(self, idx: npt.ArrayLike, success: npt.ArrayLike, now: int) -> None:
        """Report each client's result: success closes; the threshold-th failure opens."""
        i = np.asarray(idx, dtype=np.int64)
        ok = np.asarray(success, dtype=bool)
        st = self.state[i]
        live = st != 1  # results that arrive while open change nothing
        good = i[live & ok]
        self.state[good] = 0  # half-open -> closed; closed stays closed
        self.trials[good[st[live & ok] == 2]] = 0
        self.failures[good] = 0
        bad_mask = live & ~ok
        bad = i[bad_mask]
        self.failures[bad] += 1
        opens = bad[(st[bad_mask] == 2) | (self.failures[bad] >= self.threshold)]
        self.state[opens] = 1
        self.opened_at[opens] = now
        self.failures[opens] = 0
        self.trials[opens] = 0
        self.opened += int(opens.size)

    def reopen_at(self, idx: npt.ArrayLike) -> IntArray:
        """When each (open) client's breaker will allow a trial, in ms."""
        i = np.asarray(idx, dtype=np.int64)
        return self.opened_at[i] + self.cooldown

    def names(self) -> list[str]:
        """The states as names."""
        return [self.NAMES[s] for s in self.state.tolist()]
