"""The harness of the build-it-yourself checkers: the lesson's data, running the
student's code under a time limit, and reading what it returns.

Used by :mod:`retrylab.exercises.build` (waits and the rule),
:mod:`retrylab.exercises.build_loop` (the loop),
:mod:`retrylab.exercises.build_breaker` (the breaker) and
:mod:`retrylab.exercises.ex09` (notebook 09's functions).
"""

from __future__ import annotations

import dis
import math
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..core import constants as _lesson  # the lesson's data: read only in the block below
from ..core.backoff import Backoff
from ..core.outcome import Outcome
from ..i18n import N_, _, pgettext
from . import Feedback, prompt, shown, wrong

# -- the lesson's data: the one place this module reads retrylab.lesson -------
SEED: int = _lesson.SEED
BASE: int = _lesson.BASE          # TABAN, ms
FACTOR: int = _lesson.FACTOR      # CARPAN
CAP: int = _lesson.CAP            # TAVAN, ms
BREAKER_EVENTS: tuple[tuple[int, bool], ...] = _lesson.BREAKER_EVENTS
#: label (tr), label (en), method, path, max attempts, for each of the loop's scenarios
RETRY_SCENARIOS: tuple[tuple[str, str, str, str, int], ...] = _lesson.RETRY_SCENARIOS
BREAKER_THRESHOLD, BREAKER_COOLDOWN = 3, 5000   # the lesson's ESIK and SOGUMA
# -----------------------------------------------------------------------------

#: Seconds one call of the student's code may take; tests may lower it.
TIME_LIMIT = 3.0
#: More calls than this of send() or sleep() in one run mean the loop does not stop.
SEND_LIMIT = 50
SLEEP_LIMIT = 50
DRAW_LIMIT = 1000

_FULL = Backoff(BASE, FACTOR, CAP, jitter="full")
_DECO = Backoff(BASE, FACTOR, CAP, jitter="decorrelated")

#: What the server answers in each of the loop lesson's scenarios (the last one repeats).
_LESSON_SCRIPTS: tuple[tuple[Outcome, ...], ...] = (
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
    ops = [(i.opname, i.argval) for i in dis.get_instructions(code)
           if i.opname not in ("RESUME", "NOP", "CACHE")]
    return ops in ([("LOAD_CONST", None), ("RETURN_VALUE", None)],
                   [("RETURN_CONST", None)])


# == running the student's code safely ==========================================


class _Stop(Exception):
    """Ends a battery early with a verdict."""

    def __init__(self, feedback: Feedback) -> None:
        super().__init__(feedback.message)
        self.feedback = feedback


class _Guard(BaseException):
    """Raised into the student's loop by our send()/sleep()/rng() past their limit.

    A BaseException, so that a loop catching ``Exception`` around send() does
    not swallow it.
    """


@dataclass
class _Session:
    """One checking run: what the student's code is doing right now."""

    what: str = ""
    since: float = 0.0
    busy: bool = False
    calls: int = 0
    tripped: str = ""
    scaffold: str = "your function"
    returns: str = ""          #: what the function returns, for "did it return ...?"
    stop: bool = False         #: set once the verdict is given: the student's code must end
    frame: Any = None          #: the student's frame that ran last (to stop it)

    def call(self, what: str, fn: Callable[..., Any], *args: Any, answer: bool = True) -> Any:
        """Call the student's code on ``args``; a failure ends the battery with a verdict.

        The first ``answer`` call returning None or ``...`` is an unfilled scaffold.
        """
        self.what, self.since, self.busy = what, time.monotonic(), True
        first = answer and self.calls == 0
        self.calls += answer
        try:
            value = fn(*args)
        except _Guard:
            raise _Stop(wrong(self._tripped_message())) from None
        except _Timeout:
            raise
        except NotImplementedError:
            raise _Stop(prompt(self.scaffold)) from None
        except BaseException as e:  # the student's bug, reported, never raised
            if self.tripped:
                raise _Stop(wrong(self._tripped_message())) from None
            raise _Stop(wrong(_("{what} raised {error}").format(
                what=what, error=f"{type(e).__name__}: {e}"))) from None
        finally:
            self.busy = False
        if self.tripped:
            raise _Stop(wrong(self._tripped_message()))
        if first and (value is Ellipsis or (value is None and untouched(fn))):
            raise _Stop(prompt(self.scaffold))
        if first and value is None:
            raise _Stop(wrong(_("{what} returned None: did it `return` {result}?")
                              .format(what=what, result=self.returns
                                      or pgettext("return value", "its answer"))))
        return value

    def _tripped_message(self) -> str:
        limits = {"send": SEND_LIMIT, "sleep": SLEEP_LIMIT, "rng": DRAW_LIMIT}
        texts = {"send": N_("{what} called send() more than {limit} times: is the attempt "
                            "limit checked?"),
                 "sleep": N_("{what} called sleep() more than {limit} times: does the loop "
                             "stop after the last attempt?"),
                 "rng": N_("{what} called rng() more than {limit} times: one draw per wait "
                           "is enough.")}
        t = self.tripped
        return _(texts[t]).format(what=self.what, limit=limits[t])


#: Seconds a whole check may take before it is stopped.
CHECK_LIMIT = 60.0
#: Seconds a stopped answer has to end before the verdict says it could not be stopped.
STOP_GRACE = 1.0
#: The package's own code: not traced line by line (only the student's code is).
_PACKAGE = str(Path(__file__).resolve().parents[1])


class _Timeout(BaseException):
    """Raised into the student's code by the trace hook once its verdict is given.

    A BaseException, so that ``except Exception`` in the student's loop does not
    swallow it.
    """


def _tracer(session: _Session) -> Callable[..., Any]:
    """A :func:`sys.settrace` hook: it records the frame called last and, once
    ``session.stop`` is set, raises :class:`_Timeout` at the next call. Lines are not
    traced while the check runs (that would slow every answer); :func:`_stop` turns
    line and instruction events on for the frames still running."""
    def on_call(frame: Any, event: str, arg: Any) -> Any:
        if session.stop:
            raise _Timeout
        session.frame = frame
        return None
    return on_call


def _raise_now(session: _Session) -> Callable[..., Any]:
    def local(frame: Any, event: str, arg: Any) -> Any:
        raise _Timeout
    return local


#: Frames never stopped: the package's own and the thread's machinery.
_SPARED = (_PACKAGE, threading.__file__)


def _stop(session: _Session) -> None:
    """Ask the student's code to end with its verdict.

    The frame running now is the frame called last or one of its callers (any later
    call would have been recorded), so each of the student's frames on that chain gets
    a local trace with instruction events (``f_trace``, ``f_trace_opcodes``, as a
    debugger sets them): its next instruction raises :class:`_Timeout`.
    """
    session.stop = True
    frame = session.frame
    local = _raise_now(session)
    while frame is not None:
        if not frame.f_code.co_filename.startswith(_SPARED):
            frame.f_trace = local
            frame.f_trace_opcodes = True
        frame = frame.f_back


def _watch(battery: Callable[[_Session], Feedback], session: _Session) -> Feedback:
    """Run ``battery`` in a thread of this process; give the verdict on a call that
    exceeds TIME_LIMIT, and stop the student's code with it.

    The thread traces the student's frames (:func:`sys.settrace`, the documented
    hook debuggers use): once the verdict is given, the next line the student's
    code runs raises :class:`_Timeout`, so an endless Python loop ends with its
    verdict and nothing keeps running. No process is started: nothing is forked
    (fork in a threaded kernel is deprecated from Python 3.12), nothing pickled.
    Code busy outside Python (a real ``time.sleep``, one huge calculation) or a
    bare ``except:`` that swallows the stop cannot be stopped so; the message says so.
    """
    box: list[Feedback] = []

    def target() -> None:
        sys.settrace(_tracer(session))
        try:
            box.append(battery(session))
        except _Stop as stop:
            box.append(stop.feedback)
        except _Timeout:
            pass   # stopped: the watcher gives the verdict
        except BaseException as e:  # a bug of the checker itself: still no exception
            box.append(wrong(_("the checker could not judge this answer ({error})")
                             .format(error=f"{type(e).__name__}: {e}")))
        finally:
            sys.settrace(None)

    thread = threading.Thread(target=target, daemon=True, name="retrylab-build-check")
    began = time.monotonic()
    thread.start()
    while thread.is_alive():
        thread.join(0.005)
        if not thread.is_alive():
            break
        now = time.monotonic()
        late = session.busy and now - session.since > TIME_LIMIT
        if late or now - began > CHECK_LIMIT:
            _stop(session)
            thread.join(STOP_GRACE)
            return wrong(_verdict_on_stop(session, late, stopped=not thread.is_alive()))
    return box[0] if box else wrong(_("the checker could not judge this answer"))


def _verdict_on_stop(session: _Session, late: bool, stopped: bool) -> str:
    if session.tripped:
        return session._tripped_message()
    if not stopped:
        return _("{what} did not return within {seconds} s and could not be stopped: it "
                 "is busy outside Python code (a real time.sleep, one huge calculation) or "
                 "a bare except: catches the stop. It keeps running until you restart the "
                 "kernel (Kernel > Restart).").format(
                     what=session.what, seconds=f"{TIME_LIMIT:g}")
    if late:
        return _("stopped after {seconds} s: {what} did not return. Is there a loop that "
                 "never ends? Your code was stopped with this verdict: nothing of it keeps "
                 "running.").format(seconds=f"{TIME_LIMIT:g}", what=session.what)
    return _("stopped after {seconds} s: the check of {what} did not finish (is there a "
             "loop that never ends?). Your code was stopped with this verdict.").format(
                 seconds=f"{CHECK_LIMIT:g}", what=session.scaffold)


def _run(battery: Callable[[_Session], Feedback], scaffold: str, returns: str = "") -> Feedback:
    """Judge with ``battery``; a runaway answer is stopped with its verdict (see
    :func:`_watch`)."""
    return _watch(battery, _Session(scaffold=scaffold, returns=returns))


def _not_callable(answer: Any, expected: str) -> Feedback:
    return wrong(_("expected {expected}; got {answer}, of type {kind}.").format(
        expected=expected, answer=shown(answer), kind=type(answer).__name__))


# == reading answers ===============================================================


def _as_ms(value: Any, what: str) -> int:
    """``value`` as whole milliseconds (ints, whole floats, numpy numbers), or a verdict."""
    if isinstance(value, (bool, np.bool_)):
        raise _Stop(wrong(_("{what} returned {value}, a bool: a wait is a whole number of "
                            "milliseconds.").format(what=what, value=repr(value))))
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        if math.isfinite(value) and float(value).is_integer():
            return int(value)
        raise _Stop(wrong(_("{what} returned {value}: a wait is whole milliseconds; round "
                            "it with Math.round (retrylab.js_round).")
                          .format(what=what, value=repr(float(value)))))
    raise _Stop(wrong(_("{what} returned {value}, of type {kind}: return the wait as a "
                        "whole number of milliseconds (an int).")
                      .format(what=what, value=shown(value), kind=type(value).__name__)))


def _as_bool(value: Any, what: str) -> bool:
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise _Stop(wrong(_("{what} returned {value}, of type {kind}: return True or False.")
                      .format(what=what, value=shown(value), kind=type(value).__name__)))


def _quiet(session: _Session, fn: Callable[[], Any]) -> Any:
    """Run a diagnostic probe; None if the student's code fails on it."""
    try:
        return fn()
    except Exception:  # _Stop, or a missing method: no diagnosis from this probe
        return None

