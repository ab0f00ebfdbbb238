"""Checkers for the code the student writes: the waits, the rule, the loop, the breaker.

Each checker takes the student's function (or class) and returns a
:class:`~retrylab.exercises.Feedback`. It judges in two rounds, as a good
hidden-test suite does:

1. the lesson's printed outputs (the six-row table of waits, the four lines of
   the retry loop, the nine rows of the breaker's trace), recomputed here from
   Mulberry32(20260114) and retrylab's own implementation, never copied;
2. cases the student has not seen (many seeds, exact ``.5`` halves, draws near
   0 and 1, scripted servers, random breaker events), judged against retrylab.

The first difference is named in the lesson's words, and when the student's
answers match one of the usual mistakes (Python's ``round``, ``n`` off by one,
no cap, Retry-After taken as the exact wait...) the message says which.

The student's code runs through :mod:`.harness`: each call has
:data:`~.harness.TIME_LIMIT` seconds under the one stop of
:mod:`retrylab.exercises.stop` (a timer signal in the kernel's main thread), an
answer that calls the library's own implementation instead of writing it is named,
and the references are computed before the student's code runs.

Files: :mod:`.harness` (running the student's code, the lesson's data),
:mod:`.waits` (full and decorrelated jitter), :mod:`.rule` (which failures are
retried), :mod:`.loop` (the retry loop), :mod:`.breaker` (the circuit breaker).
"""

from __future__ import annotations

from .breaker import check_breaker
from .loop import check_retry_loop
from .rule import check_should_retry
from .waits import check_decorrelated, check_full_jitter

__all__ = [
    "check_breaker",
    "check_decorrelated",
    "check_full_jitter",
    "check_retry_loop",
    "check_should_retry",
]
