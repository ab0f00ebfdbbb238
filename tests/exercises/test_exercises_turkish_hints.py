"""Issue 23: a checker's hints and verdicts are Turkish in the Turkish editions.

The checkers of notebooks 01-04 that are not tables and the build-it exercises (full
jitter, decorrelated jitter, should_retry, the loop, the breaker) are called with
known wrong answers in Turkish, and each message must hold no English prose word
(tools/english_words.py; code, reprs and identifiers are skipped). A checker judged
by a table is covered by tests/test_exercises_tables.py from its table. Every
message the exercises package marks is checked in its Turkish form too, so a hint no
wrong answer here reaches is still covered. The language is set back to English
after each test.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from _tools import load_tool

from retrylab import Backoff, CircuitBreaker, RetryPolicy, js_round
from retrylab.core.outcome import Outcome, should_retry
from retrylab.exercises import build, ex01, ex02, ex03, ex04
from retrylab.exercises.build import breaker as build_breaker
from retrylab.exercises.build import loop as build_loop
from retrylab.exercises.build import rule as build_rule
from retrylab.exercises.table import table_of
from retrylab.i18n import _, current, pgettext, set_language

ROOT = Path(__file__).resolve().parents[2]


english_words = load_tool("english_words").english_words

#: Every module of the exercises package (its marked messages are checked in Turkish).
FILES = tuple(p.name for p in (ROOT / "retrylab" / "exercises").rglob("*.py"))


@pytest.fixture
def turkish() -> Iterator[None]:
    before = current()
    set_language("tr")
    try:
        yield
    finally:
        set_language(before)


def _no_english(message: str) -> None:
    assert english_words(message) == [], message


def _cap(n: int) -> int:
    return min(5000, 200 * 2**n)


def _deco(p: int, r: float) -> int:
    return min(5000, js_round(200 + r * (p * 3 - 200)))


# == the closed exercises of notebooks 01-04 ============================================

WRONG: list[tuple[Callable[..., Any], tuple[Any, ...]]] = [
    *[(ex02.check_quarter_width, (a,)) for a in ("x", 200)],
    *[
        (ex03.check_refresh_policy, (a,))
        for a in (
            "x",
            RetryPolicy(max_attempts=1),
            RetryPolicy(max_attempts=3),
            RetryPolicy(max_attempts=1000, backoff=Backoff(1, 1, 1)),
        )
    ],
]


def test_no_wrong_answer_is_listed_for_a_table() -> None:
    """A checker judged by a table is tried with the table's own examples
    (tests/test_exercises_tables.py): its answers are not listed here."""
    assert [c.__name__ for c, _a in WRONG if table_of(c) is not None] == []


@pytest.mark.parametrize(
    ("check", "args"), WRONG, ids=[f"{c.__name__}{a!r}"[:60] for c, a in WRONG]
)
def test_closed_exercises_hint_in_turkish(
    turkish: None, check: Callable[..., Any], args: tuple[Any, ...]
) -> None:
    fb = check(*args)
    assert not fb.correct
    _no_english(fb.message)


def _report_cases() -> list[tuple[str, str, Callable[..., Any], tuple[Any, ...]]]:
    """Issue 22: the wrong answers tools/exercise_report.py tries on notebooks 00-04."""
    closed = load_tool("exercise_report")._closed()
    return [
        (exercise, name, check, args)
        for exercise, (check, _probe, cases) in closed.items()
        if exercise < "05"
        for name, args in cases
    ]


REPORT_CASES = _report_cases()


@pytest.mark.parametrize(
    ("exercise", "name", "check", "args"),
    REPORT_CASES,
    ids=[f"{e} {n}" for e, n, _c, _a in REPORT_CASES],
)
def test_each_named_mistake_gets_its_hint_in_turkish(
    turkish: None, exercise: str, name: str, check: Callable[..., Any], args: tuple[Any, ...]
) -> None:
    """Every wrong answer of the report's notebooks 00-04 (ten or more per exercise) is
    answered "try again" in Turkish, with no English prose."""
    fb = check(*args)
    assert fb.answered and not fb.correct, (exercise, name)
    _no_english(fb.message)


def test_new_hints_sample_reads_turkish(turkish: None) -> None:
    """A few of issue 22's hints, word for word."""
    assert "tekillik anahtarı ters okunmuş" in ex01.check_retried_cases("ACEG").message
    assert "1 - 0,7 x 0,7" in ex01.check_expected_duplicates(510).message
    assert "dersin 5 s'lik tavanıyla" in ex02.check_ceilings([300, 900, 2700, 5000, 5000]).message
    assert "n = 3'tür" in ex02.check_herd_attempt4(4).message
    assert "ikisinin küçüğünü" in ex03.check_waits([184, 2000, 70, 500]).message
    assert "zaman aşımı tek bir denemeyi" in ex03.check_give_up_reason("timeout").message
    assert "eşik 1 olunca" in ex04.check_threshold_two(4, 5).message
    assert "soğuma devre kesicinin açıldığı andan" in ex04.check_retry_in(9).message


def test_english_is_unchanged_and_the_language_set_back() -> None:
    assert current() == "en"
    assert ex01.check_retried_cases("ACF").message.startswith("G is retried: ")
    assert ex04.check_retry_in(99).message.startswith("seconds=99: read err.retry_in")


# == the build-it checkers ==============================================================

FULL_WRONG: list[Callable[[int, float], Any]] = [
    lambda n, r: 1,
    lambda n, r: _cap(n),
    lambda n, r: round(r * _cap(n)),
    lambda n, r: math.floor(r * _cap(n)),
    lambda n, r: js_round(r * _cap(n + 1)),
    lambda n, r: js_round(r * min(5000, 200 * 2 ** (n - 1))),
    lambda n, r: js_round(r * 200 * 2**n),
    lambda n, r: min(5000, js_round(r * 200 * 2**n)),
    lambda n, r: js_round(_cap(n) / 2 + r * _cap(n) / 2),
    lambda n, r: js_round((0.5 + r) * _cap(n)),
    lambda n, r: math.ceil(r * _cap(n)),
    lambda n, r: js_round(r * min(5000, 200 * (n + 1))),
    lambda n, r: js_round(r * min(5000, 200 * 2 * n)),
    lambda n, r: 0 if n >= 7 else js_round(r * _cap(n)),  # unseen cases only
    lambda n, r: 0.5,
    lambda n, r: "70",
]

DECO_WRONG: list[Callable[[int, float], Any]] = [
    lambda p, r: 1,
    lambda p, r: min(5000, round(200 + r * (p * 3 - 200))),
    lambda p, r: min(5000, math.floor(200 + r * (p * 3 - 200))),
    lambda p, r: js_round(200 + r * (p * 3 - 200)),
    lambda p, r: min(5000, js_round(200 + r * (p - 200))),
    lambda p, r: min(5000, js_round(200 + r * p * 3)),
    lambda p, r: min(5000, js_round(r * p * 3)),
    lambda p, r: min(5000, js_round(200 + r * 400)),
    lambda p, r: js_round(200 + r * (min(5000, p * 3) - 200)),
    lambda p, r: min(5000, math.ceil(200 + r * (p * 3 - 200))),
    lambda p, r: min(5000, js_round(200 + r * (p * 2 - 200))),
    lambda p, r: js_round(r * p),
    lambda p, r: 0 if p == 1000 else _deco(p, r),  # unseen cases only
]


def _rule_variant(
    status: int | None = None,
    kind: str | None = None,
    method: str | None = None,
    key: bool | None = None,
) -> Callable[..., bool]:
    """The lesson's rule, flipped on the outcomes that match."""

    def rule(o: Outcome, m: str, k: bool) -> bool:
        flip = (
            (status is None or o.status == status)
            and (kind is None or o.kind == kind)
            and (method is None or m == method)
            and (key is None or k == key)
        )
        return should_retry(o, m, k) != flip

    return rule


RULE_WRONG: list[Callable[..., Any]] = [
    lambda o, m, k: o.kind != "success",
    _rule_variant(kind="network", method="GET"),
    _rule_variant(kind="network", method="POST", key=True),
    _rule_variant(kind="body"),
    _rule_variant(kind="cancelled"),
    _rule_variant(status=418),
    _rule_variant(status=429, key=True),
    _rule_variant(status=507),
    _rule_variant(status=302),
    _rule_variant(kind="success", method="PUT"),
    _rule_variant(kind="network", method="TRACE", key=False),
    _rule_variant(kind="network", method="PATCH", key=False),
    lambda o, m, k: "yes",
]


@pytest.mark.parametrize("fn", [*FULL_WRONG, 5], ids=lambda f: "full")
def test_full_jitter_hints_in_turkish(turkish: None, fn: Any) -> None:
    fb = build.check_full_jitter(fn)
    assert not fb.correct
    _no_english(fb.message)


@pytest.mark.parametrize("fn", [*DECO_WRONG, "f"], ids=lambda f: "deco")
def test_decorrelated_hints_in_turkish(turkish: None, fn: Any) -> None:
    fb = build.check_decorrelated(fn)
    assert not fb.correct
    _no_english(fb.message)


@pytest.mark.parametrize("fn", [*RULE_WRONG, 7], ids=lambda f: "rule")
def test_should_retry_hints_in_turkish(turkish: None, fn: Any) -> None:
    fb = build.check_should_retry(fn)
    assert not fb.correct
    _no_english(fb.message)


def test_every_rule_hint_and_lesson_sentence_in_turkish(turkish: None) -> None:
    lesson, unseen = build_rule._rule_cases()
    for where, o, m, key in lesson:
        _no_english(
            where.sentence(f"should_retry({build_rule._show(o)}, {m!r}, {key})", False, True)
        )
        for want in (False, True):
            _no_english(build_rule._rule_hint(o, m, key, want))
    for o, m, key in unseen[::7]:
        for want in (False, True):
            _no_english(build_rule._rule_hint(o, m, key, want))


def _loop(policy: Callable[[int], RetryPolicy]) -> Callable[..., Any]:
    def loop(send: Any, method: str, max_attempts: int, sleep: Any, rng: Any) -> Any:
        r = policy(max_attempts).run(send, method, rng, sleep)
        return r.attempts, r.outcome, r.waits

    return loop


def _loop_sleeping_first(send: Any, method: str, max_attempts: int, sleep: Any, rng: Any) -> Any:
    sleep(0)
    return _loop(lambda n: RetryPolicy(max_attempts=n))(send, method, max_attempts, sleep, rng)


LOOP_WRONG: list[Callable[..., Any]] = [
    _loop(lambda n: RetryPolicy(max_attempts=n + 1)),
    _loop(lambda n: RetryPolicy(max_attempts=max(1, n - 1))),
    _loop(
        lambda n: RetryPolicy(max_attempts=n, backoff=Backoff(200, 2, 86_400_000, jitter="full"))
    ),
    _loop(lambda n: RetryPolicy(max_attempts=n, backoff=Backoff(400, 2, 5000, jitter="full"))),
    _loop_sleeping_first,
    lambda send, method, max_attempts, sleep, rng: (1, send(), []),
    lambda send, method, max_attempts, sleep, rng: (1, "503", []),
    lambda send, method, max_attempts, sleep, rng: (1, send(), "70"),
    lambda send, method, max_attempts, sleep, rng: [send()],
    lambda send, method, max_attempts, sleep, rng: (1.5, send(), []),
]


@pytest.mark.parametrize("fn", [*LOOP_WRONG, 3], ids=lambda f: "loop")
def test_retry_loop_hints_in_turkish(turkish: None, fn: Any) -> None:
    fb = build.check_retry_loop(fn)
    assert not fb.correct
    _no_english(fb.message)


def test_loop_cases_described_in_turkish(turkish: None) -> None:
    for case in build_loop._loop_cases()[::9]:
        _no_english(build_loop._Case.describe(case))


class _Forgetful(CircuitBreaker):
    def record(self, success: bool, now: int) -> None:
        super().record(False, now)


class _AlwaysThree(CircuitBreaker):
    def __init__(self, threshold: int, cooldown: int) -> None:
        super().__init__(3, cooldown)


class _NoRecord:
    def __init__(self, threshold: int, cooldown: int) -> None:
        pass

    def allow(self, now: int) -> bool:
        return True


class _EarlyTrial(CircuitBreaker):
    def allow(self, now: int) -> bool:
        return super().allow(now + 1)


@pytest.mark.parametrize(
    "cls",
    [_Forgetful, _AlwaysThree, _NoRecord, _EarlyTrial, 4],
    ids=lambda c: getattr(c, "__name__", "int"),
)
def test_breaker_hints_in_turkish(turkish: None, cls: Any) -> None:
    fb = build.check_breaker(cls)
    assert not fb.correct
    _no_english(fb.message)
    for state in ("open", "closed", "half_open"):  # the breaker's state in Turkish too
        assert f"(durum {state})" not in fb.message


def test_every_breaker_verdict_and_probe_hint_in_turkish(turkish: None) -> None:
    for template in build_breaker._UNSEEN_VERDICTS.values():
        _no_english(
            _(template).format(
                threshold=1,
                cooldown=100,
                history="allow(0) -> True",
                call="allow(1)",
                got=True,
                state="open",
            )
        )
    for _t, _c, _events, signs in build_breaker._BREAKER_PROBES:
        for _answers, hint in signs:
            _no_english(_(hint))


# == every message the converted modules mark =============================================


#: Messages that name code with an English word: the answer's own name and urllib3's
#: class (``retry is a PolicyRetry, not the stock urllib3 Retry``), a parameter of the
#: function the student writes (``reject_probability(requests, accepts, k)``).
CODE_WORDS = {
    "retry is a {kind}": re.compile(r"\b[Rr]etry\b"),
    "K multiplies accepts, not requests": re.compile(r"\brequests\b"),
}


def test_every_marked_message_of_the_package_reads_turkish(turkish: None) -> None:
    catalog = load_tool("catalog")
    found = 0
    for message in catalog.extracted():
        if not message.id or not any(
            Path(path).name in FILES and "exercises" in path for path, _line in message.locations
        ):
            continue
        msgid = message.id if isinstance(message.id, str) else message.id[0]
        found += 1
        text = pgettext(message.context, msgid) if message.context else _(msgid)
        assert text != msgid or not english_words(msgid), msgid
        for start, code in CODE_WORDS.items():
            text = code.sub("", text) if msgid.startswith(start) else text
        _no_english(text)
    assert found > 400
