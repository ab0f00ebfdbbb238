"""Every explorer of the lessons by name: one call returns a ready explorer.

Use them in a notebook cell of their own (``backoff_explorer()``), then prove
the wiring in the next cell with ``ex.set(...)`` and the readout. Each class
also computes its readout without widgets (``HerdExplorer.readout_for(...)``),
which is what tests and browser checks compare the page with. They live by
topic (:mod:`retrylab.viz.backoff`, :mod:`~retrylab.viz.herd`,
:mod:`~retrylab.viz.breaker`, :mod:`~retrylab.viz.decision`); this module
gathers them:

- :func:`backoff_explorer`: base, factor, cap, jitter, growth, retries -> the waits;
- :func:`herd_explorer`: the same plus clients, retry, width -> the herd histograms;
- :func:`breaker_explorer`: threshold, cooldown, step -> state diagram and timeline;
- :func:`decision_explorer`: method, error, idempotency key -> retry or not, and why.

>>> HerdExplorer.readout_for()
'peak 24 → 7 clients per 200 ms (0.29×)'
>>> BreakerExplorer.readout_for()
'sent 1, blocked 0; state closed at 0 ms (event 1 of 9)'
"""

from __future__ import annotations

from .backoff import GROWTH_CHOICES, MAX_RETRIES, BackoffExplorer, backoff_explorer
from .breaker import BreakerExplorer, BreakerRun, breaker_explorer
from .decision import ERRORS, METHODS, DecisionExplorer, decision_explorer, outcome_for
from .herd import HerdExplorer, herd_explorer

__all__ = [
    "ERRORS",
    "GROWTH_CHOICES",
    "MAX_RETRIES",
    "METHODS",
    "BackoffExplorer",
    "BreakerExplorer",
    "BreakerRun",
    "DecisionExplorer",
    "HerdExplorer",
    "backoff_explorer",
    "breaker_explorer",
    "decision_explorer",
    "herd_explorer",
    "outcome_for",
]
