"""The lab: a real HTTP server on loopback that fails the way the lessons say.

Use it to run the retry loop against real sockets: timeouts, dropped
connections and lost answers instead of simulated ones. It binds to a
loopback address only (127.0.0.1, or ::1 when asked), on a port the system
picks, so any number of labs can run in one process (one notebook kernel)
without clashing. HTTP itself is h11's (:mod:`retrylab.lab.wire`); the
Idempotency-Key contract (the IETF draft's: a replay for the same body, 422
for another, 409 while the first is in flight) is :mod:`retrylab.lab.idempotency`'s.

The lesson's routes (``yeniden-deneme.mjs``, in English):

- ``GET /measurements``: the first ``fail_first=2`` requests answer 503,
  then ``[{"id": "o-114", "value": -4.2}]``; :attr:`LabServer.measurement_requests`
  counts them like the lesson's ``olcumIstegi``;
- ``POST /measurements``: 422 with a validation body (``mode="lesson"``), or,
  with ``mode="store"``, stores a measurement and honours ``Idempotency-Key``;
- ``/report``: 429 with ``Retry-After: 2``;
- anything else: 404. Every body is JSON.

The Turkish seed's names are served too, by the same state (:data:`ALIASES`):
``/olcumler`` is ``/measurements`` (one counter, one store, one script) with
the seed's field names (``kimlik``, ``deger``, ``istasyon``: :data:`TURKISH`),
``/rapor`` is ``/report`` and ``/istasyonlar`` is ``/stations``.

:meth:`LabServer.script` changes a route's behaviour for the next requests:
a sequence of statuses, a Retry-After (seconds, an HTTP-date or a raw
string), latency, and faults (:data:`FAULTS`), listed in order or drawn at a
seeded rate. Every request is logged (:attr:`LabServer.log`).

>>> with LabServer() as lab:
...     lab.address[0], lab.measurement_requests
('127.0.0.1', 0)
"""

from __future__ import annotations

import atexit
import json
import logging
import math
import threading
import time
import weakref
from collections.abc import Mapping, Sequence
from http import HTTPStatus
from typing import Any, Literal, cast
from urllib.parse import urlsplit

import numpy as np
import pandas as pd

from ..core._check import check_choice, check_int, check_number
from ..core.outcome import check_method
from ..i18n import _
from .client import check_path
from .idempotency import MAX_KEY, KeyStore, read_key
from .script import FAULTS, RetryAfter, Script, retry_after_header
from .wire import DRAIN_LIMIT, Answer, Listener, Request

__all__ = [
    "ALIASES",
    "FAULTS",
    "HOSTS",
    "MAX_KEY",
    "TURKISH",
    "LabServer",
    "retry_after_header",
    "validate_measurement",
]

log = logging.getLogger("retrylab.lab.server")

Mode = Literal["lesson", "store"]
Reply = tuple[int, Any, dict[str, str]]
MODES: tuple[str, ...] = ("lesson", "store")
#: The loopback addresses a lab may listen on (never another interface).
HOSTS: tuple[str, ...] = ("127.0.0.1", "::1")
MAX_BODY = 16 * 1024  # bytes a request body may have
IDLE_TIMEOUT = 5.0  # seconds a connection may send nothing before it is closed
FIRST_RECORD = 115  # stored records continue the lesson's "o-114"
MEASUREMENT = {"id": "o-114", "value": -4.2}
RECORD_FIELDS = ("value", "station", "ref")
ENGLISH = {"id": "id", "value": "value", "station": "station", "ref": "ref"}
#: The Turkish seed's field names (``kimlik``, ``deger``) on its routes.
TURKISH = {"id": "kimlik", "value": "deger", "station": "istasyon", "ref": "ref"}
#: The Turkish seed's routes, served by the same state as their English names.
ALIASES = {"/olcumler": "/measurements", "/rapor": "/report", "/istasyonlar": "/stations"}


class LabServer:
    """A scriptable HTTP server on loopback and a free port, running at once.

    Use it as a context manager (``with LabServer() as lab: lab.url``) or keep
    it and call :meth:`close`; servers still open when Python exits (or the
    notebook kernel restarts) are closed by an ``atexit`` hook.

    - ``mode``: ``"lesson"`` (POST /measurements answers 422) or ``"store"``
      (it stores a measurement and honours ``Idempotency-Key``).
    - ``fail_first``: how many GET /measurements answer 503 first (lesson: 2).
    - ``seed``: seeds every script's fault generator that has no seed of its own.
    - ``max_body``: the largest request body in bytes; larger ones get 413.
    - ``host``: ``"127.0.0.1"`` or ``"::1"`` (IPv6); only loopback, never another
      interface.
    - ``idle_timeout``: seconds a connection may send nothing (between
      requests, or in the middle of one) before the lab closes it.

    >>> from retrylab.lab.client import http_send
    >>> with LabServer() as lab:
    ...     [http_send(lab.url + "/measurements").label() for _ in range(3)]
    ['http/503', 'http/503', 'success']
    """

    def __init__(
        self,
        mode: Mode = "lesson",
        *,
        fail_first: int = 2,
        seed: int = 0,
        max_body: int = MAX_BODY,
        host: str = "127.0.0.1",
        idle_timeout: float = IDLE_TIMEOUT,
    ) -> None:
        self.mode: Mode = cast(Mode, check_choice("mode", mode, MODES))
        self.fail_first = check_int("fail_first", fail_first, low=0, high=1_000_000)
        self.seed = check_int("seed", seed, low=0, high=2**63 - 1)
        self.max_body = check_int("max_body", max_body, low=1, high=DRAIN_LIMIT)
        if host not in HOSTS:
            raise ValueError(
                f"host={host!r} is out of range: the lab listens on a loopback "
                f"address only, one of {', '.join(map(repr, HOSTS))}"
            )
        self.idle_timeout = check_number(
            "idle_timeout", idle_timeout, low=0, high=3600, low_open=True
        )
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._reset_state()
        self._started = time.perf_counter()
        self._listener = Listener(
            host, self._answer, max_body=self.max_body, idle_timeout=self.idle_timeout
        )
        _LIVE.add(self)

    # -- life cycle ---------------------------------------------------------------

    @property
    def address(self) -> tuple[str, int]:
        """(host, port) the server listens on; the host is 127.0.0.1 or ::1."""
        return self._listener.address

    @property
    def port(self) -> int:
        """The port the system gave the server."""
        return self.address[1]

    @property
    def url(self) -> str:
        """The base URL, ``http://127.0.0.1:PORT`` (``http://[::1]:PORT`` for IPv6)."""
        host, port = self.address
        return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"

    @property
    def closed(self) -> bool:
        """True once :meth:`close` has run."""
        return self._stopping.is_set()

    def __enter__(self) -> LabServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop serving and free the port; calling it again does nothing.

        A request waiting in its latency wakes at once (logged ``server closed``)
        and open keep-alive connections are shut down, so it returns in milliseconds.
        """
        self._stopping.set()
        self._listener.close()
        _LIVE.discard(self)

    @classmethod
    def close_all(cls) -> int:
        """Close every lab server still open in this process; return how many."""
        servers = list(_LIVE)
        for s in servers:
            s.close()
        return len(servers)

    def __repr__(self) -> str:
        state = "closed" if self.closed else self.url
        return (
            f"LabServer({state}, mode={self.mode!r}, requests={len(self._log)}, "
            f"records={len(self._records)})"
        )

    # -- state --------------------------------------------------------------------

    def _reset_state(self) -> None:
        self._scripts: dict[tuple[str, str], Script] = {}
        self._log: list[tuple[float, str, str, int | None, str | None, str | None]] = []
        self._records: list[dict[str, Any]] = []
        self._keys = KeyStore()
        self._measurement_requests = 0

    def reset(self) -> None:
        """Forget scripts, counters, records, keys and the log (the port stays)."""
        with self._lock:
            self._reset_state()

    @property
    def measurement_requests(self) -> int:
        """GET (and HEAD) /measurements requests the server handled, like the
        lesson's ``olcumIstegi``; a ``close`` fault is not handled, so not counted."""
        return self._measurement_requests

    @property
    def in_flight(self) -> int:
        """Requests the server is working on now: counted from their headers read until
        their answer is written. A client that gave up on one does not end it; the
        server may still act on it.

        >>> from retrylab.lab.client import http_send
        >>> with LabServer() as lab:
        ...     lab.script("GET", "/measurements", latency=2.0)
        ...     http_send(lab.url + "/measurements", timeout=0.5).kind, lab.in_flight
        ('network', 1)
        """
        return self._listener.in_flight

    @property
    def requests(self) -> int:
        """Requests logged so far, of every route."""
        return len(self._log)

    @property
    def log(self) -> pd.DataFrame:
        """One row per request: time (s since start), method, path, status,
        idempotency key, fault. ``status`` is the answer the server chose,
        also when a ``drop`` fault then lost it; it is missing for ``close``.
        A request h11 could not read is a row with method and path ``"?"``.
        """
        with self._lock:
            rows = list(self._log)
        frame = pd.DataFrame(rows, columns=["time", "method", "path", "status", "key", "fault"])
        frame["status"] = frame["status"].astype("Int64")
        return frame

    @property
    def record_count(self) -> int:
        """How many measurements are stored (cheaper than ``len(lab.records)``)."""
        return len(self._records)

    @property
    def records(self) -> pd.DataFrame:
        """The stored measurements: id, value, station, ref, idempotency key."""
        with self._lock:
            rows = [dict(r) for r in self._records]
        return pd.DataFrame(rows, columns=["id", "value", "station", "ref", "key"])

    # -- scripting ----------------------------------------------------------------

    def script(
        self,
        method: str,
        path: str,
        *,
        statuses: Sequence[int] = (),
        faults: Sequence[str | None] = (),
        retry_after: RetryAfter = None,
        latency: float = 0.0,
        slow: float = 1.0,
        fault_rate: float = 0.0,
        fault: str = "drop",
        seed: int | None = None,
        cycle: bool = False,
    ) -> None:
        """Script the next requests to ``method path`` (replaces an earlier script).

        - ``statuses``: answer these (200 to 599), one per request, instead of the
          route's own answer; once used up, the route answers as usual
          (``cycle=True`` repeats them). ``None`` in the list means "the usual
          answer". A 204 or 304 is sent without a body.
        - ``faults``: one per request from :data:`FAULTS` (``None`` = no fault).
        - ``retry_after``: added to every error answer (status >= 400):
          seconds, an aware ``datetime`` (sent as an HTTP-date) or a raw string
          (printable ASCII: a CR or LF is a ValueError, it would split the answer).
        - ``latency``: seconds before every answer; ``slow``: seconds a
          ``slow`` fault waits.
        - ``fault_rate``: the chance that a request without a listed fault gets
          ``fault``, drawn from a generator seeded with ``seed`` (default: the
          server's), one draw per request, so a run is reproducible.

        A path of :data:`ALIASES` scripts the route it names: ``/olcumler`` and
        ``/measurements`` share one script.

        >>> from retrylab.lab.client import http_send
        >>> with LabServer() as lab:
        ...     lab.script("GET", "/report", statuses=[503], retry_after="soon")
        ...     http_send(lab.url + "/report").detail
        "malformed Retry-After 'soon' ignored: ..."
        """
        key = (check_method(method), _route_of(check_path(path)))
        s = Script(
            statuses=[_status(x) for x in statuses],
            faults=[None if f is None else check_choice("fault", f, FAULTS) for f in faults],
            retry_after=retry_after,
            latency=check_number("latency", latency, low=0, high=60),
            slow=check_number("slow", slow, low=0, high=60),
            fault_rate=check_number("fault_rate", fault_rate, low=0, high=1),
            fault=check_choice("fault", fault, FAULTS),
            cycle=bool(cycle),
            rng=np.random.default_rng(
                self.seed if seed is None else check_int("seed", seed, low=0, high=2**63 - 1)
            ),
        )
        retry_after_header(retry_after)  # checks it now rather than at request time
        with self._lock:
            self._scripts[key] = s

    def unscript(self, method: str, path: str) -> None:
        """Remove the script of ``method path``; the route answers as usual."""
        with self._lock:
            self._scripts.pop((check_method(method), _route_of(check_path(path))), None)

    # -- answering (called by the connection threads of retrylab.lab.wire) ----------

    def _answer(self, request: Request) -> Answer:
        """The answer to one request: logged before it is written, so a client that
        has the answer also finds it in the log."""
        target = request.target  # origin form (/path?query) or absolute (http://host/path)
        method = request.method.upper()
        path = target.split("?", 1)[0] if target.startswith("/") else urlsplit(target).path
        path = "/" + path.lstrip("/") if path.startswith("//") else path  # as http.server
        raw = request.header("idempotency-key")
        key = raw[0] if raw else None
        if request.error is not None:
            status, message = request.error
            code = "too_large" if status == 413 else "bad_request"
            self._record(method, path, status, key, None)
            return _json(status, {"code": code, "message": message}, {})
        if request.body is None:  # the client went away in the middle of its body
            self._record(method, path, None, key, "client gone")
            return Answer(0, action="close")
        try:
            key = read_key(raw)
        except ValueError as e:
            self._record(method, path, 400, key, None)
            return _json(400, {"code": "bad_header", "message": str(e)}, {})
        try:
            return self._handle(method, path, request.body, key)
        except Exception:  # a safety net: every request gets an answer and a log entry
            log.debug("lab: %s %s failed", method, path, exc_info=True)
            self._record(method, path, 500, key, "server error")
            return _json(
                500,
                {"code": "internal", "message": "the lab failed while handling the request"},
                {},
                close=True,
            )

    def _handle(self, method: str, path: str, body: bytes, key: str | None) -> Answer:
        route, names = _route_of(path), (TURKISH if path in ALIASES else ENGLISH)
        with self._lock:
            script = self._scripts.get((method, route))
            scripted, fault = script.step() if script else (None, None)
        if fault == "close":
            self._record(method, path, None, key, fault)
            return Answer(0, action="close")
        claimed, early = self._claim(method, route, body, key, names)
        try:
            delay = (script.latency if script else 0.0) + (
                script.slow if script and fault == "slow" else 0.0
            )
            if delay and self._stopping.wait(delay):
                self._record(method, path, None, key, "server closed")
                return Answer(0, action="close")
            headers: dict[str, str]
            if scripted is not None:
                status, payload, headers = (
                    scripted,
                    {
                        "code": "scripted",
                        "status": scripted,
                        "message": HTTPStatus(scripted).phrase if scripted in _PHRASES else "",
                    },
                    {},
                )
            elif early is not None:
                status, payload, headers = early
            else:
                status, payload, headers = self._route(method, route, body, key, names)
        finally:
            if claimed and key is not None:
                self._keys.abandon(key)  # does nothing once the answer is remembered
        return self._fault(
            method,
            path,
            key,
            fault,
            script.retry_after if script else None,
            (status, _named(payload, names), dict(headers)),
        )

    def _fault(
        self,
        method: str,
        path: str,
        key: str | None,
        fault: str | None,
        retry_after: RetryAfter,
        reply: Reply,
    ) -> Answer:
        """Apply the answer-side faults, log."""
        status, payload, headers = reply
        if fault == "fail_after":
            status, payload, headers = (
                500,
                {"code": "internal", "message": "the server failed after handling the request"},
                {},
            )
        if status >= 400 and (text := retry_after_header(retry_after)) is not None:
            headers["Retry-After"] = text
        if fault == "bad_retry_after":
            headers["Retry-After"] = "soon"
        row = self._record(method, path, status, key, fault)
        if fault in ("drop", "reset"):
            return Answer(status, action="close" if fault == "drop" else "reset")
        answer = _json(status, payload, headers)
        if fault == "bad_json":  # the lesson's record, cut off: '{"id": "o-114", "value": -4.'
            names = TURKISH if path in ALIASES else ENGLISH
            answer.body = json.dumps(_named(MEASUREMENT, names))[:-2].encode()
        if status in (204, 304):
            answer.headers, answer.body = [], b""
        answer.action = "truncate" if fault == "truncate" else None
        answer.lost = lambda: self._amend(row, "client gone")
        return answer

    def _record(
        self, method: str, path: str, status: int | None, key: str | None, fault: str | None
    ) -> int:
        """Log one request *before* its answer is written; return its row number."""
        with self._lock:
            self._log.append(
                (round(time.perf_counter() - self._started, 6), method, path, status, key, fault)
            )
            row = len(self._log) - 1
        log.debug("lab %s %s -> %s key=%s fault=%s", method, path, status, key, fault)
        return row

    def _amend(self, row: int, fault: str) -> None:
        """Mark a logged request whose answer could not be written."""
        with self._lock:
            if row < len(self._log):
                self._log[row] = (*self._log[row][:5], fault)

    def _route(
        self, method: str, path: str, body: bytes, key: str | None, names: Mapping[str, str]
    ) -> Reply:
        """The route's own answer: (status, JSON payload, extra headers)."""
        if path == "/measurements" and method in ("GET", "HEAD"):
            with self._lock:
                self._measurement_requests += 1
                n = self._measurement_requests
            if n <= self.fail_first:
                return (
                    503,
                    {"code": "unavailable", "message": "the station is not answering right now"},
                    {},
                )
            return 200, [MEASUREMENT], {}
        if path == "/measurements" and method == "POST":
            if self.mode == "lesson":
                return (
                    422,
                    {
                        "code": "validation",
                        "message": "the measurement was rejected: the lesson's "
                        "server rejects every POST",
                    },
                    {},
                )
            return self._store(body, key, names)
        if path == "/report":
            return (
                429,
                {"code": "rate_limited", "message": "too many report requests; wait 2 seconds"},
                {"Retry-After": "2"},
            )
        return 404, {"code": "no_route", "message": f"no route for {method} {path}"}, {}

    def _claim(
        self, method: str, path: str, body: bytes, key: str | None, names: Mapping[str, str]
    ) -> tuple[bool, Reply | None]:
        """Claim the Idempotency-Key of a keyed store POST as it arrives, before any
        latency: (claimed, the answer to give instead of handling it). A body that
        is no valid measurement claims nothing: it is refused, keyed or not."""
        if key is None or self.mode != "store" or (method, path) != ("POST", "/measurements"):
            return False, None
        doc, bad = _parse(body)
        if bad or validate_measurement(doc, names):
            return False, None  # _store answers 400 or 422 without touching the key
        early = self._keys.begin(key, doc)
        return early is None, early

    def _store(self, body: bytes, key: str | None, names: Mapping[str, str]) -> Reply:
        """Store one measurement; the key (claimed by :meth:`_claim`) keeps the answer.

        The contract (replays, 422 for another body, 409 while in flight) is
        :mod:`retrylab.lab.idempotency`'s.
        """
        doc, bad = _parse(body)
        if bad:
            return (
                400,
                {"code": "malformed_json", "message": f"the body is not valid JSON: {bad}"},
                {},
            )
        errors = validate_measurement(doc, names)
        if errors:
            return 422, {"code": "validation", "errors": errors}, {}
        with self._lock:
            record = {
                "id": f"o-{FIRST_RECORD + len(self._records)}",
                "value": float(doc[names["value"]]),
                "station": doc.get(names["station"], "north-slope"),
                "ref": doc.get(names["ref"]),
                "key": key,
            }
            self._records.append(record)
            payload = {k: v for k, v in record.items() if k != "key"}
            if key is not None:
                self._keys.finish(key, (201, payload, {}))
        base = "/olcumler" if names is TURKISH else "/measurements"
        return 201, payload, {"Location": f"{base}/{record['id']}"}


def validate_measurement(doc: Any, names: Mapping[str, str] = ENGLISH) -> dict[str, str]:
    """Field errors of a measurement body (empty when it is valid).

    A measurement is a JSON object with a finite number ``value``, an
    optional ``station`` (text, at most 64 characters) and an optional
    ``ref`` (an integer or text the client uses to find its writes).
    ``names`` gives the fields' names on the wire (:data:`TURKISH`: ``deger``...).

    >>> validate_measurement({"value": -4.2})
    {}
    >>> validate_measurement({"value": "cold", "colour": 1})
    {'value': 'must be a finite number', 'colour': 'unknown field'}
    >>> validate_measurement({"deger": 10**400}, TURKISH)
    {'deger': 'must be a finite number'}
    """
    if not isinstance(doc, dict):
        return {
            "body": _("must be a JSON object such as {example}").format(
                example=json.dumps({names["value"]: -4.2})
            )
        }
    errors: dict[str, str] = {}
    field = {f: names[f] for f in RECORD_FIELDS}
    value = doc.get(field["value"])
    if field["value"] not in doc:
        errors[field["value"]] = _("is required")
    elif isinstance(value, bool) or not isinstance(value, (int, float)) or not _finite(value):
        errors[field["value"]] = _("must be a finite number")
    station = doc.get(field["station"], "north-slope")
    if not isinstance(station, str) or not 0 < len(station) <= 64:
        errors[field["station"]] = _("must be text of 1 to 64 characters")
    ref = doc.get(field["ref"])
    if ref is not None and (isinstance(ref, bool) or not isinstance(ref, (int, str))):
        errors[field["ref"]] = _("must be an integer or text")
    for name in doc:
        if name not in field.values():
            errors[str(name)] = _("unknown field")
    return errors


def _finite(value: float) -> bool:
    try:
        return math.isfinite(value)
    except OverflowError:  # an integer of hundreds of digits: no float holds it
        return False


def _parse(body: bytes) -> tuple[Any, str]:
    """(the body as JSON, "") or (None, why it is not JSON)."""
    try:
        return json.loads(body.decode("utf-8")), ""
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        return None, str(e) or type(e).__name__


def _route_of(path: str) -> str:
    return ALIASES.get(path, path)


def _named(payload: Any, names: Mapping[str, str]) -> Any:
    """A measurement (or a list of them) with the route's field names."""
    if names is ENGLISH:
        return payload
    if isinstance(payload, list):
        return [_named(p, names) for p in payload]
    if isinstance(payload, dict) and "id" in payload:
        return {names.get(k, k): v for k, v in payload.items()}
    return payload


def _json(status: int, payload: Any, headers: dict[str, str], *, close: bool = False) -> Answer:
    return Answer(
        status,
        [("Content-Type", "application/json"), *headers.items()],
        json.dumps(payload).encode("utf-8"),
        close=close,
    )


def _status(status: int | None) -> int | None:
    """A scripted status: a final answer (a 1xx would leave the client waiting)."""
    return None if status is None else check_int("statuses", status, low=200, high=599)


_PHRASES = {s.value for s in HTTPStatus}
_LIVE: weakref.WeakSet[LabServer] = weakref.WeakSet()


@atexit.register
def _close_live_servers() -> None:
    LabServer.close_all()
