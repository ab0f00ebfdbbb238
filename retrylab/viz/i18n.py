"""The language of figures and explorers: English by default, Turkish on request.

The lessons are Turkish course material; the notebooks come in English and in
Turkish, built from one source, whose language cell calls
:func:`set_language` (the same as :func:`retrylab.i18n.set_language`). Every
text is translated where it is made, from the catalogue: a message template at
the call site (``_("peak {peak} per {width} ms").format(...)``, see
:mod:`retrylab.i18n`). Nothing is translated after a figure is drawn.

:func:`translate` looks a whole fixed label (no numbers in it) up in the same
catalogue, line by line: the controls use it for slider names and options that
have no label of their own. A ``lang=`` argument overrides the notebook's setting.

>>> translate("wait (ms)", "tr")
'bekleme (ms)'
>>> with language("tr"):
...     translate("attempt")
'deneme'
>>> translate("attempt")
'attempt'
>>> translate("no such label", "tr")
'no such label'
"""

from __future__ import annotations

from ..core._check import check_choice
from ..i18n import LANGS, _, current, language, set_language

__all__ = ["LANGS", "current", "language", "set_language", "translate"]


def translate(text: str, lang: str | None = None) -> str:
    r"""``text`` (a whole fixed label, possibly several lines) in ``lang``, from the
    catalogue; text the catalogue does not have is returned unchanged.

    >>> translate("wait (ms)\nattempt", "tr")
    'bekleme (ms)\ndeneme'
    """
    use = current() if lang is None else check_choice("lang", lang, LANGS)
    if use == "en" or not text:
        return text
    with language(use):
        found = _(text)
        if found == text and "\n" in text:
            return "\n".join(_(line) for line in text.split("\n"))
    return found
