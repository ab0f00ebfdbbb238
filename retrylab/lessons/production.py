"""From the lesson to production, measured on the live lab.

- :func:`duplicate_experiment`: keyless POSTs while the server stores each write
  and then answers 500 (the ``fail_after`` fault): the lesson's rule retries
  the 500 and stores duplicates, :func:`~retrylab.core.production.production_rule`
  does not;
- :func:`library_scenarios`: the retry-loop lesson's four scenarios through
  tenacity, the httpx :class:`~retrylab.lab.transport.RetryTransport` or urllib3;
- :func:`compare_libraries`: one policy run through the three libraries side by
  side, with where each differs from the lesson and why.

These need the bridge extra (``pip install "retrylab[bridge]"``); it is
imported when a function runs, so importing this module never needs it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import pandas as pd

from ..core._check import check_choice, check_int, check_number
from ..core.backoff import Random
from ..core.constants import RETRY_SCENARIOS, SEED
from ..core.outcome import Outcome, decide
from ..core.policy import RetryPolicy
from ..core.production import production_rule
from ..core.rng import Mulberry32
from ..i18n import N_, _, pgettext
from ..lab.server import LabServer

RULES: tuple[str, ...] = ("lesson", "production")
LIBRARIES: tuple[str, ...] = ("policy", "tenacity", "httpx", "urllib3")


@dataclass(frozen=True)
class DuplicateReport:
    """What :func:`duplicate_experiment` counted: ``duplicates`` are stored records
    beyond the first of each write (the server's truth, found through ``ref``)."""

    rule: str
    writes: int
    sent: int
    stored: int
    duplicates: int
    acknowledged: int

    def series(self) -> pd.Series:
        """The counts as one labelled column (``writes``, ``sent``, ``stored``,
        ``duplicates``, ``acknowledged``; named by the rule), in the current language."""
        data = {_(_REPORT_LABELS[k]): v for k, v in asdict(self).items() if k != "rule"}
        return pd.Series(data, name=_(_REPORT_LABELS.get(self.rule, self.rule)), dtype="int64")


#: :meth:`DuplicateReport.series`' labels (English as the fields are named).
_REPORT_LABELS: dict[str, str] = {
    "writes": N_("writes"),
    "sent": N_("sent"),
    "stored": N_("stored"),
    "duplicates": N_("duplicates"),
    "acknowledged": N_("acknowledged"),
    "lesson": N_("lesson"),
    "production": N_("production"),
}


def duplicate_experiment(
    writes: int = 500,
    fail_rate: float = 0.2,
    rule: str = "lesson",
    seed: int = SEED,
    *,
    lab: LabServer | None = None,
    max_attempts: int = 4,
) -> DuplicateReport:
    """POST ``writes`` measurements without idempotency keys while the server
    stores each one and then answers 500 at a seeded rate ``fail_rate``.

    ``rule``: ``"lesson"`` (429 and 5xx always retried: every 500 becomes a
    duplicate) or ``"production"`` (:func:`production_rule`: a keyless POST is
    not retried after a 500). The requests go through the httpx
    :class:`~retrylab.lab.transport.RetryTransport` without sleeping, so a run
    is reproducible and takes well under a second.

    >>> duplicate_experiment(100, rule="production", seed=1).duplicates
    0
    """
    import httpx

    from ..lab.transport import RetryTransport

    n = check_int("writes", writes, low=1, high=100_000)
    rate = check_number("fail_rate", fail_rate, low=0, high=1)
    check_choice("rule", rule, RULES)
    seed = check_int("seed", seed, low=0, high=2**63 - 1)
    if lab is None:
        with LabServer("store", seed=seed) as own:
            return duplicate_experiment(n, rate, rule, seed, lab=own, max_attempts=max_attempts)
    if lab.mode != "store":
        raise ValueError(
            f"lab.mode={lab.mode!r} is out of range: duplicate_experiment "
            "needs a LabServer('store')"
        )
    policy = RetryPolicy(
        max_attempts=max_attempts, rule=production_rule if rule == "production" else decide
    )
    lab.script("POST", "/measurements", fault_rate=rate, fault="fail_after", seed=seed)
    first_record, first_request = lab.record_count, lab.requests
    tag = f"d{seed}-{rule}-"
    transport = RetryTransport(policy, Mulberry32(seed), sleep=lambda ms: None, clock=None)
    acknowledged = 0
    with httpx.Client(transport=transport, base_url=lab.url) as client:
        for i in range(n):
            response = client.post("/measurements", json={"value": -4.2, "ref": f"{tag}{i}"})
            acknowledged += response.is_success
    records = lab.records.iloc[first_record:]
    ours = records[records["ref"].astype(str).str.startswith(tag)]
    return DuplicateReport(
        rule=rule,
        writes=n,
        sent=lab.requests - first_request,
        stored=len(ours),
        duplicates=len(ours) - int(ours["ref"].nunique()),
        acknowledged=acknowledged,
    )


@dataclass(frozen=True)
class LibraryRun:
    """One scenario through one library: attempts the server saw, the waits in ms
    (one per retry; urllib3 records 0 where it does not sleep), the last status."""

    name: str
    attempts: int
    waits: list[int]
    status: int


def _run_one(
    library: str,
    policy: RetryPolicy,
    lab: LabServer,
    method: str,
    path: str,
    rng: Random,
    key: bool = False,
) -> LibraryRun:
    """Send ``method path`` to ``lab`` once through ``library`` with ``policy``."""
    import httpx
    import urllib3

    from ..lab.bridge import to_tenacity, to_urllib3
    from ..lab.transport import RetryTransport, outcome_sender

    url = lab.url + path
    headers = {"Idempotency-Key": f"k-{lab.requests}"} if key else {}
    before = lab.requests
    waits: list[int] = []
    status = 0
    if library in ("policy", "tenacity"):
        with httpx.Client() as client:
            send = outcome_sender(client, method, url, headers=headers)
            if library == "policy":
                outcome = policy.run(send, method, rng, waits.append, idempotency_key=key).outcome
            else:
                retrying = to_tenacity(
                    policy, rng, method, key, sleep=lambda s: waits.append(round(s * 1000))
                )
                outcome = retrying(send)
        status = outcome.status or (200 if outcome.ok else 0)
    elif library == "httpx":
        transport = RetryTransport(policy, rng, sleep=waits.append, clock=None)
        with httpx.Client(transport=transport) as client:
            status = client.request(method, url, headers=headers).status_code
    else:
        retry = to_urllib3(
            policy, idempotency_key=key, sleeper=lambda s: waits.append(round(s * 1000))
        )
        with urllib3.PoolManager(retries=retry) as pool:
            status = pool.request(method, url, headers=headers).status
    return LibraryRun(f"{method} {path}", lab.requests - before, waits, status)


def library_scenarios(
    library: str, lab: LabServer, rng: Random | None = None
) -> tuple[list[LibraryRun], int]:
    """The retry-loop lesson's four scenarios through ``library``, over real sockets.

    ``library`` is one of :data:`LIBRARIES`; one generator (default
    ``Mulberry32(20260114)``) is shared by the four runs, as in the lesson, and
    no run really sleeps. Returns the runs and the server's measurement request
    count. ``lab`` must be fresh, in ``"lesson"`` mode.

    >>> with LabServer() as lab:
    ...     runs, requests = library_scenarios("httpx", lab)
    >>> [r.waits for r in runs], requests
    ([[70, 184], [], [2000, 2000], []], 3)
    """
    check_choice("library", library, LIBRARIES)
    if lab.mode != "lesson" or lab.measurement_requests:
        raise ValueError(
            f"lab={lab!r} is out of range: library_scenarios needs a fresh "
            "LabServer() in mode 'lesson'"
        )
    rng = Mulberry32(SEED) if rng is None else rng
    runs = [
        _run_one(library, RetryPolicy(max_attempts=attempts, rule=decide), lab, method, path, rng)
        for _name, _text, method, path, attempts in RETRY_SCENARIOS
    ]
    return runs, lab.measurement_requests


_WHY = {
    "policy": N_("the lesson's loop itself"),
    "tenacity": N_("none: to_tenacity reproduces the loop draw for draw"),
    "httpx": N_("none: RetryTransport drives the policy's own loop"),
    "urllib3": N_(
        "first retry never sleeps; waits grow x2 with no jitter; Retry-After "
        "replaces the backoff; no time budget"
    ),
}


def compare_libraries(policy: RetryPolicy, seed: int = SEED, method: str = "POST") -> pd.DataFrame:
    """One policy through the lesson's loop, tenacity, httpx and urllib3, side by side.

    Each library meets the same three situations on a fresh lab: GET
    ``/measurements`` (503, 503, then 200), GET ``/report`` (429 with
    ``Retry-After: 2``, every time) and a keyless ``method`` answered 503 once.
    Columns: the waits of the first (ms), the first wait after the 429, the
    attempts and total wait of the 429 run, the time budget each enforces
    (urllib3 has none), whether the keyless request was retried, and where
    the library differs from the lesson and why. ``seed`` seeds each library's generator.
    Headers and the last column are in the current language (the keyless column's
    header always names ``method``, so ``.filter(like="POST")`` finds it).

    >>> compare_libraries(RetryPolicy(max_attempts=3))["retry-after wait"].tolist()
    [2000, 2000, 2000, 2000]
    """
    if not isinstance(policy, RetryPolicy):
        raise ValueError(f"policy={policy!r} is out of range: policy must be a RetryPolicy")
    rows: list[dict[str, Any]] = []
    for library in LIBRARIES:
        rng = Mulberry32(seed)
        with LabServer() as lab:
            first = _run_one(library, policy, lab, "GET", "/measurements", rng)
            lab.script(method, "/measurements", statuses=[503])
            keyless = _run_one(library, policy, lab, method, "/measurements", rng)
            limited = _run_one(library, policy, lab, "GET", "/report", rng)
        rows.append(
            {
                pgettext("column", "library"): library,
                pgettext("column", "503, 503, 200 waits"): first.waits,
                pgettext("column", "retry-after wait"): limited.waits[0] if limited.waits else None,
                pgettext("column", "429 attempts"): limited.attempts,
                pgettext("column", "429 waited"): sum(limited.waits),
                pgettext("column", "time budget"): (
                    None if library == "urllib3" else policy.time_budget
                ),
                _("keyless {method} 503 retried").format(method=method): keyless.attempts > 1,
                pgettext("column", "differs from the lesson"): _(_WHY[library]),
            }
        )
    return pd.DataFrame(rows).set_index(pgettext("column", "library"))


def decision_sources(methods: tuple[str, ...] = ("GET", "POST")) -> pd.DataFrame:
    """The lesson's rule and the production rule on the outcomes that tell them apart.

    >>> t = decision_sources()
    >>> t.loc[("POST", "http/500"), ["lesson", "production"]].tolist()
    [True, False]
    """
    outcomes = {
        "http/500": Outcome.http(500),
        "http/501": Outcome.http(501),
        "http/429": Outcome.http(429),
        _("network, sent=False"): Outcome.network(sent=False),
        _("network, sent=True"): Outcome.network(sent=True),
    }
    rows = []
    for m in methods:
        for name, o in outcomes.items():
            d = production_rule(o, m)
            rows.append((m, name, decide(o, m).retry, d.retry, d.reason))
    keys = [pgettext("column", "method"), pgettext("column", "outcome")]
    return pd.DataFrame(
        rows,
        columns=[
            *keys,
            pgettext("column", "lesson"),
            pgettext("column", "production"),
            pgettext("column", "why (production)"),
        ],
    ).set_index(keys)


__all__ = [
    "LIBRARIES",
    "RULES",
    "DuplicateReport",
    "LibraryRun",
    "compare_libraries",
    "decision_sources",
    "duplicate_experiment",
    "library_scenarios",
]
