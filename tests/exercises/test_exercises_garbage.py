"""Every checker answers every answer with a Feedback: garbage never raises, never hangs.

The garbage is what a student types by accident or on purpose: placeholders,
text, a bool, nan and inf, a huge number, empty containers, a function, numpy
scalars, tuples of the wrong length. A checker that raises shows a traceback
instead of a hint; one that hangs stops the kernel.
"""

from __future__ import annotations

import importlib
import inspect
import itertools
import multiprocessing
import resource
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from retrylab.exercises import Feedback

GARBAGE: list[Any] = [
    None,
    ...,
    "x",
    "",
    True,
    False,
    float("nan"),
    float("inf"),
    -1,
    0,
    10**100,
    -(10**100),
    2.5,
    [],
    {},
    set(),
    (),
    lambda: 1,
    np.int64(-7),
    np.float64(-7.5),
    np.bool_(True),
    np.array([[1, 2]]),
    (1,),
    (1, 2, 3),
    [None, None],
    ["x", 1],
    {"a": 1},
    object(),
    itertools.count(),
    b"AB",
    complex(1, 2),
]
OWN = [
    "ex00",
    "ex01",
    "ex02",
    "ex03",
    "ex04",
    "build.waits",
    "build.rule",
    "build.loop",
    "build.breaker",
]
OTHERS = ["ex05", "ex06", "ex07"]
# the forkserver's children start with these imported, not each on its own
multiprocessing.set_forkserver_preload(["numpy", "retrylab.exercises"])


def checkers(names: list[str]) -> list[tuple[str, Callable[..., Any]]]:
    found = []
    for name in names:
        module = importlib.import_module(f"retrylab.exercises.{name}")
        for attr, fn in vars(module).items():
            if attr.startswith("check_") and callable(fn) and fn.__module__ == module.__name__:
                found.append((f"{name}.{attr}", fn))
    return found


def calls(fn: Callable[..., Any]) -> list[tuple[Any, ...]]:
    """Garbage in every argument at once, then in one argument with a sane other."""
    n = len(
        [
            p
            for p in inspect.signature(fn).parameters.values()
            if p.default is inspect.Parameter.empty
        ]
    )
    out = [(g,) * n for g in GARBAGE]
    if n > 1:
        out += [(g,) + (1,) * (n - 1) for g in GARBAGE]
        out += [(1,) * (n - 1) + (g,) for g in GARBAGE]
    return out


def failures(fn: Callable[..., Any]) -> list[str]:
    bad = []
    for args in calls(fn):
        try:
            got = fn(*args)
        except Exception as e:
            bad.append(f"{args!r:.60} raised {type(e).__name__}: {e}")
            continue
        if not isinstance(got, Feedback):
            bad.append(f"{args!r:.60} returned {type(got).__name__}")
        elif got.correct:
            bad.append(f"{args!r:.60} was judged correct")
    return bad


@pytest.mark.parametrize(("name", "fn"), checkers(OWN), ids=[n for n, _ in checkers(OWN)])
def test_garbage_gets_feedback(name: str, fn: Callable[..., Any]) -> None:
    assert failures(fn) == [], name


def test_every_own_checker_is_covered() -> None:
    names = {n for n, _ in checkers(OWN)}
    assert {
        "ex00.check_three_failures",
        "ex04.check_threshold_two",
        "build.breaker.check_breaker",
        "build.waits.check_full_jitter",
    } <= names
    assert len(names) >= 20


def _probe(name: str, queue: Any) -> None:  # pragma: no cover - runs in a child process
    resource.setrlimit(resource.RLIMIT_AS, (1024**3, 1024**3))
    fn = dict(checkers(OTHERS))[name]
    queue.put(failures(fn))


@pytest.mark.parametrize("name", [n for n, _ in checkers(OTHERS)])
def test_garbage_gets_feedback_in_notebooks_05_to_07(name: str) -> None:
    """The same for notebooks 05-07, in a child process with a time and memory limit
    (a checker that iterates an endless answer would otherwise take this process down)."""
    # forkserver: each child is forked from a clean single-threaded server, not from this
    # process (whose threads fork() may copy mid-lock: Python 3.12+ warns of deadlocks)
    context = multiprocessing.get_context("forkserver")
    queue = context.Queue()
    child = context.Process(target=_probe, args=(name, queue))
    child.start()
    child.join(60)
    if child.is_alive():
        child.kill()
        child.join()
    bad = (
        queue.get(timeout=1)
        if not queue.empty()
        else [
            "the checker hung or ran out of memory (an endless answer such as itertools.count()?)"
        ]
    )
    assert bad == [], f"{name}: {len(bad)} garbage answers fail, e.g. {bad[0]}"


def test_equivalent_answers_are_judged_alike() -> None:
    from retrylab.exercises.ex00 import check_which_notebook
    from retrylab.exercises.ex01 import check_expected_duplicates, check_retried_statuses
    from retrylab.exercises.ex02 import check_quarter_width, check_third_width
    from retrylab.exercises.ex04 import check_threshold_two

    for same in (390, 390.0, np.int64(390), np.float64(390.0), "390"):
        assert check_expected_duplicates(same).correct, same
    for same in (100, 100.0, np.int64(100)):
        assert check_quarter_width(same).correct, same
    for same in (176, 176.0, np.int64(176)):
        assert check_third_width(same).correct, same
    assert check_which_notebook(np.int64(1)).correct
    assert not check_which_notebook(True).correct
    assert "whole number" in check_which_notebook(True).message
    assert check_threshold_two(np.int64(5), 4.0).correct
    assert check_retried_statuses(np.array([501, 504, 507])).correct
    assert check_retried_statuses((507.0, 504, 501)).correct
    assert not check_retried_statuses([True, 501, 504, 507]).correct


def test_the_crashes_the_reader_found() -> None:
    from retrylab.exercises.ex00 import check_three_failures
    from retrylab.exercises.ex04 import check_threshold_two

    fb = check_three_failures(4, 5)
    assert not fb.correct and "give each wait in a list" in fb.message
    fb = check_three_failures(4, "five")
    assert not fb.correct and "list of whole numbers" in fb.message
    fb = check_threshold_two("5", 4)
    assert fb.correct  # "5" reads as 5, as everywhere
    fb = check_threshold_two("five", 4)
    assert not fb.correct and "two whole numbers" in fb.message
