"""to_tenacity against RetryPolicy.run: 2,000 generated scenarios, attempt by attempt,
wait by wait, draw by draw."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

import pytest

from retrylab import Backoff, Outcome, RetryPolicy, production_rule, retry_everything_rule
from retrylab.core.rng import Mulberry32
from retrylab.lab.bridge import to_tenacity

SCENARIOS = 2000
METHODS = ("GET", "HEAD", "PUT", "DELETE", "POST", "PATCH")
RULES = (None, production_rule, retry_everything_rule)
JITTERS = ("none", "full", "equal", "decorrelated", "proportional")


def random_outcome(g: random.Random) -> Outcome:
    kind = g.choices(["success", "http", "network", "body", "cancelled"], [1, 12, 4, 1, 1])[0]
    if kind == "http":
        status = g.choice([408, 429, 500, 502, 503, 503, 504, 422, 501, 505])
        ra = g.choice([None, None, 0, 1, 2, 0.25, 7, 60])
        return Outcome.http(status, retry_after=ra)
    if kind == "network":
        return Outcome.network(sent=g.choice([None, False, True]))
    return {"success": Outcome.success, "body": Outcome.body, "cancelled": Outcome.cancelled}[
        kind
    ]()


@dataclass
class Scenario:
    script: list[Outcome]
    method: str
    key: bool
    policy: RetryPolicy
    seed: int
    latency: list[int] = field(default_factory=list)  # ms each attempt takes (clock runs)
    clocked: bool = False


def scenario(i: int) -> Scenario:
    g = random.Random(i)
    backoff = Backoff(
        g.choice([50, 100, 200]),
        g.choice([1.5, 2, 3]),
        g.choice([None, 1000, 5000]),
        jitter=g.choice(JITTERS),
    )
    policy = RetryPolicy(
        max_attempts=g.randint(1, 7),
        backoff=backoff,
        time_budget=g.choice([None, None, None, 0, 500, 2000, 6000, 20000]),
        max_retry_after=g.choice([None, None, None, 0, 1000, 5000]),
        rule=g.choice(RULES),
    )
    script = [random_outcome(g) for _ in range(policy.max_attempts)]
    clocked = g.random() < 0.3
    return Scenario(
        script,
        g.choice(METHODS),
        g.random() < 0.3,
        policy,
        g.randrange(2**32),
        [g.randint(0, 300) for _ in script],
        clocked,
    )


class Clock:
    def __init__(self) -> None:
        self.t = 1_000.0

    def __call__(self) -> float:
        return self.t


def run_policy(s: Scenario) -> tuple[list[int], list[int], object, str, float]:
    answers, clock, sent = iter(zip(s.script, s.latency, strict=True)), Clock(), []

    def send() -> Outcome:
        out, ms = next(answers)
        sent.append(len(sent) + 1)
        clock.t += ms
        return out

    def sleep(ms: int) -> None:
        slept.append(ms)
        clock.t += ms

    slept: list[int] = []
    rng = Mulberry32(s.seed)
    r = s.policy.run(
        send, s.method, rng, sleep, idempotency_key=s.key, clock=clock if s.clocked else None
    )
    assert list(r.waits) == slept
    return sent, slept, r.outcome, str(r.reason), rng()


def run_tenacity(s: Scenario) -> tuple[list[int], list[int], object, str, float]:
    answers, clock, sent = iter(zip(s.script, s.latency, strict=True)), Clock(), []

    def send() -> Outcome:
        out, ms = next(answers)
        sent.append(len(sent) + 1)
        clock.t += ms
        return out

    def sleep(seconds: float) -> None:
        slept.append(round(seconds * 1000))
        clock.t += seconds * 1000

    slept: list[int] = []
    rng = Mulberry32(s.seed)
    retrying = to_tenacity(
        s.policy, rng, s.method, s.key, sleep, clock=clock if s.clocked else None
    )
    outcome = retrying(send)
    assert retrying.statistics["attempt_number"] == len(sent)
    return sent, slept, outcome, retrying.statistics["stop_reason"], rng()


def test_tenacity_agrees_with_policy_run_on_2000_scenarios() -> None:
    attempts = waits = 0
    reasons: set[str] = set()
    for i in range(SCENARIOS):
        s = scenario(i)
        want, got = run_policy(s), run_tenacity(s)
        assert got == want, (i, s)
        attempts += len(want[0])
        waits += len(want[1])
        reasons.add(want[3])
    # the generator reaches every way a run can stop, and many retries
    assert reasons == {
        "success",
        "not_retryable",
        "max_attempts",
        "time_budget",
        "retry_after_too_long",
    }
    assert attempts > 1.5 * SCENARIOS and waits > 0.75 * SCENARIOS, (attempts, waits)
    print(f"{SCENARIOS} scenarios, {attempts} attempts, {waits} waits agree")


def test_no_draw_on_the_last_attempt() -> None:
    rng = Mulberry32(20260114)
    retrying = to_tenacity(RetryPolicy(max_attempts=2), rng, sleep=lambda s: None)
    assert retrying(lambda: Outcome.http(503)).status == 503
    # one draw (70) for the one wait; the next draw is the lesson's second, 0.46...
    assert rng() == Mulberry32(20260114).random(2)[1]


def test_one_retrying_object_runs_many_calls_each_from_the_first_wait() -> None:
    policy = RetryPolicy(backoff=Backoff(200, 2, 5000, jitter="decorrelated"))
    r1, r2 = Mulberry32(7), Mulberry32(7)
    slept: list[int] = []
    retrying = to_tenacity(policy, r1, sleep=lambda s: slept.append(round(s * 1000)))
    for _ in range(3):
        answers = iter([Outcome.http(503), Outcome.http(503), Outcome.success()])
        retrying(lambda a=answers: next(a))  # type: ignore[misc]
    want: list[int] = []
    for _ in range(3):
        answers = iter([Outcome.http(503), Outcome.http(503), Outcome.success()])
        want += policy.run(lambda a=answers: next(a), "GET", r2, sleep=None).waits  # type: ignore[misc]
    assert slept == want


def test_exceptions_from_send_propagate_like_policy_run() -> None:
    def boom() -> Outcome:
        raise KeyError("x")

    with pytest.raises(KeyError):
        to_tenacity(RetryPolicy(), Mulberry32(1), sleep=lambda s: None)(boom)
    with pytest.raises(TypeError, match="must return an Outcome"):
        to_tenacity(RetryPolicy(), Mulberry32(1), sleep=lambda s: None)(lambda: 503)


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="rng=None"):
        to_tenacity(RetryPolicy(), None)
    with pytest.raises(ValueError, match="method="):
        to_tenacity(RetryPolicy(), Mulberry32(1), "GET /")
    with pytest.raises(ValueError, match="policy="):
        to_tenacity("policy", Mulberry32(1))  # type: ignore[arg-type]


def test_importable_from_retrylab() -> None:
    import retrylab

    assert retrylab.to_tenacity is to_tenacity
    with pytest.raises(AttributeError):
        _ = retrylab.no_such_name


def test_agreement_holds_when_stop_is_asked_before_wait() -> None:
    # tenacity 8.2 asks stop before wait; 8.3+ wait before stop: the draw is taken once
    for i in range(300):
        s = scenario(i)
        sent: list[int] = []
        slept: list[int] = []
        answers = iter(s.script)

        def send(a: Iterator[Outcome] = answers, log: list[int] = sent) -> Outcome:
            log.append(1)
            return next(a)

        rng = Mulberry32(s.seed)
        r = to_tenacity(s.policy, rng, s.method, s.key, lambda sec: None)
        # stop decides first; the wait is read afterwards (from before_sleep)
        swapped = r.copy(
            wait=lambda rs: 0.0,
            stop=r.stop,
            before_sleep=lambda rs, r=r, w=slept: w.append(round(r.wait(rs) * 1000)),
        )
        outcome = swapped(send)
        want = run_policy(replace(s, clocked=False, latency=[0] * len(s.script)))
        assert (len(sent), slept, outcome, rng()) == (len(want[0]), want[1], want[2], want[4]), i
