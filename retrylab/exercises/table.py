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
import importlib
import inspect
import operator
import pkgutil
import re
import string
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..core.jsround import js_round
from ..i18n import _
from . import (
    Feedback,
    as_number,
    as_numbers,
    as_whole,
    prompt,
    right,
    shown,
    unanswered,
    wrong,
)

__all__ = [
    "Exercise",
    "Mistake",
    "as_whole",
    "judge",
    "names",
    "near",
    "sealed",
    "table_of",
    "tables",
]

Inputs = Mapping[str, Any]


@dataclass(frozen=True)
class Mistake:
    """A usual wrong answer and its hint.

    ``gives(inputs)`` is the value (or a tuple of values) the mistake produces, or
    ``when(got, inputs)`` tells whether ``got`` is it; ``extra(got, inputs)`` adds
    fields the message names. The message is formatted with ``got``, ``want``, the
    inputs and the extras. ``example(inputs)`` is an answer the mistake names (or a
    tuple of them, as ``gives``), for the tests and the report, where ``gives`` does
    not say one or more are worth trying.
    """

    message: str
    gives: Callable[[Inputs], Any] | None = None
    when: Callable[[Any, Inputs], bool] | None = None
    extra: Callable[[Any, Inputs], Mapping[str, Any]] | None = None
    example: Callable[[Inputs], Any] | None = None

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

    An answer of several parts (``sent, blocked``; a count and a list) is judged as one
    tuple: ``blank`` tells when it is not given yet, ``raw`` mistakes are judged on it
    as given (before ``read``: seconds where ms are asked), ``quoted`` names its parts
    in the unreadable and the raw messages, ``given`` names the read parts in the
    others. ``about(got, fields)`` adds fields that depend on a wrong answer (its
    first wrong item, that item's place) to the mistakes and the general hint.
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
    quote: Callable[[Any], str] = shown
    quote_early: Callable[[Any, float], str] = lambda answer, number: f"{number:g}"
    #: The answer's own names in the messages (``seconds={seconds}``), besides {value}.
    named: tuple[str, ...] = ("value",)
    blank: Callable[[Any], bool] = unanswered
    raw: tuple[Mistake, ...] = ()
    quoted: Callable[[Any], Mapping[str, Any]] | None = None
    given: Callable[[Any], Mapping[str, Any]] | None = None
    about: Callable[[Any, Inputs], Mapping[str, Any]] | None = None


def judge(exercise: Exercise, answer: Any) -> Feedback:
    """The verdict of ``exercise``'s table on ``answer``: the first of right, an early
    mistake, a raw one, unreadable, a mistake, or the general hint."""
    if exercise.blank(answer):
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
    quoted = exercise.quote(answer) if exercise.raw else ""
    as_given = {
        **fields,
        "value": quoted,
        **dict.fromkeys(exercise.named, quoted),
        **(exercise.quoted(answer) if exercise.quoted is not None and exercise.raw else {}),
    }
    for m in exercise.raw:
        if m.matches(answer, fields, exercise.equal):
            return wrong(m.hint(answer, as_given))
    got = exercise.read(answer)
    if got is None:
        quoted = exercise.quote(answer)
        extra = exercise.quoted(answer) if exercise.quoted is not None else {}
        return wrong(
            _(exercise.unreadable).format(
                **{**fields, "value": quoted, **dict.fromkeys(exercise.named, quoted), **extra}
            )
        )
    shown_got = {
        **fields,
        "got": exercise.show(got),
        "value": exercise.show(got),
        **dict.fromkeys(exercise.named, exercise.show(got)),
        **(exercise.given(got) if exercise.given is not None else {}),
    }
    if exercise.equal(got, want):
        return right(_(exercise.right).format(**shown_got))
    if exercise.about is not None:
        shown_got.update(exercise.about(got, fields))
    for m in exercise.mistakes:
        if m.matches(got, fields, exercise.equal):
            return wrong(m.hint(got, shown_got))
    return wrong(_(exercise.otherwise).format(**shown_got))


def near(tolerance: float, value: Callable[[Inputs], float]) -> Callable[[Any, Inputs], bool]:
    """A mistake's test: the answer is within ``tolerance`` of ``value(inputs)``.

    >>> near(1, lambda i: i["want"] / 2)(4.5, {"want": 10})
    True
    """
    return lambda got, i: bool(abs(got - value(i)) <= tolerance)


def in_seconds(
    message: str,
    ms: Callable[[Inputs], list[int]] = lambda i: i["want"],
    numbers: Callable[[Any], list[float] | None] = as_numbers,
    example: Callable[[Inputs], Any] | None = None,
    extra: Callable[[Any, Inputs], Mapping[str, Any]] | None = None,
) -> Mistake:
    """The mistake of giving ms in seconds: ``numbers(answer)``, not all whole, are
    ``ms(inputs)`` over 1000 (each times 1000 rounded as JavaScript rounds: 0.57 x 1000
    is 569.99...). The example, unless given: those seconds; ``extra`` as a
    :class:`Mistake`'s.

    >>> m = in_seconds("{got}: those are seconds")
    >>> [m.matches(a, {"want": [70, 570]}, operator.eq) for a in ([0.07, 0.57], [70, 570], [1, 2])]
    [True, False, False]
    >>> m.example({"want": [70, 570]})
    [0.07, 0.57]
    """

    def when(answer: Any, i: Inputs) -> bool:
        given = numbers(answer)
        return (
            given is not None
            and not all(float(x).is_integer() for x in given)
            and [js_round(float(x) * 1000) for x in given] == list(ms(i))
        )

    seconds = example or (lambda i: [w / 1000 for w in ms(i)])
    return Mistake(message, when=when, extra=extra, example=seconds)


def one_in_seconds(message: str) -> Mistake:
    """:func:`in_seconds` for an answer that is one number, ``inputs["want"]`` ms.

    >>> m = one_in_seconds("{value}: that is in seconds")
    >>> [m.matches(a, {"want": 1400}, operator.eq) for a in (1.4, 1400, 2)]
    [True, False, False]
    >>> m.example({"want": 1400})
    1.4
    """
    return in_seconds(
        message,
        ms=lambda i: [i["want"]],
        numbers=lambda x: [x],
        example=lambda i: i["want"] / 1000,
    )


def sealed(salt: str, answer: Any) -> str:
    """A salted SHA-256 digest of an answer that must be stored rather than computed
    (a notebook's number, a quiz's letters): the package keeps the digest, so reading its
    source does not give the answer, and a check compares digests.

    >>> sealed("retrylab ex00 which notebook", 1)[:12]
    '9c21fbdf39c6'
    """
    return hashlib.sha256(f"{salt}:{answer}".encode()).hexdigest()


def examples(exercise: Exercise) -> list[tuple[str, Any]]:
    """(message, a wrong answer it names) for each answer a mistake (early, raw or read)
    gives or takes as its example: the tables' own examples, for the report and the
    tests.

    >>> examples(Exercise(asks="", inputs=lambda: {"n": 2}, want=lambda i: 4, read=as_whole,
    ...                   unreadable="", right="", otherwise="",
    ...                   mistakes=(Mistake("doubled", gives=lambda i: (i["n"] * 2 + 1,)),)))
    [('doubled', 5)]
    """
    inputs = exercise.inputs()
    want = exercise.want(inputs)
    fields = {**inputs, "want": want}
    if exercise.fields is not None:
        fields.update(exercise.fields(inputs, want))
    out = []
    for m in exercise.early + exercise.raw + exercise.mistakes:
        if m.example is not None:
            given = m.example(fields)
            out += [(m.message, g) for g in (given if isinstance(given, tuple) else (given,))]
        elif m.gives is not None:  # its first value: the others may be read otherwise
            given = m.gives(fields)
            out.append((m.message, given[0] if isinstance(given, tuple) and given else given))
    return out


def unexampled(exercise: Exercise) -> list[str]:
    """The messages of ``exercise``'s mistakes that give no example answer (neither
    ``gives`` nor ``example``): mistakes the tests and the report cannot try."""
    return [
        m.message
        for m in exercise.early + exercise.raw + exercise.mistakes
        if m.gives is None and m.example is None
    ]


def hints(exercise: Exercise) -> list[str]:
    """Every catalogue message of ``exercise`` (for the report and the Turkish tests)."""
    return [
        exercise.asks,
        exercise.unreadable,
        exercise.right,
        exercise.otherwise,
        *(m.message for m in exercise.early + exercise.raw + exercise.mistakes),
    ]


def names(message: str, text: str) -> bool:
    """Whether ``text`` is ``message`` (a catalogue message, in the current language)
    with its fields filled in: the hint a mistake gives, whatever the answer's numbers.

    >>> names("{got} ms is two waits.", "600 ms is two waits."), names("{got} ms", "no")
    (True, False)
    """
    pattern = "".join(
        re.escape(literal) + (".*" if field is not None else "")
        for literal, field, _spec, _conv in string.Formatter().parse(_(message))
    )
    return re.fullmatch(pattern, text, re.S) is not None


def table_of(check: Callable[..., Any]) -> Exercise | None:
    """The table a checker judges by (the :class:`Exercise` its body names), or None
    for a checker that is not a table (a build-it exercise, a design): how the report
    and the tests tell the two apart without a list.

    >>> from retrylab.exercises import ex00
    >>> table_of(ex00.check_longest_wait) is ex00.LONGEST, table_of(ex00.check_which_notebook)
    (True, None)
    """
    fn = inspect.unwrap(check)
    code = getattr(fn, "__code__", None)
    found = (getattr(fn, "__globals__", {}).get(n) for n in (code.co_names if code else ()))
    return next((t for t in found if isinstance(t, Exercise)), None)


def tables() -> list[tuple[str, Exercise]]:
    """Every :class:`Exercise` the exercises package defines, as ("ex06.WAVES", table):
    what the report, the table tests and the Turkish check iterate, so a new table or a
    new mistake needs no list edited.

    >>> {"ex00.LONGEST", "ex06.WAVES"} <= dict(tables()).keys()
    True
    """
    from .. import exercises

    found = []
    for info in pkgutil.walk_packages(exercises.__path__, "retrylab.exercises."):
        module = importlib.import_module(info.name)
        found += [
            (f"{info.name.rsplit('.', 1)[1]}.{name}", value)
            for name, value in vars(module).items()
            if isinstance(value, Exercise)
        ]
    return found
