"""The lessons' names for things a text mentions by its code value, in the current language.

A jitter is named in a sentence by the whole term, never by gluing the code
value to a word ("none jitter", "no sarsıntı"):

>>> jitter_name("full"), jitter_name("none")
('full jitter', 'no jitter')
>>> from retrylab.i18n import language
>>> with language("tr"):
...     jitter_name("full"), jitter_name("none"), jitter_name("decorrelated")
('tam sarsıntı', 'sarsıntısız', 'ilişkisiz sarsıntı')
"""

from __future__ import annotations

from . import N_, _

__all__ = ["JITTER_NAMES", "RUN_NAMES", "jitter_name"]

#: Each jitter's code value -> its name in a sentence (translated at use).
JITTER_NAMES: dict[str, str] = {
    "none": N_("no jitter"),
    "full": N_("full jitter"),
    "equal": N_("equal jitter"),
    "decorrelated": N_("decorrelated jitter"),
    "proportional": N_("proportional jitter"),
}


def jitter_name(kind: str) -> str:
    """The name of jitter ``kind`` ("full", "none", ...) in the current language;
    an unknown kind is shown as it is."""
    name = JITTER_NAMES.get(kind)
    return kind if name is None else _(name)


#: Names notebook 06 gives the fleet runs it compares; ``compare_fleets`` looks a run's
#: name up in the catalogue, so these titles read Turkish in the Turkish edition.
RUN_NAMES: tuple[str, ...] = (
    N_("no jitter"),
    N_("full jitter"),
    N_("no budget"),
    N_("gRPC throttling"),
    N_("SRE budget"),
    N_("breaker"),
)
