"""The harness of the build-it-yourself checkers: the lesson's data, running the
student's code under a time limit, and reading what it returns.

Used by :mod:`retrylab.exercises.build` (waits and the rule),
:mod:`retrylab.exercises.build.loop` (the loop),
:mod:`retrylab.exercises.build.breaker` (the breaker) and
:mod:`retrylab.exercises.ex09` (notebook 09's functions).
"""

from __future__ import annotations

import contextlib
import dis
import functools
import math
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from types import CodeType, FunctionType, ModuleType
from typing import Any

import numpy as np

from ...core import constants as _lesson  # the lesson's data: read only in the block below
from ...core.backoff import Backoff
from ...core.outcome import Outcome
from ...i18n import N_, _, pgettext
from .. import Feedback, prompt, shown, stop, wrong

# -- the lesson's data: the one place this module reads retrylab.lesson -------
SEED: int = _lesson.SEED
BASE: int = _lesson.BASE  # TABAN, ms
FACTOR: int = _lesson.FACTOR  # CARPAN
CAP: int = _lesson.CAP  # TAVAN, ms
BREAKER_EVENTS: tuple[tuple[int, bool], ...] = _lesson.BREAKER_EVENTS
#: label (tr), label (en), method, path, max attempts, for each of the loop's scenarios
RETRY_SCENARIOS: tuple[tuple[str, str, str, str, int], ...] = _lesson.RETRY_SCENARIOS
BREAKER_THRESHOLD, BREAKER_COOLDOWN = 3, 5000  # the lesson's ESIK and SOGUMA
# -----------------------------------------------------------------------------

#: Seconds one call of the student's code may take; tests may lower it.
TIME_LIMIT = 3.0
#: More calls than this of send() or sleep() in one run mean the loop does not stop.
SEND_LIMIT = 50
SLEEP_LIMIT = 50
DRAW_LIMIT = 1000

FULL = Backoff(BASE, FACTOR, CAP, jitter="full")
DECO = Backoff(BASE, FACTOR, CAP, jitter="decorrelated")

#: What the server answers in each of the loop lesson's scenarios (the last one repeats).
LESSON_SCRIPTS: tuple[tuple[Outcome, ...], ...] = (
    (Outcome.http(503), Outcome.http(503), Outcome.success([{"kimlik": "o-114"}])),
    (Outcome.http(422),),
    (Outcome.http(429, retry_after=2),),
    (Outcome.http(404),),
)


def untouched(fn: Any) -> bool:
    """True if ``fn`` (a function or method) still has the scaffold's empty body.

    Comments and a docstring do not count; any statement does, so a function
    that computes but forgets ``return`` is not untouched.

    >>> def scaffold(n, r):
    ...     'The wait.'
    ...     ...
    >>> def forgot(n, r):
    ...     wait = r * 200
    >>> untouched(scaffold), untouched(forgot)
    (True, False)
    """
    code = getattr(getattr(fn, "__func__", fn), "__code__", None)
    if code is None:
        return False
    ops = [
        (i.opname, i.argval)
        for i in dis.get_instructions(code)
        if i.opname not in ("RESUME", "NOP", "CACHE")
    ]
    return ops in ([("LOAD_CONST", None), ("RETURN_VALUE", None)], [("RETURN_CONST", None)])


# == running the student's code ==================================================


class Verdict(Exception):
    """Ends a battery early with a verdict."""

    def __init__(self, feedback: Feedback) -> None:
        super().__init__(feedback.message)
        self.feedback = feedback


class Tripped(BaseException):
    """Raised into the student's loop by our send()/sleep()/rng() past their limit.

    A BaseException, so that a loop catching ``Exception`` around send() does
    not swallow it.
    """


@dataclass
class Session:
    """One checking run: what the student's code is doing, and the entry points of
    retrylab it must not call (``forbidden``: a "write it yourself" answer that calls
    the library's own implementation is named, not judged)."""

    what: str = ""
    calls: int = 0
    tripped: str = ""
    scaffold: str = "your function"
    returns: str = ""  #: what the function returns, for "did it return ...?"
    student: bool = False  #: the student's code is running now
    delegated: str = ""  #: the first forbidden entry point it called

    def call(self, what: str, fn: Callable[..., Any], *args: Any, answer: bool = True) -> Any:
        """Call the student's code on ``args`` with :data:`TIME_LIMIT` seconds; a
        failure ends the battery with a verdict.

        The first ``answer`` call returning None or ``...`` is an unfilled scaffold.
        """
        self.what = what
        first = answer and self.calls == 0
        self.calls += answer
        watch = stop.active()
        if watch is not None:
            watch.start_call(TIME_LIMIT)
        self.student = True
        try:
            value = fn(*args)
        except Tripped:
            raise Verdict(wrong(self._tripped_message())) from None
        except stop.Stopped as e:
            if e.what != "call" or watch is None:
                raise
            watch.clear()
            if self.tripped:
                raise Verdict(wrong(self._tripped_message())) from None
            raise Verdict(
                wrong(
                    _(
                        "stopped after {seconds} s: {what} did not return. Is "
                        "there a loop that never ends? Your code was stopped with "
                        "this verdict: nothing of it keeps running."
                    ).format(seconds=f"{TIME_LIMIT:g}", what=what)
                )
            ) from None
        except NotImplementedError:
            raise Verdict(prompt(self.scaffold)) from None
        except MemoryError:
            raise
        except BaseException as e:  # the student's bug, SystemExit included: a verdict
            if self.tripped:
                raise Verdict(wrong(self._tripped_message())) from None
            raise Verdict(
                wrong(_("{what} raised {error}").format(what=what, error=described(e)))
            ) from None
        finally:
            self.student = False
            if watch is not None:
                watch.end_call()
        if self.delegated:
            raise Verdict(
                wrong(
                    _(
                        "{what} calls retrylab's {name}: the exercise is to write "
                        "it yourself, not to call the library's own "
                        "implementation."
                    ).format(what=what, name=self.delegated)
                )
            )
        if self.tripped:
            raise Verdict(wrong(self._tripped_message()))
        if first and (value is Ellipsis or (value is None and untouched(fn))):
            raise Verdict(prompt(self.scaffold))
        if first and value is None:
            raise Verdict(
                wrong(
                    _("{what} returned None: did it `return` {result}?").format(
                        what=what, result=self.returns or pgettext("return value", "its answer")
                    )
                )
            )
        return value

    def _tripped_message(self) -> str:
        limits = {"send": SEND_LIMIT, "sleep": SLEEP_LIMIT, "rng": DRAW_LIMIT}
        texts = {
            "send": N_(
                "{what} called send() more than {limit} times: is the attempt limit checked?"
            ),
            "sleep": N_(
                "{what} called sleep() more than {limit} times: does the loop "
                "stop after the last attempt?"
            ),
            "rng": N_("{what} called rng() more than {limit} times: one draw per wait is enough."),
        }
        t = self.tripped
        return _(texts[t]).format(what=self.what, limit=limits[t])


def described(error: BaseException) -> str:
    """``"Kind: message"`` for an exception the student's code raised (its str may fail).

    >>> described(SystemExit(3))
    'SystemExit: 3'
    """
    try:
        with stop.watched(1.0):
            text = str(error)
    except BaseException:  # a student's exception whose str fails or loops
        text = "?"
    return f"{type(error).__name__}: {text[:200]}"


@contextmanager
def tripwires(session: Session, entry_points: Sequence[tuple[type, str]]) -> Iterator[None]:
    """Wrap ``entry_points`` (a class and one of its methods) for the check: a call
    while the student's code runs is recorded in ``session.delegated``; the checker's
    own calls pass through. The methods are put back after."""
    saved: list[tuple[type, str, Any, Any]] = []
    for owner, name in entry_points:
        original = vars(owner).get(name)
        if not isinstance(original, FunctionType):
            continue

        def tripwire(
            *args: Any,
            __original: Any = original,
            __label: str = f"{owner.__name__}.{name}",
            **kwargs: Any,
        ) -> Any:
            if session.student and not session.delegated:
                session.delegated = __label
            return __original(*args, **kwargs)

        functools.update_wrapper(tripwire, original)
        saved.append((owner, name, original, tripwire))
        setattr(owner, name, tripwire)
    try:
        yield
    finally:
        for owner, name, original, tripwire in saved:
            if vars(owner).get(name) is tripwire:  # else the answer patched it: named
                setattr(owner, name, original)  # and put back by the check's engine


def reaches(fn: Any, forbidden: Sequence[Any]) -> str:
    """The name of the first of ``forbidden`` (functions, classes) that ``fn``'s code
    names, through its globals or its closure, or ``""``; a class is checked through
    its bases and its methods.

    >>> from retrylab.core.backoff import Backoff
    >>> def delegates(n, r):
    ...     return Backoff(200, 2, 5000, jitter="full").next_wait(n, r)
    >>> reaches(delegates, [Backoff]), reaches(lambda n, r: n, [Backoff])
    ('Backoff', '')
    """
    try:
        with stop.watched(1.0):
            return _reaches(fn, tuple(forbidden))
    except BaseException:  # an answer that fights being read: the run judges it
        return ""


def _reaches(fn: Any, forbidden: tuple[Any, ...]) -> str:
    for f in forbidden:
        if fn is f or getattr(fn, "__func__", None) is f:
            return str(getattr(f, "__name__", f))
    if isinstance(fn, type):
        for base in fn.__mro__[1:]:
            if any(base is f for f in forbidden):
                return base.__name__
        for value in vars(fn).values():
            found = _reaches(getattr(value, "__func__", value), forbidden)
            if found:
                return found
        return ""
    fn = getattr(fn, "__func__", fn)
    code = getattr(fn, "__code__", None)
    if not isinstance(code, CodeType):
        return ""
    scope: dict[str, Any] = dict(getattr(fn, "__globals__", {}))
    for name, cell in zip(code.co_freevars, getattr(fn, "__closure__", None) or (), strict=False):
        with contextlib.suppress(ValueError):  # an empty cell has no contents
            scope[name] = cell.cell_contents
    names = set(code.co_freevars)
    todo = [code]
    while todo:
        c = todo.pop()
        names.update(c.co_names)
        todo += [k for k in c.co_consts if isinstance(k, CodeType)]
    labels = {getattr(f, "__name__", "") for f in forbidden}
    for name in names:
        value = scope.get(name)
        if any(value is f for f in forbidden):
            return name
        if isinstance(value, ModuleType) and value.__name__.split(".")[0] == "retrylab":
            hit = sorted(labels & names)
            if hit:
                return hit[0]
    return ""


#: Seconds a stopped answer has to end before the verdict says it could not be stopped
#: (kept for the tests of an older harness; the timer's stop ends it at once).
STOP_GRACE = 1.0


def run(
    battery: Callable[[Session], Feedback],
    scaffold: str,
    returns: str = "",
    forbidden: Sequence[Any] = (),
    entry_points: Sequence[tuple[type, str]] = (),
    answer: Any = None,
) -> Feedback:
    """Judge with ``battery``, under the check's stop (:mod:`retrylab.exercises.stop`,
    given by :func:`retrylab.exercises.checker`): each call of the student's code
    through :meth:`Session.call` has :data:`TIME_LIMIT` seconds. ``answer`` naming one of
    ``forbidden`` in its code, or calling one of ``entry_points`` while it runs, is
    named as delegating to the library."""
    session = Session(scaffold=scaffold, returns=returns)
    name = reaches(answer, forbidden) if forbidden else ""
    if name:
        return wrong(
            _(
                "{what} calls retrylab's {name}: the exercise is to write it "
                "yourself, not to call the library's own implementation."
            ).format(what=scaffold, name=name)
        )
    try:
        with stop.watched(stop.CHECK_LIMIT), tripwires(session, entry_points):
            return battery(session)
    except Verdict as v:
        return v.feedback


def not_callable(answer: Any, expected: str) -> Feedback:
    return wrong(
        _("expected {expected}; got {answer}, of type {kind}.").format(
            expected=expected, answer=shown(answer), kind=type(answer).__name__
        )
    )


# == reading answers ===============================================================


def as_ms(value: Any, what: str) -> int:
    """``value`` as whole milliseconds (ints, whole floats, numpy numbers), or a verdict."""
    if isinstance(value, (bool, np.bool_)):
        raise Verdict(
            wrong(
                _(
                    "{what} returned {value}, a bool: a wait is a whole number of milliseconds."
                ).format(what=what, value=repr(value))
            )
        )
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        if math.isfinite(value) and float(value).is_integer():
            return int(value)
        raise Verdict(
            wrong(
                _(
                    "{what} returned {value}: a wait is whole milliseconds; round "
                    "it with Math.round (retrylab.js_round)."
                ).format(what=what, value=repr(float(value)))
            )
        )
    raise Verdict(
        wrong(
            _(
                "{what} returned {value}, of type {kind}: return the wait as a "
                "whole number of milliseconds (an int)."
            ).format(what=what, value=shown(value), kind=type(value).__name__)
        )
    )


def as_bool(value: Any, what: str) -> bool:
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise Verdict(
        wrong(
            _("{what} returned {value}, of type {kind}: return True or False.").format(
                what=what, value=shown(value), kind=type(value).__name__
            )
        )
    )


def quiet(session: Session, fn: Callable[[], Any]) -> Any:
    """Run a diagnostic probe; None if the student's code fails on it."""
    try:
        return fn()
    except Exception:  # Verdict, or a missing method: no diagnosis from this probe
        return None
