"""Nonsense thrown at the public API, counted (issue 21, "Done when").

Each probe calls one public name with one bad argument (a string for a number,
NaN, infinity, a negative, a huge number, None, a bool for a number, text for
a bool). It is *clean* when it raises ValueError or TypeError with a message
that names the argument. Run it as a script to print the count::

    PYTHONPATH=. python tests/lab/test_api_probe.py

Probes marked ``risky`` could hang or exhaust memory on code that does not
refuse them (an endless virtual sleep, a 24 GB simulation); ``--safe`` skips
them and counts them as not clean, which is what they were before issue 21.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

NAN, INF = math.nan, math.inf
NUMBER = ["5", NAN, INF, -5, 10**12, None, True]  # for a count or a duration
CLOCK = ["5", NAN, INF, None, True]  # for a logical clock (any finite)
FLAG = ["False", "yes", None, 1]  # for a bool


@dataclass(frozen=True)
class Probe:
    name: str  # what is called, with the bad argument
    argument: str  # the name the message must mention
    call: Callable[[], Any]
    risky: bool = False


def _probes() -> Iterator[Probe]:
    import retrylab as r

    def each(
        label: str,
        argument: str,
        values: list[Any],
        make: Callable[[Any], Callable[[], Any]],
        risky: bool = False,
    ) -> Iterator[Probe]:
        for v in values:
            yield Probe(f"{label}({argument}={v!r})", argument, make(v), risky)

    # backoff, policy, outcome, decisions
    for arg in ("base", "factor", "cap"):  # cap=None is valid: no cap
        yield from each(
            "Backoff",
            arg,
            [v for v in NUMBER if v is not None or arg != "cap"],
            lambda v, a=arg: lambda: r.Backoff(**{a: v}),
        )
    yield from each("Backoff", "jitter", ["fuzzy", None, 3], lambda v: lambda: r.Backoff(jitter=v))
    for arg in ("max_attempts", "time_budget", "max_retry_after"):
        yield from each(
            "RetryPolicy",
            arg,
            [v for v in NUMBER if v is not None],
            lambda v, a=arg: lambda: r.RetryPolicy(**{a: v}),
        )
    yield from each("Outcome.http", "status", NUMBER, lambda v: lambda: r.Outcome.http(v))
    yield from each(
        "Outcome.http",
        "retry_after",
        ["5", NAN, INF, -5, True],
        lambda v: lambda: r.Outcome.http(503, retry_after=v),
    )
    yield from each(
        "parse_retry_after",
        "retry_after",
        [5, None, "soon", "-1", ""],
        lambda v: lambda: r.parse_retry_after(v),
    )
    for fn in (r.decide, r.should_retry, r.production_rule):
        yield from each(
            fn.__name__,
            "idempotency_key",
            FLAG,
            lambda v, f=fn: lambda: f(r.Outcome.network(), "POST", v),
        )
        yield from each(
            fn.__name__,
            "method",
            [None, 5, "GE T", ""],
            lambda v, f=fn: lambda: f(r.Outcome.http(503), v),
        )
        yield from each(
            fn.__name__, "outcome", ["503", 503, None], lambda v, f=fn: lambda: f(v, "GET")
        )
    yield from each(
        "RetryPolicy.run",
        "idempotency_key",
        FLAG,
        lambda v: (
            lambda: r.RetryPolicy().run(r.Outcome.network, "POST", idempotency_key=v, sleep=None)
        ),
    )

    # generator, herd, metrics, contention
    # a negative seed is valid: the lesson's generator takes it modulo 2**32, as JS does
    yield from each("Mulberry32", "seed", ["5", NAN, None], lambda v: lambda: r.Mulberry32(v))
    yield from each(
        "Mulberry32.random",
        "n",
        ["5", NAN, -5, 10**12, None],
        lambda v: lambda: r.Mulberry32(1).random(v),
    )
    yield from each(
        "bucket_counts",
        "width",
        ["5", NAN, 0, -5, None],
        lambda v: lambda: r.bucket_counts([1, 2], v),
    )
    yield Probe(
        "bucket_counts([0, 10**12], width=1)",
        "width",
        lambda: r.bucket_counts([0, 10**12], width=1),
    )
    yield from each(
        "wakeups",
        "clients",
        ["5", NAN, -5, 10**12],
        lambda v: lambda: r.wakeups(r.Backoff(), v, 1, r.Mulberry32(1)),
    )
    yield from each(
        "contention",
        "clients",
        ["5", NAN, -5, 10**12],
        lambda v: lambda: r.contention(v, "full", runs=1),
    )
    yield from each(
        "contention", "strategy", ["fuzzy", None], lambda v: lambda: r.contention(10, v, runs=1)
    )
    yield Probe(
        "contention(10000, runs=100000)",
        "runs",
        lambda: r.contention(10000, "full", runs=100000),
        risky=True,
    )

    # breakers
    for arg in ("threshold", "cooldown"):
        yield from each(
            "CircuitBreaker", arg, NUMBER, lambda v, a=arg: lambda: r.CircuitBreaker(**{a: v})
        )
    yield from each(
        "CircuitBreaker.allow", "now", CLOCK, lambda v: lambda: r.CircuitBreaker().allow(v)
    )
    yield from each(
        "CircuitBreaker.record",
        "success",
        ["failed", None, 0],
        lambda v: lambda: r.CircuitBreaker().record(v, 0),
    )
    for arg in (
        "window_size",
        "minimum_calls",
        "failure_rate_threshold",
        "wait_in_open",
        "half_open_calls",
    ):
        yield from each(
            "RateBreaker", arg, NUMBER, lambda v, a=arg: lambda: r.RateBreaker(**{a: v})
        )
    for method in ("allow", "retry_in", "failure_rate"):
        yield from each(
            f"RateBreaker.{method}",
            "now",
            CLOCK,
            lambda v, m=method: lambda: getattr(r.RateBreaker(), m)(v),
        )
    yield from each(
        "RateBreaker.record", "now", CLOCK, lambda v: lambda: r.RateBreaker().record(True, v)
    )
    yield from each(
        "RateBreaker.record",
        "success",
        ["failed", None, 0],
        lambda v: lambda: r.RateBreaker().record(v, 0),
    )
    yield from each(
        "RateBreaker.record",
        "duration",
        NUMBER,
        lambda v: lambda: r.RateBreaker().record(True, 0, v),
    )

    # hedging, throttles
    for arg in ("max_attempts", "hedging_delay"):
        yield from each(
            "HedgingPolicy", arg, NUMBER, lambda v, a=arg: lambda: r.HedgingPolicy(**{a: v})
        )
    yield from each(
        "HedgingPolicy",
        "non_fatal_status_codes",
        ["UNAVAILABLE", 5, [1, 2]],
        lambda v: lambda: r.HedgingPolicy(non_fatal_status_codes=v),
    )
    yield from each(
        "TokenBucket", "max_rate", ["5", NAN, INF, -5, None], lambda v: lambda: r.TokenBucket(v)
    )
    yield from each(
        "TokenBucket.acquire",
        "amount",
        ["5", NAN, INF, -5, 0, None],
        lambda v: lambda: r.TokenBucket(2.0).acquire(0, v),
    )
    yield from each(
        "TokenBucket.acquire", "now", CLOCK, lambda v: lambda: r.TokenBucket(2.0).acquire(v)
    )
    yield from each(
        "sre_reject_probability",
        "requests",
        ["5", NAN, INF, -1, None],
        lambda v: lambda: r.sre_reject_probability(v, 0),
    )
    yield from each(
        "sre_reject_probability",
        "accepts",
        ["5", NAN, -1, None],
        lambda v: lambda: r.sre_reject_probability(1, v),
    )
    for arg in ("k", "window"):
        yield from each(
            "SreThrottle", arg, NUMBER, lambda v, a=arg: lambda: r.SreThrottle(**{a: v})
        )
    yield from each(
        "SreThrottle.request", "now", CLOCK, lambda v: lambda: r.SreThrottle().request(v)
    )

    # the lab (refused before anything is bound) and virtual time
    for arg in ("fail_first", "max_body", "idle_timeout"):
        yield from each("LabServer", arg, NUMBER, lambda v, a=arg: lambda: r.LabServer(**{a: v}))
    from retrylab.lab.virtualtime import run_virtual, sleep_ms

    yield from each(
        "sleep_ms", "ms", ["5", NAN, -5, None], lambda v: lambda: run_virtual(sleep_ms(v))
    )
    yield Probe(
        "sleep_ms(ms=inf)",
        "ms",
        lambda: run_virtual(sleep_ms(INF)),  # type: ignore[arg-type]
        risky=True,
    )

    # the bridge
    from retrylab.lab import bridge

    yield from each(
        "to_tenacity",
        "idempotency_key",
        FLAG,
        lambda v: lambda: bridge.to_tenacity(r.RetryPolicy(), r.Mulberry32(1), "POST", v),
    )
    yield from each(
        "to_urllib3",
        "idempotency_key",
        FLAG,
        lambda v: lambda: bridge.to_urllib3(r.RetryPolicy(), idempotency_key=v),
    )
    yield from each(
        "PolicyRetry",
        "idempotency_key",
        FLAG,
        lambda v: lambda: bridge.PolicyRetry(idempotency_key=v),
    )
    yield from each(
        "to_urllib3", "policy", [None, "policy", 3], lambda v: lambda: bridge.to_urllib3(v)
    )
    yield from each(
        "RetryTransport", "policy", [None, "policy", 3], lambda v: lambda: bridge.RetryTransport(v)
    )

    # header values HTTP/1.1 cannot carry (httpx itself raises UnicodeEncodeError)
    import httpx

    from retrylab.lab.client import check_headers, http_send
    from retrylab.lab.transport import outcome_sender

    BAD_HEADER = ["Ayşe", "日本", "a\r\nX: 1", "\x00"]
    yield from each(
        "check_headers", "X-Name", BAD_HEADER, lambda v: lambda: check_headers({"X-Name": v})
    )
    yield from each(
        "http_send",
        "X-Name",
        BAD_HEADER,
        lambda v: lambda: http_send("http://127.0.0.1:9/", headers={"X-Name": v}),
    )
    yield from each(
        "outcome_sender",
        "X-Name",
        BAD_HEADER,
        lambda v: (
            lambda: outcome_sender(
                httpx.Client(), "GET", "http://127.0.0.1:9/", headers={"X-Name": v}
            )()
        ),
    )


def clean(probe: Probe) -> bool:
    """True if the probe raised ValueError/TypeError naming its argument."""
    try:
        made = probe.call()
    except (ValueError, TypeError) as e:
        return probe.argument in str(e)
    except Exception:
        return False
    close = getattr(made, "close", None)
    if callable(close) and type(made).__name__ == "LabServer":
        close()
    return False


def count(safe: bool = False) -> tuple[int, int, list[str]]:
    """(clean probes, all probes, the names of those that are not clean)."""
    bad: list[str] = []
    total = 0
    for probe in _probes():
        total += 1
        if (safe and probe.risky) or not clean(probe):
            bad.append(probe.name)
    return total - len(bad), total, bad


def test_every_probe_of_the_public_api_is_a_clean_error() -> None:
    good, total, bad = count()
    assert total > 300
    assert bad == [], f"{good} of {total} clean; not clean: {bad}"


if __name__ == "__main__":
    good, total, bad = count(safe="--safe" in sys.argv)
    print(f"{good} of {total} probes clean ({100 * good / total:.1f}%)")
    for name in bad:
        print("  not clean:", name)
