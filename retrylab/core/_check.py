"""Argument checks shared by every constructor: one clear message format.

Every message names the argument, the value it got and the allowed range, so a
student who drags a slider to an odd value reads what to change.

One kind of error for one kind of mistake: a value of the wrong *type* (a
string for a number, a float for a bool) raises :class:`ArgumentTypeError`, a
``TypeError``; a value of the right type outside its range (NaN, infinity, a
negative count, a size over a limit) raises ``ValueError``. ArgumentTypeError
is also a ValueError, so code written when every check raised ValueError (the
design's "every constructor raises ValueError naming the argument") still
catches it.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np


class ArgumentTypeError(TypeError, ValueError):
    """An argument of the wrong type: a TypeError, and a ValueError for older callers.

    >>> issubclass(ArgumentTypeError, TypeError), issubclass(ArgumentTypeError, ValueError)
    (True, True)
    """


ArgumentTypeError.__module__ = "retrylab"  # shown as retrylab.ArgumentTypeError


def _fail(
    name: str, value: Any, allowed: str, low: float | None = None, high: float | None = None
) -> ValueError:
    """The error for a value outside its range. It carries the argument and its bounds as
    data, ``name``, ``value``, ``low``, ``high`` (a bound is ``None`` when there is none),
    so a caller says more than the message without reading its words. A plain ValueError
    (no subclass), so its traceback reads as every other range error's.

    >>> try:
    ...     check_int("threshold", 0, low=1)
    ... except ValueError as exc:
    ...     print(exc.name, exc.value, exc.low, exc.high)  # type: ignore[attr-defined]
    threshold 0 1 None
    """
    exc = ValueError(f"{name}={_shown(value)} is out of range: {name} must be {allowed}")
    exc.name, exc.value, exc.low, exc.high = name, value, low, high  # type: ignore[attr-defined]
    return exc


def type_error(name: str, value: Any, allowed: str) -> ArgumentTypeError:
    """The error for a value of the wrong type, in the same words as a range error."""
    return ArgumentTypeError(
        f"{name}={_shown(value)} is out of range: {name} must be "
        f"{allowed}, not a {type(value).__name__}"
    )


def _shown(value: Any) -> str:
    """``repr`` cut to 80 characters: a 5,000-digit number is named, not printed."""
    text = repr(value)
    return text if len(text) <= 80 else text[:60] + f"... ({len(text)} characters)"


def check_int(name: str, value: Any, low: int | None = None, high: int | None = None) -> int:
    """Return ``value`` as an int if it is a whole number in [low, high].

    >>> check_int("threshold", 3, low=1)
    3
    >>> check_int("threshold", 0, low=1)
    Traceback (most recent call last):
    ...
    ValueError: threshold=0 is out of range: threshold must be an integer >= 1
    """
    allowed = _int_range(low, high)
    if isinstance(value, (bool, np.bool_)) or not isinstance(
        value, (int, float, np.integer, np.floating)
    ):
        raise type_error(name, value, allowed)
    if isinstance(value, float) and not (math.isfinite(value) and value.is_integer()):
        raise _fail(name, value, allowed, low, high)
    ivalue = int(value)
    if (low is not None and ivalue < low) or (high is not None and ivalue > high):
        raise _fail(name, value, allowed, low, high)
    return ivalue


def check_number(
    name: str,
    value: Any,
    low: float | None = None,
    high: float | None = None,
    *,
    low_open: bool = False,
    high_open: bool = False,
) -> float:
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
    if isinstance(value, (bool, np.bool_)) or not isinstance(
        value, (int, float, np.integer, np.floating)
    ):
        raise type_error(name, value, allowed)
    fvalue = float(value)
    if not math.isfinite(fvalue):
        raise _fail(name, value, allowed, low, high)
    if low is not None and (fvalue < low or (low_open and fvalue == low)):
        raise _fail(name, value, allowed, low, high)
    if high is not None and (fvalue > high or (high_open and fvalue == high)):
        raise _fail(name, value, allowed, low, high)
    return fvalue


def check_choice(name: str, value: Any, choices: tuple[str, ...]) -> str:
    """Return ``value`` if it is one of ``choices``.

    >>> check_choice("jitter", "fuzzy", ("none", "full"))
    Traceback (most recent call last):
    ...
    ValueError: jitter='fuzzy' is out of range: jitter must be one of 'none', 'full'
    """
    allowed = "one of " + ", ".join(repr(c) for c in choices)
    if not isinstance(value, str):
        raise type_error(name, value, allowed)
    if value not in choices:
        raise _fail(name, value, allowed)
    return value


def check_bool(name: str, value: Any) -> bool:
    """Return ``value`` if it is a bool (numpy's too); a TypeError for anything else.

    ``"False"`` is a non-empty string, so ``bool("False")`` is True: a flag
    given as text would silently mean the opposite.

    >>> check_bool("idempotency_key", True)
    True
    >>> check_bool("idempotency_key", "False")
    Traceback (most recent call last):
    ...
    retrylab.ArgumentTypeError: idempotency_key='False' is out of range: idempotency_key
    must be True or False, not a str
    """
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise type_error(name, value, "True or False")


def check_size(name: str, value: Any, limit: int) -> int:
    """Return ``value`` if it is a whole number from 0 to ``limit`` (an allocation's size).

    Use it where a number decides how much memory is taken, so a huge value is a
    clear refusal instead of a MemoryError (or minutes of work).

    >>> check_size("n", 10**12, 10**8)
    Traceback (most recent call last):
    ...
    ValueError: n=1000000000000 is out of range: n must be an integer from 0 to 100000000
    (a size limit: larger would not fit in memory)
    """
    n = check_int(name, value, low=0)
    if n > limit:
        raise _fail(
            name,
            value,
            f"an integer from 0 to {limit} (a size limit: larger would not fit in memory)",
            0,
            limit,
        )
    return n


def _int_range(low: int | None, high: int | None) -> str:
    if low is not None and high is not None:
        return f"an integer from {low} to {high}"
    if low is not None:
        return f"an integer >= {low}"
    if high is not None:
        return f"an integer <= {high}"
    return "an integer"


def _num_range(
    low: float | None, high: float | None, low_open: bool, high_open: bool = False
) -> str:
    lo = ">" if low_open else ">="
    hi = "<" if high_open else "<="
    if low is not None and high is not None:
        return f"a number {lo} {low:g} and {hi} {high:g}"
    if low is not None:
        return f"a number {lo} {low:g}"
    if high is not None:
        return f"a number {hi} {high:g}"
    return "a finite number"
