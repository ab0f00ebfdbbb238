"""The lab: a real HTTP server on loopback that fails the way the lessons say.

Use it to run the retry loop against real sockets: timeouts, dropped
connections and lost answers instead of simulated ones. It binds to
127.0.0.1 only, on a port the system picks, so any number of labs can run
in one process (one notebook kernel) without clashing.

The lesson's routes (``yeniden-deneme.mjs``, in English):

- ``GET /measurements``: the first ``fail_first=2`` requests answer 503,
  then ``[{"id": "o-114", "value": -4.2}]``; :attr:`LabServer.measurement_requests`
  counts them like the lesson's ``olcumIstegi``;
- ``POST /measurements``: 422 with a validation body (``mode="lesson"``), or,
  with ``mode="store"``, stores a measurement and honours ``Idempotency-Key``;
- ``/report``: 429 with ``Retry-After: 2``;
- anything else: 404. Every body is JSON.

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
import contextlib
import json
import logging
import math
import socket
import threading
import time
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from email.utils import format_datetime
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal, cast
from urllib.parse import urlsplit

import numpy as np
import pandas as pd

from ..core._check import check_choice, check_int, check_number
from ..core.outcome import check_method
from .client import check_path

log = logging.getLogger("retrylab.lab.server")

Mode = Literal["lesson", "store"]
MODES: tuple[str, ...] = ("lesson", "store")
#: What a script can make the server do wrong:
#: ``close`` closes the connection before handling (nothing happens on the server);
#: ``drop`` handles the request, then closes without answering (the lesson's
#: "the server processed it but the answer was lost");
#: ``slow`` waits ``slow`` seconds before answering (longer than the client's timeout);
#: ``bad_retry_after`` sends ``Retry-After: soon``; ``bad_json`` sends a body that is not JSON;
#: ``fail_after`` handles the request, then answers 500 (the server acted, then failed).
FAULTS: tuple[str, ...] = ("close", "drop", "slow", "bad_retry_after", "bad_json",
                           "fail_after")
MAX_BODY = 16 * 1024          # bytes a request body may have
_DRAIN_LIMIT = 1024 * 1024    # an oversized body up to this is read and thrown away
MAX_KEY = 255                 # characters an Idempotency-Key may have
FIRST_RECORD = 115            # stored records continue the lesson's "o-114"
MEASUREMENT = [{"id": "o-114", "value": -4.2}]
RECORD_FIELDS = ("value", "station", "ref")

RetryAfter = float | int | datetime | str | None
Reply = tuple[int, Any, dict[str, str]]


@dataclass
class _Script:
    """What a route does for its next requests (see :meth:`LabServer.script`)."""

    statuses: list[int | None] = field(default_factory=list)
    faults: list[str | None] = field(default_factory=list)
    retry_after: RetryAfter = None
    latency: float = 0.0
    slow: float = 1.0
    fault_rate: float = 0.0
    fault: str = "drop"
    cycle: bool = False
    rng: np.random.Generator = field(default_factory=lambda: np.random.default_rng(0))
    served: int = 0

    def step(self) -> tuple[int | None, str | None]:
        """The scripted status and fault for the next request, if any."""
        i = self.served
        self.served += 1
        status = _pick(self.statuses, i, self.cycle)
        fault = _pick(self.faults, i, self.cycle)
        if self.fault_rate > 0:
            drawn = float(self.rng.random())
            if fault is None and drawn < self.fault_rate:
                fault = self.fault
        return status, fault


def _pick(seq: Sequence[Any], i: int, cycle: bool) -> Any:
    if not seq:
        return None
    if cycle:
        return seq[i % len(seq)]
    return seq[i] if i < len(seq) else None


def retry_after_header(value: RetryAfter) -> str | None:
    """The Retry-After header text for seconds, an aware datetime or a raw string.

    >>> retry_after_header(2), retry_after_header(None)
    ('2', None)
    >>> from datetime import datetime, timezone
    >>> retry_after_header(datetime(2026, 1, 14, 10, 0, 5, tzinfo=timezone.utc))
    'Wed, 14 Jan 2026 10:00:05 GMT'
    """
    if value is None:
        return None
    if isinstance(value, datetime):
        if value.tzinfo is None:
            raise ValueError(f"retry_after={value!r} is out of range: retry_after must be "
                             "a timezone-aware datetime (an HTTP-date is in GMT)")
        return format_datetime(value.astimezone(timezone.utc), usegmt=True)
    if isinstance(value, str):
        return value
    seconds = check_number("retry_after", value, low=0, high=86_400)
    return str(math.ceil(seconds))




class LabServer:
    """A scriptable HTTP server on 127.0.0.1 and a free port, running at once.

    Use it as a context manager (``with LabServer() as lab: lab.url``) or keep
    it and call :meth:`close`; servers still open when Python exits (or the
    notebook kernel restarts) are closed by an ``atexit`` hook.

    - ``mode``: ``"lesson"`` (POST /measurements answers 422) or ``"store"``
      (it stores a measurement and honours ``Idempotency-Key``).
    - ``fail_first``: how many GET /measurements answer 503 first (lesson: 2).
    - ``seed``: seeds every script's fault generator that has no seed of its own.
    - ``max_body``: the largest request body in bytes; larger ones get 413.

    >>> from retrylab.lab.client import http_send
    >>> with LabServer() as lab:
    ...     [http_send(lab.url + "/measurements").label() for _ in range(3)]
    ['http/503', 'http/503', 'success']
    """

    def __init__(self, mode: Mode = "lesson", *, fail_first: int = 2, seed: int = 0,
                 max_body: int = MAX_BODY) -> None:
        self.mode: Mode = cast(Mode, check_choice("mode", mode, MODES))
        self.fail_first = check_int("fail_first", fail_first, low=0, high=1_000_000)
        self.seed = check_int("seed", seed, low=0, high=2**63 - 1)
        self.max_body = check_int("max_body", max_body, low=1, high=_DRAIN_LIMIT)
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._closed = False
        self._conns: set[socket.socket] = set()
        self._reset_state()
        self._httpd = _HTTPServer(("127.0.0.1", 0), _Handler)
        self._httpd.lab = self
        self._started = time.perf_counter()
        self._thread = threading.Thread(target=self._serve, daemon=True,
                                        name=f"retrylab-lab-{self.port}")
        _LIVE.add(self)
        self._thread.start()

    # -- life cycle ---------------------------------------------------------------

    @property
    def address(self) -> tuple[str, int]:
        """(host, port) the server listens on; the host is always 127.0.0.1."""
        host, port = self._httpd.server_address[:2]
        return str(host), int(port)

    @property
    def port(self) -> int:
        """The port the system gave the server."""
        return self.address[1]

    @property
    def url(self) -> str:
        """The base URL, ``http://127.0.0.1:PORT``."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def closed(self) -> bool:
        """True once :meth:`close` has run."""
        return self._closed

    def __enter__(self) -> LabServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop serving and free the port; calling it again does nothing.

        Wakes the accept loop with one local connection instead of polling,
        and shuts down open keep-alive connections, so it returns in
        milliseconds.
        """
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self._stopping.set()
        with contextlib.suppress(OSError):  # wake the accept loop at once
            socket.create_connection(self.address, timeout=1.0).close()
        self._thread.join(timeout=2.0)
        self._httpd.server_close()
        with self._lock:
            conns = list(self._conns)
        for conn in conns:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        _LIVE.discard(self)

    @classmethod
    def close_all(cls) -> int:
        """Close every lab server still open in this process; return how many."""
        servers = list(_LIVE)
        for s in servers:
            s.close()
        return len(servers)

    def _serve(self) -> None:
        while not self._stopping.is_set():
            self._httpd.handle_request()

    def __repr__(self) -> str:
        state = "closed" if self._closed else self.url
        return (f"LabServer({state}, mode={self.mode!r}, requests={len(self._log)}, "
                f"records={len(self._records)})")

    # -- state --------------------------------------------------------------------

    def _reset_state(self) -> None:
        self._scripts: dict[tuple[str, str], _Script] = {}
        self._log: list[tuple[float, str, str, int | None, str | None, str | None]] = []
        self._records: list[dict[str, Any]] = []
        self._keys: dict[str, tuple[str, int, Any]] = {}
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
    def requests(self) -> int:
        """Requests logged so far, of every route."""
        return len(self._log)

    @property
    def log(self) -> pd.DataFrame:
        """One row per request: time (s since start), method, path, status,
        idempotency key, fault. ``status`` is the answer the server chose,
        also when a ``drop`` fault then lost it; it is missing for ``close``.
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

    def script(self, method: str, path: str, *, statuses: Sequence[int] = (),
               faults: Sequence[str | None] = (), retry_after: RetryAfter = None,
               latency: float = 0.0, slow: float = 1.0, fault_rate: float = 0.0,
               fault: str = "drop", seed: int | None = None, cycle: bool = False) -> None:
        """Script the next requests to ``method path`` (replaces an earlier script).

        - ``statuses``: answer these, one per request, instead of the route's
          own answer; once used up, the route answers as usual (``cycle=True``
          repeats them). ``None`` in the list means "the usual answer".
        - ``faults``: one per request from :data:`FAULTS` (``None`` = no fault).
        - ``retry_after``: added to every error answer (status >= 400):
          seconds, an aware ``datetime`` (sent as an HTTP-date) or a raw string.
        - ``latency``: seconds before every answer; ``slow``: seconds a
          ``slow`` fault waits.
        - ``fault_rate``: the chance that a request without a listed fault gets
          ``fault``, drawn from a generator seeded with ``seed`` (default: the
          server's), one draw per request, so a run is reproducible.

        >>> from retrylab.lab.client import http_send
        >>> with LabServer() as lab:
        ...     lab.script("GET", "/report", statuses=[503], retry_after="soon")
        ...     http_send(lab.url + "/report").detail
        "malformed Retry-After 'soon' ignored: ..."
        """
        key = (check_method(method), check_path(path))
        s = _Script(
            statuses=[_status(x) for x in statuses],
            faults=[None if f is None else check_choice("fault", f, FAULTS) for f in faults],
            retry_after=retry_after,
            latency=check_number("latency", latency, low=0, high=60),
            slow=check_number("slow", slow, low=0, high=60),
            fault_rate=check_number("fault_rate", fault_rate, low=0, high=1),
            fault=check_choice("fault", fault, FAULTS),
            cycle=bool(cycle),
            rng=np.random.default_rng(self.seed if seed is None
                                      else check_int("seed", seed, low=0, high=2**63 - 1)),
        )
        retry_after_header(retry_after)  # checks it now rather than at request time
        with self._lock:
            self._scripts[key] = s

    def unscript(self, method: str, path: str) -> None:
        """Remove the script of ``method path``; the route answers as usual."""
        with self._lock:
            self._scripts.pop((check_method(method), check_path(path)), None)

    # -- handling (called by the request handler threads) ---------------------------

    def _next_step(self, method: str, path: str) -> tuple[int | None, str | None, _Script | None]:
        with self._lock:
            s = self._scripts.get((method, path))
            if s is None:
                return None, None, None
            status, fault = s.step()
            return status, fault, s

    def _record(self, method: str, path: str, status: int | None, key: str | None,
                fault: str | None) -> int:
        """Log one request *before* its answer is written (so a client that has
        the answer also finds it in the log); return its row number."""
        with self._lock:
            self._log.append((round(time.perf_counter() - self._started, 6), method, path,
                              status, key, fault))
            row = len(self._log) - 1
        log.debug("lab %s %s -> %s key=%s fault=%s", method, path, status, key, fault)
        return row

    def _amend(self, row: int, fault: str) -> None:
        """Mark a logged request whose answer could not be written."""
        with self._lock:
            if row < len(self._log):
                self._log[row] = (*self._log[row][:5], fault)

    def _route(self, method: str, path: str, body: bytes, key: str | None) -> Reply:
        """The route's own answer: (status, JSON payload, extra headers)."""
        if path == "/measurements" and method in ("GET", "HEAD"):
            with self._lock:
                self._measurement_requests += 1
                n = self._measurement_requests
            if n <= self.fail_first:
                return 503, {"code": "unavailable",
                             "message": "the station is not answering right now"}, {}
            return 200, MEASUREMENT, {}
        if path == "/measurements" and method == "POST":
            if self.mode == "lesson":
                return 422, {"code": "validation",
                             "message": "the measurement was rejected: the lesson's "
                                        "server rejects every POST"}, {}
            return self._store(body, key)
        if path == "/report":
            return 429, {"code": "rate_limited",
                         "message": "too many report requests; wait 2 seconds"}, \
                {"Retry-After": "2"}
        return 404, {"code": "no_route", "message": f"no route for {method} {path}"}, {}

    def _store(self, body: bytes, key: str | None) -> Reply:
        """Store one measurement; a repeated Idempotency-Key replays the first answer."""
        try:
            doc = json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError) as e:
            return 400, {"code": "malformed_json",
                         "message": f"the body is not valid JSON: {e}"}, {}
        fingerprint = json.dumps(doc, sort_keys=True, separators=(",", ":"))
        errors = validate_measurement(doc)
        with self._lock:
            if key is not None and key in self._keys:
                first, status, payload = self._keys[key]
                if first != fingerprint:
                    return 409, {"code": "idempotency_key_reused",
                                 "message": f"Idempotency-Key {key!r} was first used with a "
                                            "different body; send a new key for a new "
                                            "measurement"}, {}
                return status, payload, {"Idempotent-Replayed": "true"}
            if errors:
                return 422, {"code": "validation", "errors": errors}, {}
            record = {"id": f"o-{FIRST_RECORD + len(self._records)}",
                      "value": float(doc["value"]),
                      "station": doc.get("station", "north-slope"),
                      "ref": doc.get("ref"), "key": key}
            self._records.append(record)
            payload = {k: v for k, v in record.items() if k != "key"}
            if key is not None:
                self._keys[key] = (fingerprint, 201, payload)
        return 201, payload, {"Location": f"/measurements/{record['id']}"}


def validate_measurement(doc: Any) -> dict[str, str]:
    """Field errors of a measurement body (empty when it is valid).

    A measurement is a JSON object with a finite number ``value``, an
    optional ``station`` (text, at most 64 characters) and an optional
    ``ref`` (an integer or text the client uses to find its writes).

    >>> validate_measurement({"value": -4.2})
    {}
    >>> validate_measurement({"value": "cold", "colour": 1})
    {'value': 'must be a finite number', 'colour': 'unknown field'}
    """
    if not isinstance(doc, dict):
        return {"body": "must be a JSON object such as {\"value\": -4.2}"}
    errors: dict[str, str] = {}
    value = doc.get("value")
    if "value" not in doc:
        errors["value"] = "is required"
    elif isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not math.isfinite(value):
        errors["value"] = "must be a finite number"
    station = doc.get("station", "north-slope")
    if not isinstance(station, str) or not 0 < len(station) <= 64:
        errors["station"] = "must be text of 1 to 64 characters"
    ref = doc.get("ref")
    if ref is not None and (isinstance(ref, bool) or not isinstance(ref, (int, str))):
        errors["ref"] = "must be an integer or text"
    for name in doc:
        if name not in RECORD_FIELDS:
            errors[str(name)] = "unknown field"
    return errors


def _status(status: int | None) -> int | None:
    return None if status is None else check_int("statuses", status, low=100, high=599)


class _HTTPServer(ThreadingHTTPServer):
    """ThreadingHTTPServer that tracks its connections and never prints."""

    daemon_threads = True
    block_on_close = False
    lab: LabServer

    def process_request(self, request: Any, client_address: Any) -> None:
        with self.lab._lock:
            self.lab._conns.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self.lab._lock:
            self.lab._conns.discard(request)
        super().shutdown_request(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        log.debug("lab: error while handling a request from %s", client_address,
                  exc_info=True)


class _Handler(BaseHTTPRequestHandler):
    """Reads one request, asks the lab what to do, applies the faults."""

    protocol_version = "HTTP/1.1"
    server_version = "retrylab-lab/0.1"
    sys_version = ""
    disable_nagle_algorithm = True

    @property
    def lab(self) -> LabServer:
        return cast(_HTTPServer, self.server).lab

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the lab keeps its own log (``lab.log``)."""

    def do_GET(self) -> None:
        self._dispatch()

    do_HEAD = do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = do_GET

    def send_error(self, code: int, message: str | None = None,
                   explain: str | None = None) -> None:
        """Errors found while parsing the request line or headers, as JSON."""
        self.close_connection = True
        text = message or HTTPStatus(code).phrase
        self.lab._record(self.command or "?", getattr(self, "path", "?") or "?", code,
                         None, None)
        self._reply(code, {"code": "bad_request", "message": text}, {})

    # -- one request ----------------------------------------------------------------

    def _dispatch(self) -> None:
        lab = self.lab
        method = self.command.upper()
        path = urlsplit(self.path).path
        key = self.headers.get("Idempotency-Key")
        problem = _bad_key(key)
        body, error = self._read_body()
        if body is None:  # the client went away mid-body: nothing to answer
            self.close_connection = True
            lab._record(method, path, None, key, "client gone")
            return
        if error is None and problem is not None:
            error = (400, {"code": "bad_header", "message": problem}, {})
        if error is not None:
            status, payload, headers = error
            lab._record(method, path, status, key, None)
            self._reply(status, payload, headers)
            return
        scripted, fault, script = lab._next_step(method, path)
        if fault == "close":
            self.close_connection = True
            lab._record(method, path, None, key, fault)
            return
        delay = (script.latency if script else 0.0) + \
            (script.slow if script and fault == "slow" else 0.0)
        if delay and lab._stopping.wait(delay):
            self.close_connection = True
            lab._record(method, path, None, key, "server closed")
            return
        if scripted is not None:
            status, payload, headers = scripted, {
                "code": "scripted", "status": scripted,
                "message": HTTPStatus(scripted).phrase if scripted in _PHRASES else ""}, {}
        else:
            status, payload, headers = lab._route(method, path, body, key)
        if fault == "fail_after":
            status, payload, headers = 500, {
                "code": "internal", "message": "the server failed after handling the "
                                               "request"}, {}
        if script is not None and status >= 400:
            text = retry_after_header(script.retry_after)
            if text is not None:
                headers["Retry-After"] = text
        if fault == "drop":
            self.close_connection = True
            lab._record(method, path, status, key, fault)
            return
        if fault == "bad_retry_after":
            headers["Retry-After"] = "soon"
        raw = b'{"id": "o-114", "value": -4.' if fault == "bad_json" else None
        row = lab._record(method, path, status, key, fault)
        try:
            self._reply(status, payload, headers, raw=raw)
        except OSError:
            self.close_connection = True
            lab._amend(row, "client gone")

    def _read_body(self) -> tuple[bytes | None, Reply | None]:
        """The request body, or an error answer; ``None`` if the client left."""
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            self.close_connection = True
            return b"", (411, {"code": "length_required",
                               "message": "send the body with a Content-Length"}, {})
        lengths = self.headers.get_all("Content-Length") or []
        if not lengths:
            return b"", None
        text = lengths[0].strip()
        if len(set(lengths)) > 1 or not text.isdigit():
            self.close_connection = True
            shown = lengths[0] if len(lengths) == 1 else ", ".join(lengths)
            return b"", (400, {"code": "bad_header",
                               "message": f"Content-Length {shown!r} is not one whole "
                                          "number of bytes"}, {})
        n = int(text)
        limit = self.lab.max_body
        if n > limit:
            if n <= _DRAIN_LIMIT:
                _ = self.rfile.read(n)  # read it so the connection stays usable
            else:
                self.close_connection = True
            return b"", (413, {"code": "too_large",
                               "message": f"the body has {n} bytes; at most {limit} "
                                          "are accepted"}, {})
        data = self.rfile.read(n)
        if len(data) < n:
            return None, None
        return data, None

    def _reply(self, status: int, payload: Any, headers: dict[str, str],
               raw: bytes | None = None) -> None:
        body = raw if raw is not None else json.dumps(payload).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers.items():
            self.send_header(name, value)
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)


_PHRASES = {s.value for s in HTTPStatus}


def _bad_key(key: str | None) -> str | None:
    if key is None:
        return None
    if not 0 < len(key) <= MAX_KEY or not key.isprintable():
        return (f"Idempotency-Key {key[:40]!r} is not 1 to {MAX_KEY} printable "
                "characters")
    return None


_LIVE: weakref.WeakSet[LabServer] = weakref.WeakSet()


@atexit.register
def _close_live_servers() -> None:
    LabServer.close_all()
