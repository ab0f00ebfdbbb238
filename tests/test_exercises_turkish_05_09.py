"""Notebooks 00 and 05-09, A1 in Turkish: every checker's prompt, hints and verdicts.

Each case calls a checker of retrylab.exercises.ex00, ex05-ex09 with a known
answer (mostly wrong ones, one per hint) in Turkish and finds no English prose
words with tools/english_words.py's word list; the language is set back
afterwards. Notebook 08's answer labels ("503 with Retry-After", "refused (never
sent)") are values a student types into the answer, so they are left out of the
text searched.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from _answers import urllib3_retry
from _tools import load_tool

from retrylab import Backoff, RetryPolicy
from retrylab.exercises import Feedback, ex00, ex05, ex06, ex07, ex08, ex09
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
    ("three-failures-prompt", lambda a: ex00.check_three_failures(a, a), None),
    ("three-failures-attempts", lambda a: ex00.check_three_failures(*a), ("x", [1, 2, 3])),
    ("three-failures-waits", lambda a: ex00.check_three_failures(*a), (4, "x")),
    ("three-failures-count", lambda a: ex00.check_three_failures(*a), (3, [1, 2])),
    ("three-failures-between", lambda a: ex00.check_three_failures(*a), (4, [1, 2])),
    ("three-failures-ceilings", lambda a: ex00.check_three_failures(*a), (4, [200, 400, 800])),
    ("three-failures-other", lambda a: ex00.check_three_failures(*a), (4, [1, 2, 3])),
    ("which-notebook-prompt", ex00.check_which_notebook, None),
    ("which-notebook-garbage", ex00.check_which_notebook, "x"),
    ("which-notebook-other", ex00.check_which_notebook, 5),
    ("which-notebook-right", ex00.check_which_notebook, 1),
    ("longest-prompt", ex00.check_longest_wait, None),
    ("longest-garbage", ex00.check_longest_wait, "x"),
    ("longest-two-waits", ex00.check_longest_wait, 600),
    ("longest-four-waits", ex00.check_longest_wait, 3000),
    ("longest-from-one", ex00.check_longest_wait, 2800),
    ("longest-average", ex00.check_longest_wait, 700),
    ("longest-cap", ex00.check_longest_wait, 15000),
    ("longest-other", ex00.check_longest_wait, 5),
    ("longest-right", ex00.check_longest_wait, 1400),
    ("retryable-prompt", ex05.check_retryable, None),
    ("retryable-string", ex05.check_retryable, "429"),
    ("retryable-not-label", ex05.check_retryable, [1.5]),
    ("retryable-unknown", ex05.check_retryable, {"999"}),
    ("retryable-unread", ex05.check_retryable, _raising),
    ("retryable-network", ex05.check_retryable, {"network"}),
    ("retryable-503", ex05.check_retryable, {"429", "503"}),
    ("retryable-404", ex05.check_retryable, {"404"}),
    ("retryable-empty", ex05.check_retryable, set()),
    ("retryable-right", ex05.check_retryable, {"429"}),
    ("range-prompt", ex05.check_proportional_range, None),
    ("range-garbage", ex05.check_proportional_range, "abc"),
    ("range-swapped", ex05.check_proportional_range, (12000, 4000)),
    ("range-full", ex05.check_proportional_range, (0, 8000)),
    ("range-off-by-one", ex05.check_proportional_range, (2000, 6000)),
    ("range-single", ex05.check_proportional_range, (5000, 5000)),
    ("range-other", ex05.check_proportional_range, (1, 2)),
    ("range-right", ex05.check_proportional_range, (4000, 12000)),
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
    ("lifecycle-prompt", ex05.check_lifecycle, None),
    ("lifecycle-string", ex05.check_lifecycle, "policy"),
    ("lifecycle-unknown", ex05.check_lifecycle, {"global"}),
    ("lifecycle-unread", ex05.check_lifecycle, _raising()),
    ("lifecycle-extra", ex05.check_lifecycle, {"policy"}),
    ("lifecycle-missing", ex05.check_lifecycle, {"policy_detached"}),
    ("lifecycle-right", ex05.check_lifecycle, {"policy_detached", "asyncio_port"}),
    ("kotlin-prompt", ex05.check_kotlin_waits, None),
    ("kotlin-garbage", ex05.check_kotlin_waits, "x"),
    ("kotlin-length", ex05.check_kotlin_waits, [1, 2]),
    ("kotlin-negative", ex05.check_kotlin_waits, [-1, 2877, 7436]),
    ("kotlin-no-jitter", ex05.check_kotlin_waits, [1500, 3000, 6000]),
    ("kotlin-rounded", ex05.check_kotlin_waits, [1276, 2878, 7437]),
    ("kotlin-base-1000", ex05.check_kotlin_waits, ex05._kotlin_waits(1000)),
    ("kotlin-other", ex05.check_kotlin_waits, [1, 2, 3]),
    ("kotlin-right", ex05.check_kotlin_waits, [1275, 2877, 7436]),
    # issue 22: a sample of the hints that name each mistake
    ("kotlin-seconds", ex05.check_kotlin_waits, [1.275, 2.877, 7.436]),
    ("kotlin-cumulative", ex05.check_kotlin_waits, [1275, 4152, 11588]),
    ("kotlin-reversed", ex05.check_kotlin_waits, [7436, 2877, 1275]),
    ("retryable-401", ex05.check_retryable, {"401"}),
    ("range-factors", ex05.check_proportional_range, (0.5, 1.5)),
    ("range-seconds", ex05.check_proportional_range, (4, 12)),
    ("range-base", ex05.check_proportional_range, (500, 1500)),
    ("range-sum", ex05.check_proportional_range, (7500, 22500)),
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
    ("lifecycle-kotlin", ex05.check_lifecycle, {"kotlin"}),
    ("lifecycle-asyncio-missing", ex05.check_lifecycle, {"policy_detached"}),
    ("lifecycle-empty", ex05.check_lifecycle, set()),
    ("waves-give-up", ex06.check_wave_capacity, 600),
    ("waves-percent", ex06.check_wave_capacity, 40),
    ("waves-three", ex06.check_wave_capacity, 300),
    ("layered-82", ex06.check_layered, 82),
    ("layered-120", ex06.check_layered, 120),
    ("layered-9", ex06.check_layered, 9),
    ("throttle-one-for-one", ex06.check_throttle_recovery, 10),
    ("throttle-tokens", ex06.check_throttle_recovery, 5.1),
    ("throttle-failures-too", ex06.check_throttle_recovery, 61),
    ("ratio-percent", ex06.check_jitter_calls_ratio, 270),
    ("ratio-difference", ex06.check_jitter_calls_ratio, 2238),
    ("ratio-rounded", ex06.check_jitter_calls_ratio, 3),
    ("urllib3-total-other", ex08.check_urllib3_retry, _retry(total=1)),
    ("timeout-page-3s", ex09.check_shortest_timeout, 3000),
    ("timeout-seconds", ex09.check_shortest_timeout, 1.5),
    ("timeout-steps", ex09.check_shortest_timeout, 15),
    ("timeout-multiple", ex09.check_shortest_timeout, 1550),
    ("urllib3-prompt", ex08.check_urllib3_retry, None),
    ("urllib3-not-retry", ex08.check_urllib3_retry, "x"),
    ("urllib3-total", ex08.check_urllib3_retry, _retry(total=5)),
    ("urllib3-factor-15", ex08.check_urllib3_retry, _retry(backoff_factor=15)),
    ("urllib3-factor-base", ex08.check_urllib3_retry, _retry(backoff_factor=5)),
    ("urllib3-factor-other", ex08.check_urllib3_retry, _retry(backoff_factor=6)),
    ("urllib3-max", ex08.check_urllib3_retry, _retry(backoff_max=60_000)),
    (
        "urllib3-extra-status",
        ex08.check_urllib3_retry,
        _retry(status_forcelist=[408, 429, 500, 501, 502, 503, 504]),
    ),
    ("urllib3-missing-status", ex08.check_urllib3_retry, _retry(status_forcelist=[429])),
    ("urllib3-all-methods", ex08.check_urllib3_retry, _retry(allowed_methods=None)),
    ("urllib3-post", ex08.check_urllib3_retry, _retry(allowed_methods=["GET", "POST"])),
    ("urllib3-few-methods", ex08.check_urllib3_retry, _retry(allowed_methods=["GET"])),
    ("urllib3-right", ex08.check_urllib3_retry, _retry()),
    ("keyless-prompt", ex08.check_keyless_post, None),
    ("keyless-garbage", ex08.check_keyless_post, "x"),
    ("keyless-unknown", ex08.check_keyless_post, {"999"}),
    ("keyless-extra", ex08.check_keyless_post, {"429", "503 with Retry-After"}),
    ("keyless-missing", ex08.check_keyless_post, {"429"}),
    ("keyless-right", ex08.check_keyless_post, {"408", "429", "refused (never sent)"}),
    ("disagree-both", ex08.check_rules_disagree, {"408", "429", "500"}),
    ("disagree-one-rule", ex08.check_rules_disagree, {"408", "429", "refused (never sent)"}),
    ("disagree-agree", ex08.check_rules_disagree, {"429", "reset (maybe sent)"}),
    ("disagree-neither", ex08.check_rules_disagree, {"reset (maybe sent)"}),
    (
        "disagree-right",
        ex08.check_rules_disagree,
        {"408", "500", "501", "503", "503 with Retry-After", "refused (never sent)"},
    ),
    ("waves-prompt", ex06.check_wave_capacity, None),
    ("waves-garbage", ex06.check_wave_capacity, "x"),
    ("waves-200", ex06.check_wave_capacity, 200),
    ("waves-1000", ex06.check_wave_capacity, 1000),
    ("waves-100", ex06.check_wave_capacity, 100),
    ("waves-other", ex06.check_wave_capacity, 7),
    ("waves-right", ex06.check_wave_capacity, 400),
    ("layered-prompt", ex06.check_layered, None),
    ("layered-garbage", ex06.check_layered, "x"),
    ("layered-64", ex06.check_layered, 64),
    ("layered-12", ex06.check_layered, 12),
    ("layered-27", ex06.check_layered, 27),
    ("layered-other", ex06.check_layered, 5),
    ("layered-right", ex06.check_layered, 81),
    ("throttle-prompt", ex06.check_throttle_recovery, None),
    ("throttle-garbage", ex06.check_throttle_recovery, "x"),
    ("throttle-50", ex06.check_throttle_recovery, 50),
    ("throttle-5", ex06.check_throttle_recovery, 5),
    ("throttle-other", ex06.check_throttle_recovery, 7),
    ("throttle-right", ex06.check_throttle_recovery, 51),
    ("ratio-prompt", ex06.check_jitter_calls_ratio, None),
    ("ratio-garbage", ex06.check_jitter_calls_ratio, "x"),
    ("ratio-inverted", ex06.check_jitter_calls_ratio, 0.37),
    ("ratio-100-clients", ex06.check_jitter_calls_ratio, 2.33),
    ("ratio-other", ex06.check_jitter_calls_ratio, 9.0),
    ("ratio-right", ex06.check_jitter_calls_ratio, 2.70),
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
    ("quiz-per-letter", ex07.check_quiz, {"A", "D", "E"}),
    ("quiz-failing-ones", ex07.check_quiz, {"B", "C", "D"}),
    ("quiz-empty", ex07.check_quiz, set()),
    ("quiz-prompt", ex07.check_quiz, None),
    ("quiz-not-set", ex07.check_quiz, 5),
    ("quiz-not-letter", ex07.check_quiz, [1]),
    ("quiz-unread", ex07.check_quiz, _raising()),
    ("quiz-unknown", ex07.check_quiz, {"Z"}),
    ("quiz-missing", ex07.check_quiz, {"A"}),
    ("quiz-extra", ex07.check_quiz, {"A", "B", "E"}),
    ("quiz-both", ex07.check_quiz, {"B", "E"}),
    ("quiz-right", ex07.check_quiz, {"A", "E"}),
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


@pytest.mark.parametrize(("checker", "answer"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_checker_speaks_turkish(checker: Callable[[Any], Feedback], answer: Any) -> None:
    before = current()
    if answer is _raising:
        answer = _raising()
    with language("tr"):
        feedback = checker(answer)
        text = f"{feedback.verdict}: {feedback.message}"
    assert current() == before
    for label in sorted(ex08.POST_FAILURES, key=len, reverse=True):  # typed as they are
        text = text.replace(label, "")
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
