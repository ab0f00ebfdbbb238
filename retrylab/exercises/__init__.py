"""Self-checking exercises: one module per notebook, one checker per exercise.

A checker never raises at the student: it returns a :class:`Feedback` that
shows as a short coloured message in the notebook (and plain text elsewhere).
An unanswered exercise (``None`` or ``...``) gets a gentle prompt, a wrong
answer a specific hint, a right one a confirmation. Every checker reads its
answers with the one set of readers below (:func:`as_number`, :func:`as_whole`,
:func:`as_wholes`, :func:`as_items`, :func:`as_text`), so equivalent answers
(``248``, ``248.0``, ``np.int64(248)``) are judged alike in every notebook and
``True`` is never a number; :func:`checker` guarantees nothing raises.
"""

from __future__ import annotations

import enum
import functools
import html
import inspect
import math
import re
import threading
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, fields
from typing import Any, TypeVar, cast

import numpy as np

from ..core.backoff import Backoff
from ..core.policy import RetryPolicy
from ..i18n import _, current, number, parse_number, pgettext
from . import pristine, stop


@dataclass(frozen=True)
class Feedback:
    """The verdict on one answer."""

    correct: bool
    message: str
    answered: bool = True

    @property
    def verdict(self) -> str:
        """ "Correct", "Not yet" or "Try again", in the notebook's language
        (Turkish: "Doğru", "Henüz değil", "Tekrar deneyin")."""
        if self.correct:
            return pgettext("verdict", "Correct")
        if not self.answered:
            return pgettext("verdict", "Not yet")
        return pgettext("verdict", "Try again")

    def __repr__(self) -> str:
        return f"{self.verdict}: {self.message}"

    def _repr_html_(self) -> str:
        colour = "#1b7837" if self.correct else "#8c510a" if not self.answered else "#b2182b"
        return (
            f'<div style="border-left:4px solid {colour};padding:4px 8px">'
            f"<b>{html.escape(self.verdict)}:</b> "
            f"{html.escape(self.message)}</div>"
        )

    def __bool__(self) -> bool:
        return self.correct


def unanswered(answer: Any) -> bool:
    """True for the placeholders a fresh exercise cell holds."""
    return answer is None or answer is Ellipsis


def prompt(what: str) -> Feedback:
    """The message for an exercise not answered yet."""
    return Feedback(
        False,
        _("replace the ... with {what}, then run the cell again.").format(what=what),
        answered=False,
    )


def right(message: str) -> Feedback:
    """A confirmation."""
    return Feedback(True, message)


def wrong(message: str) -> Feedback:
    """A specific hint."""
    return Feedback(False, message)


#: The most items a list answer may hold (a longer one is not an answer to these exercises).
MAX_ITEMS = 1000


def shown(answer: Any, width: int = 60) -> str:
    """``repr(answer)``, shortened to ``width`` characters, for a message.

    >>> shown([1] * 100, 20)
    '[1, 1, 1, 1, 1, 1...'
    """
    try:
        with stop.watched(1.0):
            text = repr(answer)
            text = text if isinstance(text, str) else f"<{type(answer).__name__}>"
    except BaseException:  # a student's object whose repr fails or never ends
        text = f"<{type(answer).__name__}>"
    return text if len(text) <= width else text[: width - 3] + "..."


#: A number grouped by thousands the English way: "1,400", "12,000.5".
_THOUSANDS = re.compile(r"[+-]?[1-9]\d{0,2}(,\d{3})+(\.\d+)?")


def as_number(answer: Any) -> float | None:
    """``answer`` as a finite float, or None if it is not a number.

    The one reading of a numeric answer: ints, floats, numpy numbers and
    numeric strings count, a decimal comma too (``"2,33"``, as Turkish writes it,
    read by :func:`retrylab.i18n.parse_number`; in the English notebooks ``"1,400"``
    is 1400, grouped by thousands); bools (``True`` is not 1), nan, inf and
    anything else do not.

    >>> import numpy as np
    >>> as_number("2.5"), as_number(np.int64(248)), as_number(True), as_number(float("nan"))
    (2.5, 248.0, None, None)
    >>> as_number("2,33"), as_number(" 0,37 "), as_number("1,400"), as_number("2,3,3")
    (2.33, 0.37, 1400.0, None)
    """
    if isinstance(answer, (bool, np.bool_)) or answer is None:
        return None
    if not isinstance(answer, (int, float, str, np.integer, np.floating)):
        return None
    try:
        if isinstance(answer, str) and "," in answer:
            text = answer.strip()
            if current() != "tr" and _THOUSANDS.fullmatch(text):
                value = float(text.replace(",", ""))
            else:
                value = parse_number(text)
        else:
            value = float(answer)
    except (TypeError, ValueError, OverflowError):
        return None
    return value if math.isfinite(value) else None


def shown_number(value: float) -> str:
    """``value`` as ``f"{value:g}"`` writes it, in the notebook's language (Turkish: a
    decimal comma), through :func:`retrylab.i18n.number`.

    >>> shown_number(2.7), shown_number(270.0), shown_number(0.3 + 1e-12)
    ('2.7', '270', '0.3')
    """
    short = float(f"{value:g}")
    return number(int(short)) if short.is_integer() and abs(short) < 1e15 else number(short)


def as_whole(answer: Any) -> int | None:
    """``answer`` as an int if it is a whole number, else None (2.7 is not 2).

    >>> as_whole(250), as_whole(250.0), as_whole(2.7), as_whole("x"), as_whole(10**100)
    (250, 250, None, None, None)
    """
    if isinstance(answer, (int, np.integer)) and not isinstance(answer, (bool, np.bool_)):
        whole = int(answer)
        return whole if abs(whole) < 2**63 else None
    value = as_number(answer)
    if value is None or not value.is_integer() or abs(value) >= 2**63:
        return None
    return int(value)


def as_items(answer: Any) -> list[Any] | None:
    """``answer``'s items if it is a finite collection (list, tuple, set, array), else None.

    Text, mappings and one-shot iterators (which may never end) are not collections here.

    >>> as_items((1, 2)), as_items("12"), as_items({"a": 1}), as_items(iter([1]))
    ([1, 2], None, None, None)
    """
    if isinstance(answer, (str, bytes, Mapping)) or not isinstance(answer, Collection):
        return None
    if isinstance(answer, np.ndarray) and answer.ndim != 1:
        return None
    try:
        if len(answer) > MAX_ITEMS:
            return None
        return list(answer)
    except Exception:  # a student's collection that fails to iterate
        return None


def as_wholes(answer: Any) -> list[int] | None:
    """``answer`` as a list of ints if it is a collection of whole numbers, else None.

    >>> as_wholes([70, 184.0]), as_wholes([70, 18.4]), as_wholes("70"), as_wholes(5)
    ([70, 184], None, None, None)
    """
    items = as_items(answer)
    if items is None:
        return None
    values = [as_whole(a) for a in items]
    return None if any(v is None for v in values) else [v for v in values if v is not None]


def as_numbers(answer: Any) -> list[float] | None:
    """``answer`` as a list of floats if it is a collection of numbers, else None.

    >>> as_numbers([0.07, 1]), as_numbers(["x"]), as_numbers(5)
    ([0.07, 1.0], None, None)
    """
    items = as_items(answer)
    if items is None:
        return None
    values = [as_number(a) for a in items]
    return None if any(v is None for v in values) else [v for v in values if v is not None]


def as_pair(answer: Any) -> tuple[Any, Any] | None:
    """``answer`` as two items if it is a collection of exactly two, else None.

    >>> as_pair((5, 4)), as_pair([5]), as_pair("54")
    ((5, 4), None, None)
    """
    items = as_items(answer)
    return (items[0], items[1]) if items is not None and len(items) == 2 else None


def as_text(answer: Any) -> str | None:
    """``answer`` as stripped, lower-case text (an enum gives its value), else None.

    >>> import enum
    >>> class Colour(enum.Enum):
    ...     RED = "red"
    >>> as_text(" Red "), as_text(Colour.RED), as_text(3)
    ('red', 'red', None)
    """
    if isinstance(answer, enum.Enum):
        answer = answer.value
    return answer.strip().lower() if isinstance(answer, str) else None


def plain_policy(policy: RetryPolicy) -> RetryPolicy:
    """A plain copy of a student's policy, safe to simulate: a ``RetryPolicy`` and
    ``Backoff`` of the exact classes (a subclass's methods are left behind) with the
    same settings, its ``rule`` (the student's code) run under
    :func:`retrylab.exercises.stop.guarded`, even in a simulation's worker thread.

    >>> p = plain_policy(RetryPolicy(max_attempts=3, rule=lambda o, m, k: False))
    >>> type(p) is RetryPolicy, p.max_attempts, p.rule(None, "GET", False)
    (True, 3, False)
    """
    settings = {f.name: getattr(policy, f.name) for f in fields(RetryPolicy)}
    backoff = settings.get("backoff")
    if isinstance(backoff, Backoff):
        settings["backoff"] = Backoff(
            **{f.name: getattr(backoff, f.name) for f in fields(Backoff) if f.init}
        )
    if settings.get("rule") is not None:
        settings["rule"] = stop.guarded(settings["rule"])
    return RetryPolicy(**settings)


F = TypeVar("F", bound=Callable[..., Feedback])


def checker(fn: F) -> F:
    """Make ``fn`` a checker that is total: whatever the answer is or does, a Feedback.

    The one engine every public checker runs under:

    - the check runs under :func:`retrylab.exercises.stop.watched`: a time bound
      (:data:`retrylab.exercises.stop.CHECK_LIMIT`) and a memory bound, so an answer
      that loops, sleeps or allocates without end gets a verdict and nothing of it keeps
      running;
    - whatever it raises (``SystemExit``, ``KeyboardInterrupt`` and ``GeneratorExit``
      included) becomes a verdict naming it;
    - anything of retrylab the answer changed, before the check or during it
      (``Backoff.next_wait = ...``, ``Feedback.__bool__ = ...``), is put back
      (:mod:`retrylab.exercises.pristine`) and named in a "Try again" verdict.

    >>> @checker
    ... def check_half(x):
    ...     return right("yes") if 1 / x == 2 else wrong("no")
    >>> check_half(0)
    Try again: the checker could not read x=0 (ZeroDivisionError: division by zero); check...
    >>> check_half(0.5)
    Correct: yes
    """

    @functools.wraps(fn)
    def checked(*args: Any, **kwargs: Any) -> Feedback:
        return judge(fn, args, kwargs)

    return cast(F, checked)


def judge(fn: Callable[..., Feedback], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Feedback:
    """``fn(*args, **kwargs)`` under the engine's guarantees (see :func:`checker`)."""
    changed = pristine.restore()
    threads = set(threading.enumerate())
    verdict: Feedback | None = None
    error: BaseException | None = None
    try:
        with stop.watched(stop.CHECK_LIMIT):
            result = fn(*args, **kwargs)
        if isinstance(result, Feedback):
            verdict = result
        else:
            error = TypeError(f"{type(result).__name__}")
    except stop.Stopped:
        verdict = wrong(
            _(
                "stopped after {seconds} s: the check did not finish (is there a "
                "loop that never ends, in your answer or in what it returns?). "
                "Your code was stopped with this verdict: nothing of it keeps "
                "running."
            ).format(seconds=f"{stop.CHECK_LIMIT:g}")
        )
    except MemoryError:
        verdict = wrong(
            _(
                "the answer needed more memory than a check allows ({megabytes} MB "
                "more than the kernel had): is something growing without end?"
            ).format(megabytes=stop.MEMORY_LIMIT // 2**20)
        )
    except BaseException as e:  # SystemExit, KeyboardInterrupt and the rest: a verdict
        error = e
    if verdict is None or not verdict.correct:
        stop.settle(threads)
    changed += [name for name in pristine.restore() if name not in changed]
    if changed:
        return wrong(
            _(
                "your answer changed {names} in retrylab: the check put it back as "
                "it was. A check judges your code against the library's own: change "
                "your answer, not the library."
            ).format(names=", ".join(changed))
        )
    if verdict is not None:
        return verdict
    names = list(_parameters(fn))
    given = [f"{n}={shown(v)}" for n, v in zip(names, args, strict=False)]
    given += [f"{n}={shown(v)}" for n, v in kwargs.items()]
    return wrong(
        _(
            "the checker could not read {given} ({error}); check the kind of answer asked for."
        ).format(given=", ".join(given), error=_described(error))
    )


def _parameters(fn: Callable[..., Any]) -> list[str]:
    try:
        return list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return []


def _described(error: BaseException | None) -> str:
    if error is None:
        return ""
    try:
        with stop.watched(1.0):
            text = str(error)
    except BaseException:  # an exception whose str fails or loops
        text = "?"
    return f"{type(error).__name__}: {text[:200]}"


pristine.capture()  # the package as imported: what restore() puts back
