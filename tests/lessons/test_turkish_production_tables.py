"""The tables and lines of notebooks 08 and 09 read Turkish in Turkish.

Rendered in Turkish and checked with tools/english_words.py's word list (loaded
by tests/notebooks/test_turkish_runtime.py); in English they keep the keys code uses.
"""

from __future__ import annotations

import pandas as pd
import pytest
from _tools import load_tool

from retrylab import Outcome, RetryPolicy, production_rule
from retrylab.core.ratebreaker import RateBreaker
from retrylab.i18n import language
from retrylab.lab.bridge import urllib3_differences
from retrylab.lessons.production import compare_libraries, decision_sources, duplicate_experiment
from retrylab.sim.metastable import metastable_fleet
from retrylab.sim.ratebreakers import compare_breakers

english = load_tool("english_words")  # as tests/notebooks/test_turkish_runtime.py


def _english_in(table: pd.DataFrame | pd.Series) -> list[str]:
    with pd.option_context("display.max_colwidth", None, "display.width", 10_000):
        return english.english_words(table.to_string())


@pytest.mark.parametrize(
    "make",
    [
        decision_sources,
        urllib3_differences,
        lambda: duplicate_experiment(40, rule="production").series(),
        lambda: compare_breakers(100),
    ],
    ids=["decision_sources", "urllib3_differences", "duplicate_series", "compare_breakers"],
)
def test_a_table_reads_turkish_in_turkish(make) -> None:
    with language("tr"):
        table = make()
    assert _english_in(table) == [], table.to_string()


def test_compare_libraries_reads_turkish_and_its_keyless_column_is_found_by_method() -> None:
    policy = RetryPolicy(max_attempts=3)
    with language("tr"):
        table = compare_libraries(policy)
        keyless = table.filter(like="POST")
    assert _english_in(table) == [], table.to_string()
    assert keyless.columns.tolist() == ["anahtarsız POST 503 yeniden denendi"]
    assert compare_libraries(policy).filter(like="POST").columns.tolist() == [
        "keyless POST 503 retried"
    ]


@pytest.mark.parametrize(
    ("outcome", "method", "key"),
    [
        (Outcome.http(500), "GET", False),
        (Outcome.http(500), "POST", False),
        (Outcome.http(500), "POST", True),
        (Outcome.http(501), "GET", False),
        (Outcome.http(505), "GET", False),
        (Outcome.http(408), "POST", False),
        (Outcome.http(429), "POST", False),
        (Outcome.http(418), "GET", False),
        (Outcome.http(507), "GET", False),
        (Outcome.network(sent=False), "POST", False),
        (Outcome.network(sent=True), "GET", False),
        (Outcome.network(sent=True), "POST", True),
        (Outcome.network(sent=True), "POST", False),
        (Outcome.body(), "GET", False),
        (Outcome.cancelled(), "GET", False),
    ],
)
def test_every_production_reason_reads_turkish(outcome: Outcome, method: str, key: bool) -> None:
    english_reason = production_rule(outcome, method, key).reason
    with language("tr"):
        reason = production_rule(outcome, method, key).reason
    assert english.english_words(reason) == [], reason
    assert reason != english_reason


def test_a_rate_breaker_says_why_it_moved_in_turkish() -> None:
    with language("tr"):
        rb = RateBreaker(
            window_size=4,
            minimum_calls=4,
            failure_rate_threshold=50,
            wait_in_open=1000,
            half_open_calls=2,
        )
        for t, ok in enumerate([True, False, True, False]):
            rb.record(ok, t)
        rb.allow(1004)
        rb.record(True, 1005)
        rb.record(True, 1006)
    reasons = [t.reason for t in rb.transitions]
    assert reasons == [
        "hata oranı %50 >= %50",
        "açık durumda 1000 ms beklendi",
        "2 deneme çağrısı: hata oranı %0",
    ]


def test_a_metastable_fleet_summary_reads_turkish() -> None:
    with language("tr"):
        line = metastable_fleet(clients=2000).summary()
    assert english.english_words(line) == [], line
    assert "yararlı iş hacmi" in line


def test_compare_fleets_titles_a_run_the_catalogue_knows_in_turkish() -> None:
    pytest.importorskip("matplotlib")
    from retrylab.sim.fleet import outage_fleet
    from retrylab.viz.fleet import compare_fleets

    run = outage_fleet("none").run()
    with language("tr"):
        fig = compare_fleets({"no budget": run, "a name nobody translated": run})
    titles = [ax.get_title() for ax in fig.axes]
    assert titles[0].startswith("bütçesiz: ") and titles[1].startswith("a name nobody")
