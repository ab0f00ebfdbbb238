"""The lesson's data in the lesson's words: routes and field names per language.

The seed lesson (Turkish) names its data ``{ kimlik: "o-114", deger: -4.2 }`` and
its route ``/olcumler``; the English edition reads ``id``, ``value`` and
``/measurements``. A notebook writes the English name once, through these, and
each edition shows its own (the lab server answers on both routes).

>>> from retrylab.i18n import language
>>> route("/measurements"), record(id="o-114", value=-4.2)
('/measurements', {'id': 'o-114', 'value': -4.2})
>>> with language("tr"):
...     route("/measurements"), route("/stations"), record(id="o-114", value=-4.2)
('/olcumler', '/istasyonlar', {'kimlik': 'o-114', 'deger': -4.2})
"""

from __future__ import annotations

from typing import Any

from ..i18n import current

__all__ = ["FIELDS", "ROUTES", "field", "record", "route"]

#: The seed's routes (the lab server's Turkish aliases).
ROUTES: dict[str, str] = {
    "/measurements": "/olcumler",
    "/stations": "/istasyonlar",
    "/report": "/rapor",
}
#: The seed's field names.
FIELDS: dict[str, str] = {"id": "kimlik", "value": "deger", "station": "istasyon"}


def route(path: str) -> str:
    """``path`` (one of :data:`ROUTES`' English routes) in the notebook's language."""
    if path not in ROUTES:
        raise ValueError(f"path={path!r} is out of range: it must be one of {sorted(ROUTES)}")
    return ROUTES[path] if current() == "tr" else path


def field(name: str) -> str:
    """A field's name (one of :data:`FIELDS`' English names) in the notebook's language."""
    if name not in FIELDS:
        raise ValueError(f"name={name!r} is out of range: it must be one of {sorted(FIELDS)}")
    return FIELDS[name] if current() == "tr" else name


def record(**fields: Any) -> dict[str, Any]:
    """A record of the lesson's data with its fields named in the notebook's language.

    >>> record(colour=1)
    Traceback (most recent call last):
    ...
    ValueError: name='colour' is out of range: it must be one of ['id', 'station', 'value']
    """
    return {field(name): value for name, value in fields.items()}
