"""The AWS contention experiment: N clients race to update one row; which backoff wins?

Marc Brooker, "Exponential Backoff And Jitter", AWS Architecture Blog, 2015,
measured backoff strategies on a small model of optimistic concurrency
control (OCC), with a published simulator (github.com/aws-samples/
aws-arch-backoff-simulator). This module rebuilds that model, vectorized with
numpy, so the whole sweep of the blog's figures runs in seconds. Use it to
compare strategies under *contention*, where the clients' own retries are the
load that makes them fail.

The model (as the blog's simulator defines it):

- ``clients`` clients start at t = 0; each wants to write one row once.
- A network hop takes ``|Normal(10 ms, 2 ms)|``.
- A client reads the row's version (one hop to the server), then sends a
  write (one hop back, one hop out). The write commits only if no other
  write committed since this client's read; the answer takes one more hop.
- A client whose write failed sleeps one hop plus its backoff, then reads
  and writes again, until it succeeds (no attempt limit).
- ``calls`` counts writes (every attempt makes exactly one); ``time_ms`` is
  when the last client heard its success. Both are averaged over ``runs``.

Backoff before retry ``k`` (``k = 1`` is the first retry), with
``expo(k) = min(cap, base * 2**k)``; with the blog's base of 5 ms the first
retry waits up to 10 ms:

- ``"none"``: 0 (retry at once);
- ``"exponential"``: ``expo(k)`` (no jitter);
- ``"full"``: ``uniform(0, expo(k))``;
- ``"equal"``: ``expo(k) / 2 + uniform(0, expo(k) / 2)``;
- ``"decorrelated"``: ``sleep = min(cap, uniform(base, 3 * sleep))``, ``sleep``
  starting at ``base``.

Waits are real numbers of ms here (the blog's simulator does not round), not
the integer ms of :class:`retrylab.core.backoff.Backoff`.

How it is computed without an event queue. Each client's attempts depend
only on its own draws and on *when rows were committed*. The next commit after
time ``C`` is made by the attempt with the earliest write among, for each
waiting client, its first attempt whose read comes after ``C`` (any attempt
that read before ``C`` and writes after it must fail). So the simulation is
``clients`` steps, one commit per step, each step a few array operations
over every run and client at once: a client whose read came before the last
commit has failed and moves on to its next attempt. Events are the same as in
an event-queue simulation; only the random draws come from numpy, so numbers
agree with the blog's simulator statistically, not draw for draw.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pandas as pd

from ..core._check import check_choice, check_int, check_number
from ..i18n import N_, _, number

__all__ = [
    "BLOG_CLIENTS",
    "STRATEGIES",
    "ContentionResult",
    "contention",
    "contention_sweep",
    "findings",
    "race",
    "sweep_table",
]

#: The strategies, in the order of the blog's figures' legends.
STRATEGIES: tuple[str, ...] = ("exponential", "full", "equal", "decorrelated", "none")
#: How a summary names each strategy.
SUMMARY_NAMES: dict[str, str] = {
    "exponential": N_("exponential"),
    "full": N_("full jitter"),
    "equal": N_("equal jitter"),
    "decorrelated": N_("decorrelated jitter"),
    "none": N_("none"),
}

#: The client counts of the sweep: 10, 20, ..., 190 (19 counts).
BLOG_CLIENTS: tuple[int, ...] = tuple(range(10, 200, 10))

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class ContentionResult:
    """One strategy at one client count: per-run numbers and their means.

    ``calls`` and ``time_ms`` are the means over runs (the blog's figures).
    """

    clients: int
    strategy: str
    runs: int
    seed: int
    calls_per_run: IntArray
    time_per_run: FloatArray
    base: float = 5
    cap: float = 2000

    @property
    def calls(self) -> float:
        """Mean writes per run (all clients, all attempts)."""
        return float(self.calls_per_run.mean())

    @property
    def time_ms(self) -> float:
        """Mean time until the last client has committed, in ms."""
        return float(self.time_per_run.mean())

    @property
    def calls_per_client(self) -> float:
        """Mean attempts per client (1.0 would mean no conflicts at all)."""
        return self.calls / self.clients

    def summary(self) -> str:
        """One line of numbers.

        >>> contention(10, "full", runs=20).summary()
        'full jitter, 10 clients: 39.0 calls (3.90 per client), 473 ms (mean of 20 runs)'
        """
        return _(
            "{strategy}, {clients} clients: {calls} calls ({per_client} per client), "
            "{time} ms (mean of {runs} runs)"
        ).format(
            strategy=_(SUMMARY_NAMES.get(self.strategy, self.strategy)),
            clients=self.clients,
            calls=number(self.calls, 1),
            per_client=number(self.calls_per_client, 2),
            time=f"{self.time_ms:.0f}",
            runs=self.runs,
        )


def _backoff(
    strategy: str, k: IntArray, sleep: FloatArray | None, base: float, cap: float, u: FloatArray
) -> FloatArray:
    """The wait before retry ``k`` for each client (``u`` uniform draws in [0, 1))."""
    if strategy == "none":
        return np.zeros(k.shape)
    if strategy == "decorrelated":
        assert sleep is not None
        return np.minimum(cap, base + u * (3.0 * sleep - base))
    expo = np.minimum(cap, base * np.exp2(np.minimum(k, 62).astype(np.float64)))
    if strategy == "exponential":
        return expo
    if strategy == "full":
        return u * expo
    return expo / 2 + u * (expo / 2)  # equal


Retry = Callable[[IntArray, IntArray, FloatArray], tuple[FloatArray, FloatArray]]


def race(read: FloatArray, write: FloatArray, retry: Retry) -> tuple[FloatArray, IntArray]:
    """The OCC race for many runs at once: when each client committed, after how many attempts.

    ``read`` and ``write`` (shape ``(runs, clients)``) are when each client's
    first read and write reach the server. ``retry(idx, k, failed_write)``
    gives the read and write times of retry ``k`` (1-based) for the clients at
    flat indices ``idx`` whose write at ``failed_write`` failed. Returns the
    commit times and the attempts per client (both ``(runs, clients)``).

    A write commits if no commit happened between its read and itself. Step
    by step, the earliest write among the clients' live attempts commits;
    then every client whose read came before that commit has failed and moves
    to its next attempt (whose read is after the commit, so one move is
    enough). One commit per run per step: ``clients`` steps in all.

    Two clients in one run, the second reading after the first commits:

    >>> t, a = race(np.array([[1.0, 2.0]]), np.array([[3.0, 4.0]]),
    ...             lambda idx, k, w: (w + 10, w + 12))
    >>> t.tolist(), a.tolist()
    ([[3.0, 16.0]], [[1, 2]])
    """
    read = np.array(read, dtype=np.float64)
    write = np.array(write, dtype=np.float64)
    if read.ndim != 2 or read.shape != write.shape:
        raise ValueError(
            f"read.shape={read.shape} is out of range: read and write must "
            "both have shape (runs, clients)"
        )
    runs, clients = read.shape
    attempt = np.ones((runs, clients), dtype=np.int64)
    committed_at = np.empty((runs, clients))
    last = np.full(runs, -np.inf)  # the latest commit of each run
    row_start = np.arange(runs) * clients  # flat index of each run's first client
    read_flat, write_flat, attempt_flat = read.ravel(), write.ravel(), attempt.ravel()
    committed_flat = committed_at.ravel()
    for _client in range(clients):
        # A client that read before the latest commit has failed (its write, now or
        # later, sees a newer version): it hears so, sleeps, and tries again.
        idx = np.flatnonzero(read <= last[:, None])
        if idx.size:
            k = attempt_flat[idx]  # failures so far = the retry's number
            attempt_flat[idx] = k + 1
            new_read, new_write = retry(idx, k, write_flat[idx])
            read_flat[idx] = new_read
            write_flat[idx] = new_write
        # The earliest pending write in each run commits.
        j = row_start + np.argmin(write, axis=1)
        last = write_flat[j]
        committed_flat[j] = last
        write_flat[j] = np.inf
        read_flat[j] = np.inf
    return committed_at, attempt


#: clients * runs a :func:`contention` call may simulate at once (about 10 floats each
#: at a time, so some 800 MB at the limit): 10,000 clients x 1,000 runs, say.
MAX_CELLS = 10_000_000


def contention(
    clients: int,
    strategy: str,
    runs: int = 100,
    seed: int = 0,
    base: float = 5,
    cap: float = 2000,
    *,
    hop_mean: float = 10,
    hop_sd: float = 2,
) -> ContentionResult:
    """Run the blog's OCC experiment ``runs`` times; means in ``.calls`` and ``.time_ms``.

    Use it to compare one strategy at one client count; use
    :func:`contention_sweep` for the blog's whole figure. The same ``seed``
    gives the same numbers.

    >>> r = contention(100, "full", runs=100, seed=0)
    >>> round(r.calls), round(r.time_ms)
    (795, 4889)
    >>> e = contention(100, "exponential", runs=100, seed=0)
    >>> round(e.calls), r.calls / e.calls < 0.5      # full jitter: less than half the work
    (1855, True)
    """
    clients = check_int("clients", clients, low=1, high=10_000)
    check_choice("strategy", strategy, STRATEGIES)
    runs = check_int("runs", runs, low=1, high=100_000)
    if clients * runs > MAX_CELLS:
        raise ValueError(
            f"clients * runs = {clients} * {runs} = {clients * runs:,} is out of "
            f"range: clients * runs must be at most {MAX_CELLS:,} (a size limit: "
            "each client of each run keeps its arrays in memory); use fewer runs"
        )
    seed = check_int("seed", seed, low=0, high=2**63 - 1)
    base = check_number("base", base, low=0, high=86_400_000, low_open=True)
    cap = check_number("cap", cap, low=0, high=86_400_000)
    if cap < base:
        raise ValueError(f"cap={cap:g} is out of range: cap must be >= base (base={base:g})")
    hop_mean = check_number("hop_mean", hop_mean, low=0, high=60_000)
    hop_sd = check_number("hop_sd", hop_sd, low=0, high=60_000)

    rng = np.random.default_rng(seed)

    def hops(*shape: int) -> FloatArray:
        # |normal(hop_mean, hop_sd)|, computed in place: the same draws and arithmetic
        # as rng.normal (mean + sd * z), without its temporaries
        z = rng.standard_normal(shape)
        z *= hop_sd
        z += hop_mean
        return np.abs(z, out=z)

    first = hops(3, runs, clients)
    read = first[0]  # the read reaches the server
    write = read + first[1] + first[2]  # the version comes back, the write goes out
    sleep = np.full(clients * runs, float(base)) if strategy == "decorrelated" else None
    draws = strategy not in ("none", "exponential")

    def retry(
        idx: IntArray,
        k: IntArray,
        failed_write: FloatArray,
    ) -> tuple[FloatArray, FloatArray]:
        prev = None if sleep is None else sleep[idx]
        wait = _backoff(
            strategy, k, prev, base, cap, rng.random(idx.size) if draws else np.zeros(0)
        )
        if sleep is not None:
            sleep[idx] = wait
        h = hops(4, idx.size)  # the failure comes back, then read, version, write
        new_read = failed_write + h[0]
        new_read += h[1]
        new_read += wait
        new_write = new_read + h[2]
        new_write += h[3]
        return new_read, new_write

    committed_at, attempts = race(read, write, retry)
    calls = attempts.sum(axis=1)
    done = (committed_at + hops(runs, clients)).max(axis=1)  # the success reaches the client
    return ContentionResult(clients, strategy, runs, seed, calls, done, base, cap)


def contention_sweep(
    clients: Sequence[int] = BLOG_CLIENTS,
    strategies: Sequence[str] = STRATEGIES,
    runs: int = 100,
    seed: int = 0,
    base: float = 5,
    cap: float = 2000,
    progress: Callable[[int, int], object] | None = None,
) -> pd.DataFrame:
    """The blog's figures as a table: one row per (clients, strategy).

    Columns ``clients``, ``strategy``, ``calls``, ``time_ms``,
    ``calls_per_client``. Each cell is :func:`contention` with the same seed,
    so a row equals the single run with those arguments. ``progress(done,
    total)`` is called after each cell (for a progress bar).

    >>> df = contention_sweep([10, 20], ["full", "none"], runs=10)
    >>> df[["clients", "strategy"]].values.tolist()
    [[10, 'full'], [10, 'none'], [20, 'full'], [20, 'none']]
    """
    cells = [(c, s) for c in clients for s in strategies]
    rows: list[dict[str, object]] = []
    for i, (c, s) in enumerate(cells, start=1):
        r = contention(c, s, runs=runs, seed=seed, base=base, cap=cap)
        rows.append(
            {
                "clients": r.clients,
                "strategy": s,
                "calls": r.calls,
                "time_ms": r.time_ms,
                "calls_per_client": r.calls_per_client,
            }
        )
        if progress is not None:
            progress(i, len(cells))
    return pd.DataFrame(
        rows, columns=["clients", "strategy", "calls", "time_ms", "calls_per_client"]
    )


def sweep_table(sweep: pd.DataFrame, value: str = "calls") -> pd.DataFrame:
    """``value`` (``"calls"`` or ``"time_ms"``) with clients as rows, strategies as columns.

    >>> t = sweep_table(contention_sweep([10], ["full", "none"], runs=5), "calls")
    >>> list(t.columns), list(t.index)
    (['full', 'none'], [10])
    """
    check_choice("value", value, ("calls", "time_ms", "calls_per_client"))
    order = [s for s in STRATEGIES if s in set(sweep["strategy"])]
    table = sweep.pivot(index="clients", columns="strategy", values=value)[order]
    table.columns.name = None
    return table


def findings(sweep: pd.DataFrame, clients: int = 100) -> dict[str, float]:
    """The blog's conclusions as ratios at one client count (from a sweep's rows).

    - ``full_vs_exponential_calls``: below 0.5 means full jitter does less
      than half the work of plain exponential backoff;
    - ``equal_vs_full_calls`` (about 1) and ``equal_vs_full_time`` (above 1);
    - ``decorrelated_vs_full_time`` (slightly below 1) and
      ``decorrelated_vs_full_calls`` (above 1);
    - ``exponential_vs_slowest_other_time``: above 1 means plain exponential
      is slower than every other strategy.

    >>> f = findings(contention_sweep([100], runs=100))
    >>> f["full_vs_exponential_calls"] < 0.5, f["equal_vs_full_time"] > 1
    (True, True)
    """
    at = sweep[sweep["clients"] == clients].set_index("strategy")
    missing = [s for s in STRATEGIES if s not in at.index]
    if missing:
        raise ValueError(
            f"clients={clients} is out of range: the sweep has no rows for "
            f"{', '.join(missing)} at {clients} clients"
        )
    calls, time = at["calls"], at["time_ms"]
    others = [s for s in STRATEGIES if s != "exponential"]
    return {
        "full_vs_exponential_calls": float(calls["full"] / calls["exponential"]),
        "equal_vs_full_calls": float(calls["equal"] / calls["full"]),
        "equal_vs_full_time": float(time["equal"] / time["full"]),
        "decorrelated_vs_full_time": float(time["decorrelated"] / time["full"]),
        "decorrelated_vs_full_calls": float(calls["decorrelated"] / calls["full"]),
        "exponential_vs_slowest_other_time": float(time["exponential"] / time[others].max()),
    }
