"""Argument checks shared by every constructor: one clear message format.

Every message names the argument, the value it got and the allowed range, so a
student who drags a slider to an odd value reads what to change.
"""

from __future__ import annotations

import math
from typing import Any


def _fail(name: str, value: Any, allowed: str) -> ValueError:
    return ValueError(f"{name}={value!r} is out of range: {name} must be {allowed}")


def check_int(name: str, value: Any, low: int | None = None,
              high: int | None = None) -> int:
    """Return ``value`` as an int if it is a whole number in [low, high].

    >>> check_int("threshold", 3, low=1)
    3
    >>> check_int("threshold", 0, low=1)
    Traceback (most recent call last):
    ...
    ValueError: threshold=0 is out of range: threshold must be an integer >= 1
    """
    allowed = _int_range(low, high)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _fail(name, value, allowed)
    if isinstance(value, float) and not (math.isfinite(value) and value.is_integer()):
        raise _fail(name, value, allowed)
    ivalue = int(value)
    if (low is not None and ivalue < low) or (high is not None and ivalue > high):
        raise _fail(name, value, allowed)
    return ivalue


def check_number(name: str, value: Any, low: float | None = None,
                 high: float | None = None, *, low_open: bool = False,
                 high_open: bool = False) -> float:
    """Return ``value`` as a float if it is a finite number in range.

    ``low_open`` / ``high_open`` exclude the bound itself (``r`` in [0, 1)).

    >>> check_number("factor", 0.5, low=1)
    Traceback (most recent call last):
    ...
    ValueError: factor=0.5 is out of range: factor must be a number >= 1
    >>> check_number("r", 1.0, low=0, high=1, high_open=True)
    Traceback (most recent call last):
    ...
    ValueError: r=1.0 is out of range: r must be a number >= 0 and < 1
    """
    allowed = _num_range(low, high, low_open, high_open)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _fail(name, value, allowed)
    fvalue = float(value)
    if not math.isfinite(fvalue):
        raise _fail(name, value, allowed)
    if low is not None and (fvalue < low or (low_open and fvalue == low)):
        raise _fail(name, value, allowed)
    if high is not None and (fvalue > high or (high_open and fvalue == high)):
        raise _fail(name, value, allowed)
    return fvalue


def check_choice(name: str, value: Any, choices: tuple[str, ...]) -> str:
    """Return ``value`` if it is one of ``choices``.

    >>> check_choice("jitter", "fuzzy", ("none", "full"))
    Traceback (most recent call last):
    ...
    ValueError: jitter='fuzzy' is out of range: jitter must be one of 'none', 'full'
    """
    if not isinstance(value, str) or value not in choices:
        raise _fail(name, value, "one of " + ", ".join(repr(c) for c in choices))
    return value


def _int_range(low: int | None, high: int | None) -> str:
    if low is not None and high is not None:
        return f"an integer from {low} to {high}"
    if low is not None:
        return f"an integer >= {low}"
    if high is not None:
        return f"an integer <= {high}"
    return "an integer"


def _num_range(low: float | None, high: float | None, low_open: bool,
               high_open: bool = False) -> str:
    lo = ">" if low_open else ">="
    hi = "<" if high_open else "<="
    if low is not None and high is not None:
        return f"a number {lo} {low:g} and {hi} {high:g}"
    if low is not None:
        return f"a number {lo} {low:g}"
    if high is not None:
        return f"a number {hi} {high:g}"
    return "a finite number"
