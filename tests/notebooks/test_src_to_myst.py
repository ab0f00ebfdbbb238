"""tools/src_to_myst.py: a percent source becomes MyST markdown with nothing lost.

What a branch that still edits the percent sources brings at merge time must
convert to the same editions: the Turkish twins of both kinds with their hashes,
each scaffold and its solution as one exercise cell, and a page check (a cell
tagged ``test``) left to tests/notebooks/test_page_checks.py, never dropped unseen.
"""

from __future__ import annotations

import pytest
from _tools import load_test, load_tool

converter = load_tool("src_to_myst")
builder = load_tool("build_notebooks")

PERCENT = """\
# %% [markdown]
# Call the lab.

# %% [markdown] tags=["tr"] en_hash="0a1b2c3d"
# Laboratuvarı çağırın.

# %%
url = "/measurements"

# %% tags=["tr"] en_hash="12345678"
url = "/olcumler"

# %% tags=["scaffold"]
answer = ...
check_answer(answer)

# %% tags=["solution"]
answer = 2
check_answer(answer)
"""


def test_twins_of_both_kinds_keep_their_tags_and_hashes() -> None:
    md, merged = converter.convert(PERCENT)
    assert merged == 1
    assert ":tags: [tr]\n:en_hash: '12345678'\n\nurl = \"/olcumler\"" in md
    assert '+++ {"tags": ["tr"], "en_hash": "0a1b2c3d"}' in md
    full = builder.parse(md)
    twins = [c for c in full.cells if "tr" in c.metadata.get("tags", [])]
    assert [(c.cell_type, c.metadata["en_hash"]) for c in twins] == [
        ("markdown", "0a1b2c3d"),
        ("code", "12345678"),
    ]
    seen = {
        e.name: [c.source for c in builder.edition_notebook(full, e).cells]
        for e in (builder.STUDENT, builder.INSTRUCTOR_TR)
    }
    assert seen == {
        "student": ["Call the lab.", 'url = "/measurements"', "answer = ...\ncheck_answer(answer)"],
        "instructor-tr": [
            "Laboratuvarı çağırın.",
            'url = "/olcumler"',
            "answer = 2\ncheck_answer(answer)",
        ],
    }


def test_a_page_check_goes_only_where_the_tests_hold_it() -> None:
    check = "assert url.startswith('/')"
    source = PERCENT + f'\n# %% tags=["test"]\n{check}\n'
    md, _ = converter.convert(source, "nb.py", [('url = "/measurements"', check)])
    assert md == converter.convert(PERCENT)[0]
    with pytest.raises(SystemExit, match=r"test_page_checks\.py does not hold"):
        converter.convert(source, "nb.py", [])


def test_the_converter_reads_the_table_the_page_checks_run() -> None:
    """CHECKS read from the test's text (no import of IPython) is the module's own."""
    assert converter.page_checks() == load_test("test_page_checks").CHECKS
