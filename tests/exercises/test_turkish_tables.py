"""Notebooks 00-04 in Turkish: every table and printed line they build reads Turkish.

Each test renders, in Turkish, a table or line the way its notebook shows it
(``retrylab.lessons.tables.localized`` for tables, the catalogue for the
package's own sentences) and finds no English prose words with
tools/english_words.py's word list; in English the same call reads exactly as
before.
"""

from __future__ import annotations

import functools
import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from retrylab import (
    IDEMPOTENT_METHODS,
    SAFE_METHODS,
    BreakerOpen,
    CircuitBreaker,
    Mulberry32,
    Outcome,
    RetryMetrics,
    RetryPolicy,
    decide,
    decision_table,
    retry_everything_rule,
    verdict_table,
)
from retrylab.core.breaker import State
from retrylab.exercises import ex00, ex01, ex02, ex03, ex04
from retrylab.exercises.build import check_breaker, check_full_jitter, check_retry_loop
from retrylab.exercises.ex01 import cases_table
from retrylab.i18n import language
from retrylab.lab.client import network_outcome, response_outcome
from retrylab.lab.server import validate_measurement
from retrylab.lessons import outputs as lesson
from retrylab.lessons.lab_experiments import WriteReport
from retrylab.lessons.tables import LINES, label, line, localized
from retrylab.sim.schedule import lesson_backoffs, waits_table
from retrylab.viz.decision import ERRORS, METHODS, outcome_for

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("english_words", ROOT / "tools" / "english_words.py")
assert _spec is not None and _spec.loader is not None
english = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("english_words", english)
_spec.loader.exec_module(english)


def english_in(text: str) -> list[str]:
    return [w for row in str(text).splitlines() for w in english.english_words(row)]


def turkish(make: Callable[[], Any]) -> tuple[str, list[str]]:
    """``make()`` rendered in Turkish, and the English it left."""
    with language("tr"):
        shown = make()
        text = shown.to_string() if isinstance(shown, (pd.DataFrame, pd.Series)) else str(shown)
    return text, english_in(text)


#: Every checker of notebooks 00-04 that prompts for an answer (one argument).
PROMPTED: tuple[Callable[[Any], Any], ...] = (
    ex00.check_which_notebook,
    ex01.check_retried_cases,
    ex01.check_retried_statuses,
    ex01.check_expected_duplicates,
    ex02.check_ceilings,
    ex02.check_full_jitter_alone,
    ex02.check_quarter_width,
    ex02.check_herd_attempt4,
    ex03.check_waits,
    ex03.check_give_up_reason,
    ex03.check_refresh_policy,
    ex04.check_blocked_times,
    ex04.check_retry_in,
    check_full_jitter,
    check_retry_loop,
    check_breaker,
    lambda answer: ex00.check_three_failures(answer, answer),
    lambda answer: ex04.check_threshold_two(answer, answer),
)


def _decisions() -> pd.DataFrame:
    return decision_table(METHODS, {e: outcome_for(e) for e in ERRORS})


def _metrics() -> RetryMetrics:
    metrics = RetryMetrics()
    answers = iter([Outcome.http(503), Outcome.success(), Outcome.http(404)] * 5)
    for _run in range(4):
        RetryPolicy(max_attempts=2).run(
            lambda: next(answers), "GET", Mulberry32(1), lambda ms: None, metrics=metrics
        )
    return metrics


TABLES: dict[str, Callable[[], Any]] = {
    # 01
    "outcome kinds": lambda: (
        pd.DataFrame(
            {
                name: {"kind": o.kind, "status": o.status, "retry a GET?": decide(o, "GET").retry}
                for name, o in {
                    "HTTP 404": Outcome.http(404),
                    "network": Outcome.network(),
                    "body": Outcome.body(),
                    "cancellation": Outcome.cancelled(),
                }.items()
            }
        ).T
    ),
    "statuses": lambda: pd.DataFrame(
        [
            (
                s,
                decide(Outcome.http(s), "GET").retry,
                decide(Outcome.http(s), "GET").reason.split(": ", 1)[1],
            )
            for s in (404, 429, 503)
        ],
        columns=["status", "retry", "why"],
    ).set_index("status"),
    "did the server act": lambda: pd.DataFrame(
        {"client saw": ["network", "network"], "server stored": [0, 1]}, index=["close", "drop"]
    ),
    "methods": lambda: (
        pd.DataFrame(
            {
                m: {
                    "safe (RFC)": m in SAFE_METHODS,
                    "idempotent (RFC)": m in IDEMPOTENT_METHODS,
                    "web lesson": decide(Outcome.network(), m).retry,
                    "RFC rule": decide(Outcome.network(), m, safe_methods=IDEMPOTENT_METHODS).retry,
                    "mobile lesson": m in {"GET", "PUT", "DELETE"},
                }
                for m in ("GET", "POST")
            }
        ).T
    ),
    "write counts": lambda: pd.concat(
        [
            WriteReport(mode, 1000, 1249, 1000, 0, 998, 2, 0, 249, 1.0).series()
            for mode in ("key", "unsafe", "lesson")
        ],
        axis=1,
    ),
    "verdicts": lambda: verdict_table(_decisions()),
    "cases": lambda: cases_table(),
    # 02
    "lesson's waits": lambda: lesson.backoff_table(),
    "strategies": lambda: waits_table(lesson_backoffs()),
    "sent within 10 s": lambda: (waits_table(lesson_backoffs(), 50).cumsum() <= 10_000).sum(),
    # 03
    "metrics": lambda: _metrics().summary(),
    "stop reasons": lambda: _metrics().reasons_table(),
    "wait histogram": lambda: _metrics().wait_histogram(50),
    "presets": lambda: pd.DataFrame.from_dict(
        {"user_triggered": (3, [1, 2], 3, "max_attempts"), "background": (5, [1], 1, "success")},
        orient="index",
        columns=["attempts", "waits (ms)", "total wait (ms)", "stopped"],
    ),
    "costs": lambda: (
        pd.DataFrame(
            {
                "classifies (lesson)": {
                    "attempts": 1,
                    "waits (ms)": 0,
                    "user waits (ms)": 100,
                    "times later": 1.0,
                }
            }
        ).T
    ),
    "Retry-After": lambda: pd.DataFrame(
        {"backoff (ms)": [70], "Retry-After (ms)": 2000, "wait (ms)": 2000},
        index=pd.RangeIndex(1, 2, name="retry"),
    ),
    # 04
    "breaker trace": lambda: lesson.breaker_frame(lesson.breaker_trace()),
}


@pytest.mark.parametrize("name", list(TABLES))
def test_a_lessons_table_reads_turkish(name: str) -> None:
    text, found = turkish(lambda: localized(TABLES[name]()))
    assert found == [], f"{name}: English {found} in\n{text}"


@pytest.mark.parametrize("name", list(TABLES))
def test_the_english_table_is_unchanged(name: str) -> None:
    """``localized`` shows the same table in English (nbval compares the English editions)."""
    table = TABLES[name]()
    assert localized(table).to_string() == table.to_string()


SENTENCES: dict[str, Callable[[], Any]] = {
    "every decide reason": lambda: "\n".join(
        d.reason
        for m in METHODS
        for e in [*ERRORS, "408", "501", "409"]
        for key in (False, True)
        for d in (
            decide(outcome_for(e) if e in ERRORS else Outcome.http(int(e), retry_after=1), m, key),
        )
    ),
    "retry everything": lambda: retry_everything_rule(Outcome.http(422), "POST").reason,
    "write line": lambda: WriteReport(
        "unsafe", 1000, 1249, 1249, 249, 1000, 0, 0, 249, 1.5
    ).summary(),
    "network details": lambda: "\n".join(
        network_outcome(e, 0.1).detail for e in (TimeoutError(), ConnectionResetError())
    ),
    "body detail": lambda: response_outcome(200, None, b"{oops").detail,
    "retry-after detail": lambda: response_outcome(503, "soon", b"{}").detail.split(":")[0],
    "server's field errors": lambda: validate_measurement({"value": "cold", "x": 1}),
    "breaker refusal": lambda: "\n".join(
        str(BreakerOpen(n, 4100, s)) for n in ("", "POST /m") for s in (State.OPEN, State.HALF_OPEN)
    ),
    "give-up messages": lambda: _give_ups(),
    "the prompts": lambda: "\n".join(repr(check(...)) for check in PROMPTED),
    "printed lines": lambda: "\n".join(
        line(
            t,
            name="x",
            attempts=1,
            seconds="0,5",
            sent=1,
            start=0,
            end=600,
            state=label("closed"),
            cap=5000,
            count=3,
            events=306,
            blocked=280,
            waits=[0.8, 1.9],
            total="16,6",
        )
        for t in LINES
    ),
    "logged lines": lambda: _logged(),
}


def _give_ups() -> str:
    lines = []
    for attempts, budget, longest, suggested in (
        (2, None, None, None),
        (5, 300, None, None),
        (5, None, 1000, 60),
    ):
        answer = Outcome.http(503, retry_after=suggested)
        policy = RetryPolicy(max_attempts=attempts, time_budget=budget, max_retry_after=longest)
        send = functools.partial(lambda outcome: outcome, answer)
        lines.append(policy.run(send, "GET", Mulberry32(1), lambda ms: None).message)
    return "\n".join(lines)


def _logged() -> str:
    import logging

    records: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record.getMessage())

    logger = logging.getLogger("retrylab")
    keep, level = Keep(), logger.level
    logger.addHandler(keep)
    logger.setLevel(logging.DEBUG)
    try:
        answers = iter([Outcome.http(503), Outcome.success()])
        RetryPolicy().run(lambda: next(answers), "GET", Mulberry32(1), lambda ms: None)
    finally:
        logger.removeHandler(keep)
        logger.setLevel(level)
    return "\n".join(records)


@pytest.mark.parametrize("name", list(SENTENCES))
def test_a_printed_sentence_reads_turkish(name: str) -> None:
    text, found = turkish(SENTENCES[name])
    assert found == [], f"{name}: English {found} in\n{text}"


def test_a_breaker_refusal_still_says_its_numbers() -> None:
    breaker = CircuitBreaker(3, 5000, name="POST /measurements")
    for t in (0, 100, 200):
        breaker.record(False, t)
    with language("tr"), pytest.raises(BreakerOpen) as refused:
        breaker.call(lambda: "sent", now=900)
    assert "'POST /measurements'" in str(refused.value)
    assert "4300 ms" in str(refused.value)


def test_the_readers_keys_stay_english() -> None:
    """The table the code indexes keeps its keys; only the shown copy is Turkish."""
    counts = WriteReport("key", 1000, 1249, 1000, 0, 998, 2, 0, 249, 1.0).series()
    with language("tr"):
        shown = localized(counts)
    assert counts["stored"] == 1000 and shown["kaydedilen"] == 1000
    assert shown.name == "anahtar" and counts.name == "key"


def test_a_line_outside_the_list_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="template='a new line' is out of range"):
        line("a new line")
