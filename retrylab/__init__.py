"""retrylab: how a client should behave when a request fails.

The public API, grouped in the order the lessons introduce it. Figures and
explorers (matplotlib, ipywidgets) are not imported here: use
the ``retrylab.viz`` layer (``pip install "retrylab[notebooks]"``).
"""

# ruff: noqa: I001, RUF022  (sections follow the lessons, not the alphabet)
from __future__ import annotations

import importlib
import importlib.util
from typing import TYPE_CHECKING

# -- the seeded generator ----------------------------------------------------
from .core.rng import Mulberry32

# -- a wrong type is a TypeError (and a ValueError, for older callers) -------
from .core._check import ArgumentTypeError

# -- which failures are retried ---------------------------------------------
from .core.outcome import (
    IDEMPOTENT_METHODS,
    LESSON_SAFE_METHODS,
    SAFE_METHODS,
    Decision,
    Outcome,
    decide,
    decision_table,
    parse_retry_after,
    retry_everything_rule,
    retry_statuses,
    should_retry,
    verdict_table,
)
from .core.production import production_rule

# -- computing the wait ------------------------------------------------------
from .core.backoff import GROWTHS, JITTERS, Backoff
from .core.jsround import js_round

# -- many clients that failed together ---------------------------------------
from .core.metrics import bucket_counts
from .sim.herd import histogram_lines, peak_ratio, wakeups

# -- the retry loop ----------------------------------------------------------
from .core.policy import Attempt, RetryPolicy, RetryResult, StopReason
from .core.metrics import RetryMetrics

# -- the real HTTP lab (a stdlib server; the client speaks HTTP through httpx) -
# Imported on first use (``__getattr__`` below): a notebook that never opens the
# lab (02, 06: every kernel of a class) loads neither httpx nor the server.
if TYPE_CHECKING:
    from .lab.client import (
        Connection,
        KeyMaker,
        async_send,
        async_sender,
        http_send,
        response_outcome,
        sender,
    )
    from .lab.server import FAULTS, LabServer, validate_measurement
    from .lessons.lab_experiments import (
        LessonRun,
        WriteReport,
        lesson_scenarios,
        write_experiment,
    )

# -- many clients against one server ----------------------------------------
from .core.budget import GrpcRetryThrottle, SreRetryBudget
from .sim.breakers import BreakerSettings
from .sim.fleet import Fleet, outage_fleet, simulate_fleet, storm_fleet
from .sim.fleetresult import FleetResult, summary_table
from .sim.layered import expected_layered_load, layered_calls
from .sim.contention import contention, contention_sweep

# -- the circuit breaker -----------------------------------------------------
from .core.breaker import BreakerOpen, BreakerRegistry, CircuitBreaker, State, Transition, replay

# -- beyond the lessons --------------------------------------------------------
from .core.ratebreaker import RateBreaker
from .core.hedging import HedgeResult, HedgingPolicy, hedge
from .core.throttle import (
    AdaptiveRateLimiter,
    CubicRate,
    SreThrottle,
    TokenBucket,
    sre_reject_probability,
)
from .core.metastable import MetastableModel
from .sim.ratebreakers import RateBreakerArray, breaker_outage, compare_breakers
from .sim.hedged import hedge_sweep, latency_samples
from .sim.throttled import throttled_fleet
from .sim.metastable import metastable_fleet

__all__ = [
    "Mulberry32",
    "ArgumentTypeError",
    "IDEMPOTENT_METHODS",
    "LESSON_SAFE_METHODS",
    "SAFE_METHODS",
    "Decision",
    "Outcome",
    "decide",
    "decision_table",
    "parse_retry_after",
    "retry_everything_rule",
    "retry_statuses",
    "should_retry",
    "verdict_table",
    "production_rule",
    "GROWTHS",
    "JITTERS",
    "Backoff",
    "js_round",
    "bucket_counts",
    "histogram_lines",
    "peak_ratio",
    "wakeups",
    "Attempt",
    "RetryPolicy",
    "RetryResult",
    "StopReason",
    "RetryMetrics",
    "Connection",
    "KeyMaker",
    "async_send",
    "async_sender",
    "http_send",
    "response_outcome",
    "sender",
    "FAULTS",
    "LabServer",
    "LessonRun",
    "WriteReport",
    "lesson_scenarios",
    "validate_measurement",
    "write_experiment",
    "GrpcRetryThrottle",
    "SreRetryBudget",
    "BreakerSettings",
    "Fleet",
    "FleetResult",
    "expected_layered_load",
    "layered_calls",
    "outage_fleet",
    "simulate_fleet",
    "storm_fleet",
    "summary_table",
    "contention",
    "contention_sweep",
    "BreakerOpen",
    "BreakerRegistry",
    "CircuitBreaker",
    "State",
    "Transition",
    "replay",
    "RateBreaker",
    "HedgeResult",
    "HedgingPolicy",
    "hedge",
    "AdaptiveRateLimiter",
    "CubicRate",
    "SreThrottle",
    "TokenBucket",
    "sre_reject_probability",
    "MetastableModel",
    "RateBreakerArray",
    "breaker_outage",
    "compare_breakers",
    "hedge_sweep",
    "latency_samples",
    "throttled_fleet",
    "metastable_fleet",
]

#: The lab's names, by the module that defines them (imported on first use).
_LAB = {
    **dict.fromkeys(
        (
            "Connection",
            "KeyMaker",
            "async_send",
            "async_sender",
            "http_send",
            "response_outcome",
            "sender",
        ),
        "retrylab.lab.client",
    ),
    **dict.fromkeys(("FAULTS", "LabServer", "validate_measurement"), "retrylab.lab.server"),
    **dict.fromkeys(
        ("LessonRun", "WriteReport", "lesson_scenarios", "write_experiment"),
        "retrylab.lessons.lab_experiments",
    ),
}

#: Names that need the bridge extra (tenacity, urllib3, httpx): imported on first use,
#: so ``import retrylab`` never needs them. They are in ``__all__`` only where the extra
#: is installed, so ``from retrylab import *`` works in any install (asking for one by
#: name without the extra names the extra to install).
_BRIDGE = ("to_tenacity", "to_tenacity_async", "to_urllib3", "RetryTransport", "PolicyRetry")
if all(importlib.util.find_spec(m) is not None for m in ("tenacity", "urllib3")):
    __all__ += list(_BRIDGE)


def __getattr__(name: str) -> object:
    """Load the lab's and the bridge's names on first use (``from retrylab import LabServer``)."""
    if name in _LAB:
        return getattr(importlib.import_module(_LAB[name]), name)
    if name in _BRIDGE:
        try:
            from .lab import bridge
        except ImportError as e:
            raise ImportError(
                f"retrylab.{name} needs the bridge extra (tenacity, urllib3, "
                f'httpx): pip install "retrylab[bridge]" ({e})'
            ) from e
        return getattr(bridge, name)
    raise AttributeError(f"module 'retrylab' has no attribute {name!r}")


__version__ = "0.1.0"
