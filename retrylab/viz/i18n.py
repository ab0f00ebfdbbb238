"""The language of figures and explorers: English by default, Turkish on request.

The lessons are Turkish course material; the notebooks come in English and in
Turkish, built from one source, whose language cell calls
:func:`set_language` (the same as :func:`retrylab.i18n.set_language`). Texts
are translated where they are made, from the catalogue (``_()`` in
:mod:`retrylab.i18n`). :func:`translate` looks a whole label up in the same
catalogue, for the call sites not yet written as templates (the slider
descriptions, the fleet figures); it and the legacy :func:`translate_figure` go
when those are converted. A ``lang=`` argument overrides the notebook's setting.

>>> translate("wait (ms)", "tr")
'bekleme (ms)'
>>> with language("tr"):
...     translate("attempt")
'deneme'
>>> translate("attempt")
'attempt'
>>> translate("no jitter: peak 24 per 200 ms", "tr")
"sarsıntısız: 200 ms'de tepe 24"
>>> translate("full jitter: peak 7 per 200 ms", "tr")
"tam sarsıntı: 200 ms'de tepe 7"
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Literal

from ..core._check import check_choice
from ..i18n import LANGS, _, current, language, set_language

__all__ = ["LANGS", "current", "language", "set_language", "translate", "translate_figure"]

if TYPE_CHECKING:
    from matplotlib.figure import Figure

Lang = Literal["en", "tr"]

#: Labels with numbers in them: (pattern on the whole English line, Turkish replacement).
#: Legacy: only the fleet, contention and beyond figures still rely on these (through
#: :func:`translate_figure`); they go when those call sites use templates (``_()``).
TR_PATTERNS: list[tuple[re.Pattern[str], str]] = [(re.compile(f"^{en}$"), tr) for en, tr in (
    (r"actual wait \(seed (\d+)\)", r"gerçek bekleme (tohum \1)"),
    (r"cap (\d+) ms", r"tavan \1 ms"),
    (r"cooldown (\d+) ms", r"soğuma \1 ms"),
    (r"peak (\d+)", r"tepe \1"),
    (r"time: (\d+) ms", r"süre: \1 ms"),
    (r"work: (\d+) calls \(([\d.]+) per client\)", r"iş: \1 çağrı (istemci başına \2)"),
    (r"(\d+) failures in a row", r"art arda \1 hata"),
    (r"\((\d+) times?\)", r"(\1 kez)"),
    (r"cooldown of", r"soğuma süresi"),
    (r"(\d+) ms over", r"(\1 ms) doldu"),
    (r"trial (failed|succeeded)", r"deneme isteği \1"),
    (r"no jitter: peak (\d+) per (\d+) ms", r"sarsıntısız: \2 ms'de tepe \1"),
    (r"full jitter: peak (\d+) per (\d+) ms", r"tam sarsıntı: \2 ms'de tepe \1"),
    (r"(\w+) jitter: peak (\d+) per (\d+) ms", r"\1 sarsıntı: \3 ms'de tepe \2"),
    (r"(\d+) clients failed together: when they wake for retry (\d+)",
     r"birlikte hata alan \1 istemci: \2. yeniden deneme için ne zaman uyanıyorlar"),
    (r"peak (\d+) -> (\d+) clients per (\d+) ms \(([\d.]+)x\)",
     r"tepe \1 -> \2 istemci / \3 ms (\4x)"),
    (r"Circuit breaker: three states \(current: ([\w-]+)\)",
     r"Devre kesici: üç durum (şimdiki: \1)"),
    (r"State after event (\d+) of (\d+): ([\w-]+)", r"Durum, \2 olayın \1.'sinden sonra: \3"),
    (r"Breaker timeline \(threshold (\d+), cooldown (\d+) ms\): sent (\d+), blocked (\d+)",
     r"Devre kesici zaman çizelgesi (eşik \1, soğuma \2 ms): gönderilen \3, engellenen \4"),
    (r"Timeline: sent (\d+), blocked (\d+)", r"Zaman çizelgesi: gönderilen \1, engellenen \2"),
    (r"How long each strategy waits before each retry",
     r"Her strateji her yeniden denemeden önce ne kadar bekler"),
    (r"\(base (\d+) ms, factor ([\d.]+), seed (\d+)\)", r"(taban \1 ms, çarpan \2, tohum \3)"),
    (r"(\w+): base (\d+) ms x ([\d.]+), cap (\d+) ms, (\w+) jitter",
     r"\1: taban \2 ms x \3, tavan \4 ms, \5 sarsıntı"),
    (r"total wait over (\d+) retries: (\d+) ms",
     r"\1 yeniden denemede toplam bekleme: \2 ms"),
    (r"(\d+) clients, base (\d+) ms, cap (\d+) ms: (.+) highlighted",
     r"\1 istemci, taban \2 ms, tavan \3 ms: \4 vurgulu"),
    (r"(\d+) layers x (\d+) attempts, bottom failing (\d+)%: (\d+) calls per request",
     r"\1 katman x \2 deneme, en alttaki %\3 hatalı: istek başına \4 çağrı"),
    (r"(\d+) clients at once; capacity (\d+) per (\d+) ms step; outage ([\d.]+)-([\d.]+) s",
     r"aynı anda \1 istemci; \3 ms'lik adımda kapasite \2; kesinti \4-\5 s"),
    (r"(\d+) clients over (\d+) s; capacity (\d+) per (\d+) ms step; outage ([\d.]+)-([\d.]+) s",
     r"\2 s boyunca \1 istemci; \4 ms'lik adımda kapasite \3; kesinti \5-\6 s"),
    (r"(\d+) attempts, (\w+) jitter, base (\d+) ms x ([\d.]+), cap (\d+) ms",
     r"\1 deneme, \2 sarsıntı, taban \3 ms x \4, tavan \5 ms"),
    (r"(\d+) attempts, no jitter, base (\d+) ms x ([\d.]+), cap (\d+) ms",
     r"\1 deneme, sarsıntısız, taban \2 ms x \3, tavan \4 ms"),
    (r"Retry-After: ([\d.]+) \((\d+) ms\)", r"Retry-After: \1 (\2 ms)"),
    (r"(\d+) waits", r"\1 bekleme"),
)]


def translate(text: str, lang: str | None = None) -> str:
    r"""``text`` (a whole label, possibly several lines) in ``lang``; unknown text unchanged.

    >>> translate("wait (ms)\nattempt", "tr")
    'bekleme (ms)\ndeneme'
    """
    use = current() if lang is None else check_choice("lang", lang, LANGS)
    if use == "en" or not text:
        return text
    with language(use):
        found = _(text)
    if found != text:
        return found
    if "\n" in text:
        return "\n".join(translate(line, use) for line in text.split("\n"))
    for pattern, turkish in TR_PATTERNS:
        m = pattern.match(text)
        if m:  # each captured word is translated too ("full" -> "tam")
            groups = [translate(g, use) if g else "" for g in m.groups()]
            return _fill(turkish, groups)
    return text


def _fill(template: str, groups: list[str]) -> str:
    """``template`` with ``\\1``, ``\\2``... replaced by ``groups``."""
    return re.sub(r"\\(\d)", lambda k: groups[int(k.group(1)) - 1], template)


def translate_figure(fig: Figure, lang: str | None = None) -> None:
    """Put every text of ``fig`` (titles, axis labels, ticks, legends, notes) in ``lang``.

    Called just before a figure is rendered, so each figure and explorer is drawn
    in the notebook's language without any of them knowing about languages.
    """
    use = current() if lang is None else check_choice("lang", lang, LANGS)
    if use == "en":
        return
    from matplotlib.text import Text
    from matplotlib.ticker import FixedFormatter, FuncFormatter

    for ax in fig.axes:  # tick labels given as text (lanes, strategies) are made at draw time
        for axis in (ax.xaxis, ax.yaxis):
            fmt = axis.get_major_formatter()
            wrapped = getattr(fmt, "retrylab_lang", None) == use
            if isinstance(fmt, (FixedFormatter, FuncFormatter)) and not wrapped:
                axis.set_major_formatter(_translated_ticks(fmt, use))
    for artist in fig.findobj(Text):
        text = artist.get_text()
        if text:
            new = translate(text, use)
            if new != text:
                artist.set_text(new)


def _translated_ticks(inner: Any, lang: str) -> Any:
    """A tick formatter that puts ``inner``'s text labels in ``lang``."""
    from matplotlib.ticker import FuncFormatter

    fmt = FuncFormatter(lambda x, pos: translate(str(inner(x, pos)), lang))
    fmt.retrylab_lang = lang  # type: ignore[attr-defined]
    return fmt


#: The smallest text, in PNG pixels (see :data:`retrylab.viz.kit.MIN_FONT_PX`).
_FLOOR_PX = 14


def finish_texts(fig: Figure) -> None:
    """Legacy, for the explorers not yet converted to templates at the call site (the
    fleet engineer's ``BackdropExplorer``): the texts of ``fig`` translated from
    the catalogue, none below the 14 px floor. Goes when ``viz/beyond.py`` is converted;
    the explorer base and ``to_png`` no longer call it.
    """
    from matplotlib.text import Text

    translate_figure(fig)
    floor = _FLOOR_PX * 72 / fig.dpi
    for text in fig.findobj(Text):
        if float(text.get_fontsize()) < floor:
            text.set_fontsize(floor)
