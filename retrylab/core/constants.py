"""The lessons' givens: the seed, the backoff constants, the scenarios, the breaker events.

One small module at the bottom of the package, so every layer can use the
lessons' numbers without importing the module that prints their outputs
(``retrylab.lessons.outputs``).

>>> SEED, (BASE, FACTOR, CAP)
(20260114, (200, 2, 5000))
"""

from __future__ import annotations

#: The seed of the lessons' generator ``uretec(tohum)`` (000_*.txt).
SEED = 20260114
BASE, FACTOR, CAP = 200, 2, 5000
#: The breaker lesson's nine events: (logical time in ms, did the request succeed).
BREAKER_EVENTS: tuple[tuple[int, bool], ...] = (
    (0, False),
    (200, False),
    (600, False),  # the third failure opens the circuit
    (900, False),
    (1500, False),  # cooling down: nothing is sent
    (6000, False),  # half-open trial fails
    (8000, False),  # cooling down again
    (11500, True),  # half-open trial succeeds
    (11800, True),
)

#: The retry-loop lesson's four scenarios: (Turkish name, English name, method, path,
#: attempt limit), in the order ``yeniden-deneme.mjs`` runs them.
RETRY_SCENARIOS: tuple[tuple[str, str, str, str, int], ...] = (
    ("503, sonra başarılı", "503, then success", "GET", "/measurements", 4),
    ("422 (denenmez)", "422 (not retried)", "POST", "/measurements", 4),
    ("429 (Retry-After: 2)", "429 (Retry-After: 2)", "GET", "/report", 3),
    ("404 (denenmez)", "404 (not retried)", "GET", "/missing", 4),
)

__all__ = ["BASE", "BREAKER_EVENTS", "CAP", "FACTOR", "RETRY_SCENARIOS", "SEED"]
