"""A Turkish table writes its numbers the Turkish way and its keys in Turkish (issue 40).

``retrylab.lessons.tables.localized`` relabels a table through the catalogue and, in
Turkish, shows it through pandas' Styler with a decimal comma and thousands dots;
the table the code indexes keeps its English keys and its numbers. The word and
number checks of tools/english_words.py are what ``test_turkish_runtime`` runs on
the executed Turkish editions.
"""

from __future__ import annotations

import pandas as pd
import pytest
from _tools import load_tool

from retrylab.i18n import language, parse_number
from retrylab.lessons.tables import localized
from retrylab.sim.fleet import outage_fleet
from retrylab.sim.fleetresult import summary_table
from retrylab.sim.layered import layered_calls

english = load_tool("english_words")


def _shown(table: pd.DataFrame | pd.Series) -> tuple[str, str]:
    with language("tr"):
        shown = localized(table)
        return repr(shown), shown._repr_html_()


def test_06s_summary_table_reads_turkish_with_turkish_numbers() -> None:
    runs = {"no jitter": outage_fleet("none").run(), "full": outage_fleet("full").run()}
    table = summary_table(runs)[
        [
            "served",
            "total_requests",
            "peak_retries",
            "amplification",
            "overloaded_steps_after_outage",
            "recovery_ms",
        ]
    ]
    text, html = _shown(table)
    for line in text.splitlines():
        assert english.english_words(line) == [], line
        assert english.table_words(line) == [], line
        assert english.english_numbers(line) == [], line
    assert "toplam istek" in text and "sarsıntısız" in text and "5.937" in text, text
    assert "toplam istek" in html and "5.937" in html
    assert table["total_requests"].tolist() == [7700, 5937]  # the code's table is unchanged


def test_a_float_column_keeps_pandas_decimals_with_a_comma() -> None:
    table = pd.DataFrame({"amplification": [6.62, 1.0]}, index=["no budget", "breaker"])
    text, _html = _shown(table)
    assert text.splitlines() == [
        "              yük çarpanı",
        "bütçesiz             6,62",
        "devre kesici         1,00",
    ]


def test_a_missing_value_and_a_series_show_no_pandas_repr() -> None:
    series = pd.Series({"full": 3, "none": None}, dtype="Int64", name="recovery_ms")
    text, _html = _shown(series)
    assert english.table_words(text) == [] and "–" in text and "dtype" not in text, text


def test_the_layered_table_names_its_services_in_turkish() -> None:
    text, _html = _shown(layered_calls(layers=3, attempts=3, requests=100))
    assert "ağ geçidi" in text and "veritabanı" in text and "2.700" in text, text
    assert english.table_words(text) == [] and english.english_numbers(text) == [], text


def test_an_english_table_is_the_same_dataframe() -> None:
    table = pd.DataFrame({"amplification": [6.62]}, index=["breaker"])
    shown = localized(table)
    assert type(shown) is pd.DataFrame and shown.to_string() == table.to_string()


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("tepe 24 -> 7 istemci / 200 ms (0.29x)", ["0.29"]),
        ("en alttaki 100% hata", ["100%"]),
        ("50 başarı tam olarak 5.0 jeton verir", ["5.0"]),
        ("en alttaki %100 hata; 6,62 kat; 1.000 istek", []),
        ("[0.3504, 0.4591]", []),
    ],
)
def test_english_numbers_are_found_and_turkish_ones_are_not(text: str, found: list[str]) -> None:
    assert english.english_numbers(text) == found


def test_a_number_typed_the_turkish_way_is_read() -> None:
    assert parse_number("2,33") == parse_number("2.33") == 2.33
    with pytest.raises(ValueError, match=r"2\.33 or 2,33"):
        parse_number("iki")
