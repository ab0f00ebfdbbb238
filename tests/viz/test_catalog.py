"""The catalogue of run-time texts: every marked message translated, placeholders kept,
the compiled .mo in step with its .po (tools/catalog.py, Babel)."""

from __future__ import annotations

import gettext
import io
import re
import string
from pathlib import Path

import pytest
from _tools import load_tool

from retrylab import i18n
from retrylab.i18n import _, language, ngettext, number, percent, pgettext, set_language

ROOT = Path(__file__).resolve().parents[2]
catalog_tool = load_tool("catalog")


def messages(t: gettext.GNUTranslations) -> dict[object, str]:
    """A compiled catalogue's messages, less its header (which carries a date)."""
    return {k: v for k, v in t._catalog.items() if k != ""}  # type: ignore[attr-defined]


def fields(text: str) -> set[str]:
    """The ``{name}`` placeholders of a format string (``{{`` is a literal brace)."""
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


@pytest.mark.parametrize("lang", catalog_tool.LANGS)
def test_every_marked_message_is_translated(lang: str) -> None:
    gaps = catalog_tool.missing(lang)
    assert gaps == [], (
        f"{len(gaps)} marked messages have no {lang} translation "
        f"(python tools/catalog.py update, then translate): {gaps[:20]}"
    )


@pytest.mark.parametrize("lang", catalog_tool.LANGS)
def test_translations_keep_their_placeholders(lang: str) -> None:
    bad = []
    for message in catalog_tool.read(lang):
        if not message.id or not message.string:
            continue
        ids = message.id if isinstance(message.id, (list, tuple)) else [message.id]
        strings = message.string if isinstance(message.string, (list, tuple)) else [message.string]
        want = set().union(*(fields(i) for i in ids))
        for s in strings:
            if s and (fields(s) != want):
                bad.append((ids[0], s))
    assert bad == [], f"translations whose {{placeholders}} differ from the English: {bad}"


@pytest.mark.parametrize("lang", catalog_tool.LANGS)
def test_compiled_catalogue_is_in_step_with_its_po(lang: str) -> None:
    mo = catalog_tool.po_path(lang).with_suffix(".mo")
    assert mo.exists(), f"{mo} is missing: python tools/catalog.py compile"
    with mo.open("rb") as f:
        have = messages(gettext.GNUTranslations(f))
    want = messages(gettext.GNUTranslations(io.BytesIO(catalog_tool.compiled(lang))))
    assert have == want, f"{mo} is stale: python tools/catalog.py compile"


def test_language_switch_and_numbers() -> None:
    with language("tr"):
        assert _("wait (ms)") == "bekleme (ms)"
        assert pgettext("slider", "jitter") == "sarsıntı"
        assert ngettext("{n} retry", "{n} retries", 3).format(n=3) == "3 yeniden deneme"
        assert (number(0.25, 2), percent(5), percent(12.5, 1)) == ("0,25", "%5", "%12,5")
        assert _("a text nobody translated") == "a text nobody translated"
    assert i18n.current() == "en"
    assert (number(0.25, 2), percent(5)) == ("0.25", "5%")


@pytest.mark.parametrize("bad", ["de", "", "TR"])
def test_unknown_language_is_refused_by_name(bad: str) -> None:
    refused = r"lang=.* is out of range: lang must be one of 'en', 'tr'"
    with pytest.raises(ValueError, match=refused):
        set_language(bad)
    assert i18n.current() == "en"


def test_language_of_wrong_type_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="lang=3"):
        set_language(3)  # type: ignore[arg-type]


def test_viz_shares_the_one_language() -> None:
    pytest.importorskip("matplotlib")
    from retrylab.viz import i18n as viz_i18n

    with language("tr"):
        assert viz_i18n.current() == "tr"
    viz_i18n.set_language("tr")
    try:
        assert i18n.current() == "tr"
    finally:
        set_language("en")


@pytest.mark.parametrize("lang", catalog_tool.LANGS)
def test_no_message_is_translated_twice(lang: str) -> None:
    """A union merge of two branches' .po can leave one message twice; gettext would
    silently keep one of the two translations."""
    seen: dict[tuple[str | None, str], int] = {}
    context: str | None = None
    for line in catalog_tool.po_path(lang).read_text(encoding="utf-8").splitlines():
        if line.startswith("msgctxt "):
            context = line[8:]
        elif line.startswith("msgid ") and line != 'msgid ""':
            key = (context, line[6:])
            seen[key] = seen.get(key, 0) + 1
            context = None
        elif line.startswith("msgid "):
            context = None
    twice = [key for key, n in seen.items() if n > 1]
    assert twice == [], f"messages with two entries in the {lang} catalogue: {twice}"


@pytest.mark.parametrize("lang", catalog_tool.LANGS)
def test_every_entry_stands_apart(lang: str) -> None:
    """A union merge can glue one branch's entry to another's last line (no blank line
    between): gettext still reads it, but a ``msgctxt`` can end up on the wrong entry."""
    text = catalog_tool.po_path(lang).read_text(encoding="utf-8")
    glued = re.findall(r'\nmsgstr [^\n]*(?:\n"[^\n]*)*\n(?:msgid|msgctxt)[^\n]*', text)
    assert glued == [], (
        f"entries not separated by a blank line in the {lang} catalogue: "
        f"{[g.strip().splitlines()[-1] for g in glued]}"
    )


def test_update_appends_new_messages_and_leaves_every_entry_as_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`catalog.py update` changes only what changed: a new message is appended, untranslated,
    and every other byte (translators' comments, order, wrapping) stays."""
    po = catalog_tool.po_path("tr")
    copy = tmp_path / "tr" / "LC_MESSAGES" / po.name
    copy.parent.mkdir(parents=True)
    copy.write_bytes(po.read_bytes())
    monkeypatch.setattr(catalog_tool, "LOCALE", tmp_path)
    source = tmp_path / "src"
    source.mkdir()
    (source / "new.py").write_text('from retrylab.i18n import _\n_("a message no one has seen")\n')
    monkeypatch.setattr(catalog_tool, "SOURCES", (*catalog_tool.SOURCES, source))
    monkeypatch.setattr(catalog_tool, "ROOT", Path("/"))  # where locations are counted from
    before = copy.read_bytes()
    added, _unused = catalog_tool.update("tr")
    after = copy.read_bytes()
    assert added == 1 and after.startswith(before.rstrip(b"\n") + b"\n")
    assert after[len(before) :].strip().endswith(b'msgid "a message no one has seen"\nmsgstr ""')
