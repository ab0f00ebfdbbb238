"""The lessons' printed outputs, rebuilt from the package, to the character.

``../shared/seeds/000_*.txt`` runs three JavaScript programs and prints their
output. Each function here computes the same thing with retrylab and formats
it the lesson's way, so a test (and a notebook) can compare byte for byte.
``lang="tr"`` gives the lesson's Turkish text exactly; ``lang="en"`` the same
layout in English, as the notebooks show it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import pandas as pd

from ..core._check import check_choice
from ..core.backoff import Backoff
from ..core.breaker import CircuitBreaker, State, TraceRow, replay
from ..core.constants import BASE, BREAKER_EVENTS, CAP, FACTOR, RETRY_SCENARIOS, SEED
from ..core.policy import RetryResult
from ..core.rng import Mulberry32
from ..sim.herd import bucket_counts, histogram_lines, wakeups

Lang = Literal["en", "tr"]
_TR_STATE = {State.CLOSED: "kapali", State.OPEN: "acik", State.HALF_OPEN: "yariAcik"}
_TR_KIND = {"success": "basari", "network": "ag", "body": "govde", "cancelled": "iptal"}


def backoff_table(seed: int = SEED) -> pd.DataFrame:
    """The lesson's six-row table of waits, as a DataFrame.

    Full and decorrelated jitter share one generator and draw in turn, row by
    row, exactly as the JavaScript does. The index is retry n, counted from 0 as
    notebook 00 and the formula count it: retry n is the wait before attempt
    n + 2 (attempt 1 being the first send). The lesson's printout (its ``deneme``
    column, :func:`backoff_table_text`) numbers the same rows from 1.

    >>> backoff_table()["decorrelated"].tolist()
    [384, 1034, 2121, 1933, 3986, 5000]
    """
    rng = Mulberry32(seed)
    full = Backoff(BASE, FACTOR, CAP, jitter="full").waits(rng)
    deco = Backoff(BASE, FACTOR, CAP, jitter="decorrelated").waits(rng)
    uncapped = Backoff(BASE, FACTOR, None)
    capped = Backoff(BASE, FACTOR, CAP)
    rows = [
        (n, BASE, uncapped.ceiling(n), capped.ceiling(n), next(full), next(deco)) for n in range(6)
    ]
    return pd.DataFrame(
        rows, columns=["retry", "fixed", "exponential", "capped", "full jitter", "decorrelated"]
    ).set_index("retry")


def backoff_table_text(lang: Lang = "tr", seed: int = SEED) -> str:
    """The table exactly as ``geri-cekilme.mjs`` prints it."""
    check_choice("lang", lang, ("en", "tr"))
    head = (
        "deneme  sabit   üstel   üstel+tavan  tam sarsıntı  ilişkisiz"
        if lang == "tr"
        else "row     fixed   exp     exp+cap      full jitter   decorrelated"
    )
    lines = [head]
    for number, (_retry, row) in enumerate(backoff_table(seed).iterrows(), 1):
        v = [int(x) for x in row]
        lines.append(f"{number:<8}{v[0]:<8}{v[1]:<8}{v[2]:<13}{v[3]:<14}{v[4]}")
    return "\n".join(lines)


def herd_counts(
    seed: int = SEED, clients: int = 24, attempt: int = 3, width: int = 200
) -> tuple[pd.Series, pd.Series]:
    """The two 24-client histograms: (without jitter, with full jitter).

    >>> plain, jittered = herd_counts()
    >>> plain.to_dict(), jittered.to_dict()
    ({800: 24}, {0: 6, 200: 5, 400: 7, 600: 6})
    """
    plain = wakeups(Backoff(BASE, FACTOR, CAP, jitter="none"), clients, attempt)
    jittered = wakeups(
        Backoff(BASE, FACTOR, CAP, jitter="full"), clients, attempt, Mulberry32(seed)
    )
    return bucket_counts(plain, width), bucket_counts(jittered, width)


def herd_text(lang: Lang = "tr", seed: int = SEED) -> str:
    """Both histograms exactly as the lesson prints them (with its blank line)."""
    check_choice("lang", lang, ("en", "tr"))
    plain, jittered = herd_counts(seed)
    if lang == "tr":
        titles = ("sarsıntısız (24 istemci, 3. deneme):", "sarsıntılı  (24 istemci, 3. deneme):")
    else:
        titles = (
            "no jitter   (24 clients, retry n = 2):",
            "full jitter (24 clients, retry n = 2):",
        )
    lines = ["", titles[0]] + ["  " + s for s in histogram_lines(plain)]
    lines += [titles[1]] + ["  " + s for s in histogram_lines(jittered)]
    return "\n".join(lines)


#: The retry-loop lesson's four scenarios: label (tr, en), method, path, max attempts.


def retry_line(name: str, result: RetryResult, lang: Lang = "tr") -> str:
    """One line of ``yeniden-deneme.mjs``'s output for one scenario."""
    check_choice("lang", lang, ("en", "tr"))
    kind = result.outcome.kind
    label = (
        f"http/{result.outcome.status}"
        if kind == "http"
        else _TR_KIND[kind]
        if lang == "tr"
        else kind
    )
    waits = ", ".join(str(w) for w in result.waits)
    words = ("deneme", "sonuç", "beklemeler") if lang == "tr" else ("attempts", "outcome", "waits")
    return " ".join(
        [
            name.ljust(24),
            f"{words[0]}={result.attempts}".ljust(10),
            f"{words[1]}={label}".ljust(16),
            f"{words[2]}=[{waits}]",
        ]
    )


def retry_loop_text(results: Sequence[RetryResult], requests: int, lang: Lang = "tr") -> str:
    """The whole output of the retry-loop lesson from its four results.

    ``requests`` is how many measurement requests reached the server (the
    lesson's "sunucuya ulaşan ölçüm isteği": requests that *reached* it, answered
    with 503 or with data alike, not requests it served).
    """
    check_choice("lang", lang, ("en", "tr"))
    names = [s[0] if lang == "tr" else s[1] for s in RETRY_SCENARIOS]
    lines = [retry_line(n, r, lang) for n, r in zip(names, results, strict=False)]
    every = ", ".join(str(w) for r in results for w in r.waits)
    if lang == "tr":
        lines += [
            f"sunucuya ulaşan ölçüm isteği: {requests}",
            f"kaydedilen tüm beklemeler   : {every}",
        ]
    else:
        lines += [
            f"measurement requests that reached the server: {requests}",
            f"all recorded waits                          : {every}",
        ]
    return "\n".join(lines)


def breaker_trace(
    threshold: int = 3, cooldown: int = 5000, events: Sequence[tuple[int, bool]] = BREAKER_EVENTS
) -> list[TraceRow]:
    """The breaker lesson's nine events replayed on a fresh breaker.

    The lesson's breaker lets every call through while half-open; one trial
    at a time gives the same trace here because the events are sequential.
    """
    return replay(events, CircuitBreaker(threshold, cooldown))


def breaker_frame(rows: Sequence[TraceRow]) -> pd.DataFrame:
    """A trace as a table: time, allowed, state before, result, state after."""
    return pd.DataFrame(
        {
            "time_ms": [r.now for r in rows],
            "allowed": ["yes" if r.allowed else "no" for r in rows],
            "state_before": [r.state_before.value for r in rows],
            "result": [
                "not sent" if r.success is None else "success" if r.success else "failure"
                for r in rows
            ],
            "state_after": [r.state_after.value for r in rows],
        }
    )


def breaker_text(lang: Lang = "tr", rows: Sequence[TraceRow] | None = None) -> str:
    """The trace exactly as ``devre-kesici.mjs`` prints it."""
    check_choice("lang", lang, ("en", "tr"))
    rows = breaker_trace() if rows is None else rows
    tr = lang == "tr"

    def st(s: State) -> str:
        return _TR_STATE[s] if tr else s.value

    head = (
        "saat    izin   önceki durum  sonuç      yeni durum"
        if tr
        else "time    sent   state before  result     state after"
    )
    lines = [head]
    for r in rows:
        yes, no = ("evet   ", "hayır  ") if tr else ("yes    ", "no     ")
        if r.success is None:
            res = "gönderilmedi" if tr else "not sent"
        elif r.success:
            res = "başarılı" if tr else "success"
        else:
            res = "başarısız" if tr else "failure"
        lines.append(
            f"{r.now:<8}{yes if r.allowed else no}{st(r.state_before):<14}"
            f"{res:<13}{st(r.state_after)}"
        )
    sent = sum(r.allowed for r in rows)
    blocked = len(rows) - sent
    lines.append(
        f"gönderilen: {sent}  engellenen: {blocked}" if tr else f"sent: {sent}  blocked: {blocked}"
    )
    return "\n".join(lines)
