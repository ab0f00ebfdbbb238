"""Self-checking exercises: one module per notebook, one checker per exercise.

A checker never raises at the student: it returns a :class:`Feedback` that
shows as a short coloured message in the notebook (and plain text elsewhere).
An unanswered exercise (``None`` or ``...``) gets a gentle prompt, a wrong
answer a specific hint, a right one a confirmation.
"""

from __future__ import annotations

import html
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
