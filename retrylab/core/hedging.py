"""Hedged requests: send another copy when the first is slow, keep the first answer.

A retry waits for a failure; a *hedge* does not wait that long. When a
request has been outstanding for ``hedging_delay`` ms without an answer, the
client sends a copy (to another server, ideally); the first good answer wins
and the others are cancelled. Tail latency falls, because a slow server no
longer decides the request's latency, at the price of extra requests.

Semantics (source: gRPC proposal A6 "gRPC Retry Design",
github.com/grpc/proposal ``A6-client-retries.md``, section "Hedging Policy"):

- the first attempt goes at 0; while no response has come, attempt ``k+1``
  goes ``hedging_delay`` ms after attempt ``k`` ("after hedgingDelay has
  elapsed again, a third RPC is sent, and so on, up to maxAttempts");
  ``max_attempts`` is 2..5 ("values greater than 5 are treated as 5"; here
  1 is allowed too, meaning no hedging, for comparisons);
- a successful response cancels every other attempt and is the result;
- a response with a status in ``non_fatal_status_codes`` sends the next
  hedge at once, "shortcutting its hedging delay"; any other status is fatal:
  everything is cancelled and that error is the result;
- if every attempt fails, the result is the last failure (no more retries).

The motivation and the numbers (source: J. Dean and L. A. Barroso, "The Tail
at Scale", Communications of the ACM 56(2), 2013): defer the hedge until the
first request has been outstanding longer than the 95th-percentile latency,
which limits the extra load to about 5%; in their BigTable example a 10 ms
delay cut the 99.9th-percentile latency of 1,000 reads from 1,800 ms to
74 ms for 2% more requests.

>>> p = HedgingPolicy(max_attempts=2, hedging_delay=50)
>>> hedge(p, latencies=[400, 30]).latency       # the hedge at 50 answers at 80
80
>>> hedge(p, latencies=[20, 30]).attempts       # answered before the delay: no copy
1
>>> hedge(p, [100, 30], statuses=["UNAVAILABLE", "OK"]).latency  # a hedge at 0+50
80
>>> p2 = HedgingPolicy(3, 50, non_fatal_status_codes=("UNAVAILABLE",))
>>> r = hedge(p2, [10, 30, 500], statuses=["UNAVAILABLE", "OK", "OK"])
>>> r.latency, r.attempts, r.winner               # the 10 ms failure sends copy 2 at 10
(40, 2, 1)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ._check import check_int, type_error

__all__ = ["HedgeResult", "HedgingPolicy", "hedge"]

#: gRPC A6: "maxAttempts ... values greater than 5 are treated as 5".
MAX_HEDGES = 5


@dataclass(frozen=True)
class HedgingPolicy:
    """gRPC A6's ``hedgingPolicy``: ``max_attempts``, ``hedging_delay`` (ms), non-fatal codes.

    >>> HedgingPolicy(9, 10).max_attempts
    5
    """

    max_attempts: int = 2
    hedging_delay: int = 0
    non_fatal_status_codes: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        n = check_int("max_attempts", self.max_attempts, low=1, high=1_000)
        object.__setattr__(self, "max_attempts", min(n, MAX_HEDGES))
        check_int("hedging_delay", self.hedging_delay, low=0, high=86_400_000)
        codes = self.non_fatal_status_codes
        allowed = "a list of gRPC status names such as ('UNAVAILABLE',), not one string"
        if isinstance(codes, (str, bytes)) or not isinstance(codes, Iterable):
            raise type_error("non_fatal_status_codes", codes, allowed)
        codes = tuple(codes)
        if not all(isinstance(c, str) for c in codes):
            raise type_error("non_fatal_status_codes", codes, allowed)
        object.__setattr__(self, "non_fatal_status_codes", codes)


@dataclass(frozen=True)
class HedgeResult:
    """One hedged request: when it finished, the status, which attempt won, the work done.

    ``sent`` are the send times of the attempts that went; ``busy`` is the
    server time they used (each until it answered or was cancelled).
    """

    latency: int
    status: str
    winner: int
    sent: tuple[int, ...]
    busy: int

    @property
    def attempts(self) -> int:
        """How many copies were sent."""
        return len(self.sent)


def hedge(
    policy: HedgingPolicy, latencies: Sequence[int], statuses: Sequence[str] | None = None
) -> HedgeResult:
    """Play one hedged request: attempt ``k`` takes ``latencies[k]`` ms, answers ``statuses[k]``.

    ``statuses`` default to all ``"OK"``. Needs one latency per possible
    attempt (``policy.max_attempts``). Events at the same moment: a response
    is handled before a send, so an answer at exactly the hedging delay sends
    no copy.
    """
    n = policy.max_attempts
    if len(latencies) < n:
        raise ValueError(
            f"latencies has {len(latencies)} values: latencies must have at least "
            f"max_attempts={n} values"
        )
    lat = [check_int("latencies", x, low=0) for x in latencies[:n]]
    st = ["OK"] * n if statuses is None else list(statuses[:n])
    if len(st) < n:
        raise ValueError(
            f"statuses has {len(st)} values: statuses must have at least max_attempts={n} values"
        )
    sent: list[int] = [0]
    next_send = policy.hedging_delay if n > 1 else None
    pending = {0}
    last_fail: tuple[int, str, int] | None = None
    while pending or (next_send is not None):
        answer = min(pending, key=lambda k: (sent[k] + lat[k], k)) if pending else None
        t_answer = sent[answer] + lat[answer] if answer is not None else None
        if next_send is not None and (t_answer is None or next_send < t_answer):
            k = len(sent)
            sent.append(next_send)
            pending.add(k)
            next_send = next_send + policy.hedging_delay if k + 1 < n else None
            continue
        assert answer is not None and t_answer is not None
        pending.discard(answer)
        if st[answer] == "OK" or st[answer] not in policy.non_fatal_status_codes:
            return _done(t_answer, st[answer], answer, sent, lat)
        last_fail = (t_answer, st[answer], answer)
        if len(sent) < n:
            next_send = t_answer  # shortcut the hedging delay
    assert last_fail is not None
    return _done(last_fail[0], last_fail[1], last_fail[2], sent, lat)


def _done(at: int, status: str, winner: int, sent: list[int], lat: list[int]) -> HedgeResult:
    busy = sum(min(lat[k], at - s) for k, s in enumerate(sent))
    return HedgeResult(at, status, winner, tuple(sent), busy)
