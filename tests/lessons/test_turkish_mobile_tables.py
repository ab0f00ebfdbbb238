"""The tables and lines of notebooks 05, 05b, 07 and A1 read Turkish in Turkish.

Each table-building function is rendered in Turkish and its text checked with
the word list of tools/english_words.py (loaded by tests/notebooks/test_turkish_runtime.py);
in English the same call keeps its English keys, which the doctests and the
English editions' outputs rely on.
"""

from __future__ import annotations

import pandas as pd
import pytest
from _tools import load_tool

from retrylab import Backoff, Outcome, RetryPolicy
from retrylab.i18n import language
from retrylab.lessons import mobile_code as mobile
from retrylab.lessons import mobile_mistakes as mobilesim
from retrylab.lessons.audit import audit_table, audit_verdicts

english = load_tool("english_words")  # as tests/notebooks/test_turkish_runtime.py

POLICIES = {
    "A": RetryPolicy(1000, Backoff(2000, growth="constant")),
    "B": RetryPolicy.background(),
}


def _english_in(table: pd.DataFrame | pd.Series) -> list[str]:
    return english.english_words(table.to_string())


@pytest.mark.parametrize(
    "make",
    [
        lambda: mobilesim.outage_table(POLICIES, outage_ms=60_000),
        lambda: mobilesim.jitter_spread(clients=200),
        mobilesim.lifecycle_loops,
        lambda: mobilesim.flaky_batch(50).summary(),
        lambda: audit_table(RetryPolicy(50, Backoff(200, 2, None)), method="POST"),
        lambda: audit_table(RetryPolicy.user_triggered(), user_facing=True),
        lambda: audit_table(RetryPolicy(4, Backoff(1000, growth="linear"), time_budget=60_000)),
        lambda: audit_verdicts(RetryPolicy(max_attempts=50)),
        lambda: mobile.runs_table(
            {
                "A": mobile.kotlin_run([Outcome.http(503), Outcome.success()]),
                "B": mobile.combine_run([Outcome.http(404)]),
            }
        ),
    ],
    ids=[
        "outage_table",
        "jitter_spread",
        "lifecycle_loops",
        "metrics_summary",
        "audit_table_fails",
        "audit_table_user",
        "audit_table_linear",
        "audit_verdicts",
        "runs_table",
    ],
)
def test_a_table_reads_turkish_in_turkish(make) -> None:
    with language("tr"):
        table = make()
    assert _english_in(table) == [], table.to_string()


def test_the_classification_table_reads_turkish_but_for_its_reasons() -> None:
    """Headers, failures and yes/no are this table's; its "why" column is ``decide``'s
    reasons, translated where ``decide`` writes them."""
    with language("tr"):
        table = mobile.classification_table()
    assert _english_in(table.iloc[:, :3]) == []
    assert table.loc["429"].tolist()[:3] == ["hayır", "evet", "evet"]
    assert "zaman aşımı (SocketTimeoutException)" in table.index


def test_in_english_the_tables_keep_the_keys_code_uses() -> None:
    assert list(audit_table(RetryPolicy())) == ["verdict", "why"]
    assert audit_verdicts(RetryPolicy(max_attempts=50)).to_dict() == {"pass": 5, "FAIL": 3}
    assert list(mobilesim.outage_table(POLICIES, outage_ms=60_000))[-1] == (
        "req/s from 10,000 phones"
    )
    assert mobilesim.lifecycle_loops().columns.tolist() == ["what it is"]


@pytest.mark.parametrize(
    "backoff",
    [
        Backoff(200, 2, 5000, jitter="full"),
        Backoff(200, 2, None),
        Backoff(1000, growth="linear", cap=None, jitter="proportional"),
        Backoff(2000, growth="constant", jitter="equal"),
        Backoff(100, 3, 900, jitter="decorrelated"),
    ],
)
def test_a_backoff_describes_itself_in_turkish(backoff: Backoff) -> None:
    english_text = backoff.describe()
    with language("tr"):
        text = backoff.describe()
    assert english.english_words(text) == [], text
    assert text != english_text
    assert "none jitter" not in text and "sarsıntı sarsıntı" not in text


def test_turkish_writes_the_fleet_with_a_thousands_dot() -> None:
    with language("tr"):
        table = mobilesim.outage_table(POLICIES, outage_ms=60_000)
    assert table.columns[-1] == "10.000 telefondan istek/s"


def test_the_lifecycle_table_names_the_outcome_in_turkish() -> None:
    """05b, exercise 3: "the caller saw" gives the outcome's kind in Turkish ("ağ"); the
    stop reason (``max_attempts``) and the exceptions stay as code prints them."""
    from retrylab.lessons.tables import localized

    with language("tr"):
        table = localized(mobilesim.lifecycle_table())
    saw = table.iloc[:, -1]
    assert saw["policy_detached"].startswith("ağ (max_attempts): vazgeçildi"), saw.to_string()
    assert _english_in(table) == [], table.to_string()
    english_saw = mobilesim.lifecycle_table()["the caller saw"]
    assert english_saw["policy_detached"].startswith("network (max_attempts): gave up")
