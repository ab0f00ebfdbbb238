"""An exercise as data, and the one engine that judges every such table.

An :class:`Exercise` says what is wanted (a function of the exercise's inputs,
never a pasted literal), how an answer is read and what counts as equal, and its
usual mistakes as a table: each :class:`Mistake` is a small function of the same
inputs (the wrong value it gives, or a test of the answer) and one catalogue
message (marked with ``N_``, translated when shown). :func:`judge` reads any such
table; a checker is ``judge(EXERCISE, answer)`` under :func:`~retrylab.exercises.checker`.

>>> from retrylab.i18n import N_
>>> SQUARE = Exercise(
...     asks=N_("a whole number of calls"),
...     inputs=lambda: {"side": 3},
...     want=lambda i: i["side"] ** 2,
...     fields=lambda i, want: {"calls": want},
...     read=as_whole,
...     unreadable=N_("calls={value}: give a whole number of calls, e.g. 20."),
...     right=N_("3 x 3 x 3 x 3 = {calls} calls reach the database for one user request."),
...     otherwise=N_("calls={got}: with the bottom down every attempt fails, so each "
...                  "layer multiplies the calls by 3."),
...     mistakes=(Mistake(N_("27 is three layers. There is a fourth retrying layer now."),
...                       gives=lambda i: i["side"] ** 3),))
>>> judge(SQUARE, 27)
Try again: 27 is three layers. There is a fourth retrying layer now.
>>> judge(SQUARE, 9.0).correct, judge(SQUARE, 8).message[:8]
(True, 'calls=8:')
"""

from __future__ import annotations

import hashlib
import operator
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..i18n import _
from . import Feedback, as_number, as_whole, prompt, right, unanswered, wrong

__all__ = ["Exercise", "Mistake", "as_whole", "judge", "sealed"]

Inputs = Mapping[str, Any]


@dataclass(frozen=True)
class Mistake:
    """A usual wrong answer and its hint.

    ``gives(inputs)`` is the value (or a tuple of values) the mistake produces, or
    ``when(got, inputs)`` tells whether ``got`` is it; ``extra(got, inputs)`` adds
    fields the message names. The message is formatted with ``got``, ``want``, the
    inputs and the extras.
    """

    message: str
    gives: Callable[[Inputs], Any] | None = None
    when: Callable[[Any, Inputs], bool] | None = None
    extra: Callable[[Any, Inputs], Mapping[str, Any]] | None = None

    def matches(self, got: Any, inputs: Inputs, equal: Callable[[Any, Any], bool]) -> bool:
        if self.when is not None:
            return bool(self.when(got, inputs))
        if self.gives is None:
            return False
        given = self.gives(inputs)
        values = given if isinstance(given, tuple) else (given,)
        return any(equal(got, v) for v in values)

    def hint(self, got: Any, fields: Mapping[str, Any]) -> str:
        extra = self.extra(got, fields) if self.extra is not None else {}
        return _(self.message).format(**{**fields, **extra})


@dataclass(frozen=True)
class Exercise:
    """One exercise: its inputs, what is wanted, how an answer is read and compared,
    and its mistakes.

    ``early`` mistakes are judged on the answer read as any number (``as_number``),
    before ``read``: a share for a count, tokens for requests. ``show`` writes the
    answer into a message as ``{got}`` (and ``{value}``); ``quote`` and ``quote_early``
    quote the raw answer as ``{value}`` in the unreadable and the early messages.
    """

    asks: str
    inputs: Callable[[], Inputs]
    want: Callable[[Inputs], Any]
    read: Callable[[Any], Any]
    unreadable: str
    right: str
    otherwise: str
    mistakes: tuple[Mistake, ...] = ()
    early: tuple[Mistake, ...] = ()
    equal: Callable[[Any, Any], bool] = operator.eq
    show: Callable[[Any], Any] = lambda got: got
    fields: Callable[[Inputs, Any], Mapping[str, Any]] | None = None
    #: How an unreadable answer, and one an early mistake names, are quoted as {value}.
    quote: Callable[[Any], str] = lambda answer: _clipped(answer, 60)
    quote_early: Callable[[Any, float], str] = lambda answer, number: f"{number:g}"
    #: The answer's own names in the messages (``seconds={seconds}``), besides {value}.
    named: tuple[str, ...] = ("value",)


def _clipped(answer: Any, width: int) -> str:
    from . import shown

    text = shown(answer, 10 * width)
    return text[:width]


def judge(exercise: Exercise, answer: Any) -> Feedback:
    """The verdict of ``exercise``'s table on ``answer``: the first of right, an early
    mistake, unreadable, a mistake, or the general hint."""
    if unanswered(answer):
        return prompt(_(exercise.asks))
    inputs = exercise.inputs()
    want = exercise.want(inputs)
    fields: dict[str, Any] = {**inputs, "want": want}
    if exercise.fields is not None:
        fields.update(exercise.fields(inputs, want))
    number = as_number(answer)
    if number is not None:
        for m in exercise.early:
            if m.matches(number, fields, exercise.equal):
                quoted = exercise.quote_early(answer, number)
                return wrong(
                    m.hint(
                        number, {**fields, "value": quoted, **dict.fromkeys(exercise.named, quoted)}
                    )
                )
    got = exercise.read(answer)
    if got is None:
        quoted = exercise.quote(answer)
        return wrong(
            _(exercise.unreadable).format(
                **{"value": quoted, **dict.fromkeys(exercise.named, quoted)}
            )
        )
    shown_got = {
        **fields,
        "got": exercise.show(got),
        "value": exercise.show(got),
        **dict.fromkeys(exercise.named, exercise.show(got)),
    }
    if exercise.equal(got, want):
        return right(_(exercise.right).format(**shown_got))
    for m in exercise.mistakes:
        if m.matches(got, fields, exercise.equal):
            return wrong(m.hint(got, shown_got))
    return wrong(_(exercise.otherwise).format(**shown_got))


def sealed(salt: str, answer: Any) -> str:
    """A salted SHA-256 digest of an answer that must be stored rather than computed
    (a notebook's number, a quiz's letters): the package keeps the digest, so reading its
    source does not give the answer, and a check compares digests.

    >>> sealed("retrylab ex00 which notebook", 1)[:12]
    '9c21fbdf39c6'
    """
    return hashlib.sha256(f"{salt}:{answer}".encode()).hexdigest()


def examples(exercise: Exercise) -> list[tuple[str, Any]]:
    """(message, a wrong answer it names) for each mistake that says the value it gives:
    the tables' own examples, for the report and the tests.

    >>> examples(Exercise(asks="", inputs=lambda: {"n": 2}, want=lambda i: 4, read=as_whole,
    ...                   unreadable="", right="", otherwise="",
    ...                   mistakes=(Mistake("doubled", gives=lambda i: (i["n"] * 2 + 1,)),)))
    [('doubled', 5)]
    """
    inputs = exercise.inputs()
    want = exercise.want(inputs)
    fields = {**inputs, "want": want}
    out = []
    for m in exercise.mistakes:
        if m.gives is not None:
            given = m.gives(fields)
            out.append((m.message, given[0] if isinstance(given, tuple) else given))
    return out


def hints(exercise: Exercise) -> list[str]:
    """Every catalogue message of ``exercise`` (for the report and the Turkish tests)."""
    return [
        exercise.asks,
        exercise.unreadable,
        exercise.right,
        exercise.otherwise,
        *(m.message for m in exercise.early + exercise.mistakes),
    ]
