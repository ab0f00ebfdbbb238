"""Per exercise: the wrong answers a student would give, whether each is caught, and
the quality of the hint it gets.

    python tools/exercise_report.py                 a markdown table per language, then
                                                    a summary per exercise
    python tools/exercise_report.py --summary       the summary only
    python tools/exercise_report.py --language tr   the Turkish hints only

Exercises that are tables (:mod:`retrylab.exercises.table`) are read from the
package: every :class:`~retrylab.exercises.table.Exercise` it defines, tried with each
of its mistakes' own answers (``examples``), so a mistake added to a table is reported
with no edit here. Build-it exercises take their wrong implementations from the
checkers' own tests (``tests/exercises/test_exercises_build.py``: FULL_MISTAKES, DECO_MISTAKES,
RULE_MISTAKES, LOOP_MISTAKES, BREAKER_MISTAKES; ``tests/exercises/test_exercises_09.py``: the
*_MISTAKES lists); the closed exercises that are not tables yet from :func:`_closed`
below (the slips a student makes: an answer one step off, the page's own number for
another setting, a unit mix-up; an entry for a checker judged by a table is skipped).

A mistake is *caught* when the checker answers "Try again". A table's hint *names
the mistake* when it is that mistake's own message; another checker's when the
message differs from its message for a wrong answer that is no particular mistake
(the *probe*, compared with digits removed); otherwise it gives *numbers only* (what
was returned and what was expected). Run with the package on the path:
``PYTHONPATH=$PWD python tools/exercise_report.py``.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "tests" / "exercises")]

from retrylab import Backoff, RetryPolicy  # noqa: E402
from retrylab.exercises import (  # noqa: E402
    Feedback,
    build,
    ex03,
    ex05,
    ex07,
    ex09,
    shown,
)
from retrylab.exercises.table import examples, judge, names, tables  # noqa: E402
from retrylab.i18n import language  # noqa: E402


@dataclass(frozen=True)
class Tried:
    exercise: str
    mistake: str
    caught: bool
    named: bool
    message: str


def _closed() -> dict[
    str, tuple[Callable[..., Feedback], tuple[Any, ...], list[tuple[str, tuple[Any, ...]]]]
]:
    """exercise -> (checker, probe arguments, [(mistake, arguments)]), for the closed
    exercises that are not tables (a table's own examples replace its entry here)."""

    return {
        "03 Ex 4": (
            ex03.check_refresh_policy,
            (RetryPolicy(3, Backoff(250, 2, 5000, jitter="full")),),
            [
                ("two attempts", (RetryPolicy(2, Backoff(100, 2, 5000, jitter="full")),)),
                ("the default backoff", (RetryPolicy(max_attempts=3),)),
                ("four attempts", (RetryPolicy(4, Backoff(100, 2, 5000, jitter="full")),)),
                (
                    "a budget that cuts the third attempt",
                    (RetryPolicy(3, Backoff(300, 2, 5000, jitter="full"), time_budget=400),),
                ),
                ("one attempt", (RetryPolicy(1),)),
                ("no jitter", (RetryPolicy(3, Backoff(200, 2, 5000)),)),
                ("a budget of 500 on the default backoff", (RetryPolicy(3, time_budget=500),)),
                ("many attempts", (RetryPolicy(100, Backoff(100, 2, 5000, jitter="full")),)),
                (
                    "a low cap, five attempts",
                    (RetryPolicy(5, Backoff(200, 2, 200, jitter="full")),),
                ),
                (
                    "decorrelated jitter",
                    (RetryPolicy(3, Backoff(100, 2, 5000, jitter="decorrelated")),),
                ),
                ("equal jitter", (RetryPolicy(3, Backoff(200, 2, 5000, jitter="equal")),)),
            ],
        ),
        "05b Ex 1": (
            ex05.check_outage_policy,
            (RetryPolicy(8, Backoff(1000, 2, 30_000, jitter="full")),),
            [
                ("endless retries", (RetryPolicy(1000),)),
                (
                    "no backoff growth",
                    (RetryPolicy(5, Backoff(1000, growth="constant", cap=None)),),
                ),
                ("six attempts", (RetryPolicy(6, Backoff(1000, 2, 30_000, jitter="full")),)),
                ("no time budget", (RetryPolicy(5, Backoff(1000, 2, 30_000, jitter="full")),)),
                ("no jitter", (RetryPolicy(5, Backoff(1000, 2, 30_000), time_budget=60_000),)),
                (
                    "budget in seconds",
                    (RetryPolicy(4, Backoff(1000, 2, 30_000, jitter="full"), time_budget=60),),
                ),
                (
                    "base in seconds",
                    (RetryPolicy(4, Backoff(1, 2, 30_000, jitter="full"), time_budget=60_000),),
                ),
                ("a Backoff, not a policy", (Backoff(1000, 2, 30_000, jitter="full"),)),
                ("the class, not called", (RetryPolicy,)),
                (
                    "a budget longer than the outage",
                    (
                        RetryPolicy(
                            20,
                            Backoff(2000, growth="constant", jitter="full"),
                            time_budget=1_200_000,
                        ),
                    ),
                ),
            ],
        ),
        "07 Ex 1": (
            ex07.check_capstone,
            (RetryPolicy(max_attempts=2),),
            [
                ("the background preset", (RetryPolicy.background(),)),
                (
                    "no jitter",
                    (
                        RetryPolicy(
                            5,
                            Backoff(5000, 3, 60_000),
                            time_budget=110_000,
                            max_retry_after=600_000,
                        ),
                    ),
                ),
                (
                    "no time budget",
                    (
                        RetryPolicy(
                            5, Backoff(5000, 3, 60_000, jitter="full"), max_retry_after=600_000
                        ),
                    ),
                ),
                (
                    "base in seconds",
                    (
                        RetryPolicy(
                            5,
                            Backoff(5, 3, 60_000, jitter="full"),
                            time_budget=110_000,
                            max_retry_after=600_000,
                        ),
                    ),
                ),
                (
                    "ten attempts",
                    (
                        RetryPolicy(
                            10,
                            Backoff(5000, 3, 60_000, jitter="full"),
                            time_budget=110_000,
                            max_retry_after=600_000,
                        ),
                    ),
                ),
                (
                    "budget in seconds",
                    (
                        RetryPolicy(
                            5,
                            Backoff(5000, 3, 60_000, jitter="full"),
                            time_budget=110,
                            max_retry_after=600_000,
                        ),
                    ),
                ),
                (
                    "a budget shorter than the outage",
                    (
                        RetryPolicy(
                            5,
                            Backoff(5000, 3, 60_000, jitter="full"),
                            time_budget=15_000,
                            max_retry_after=600_000,
                        ),
                    ),
                ),
                ("the button preset", (RetryPolicy.user_triggered(),)),
                (
                    "no cap",
                    (
                        RetryPolicy(
                            5,
                            Backoff(5000, 3, None, jitter="full"),
                            time_budget=110_000,
                            max_retry_after=600_000,
                        ),
                    ),
                ),
                (
                    "no Retry-After limit",
                    (RetryPolicy(5, Backoff(5000, 3, 60_000, jitter="full"), time_budget=110_000),),
                ),
            ],
        ),
    }


def _build() -> dict[str, tuple[Callable[..., Feedback], Any, Sequence[tuple[str, Any, str]]]]:
    """exercise -> (checker, probe answer, the tests' [(mistake, wrong code, hint)])."""
    import test_exercises_09 as t09
    import test_exercises_build as tb

    class Never:
        """A probe that is no particular mistake (an always-open breaker would get the
        "opens at threshold + 1" diagnosis, which it deserves)."""

        def __init__(self, threshold: int, cooldown: int) -> None:
            pass

        def allow(self, now: int) -> bool:
            return False

        def record(self, success: bool, now: int) -> None:
            pass

    def one(*args: Any) -> Any:
        return 1

    def loop_once(send: Any, method: str, max_attempts: int, sleep: Any, rng: Any) -> Any:
        return 1, send(), []

    return {
        "01 Ex 1": (build.check_should_retry, lambda o, m, k: False, tb.RULE_MISTAKES),
        "02 Ex 1": (build.check_full_jitter, one, tb.FULL_MISTAKES),
        "02 Ex 2": (build.check_decorrelated, one, tb.DECO_MISTAKES),
        "03 Ex 1": (build.check_retry_loop, loop_once, tb.LOOP_MISTAKES),
        "04 Ex 1": (build.check_breaker, Never, tb.BREAKER_MISTAKES),
        "09 Ex 1": (ex09.check_failure_rate, one, t09.FAILURE_RATE_MISTAKES),
        "09 Ex 2": (ex09.check_sre_probability, one, t09.SRE_MISTAKES),
        "09 Ex 3": (ex09.check_hedged_latency, one, t09.HEDGE_MISTAKES),
    }


def _shape(message: str) -> str:
    return re.sub(r"[\d.,]+", "#", message)


def tried() -> list[Tried]:
    rows: list[Tried] = []
    for exercise, (check, probe, mistakes) in _build().items():
        generic = _shape(check(probe).message)
        for name, fn, _hint in mistakes:
            fb = check(fn)
            rows.append(
                Tried(
                    exercise,
                    name,
                    not fb.correct and fb.answered,
                    _shape(fb.message) != generic,
                    fb.message,
                )
            )
    for exercise, table in tables():
        for message, answer in examples(table):
            fb = judge(table, answer)
            rows.append(
                Tried(
                    exercise,
                    shown(answer, 40),
                    not fb.correct and fb.answered,
                    names(message, fb.message),
                    fb.message,
                )
            )
    for exercise, (check, probe_args, cases) in _closed().items():
        generic = _shape(check(*probe_args).message)
        for name, args in cases:
            fb = check(*args)
            rows.append(
                Tried(
                    exercise,
                    name,
                    not fb.correct and fb.answered,
                    _shape(fb.message) != generic,
                    fb.message,
                )
            )
    return sorted(rows, key=lambda r: r.exercise)


def _in(lang: str) -> list[Tried]:
    """:func:`tried` with the hints in ``lang``."""
    with language(lang):
        return tried()


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--summary", action="store_true", help="the summary only")
    parser.add_argument(
        "--language",
        choices=("en", "tr", "both"),
        default="both",
        help="the language of the hints tried (default: both, English then Turkish)",
    )
    args = parser.parse_args(argv)
    langs = ("en", "tr") if args.language == "both" else (args.language,)
    runs = {lang: _in(lang) for lang in langs}
    if not args.summary:
        for lang, rows in runs.items():
            print(f"## {lang}\n")
            print("| exercise | wrong answer tried | caught | hint | message |")
            print("|---|---|---|---|---|")
            for r in rows:
                text = r.message if len(r.message) <= 110 else r.message[:107] + "..."
                print(
                    f"| {r.exercise} | {r.mistake} | {'yes' if r.caught else '**NO**'} | "
                    f"{'names the mistake' if r.named else 'numbers only'} | "
                    f"{text.replace('|', '/')} |"
                )
            print()
    head = " | ".join(f"caught ({lang}) | names the mistake ({lang})" for lang in langs)
    print(f"| exercise | tried | {head} |")
    print("|---|---|" + "---|---|" * len(langs))
    first = next(iter(runs.values()))
    for exercise in sorted({r.exercise for r in first}):
        cells = []
        for rows in runs.values():
            mine = [r for r in rows if r.exercise == exercise]
            cells += [
                str(sum(r.caught for r in mine)),
                str(sum(r.caught and r.named for r in mine)),
            ]
        tried_here = sum(r.exercise == exercise for r in first)
        print(f"| {exercise} | {tried_here} | {' | '.join(cells)} |")
    for lang, rows in runs.items():
        caught = [r for r in rows if r.caught]
        print(
            f"\n{lang}: {len(rows)} wrong answers tried, {len(caught)} caught, "
            f"{sum(r.named for r in caught)} of them with a hint that names the mistake."
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
