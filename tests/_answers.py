"""Answers the checkers' tests and tools/exercise_report.py share (never imported by the
package, so a student cannot call them)."""

from __future__ import annotations

from typing import Any


def urllib3_retry(**changes: Any) -> Any:
    """Notebook 08 exercise 1's answer, a stock ``urllib3.util.Retry``, with ``changes``.

    >>> urllib3_retry(total=5).total
    5
    """
    from urllib3.util import Retry
    kw: dict[str, Any] = dict(total=4, backoff_factor=7.5, backoff_max=60,
                              status_forcelist=[408, 429, 500, 502, 503, 504],
                              allowed_methods=["GET", "HEAD", "OPTIONS", "TRACE", "PUT",
                                               "DELETE"])
    kw.update(changes)
    return Retry(**kw)
