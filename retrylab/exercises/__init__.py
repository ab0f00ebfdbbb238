"""Self-checking exercises: one module per notebook, one checker per exercise.

A checker never raises at the student: it returns a :class:`Feedback` that
shows as a short coloured message in the notebook (and plain text elsewhere).
An unanswered exercise (``None`` or ``...``) gets a gentle prompt, a wrong
answer a specific hint, a right one a confirmation.
"""

from __future__ import annotations

import html
import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Feedback:
    """The verdict on one answer."""

    correct: bool
    message: str
    answered: bool = True

    def __repr__(self) -> str:
        mark = "Correct" if self.correct else "Not yet" if not self.answered else "Try again"
        return f"{mark}: {self.message}"

    def _repr_html_(self) -> str:
        colour = "#1b7837" if self.correct else "#8c510a" if not self.answered else "#b2182b"
        return (f'<div style="border-left:4px solid {colour};padding:4px 8px">'
                f"<b>{html.escape(repr(self).split(':')[0])}:</b> "
                f"{html.escape(self.message)}</div>")

    def __bool__(self) -> bool:
        return self.correct


def unanswered(answer: Any) -> bool:
    """True for the placeholders a fresh exercise cell holds."""
    return answer is None or answer is Ellipsis


def prompt(what: str) -> Feedback:
    """The message for an exercise not answered yet."""
    return Feedback(False, f"replace the ... with {what}, then run the cell again.",
                    answered=False)


def right(message: str) -> Feedback:
    """A confirmation."""
    return Feedback(True, message)


def wrong(message: str) -> Feedback:
    """A specific hint."""
    return Feedback(False, message)


def as_number(answer: Any) -> float | None:
    """``answer`` as a finite float, or None if it is not a number (bools are not).

    >>> as_number("2.5"), as_number(True), as_number("soon")
    (2.5, None, None)
    """
    if isinstance(answer, bool):
        return None
    try:
        value = float(answer)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


def as_whole(answer: Any) -> int | None:
    """``answer`` as an int if it is a whole number, else None (2.7 is not 2).

    >>> as_whole(250), as_whole(250.0), as_whole(2.7), as_whole("x")
    (250, 250, None, None)
    """
    value = as_number(answer)
    if value is None or not value.is_integer():
        return None
    return int(value)


def as_wholes(answer: Any) -> list[int] | None:
    """``answer`` as a list of ints if it is a collection of whole numbers, else None.

    >>> as_wholes([70, 184.0]), as_wholes([70, 18.4]), as_wholes("70"), as_wholes(5)
    ([70, 184], None, None, None)
    """
    if isinstance(answer, (str, bytes)) or not isinstance(answer, Iterable):
        return None
    values = [as_whole(a) for a in answer]
    return None if any(v is None for v in values) else [v for v in values if v is not None]
