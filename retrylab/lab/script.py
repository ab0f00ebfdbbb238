"""What a lab route does wrong on purpose: the faults, the scripts, the Retry-After text.

Use :meth:`retrylab.lab.server.LabServer.script` to set these; this module
holds their definitions.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from email.utils import format_datetime
from typing import Any

import numpy as np

from ..core._check import check_number

#: What a script can make the server do wrong:
#: ``close`` closes the connection before handling (nothing happens on the server);
#: ``drop`` handles the request, then closes without answering (the lesson's
#: "the server processed it but the answer was lost");
#: ``slow`` waits ``slow`` seconds before answering (longer than the client's timeout);
#: ``bad_retry_after`` sends ``Retry-After: soon``; ``bad_json`` sends a body that is not JSON;
#: ``fail_after`` handles the request, then answers 500 (the server acted, then failed);
#: ``truncate`` handles the request, then sends half of the answer's body and closes;
#: ``reset`` handles the request, then resets the connection (a TCP RST, no answer).
FAULTS: tuple[str, ...] = (
    "close",
    "drop",
    "slow",
    "bad_retry_after",
    "bad_json",
    "fail_after",
    "truncate",
    "reset",
)

RetryAfter = float | int | datetime | str | None
_VISIBLE = re.compile(r"[\x20-\x7e]*")  # what a raw Retry-After string may hold


@dataclass
class Script:
    """What a route does for its next requests (see ``LabServer.script``)."""

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
        """The scripted status and fault for the next request, if any.

        >>> Script(statuses=[503], faults=["drop"]).step()
        (503, 'drop')
        """
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

    A raw string is sent as it is (to test clients with malformed values), but
    only printable ASCII: a CR or LF would split the lab's own answer.

    >>> retry_after_header(2), retry_after_header(None)
    ('2', None)
    >>> from datetime import datetime, timezone
    >>> retry_after_header(datetime(2026, 1, 14, 10, 0, 5, tzinfo=timezone.utc))
    'Wed, 14 Jan 2026 10:00:05 GMT'
    >>> retry_after_header("2\\r\\nSet-Cookie: x=1")
    Traceback (most recent call last):
    ...
    ValueError: retry_after='2\\r\\nSet-Cookie: x=1' is out of range: ...
    """
    if value is None:
        return None
    if isinstance(value, datetime):
        if value.tzinfo is None:
            raise ValueError(
                f"retry_after={value!r} is out of range: retry_after must be "
                "a timezone-aware datetime (an HTTP-date is in GMT)"
            )
        return format_datetime(value.astimezone(timezone.utc), usegmt=True)
    if isinstance(value, str):
        if not _VISIBLE.fullmatch(value):
            raise ValueError(
                f"retry_after={value!r} is out of range: a raw retry_after "
                "must be printable ASCII (no CR, LF or other control "
                "characters)"
            )
        return value
    seconds = check_number("retry_after", value, low=0, high=86_400)
    return str(math.ceil(seconds))
