"""Count the English words a Turkish reader meets in a notebook's outputs or a text.

The Turkish editions should speak Turkish at run time: after Run All, English is
left only in code, identifiers and quoted names. This tool finds the rest with a
word list (:data:`ENGLISH`): common English prose words that are not Turkish
words too (``on``, ``at``, ``her``, ``son`` are left out) and not values a student
types in code (``full``, ``none``, ``base``...). A chunk of text that looks like
code (``_``, ``=``, brackets, ``a.b``, a path) is skipped whole.

    python tools/english_words.py [NOTEBOOK.ipynb ...]   count per notebook (default:
                                                        notebooks/tr/*.ipynb), the
                                                        explorers' texts, the total
    python tools/english_words.py --show NOTEBOOK.ipynb  also list the lines found

``tests/notebooks/test_turkish_runtime.py`` fails on any word found. Two more checks read
the same outputs: :func:`table_words` (a table's headers and row labels are
shown text, so an English key such as ``total_requests`` counts there, and so do
pandas' ``dtype: int64``, ``NaN``, ``<NA>`` and an enum's ``<State.OPEN: 'open'>``),
and :func:`english_numbers` (``6.62``, ``0.29x``, ``100%`` written the English
way; a Python literal such as ``[0.35, 0.46]`` is code and is skipped).
"""

from __future__ import annotations

import ast
import contextlib
import re
import sys
import textwrap
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

#: Common English prose words that are not also Turkish words or code values.
ENGLISH = frozenset(
    """
the of and to for with by from after before then than that this these those it its
is are was were be been being has have had do does did done will would can could
should may might must no yes yet not but or if when while which what who whose how
why where all each every some any more most less least many much few one two three
four five six seven eight nine first second third last next same other only also
again still so too very just up down out over under between into through per as like
about without within until once twice here there now never always already run runs
ran retry retries retried retrying wait waits waited waiting attempt attempts client
clients server servers served serve serves request requests response responses
answer answers answered success successes succeeded succeeds failure failures failed
fail fails error errors correct wrong replace replaced cell gave give gives given
time times total mean median peak budget budgets breaker breakers open opened closed
half state states stopped stop stops reason user users phone phones backoff jitter
lesson lessons seed rule rules key keys write writes written stored duplicate
duplicates records record body network cancelled cancellation problem itself
repeating repeat temporary mistake mistakes common everything nothing classifies
later measurement measurements reached malformed ignored asked tell passed pass used
use sent send calls call called value values hint try see such list number count
counted seconds minutes outage recover recovers recovered rate load queue queued
latency tail throughput goodput offered hedged hedge hedging throttled throttling
adaptive delay delays slow fast expected got returned gets sum keep kept left right
starts started start end ends ended instead because since though even enough show
shows shown draw make makes made means lost thinks think unsafe dropped drop drops
share shared waves wave storm storms flight trial trials fallback shed shedding work
worked working alive dead healthy unhealthy limit limits allowed allow allows
threshold cooldown step steps event events outcome outcomes status missing found
report reports tries tried trying fixed growth incremental doubling background
foreground triggered refresh refreshes battery energy finished unfinished
amplification accepted rejected gateway database service
""".split()  # noqa: SIM905
) - {"on", "at", "an", "a", "her", "son"}

#: A chunk of text (between spaces) with one of these is code, a path or a number.
CODE = re.compile(
    r"[_=(){}\[\]<>/\\|`#@$]|\w\.\w|^[-+]?\d|->|::"
    # a one-word string literal in a printed value: 'success', "network",
    r"|^['\"][\w-]+['\"][,:;]?$"
    # a protocol's own names (HTTP header fields), quoted as they are
    r"|Retry-After|Idempotency-Key"
)
#: A whole line of program text (the lessons' JavaScript): a statement or a block's edge.
CODE_LINE = re.compile(r"^\s*(//|\}|if \(|for \()|[;{}]\s*(//.*)?$")
WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")  # Unicode letters: "eşit" is one (Turkish) word


def english_words(text: str) -> list[str]:
    """The English prose words of ``text``, in order, code-like chunks left out.

    >>> english_words("Not yet: replace the ... with Backoff(base=200), then run it.")
    ['Not', 'yet', 'replace', 'the', 'with', 'then', 'run', 'it']
    >>> english_words("sunucuya ulaşan ölçüm isteği: 3 (retry_after_too_long)")
    []
    >>> english_words("eşit sarsıntı: 812 çağrı; (2, 'success', 2) Retry-After: 2")
    []
    >>> english_words('  if (sonuc.tur === "ag") return GUVENLI_YONTEM.has(yontem);  // not')
    []
    """
    if CODE_LINE.search(text):
        return []
    found = []
    for chunk in text.split():
        if CODE.search(chunk):
            continue
        found += [w for w in WORD.findall(chunk) if w.lower().split("'")[0] in ENGLISH]
    return found


#: One identifier made of words (``total_requests``, ``per_request``).
IDENTIFIER = re.compile(r"^[A-Za-z]+(?:_[A-Za-z]+)+$")
#: What pandas or Python print that is neither Turkish nor the student's code.
REPR = re.compile(r"\bdtype: \w+|\bNaN\b|<NA>|<\w+\.\w+: '\w+'>")
#: A number written the English way: a decimal point, or a percent sign after it.
#: Not a version or an address (``127.0.0.1``, ``§9.2.2``), not part of a word, not
#: thousands grouped the Turkish way (``1.234``, which reads the same).
ENGLISH_NUMBER = re.compile(
    r"(?<![\w.,§/:-])(?![1-9]\d{0,2}(?:\.\d{3})+(?![\d.,]))"
    r"\d+\.\d+(?=x\b|\.(?!\d)|,(?!\d)|[^\w.,]|$)"
    r"|(?<![\w%])\d+(?:[.,]\d+)?%"
)


def table_words(text: str, table: bool = True) -> list[str]:
    """What a table shows in English besides prose: pandas' or Python's own reprs
    (anywhere), and in a ``table``'s line each cell (cells are two spaces or more
    apart) that is one identifier made only of English words (``total_requests``;
    a unit after it is allowed: ``time_budget (ms)``). A name among Turkish words
    (``max_retry_after yok: ...``) is a code name, as in prose.

    >>> table_words("        hizmet verilen  total_requests  recovery_ms")
    ['total_requests', 'recovery_ms']
    >>> table_words("dtype: int64"), table_words("(3, <State.OPEN: 'open'>)")
    (['dtype: int64'], ["<State.OPEN: 'open'>"])
    >>> table_words("bütçesiz   30265   –"), table_words("kotlin_retry_all  2  yolda")
    ([], [])
    >>> table_words("time_budget (ms)   300"), table_words("total_requests", table=False)
    (['time_budget'], [])
    """
    found = REPR.findall(text)
    if not table:
        return found
    for cell in re.split(r"\s{2,}", text.strip()):
        name = re.sub(r"\s*\([^()]*\)$", "", cell)
        if IDENTIFIER.match(name) and all(
            w.lower() in ENGLISH or w.lower() in TABLE_ENGLISH for w in name.split("_")
        ):
            found.append(name)
    return found


#: Words of the English keys the tables had, besides :data:`ENGLISH`'s prose words.
TABLE_ENGLISH = frozenset(
    """recovery amplification overloaded outage accepted rejected
request service gateway database vs exponential full equal decorrelated slowest
after too long max ms steps""".split()  # noqa: SIM905
)


def is_python_literal(text: str) -> bool:
    """Whether ``text`` is a Python value as Python prints it (a list, a tuple, a
    dict, maybe of objects' reprs): code the student computes with, where ``0.35``
    is how Python writes it.

    >>> is_python_literal("[0.350411, 0.459054]"), is_python_literal("tepe 24 (0.29x)")
    (True, False)
    >>> is_python_literal("(Outcome(kind='success'), [1.752, 6.886], 'success')")
    True
    """
    stripped = text.strip()
    if not stripped or stripped[0] not in "[({":
        return False
    try:
        ast.parse(stripped, mode="eval")
    except SyntaxError:
        return False
    return True


def english_numbers(text: str) -> list[str]:
    """The numbers of a Turkish text written the English way.

    >>> english_numbers("tepe 24 -> 7 istemci / 200 ms (0.29x); en alttaki 100% hata")
    ['0.29', '100%']
    >>> english_numbers("istemci başına 6,62; %100 hata; 1.234 istek; urllib3 2.8.0")
    []
    >>> english_numbers("[0.350411, 0.459054, 0.739493]")
    []
    """
    if is_python_literal(text):
        return []
    return ENGLISH_NUMBER.findall(text)


def is_code_listing(text: str) -> bool:
    r"""Whether a whole output is a program listing: it parses as Python and defines
    a function or a class (the source of a function printed beside the Kotlin).
    Prose never parses so; a value such as ``[1, 2]`` parses but defines nothing.

    >>> is_code_listing("def now_ms() -> int:\n    return 1  # the loop's time\n")
    True
    >>> is_code_listing("[0.8, 1.9]"), is_code_listing("waits before the retry: 3")
    (False, False)
    """
    try:
        tree = ast.parse(textwrap.dedent(text))
    except SyntaxError:
        return False
    return any(
        isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        for node in tree.body
    )


def output_texts(nb: Any) -> Iterator[tuple[str, str]]:
    """(the code cell's first line, a text it shows) for every output of ``nb``.

    The plain-text form of a rich output is the one read (a table's text/plain
    has the same words as its HTML); an image carries no text here; a printed
    program listing (:func:`is_code_listing`) is code, not read.
    """
    for first, text, _table in output_items(nb):
        yield first, text


def output_items(nb: Any) -> Iterator[tuple[str, str, bool]]:
    """:func:`output_texts`, each with whether the output is a table (HTML ``<table``)."""
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        first = (cell.source.splitlines() or [""])[0]
        for out in cell.get("outputs", []):
            if out.get("output_type") == "stream":
                if not is_code_listing(out.get("text", "")):  # a listing is code
                    yield first, out.get("text", ""), False
            elif out.get("output_type") == "error":
                yield first, f"{out.get('ename', '')}: {out.get('evalue', '')}", False
            else:
                data = out.get("data", {})
                text = data.get("text/plain", "")
                if text.startswith("<") and text.endswith(">"):
                    continue  # <IPython.core.display.Image object> and the like
                if "Explorer (" in text:  # an explorer's line: its readout is counted below
                    continue
                yield first, text, "<table" in data.get("text/html", "")


def notebook_words(path: Path) -> list[tuple[str, str, list[str]]]:
    """(cell's first line, output line, its English words) for each line that has some:
    prose words (:func:`english_words`; not in a printed Python value, whose strings
    are keys the student types) and a table's English keys and reprs
    (:func:`table_words`)."""
    import nbformat

    nb = nbformat.read(path, as_version=4)
    rows = []
    for first, text, table in output_items(nb):
        value = is_python_literal(text)  # a printed value's strings are code (dict keys)
        for line in text.splitlines():
            words = ([] if value else english_words(line)) + table_words(line, table)
            if words:
                rows.append((first, line, words))
    return rows


def notebook_numbers(path: Path) -> list[tuple[str, str, list[str]]]:
    """(cell's first line, output line, its English-format numbers) for each line
    that has some (:func:`english_numbers`)."""
    import nbformat

    nb = nbformat.read(path, as_version=4)
    rows = []
    for first, text in output_texts(nb):
        if is_python_literal(text):
            continue
        for line in text.splitlines():
            found = english_numbers(line)
            if found:
                rows.append((first, line, found))
    return rows


def _neighbours(values: dict[str, Any], controls: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """``values`` with one control moved: to each of its options, or one step either way."""
    for name, w in controls.items():
        options = getattr(w, "options", None)
        if options:
            for opt in options:
                value = opt[1] if isinstance(opt, tuple) else opt
                yield {**values, name: value}
        elif isinstance(getattr(w, "step", None), (int, float)) and hasattr(w, "min"):
            for sign in (-1, 1):
                value = values[name] + sign * w.step
                if w.min <= value <= w.max:
                    yield {**values, name: value}


def explorer_texts(lang: str = "tr") -> Iterator[tuple[str, str]]:
    """(explorer, text) for each readout and message an explorer shows, in ``lang``:
    at its defaults and with each control one step either way; and its title (the
    text/plain form's "StormExplorer (title): readout")."""
    from retrylab.i18n import _, language
    from retrylab.viz.catalog import explorer_classes

    with language(lang):
        for cls in explorer_classes():
            yield cls.__name__, _(cls.title)
            ex = cls()
            settings = [ex.values, *_neighbours(ex.values, ex.controls)]
            seen: set[str] = set()
            for values in settings:
                with contextlib.suppress(ValueError):
                    ex.set(**values)
                for text in (ex.readout, ex.message):
                    if text and text not in seen:
                        seen.add(text)
                        yield cls.__name__, text


def explorer_words(lang: str = "tr") -> list[tuple[str, str, list[str]]]:
    return [
        (name, text, words) for name, text in explorer_texts(lang) if (words := english_words(text))
    ]


def _total(rows: Iterable[tuple[str, str, list[str]]]) -> int:
    return sum(len(w) for _, _, w in rows)


def main(argv: list[str]) -> int:
    show = "--show" in argv
    paths = [Path(a) for a in argv if a != "--show"] or sorted(
        (ROOT / "notebooks" / "tr").glob("*.ipynb")
    )
    grand = 0
    for path in paths:
        rows = notebook_words(path)
        numbers = notebook_numbers(path)
        grand += _total(rows) + _total(numbers)
        print(f"{path.stem:34s} {_total(rows):5d} words {_total(numbers):5d} numbers")
        if show:
            for first, line, _words in rows + numbers:
                print(f"    [{first[:40]}] {line[:110]}")
    rows = explorer_words()
    grand += _total(rows)
    print(f"{'explorers (readouts, messages)':34s} {_total(rows):5d}")
    if show:
        for name, text, _words in rows:
            print(f"    [{name}] {text[:110]}")
    print(f"{'total':34s} {grand:5d}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
