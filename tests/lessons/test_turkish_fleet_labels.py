"""The labels 05, 05b, 09 and A1 write in notebook code read Turkish through
retrylab.lessons.tables, the English outputs unchanged; a printed program listing
is code to the word check (tools/english_words.py), prose is still counted."""

from __future__ import annotations

import nbformat
import pandas as pd
import pytest
from _tools import load_tool

from retrylab import Backoff
from retrylab.i18n import language
from retrylab.lessons import mobile_code as mobile
from retrylab.lessons.tables import LABELS, label, line, localized
from retrylab.viz.backoff import waits_table

english = load_tool("english_words")  # as tests/notebooks/test_turkish_runtime.py

NOTEBOOK_KEYS = (  # the dict keys and row names the notebooks write
    "backoff",
    "incremental",
    "fixed 2 s",
    "incremental 1 s",
    "exponential 1 s",
    "exp. + proportional (Kotlin)",
    "exp. + full, cap 30 s",
    "endless, fixed 2 s",
    "endless, exp. cap 60 s",
    "background(): 5 attempts",
    "3 retries, timeout 1 s",
    "no retries",
    "retry budget 10%",
    "timeout 3 s",
    "1 retry",
    "503, 503, then data",
)


@pytest.mark.parametrize("key", NOTEBOOK_KEYS)
def test_a_notebook_key_reads_turkish(key: str) -> None:
    assert key in LABELS
    assert label(key) == key
    with language("tr"):
        assert label(key) != key
        assert english.english_words(label(key)) == []


def test_the_printed_lines_keep_their_english_and_read_turkish() -> None:
    events = "events {events}: sent {sent}, blocked {blocked}"
    assert line(events, events=306, sent=26, blocked=280) == "events 306: sent 26, blocked 280"
    waits = [0.8, 1.9, 5.0]
    assert line("waits (s): {waits}", waits=waits) == "waits (s): [0.8, 1.9, 5.0]"
    assert line("total (min): {total}", total=16.6) == "total (min): 16.6"
    with language("tr"):
        texts = [
            line(events, events=306, sent=26, blocked=280),
            line("waits (s): {waits}", waits=waits),
            line("total (min): {total}", total=16.6),
        ]
    assert texts[0] == "306 olay: 26 gönderildi, 280 engellendi"
    assert all(english.english_words(t) == [] for t in texts)


def test_05s_strategy_tables_read_turkish() -> None:
    schedule = {
        "fixed 2 s": Backoff(2000, growth="constant", cap=None),
        "incremental 1 s": Backoff(1000, growth="linear", cap=None),
        "exp. + full, cap 30 s": Backoff(1000, 2, 30_000, jitter="full"),
    }
    table = waits_table(schedule, retries=6, shared=False)
    ceilings = pd.DataFrame(
        {"fixed": [2.0], "incremental": [1.0], "exponential": [1.0]},
        index=pd.RangeIndex(1, 2, name="retry"),
    )
    assert localized(table).equals(table)
    with language("tr"):
        for shown in (localized(table), localized(ceilings)):
            assert english.english_words(shown.to_string()) == [], shown.to_string()


def test_a1s_combine_table_reads_turkish() -> None:
    from retrylab import Outcome

    runs = {
        "503, 503, then data": mobile.combine_run(
            [Outcome.http(503), Outcome.http(503), Outcome.success()]
        )
    }
    with language("tr"):
        text = localized(mobile.runs_table(runs)).to_string()
    assert english.english_words(text) == [], text


def _notebook(text: str) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("print(listing)")
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=text)]
    nb.cells = [cell]
    return nb


def test_a_printed_listing_is_code_and_prose_is_still_counted(tmp_path) -> None:
    listing = (
        "async def retry_with_backoff(publisher, retries: int = 3) -> int:\n"
        "    try:\n        return await publisher.subscribe()  # the first try\n"
        "    except Exception:\n        return 0\n"
    )
    prose = "waits before the retry, then the client gives up\n"
    for text, counted in (
        (listing, False),
        (prose, True),
        (listing + prose, True),
        ("[0.8, 1.9]\n", False),
    ):
        path = tmp_path / "nb.ipynb"
        nbformat.write(_notebook(text), path)
        rows = english.notebook_words(path)
        assert bool(rows) == counted, (text, rows)
    assert english.is_code_listing(listing)
    assert not english.is_code_listing(prose)
    assert not english.is_code_listing("retry = 3\n")  # parses, defines nothing


def test_06s_tables_read_turkish_and_keep_their_english() -> None:
    from retrylab.sim.layered import layered_calls

    calls = layered_calls(layers=3, attempts=3, requests=100)
    ends = pd.DataFrame(
        {"served": [30265, 50056, 50056, 50302]},
        index=["no budget", "gRPC throttling", "SRE budget", "breaker"],
    )
    sweep = pd.DataFrame({"full": [1.0]}, index=pd.Index([50], name="clients"))
    for table in (calls, ends, sweep):
        assert localized(table).equals(table)
        with language("tr"):
            text = localized(table).to_string()
        assert english.english_words(text) == [], text
