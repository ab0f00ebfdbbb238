"""The lab's Idempotency-Key contract, as the IETF draft states it.

Follows draft-ietf-httpapi-idempotency-key-header-06 ("The Idempotency-Key
HTTP Header Field", section "Error Scenarios"):

- the first request with a key is processed and its answer remembered; a
  repeat with the **same payload** gets that answer again
  (``Idempotent-Replayed: true``) and nothing new is stored;
- a repeat with **another payload** is a client bug: ``422`` (the draft's
  status; the lab answered 409 before);
- a repeat while the first is **still being processed** is ``409 Conflict``:
  the client should retry later (the lab made it wait and replayed before).

"The same payload" compares the parsed JSON values, not their text, so
``{"value": 1}`` and ``{"value": 1.0}`` (and other spacing or key order)
are one payload, while ``true`` and ``1`` stay different.
"""

from __future__ import annotations

import math
import threading
from typing import Any

from ..i18n import _

Reply = tuple[int, Any, dict[str, str]]
MAX_KEY = 255  # characters an Idempotency-Key may have


def read_key(values: list[str]) -> str | None:
    """The request's Idempotency-Key from its header values; ValueError if refused.

    The draft defines the field as an RFC 8941 sf-string (``"abc"``, with ``\\``
    and ``\\"`` escapes); a bare value (``abc``) is taken as it is, as the lab
    always has. A request has one key or none, of 1 to :data:`MAX_KEY` printable
    characters.

    >>> read_key(['"8e03978e-40d5"']), read_key(["k-1"]), read_key(['"a\\\\"b"']), read_key([])
    ('8e03978e-40d5', 'k-1', 'a"b', None)
    >>> read_key(['"abc'])
    Traceback (most recent call last):
    ...
    ValueError: Idempotency-Key '"abc' is not a valid sf-string
    """
    if not values:
        return None
    if len(values) > 1:
        raise ValueError(f"{len(values)} Idempotency-Key headers: a request has one key, or none")
    key = _unquote(values[0])
    if not 0 < len(key) <= MAX_KEY or not key.isprintable():
        raise ValueError(f"Idempotency-Key {key[:40]!r} is not 1 to {MAX_KEY} printable characters")
    return key


def _unquote(raw: str) -> str:
    text = raw.strip(" \t")
    if not text.startswith('"'):
        return text
    out: list[str] = []
    i = 1
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text) and text[i + 1] in '"\\':
            out.append(text[i + 1])
            i += 2
        elif c == '"':
            if i != len(text) - 1:
                break
            return "".join(out)
        elif c == "\\" or not " " <= c <= "~":
            break
        else:
            out.append(c)
            i += 1
    raise ValueError(f"Idempotency-Key {raw[:40]!r} is not a valid sf-string")


def fingerprint(doc: Any) -> Any:
    """A value that is equal for two JSON documents exactly when they mean the same.

    Numbers compare by value (``1 == 1.0``, and exactly for big integers),
    booleans and null are kept apart from numbers, object key order is ignored.

    >>> fingerprint({"value": 1, "ref": "a"}) == fingerprint({"ref": "a", "value": 1.0})
    True
    >>> fingerprint({"value": True}) == fingerprint({"value": 1})
    False
    """
    if isinstance(doc, dict):
        return ("object", frozenset((str(k), fingerprint(v)) for k, v in doc.items()))
    if isinstance(doc, list):
        return ("array", tuple(fingerprint(v) for v in doc))
    if isinstance(doc, bool) or doc is None:
        return ("literal", doc)
    if isinstance(doc, float) and math.isnan(doc):
        return ("number", "NaN")
    if isinstance(doc, (int, float)):
        return ("number", doc)
    return ("string", str(doc))


class KeyStore:
    """Keys in flight and keys done, with their payload and first answer.

    Safe across the lab's handler threads (one lock). Use :meth:`begin` when a
    keyed request arrives, then :meth:`finish` with its answer or
    :meth:`abandon` if it was not handled (the key may be used again).

    >>> keys = KeyStore()
    >>> keys.begin("k-1", {"value": 1}) is None  # first use: go ahead
    True
    >>> keys.begin("k-1", {"value": 1})[0]       # still being processed
    409
    >>> keys.finish("k-1", (201, {"id": "o-115"}, {}))
    >>> keys.begin("k-1", {"value": 1.0})[:2]    # done: the first answer again
    (201, {'id': 'o-115'})
    >>> keys.begin("k-1", {"value": 2})[0]       # another payload
    422
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._busy: dict[str, Any] = {}
        self._done: dict[str, tuple[Any, Reply]] = {}

    def begin(self, key: str, doc: Any) -> Reply | None:
        """Claim ``key`` for ``doc``; ``None`` to go ahead, else the answer to give."""
        mark = fingerprint(doc)
        with self._lock:
            if key in self._done:
                first, (status, payload, headers) = self._done[key]
                if first != mark:
                    return _reused(key)
                return status, payload, {**headers, "Idempotent-Replayed": "true"}
            if key in self._busy:
                if self._busy[key] != mark:
                    return _reused(key)
                return (
                    409,
                    {
                        "code": "idempotency_key_in_flight",
                        "message": _(
                            "a request with Idempotency-Key {key} is still "
                            "being processed; retry later"
                        ).format(key=repr(key)),
                    },
                    {"Retry-After": "1"},
                )
            self._busy[key] = mark
        return None

    def finish(self, key: str, reply: Reply) -> None:
        """Remember the answer of the claimed ``key``; repeats get it from now on."""
        with self._lock:
            mark = self._busy.pop(key, None)
            status, payload, headers = reply
            kept = {k: v for k, v in headers.items() if k.lower() != "location"}
            self._done[key] = (mark, (status, payload, kept))

    def abandon(self, key: str) -> None:
        """Release a claimed ``key`` without an answer (the request was not handled)."""
        with self._lock:
            self._busy.pop(key, None)

    def __len__(self) -> int:
        """How many keys have a remembered answer."""
        return len(self._done)


def _reused(key: str) -> Reply:
    return (
        422,
        {
            "code": "idempotency_key_reused",
            "message": _(
                "Idempotency-Key {key} was first used with a different body; "
                "send a new key for a new measurement"
            ).format(key=repr(key)),
        },
        {},
    )
