"""The AWS contention experiment: the model, agreement with the blog's simulator, findings."""

from __future__ import annotations

import heapq

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from retrylab.sim.contention import (
    BLOG_CLIENTS,
    STRATEGIES,
    _backoff,
    contention,
    contention_sweep,
    findings,
    race,
    sweep_table,
)

# -- the commit-by-commit algorithm equals an event-by-event simulation -----------------------


def event_queue(timelines: list[list[tuple[float, float]]]) -> tuple[list[float], list[int]]:
    """Brute force: process every client's writes in time order with the OCC rule.

    ``timelines[c]`` lists client c's attempts as (read time, write time); a write
    commits if no commit happened after its read. A failed client moves to its
    next attempt.
    """
    last = -np.inf
    queue = [(tl[0][1], c, 0) for c, tl in enumerate(timelines)]
    heapq.heapify(queue)
    committed = [0.0] * len(timelines)
    attempts = [0] * len(timelines)
    while queue:
        write, c, k = heapq.heappop(queue)
        if timelines[c][k][0] > last:
            last = write
            committed[c] = write
            attempts[c] = k + 1
        else:
            heapq.heappush(queue, (timelines[c][k + 1][1], c, k + 1))
    return committed, attempts


@st.composite
def timelines(draw: st.DrawFn) -> list[list[tuple[float, float]]]:
    clients = draw(st.integers(1, 12))
    out = []
    for _ in range(clients):
        t = draw(st.floats(0.001, 50))
        attempts = []
        for _ in range(clients + 2):  # enough attempts for the worst case
            read = t
            write = read + draw(st.floats(0.001, 40))
            attempts.append((read, write))
            t = write + draw(st.floats(0.001, 60))
        out.append(attempts)
    return out


@settings(max_examples=200, deadline=None)
@given(tl=timelines())
def test_race_equals_an_event_queue(tl: list[list[tuple[float, float]]]) -> None:
    read = np.array([[a[0][0] for a in tl]])
    write = np.array([[a[0][1] for a in tl]])
    flat_client = np.arange(len(tl))

    def retry(idx: np.ndarray, k: np.ndarray, failed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        pairs = [tl[int(flat_client[i])][int(kk)] for i, kk in zip(idx, k, strict=True)]
        return np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])

    committed, attempts = race(read, write, retry)
    want_t, want_a = event_queue(tl)
    assert attempts[0].tolist() == want_a
    assert committed[0].tolist() == want_t


def test_race_runs_are_independent() -> None:
    read = np.array([[1.0, 2.0], [2.0, 1.0]])
    write = np.array([[3.0, 4.0], [4.0, 3.0]])
    t, a = race(read, write, lambda idx, k, w: (w + 10, w + 12))
    assert a.tolist() == [[1, 2], [2, 1]]
    assert t.tolist() == [[3.0, 16.0], [16.0, 3.0]]


# -- the backoffs of the blog ----------------------------------------------------------------


def test_backoff_conventions_first_retry_waits_10_ms() -> None:
    k = np.array([1, 2, 3, 9, 40])
    u = np.full(5, 0.5)
    assert _backoff("exponential", k, None, 5, 2000, u).tolist() == [10, 20, 40, 2000, 2000]
    assert _backoff("full", k, None, 5, 2000, u).tolist() == [5, 10, 20, 1000, 1000]
    assert _backoff("equal", k, None, 5, 2000, u).tolist() == [7.5, 15, 30, 1500, 1500]
    assert _backoff("none", k, None, 5, 2000, u).tolist() == [0, 0, 0, 0, 0]
    sleep = np.array([5.0, 100.0, 1000.0, 5.0, 5.0])
    # uniform(base, 3 * sleep), capped
    assert _backoff("decorrelated", k, sleep, 5, 2000, u).tolist() == [
        10.0,
        152.5,
        1502.5,
        10.0,
        10.0,
    ]


# -- agreement with the blog's published simulator -----------------------------------------------

# Means over 100 runs from the blog's own simulator (aws-samples/aws-arch-backoff-simulator,
# src/backoff_simulator.py at 095a076), run once on this machine with Python's random
# seeded 0 (the full 19-count sweep; its code is not part of this repository): 50 clients.
BLOG_SIM_50 = {
    "exponential": (621.5, 36116.3),
    "decorrelated": (374.3, 2180.6),
    "equal": (346.9, 4121.6),
    "full": (333.1, 2821.1),
    "none": (687.9, 1134.7),
}


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_agrees_with_the_blog_simulator_at_50_clients(strategy: str) -> None:
    r = contention(50, strategy, runs=100, seed=0)
    calls, time_ms = BLOG_SIM_50[strategy]
    assert r.calls == pytest.approx(calls, rel=0.04)
    assert r.time_ms == pytest.approx(time_ms, rel=0.10)


def test_no_contention_with_one_client() -> None:
    r = contention(1, "exponential", runs=50)
    assert r.calls == 1.0
    # three hops to commit and one back: about 40 ms
    assert r.time_ms == pytest.approx(40, abs=2)


# -- the blog's findings, on a reduced sweep ---------------------------------------------------


@pytest.fixture(scope="module")
def sweep() -> pd.DataFrame:
    return contention_sweep([50, 100], runs=100, seed=0)


def test_full_jitter_cuts_calls_by_more_than_half_at_100_clients(sweep: pd.DataFrame) -> None:
    f = findings(sweep, 100)
    assert f["full_vs_exponential_calls"] < 0.5
    calls = sweep_table(sweep, "calls").loc[100]
    assert round(calls["full"]) == 795 and round(calls["exponential"]) == 1855


def test_equal_jitter_same_calls_as_full_but_longer(sweep: pd.DataFrame) -> None:
    for clients in (50, 100):
        f = findings(sweep, clients)
        assert 0.95 < f["equal_vs_full_calls"] < 1.1
        assert f["equal_vs_full_time"] > 1.3


def test_decorrelated_slightly_faster_than_full_but_more_calls(sweep: pd.DataFrame) -> None:
    f50, f100 = findings(sweep, 50), findings(sweep, 100)
    assert f50["decorrelated_vs_full_time"] < 0.8
    assert 0.9 < f100["decorrelated_vs_full_time"] < 1.0  # "slightly less time"
    assert f50["decorrelated_vs_full_calls"] > 1.1
    assert f100["decorrelated_vs_full_calls"] > 1.2


def test_plain_exponential_is_far_slower_than_all(sweep: pd.DataFrame) -> None:
    for clients in (50, 100):
        assert findings(sweep, clients)["exponential_vs_slowest_other_time"] > 5
    times = sweep_table(sweep, "time_ms").loc[100]
    assert times.idxmax() == "exponential" and times.idxmin() == "none"


def test_decorrelated_loses_its_time_edge_at_high_contention() -> None:
    """Not in the blog's text; its own simulator shows it too (see the notebook)."""
    df = contention_sweep([180], ["full", "decorrelated"], runs=100)
    t = sweep_table(df, "time_ms").loc[180]
    assert t["decorrelated"] > t["full"]


# -- determinism, shape and arguments -------------------------------------------------------------


def test_same_seed_same_numbers_and_sweep_rows_equal_single_runs() -> None:
    a, b = contention(30, "decorrelated", seed=3), contention(30, "decorrelated", seed=3)
    assert a.calls_per_run.tolist() == b.calls_per_run.tolist()
    assert a.time_per_run.tolist() == b.time_per_run.tolist()
    assert contention(30, "decorrelated", seed=4).calls != a.calls
    row = contention_sweep([30], ["decorrelated"], seed=3).iloc[0]
    assert row["calls"] == a.calls and row["time_ms"] == a.time_ms


def test_sweep_shape_and_progress() -> None:
    calls: list[tuple[int, int]] = []
    df = contention_sweep([10, 20, 30], runs=5, progress=lambda i, n: calls.append((i, n)))
    assert len(df) == 15 and list(df.columns) == [
        "clients",
        "strategy",
        "calls",
        "time_ms",
        "calls_per_client",
    ]
    assert calls[0] == (1, 15) and calls[-1] == (15, 15)
    assert (df["calls"] >= df["clients"]).all()
    assert len(BLOG_CLIENTS) == 19 and (BLOG_CLIENTS[0], BLOG_CLIENTS[-1]) == (10, 190)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"clients": 0, "strategy": "full"}, "clients=0 is out of range"),
        ({"clients": 10, "strategy": "linear"}, "strategy='linear' is out of range"),
        (
            {"clients": 10, "strategy": "full", "cap": 1},
            "cap=1 is out of range: cap must be >= base \\(base=5\\)",
        ),
        ({"clients": 10, "strategy": "full", "runs": 0}, "runs=0 is out of range"),
    ],
)
def test_bad_arguments(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        contention(**kwargs)  # type: ignore[arg-type]


def test_findings_needs_every_strategy() -> None:
    df = contention_sweep([10], ["full"], runs=2)
    with pytest.raises(ValueError, match="clients=10 is out of range: the sweep has no rows"):
        findings(df, 10)
