"""Per exercise: the wrong answers a student would give, whether each is caught, and
the quality of the hint it gets.

    python tools/exercise_report.py            a markdown table, then a summary per exercise
    python tools/exercise_report.py --summary  the summary only

Build-it exercises take their wrong implementations from the checkers' own tests
(``tests/test_exercises_build.py``: FULL_MISTAKES, DECO_MISTAKES, RULE_MISTAKES,
LOOP_MISTAKES, BREAKER_MISTAKES; ``tests/test_exercises_09.py``: the *_MISTAKES
lists), closed exercises from :data:`CLOSED` below (the slips a student makes: an
answer one step off, the page's own number for another setting, a unit mix-up).

A mistake is *caught* when the checker answers "Try again". Its hint *names the
mistake* when the message differs from the checker's message for a wrong answer
that is no particular mistake (the *probe*, compared with digits removed); otherwise
it gives *numbers only* (what was returned and what was expected). Run with the
package on the path: ``PYTHONPATH=$PWD python tools/exercise_report.py``.
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
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from retrylab import Backoff, RetryPolicy  # noqa: E402
from retrylab.core.outcome import decide  # noqa: E402
from retrylab.exercises import (  # noqa: E402
    Feedback,
    build,
    ex00,
    ex01,
    ex02,
    ex03,
    ex04,
    ex05,
    ex06,
    ex07,
    ex08,
    ex09,
)


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
    """exercise -> (checker, probe arguments, [(mistake, arguments)])."""
    from _answers import urllib3_retry as retry

    from retrylab.lab.bridge import to_urllib3

    return {
        "00 Ex 1": (
            ex00.check_three_failures,
            (4, [1, 2, 3]),
            [
                ("the two-failure run's answer", (3, [70, 184])),
                ("attempts counted as failures", (3, [70, 184, 592])),
                ("a wait after the last attempt", (4, [70, 184, 592, 1000])),
                ("one wait short", (4, [70, 184])),
                ("ceilings instead of draws", (4, [200, 400, 800])),
                ("attempts as a float", (4.5, [70, 184, 592])),
                ("the total wait", (4, 846)),
                ("seconds", (4, [0.07, 0.184, 0.592])),
                ("the waits reversed", (4, [592, 184, 70])),
                ("running totals", (4, [70, 254, 846])),
                ("n from 1", (4, [140, 367, 1183])),
                ("a generator already drawn from", (4, [92, 296, 701])),
            ],
        ),
        "00 Ex 2": (
            ex00.check_longest_wait,
            (12345,),
            [
                ("two waits", (600,)),
                ("four waits", (3000,)),
                ("n from 1", (2800,)),
                ("the average", (700,)),
                ("three caps", (15000,)),
                ("this seed's total", (846,)),
                ("one ms short", (1399,)),
                ("seconds", (1.4,)),
                ("the last ceiling only", (800,)),
                ("the next retry's ceiling", (1600,)),
                ("the cap", (5000,)),
            ],
        ),
        # Its hints name a case each: the probe is an answer that is no case at all.
        "01 Ex 2": (
            ex01.check_retried_cases,
            ({"Z"},),
            [
                ("507 forgotten", ({"A", "C", "F"},)),
                ("TRACE network retried", ({"A", "C", "E", "F", "G"},)),
                ("no network error retried", ({"A", "C", "G"},)),
                ("409 retried", ({"A", "B", "C", "F", "G"},)),
                ("410 retried", ({"A", "C", "D", "F", "G"},)),
                ("401 retried", ({"A", "C", "F", "G", "H"},)),
                ("every case", ({"A", "B", "C", "D", "E", "F", "G", "H"},)),
                ("5xx only for safe methods", ({"A", "F"},)),
                ("the key read backwards", ({"A", "C", "E", "G"},)),
                ("502 forgotten", ({"C", "F", "G"},)),
                ("only the gateway statuses", ({"A", "C"},)),
            ],
        ),
        "01 Ex 3": (
            ex01.check_retried_statuses,
            ({501, 504, 507, 999},),
            [
                ("507 forgotten", ({501, 504},)),
                ("408 retried", ({408, 501, 504, 507},)),
                ("425 retried", ({425, 501, 504, 507},)),
                ("501 left out", ({504, 507},)),
                ("413 retried", ({413, 501, 504, 507},)),
                ("410 retried", ({410, 501, 504, 507},)),
                ("405 retried", ({405, 501, 504, 507},)),
                ("all eight", (set(ex01.STATUSES),)),
                ("the other way round", ({405, 408, 410, 413, 425},)),
                ("RFC 9110's list", ({408, 425, 501, 504, 507},)),
                ("429 added", ({429, 501, 504, 507},)),
            ],
        ),
        "01 Ex 4": (
            ex01.check_expected_duplicates,
            (12345,),
            [
                ("the page's 249", (249,)),
                ("one retry only", (300,)),
                ("three retries", (417,)),
                ("endless retries", (429,)),
                ("a key assumed", (0,)),
                ("every record counted", (1390,)),
                ("the second retry only", (90,)),
                ("two retries x 0.3", (600,)),
                ("three attempts x 0.3", (900,)),
                ("independent drops", (510,)),
                ("a fraction", (0.39,)),
                ("a percentage", (39,)),
            ],
        ),
        "02 Ex 3": (
            ex02.check_ceilings,
            ([1, 2, 3, 4, 5],),
            [
                ("no cap", ([300, 900, 2700, 8100, 24300],)),
                ("n from 1", ([900, 2700, 8100, 10000, 10000],)),
                ("linear growth", ([300, 600, 900, 1200, 1500],)),
                ("four ceilings", ([300, 900, 2700, 8100],)),
                ("the lesson's policy", ([200, 400, 800, 1600, 3200],)),
                ("seconds", ([0.3, 0.9, 2.7, 8.1, 10],)),
                ("the lesson's factor", ([300, 600, 1200, 2400, 4800],)),
                ("the lesson's base", ([200, 600, 1800, 5400, 10000],)),
                ("the lesson's cap", ([300, 900, 2700, 5000, 5000],)),
                ("10 s as 1000 ms", ([300, 900, 1000, 1000, 1000],)),
                ("times n", ([0, 900, 1800, 2700, 3600],)),
                ("six ceilings", ([300, 900, 2700, 8100, 10000, 10000],)),
            ],
        ),
        "02 Ex 4": (
            ex02.check_full_jitter_second,
            ([1, 2, 3],),
            [
                ("the original order", ([70, 296, 780],)),
                ("the decorrelated column", ([384, 1034, 2121],)),
                ("the decorrelated column, swapped", ([340, 806, 2363],)),
                ("a generator of its own", ([70, 184, 592],)),
                ("draws 2, 4, 6 times 200", ([92, 175, 132],)),
                ("n from 1", ([184, 701, 1059],)),
                ("int() truncation", ([91, 350, 529],)),
                ("draws 2, 3, 4", ([92, 296, 701],)),
                ("the ceilings", ([200, 400, 800],)),
                ("reversed", ([530, 351, 92],)),
                ("seconds", ([0.092, 0.351, 0.53],)),
                ("two waits", ([92, 351],)),
            ],
        ),
        "02 Ex 5": (
            ex02.check_third_width,
            (3,),
            [
                ("the round width", (200,)),
                ("a quarter's width", (100,)),
                ("one too narrow", (175,)),
                ("the count, not the width", (8,)),
                ("the clients", (24,)),
                ("the whole ceiling", (800,)),
                ("a third of the ceiling", (267,)),
                ("seconds", (0.176,)),
                ("one too wide", (177,)),
                ("the page's 400", (400,)),
                ("the page's 50", (50,)),
            ],
        ),
        "02 Ex 6": (
            ex02.check_herd_attempt4,
            (19,),
            [
                ("no jitter", (24,)),
                ("the third retry", (7,)),
                ("24 / 8 buckets", (3,)),
                ("n from 1", (4,)),
                ("the second retry", (13,)),
                ("the bucket count", (8,)),
                ("the ceiling", (1600,)),
                ("a share", (0.25,)),
                ("the busiest bucket's time", (1000,)),
                ("a percentage", (25,)),
            ],
        ),
        "03 Ex 2": (
            ex03.check_waits,
            ([1, 2, 3, 4],),
            [
                ("backoff only", ([184, 2600, 70, 900],)),
                ("Retry-After replaces", ([2000, 2000, 70, 500],)),
                ("added", ([2184, 4600, 70, 1400],)),
                ("seconds", ([2, 2.6, 0.07, 0.9],)),
                ("the smaller", ([184, 2000, 70, 500],)),
                ("no Retry-After means 0", ([2000, 2000, 0, 500],)),
                ("0.5 s as 5 s", ([2000, 2600, 70, 5000],)),
                ("0.5 s rounded up", ([2000, 2600, 70, 1000],)),
                ("the total", (5570,)),
                ("the pair without Retry-After left out", ([2000, 2600, 900],)),
                ("sorted", ([70, 900, 2000, 2600],)),
            ],
        ),
        "03 Ex 3": (
            ex03.check_give_up_reason,
            ("bored",),
            [
                ("max_attempts", ("max_attempts",)),
                ("max_retry_after", ("max_retry_after",)),
                ("not_retryable", ("not_retryable",)),
                ("retry_after_too_long", ("retry_after_too_long",)),
                ("success", ("success",)),
                ("timeout", ("timeout",)),
                ("retry_after", ("retry_after",)),
                ("cancelled", ("cancelled",)),
                ("max_attempts_reached", ("max_attempts_reached",)),
                ("a number", (3,)),
            ],
        ),
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
        "04 Ex 2": (
            ex04.check_threshold_two,
            (1, 8),
            [
                ("the lesson's threshold 3", (6, 3)),
                ("not adding to 9", (5, 5)),
                ("threshold 1, or swapped", (4, 5)),
                ("never reopens", (2, 7)),
                ("threshold 4", (7, 2)),
                ("never opens", (9, 0)),
                ("all blocked", (0, 9)),
                ("adding to 8", (4, 4)),
                ("failures counted as blocked", (9, 7)),
                ("adding to 10", (6, 4)),
            ],
        ),
        "04 Ex 3": (
            ex04.check_blocked_times,
            ([0, 200],),
            [
                ("the 5000 ms answer", ([900, 1500, 8000],)),
                ("one only", ([900],)),
                ("threshold 2", ([600, 900, 1500],)),
                ("6000 blocked", ([900, 1500, 6000],)),
                ("seconds", ([0.9, 1.5],)),
                ("the events sent", ([0, 200, 600, 6000, 8000, 11500, 11800],)),
                ("row numbers", ([4, 5],)),
                ("the failures", ([0, 200, 600, 900, 1500, 6000, 8000],)),
                ("none", ([],)),
                ("the other one only", ([1500],)),
            ],
        ),
        "04 Ex 4": (
            ex04.check_retry_in,
            (99,),
            [
                ("rounded down", (6,)),
                ("the cooldown itself", (8,)),
                ("ms", (6600,)),
                ("a fraction", (6.6,)),
                ("the lesson's cooldown", (4,)),
                ("the cooldown in ms", (7500,)),
                ("the lesson's cooldown, rounded up", (5,)),
                ("the cooldown in s", (7.5,)),
                ("the clock time of the trial", (8100,)),
                ("the cooldown from the refused call", (9,)),
                ("the answer in ms", (7000,)),
                ("the time passed", (1,)),
            ],
        ),
        "05 Ex 1": (
            ex05.check_retryable,
            ({"999"},),
            [
                ("502 and 503 too", ({"429", "502", "503"},)),
                ("network too", ({"429", "network"},)),
                ("503 too", ({"429", "503"},)),
                ("nothing", (set(),)),
                ("every transient failure", ({"429", "502", "503", "network"},)),
                ("502 only", ({"502"},)),
                ("404 only", ({"404"},)),
                ("401 too", ({"401", "429"},)),
                ("404 too", ({"404", "429"},)),
                ("network only", ({"network"},)),
                ("every label", (set(ex05.FAILURES),)),
            ],
        ),
        "05 Ex 2": (
            ex05.check_proportional_range,
            ((1, 2),),
            [
                ("full jitter's range", ((0, 8000),)),
                ("n off by one", ((2000, 6000),)),
                ("n off by one, up", ((8000, 24000),)),
                ("the base's range", ((500, 1500),)),
                ("seconds", ((4, 12),)),
                ("the delay itself", ((8000, 8000),)),
                ("delay x (1 + r)", ((8000, 16000),)),
                ("the factors", ((0.5, 1.5),)),
                ("plus or minus half a second", ((7500, 8500),)),
                ("the four waits added", ((7500, 22500),)),
                ("swapped", ((12000, 4000),)),
                ("seconds as decimals", ((4.0, 12.0),)),
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
        "05b Ex 3": (
            ex05.check_lifecycle,
            ({"nope"},),
            [
                ("only the detached task", ({"policy_detached"},)),
                ("only the asyncio port", ({"asyncio_port"},)),
                ("retry-all", ({"kotlin_retry_all"},)),
                ("retry-all too", ({"policy_detached", "asyncio_port", "kotlin_retry_all"},)),
                ("every loop", (set(ex05.LIFECYCLE_LOOPS),)),
                ("none", (set(),)),
                ("the owned policy task", ({"policy"},)),
                ("both policy loops", ({"policy", "policy_detached"},)),
                ("the Kotlin loops", ({"kotlin", "kotlin_retry_all"},)),
                ("a hyphen for the underscore", ({"policy-detached", "asyncio_port"},)),
            ],
        ),
        "06 Ex 1": (
            ex06.check_wave_capacity,
            (777,),
            [
                ("the 50-per-wave answer", (200,)),
                ("everyone", (1000,)),
                ("five waves", (500,)),
                ("three waves", (300,)),
                ("one wave", (100,)),
                ("those who give up", (600,)),
                ("a percent", (40,)),
                ("a fraction", (0.4,)),
                ("the jitter run", (ex06._served("full", ex06.CAPACITY),)),
                ("one wave per attempt", (800,)),
            ],
        ),
        "06 Ex 2": (
            ex06.check_layered,
            (1000,),
            [
                ("three layers", (27,)),
                ("added, not multiplied", (12,)),
                ("4 ** 3", (64,)),
                ("3 ** 5", (243,)),
                ("retries only", (16,)),
                ("every layer added", (120,)),
                ("four attempts a layer", (256,)),
                ("two layers", (9,)),
                ("the user's request too", (82,)),
                ("the extra calls only", (80,)),
            ],
        ),
        "06 Ex 3": (
            ex06.check_throttle_recovery,
            (3,),
            [
                ("exactly half", (50,)),
                ("tokens, not successes", (5,)),
                ("up to max_tokens", (100,)),
                ("one more", (52,)),
                ("one for one", (10,)),
                ("the tokens", (5.1,)),
                ("one success resets", (1,)),
                ("right away", (0,)),
                ("six tokens", (6,)),
                ("the failures counted too", (61,)),
            ],
        ),
        "06 Ex 4": (
            ex06.check_jitter_calls_ratio,
            (9.9,),
            [
                ("inverted", (0.37,)),
                ("the 100-client ratio", (2.33,)),
                ("percent", (270,)),
                ("how much more", (1.70,)),
                ("the share saved", (0.63,)),
                ("the difference", (2238,)),
                ("exponential's calls", (3557,)),
                ("full jitter's calls", (1319,)),
                ("rounded", (3,)),
                ("100 clients, inverted", (0.43,)),
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
        "07 Ex 3": (
            ex07.check_quiz,
            ({"Z"},),
            [
                ("A only", ({"A"},)),
                ("B too", ({"A", "B", "E"},)),
                ("E only", ({"E"},)),
                ("C too", ({"A", "C", "E"},)),
                ("D too", ({"A", "D", "E"},)),
                ("all five", (set("ABCDE"),)),
                ("none", (set(),)),
                ("the failing ones", ({"B", "C", "D"},)),
                ("D only", ({"D"},)),
                ("B only", ({"B"},)),
            ],
        ),
        "08 Ex 1": (
            ex08.check_urllib3_retry,
            (retry(total=1),),
            [
                ("the adapter", (to_urllib3(ex08.SHIPPED),)),
                ("total = attempts", (retry(total=5),)),
                ("factor = the base", (retry(backoff_factor=5),)),
                ("factor = 15", (retry(backoff_factor=15),)),
                ("backoff_max in ms", (retry(backoff_max=60_000),)),
                ("501 in the list", (retry(status_forcelist=[408, 429, 500, 501, 502, 503, 504]),)),
                ("504 forgotten", (retry(status_forcelist=[408, 429, 500, 502, 503]),)),
                ("POST allowed", (retry(allowed_methods=["GET", "POST"]),)),
                ("every method", (retry(allowed_methods=None),)),
                ("three methods", (retry(allowed_methods=["GET", "HEAD", "OPTIONS"]),)),
            ],
        ),
        "08 Ex 2": (
            ex08.check_rules_disagree,
            ({"reset (maybe sent)"},),
            [
                (
                    "429 included",
                    (
                        {
                            "408",
                            "429",
                            "500",
                            "501",
                            "503",
                            "503 with Retry-After",
                            "refused (never sent)",
                        },
                    ),
                ),
                ("refused forgotten", ({"408", "500", "501", "503", "503 with Retry-After"},)),
                ("what production retries", ({"408", "429", "refused (never sent)"},)),
                (
                    "501 forgotten",
                    ({"408", "500", "503", "503 with Retry-After", "refused (never sent)"},),
                ),
                ("nothing", (set(),)),
                (
                    "408 forgotten",
                    ({"500", "501", "503", "503 with Retry-After", "refused (never sent)"},),
                ),
                ("every label", (set(ex08.POST_FAILURES),)),
                ("where they agree", ({"429", "reset (maybe sent)"},)),
                (
                    "the Retry-After 503 forgotten",
                    ({"408", "500", "501", "503", "refused (never sent)"},),
                ),
                (
                    "what the lesson retries",
                    ({k for k, o in ex08.POST_FAILURES.items() if decide(o, "POST").retry},),
                ),
            ],
        ),
        "09 Ex 4": (
            ex09.check_shortest_timeout,
            (9900,),
            [
                ("one step short", (1400,)),
                ("the page's 1 s", (1000,)),
                ("the page's 3 s", (3000,)),
                ("seconds", (1.5,)),
                ("100 ms steps", (15,)),
                ("not a multiple of 100", (1550,)),
                ("the lowest allowed", (100,)),
                ("two steps short", (1300,)),
                ("the page's 3 s in seconds", (3,)),
                ("the page's 1 s in seconds", (1,)),
            ],
        ),
        "A1 Ex 1": (
            ex05.check_kotlin_waits,
            ([1, 2, 3],),
            [
                ("base 1000", (ex05._kotlin_waits(1000),)),
                ("two waits", ([1275, 2877],)),
                ("rounded, not cut", ([1276, 2877, 7437],)),
                (
                    "full jitter",
                    ([int(1500 * 2**n * r) for n, r in enumerate(ex05._kotlin_draws())],),
                ),
                ("the delays before jitter", ([1500, 3000, 6000],)),
                (
                    "n from 1",
                    (
                        [
                            int(1500 * 2 ** (n + 1) * (0.5 + r))
                            for n, r in enumerate(ex05._kotlin_draws())
                        ],
                    ),
                ),
                ("four waits", ([1275, 2877, 7436, 7436],)),
                ("seconds", ([1.275, 2.877, 7.436],)),
                ("times since the start", ([1275, 4152, 11588],)),
                ("reversed", ([7436, 2877, 1275],)),
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


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--summary", action="store_true", help="the summary only")
    args = parser.parse_args(argv)
    rows = tried()
    if not args.summary:
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
    print("| exercise | tried | caught | hint names the mistake |")
    print("|---|---|---|---|")
    for exercise in sorted({r.exercise for r in rows}):
        mine = [r for r in rows if r.exercise == exercise]
        print(
            f"| {exercise} | {len(mine)} | {sum(r.caught for r in mine)} | "
            f"{sum(r.caught and r.named for r in mine)} |"
        )
    caught = [r for r in rows if r.caught]
    print(
        f"\n{len(rows)} wrong answers tried, {len(caught)} caught, "
        f"{sum(r.named for r in caught)} of them with a hint that names the mistake."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
