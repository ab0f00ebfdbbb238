"""Layer 0, i18n: the one catalogue of every text retrylab shows at run time.

Checker messages, explorer readouts and messages, printed lines, table headers
and values, figure labels and slider options are all written in English at the
call site, marked the gettext way, and looked up in the notebook's language when
they are made::

    _("{n} of {total} served").format(n=3, total=24)

The Turkish texts live in ``locale/tr/LC_MESSAGES/retrylab.po`` (a standard
gettext catalogue, compiled to ``retrylab.mo`` with Babel: ``python
tools/catalog.py compile``; ``tools/catalog.py extract`` lists every marked
message, and ``tests/viz/test_catalog.py`` fails on one without its translation or
whose placeholders differ). A text without a translation stays English.

The language is the kernel's (one notebook, one language): :func:`set_language`
in the notebook's language cell, or :func:`language` for a ``with`` block.
Numbers follow it too: :func:`number` writes a decimal comma in Turkish, and
:func:`percent` puts the sign first (``%5``).

>>> with language("tr"):
...     _("wait (ms)"), number(1.5), percent(5)
('bekleme (ms)', '1,5', '%5')
>>> _("wait (ms)"), number(1.5), percent(5)
('wait (ms)', '1.5', '5%')
>>> N_("attempt")                      # marked for the catalogue, translated later
'attempt'
"""

from __future__ import annotations

import contextlib
import gettext
import math
from collections.abc import Iterator
from functools import cache
from pathlib import Path

__all__ = [
    "LANGS",
    "NP_",
    "N_",
    "_",
    "current",
    "grouped",
    "language",
    "ngettext",
    "number",
    "parse_number",
    "percent",
    "pgettext",
    "seconds",
    "set_language",
]

#: The languages retrylab speaks; English is the source's own.
LANGS: tuple[str, ...] = ("en", "tr")
#: Where the compiled catalogues are (``<lang>/LC_MESSAGES/retrylab.mo``).
LOCALE_DIR = Path(__file__).resolve().parent / "locale"
DOMAIN = "retrylab"

_current: list[str] = ["en"]
_CHOICES = ", ".join(repr(lang) for lang in LANGS)


def _check_lang(lang: object) -> str:
    if not isinstance(lang, str):
        raise TypeError(f"lang={lang!r} is not a string: lang must be one of {_CHOICES}")
    if lang not in LANGS:
        raise ValueError(f"lang={lang!r} is out of range: lang must be one of {_CHOICES}")
    return lang


@cache
def _catalogue(lang: str) -> gettext.NullTranslations:
    """The compiled catalogue of ``lang`` (English: the texts as written)."""
    if lang == "en":
        return gettext.NullTranslations()
    return gettext.translation(DOMAIN, LOCALE_DIR, languages=[lang])


def set_language(lang: str) -> None:
    """Make ``lang`` ("en" or "tr") the language of every text from now on."""
    _current[0] = _check_lang(lang)


def current() -> str:
    """The language texts are made in now."""
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


def _(message: str) -> str:
    """``message`` in the current language (English if it has no translation)."""
    return _catalogue(_current[0]).gettext(message)


def N_(message: str) -> str:
    """Mark ``message`` for the catalogue without translating it yet (module constants)."""
    return message


def NP_(context: str, message: str) -> str:
    """Mark ``message`` (in ``context``) for the catalogue; :func:`pgettext` it at use.

    >>> NP_("table", "stored")
    'stored'
    """
    return message


def ngettext(singular: str, plural: str, n: int) -> str:
    """The singular or plural form of a message for ``n``, in the current language.

    >>> ngettext("{n} retry", "{n} retries", 1).format(n=1)
    '1 retry'
    """
    return _catalogue(_current[0]).ngettext(singular, plural, n)


def pgettext(context: str, message: str) -> str:
    """``message`` in the current language, told apart from a same English text by ``context``.

    >>> pgettext("slider", "jitter")
    'jitter'
    """
    return _catalogue(_current[0]).pgettext(context, message)


def number(value: float, digits: int | None = None) -> str:
    """``value`` as the current language writes it: ``1.5`` in English, ``1,5`` in Turkish.

    ``digits`` fixes the decimals (``None``: as Python's ``str`` writes the value).
    Thousands are not grouped, so a number reads the same as in a Python output.

    >>> number(2 / 3, 2), number(7), number(float("nan"))
    ('0.67', '7', 'nan')
    """
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    text = str(value) if digits is None else f"{value:.{digits}f}"
    return text.replace(".", ",") if _current[0] == "tr" else text


def seconds(value: float) -> str:
    """A number of seconds as the current language writes it, as short as Python's ``:g``
    writes it: ``2`` (not ``2.0``), ``2.5``, ``0.1``; ``2,5`` in Turkish.

    >>> seconds(2.0), seconds(2.5), seconds(8000 / 1000), seconds(0.1)
    ('2', '2.5', '8', '0.1')
    >>> with language("tr"):
    ...     seconds(2.5)
    '2,5'
    """
    text = f"{value:g}"
    return text.replace(".", ",") if _current[0] == "tr" else text


def grouped(count: int) -> str:
    """A whole number with its thousands grouped as the current language does: ``1,249``
    in English, ``1.249`` in Turkish (for a count in prose; :func:`number` does not group).

    >>> grouped(1249), grouped(12)
    ('1,249', '12')
    >>> with language("tr"):
    ...     grouped(600000)
    '600.000'
    """
    text = f"{count:,}"
    return text.replace(",", ".") if _current[0] == "tr" else text


def percent(value: float, digits: int = 0) -> str:
    """``value`` percent (5 -> ``5%``; Turkish writes ``%5``), with ``digits`` decimals.

    >>> percent(12.5, 1)
    '12.5%'
    """
    text = number(value, digits)
    return f"%{text}" if _current[0] == "tr" else f"{text}%"


def parse_number(text: str) -> float:
    """A number as a student types it, either way: ``"2.33"`` or Turkish ``"2,33"``
    (and ``"1.234,5"``, thousands with a dot). Anything else is a ValueError that
    names the text and says which marks are understood.

    >>> parse_number("2,33"), parse_number("2.33"), parse_number(" 1.234,5 "), parse_number("7")
    (2.33, 2.33, 1234.5, 7.0)
    >>> parse_number("2,3,3")
    Traceback (most recent call last):
    ...
    ValueError: text='2,3,3' is not a number: write it as 2.33 or 2,33 (one decimal mark)
    """
    if not isinstance(text, str):
        raise TypeError(f"text={text!r} is not a string")
    clean = text.strip().replace(" ", "")
    if clean.count(",") == 1:
        whole, _sep, frac = clean.partition(",")
        if "." in whole and all(len(g) == 3 for g in whole.split(".")[1:]):
            whole = whole.replace(".", "")
        clean = f"{whole}.{frac}"
    try:
        value = float(clean)
    except ValueError:
        raise ValueError(
            f"text={text!r} is not a number: write it as 2.33 or 2,33 (one decimal mark)"
        ) from None
    return value
