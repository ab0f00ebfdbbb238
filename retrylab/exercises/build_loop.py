"""Checkers for the retry loop and the circuit breaker the student writes.

Part of :mod:`retrylab.exercises.build` (import the checkers from there); see
its docstring for how the checkers judge.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..core.breaker import CircuitBreaker
from ..core.outcome import Outcome
from ..core.policy import RetryPolicy
from ..core.rng import Mulberry32
from ..i18n import pgettext
from . import Feedback, prompt, right, unanswered, wrong
from ._build_harness import (
    _FULL,
    _LESSON_SCRIPTS,
    BREAKER_COOLDOWN,
    BREAKER_EVENTS,
    BREAKER_THRESHOLD,
    DRAW_LIMIT,
    RETRY_SCENARIOS,
    SEED,
    SEND_LIMIT,
    SLEEP_LIMIT,
    _as_bool,
    _as_ms,
    _Guard,
    _not_callable,
    _quiet,
    _run,
    _Session,
    _Stop,
)

# == 4. the retry loop ==================================================================


@dataclass
class _Server:
    """A scripted send(), sleep() and rng() that count their calls."""

    session: _Session | None
    outcomes: tuple[Outcome, ...]
    draws_from: Callable[[], float]
    sent: int = 0
    slept: list[Any] = field(default_factory=list)
    draws: int = 0

    def send(self) -> Outcome:
        self.sent += 1
        if self.sent > SEND_LIMIT:
            self._trip("send")
        return self.outcomes[min(self.sent, len(self.outcomes)) - 1]

    def sleep(self, ms: Any) -> None:
        self.slept.append(ms)  # checked after the run: raising here could be swallowed
        if len(self.slept) > SLEEP_LIMIT:
            self._trip("sleep")

    def rng(self) -> float:
        self.draws += 1
        if self.draws > DRAW_LIMIT:
            self._trip("rng")
        return self.draws_from()

    def _trip(self, what: str) -> None:
        if self.session is not None:
            self.session.tripped = what
        raise _Guard(what)


@dataclass(frozen=True)
class _Case:
    """One run of the loop: the server's answers, method, limit and generator."""

    outcomes: tuple[Outcome, ...]
    method: str
    max_attempts: int
    seed: int | None = None                  # Mulberry32(seed), or ...
    values: tuple[float, ...] = ()           # ... these draws (the last repeats)
    name: str = ""

    def draws(self) -> Callable[[], float]:
        if self.seed is not None:
            return Mulberry32(self.seed)
        values = self.values
        box = [0]

        def next_value() -> float:
            box[0] += 1
            return values[min(box[0], len(values)) - 1]
        return next_value

    def describe(self) -> str:
        script = ", ".join(_label(o) for o in self.outcomes)
        gen = (f"Mulberry32({self.seed})" if self.seed is not None
               else "an rng() returning " + ", ".join(f"{v:g}" for v in self.values))
        return (f"a server answering {script} (the last repeats), method {self.method!r}, "
                f"max_attempts={self.max_attempts} and {gen}")


def _label(o: Outcome) -> str:
    if o.kind == "http" and o.retry_after is not None:
        return f"{o.status} (Retry-After {o.retry_after:g} s)"
    return str(o.status) if o.kind == "http" else o.kind


@dataclass(frozen=True)
class _Seen:
    """What one run of a loop did and returned."""

    attempts: int
    outcome: Outcome
    waits: tuple[int, ...]
    sent: int
    slept: tuple[int, ...]
    draws: int

    def line(self) -> str:
        return (f"attempts={self.attempts} outcome={self.outcome.label()} "
                f"waits=[{', '.join(str(w) for w in self.waits)}]")


def _reference(case: _Case, draws_from: Callable[[], float] | None = None) -> _Seen:
    srv = _Server(None, case.outcomes, draws_from or case.draws())
    r = RetryPolicy(max_attempts=case.max_attempts, backoff=_FULL).run(
        srv.send, case.method, srv.rng, srv.sleep)
    return _Seen(r.attempts, r.outcome, tuple(r.waits), srv.sent,
                 tuple(int(w) for w in srv.slept), srv.draws)


def _student(s: _Session, fn: Callable[..., Any], case: _Case,
             draws_from: Callable[[], float] | None = None) -> _Seen:
    srv = _Server(s, case.outcomes, draws_from or case.draws())
    what = f"your loop (with {case.describe()})"
    value = s.call(what, fn, srv.send, case.method, case.max_attempts, srv.sleep, srv.rng)
    if all(hasattr(value, a) for a in ("attempts", "outcome", "waits")):
        parts: Any = (value.attempts, value.outcome, value.waits)
    elif isinstance(value, (tuple, list)) and len(value) == 3:
        parts = value
    else:
        raise _Stop(wrong(f"{what} returned {value!r}: return a tuple "
                          "(attempts, outcome, waits)."))
    attempts = _as_ms(parts[0], f"{what}, as attempts,")
    outcome = parts[1]
    if not isinstance(outcome, Outcome):
        raise _Stop(wrong(f"{what} returned {outcome!r} as the outcome: return the Outcome "
                          "that send() gave for the last attempt."))
    if isinstance(parts[2], (str, bytes)) or not isinstance(parts[2], Sequence):
        raise _Stop(wrong(f"{what} returned {parts[2]!r} as the waits: return a list of "
                          "the waits in ms."))
    waits = tuple(_as_ms(w, f"{what}, in its waits,") for w in parts[2])
    slept = tuple(_as_ms(w, f"{what}, calling sleep(),") for w in srv.slept)
    return _Seen(attempts, outcome, waits, srv.sent, slept, srv.draws)


def _loop_difference(got: _Seen, want: _Seen) -> str:
    """The first difference, beyond the summary lines; "" if none."""
    if got.sent != want.sent:
        return f" send() was called {got.sent} times, {want.sent} expected."
    if got.attempts != got.sent:
        return (f" It returned attempts={got.attempts} but called send() {got.sent} times: "
                "count every attempt, the first included.")
    if got.outcome != want.outcome:
        return " The outcome to return is the one send() gave for the last attempt."
    if got.waits != want.waits:
        return ""
    if got.slept != got.waits:
        return (f" sleep() was called with [{', '.join(str(w) for w in got.slept)}], but the "
                "waits returned differ: sleep each wait you record, and only those.")
    if got.draws != want.draws:
        return (f" rng() was called {got.draws} times; the lesson draws once per wait "
                f"({want.draws} here), even when Retry-After wins.")
    return ""


_LIMIT_CASE = _Case((Outcome.http(503),), "GET", 3, values=(0.5,))
_RA_EXACT_CASE = _Case((Outcome.http(503),) * 3 + (Outcome.http(429, retry_after=1),
                                                   Outcome.success()),
                       "GET", 6, values=(0.5, 0.5, 0.5, 0.9))
_RA_IGNORED_CASE = _Case((Outcome.http(429, retry_after=2), Outcome.success()), "GET", 4,
                         values=(0.5,))
_RA_DRAW_CASE = _Case((Outcome.http(429, retry_after=2), Outcome.http(503), Outcome.success()),
                      "GET", 4, values=(0.25, 0.75))
_N_CASE = _Case((Outcome.http(503), Outcome.http(503), Outcome.success()), "GET", 4,
                values=(0.5,))
_REFUSED = ((Outcome.http(422), "POST"), (Outcome.http(404), "GET"),
            (Outcome.network(), "POST"), (Outcome.body(), "GET"), (Outcome.cancelled(), "GET"))
_RETRIED = ((Outcome.network(), "GET"), (Outcome.http(500), "GET"),
            (Outcome.http(429), "GET"), (Outcome.http(503), "POST"))


def _loop_hint(s: _Session, fn: Callable[..., Any]) -> str:
    """Probe the student's loop for the usual mistakes; the first found, as a hint."""
    def run(case: _Case) -> _Seen | None:
        seen: _Seen | None = _quiet(s, lambda: _student(s, fn, case))
        return seen

    done = run(_Case((Outcome.success(), Outcome.success()), "GET", 4, values=(0.5,)))
    if done is not None and done.sent > 1:
        return " It sent again after a success: a success ends the loop."
    for o, m in _REFUSED:
        seen = run(_Case((o, Outcome.success()), m, 4, values=(0.5,)))
        if seen is not None and seen.sent > 1:
            return (f" It retried {_label(o)} on {m}, which the lesson's rule refuses: ask "
                    "should_retry(outcome, method) before waiting, and stop when it says no.")
    for o, m in _RETRIED:
        seen = run(_Case((o, Outcome.success()), m, 4, values=(0.5,)))
        if seen is not None and seen.sent == 1:
            return (f" It gave up after {_label(o)} on {m}, which the lesson's rule retries: "
                    "ask should_retry(outcome, method).")
    seen = run(_LIMIT_CASE)
    if seen is not None:
        if seen.sent == 4:
            return (" With max_attempts=3 against a server that always answers 503 it made 4 "
                    "attempts, one too many: max_attempts counts every attempt, the first "
                    "included (the lesson's deneme < enCokDeneme).")
        if seen.sent == 2:
            return (" With max_attempts=3 against a server that always answers 503 it made "
                    "only 2 attempts, one too few: the first attempt counts too, so there "
                    "are max_attempts - 1 waits.")
        if seen.sent == 3 and len(seen.slept) >= 3:
            return (" It slept after the last attempt: when the attempt limit is reached, "
                    "give up at once (the lesson returns before waiting).")
    seen = run(_RA_IGNORED_CASE)
    if seen is not None and seen.waits[:1] == (100,):
        return (" Retry-After was ignored (or not turned from seconds into ms): it is a "
                "lower bound on the wait, max(backoff, retry_after * 1000).")
    seen = run(_RA_EXACT_CASE)
    if seen is not None and seen.waits[3:4] == (1000,):
        return (" Retry-After was used as the exact wait, but it is a lower bound: wait "
                "max(backoff draw, retry_after * 1000), so a larger draw wins (a probe with "
                "Retry-After: 1 and a draw of 1440 ms got 1000).")
    seen = run(_RA_DRAW_CASE)
    if seen is not None and (seen.waits == (2000, 100) or seen.draws == 1):
        return (" When Retry-After won, rng() was not called: the lesson draws for every "
                "wait (Math.max(bekleme(deneme), ...) always calls bekleme), so the next "
                "waits use the next draws.")
    seen = run(_N_CASE)
    if seen is not None and seen.waits == (200, 400):
        return (" The waits are those of the next retry: n = 0 for the first retry, whose "
                "ceiling is 200 ms.")
    if seen is not None and seen.draws > 2:
        return f" It drew {seen.draws} numbers for 2 waits: the lesson draws once per wait."
    return ""


def _loop_cases() -> list[_Case]:
    """Unseen scripted servers: many seeds, methods, limits and answers."""
    pool = (Outcome.http(503), Outcome.http(500), Outcome.http(502), Outcome.http(504),
            Outcome.http(503), Outcome.network(), Outcome.http(429),
            Outcome.http(429, retry_after=0), Outcome.http(429, retry_after=1),
            Outcome.http(429, retry_after=2), Outcome.http(503, retry_after=3),
            Outcome.http(422), Outcome.http(404), Outcome.body(), Outcome.cancelled(),
            Outcome.success("ok"))
    methods = ("GET", "GET", "POST", "PUT", "HEAD")
    cases: list[_Case] = []
    for seed in range(1, 81):
        rng = Mulberry32(seed * 7919)
        length = 1 + int(rng() * 7)
        # mostly retryable failures, so that runs are long enough to be interesting
        outcomes = tuple(pool[int(rng() * (11 if i < length - 1 else len(pool)))]
                         for i in range(length))
        cases.append(_Case(outcomes, methods[int(rng() * len(methods))],
                           1 + int(rng() * 6), seed=seed))
    return cases


def check_retry_loop(fn: Any) -> Feedback:
    """Judge ``fn(send, method, max_attempts, sleep, rng) -> (attempts, outcome, waits)``.

    The lesson's loop (``yenidenDene``): send; stop on success, on a failure
    should_retry refuses, or at the attempt limit; otherwise wait
    ``max(Math.round(rng() * min(5000, 200 * 2**n)), retry_after * 1000)`` ms
    before retry n (n = 0 first), drawing even when Retry-After wins, and
    send again. Judged first on the lesson's four scenarios on one shared
    Mulberry32(20260114) ("70, 184, 2000, 2000"), then on 80 unseen servers,
    against :meth:`retrylab.RetryPolicy.run`.

    >>> from retrylab import RetryPolicy
    >>> def loop(send, method, max_attempts, sleep, rng):
    ...     r = RetryPolicy(max_attempts=max_attempts).run(send, method, rng, sleep)
    ...     return r.attempts, r.outcome, r.waits
    >>> check_retry_loop(loop)
    Correct: ... (waits 70, 184, 2000, 2000) and 80 unseen servers match...
    >>> def greedy(send, method, max_attempts, sleep, rng):
    ...     r = RetryPolicy(max_attempts=max_attempts + 1).run(send, method, rng, sleep)
    ...     return r.attempts, r.outcome, r.waits
    >>> check_retry_loop(greedy)
    Try again: ... it made 4 attempts, one too many...
    """
    if unanswered(fn):
        return prompt("your function retry(send, method, max_attempts, sleep, rng)")
    if not callable(fn):
        return _not_callable(fn, "a function retry(send, method, max_attempts, sleep, rng)")

    def battery(s: _Session) -> Feedback:
        student_rng, reference_rng = Mulberry32(SEED), Mulberry32(SEED)
        for (_tr, name, method, _path, limit), script in zip(RETRY_SCENARIOS, _LESSON_SCRIPTS,
                                                      strict=True):
            case = _Case(script, method, limit, seed=SEED, name=name)
            got = _student(s, fn, case, student_rng)
            want = _reference(case, reference_rng)
            if got != want:
                return wrong(f'the lesson\'s scenario "{name}" ({method}, max_attempts='
                             f"{limit}, the lesson's one generator shared by all four): your "
                             f"loop gave {got.line()}; the lesson prints {want.line()}."
                             + _loop_difference(got, want) + _loop_hint(s, fn))
        cases = _loop_cases()
        for case in cases:
            got = _student(s, fn, case)
            want = _reference(case)
            if got != want:
                return wrong(f"the lesson's four scenarios match, but with {case.describe()} "
                             f"your loop gave {got.line()}; the lesson's loop gives "
                             f"{want.line()}." + _loop_difference(got, want)
                             + _loop_hint(s, fn))
        return right(f"the lesson's four scenarios (waits 70, 184, 2000, 2000) and "
                     f"{len(cases)} unseen servers match: attempts, outcome, waits, sleeps "
                     "and draws.")

    return _run(battery, "your function retry(send, method, max_attempts, sleep, rng)",
                pgettext("return value", "the tuple (attempts, outcome, waits)"))


# == 5. the circuit breaker ==============================================================

#: One event: (now in ms, did the request succeed, extra allow() calls while it is in flight).
_Event = tuple[int, bool, int]


def _history(log: Sequence[str]) -> str:
    shown = list(log[-8:])
    return ("after " + ", ".join(shown) + ", ") if shown else ""


def _drive(s: _Session, cls: Any, threshold: int, cooldown: int,
           events: Sequence[_Event], lesson: bool = False) -> Feedback | None:
    """Replay ``events`` on the student's breaker and retrylab's in lockstep."""
    name = getattr(cls, "__name__", "cls")
    student = s.call(f"{name}({threshold}, {cooldown})", cls, threshold, cooldown,
                     answer=False)
    for method in ("allow", "record"):
        if not callable(getattr(student, method, None)):
            return wrong(f"{name}({threshold}, {cooldown}) has no {method}() method: the "
                         "breaker needs allow(now) -> bool and record(success, now).")
    ref = CircuitBreaker(threshold, cooldown)
    log: list[str] = []
    for row, (now, success, extra) in enumerate(events, 1):
        admitted = False
        for k in range(1 + extra):
            what = f"allow({now})"
            got = _as_bool(s.call(f"{name}(...).{what}", student.allow, now), what)
            want = ref.allow(now)
            if got != want:
                said = "lets the request through" if want else "refuses it"
                if lesson:
                    where = (f"row {row} of the lesson's trace (threshold=3, cooldown=5000): "
                             f"allow({now}) returned {got}; the lesson's breaker {said} "
                             f"(state {ref.state.value}).")
                else:
                    second = " (a second call while the trial is in flight)" if k else ""
                    where = (f"with threshold={threshold}, cooldown={cooldown}, "
                             f"{_history(log)}allow({now}){second} returned {got}; "
                             f"retrylab's CircuitBreaker {said} (state {ref.state.value}).")
                return wrong(where)
            log.append(f"allow({now}) -> {got}")
            admitted = admitted or (k == 0 and want)
            if not admitted:
                break
        if admitted:
            s.call(f"{name}(...).record({success}, {now})", student.record, success, now)
            ref.record(success, now)
            log.append(f"record({success}, {now})")
    return None


def _observe(s: _Session, cls: Any, threshold: int, cooldown: int,
             events: Sequence[_Event]) -> list[bool] | None:
    """The student's allow() answers on ``events`` (sent when allowed), None on failure."""
    def go() -> list[bool]:
        b = s.call(f"{threshold}, {cooldown}", cls, threshold, cooldown, answer=False)
        seen: list[bool] = []
        for now, success, extra in events:
            admitted = False
            for k in range(1 + extra):
                a = _as_bool(s.call(f"allow({now})", b.allow, now), f"allow({now})")
                seen.append(a)
                admitted = admitted or (k == 0 and a)
                if not admitted:
                    break
            if admitted:
                s.call(f"record({success}, {now})", b.record, success, now)
        return seen
    out: list[bool] | None = _quiet(s, go)
    return out


T, F = True, False
#: (threshold, cooldown, events, [(the student's allow() answers that show a mistake, hint)])
_BREAKER_PROBES: tuple[tuple[int, int, tuple[_Event, ...],
                             tuple[tuple[list[bool], str], ...]], ...] = (
    (3, 100, ((0, F, 0), (1, F, 0), (2, F, 0), (3, F, 0)), (
        ([T, T, F, F], "With threshold=3 it opened after 2 failures in a row: it opens on "
                       "the threshold-th failure (ardisikHata >= ESIK), not one before."),
        ([T, T, T, T], "With threshold=3 it was still closed after 3 failures in a row: the "
                       "threshold-th failure opens it (>=, not >)."))),
    (1, 100, ((0, F, 0), (100, F, 1)), (
        ([T, T, T], "While half-open your breaker let a second call through before the "
                    "trial's result came back: half-open admits ONE trial, and allow() is "
                    "False until record() reports it (the lesson's izinVer lets every call "
                    "through; with many callers that is a flood, not a trial)."),)),
    (3, 100, ((0, F, 0), (1, F, 0), (2, T, 0), (3, F, 0), (4, F, 0)), (
        ([T, T, T, T, F], "After failure, failure, success, failure your breaker opened: a "
                          "success must reset the count, the threshold counts failures IN A "
                          "ROW (ardisikHata = 0 on success)."),)),
    (1, 100, ((0, F, 0), (100, T, 0), (101, T, 0)), (
        ([T, F, T], "Exactly cooldown ms after opening, allow() must admit the trial: the "
                    "lesson's test is simdi - acilma >= SOGUMA (now - opened_at >= cooldown, "
                    "not >)."),
        ([T, F, F], "After the cooldown your breaker never let a trial through: once "
                    "now - opened_at >= cooldown it turns half-open and allow() admits one "
                    "trial."))),
    (1, 100, ((0, F, 0), (99, T, 0), (100, T, 0)), (
        ([T, T, T], "Your breaker lets a call through one ms before the cooldown is over "
                    "(with cooldown=100, 99 ms after opening): it is over only when "
                    "now - opened_at >= cooldown."),)),
    (3, 100, ((0, F, 0), (1, F, 0), (2, F, 0), (102, F, 0), (103, T, 1)), (
        ([T, T, T, T, T, T], "After the half-open trial failed at 102 ms your breaker let "
                             "calls through at 103 ms: a failed trial opens the breaker "
                             "again at once, with a fresh cooldown counted from the trial "
                             "(the lesson's 6000 ms row: acilma = simdi)."),
        ([T, T, T, T, T, F], "After the half-open trial failed at 102 ms your breaker let "
                             "a call through at 103 ms: a failed trial opens the breaker "
                             "again, with a fresh cooldown counted from the trial's time "
                             "(the lesson's 6000 ms row: acilma = simdi), not from the "
                             "first opening."))),
    (1, 100, ((0, F, 0), (100, T, 0), (101, T, 0), (102, T, 0)), (
        ([T, T, F, F], "After a successful trial the breaker must close and let calls "
                       "through again (the lesson's 11500 ms row)."),)),
)


def _breaker_hint(s: _Session, cls: Any) -> str:
    for threshold, cooldown, events, signs in _BREAKER_PROBES:
        seen = _observe(s, cls, threshold, cooldown, events)
        for answers, hint in signs:
            if seen == answers:
                return " " + hint
    return ""


def _breaker_cases() -> list[tuple[int, int, list[_Event]]]:
    """Unseen event sequences; steps land on cooldown - 1, cooldown and cooldown + 1."""
    cases: list[tuple[int, int, list[_Event]]] = []
    for seed in range(1, 61):
        rng = Mulberry32(seed * 104729)
        threshold = 1 + int(rng() * 4)
        cooldown = (1, 50, 100, 5000)[int(rng() * 4)]
        now, events = 0, []
        for _event in range(12 + int(rng() * 12)):
            step = (0, 1, cooldown - 1, cooldown, cooldown + 1, int(rng() * 2 * cooldown))
            now += step[int(rng() * len(step))]
            extra = 1 if rng() < 0.2 else 2 if rng() < 0.05 else 0
            events.append((now, rng() < 0.35, extra))
        cases.append((threshold, cooldown, events))
    return cases


def check_breaker(cls: Any) -> Feedback:
    """Judge a breaker class ``cls(threshold, cooldown)`` with ``allow(now) -> bool``
    and ``record(success, now)``.

    The rule: closed lets calls through; the threshold-th failure in a row
    opens it (a success resets the count); open refuses until
    ``now - opened_at >= cooldown``, then the first allow() admits ONE trial
    (half-open) and refuses others until it is recorded; its success closes,
    its failure re-opens with a fresh cooldown. Judged first on the lesson's
    nine-row trace, then on 60 unseen event sequences, against
    :class:`retrylab.CircuitBreaker`.

    >>> from retrylab import CircuitBreaker
    >>> check_breaker(CircuitBreaker)
    Correct: ... nine rows ...
    >>> class Forgetful(CircuitBreaker):
    ...     def record(self, success, now):
    ...         return super().record(False, now)   # a success is counted as a failure
    >>> check_breaker(Forgetful)
    Try again: row 9 of the lesson's trace ...
    """
    if unanswered(cls):
        return prompt("your class Breaker(threshold, cooldown)")
    if not callable(cls):
        return _not_callable(cls, "a class Breaker(threshold, cooldown) with allow(now) "
                                  "and record(success, now)")

    def battery(s: _Session) -> Feedback:
        events = [(now, ok, 0) for now, ok in BREAKER_EVENTS]
        verdict = _drive(s, cls, BREAKER_THRESHOLD, BREAKER_COOLDOWN, events, lesson=True)
        if verdict is not None:
            return wrong(verdict.message + _breaker_hint(s, cls))
        cases = _breaker_cases()
        for threshold, cooldown, evs in cases:
            verdict = _drive(s, cls, threshold, cooldown, evs)
            if verdict is not None:
                return wrong("the lesson's trace matches, but " + verdict.message
                             + _breaker_hint(s, cls))
        return right(f"the lesson's nine rows (sent 6, blocked 3) and {len(cases)} unseen "
                     "event sequences match, the cooldown's exact boundary and a second "
                     "call during the half-open trial included.")

    return _run(battery, "your class Breaker(threshold, cooldown)",
                pgettext("return value", "True or False"))
