"""The checker of the retry loop the student writes.

Part of :mod:`retrylab.exercises.build` (import the checkers from there); see
its docstring for how the checkers judge.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...core.outcome import Outcome
from ...core.policy import RetryPolicy
from ...core.rng import Mulberry32
from ...i18n import N_, NP_, _, current, pgettext
from .. import Feedback, checker, prompt, right, unanswered, wrong
from .harness import (
    BASE,
    CAP,
    DRAW_LIMIT,
    FACTOR,
    FULL,
    LESSON_SCRIPTS,
    RETRY_SCENARIOS,
    SEED,
    SEND_LIMIT,
    SLEEP_LIMIT,
    Session,
    Tripped,
    Verdict,
    as_ms,
    not_callable,
    quiet,
    run,
)

# == 4. the retry loop ==================================================================


@dataclass
class _Server:
    """A scripted send(), sleep() and rng() that count their calls."""

    session: Session | None
    outcomes: tuple[Outcome, ...]
    draws_from: Callable[[], float]
    sent: int = 0
    slept: list[Any] = field(default_factory=list)
    draws: int = 0
    order: list[str] = field(default_factory=list)  #: "send" and "sleep", in call order

    def send(self) -> Outcome:
        self.sent += 1
        self.order.append("send")
        if self.sent > SEND_LIMIT:
            self._trip("send")
        return self.outcomes[min(self.sent, len(self.outcomes)) - 1]

    def sleep(self, ms: Any) -> None:
        self.slept.append(ms)  # checked after the run: raising here could be swallowed
        if len(self.order) < 4 * SEND_LIMIT:
            self.order.append("sleep")
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
        raise Tripped(what)


@dataclass(frozen=True)
class _Case:
    """One run of the loop: the server's answers, method, limit and generator."""

    outcomes: tuple[Outcome, ...]
    method: str
    max_attempts: int
    seed: int | None = None  # Mulberry32(seed), or ...
    values: tuple[float, ...] = ()  # ... these draws (the last repeats)
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
        if self.seed is not None:
            return _(
                "a server answering {script} (the last repeats), method {method}, "
                "max_attempts={limit} and Mulberry32({seed})"
            ).format(
                script=script, method=repr(self.method), limit=self.max_attempts, seed=self.seed
            )
        return _(
            "a server answering {script} (the last repeats), method {method}, "
            "max_attempts={limit} and an rng() returning {values}"
        ).format(
            script=script,
            method=repr(self.method),
            limit=self.max_attempts,
            values=", ".join(f"{v:g}" for v in self.values),
        )


def _label(o: Outcome) -> str:
    if o.kind == "http" and o.retry_after is not None:
        return _("{status} (Retry-After {seconds} s)").format(
            status=o.status, seconds=f"{o.retry_after:g}"
        )
    if o.kind == "http":
        return str(o.status)
    return pgettext("outcome kind", _KINDS.get(o.kind, o.kind))


#: An outcome's kind as a server's answer in a hint ("503, 503, success").
_KINDS = {
    "network": NP_("outcome kind", "network"),
    "body": NP_("outcome kind", "body"),
    "cancelled": NP_("outcome kind", "cancelled"),
    "success": NP_("outcome kind", "success"),
}


@dataclass(frozen=True)
class _Seen:
    """What one run of a loop did and returned."""

    attempts: int
    outcome: Outcome
    waits: tuple[int, ...]
    sent: int
    slept: tuple[int, ...]
    draws: int
    order: tuple[str, ...] = ()

    @property
    def slept_first(self) -> bool:
        """It slept before its first attempt."""
        return self.order[:1] == ("sleep",)

    @property
    def slept_last(self) -> bool:
        """It slept after its last attempt."""
        return len(self.order) > 1 and self.order[-1] == "sleep"

    def line(self) -> str:
        return (
            f"attempts={self.attempts} outcome={self.outcome.label()} "
            f"waits=[{', '.join(str(w) for w in self.waits)}]"
        )


def _reference(case: _Case, draws_from: Callable[[], float] | None = None) -> _Seen:
    srv = _Server(None, case.outcomes, draws_from or case.draws())
    r = RetryPolicy(max_attempts=case.max_attempts, backoff=FULL).run(
        srv.send, case.method, srv.rng, srv.sleep
    )
    return _Seen(
        r.attempts,
        r.outcome,
        tuple(r.waits),
        srv.sent,
        tuple(int(w) for w in srv.slept),
        srv.draws,
        tuple(srv.order),
    )


def _student(
    s: Session, fn: Callable[..., Any], case: _Case, draws_from: Callable[[], float] | None = None
) -> _Seen:
    srv = _Server(s, case.outcomes, draws_from or case.draws())
    what = _("your loop (with {case})").format(case=case.describe())
    value = s.call(what, fn, srv.send, case.method, case.max_attempts, srv.sleep, srv.rng)
    if all(hasattr(value, a) for a in ("attempts", "outcome", "waits")):
        parts: Any = (value.attempts, value.outcome, value.waits)
    elif isinstance(value, (tuple, list)) and len(value) == 3:
        parts = value
    else:
        raise Verdict(
            wrong(
                _("{what} returned {value}: return a tuple (attempts, outcome, waits).").format(
                    what=what, value=repr(value)
                )
            )
        )
    attempts = as_ms(parts[0], _("{what}, as attempts,").format(what=what))
    outcome = parts[1]
    if not isinstance(outcome, Outcome):
        raise Verdict(
            wrong(
                _(
                    "{what} returned {value} as the outcome: return the Outcome "
                    "that send() gave for the last attempt."
                ).format(what=what, value=repr(outcome))
            )
        )
    if isinstance(parts[2], (str, bytes)) or not isinstance(parts[2], Sequence):
        raise Verdict(
            wrong(
                _("{what} returned {value} as the waits: return a list of the waits in ms.").format(
                    what=what, value=repr(parts[2])
                )
            )
        )
    waits = tuple(as_ms(w, _("{what}, in its waits,").format(what=what)) for w in parts[2])
    slept = tuple(as_ms(w, _("{what}, calling sleep(),").format(what=what)) for w in srv.slept)
    return _Seen(attempts, outcome, waits, srv.sent, slept, srv.draws, tuple(srv.order))


def _loop_difference(got: _Seen, want: _Seen) -> str:
    """The first difference, beyond the summary lines; "" if none."""
    if got.slept_first:
        return _(_SLEPT_FIRST)
    if got.sent == want.sent and got.slept_last and not want.slept_last:
        return _(_SLEPT_LAST)
    if got.sent != want.sent:
        return " " + _("send() was called {got} times, {want} expected.").format(
            got=got.sent, want=want.sent
        )
    if got.attempts != got.sent:
        return " " + _(
            "It returned attempts={attempts} but called send() {sent} times: "
            "count every attempt, the first included."
        ).format(attempts=got.attempts, sent=got.sent)
    if got.outcome != want.outcome:
        return " " + _("The outcome to return is the one send() gave for the last attempt.")
    if got.waits != want.waits:
        return ""
    if got.slept != got.waits:
        return " " + _(
            "sleep() was called with [{slept}], but the waits returned differ: "
            "sleep each wait you record, and only those."
        ).format(slept=", ".join(str(w) for w in got.slept))
    if got.draws != want.draws:
        return " " + _(
            "rng() was called {got} times; the lesson draws once per wait "
            "({want} here), even when Retry-After wins."
        ).format(got=got.draws, want=want.draws)
    if got.order != want.order:
        return _(
            " It called send() and sleep() in the order {got}; the lesson's loop "
            "sleeps once between two attempts: {want}."
        ).format(got=", ".join(got.order[:12]), want=", ".join(want.order[:12]))
    return ""


_SLEPT_FIRST = N_(
    " It slept before the first attempt: the first attempt is sent at once, "
    "and a wait comes only between a failed attempt and the next one."
)
_SLEPT_LAST = N_(
    " It slept after the last attempt: when the attempt limit is reached (or the "
    "rule says no), give up at once; the lesson returns before waiting."
)


def _half_draws() -> tuple[float, ...]:
    """One draw per retry n = 0..8 for which r * ceiling(n) is exactly an even number + 0.5.

    There Python's round() (halves to even) and Math.round (halves up) differ by 1 ms.
    """
    draws: list[float] = []
    for n in range(9):
        c = min(CAP, BASE * FACTOR**n)
        k = c // 3 // 2 * 2
        while True:
            r = (k + 0.5) / c
            if r * c == k + 0.5:
                draws.append(r)
                break
            k += 2
    return tuple(draws)


_HALF_DRAWS = _half_draws()


_LIMIT_CASE = _Case((Outcome.http(503),), "GET", 3, values=(0.5,))
_RA_EXACT_CASE = _Case(
    (Outcome.http(503),) * 3 + (Outcome.http(429, retry_after=1), Outcome.success()),
    "GET",
    6,
    values=(0.5, 0.5, 0.5, 0.9),
)
_RA_IGNORED_CASE = _Case(
    (Outcome.http(429, retry_after=2), Outcome.success()), "GET", 4, values=(0.5,)
)
_RA_DRAW_CASE = _Case(
    (Outcome.http(429, retry_after=2), Outcome.http(503), Outcome.success()),
    "GET",
    4,
    values=(0.25, 0.75),
)
_N_CASE = _Case((Outcome.http(503), Outcome.http(503), Outcome.success()), "GET", 4, values=(0.25,))
#: Nine waits on exact halves (Python's round differs from Math.round on each).
_HALF_CASE = _Case((Outcome.http(503),) * 9 + (Outcome.success(),), "GET", 10, values=_HALF_DRAWS)
#: Waits that reach the cap: 0.75 * 6400 = 4800 but 0.75 * min(5000, 6400) = 3750.
_CAP_CASE = _Case((Outcome.http(503),) * 9 + (Outcome.success(),), "GET", 10, values=(0.75,))
_REFUSED = (
    (Outcome.http(422), "POST"),
    (Outcome.http(404), "GET"),
    (Outcome.network(), "POST"),
    (Outcome.body(), "GET"),
    (Outcome.cancelled(), "GET"),
)
_RETRIED = (
    (Outcome.network(), "GET"),
    (Outcome.http(500), "GET"),
    (Outcome.http(429), "GET"),
    (Outcome.http(503), "POST"),
)


def _loop_hint(s: Session, fn: Callable[..., Any]) -> str:
    """Probe the student's loop for the usual mistakes; the first found, as a hint."""

    def run(case: _Case) -> _Seen | None:
        seen: _Seen | None = quiet(s, lambda: _student(s, fn, case))
        return seen

    done = run(_Case((Outcome.success(), Outcome.success()), "GET", 4, values=(0.5,)))
    if done is not None and done.sent > 1:
        return " " + _("It sent again after a success: a success ends the loop.")
    for o, m in _REFUSED:
        seen = run(_Case((o, Outcome.success()), m, 4, values=(0.5,)))
        if seen is not None and seen.sent > 1:
            return " " + _(
                "It retried {outcome} on {method}, which the lesson's rule "
                "refuses: ask should_retry(outcome, method) before waiting, and "
                "stop when it says no."
            ).format(outcome=_label(o), method=m)
    for o, m in _RETRIED:
        seen = run(_Case((o, Outcome.success()), m, 4, values=(0.5,)))
        if seen is not None and seen.sent == 1:
            return " " + _(
                "It gave up after {outcome} on {method}, which the lesson's rule "
                "retries: ask should_retry(outcome, method)."
            ).format(outcome=_label(o), method=m)
    seen = run(_LIMIT_CASE)
    if seen is not None:
        if seen.sent == 4:
            return " " + _(
                "With max_attempts=3 against a server that always answers 503 it "
                "made 4 attempts, one too many: max_attempts counts every attempt, "
                "the first included (the lesson's deneme < enCokDeneme)."
            )
        if seen.sent == 2:
            return " " + _(
                "With max_attempts=3 against a server that always answers 503 it "
                "made only 2 attempts, one too few: the first attempt counts too, "
                "so there are max_attempts - 1 waits."
            )
        if seen.slept_first:
            return _(_SLEPT_FIRST)
        if seen.sent == 3 and seen.slept_last:
            return _(_SLEPT_LAST)
    seen = run(_RA_IGNORED_CASE)
    if seen is not None and seen.waits[:1] == (100,):
        return " " + _(
            "Retry-After was ignored (or not turned from seconds into ms): it is "
            "a lower bound on the wait, max(backoff, retry_after * 1000)."
        )
    seen = run(_RA_EXACT_CASE)
    if seen is not None and seen.waits[3:4] == (1000,):
        return " " + _(
            "Retry-After was used as the exact wait, but it is a lower bound: "
            "wait max(backoff draw, retry_after * 1000), so a larger draw wins (a "
            "probe with Retry-After: 1 and a draw of 1440 ms got 1000)."
        )
    seen = run(_RA_DRAW_CASE)
    if seen is not None and (seen.waits == (2000, 100) or seen.draws == 1):
        return " " + _(
            "When Retry-After won, rng() was not called: the lesson draws for "
            "every wait (Math.max(bekleme(deneme), ...) always calls bekleme), so "
            "the next waits use the next draws."
        )
    seen = run(_N_CASE)
    if seen is not None and seen.waits == (100, 200):
        return " " + _(
            "The waits are those of the next retry: n = 0 for the first retry, "
            "whose ceiling is 200 ms."
        )
    if seen is not None and seen.waits == (150, 300):
        return _(
            " The draw was shifted to 0.5 + r (a probe with r = 0.25 waited 150 and "
            "300 ms, not 50 and 100): full jitter is r * ceiling, from 0 up to the "
            "ceiling."
        )
    if seen is not None and seen.draws > 2:
        return " " + _(
            "It drew {draws} numbers for 2 waits: the lesson draws once per wait."
        ).format(draws=seen.draws)
    seen = run(_CAP_CASE)
    if seen is not None and any(w > CAP for w in seen.waits):
        return _(
            " A wait passed {cap} ms: the cap is missing. The ceiling is min(5000, 200 * 2**n)."
        ).format(cap=CAP)
    if seen is not None and seen.waits == tuple(
        min(CAP, round(0.75 * BASE * FACTOR**n)) for n in range(9)
    ):
        return _(
            " Cap the ceiling, not the wait: with r = 0.75 the wait before retry 5 is "
            "0.75 * min(5000, 6400) = 3750 ms, but your loop waited min(5000, 0.75 * "
            "6400) = 4800. Capping the wait piles every late retry on exactly 5000 ms."
        )
    seen = run(_HALF_CASE)
    if seen is not None and seen.waits == tuple(
        round(r * min(CAP, BASE * FACTOR**n)) for n, r in enumerate(_HALF_DRAWS)
    ):
        return _(
            " On draws where r * ceiling ends in exactly .5 your waits are 1 ms short: "
            "Python's round() rounds halves to even (round(70.5) == 70); the lesson's "
            "Math.round rounds them up: use retrylab.js_round(x)."
        )
    return ""


def _explain(s: Session, fn: Callable[..., Any], got: _Seen, want: _Seen) -> str:
    """The first difference, then the usual mistake the probes find (each said once)."""
    difference = _loop_difference(got, want)
    hint = _loop_hint(s, fn)
    return difference + ("" if hint and hint in difference else hint)


def _loop_cases() -> list[_Case]:
    """Unseen scripted servers: many seeds, methods, limits and answers."""
    pool = (
        Outcome.http(503),
        Outcome.http(500),
        Outcome.http(502),
        Outcome.http(504),
        Outcome.http(503),
        Outcome.network(),
        Outcome.http(429),
        Outcome.http(429, retry_after=0),
        Outcome.http(429, retry_after=1),
        Outcome.http(429, retry_after=2),
        Outcome.http(503, retry_after=3),
        Outcome.http(422),
        Outcome.http(404),
        Outcome.body(),
        Outcome.cancelled(),
        Outcome.success("ok"),
    )
    methods = ("GET", "GET", "POST", "PUT", "HEAD")
    cases: list[_Case] = []
    for seed in range(1, 81):
        rng = Mulberry32(seed * 7919)
        length = 1 + int(rng() * 7)
        # mostly retryable failures, so that runs are long enough to be interesting
        outcomes = tuple(
            pool[int(rng() * (11 if i < length - 1 else len(pool)))] for i in range(length)
        )
        cases.append(
            _Case(outcomes, methods[int(rng() * len(methods))], 1 + int(rng() * 6), seed=seed)
        )
    # long runs whose ceilings reach the cap (retry 5 on: 200 * 2**5 = 6400 > 5000)
    for limit in (7, 8, 10, 12):
        cases.append(_Case((Outcome.http(503),), "GET", limit, seed=500 + limit))
    cases.append(_Case((Outcome.network(),) * 8 + (Outcome.success("ok"),), "HEAD", 10, seed=77))
    cases.append(_CAP_CASE)
    # waits that land on exact halves, where Python's round() and Math.round differ
    cases.append(_HALF_CASE)
    cases.append(
        _Case(
            (Outcome.http(502),) * 5 + (Outcome.http(429, retry_after=1), Outcome.success()),
            "PUT",
            8,
            values=_HALF_DRAWS,
        )
    )
    return cases


@checker
def check_retry_loop(fn: Any) -> Feedback:
    """Judge ``fn(send, method, max_attempts, sleep, rng) -> (attempts, outcome, waits)``.

    The lesson's loop (``yenidenDene``): send; stop on success, on a failure
    should_retry refuses, or at the attempt limit; otherwise wait
    ``max(Math.round(rng() * min(5000, 200 * 2**n)), retry_after * 1000)`` ms
    before retry n (n = 0 first), drawing even when Retry-After wins, and
    send again. Judged first on the lesson's four scenarios on one shared
    Mulberry32(20260114) ("70, 184, 2000, 2000"), then on 88 unseen servers
    (runs long enough to reach the cap, draws landing on exact halves),
    against :meth:`retrylab.RetryPolicy.run`.

    >>> from retrylab import js_round, should_retry
    >>> def loop(send, method, max_attempts, sleep, rng):
    ...     waits = []
    ...     for n in range(max_attempts):
    ...         outcome = send()
    ...         if n == max_attempts - 1 or not should_retry(outcome, method, False):
    ...             return n + 1, outcome, waits
    ...         wait = max(js_round(rng() * min(5000, 200 * 2 ** n)), outcome.retry_after_ms)
    ...         waits.append(wait)
    ...         sleep(wait)
    >>> check_retry_loop(loop)
    Correct: ... (waits 70, 184, 2000, 2000) and 88 unseen servers match...
    >>> def greedy(send, method, max_attempts, sleep, rng):
    ...     return loop(send, method, max_attempts + 1, sleep, rng)
    >>> check_retry_loop(greedy)
    Try again: ... it made 4 attempts, one too many...
    >>> from retrylab import RetryPolicy
    >>> def calls_the_library(send, method, max_attempts, sleep, rng):
    ...     r = RetryPolicy(max_attempts=max_attempts).run(send, method, rng, sleep)
    ...     return r.attempts, r.outcome, r.waits
    >>> check_retry_loop(calls_the_library)
    Try again: ... calls retrylab's RetryPolicy: the exercise is to write it yourself...
    """
    if unanswered(fn):
        return prompt(
            _("your function {name}").format(name="retry(send, method, max_attempts, sleep, rng)")
        )
    if not callable(fn):
        return not_callable(
            fn,
            _("a function {signature}").format(
                signature="retry(send, method, max_attempts, sleep, rng)"
            ),
        )

    scenarios = [
        (tr, _Case(script, method, limit, seed=SEED, name=name))
        for (tr, name, method, _path, limit), script in zip(
            RETRY_SCENARIOS, LESSON_SCRIPTS, strict=True
        )
    ]
    reference_rng = Mulberry32(SEED)  # the references, before any answer runs
    lesson_wants = [_reference(case, reference_rng) for _tr, case in scenarios]
    cases = _loop_cases()
    wants = [_reference(case) for case in cases]

    def battery(s: Session) -> Feedback:
        student_rng = Mulberry32(SEED)
        for (tr, case), want in zip(scenarios, lesson_wants, strict=True):
            got = _student(s, fn, case, student_rng)
            if got != want:
                return wrong(
                    _(
                        'the lesson\'s scenario "{name}" ({method}, max_attempts='
                        "{limit}, the lesson's one generator shared by all four): "
                        "your loop gave {got}; the lesson prints {want}."
                    ).format(
                        name=tr if current() == "tr" else case.name,
                        method=case.method,
                        limit=case.max_attempts,
                        got=got.line(),
                        want=want.line(),
                    )
                    + _explain(s, fn, got, want)
                )
        for case, want in zip(cases, wants, strict=True):
            got = _student(s, fn, case)
            if got != want:
                return wrong(
                    _(
                        "the lesson's four scenarios match, but with {case} your loop "
                        "gave {got}; the lesson's loop gives {want}."
                    ).format(case=case.describe(), got=got.line(), want=want.line())
                    + _explain(s, fn, got, want)
                )
        return right(
            _(
                "the lesson's four scenarios (waits 70, 184, 2000, 2000) and "
                "{unseen} unseen servers match: attempts, outcome, waits, sleeps and "
                "draws."
            ).format(unseen=len(cases))
        )

    return run(
        battery,
        _("your function {signature}").format(
            signature="retry(send, method, max_attempts, sleep, rng)"
        ),
        pgettext("return value", "the tuple (attempts, outcome, waits)"),
        forbidden=(RetryPolicy,),
        entry_points=((RetryPolicy, "run"),),
        answer=fn,
    )
