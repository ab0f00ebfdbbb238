"""retrylab: how a client should behave when a request fails.

The public API, grouped as the lessons introduce it.
"""

from __future__ import annotations

# -- computing the wait ------------------------------------------------------
from .backoff import GROWTHS, JITTERS, Backoff

# -- the circuit breaker -----------------------------------------------------
from .breaker import BreakerOpen, BreakerRegistry, CircuitBreaker, State, Transition, replay

# -- many clients ------------------------------------------------------------
from .herd import bucket_counts, histogram_lines, peak_ratio, wakeups
from .jsround import js_round
from .metrics import RetryMetrics

# -- which failures are retried ---------------------------------------------
from .outcome import (
    IDEMPOTENT_METHODS,
    LESSON_SAFE_METHODS,
    SAFE_METHODS,
    Decision,
    Outcome,
    decide,
    parse_retry_after,
    should_retry,
)

# -- the retry loop ----------------------------------------------------------
from .policy import Attempt, RetryPolicy, RetryResult, StopReason

# -- the seeded generator ----------------------------------------------------
from .rng import Mulberry32

__all__ = [
    "GROWTHS",
    "IDEMPOTENT_METHODS",
    "JITTERS",
    "LESSON_SAFE_METHODS",
    "SAFE_METHODS",
    "Attempt",
    "Backoff",
    "BreakerOpen",
    "BreakerRegistry",
    "CircuitBreaker",
    "Decision",
    "Mulberry32",
    "Outcome",
    "RetryMetrics",
    "RetryPolicy",
    "RetryResult",
    "State",
    "StopReason",
    "Transition",
    "bucket_counts",
    "decide",
    "histogram_lines",
    "js_round",
    "parse_retry_after",
    "peak_ratio",
    "replay",
    "should_retry",
    "wakeups",
]

__version__ = "0.1.0"
