"""The lessons' experiments on the live lab: the retry-loop lesson's four scenarios
over real HTTP, and the 1,000-write experiment (idempotency keys under dropped
answers).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from ..core._check import check_choice, check_int, check_number
from ..core.backoff import Random
from ..core.constants import RETRY_SCENARIOS, SEED
from ..core.policy import MetricsLike, RetryPolicy, RetryResult, Sleep
from ..core.rng import Mulberry32
from ..i18n import _, grouped, number
from ..lab.client import KEEPALIVE, Connection, KeyMaker, sender
from ..lab.server import LabServer
from .names import ROUTES, route
from .tables import label

# -- experiments against a live lab ------------------------------------------------

Progress = Callable[[int, int], Any]


class LessonRun(NamedTuple):
    """The lesson's four runs and the server's measurement request count."""

    results: list[RetryResult]
    requests: int


def lesson_scenarios(
    lab: LabServer, rng: Random | None = None, sleep: Sleep | None = None
) -> LessonRun:
    """Run the retry-loop lesson's four scenarios against ``lab``, in order.

    One generator is shared by all four, as in the lesson (default
    ``Mulberry32(20260114)``); ``sleep(ms)`` receives every wait (pass
    ``list.append`` to record instead of sleeping). ``lab`` must be fresh (or
    just ``reset()``) and in ``"lesson"`` mode.

    >>> from retrylab.lessons.outputs import retry_loop_text
    >>> slept = []
    >>> with LabServer() as lab:
    ...     results, requests = lesson_scenarios(lab, sleep=slept.append)
    >>> slept, requests
    ([70, 184, 2000, 2000], 3)
    """
    if lab.mode != "lesson":
        raise ValueError(
            f"lab.mode={lab.mode!r} is out of range: the lesson's scenarios "
            "need mode='lesson' (POST /measurements answers 422)"
        )
    if lab.measurement_requests:
        raise ValueError(
            f"lab.measurement_requests={lab.measurement_requests} is out of "
            "range: it must be 0; use a fresh LabServer() or call lab.reset()"
        )
    rng = Mulberry32(SEED) if rng is None else rng
    results = []
    for _name, _text, method, path, attempts in RETRY_SCENARIOS:
        policy = RetryPolicy(max_attempts=attempts)
        shown = route(path) if path in ROUTES else path  # the seed's /olcumler in Turkish
        results.append(policy.run(sender(lab.url + shown, method), method, rng, sleep))
    return LessonRun(results, lab.measurement_requests)


WRITE_MODES: tuple[str, ...] = ("key", "unsafe", "lesson")
#: The idle timeout of :func:`write_experiment`'s own lab: the longest a lab takes. Its
#: only client is the experiment, which closes it (and every connection) at the end;
#: the 5 s default guards a lab against clients that never finish, and a process
#: stalled longer (a loaded machine) had it close the connection under a write.
OWN_IDLE_TIMEOUT = 3600.0


@dataclass(frozen=True)
class WriteReport:
    """What :func:`write_experiment` counted, on both sides of the wire.

    - ``writes``: measurements the client wanted stored;
    - ``sent``: HTTP requests the server received for them;
    - ``stored``: records on the server; ``duplicates``: records beyond the
      first of each write (the server's truth, found through ``ref``);
    - ``acknowledged``: writes the client saw succeed; ``unacknowledged``:
      writes that are stored but that the client believes failed;
    - ``lost``: writes the server never stored;
    - ``retried_after_network``: attempts the client sent again after a
      network error (the client's own view of possible duplicates);
    - ``seconds``: wall-clock time of the run.
    """

    mode: str
    writes: int
    sent: int
    stored: int
    duplicates: int
    acknowledged: int
    unacknowledged: int
    lost: int
    retried_after_network: int
    seconds: float

    def series(self) -> pd.Series:
        """The counts as one labelled column (without the time)."""
        data = {k: v for k, v in asdict(self).items() if k not in ("mode", "seconds")}
        return pd.Series(data, name=self.mode, dtype="int64")

    def summary(self) -> str:
        """One line: the mode, the writes, the requests sent and the time, in the
        notebook's language (Turkish: ``1.000 yazma``).

        The modes' names are padded to the longest in the language, so the three
        lines of the experiment line up; both counts are grouped by thousands.

        >>> r = WriteReport("key", 1000, 1249, 1000, 0, 998, 2, 0, 249, 2.5)
        >>> r.summary()
        'key    1,000 writes, 1,249 requests in 2.50 s'
        """
        width = max(len(label(mode)) for mode in WRITE_MODES)
        return _("{mode} {writes} writes, {sent} requests in {seconds} s").format(
            mode=f"{label(self.mode):{width}}",
            writes=grouped(self.writes),
            sent=grouped(self.sent),
            seconds=number(self.seconds, 2),
        )


def write_policy(mode: str, max_attempts: int = 4) -> tuple[RetryPolicy, bool]:
    """The policy of each write mode, and whether it sends idempotency keys.

    ``"key"``: the lesson's rule, POST retried after a network error because
    it carries a key; ``"unsafe"``: POST retried after a network error without
    a key (the mistake); ``"lesson"``: the lesson's rule without a key, so a
    POST is never retried after a network error.

    >>> write_policy("unsafe")[0].safe_methods >= {"POST"}
    True
    """
    check_choice("mode", mode, WRITE_MODES)
    policy = RetryPolicy(max_attempts=max_attempts)
    if mode == "unsafe":
        policy = policy.with_(safe_methods=policy.safe_methods | {"POST"})
    return policy, mode == "key"


def write_experiment(
    requests: int = 1000,
    drop_rate: float = 0.2,
    mode: str = "key",
    seed: int = SEED,
    *,
    lab: LabServer | None = None,
    progress: Progress | None = None,
    max_attempts: int = 4,
    metrics: MetricsLike | None = None,
) -> WriteReport:
    """POST ``requests`` measurements through the retry loop while the server
    drops a random ``drop_rate`` of its answers *after storing*.

    ``mode`` is one of :data:`WRITE_MODES` (see :func:`write_policy`). The
    drops come from a generator seeded with ``seed``, and the client sends
    one write at a time on a keep-alive connection without sleeping, so a
    run is reproducible and takes about a second for 1,000 writes.
    ``progress(done, total)`` is called every 1% (for a progress bar).
    ``lab``: a server in ``"store"`` mode to use (its POST /measurements
    script is replaced); by default a fresh one is started and closed, which
    closes no connection for idleness, so that a client paused or a machine
    stalled for seconds changes no count (on a given ``lab``, a stall of the
    whole process longer than its ``idle_timeout`` may still lose a write). Run
    again on the same lab (with the same seed or another), it uses keys of
    its own and counts only the records it made.

    >>> r = write_experiment(200, mode="lesson", seed=1)
    >>> r.stored, r.duplicates, r.unacknowledged == r.writes - r.acknowledged
    (200, 0, True)
    """
    writes = check_int("requests", requests, low=1, high=1_000_000)
    rate = check_number("drop_rate", drop_rate, low=0, high=1)
    check_choice("mode", mode, WRITE_MODES)
    seed = check_int("seed", seed, low=0, high=2**63 - 1)
    if lab is None:
        with LabServer("store", seed=seed, idle_timeout=OWN_IDLE_TIMEOUT) as own:
            return write_experiment(
                writes,
                rate,
                mode,
                seed,
                lab=own,
                progress=progress,
                max_attempts=max_attempts,
                metrics=metrics,
            )
    if lab.mode != "store":
        raise ValueError(
            f"lab.mode={lab.mode!r} is out of range: write_experiment needs a LabServer('store')"
        )
    policy, use_keys = write_policy(mode, max_attempts)
    lab.script("POST", "/measurements", fault_rate=rate, fault="drop", seed=seed)
    values = np.random.default_rng(seed).normal(-4.0, 2.0, writes).round(1)
    first_record, first_request = lab.record_count, lab.requests
    # A lab that has seen requests may remember keys of an earlier run with this seed
    # (the same keys and bodies would be replayed, not stored): a used lab gets keys
    # of its own run. A fresh lab gets the seed's own keys, as it always has.
    keys = KeyMaker(seed, stream=first_request)
    rng = Mulberry32(seed)
    tag = f"w{seed}-"
    acknowledged = retried = 0
    used: set[str] = set()  # the keys this run sent
    step = max(1, writes // 100)
    start = time.perf_counter()
    # a generous timeout: on loopback a slow answer means a busy machine, not a lost
    # one, and a timeout would count as a network error the server never caused; and
    # no reuse of a connection the lab may be closing for idleness (the client paused
    # between writes): a write sent on it would be lost before reaching the server
    keepalive = min(KEEPALIVE, lab.idle_timeout / 2)
    with Connection(lab.url, timeout=30, keepalive=keepalive) as conn:
        for i in range(writes):
            headers = {"Idempotency-Key": keys()} if use_keys else {}
            used.update(headers.values())
            send = conn.sender(
                "POST", "/measurements", {"value": float(values[i]), "ref": f"{tag}{i}"}, headers
            )
            result = policy.run(
                send, "POST", rng, sleep=None, idempotency_key=use_keys, metrics=metrics
            )
            acknowledged += result.ok
            retried += sum(1 for a in result.history[:-1] if a.outcome.kind == "network")
            if progress is not None and ((i + 1) % step == 0 or i + 1 == writes):
                progress(i + 1, writes)
    seconds = time.perf_counter() - start
    records = lab.records.iloc[first_record:]
    ours = records[records["ref"].astype(str).str.startswith(tag)]
    distinct = int(ours["ref"].nunique())
    # the requests of this run only: anything else that reached the lab's port meanwhile
    # (another client of a shared lab; another process's request to a port it thinks
    # closed, which this lab was given) is not one of its writes
    log = lab.log.iloc[first_request:]
    mine = (log["method"] == "POST") & (log["path"] == "/measurements")
    if use_keys:
        mine &= log["key"].isin(used)
    return WriteReport(
        mode=mode,
        writes=writes,
        sent=int(mine.sum()),
        stored=len(ours),
        duplicates=len(ours) - distinct,
        acknowledged=acknowledged,
        unacknowledged=distinct - acknowledged,
        lost=writes - distinct,
        retried_after_network=retried,
        seconds=seconds,
    )
