"""Notebooks 00 and 05-09, A1 in Turkish: the prompt, hints and verdicts of every
checker that is not a table.

Each case calls a checker of retrylab.exercises.ex00, ex05-ex09 with a known
answer (mostly wrong ones, one per hint) in Turkish and finds no English prose
words with tools/english_words.py's word list; the language is set back
afterwards. A checker judged by a table (retrylab.exercises.table) is covered by
tests/test_exercises_tables.py from the table itself, with every mistake's example:
its cases are not listed here (a test says so).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from _answers import urllib3_retry
from _tools import load_tool

from retrylab import Backoff, RetryPolicy
from retrylab.exercises import Feedback, ex00, ex05, ex07, ex09
from retrylab.exercises.table import table_of
from retrylab.i18n import current, language

english = load_tool("english_words")


def _raising() -> Iterator[str]:
    """A generator that fails while it is read."""
    yield "429"
    raise ValueError("boom")


_retry = urllib3_retry


def _fn(value: Any) -> Callable[..., Any]:
    return lambda *args: value


#: (id, checker, answer): one answer per message the checker can give.
CASES: list[tuple[str, Callable[[Any], Feedback], Any]] = [
    ("which-notebook-prompt", ex00.check_which_notebook, None),
    ("which-notebook-garbage", ex00.check_which_notebook, "x"),
    ("which-notebook-other", ex00.check_which_notebook, 5),
    ("which-notebook-right", ex00.check_which_notebook, 1),
    ("outage-prompt", ex05.check_outage_policy, None),
    ("outage-not-policy", ex05.check_outage_policy, "x"),
    ("outage-too-many", ex05.check_outage_policy, RetryPolicy(1000)),
    ("outage-no-budget", ex05.check_outage_policy, RetryPolicy(3)),
    (
        "outage-no-jitter",
        ex05.check_outage_policy,
        RetryPolicy(3, backoff=Backoff(200, 2, 5000), time_budget=60_000),
    ),
    ("outage-right", ex05.check_outage_policy, RetryPolicy.background()),
    # issue 22: a sample of the hints that name each mistake
    (
        "outage-six",
        ex05.check_outage_policy,
        RetryPolicy(6, Backoff(1000, 2, 30_000, jitter="full")),
    ),
    (
        "outage-budget-seconds",
        ex05.check_outage_policy,
        RetryPolicy(4, Backoff(1000, 2, 30_000, jitter="full"), time_budget=60),
    ),
    ("outage-a-backoff", ex05.check_outage_policy, Backoff(1000, 2, 30_000, jitter="full")),
    (
        "outage-long-budget",
        ex05.check_outage_policy,
        RetryPolicy(20, Backoff(2000, growth="constant", jitter="full"), time_budget=1_200_000),
    ),
    ("capstone-prompt", ex07.check_capstone, None),
    ("capstone-not-policy", ex07.check_capstone, "x"),
    ("capstone-checklist", ex07.check_capstone, RetryPolicy(10)),
    ("capstone-missed", ex07.check_capstone, RetryPolicy.background()),
    (
        "capstone-missed-served",
        ex07.check_capstone,
        RetryPolicy(
            3, backoff=Backoff(200, 2, 400, jitter="full"), time_budget=60_000, max_retry_after=3000
        ),
    ),
    (
        "capstone-base-ms",
        ex07.check_capstone,
        RetryPolicy(
            5,
            backoff=Backoff(5, 3, 60_000, jitter="full"),
            time_budget=110_000,
            max_retry_after=600_000,
        ),
    ),
    (
        "capstone-budget-short",
        ex07.check_capstone,
        RetryPolicy(
            5,
            backoff=Backoff(5000, 3, 60_000, jitter="full"),
            time_budget=15_000,
            max_retry_after=600_000,
        ),
    ),
    ("rate-prompt", ex09.check_failure_rate, None),
    ("rate-not-function", ex09.check_failure_rate, 5),
    ("rate-not-number", ex09.check_failure_rate, _fn("x")),
    ("rate-never-minus-one", ex09.check_failure_rate, _fn(50.0)),
    (
        "rate-fraction",
        ex09.check_failure_rate,
        lambda failed, minimum: (
            -1.0 if len(failed) < max(1, minimum) else sum(failed) / len(failed)
        ),
    ),
    (
        "rate-right",
        ex09.check_failure_rate,
        lambda failed, minimum: (
            -1.0 if len(failed) < max(1, minimum) else 100 * sum(failed) / len(failed)
        ),
    ),
    ("sre-not-number", ex09.check_sre_probability, _fn("x")),
    ("sre-negative", ex09.check_sre_probability, _fn(-0.5)),
    (
        "sre-no-plus-one",
        ex09.check_sre_probability,
        lambda r, a, k: max(0.0, (r - k * a) / r) if r else 0.0,
    ),
    ("sre-other", ex09.check_sre_probability, _fn(0.123)),
    ("sre-right", ex09.check_sre_probability, lambda r, a, k: max(0.0, (r - k * a) / (r + 1))),
    ("hedge-no-delay", ex09.check_hedged_latency, lambda f, s, d: min(f, s)),
    ("hedge-first-wins", ex09.check_hedged_latency, lambda f, s, d: d + s),
    ("hedge-sum", ex09.check_hedged_latency, lambda f, s, d: f + s),
    ("hedge-other", ex09.check_hedged_latency, _fn(12345)),
    ("hedge-right", ex09.check_hedged_latency, lambda f, s, d: min(f, d + s)),
    ("settings-prompt", ex09.check_recovering_settings, None),
    ("settings-not-dict", ex09.check_recovering_settings, "x"),
    (
        "settings-blank",
        ex09.check_recovering_settings,
        {"timeout": ..., "retries": 3, "budget": None},
    ),
    ("settings-unknown", ex09.check_recovering_settings, {"speed": 1}),
    ("settings-few-retries", ex09.check_recovering_settings, {"retries": 1}),
    (
        "settings-metastable",
        ex09.check_recovering_settings,
        {"timeout": 1000, "retries": 3, "budget": None},
    ),
]


#: A prompt's answer ends in -(y)la/-(y)le or "ile", maybe followed by a parenthesis.
INSTRUMENTAL = re.compile(r"(\w(y?l[ae])|\bile)( \(.*\))? değiştirin, sonra")


#: The cases of checkers that are not tables.
NOT_TABLES = [c for c in CASES if table_of(c[1]) is None]


def test_no_case_is_listed_for_a_table() -> None:
    """The hand list holds no case for a checker judged by a table (the table's own
    examples replace it): a checker converted to a table has its cases deleted here."""
    assert [c[0] for c in CASES if table_of(c[1]) is not None] == []


@pytest.mark.parametrize(
    ("checker", "answer"), [c[1:] for c in NOT_TABLES], ids=[c[0] for c in NOT_TABLES]
)
def test_checker_speaks_turkish(checker: Callable[[Any], Feedback], answer: Any) -> None:
    before = current()
    if answer is _raising:
        answer = _raising()
    with language("tr"):
        feedback = checker(answer)
        text = f"{feedback.verdict}: {feedback.message}"
    assert current() == before
    assert english.english_words(text) == [], text
    if not feedback.answered:  # "... kısmını X değiştirin": X in the instrumental case
        assert INSTRUMENTAL.search(feedback.message), feedback.message


def test_cases_give_the_messages_they_name() -> None:
    """The cases reach the branches they are named after (in English, as before)."""
    assert ex07.check_quiz({"B", "E"}).message == (
        "B fail(s) a rule: run audit_table(QUIZ[letter]); A pass(es) every rule."
    )
    assert ex05.check_proportional_range((2000, 6000)).message.startswith(
        "(2000, 6000) is the range around a delay of 4000 ms"
    )
    assert "missed " in ex07.check_capstone(RetryPolicy.background()).message
    assert ex07.check_quiz(_raising()).message == (
        "passing: could not read it; give a set of letters such as {'A', 'B'}."
    )
    assert ex05.check_retryable({"999"}).message == (
        "'999' is not one of the labels: 400, 401, 404, 429, 502, 503, network."
    )
