"""The bridge over real sockets: the lesson's four scenarios through httpx, tenacity and
urllib3 against LabServer, the duplicate experiment, and urllib3's documented differences."""

from __future__ import annotations

import pytest
import urllib3
from _ports import refusing_port

from retrylab import (
    Backoff,
    LabServer,
    Mulberry32,
    Outcome,
    RetryPolicy,
    decide,
    production_rule,
)
from retrylab.lab.bridge import PolicyRetry, allowed_methods, to_urllib3
from retrylab.lessons.production import (
    compare_libraries,
    decision_sources,
    duplicate_experiment,
    library_scenarios,
)

LESSON_WAITS = [[70, 184], [], [2000, 2000], []]
LESSON_ATTEMPTS = [3, 1, 3, 1]
LESSON_STATUS = [200, 422, 429, 404]


@pytest.mark.parametrize("library", ["policy", "tenacity", "httpx"])
def test_the_lessons_four_scenarios_exactly(library: str) -> None:
    with LabServer() as lab:
        runs, requests = library_scenarios(library, lab)
    assert [r.waits for r in runs] == LESSON_WAITS
    assert [r.attempts for r in runs] == LESSON_ATTEMPTS
    assert [r.status for r in runs] == LESSON_STATUS
    assert requests == 3


def test_the_lessons_four_scenarios_through_urllib3() -> None:
    with LabServer() as lab:
        runs, requests = library_scenarios("urllib3", lab)
    # what urllib3 can match: the decisions, the attempts, the answers, Retry-After
    assert [r.attempts for r in runs] == LESSON_ATTEMPTS
    assert [r.status for r in runs] == LESSON_STATUS
    assert requests == 3
    assert runs[2].waits == [2000, 2000]
    # what it cannot: its first retry never sleeps, and the second sleeps the
    # ceiling (400 ms) where the lesson draws full jitter under it (184 ms)
    assert runs[0].waits == [0, 400]


def test_urllib3_claims_hold_in_the_installed_version() -> None:
    Retry = urllib3.util.Retry
    stock = Retry(total=3, backoff_factor=0.2, status_forcelist=[429, 503])
    r1 = stock.increment("GET", "/", error=urllib3.exceptions.ProtocolError("x"))
    assert r1.get_backoff_time() == 0  # first retry never sleeps
    r2 = r1.increment("GET", "/", error=urllib3.exceptions.ProtocolError("x"))
    r3 = r2.increment("GET", "/", error=urllib3.exceptions.ProtocolError("x"))
    assert (r2.get_backoff_time(), r3.get_backoff_time()) == (0.4, 0.8)
    assert not stock.is_retry("POST", 429, True)  # allowed_methods gates status retries
    assert not hasattr(stock, "time_budget") and "time" not in Retry.__init__.__code__.co_varnames
    # NewConnectionError is a connect error: retried whatever the method
    assert issubclass(urllib3.exceptions.NewConnectionError, urllib3.exceptions.ConnectTimeoutError)


def test_policy_retry_asks_the_rule_and_keeps_its_settings_through_new() -> None:
    r = to_urllib3(RetryPolicy(rule=production_rule))
    assert r.is_retry("POST", 429) and not r.is_retry("POST", 503)
    assert r.is_retry("GET", 503) and not r.is_retry("GET", 501)
    assert r.allowed_methods == frozenset({"GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"})
    r2 = r.increment("GET", "/", error=urllib3.exceptions.ProtocolError("x"))
    assert isinstance(r2, PolicyRetry) and r2.policy is r.policy and r2.total == 2
    keyed = to_urllib3(RetryPolicy(rule=production_rule), idempotency_key=True)
    assert keyed.is_retry("POST", 503) and allowed_methods(keyed.policy, True) is None


def test_urllib3_waits_are_the_ceilings_for_factor_2_only() -> None:
    for factor, exact in ((2, True), (3, False)):
        policy = RetryPolicy(max_attempts=6, backoff=Backoff(100, factor, 100_000))
        r = to_urllib3(policy)
        got = []
        for _ in range(5):
            r = r.increment("GET", "/", error=urllib3.exceptions.ProtocolError("x"))
            got.append(round(r.get_backoff_time() * 1000))
        want = [0] + [policy.backoff.ceiling(n) for n in range(1, 5)]
        assert (got == want) is exact, (factor, got, want)


def test_urllib3_retry_after_replaces_the_backoff_and_is_clamped() -> None:
    slept: list[float] = []
    policy = RetryPolicy(max_attempts=4, max_retry_after=3000)
    with LabServer(fail_first=0) as lab:
        lab.script("GET", "/measurements", statuses=[503, 503, 503], retry_after=7)
        retry = to_urllib3(policy, sleeper=slept.append)
        with urllib3.PoolManager(retries=retry) as pool:
            response = pool.request("GET", lab.url + "/measurements")
    # the policy would give up (7 s > max_retry_after 3 s); urllib3 clamps and waits 3 s
    assert response.status == 200 and slept == [3, 3, 3]
    assert (
        policy.run(
            lambda: Outcome.http(503, retry_after=7), "GET", Mulberry32(1), sleep=None
        ).reason
        == "retry_after_too_long"
    )


def test_urllib3_retries_a_refused_post_and_gives_up() -> None:
    slept: list[float] = []
    retry = to_urllib3(RetryPolicy(max_attempts=3), sleeper=slept.append)
    # not a closed lab's URL: its port could be given to another process's lab, which
    # would count these three POSTs among its writes
    with (
        refusing_port() as port,
        urllib3.PoolManager(retries=retry) as pool,
        pytest.raises(urllib3.exceptions.MaxRetryError),
    ):
        pool.request("POST", f"http://127.0.0.1:{port}/measurements", timeout=0.5)
    assert slept == [0, 0.4]  # two retries of a POST the lesson's rule would not retry


def test_keyless_posts_under_fail_after_duplicate_only_with_the_lessons_rule() -> None:
    lesson = duplicate_experiment(200, rule="lesson", seed=7)
    production = duplicate_experiment(200, rule="production", seed=7)
    assert lesson.duplicates > 0 and lesson.stored == 200 + lesson.duplicates
    assert production.duplicates == 0 and production.sent == production.stored == 200
    # the price: writes the server stored but the client saw fail (keys remove it)
    assert production.acknowledged < lesson.acknowledged
    assert production.series()["duplicates"] == 0


def test_compare_libraries_shows_each_difference() -> None:
    table = compare_libraries(RetryPolicy(max_attempts=3, rule=decide))
    assert table.loc["policy", "503, 503, 200 waits"] == [70, 184]
    assert table.loc["tenacity", "503, 503, 200 waits"] == [70, 184]
    assert table.loc["urllib3", "503, 503, 200 waits"] == [0, 400]
    assert table["keyless POST 503 retried"].all()
    prod = compare_libraries(RetryPolicy(max_attempts=3, rule=production_rule))
    assert not prod["keyless POST 503 retried"].any()


def test_decision_sources_cites_a_source_on_every_row() -> None:
    t = decision_sources()
    assert t["why (production)"].str.contains("RFC|urllib3|botocore|gRPC").all()
    assert (t["lesson"] != t["production"]).sum() == 4


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="rule="):
        duplicate_experiment(10, rule="catch-all")
    with pytest.raises(ValueError, match="library="):
        library_scenarios("requests", LabServer())
    with pytest.raises(ValueError, match="policy="):
        to_urllib3("policy")  # type: ignore[arg-type]
    with LabServer("store") as lab, pytest.raises(ValueError, match="lab="):
        library_scenarios("httpx", lab)


def test_the_difference_table_and_the_docstring_agree() -> None:
    from retrylab.lab.bridge import URLLIB3_DIFFERENCES, urllib3_differences

    doc = PolicyRetry.__doc__ or ""
    for what, _, _ in URLLIB3_DIFFERENCES:
        assert what in doc, what
    assert len(urllib3_differences()) == len(URLLIB3_DIFFERENCES)


def test_urllib3_jitter_is_additive_and_uses_the_global_random() -> None:
    import random

    r = urllib3.util.Retry(total=3, backoff_factor=0.2, backoff_jitter=1.0)
    for _ in range(2):
        r = r.increment("GET", "/", error=urllib3.exceptions.ProtocolError("x"))
    random.seed(5)
    got = r.get_backoff_time()
    random.seed(5)
    assert got == 0.4 + random.random() * 1.0
    assert to_urllib3(RetryPolicy()).backoff_jitter == 0


def _as_before_urllib3_2_7(monkeypatch: pytest.MonkeyPatch) -> None:
    """Give the installed Retry urllib3 2.0-2.6's __init__: no retry_after_max."""
    import inspect

    from urllib3.util.retry import Retry

    newest = Retry.__init__
    if "retry_after_max" not in inspect.signature(newest).parameters:
        return  # the floor's CI run: urllib3 is that old

    def init(self: Retry, *args: object, **kwargs: object) -> None:
        if "retry_after_max" in kwargs:
            raise TypeError("Retry.__init__() got an unexpected keyword argument 'retry_after_max'")
        newest(self, *args, **kwargs)  # type: ignore[arg-type]
        self.__dict__.pop("retry_after_max", None)

    sig = inspect.signature(newest)
    init.__signature__ = sig.replace(  # type: ignore[attr-defined]
        parameters=[p for p in sig.parameters.values() if p.name != "retry_after_max"]
    )
    monkeypatch.setattr(Retry, "__init__", init)
    monkeypatch.setattr(Retry, "retry_after_max", None, raising=False)


@pytest.mark.parametrize("old", [False, True], ids=["installed", "urllib3<2.7"])
def test_to_urllib3_works_and_clamps_on_every_urllib3_the_extra_allows(
    old: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if old:
        _as_before_urllib3_2_7(monkeypatch)
    # before: TypeError (retry_after_max=) for every policy with max_retry_after, both presets
    for policy in (RetryPolicy.user_triggered(), RetryPolicy.background()):
        retry = to_urllib3(policy)
        assert retry.retry_after_max == policy.max_retry_after / 1000
        assert retry.increment("GET", "/").retry_after_max == retry.retry_after_max
    retry = to_urllib3(RetryPolicy(max_retry_after=3000))
    assert retry.parse_retry_after("7") == 3.0 and retry.parse_retry_after("2") == 2.0
    slept: list[float] = []
    with LabServer(fail_first=0) as lab:
        lab.script("GET", "/measurements", statuses=[503, 503], retry_after=7)
        retry = to_urllib3(RetryPolicy(max_attempts=4, max_retry_after=3000), sleeper=slept.append)
        with urllib3.PoolManager(retries=retry) as pool:
            assert pool.request("GET", lab.url + "/measurements").status == 200
    assert slept == [3, 3]


def test_policy_retry_honours_urllib3s_arguments_given_without_a_policy() -> None:
    # before: the default production_rule decided and the explicit arguments were ignored
    assert PolicyRetry(status_forcelist=[418]).is_retry("GET", 418)
    assert not PolicyRetry(status_forcelist=[418]).is_retry("GET", 503)
    anything = PolicyRetry(status_forcelist=[500], allowed_methods=None)
    assert anything.is_retry("POST", 500) and anything.decide_with == "urllib3"
    only_post = PolicyRetry(status_forcelist=[500], allowed_methods=["POST"])
    assert only_post.is_retry("POST", 500) and not only_post.is_retry("GET", 500)
    assert only_post.increment("POST", "/").decide_with == "urllib3"  # kept through new()
    # none given: the safe default (production_rule: no keyless POST after a 500)
    default = PolicyRetry()
    assert default.decide_with == "policy" and not default.is_retry("POST", 500)
    assert default.is_retry("GET", 503)
    with pytest.raises(
        ValueError,
        match=r"allowed_methods=None is out of range: with "
        r"policy=\.\.\., the policy's rule decides",
    ):
        PolicyRetry(policy=RetryPolicy(), allowed_methods=None)
    with pytest.raises(ValueError, match=r"decide_with='rule' is out of range"):
        PolicyRetry(decide_with="rule")  # type: ignore[arg-type]
