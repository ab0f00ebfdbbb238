"""The same :class:`~retrylab.core.policy.RetryPolicy` in tenacity, urllib3 and httpx.

Use it when a policy designed with the lessons must run in the library a team
already uses (``pip install "retrylab[bridge]"``):

- :func:`to_tenacity` -> a ``tenacity.Retrying`` for a function returning an
  :class:`~retrylab.core.outcome.Outcome`; its decisions, waits, Retry-After
  handling, attempt limit and time budget equal :meth:`RetryPolicy.run` exactly,
  draw for draw;
- :func:`to_urllib3` -> a :class:`PolicyRetry`, a ``urllib3.util.Retry`` subclass
  that matches the policy where urllib3 allows and documents where it cannot;
- :class:`~retrylab.lab.transport.RetryTransport`: an ``httpx`` transport, sync
  and async, that retries with the policy itself.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

import pandas as pd

try:
    import tenacity
    import urllib3  # noqa: F401  (the extra's third package, checked here)
    from urllib3.util.retry import Retry
except ImportError as e:  # pragma: no cover - the extra is installed in CI
    raise ImportError(
        f"retrylab.lab.bridge needs the bridge extra ({e.name} is missing): "
        'pip install "retrylab[bridge]"'
    ) from e

from ..core._check import ArgumentTypeError, check_bool
from ..core.backoff import Random
from ..core.outcome import Outcome, check_method
from ..core.policy import Clock, RetryPolicy, StopReason, _checked
from ..core.production import production_rule
from ..i18n import N_, _, pgettext
from .transport import RetryTransport

#: Methods probed to turn a rule into urllib3's ``allowed_methods``.
PROBE_METHODS: tuple[str, ...] = (
    "GET",
    "HEAD",
    "OPTIONS",
    "TRACE",
    "PUT",
    "DELETE",
    "POST",
    "PATCH",
)
_STATE = "_retrylab_run"
#: urllib3's arguments that decide which answers are retried: given to PolicyRetry
#: without a policy, urllib3 decides with them; with a policy, the policy's rule does.
DECISION_ARGUMENTS: tuple[str, ...] = ("status_forcelist", "allowed_methods")


def _native_retry_after_max() -> bool:
    """Whether the installed urllib3's Retry takes ``retry_after_max`` (added in 2.7)."""
    return "retry_after_max" in inspect.signature(Retry.__init__).parameters


@dataclass
class _Run:
    """One tenacity call's view of the loop: the lazy waits and the time spent."""

    waits: Any
    start: float
    slept: int = 0
    planned_for: int = 0
    planned: int | None = None


def _check_policy(policy: object) -> RetryPolicy:
    if not isinstance(policy, RetryPolicy):
        raise ArgumentTypeError(f"policy={policy!r} is out of range: policy must be a RetryPolicy")
    return policy


def _strategies(
    policy: RetryPolicy, rng: Random | None, method: str, idempotency_key: bool, clock: Clock | None
) -> dict[str, Any]:
    """tenacity's ``retry``, ``wait``, ``stop``, ``before`` and ``retry_error_callback``
    for ``policy``: plain functions, accepted by ``Retrying`` and ``AsyncRetrying`` alike."""
    _check_policy(policy)
    m = check_method(method)
    policy.backoff.check_rng(rng)
    key = check_bool("idempotency_key", idempotency_key)

    def run_of(rs: tenacity.RetryCallState) -> _Run:
        run: _Run = getattr(rs, _STATE)
        return run

    def elapsed(run: _Run) -> int:
        return round(clock() - run.start) if clock is not None else run.slept

    def before(rs: tenacity.RetryCallState) -> None:
        if rs.attempt_number == 1:
            setattr(
                rs, _STATE, _Run(policy.backoff.waits(rng), clock() if clock is not None else 0.0)
            )

    def stopped(rs: tenacity.RetryCallState, reason: StopReason) -> None:
        rs.retry_object.statistics["stop_reason"] = str(reason)

    def retry(rs: tenacity.RetryCallState) -> bool:
        assert rs.outcome is not None
        if rs.outcome.failed:  # send raised: tenacity re-raises it, as policy.run does
            return False
        outcome = _checked(rs.outcome.result())
        if outcome.ok:
            stopped(rs, StopReason.SUCCESS)
            return False
        if not policy.decide(outcome, m, key).retry:
            stopped(rs, StopReason.NOT_RETRYABLE)
            return False
        # the policy's own limits are decided here too, so a copy(stop=...) that
        # replaces ``stop`` adds a limit instead of turning "stop" into 0 s retries
        return plan(rs) is not None

    def plan(rs: tenacity.RetryCallState) -> int | None:
        """The wait before the next attempt in ms, or None to stop; decided once per
        attempt, whichever of ``retry``, ``wait`` and ``stop`` tenacity asks first."""
        run = run_of(rs)
        if run.planned_for == rs.attempt_number:
            return run.planned
        run.planned_for, run.planned = rs.attempt_number, None
        assert rs.outcome is not None
        outcome = rs.outcome.result()
        if rs.attempt_number >= policy.max_attempts:
            stopped(rs, StopReason.MAX_ATTEMPTS)
            return None  # no draw on the last attempt
        suggested = outcome.retry_after_ms
        if policy.max_retry_after is not None and suggested > policy.max_retry_after:
            stopped(rs, StopReason.RETRY_AFTER_TOO_LONG)
            return None
        ms = max(next(run.waits), suggested)
        if policy.time_budget is not None and elapsed(run) + ms > policy.time_budget:
            stopped(rs, StopReason.TIME_BUDGET)
            return None
        run.slept += ms
        run.planned = ms
        return ms

    def wait(rs: tenacity.RetryCallState) -> float:
        ms = plan(rs)
        return 0.0 if ms is None else ms / 1000

    def stop(rs: tenacity.RetryCallState) -> bool:
        return plan(rs) is None

    def last_outcome(rs: tenacity.RetryCallState) -> Outcome:
        assert rs.outcome is not None
        result: Outcome = rs.outcome.result()
        return result

    return {
        "retry": retry,
        "wait": wait,
        "stop": stop,
        "before": before,
        "retry_error_callback": last_outcome,
    }


def to_tenacity(
    policy: RetryPolicy,
    rng: Random | None,
    method: str = "GET",
    idempotency_key: bool = False,
    sleep: Callable[[float], Any] | None = None,
    *,
    clock: Clock | None = None,
) -> tenacity.Retrying:
    """A ``tenacity.Retrying`` that retries a function returning an Outcome as ``policy`` does.

    Use it to hand a lesson-designed policy to code built on tenacity. Calling
    the result with ``send`` returns the last Outcome, exactly the
    ``outcome`` of ``policy.run(send, method, rng, ..., idempotency_key=...)``:
    the same rule, ``max(backoff draw, Retry-After)`` as the wait, the draw
    taken lazily and never on the last attempt, the attempt limit,
    ``max_retry_after`` and the time budget (``clock()`` in ms as in
    :meth:`RetryPolicy.run`; without it the budget counts the waits).
    ``sleep`` is tenacity's (seconds; ``None`` = tenacity's ``time.sleep``).
    ``retrying.statistics["stop_reason"]`` names why it stopped. The policy's
    limits hold in a ``retrying.copy(stop=...)`` too: the new ``stop`` is one
    more limit. :func:`to_tenacity_async` is the same for coroutines.

    >>> from retrylab.core.rng import Mulberry32
    >>> answers = iter([Outcome.http(503), Outcome.http(503), Outcome.success([1])])
    >>> slept = []
    >>> r = to_tenacity(RetryPolicy(), Mulberry32(20260114), sleep=slept.append)
    >>> r(lambda: next(answers)).label(), [round(s * 1000) for s in slept]
    ('success', [70, 184])
    >>> r.statistics["stop_reason"], r.statistics["attempt_number"]
    ('success', 3)
    """
    kwargs = _strategies(policy, rng, method, idempotency_key, clock)
    if sleep is not None:
        kwargs["sleep"] = sleep
    return tenacity.Retrying(**kwargs)


def to_tenacity_async(
    policy: RetryPolicy,
    rng: Random | None,
    method: str = "GET",
    idempotency_key: bool = False,
    sleep: Callable[[float], Awaitable[Any]] | None = None,
    *,
    clock: Clock | None = None,
) -> tenacity.AsyncRetrying:
    """:func:`to_tenacity` for a coroutine function: a ``tenacity.AsyncRetrying``.

    ``sleep`` is awaited with seconds (``None`` = ``asyncio.sleep``); the
    decisions, waits and draws are those of :meth:`RetryPolicy.run_async`.

    >>> import asyncio
    >>> from retrylab.core.rng import Mulberry32
    >>> answers = iter([Outcome.http(503), Outcome.http(503), Outcome.success([1])])
    >>> slept = []
    >>> async def nap(s): slept.append(round(s * 1000))
    >>> async def send(): return next(answers)
    >>> r = to_tenacity_async(RetryPolicy(), Mulberry32(20260114), sleep=nap)
    >>> asyncio.run(r(send)).label(), slept
    ('success', [70, 184])
    """
    kwargs = _strategies(policy, rng, method, idempotency_key, clock)
    if sleep is not None:
        kwargs["sleep"] = sleep
    return tenacity.AsyncRetrying(**kwargs)


class PolicyRetry(Retry):
    """A ``urllib3.util.Retry`` built from a :class:`RetryPolicy` by :func:`to_urllib3`.

    It keeps urllib3's own counting, backoff formula and Retry-After handling
    (so it behaves as the ``Retry`` a team would write by hand) and changes two
    things: :meth:`is_retry` asks the policy's rule, and :meth:`sleep` calls an
    injectable ``sleeper`` (seconds; default: urllib3's own sleep) with urllib3's own
    amounts. It works with every urllib3 the bridge extra allows (2.0 and newer):
    ``retry_after_max`` (seconds), which urllib3 itself takes from 2.7 on, is
    applied by PolicyRetry on older versions.

    Who decides (``decide_with``): ``"policy"``, the policy's rule (what
    :func:`to_urllib3` builds); ``"urllib3"``, urllib3's own ``status_forcelist``
    and ``allowed_methods``. Left ``None`` it is ``"urllib3"`` when those are
    given without a policy (``PolicyRetry(status_forcelist=[503])`` does what
    ``Retry(status_forcelist=[503])`` does), else ``"policy"`` (with no policy,
    the safe default ``RetryPolicy(rule=production_rule)``). A policy together
    with either argument is refused: one of them would be ignored.

    >>> PolicyRetry(status_forcelist=[418]).is_retry("GET", 418)
    True
    >>> PolicyRetry().is_retry("GET", 418), PolicyRetry().is_retry("GET", 503)
    (False, True)
    >>> PolicyRetry(policy=RetryPolicy(), status_forcelist=[418])
    Traceback (most recent call last):
    ...
    ValueError: status_forcelist=[418] is out of range: with policy=..., the policy's
    rule decides which answers are retried, so status_forcelist would be ignored; ...

    Checked against the installed urllib3 (``urllib3.__version__``):

    ==================  ==============================  ==============================
    what                RetryPolicy.run                 PolicyRetry (urllib3 2.x)
    ==================  ==============================  ==============================
    attempt limit       ``max_attempts``                ``total = max_attempts - 1``;
                                                        redirects count against it
    status decision     the rule, for every method      the rule (stock urllib3: only
                                                        ``allowed_methods`` and
                                                        ``status_forcelist``)
    network decision    the rule; ``sent`` tells        connect errors retried for any
                        whether the request left        method; read errors only for
                                                        ``allowed_methods`` (probed
                                                        from the rule); other errors
                                                        for any method
    first retry wait    a backoff draw (70 ms in the    0: urllib3 never sleeps before
                        lesson)                         its first retry
    later waits         full jitter under               ``backoff_factor * 2 ** n`` s
                        ``min(cap, base * factor**n)``  before retry n >= 1 (n as in
                                                        notebook 00; urllib3 counts
                                                        failures, n + 1): the ceiling
                                                        itself; exact only for factor 2
    jitter              drawn from ``rng``, one draw    ``backoff_jitter`` (2.x only;
                        per wait, lazily                1.26 has none) *adds*
                                                        ``random.random() * j`` s from
                                                        the global ``random``;
                                                        ``to_urllib3`` leaves it 0
    Retry-After         ``max(draw, Retry-After)``      Retry-After *replaces* the
                                                        backoff (and is never below 0)
    long Retry-After    over ``max_retry_after``:       clamped to ``retry_after_max``
                        give up, tell the user          and waited
    time budget         ``time_budget`` ms              none: urllib3 has no clock
    idempotency key     per request                     fixed when built
                                                        (``idempotency_key=``)
    cancellation        never retried                   not a urllib3 notion
    ==================  ==============================  ==============================
    """

    def __init__(
        self,
        *args: Any,
        policy: RetryPolicy | None = None,
        idempotency_key: bool = False,
        sleeper: Callable[[float], Any] | None = None,
        decide_with: Literal["policy", "urllib3"] | None = None,
        **kwargs: Any,
    ) -> None:
        native = _native_retry_after_max()
        own_max = None if native else kwargs.pop("retry_after_max", None)
        given = inspect.signature(Retry.__init__).bind_partial(self, *args, **kwargs).arguments
        explicit = [name for name in DECISION_ARGUMENTS if name in given]
        if decide_with is None:
            if policy is not None and explicit:
                name = explicit[0]
                raise ValueError(
                    f"{name}={given[name]!r} is out of range: with policy=..., the policy's "
                    f"rule decides which answers are retried, so {name} would be ignored; "
                    "give the policy (to_urllib3(policy) sets urllib3's arguments from it) "
                    "or urllib3's arguments, not both"
                )
            decide_with = "urllib3" if explicit else "policy"
        elif decide_with not in ("policy", "urllib3"):
            raise ValueError(
                f"decide_with={decide_with!r} is out of range: decide_with must "
                "be 'policy', 'urllib3' or None"
            )
        super().__init__(*args, **kwargs)
        if not native:
            #: Retry-After above this many seconds is clamped to it (urllib3 < 2.7 has
            #: no such setting; None: no clamp, as there).
            # __dict__: urllib3 >= 2.7 declares it an int, and this is the < 2.7 path
            self.__dict__["retry_after_max"] = None if own_max is None else float(own_max)
        #: Who decides which answers are retried: "policy" (its rule) or "urllib3"
        #: (``status_forcelist`` and ``allowed_methods``, as stock urllib3).
        self.decide_with: Literal["policy", "urllib3"] = decide_with
        #: The policy whose rule decides (default: ``RetryPolicy(rule=production_rule)``;
        #: a policy without a rule gets production_rule too, as in :func:`to_urllib3`).
        self.policy = _production(RetryPolicy() if policy is None else _check_policy(policy))
        self.idempotency_key = check_bool("idempotency_key", idempotency_key)
        #: Called with the seconds of each retry's wait; ``None``: urllib3's own
        #: sleeping, through ``time.sleep`` looked up when it sleeps (so
        #: ``mock.patch("time.sleep")`` reaches it, as in urllib3's own tests).
        self.sleeper: Callable[[float], Any] | None = sleeper

    def new(self, **kw: Any) -> PolicyRetry:
        """A copy with counters changed (urllib3 calls it on every ``increment``)."""
        kw.setdefault("policy", self.policy)
        kw.setdefault("idempotency_key", self.idempotency_key)
        kw.setdefault("sleeper", self.sleeper)
        kw.setdefault("decide_with", self.decide_with)
        if not _native_retry_after_max():
            kw.setdefault("retry_after_max", self.retry_after_max)
        made: PolicyRetry = super().new(**kw)
        return made

    def parse_retry_after(self, retry_after: str) -> float:
        """urllib3's parsing, clamped to ``retry_after_max`` on every urllib3 version."""
        seconds: float = super().parse_retry_after(retry_after)
        limit: float | None = self.retry_after_max
        return seconds if limit is None else min(seconds, limit)

    def is_retry(self, method: str, status_code: int, has_retry_after: bool = False) -> bool:
        """Ask the policy's rule about an HTTP error (any method it allows).

        ``has_retry_after`` reaches the rule as a Retry-After (its value does not
        matter to a decision), so a keyed 409 with Retry-After is retried. With
        ``decide_with="urllib3"`` this is urllib3's own ``Retry.is_retry``.
        """
        if self.decide_with == "urllib3":
            return bool(super().is_retry(method, status_code, has_retry_after))
        if not 400 <= status_code <= 599:
            return False
        outcome = Outcome.http(status_code, retry_after=0 if has_retry_after else None)
        return self.policy.decide(outcome, method, self.idempotency_key).retry

    def sleep(self, response: Any = None) -> None:
        """urllib3's own sleep (Retry-After if given, else its backoff), via ``sleeper``.

        ``sleeper`` is called once per retry, with 0.0 where urllib3 would not
        sleep at all (its first retry), so a recording shows every retry.
        Without a sleeper this is urllib3's own ``Retry.sleep``.
        """
        if self.sleeper is None:
            super().sleep(response)
            return
        if self.respect_retry_after_header and response:
            seconds = self.get_retry_after(response)
            if seconds:
                self.sleeper(seconds)
                return
        self.sleeper(max(0.0, self.get_backoff_time()))


#: Where urllib3 differs from :meth:`RetryPolicy.run` (the :class:`PolicyRetry` table):
#: (what, the policy, urllib3 through PolicyRetry).
URLLIB3_DIFFERENCES: tuple[tuple[str, str, str], ...] = (
    (N_("attempt limit"), "max_attempts", N_("total = max_attempts - 1; redirects count too")),
    (
        N_("status decision"),
        N_("the rule, for every method"),
        N_("the rule (stock urllib3: allowed_methods and status_forcelist)"),
    ),
    (
        N_("network decision"),
        N_("the rule; sent says if the request left"),
        N_("connect errors for any method; read errors for allowed_methods only"),
    ),
    (
        N_("first retry wait"),
        N_("a backoff draw"),
        N_("0: urllib3 never sleeps before its first retry"),
    ),
    (
        N_("later waits"),
        N_("full jitter under min(cap, base * factor**n)"),
        N_("backoff_factor * 2**n s before retry n >= 1, the ceiling; exact only for factor 2"),
    ),
    (
        N_("jitter"),
        N_("drawn from rng, one draw per wait"),
        N_("backoff_jitter (2.x only) adds random.random() * j s from the global random; left 0"),
    ),
    (N_("Retry-After"), "max(draw, Retry-After)", N_("Retry-After replaces the backoff")),
    (
        N_("long Retry-After"),
        N_("over max_retry_after: give up"),
        N_("clamped to retry_after_max, waited"),
    ),
    (N_("time budget"), N_("time_budget ms"), N_("none: urllib3 has no clock")),
    (N_("idempotency key"), N_("per request"), N_("fixed when built (idempotency_key=)")),
)


def urllib3_differences() -> pd.DataFrame:
    """:data:`URLLIB3_DIFFERENCES` as a table, one row per behaviour, in the current language.

    >>> urllib3_differences().loc["first retry wait", "urllib3"]
    '0: urllib3 never sleeps before its first retry'
    """
    rows = [tuple(_(text) for text in row) for row in URLLIB3_DIFFERENCES]
    what = pgettext("column", "what")
    return pd.DataFrame(rows, columns=[what, "RetryPolicy.run", "urllib3"]).set_index(what)


#: urllib3's own ``test/test_retry.py`` run with ``Retry`` replaced by
#: :class:`PolicyRetry`: the tests that fail, and why (what PolicyRetry does instead).
URLLIB3_TEST_DIFFERENCES: dict[str, str] = {
    "test_string": "the repr names the class, PolicyRetry(total=10, ...), not Retry(...)",
}


def urllib3_test_differences() -> Mapping[str, str]:
    """urllib3's own Retry tests that :class:`PolicyRetry` fails, test name -> reason.

    The test suite runs urllib3's ``test/test_retry.py`` (from the sdist of the
    installed version) with ``Retry`` replaced by ``PolicyRetry`` and uses this
    as its list of expected failures: every other test must pass, and every
    test named here must fail. A name without ``[...]`` covers every
    parametrization of that test.

    >>> all(name.startswith("test_") for name in urllib3_test_differences())
    True
    """
    return dict(URLLIB3_TEST_DIFFERENCES)


def allowed_methods(policy: RetryPolicy, idempotency_key: bool = False) -> frozenset[str] | None:
    """The methods ``policy`` retries after a network error that may have reached the server.

    urllib3 gates read errors with this set; ``None`` means every method.

    >>> sorted(allowed_methods(RetryPolicy()))
    ['GET', 'HEAD', 'OPTIONS']
    """
    probe = Outcome.network(sent=True)
    methods = frozenset(m for m in PROBE_METHODS if policy.decide(probe, m, idempotency_key).retry)
    return None if methods == frozenset(PROBE_METHODS) else methods


def _production(policy: RetryPolicy) -> RetryPolicy:
    """``policy`` with production_rule if it has no rule of its own (the adapters' default)."""
    return policy if policy.rule is not None else policy.with_(rule=production_rule)


def to_urllib3(
    policy: RetryPolicy,
    *,
    idempotency_key: bool = False,
    sleeper: Callable[[float], Any] | None = None,
) -> PolicyRetry:
    """A urllib3 ``Retry`` that follows ``policy`` as far as urllib3 allows.

    Use it as ``urllib3.PoolManager(retries=to_urllib3(policy))``. The settings:
    ``total = max_attempts - 1``; ``backoff_factor = base * factor / 2000`` s,
    so urllib3's retry ``n >= 2`` sleeps the policy's ceiling ``n - 1`` (the
    first retry sleeps 0 in urllib3); ``backoff_max = cap``; ``allowed_methods``
    from :func:`allowed_methods`; ``retry_after_max = max_retry_after``; the last
    error answer is returned rather than raised. :class:`PolicyRetry` tabulates
    every difference.

    A policy without a rule (``rule=None``) gets
    :func:`~retrylab.core.production.production_rule`: this is the adapter a
    team copies into production, where the lesson's rule would retry a keyless
    POST after a 500. Ask for the lesson's rule by name, ``rule=decide``.

    >>> r = to_urllib3(RetryPolicy())
    >>> r.total, r.backoff_factor, r.backoff_max, sorted(r.allowed_methods)
    (3, 0.2, 5.0, ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PUT', 'TRACE'])
    >>> r.is_retry("GET", 503), r.is_retry("POST", 500), r.is_retry("GET", 404)
    (True, False, False)
    >>> to_urllib3(RetryPolicy(max_retry_after=500)).retry_after_max
    0.5
    """
    policy = _production(_check_policy(policy))
    idempotency_key = check_bool("idempotency_key", idempotency_key)
    b = policy.backoff
    first = b.ceiling(1)  # urllib3's second retry sleeps backoff_factor * 2
    kwargs: dict[str, Any] = {}
    if policy.max_retry_after is not None:
        kwargs["retry_after_max"] = policy.max_retry_after / 1000  # not rounded to 0
    return PolicyRetry(
        decide_with="policy",
        total=policy.max_attempts - 1,
        connect=None,
        read=None,
        status=None,
        other=None,
        allowed_methods=allowed_methods(policy, idempotency_key),
        status_forcelist=sorted(
            s for s in range(400, 600) if policy.decide(Outcome.http(s), "GET").retry
        ),
        backoff_factor=first / 2000,
        backoff_max=(86_400.0 if b.cap is None else b.cap / 1000),
        raise_on_status=False,
        respect_retry_after_header=True,
        policy=policy,
        idempotency_key=idempotency_key,
        sleeper=sleeper,
        **kwargs,
    )


__all__ = [
    "DECISION_ARGUMENTS",
    "PROBE_METHODS",
    "URLLIB3_DIFFERENCES",
    "URLLIB3_TEST_DIFFERENCES",
    "PolicyRetry",
    "RetryTransport",
    "allowed_methods",
    "to_tenacity",
    "to_tenacity_async",
    "to_urllib3",
    "urllib3_differences",
    "urllib3_test_differences",
]
