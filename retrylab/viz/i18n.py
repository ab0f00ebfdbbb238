"""The language of figures and explorers: English by default, Turkish on request.

The lessons are Turkish course material; the notebooks come in English and in
Turkish, built from one source, whose language cell calls
:func:`set_language`. Every label a figure or an explorer shows goes through
:func:`t`, which looks the English text up in :data:`TR` and falls back to
English for anything without a translation (a test lists every label and
requires its Turkish). A ``lang=`` argument, where a function takes one,
overrides the notebook's setting for that call.

>>> t("wait (ms)", "tr")
'bekleme (ms)'
>>> with language("tr"):
...     t("attempt")
'deneme'
>>> t("attempt")
'attempt'
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Literal

from ..core._check import check_choice

if TYPE_CHECKING:
    from matplotlib.figure import Figure

Lang = Literal["en", "tr"]
LANGS: tuple[str, ...] = ("en", "tr")
_current: list[str] = ["en"]

#: English label -> Turkish, in the lessons' own terms (deneme, bekleme, taban, tavan,
#: sarsıntı, ilişkisiz sarsıntı, devre kesici, soğuma, yarı açık, tekillik anahtarı).
TR: dict[str, str] = {
    "attempt": "deneme",
    "retry": "yeniden deneme",
    "wait (ms)": "bekleme (ms)",
}


def set_language(lang: str) -> None:
    """Make ``lang`` ("en" or "tr") the language of every figure and explorer from now on."""
    _current[0] = check_choice("lang", lang, LANGS)


def current() -> str:
    """The language figures and explorers use now."""
    return _current[0]


@contextlib.contextmanager
def language(lang: str) -> Iterator[str]:
    """Use ``lang`` inside a ``with`` block, then go back to the previous language."""
    before = _current[0]
    set_language(lang)
    try:
        yield _current[0]
    finally:
        _current[0] = before


def t(text: str, lang: str | None = None) -> str:
    """``text`` in ``lang`` (default: the current language); English when untranslated."""
    use = _current[0] if lang is None else check_choice("lang", lang, LANGS)
    return TR.get(text, text) if use == "tr" else text


#: Labels with numbers in them: (pattern on the English, Turkish replacement).
TR_PATTERNS: list[tuple[re.Pattern[str], str]] = []


def _pattern(english: str, turkish: str) -> None:
    TR_PATTERNS.append((re.compile(f"^{english}$"), turkish))


def translate(text: str, lang: str | None = None) -> str:
    r"""``text`` (a whole label, possibly several lines) in ``lang``; unknown text unchanged.

    >>> translate("wait (ms)\nattempt", "tr")
    'bekleme (ms)\ndeneme'
    """
    use = _current[0] if lang is None else check_choice("lang", lang, LANGS)
    if use == "en" or not text:
        return text
    if text in TR:
        return TR[text]
    if "\n" in text:
        return "\n".join(translate(line, use) for line in text.split("\n"))
    for pattern, turkish in TR_PATTERNS:
        if pattern.match(text):
            return pattern.sub(turkish, text)
    return text


def translate_figure(fig: Figure, lang: str | None = None) -> None:
    """Put every text of ``fig`` (titles, axis labels, ticks, legends, notes) in ``lang``.

    Called just before a figure is rendered, so each figure and explorer is drawn
    in the notebook's language without any of them knowing about languages.
    """
    use = _current[0] if lang is None else check_choice("lang", lang, LANGS)
    if use == "en":
        return
    from matplotlib.text import Text

    for artist in fig.findobj(Text):
        text = artist.get_text()
        if text:
            new = translate(text, use)
            if new != text:
                artist.set_text(new)
