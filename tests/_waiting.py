"""Waiting in a test for something another thread does: a condition polled, bounded.

A fixed sleep is either too short on a loaded machine or too long everywhere else;
poll what the test is about instead.

>>> wait_until(lambda: True)
>>> wait_until(lambda: False, limit=0.05, what="never")
Traceback (most recent call last):
...
AssertionError: never: not within 0.05 s
"""

from __future__ import annotations

import time
from collections.abc import Callable


def wait_until(
    condition: Callable[[], bool], limit: float = 10.0, what: str = "the condition"
) -> None:
    """Return once ``condition()`` holds; fail, naming ``what``, after ``limit`` seconds."""
    deadline = time.monotonic() + limit
    while not condition():
        if time.monotonic() >= deadline:
            raise AssertionError(f"{what}: not within {limit:g} s")
        time.sleep(0.01)
