"""Run by .ci/run in a venv that has only ``pip install .``: no matplotlib, no extras.

The base install must give the whole core, the simulator and the lab; the viz
layer must refuse with a message that names the extra to install.
"""

from __future__ import annotations

import importlib.util
import sys

from retrylab import (
    Backoff,
    LabServer,
    Mulberry32,
    Outcome,
    RetryPolicy,
    contention,
    sender,
)

assert importlib.util.find_spec("matplotlib") is None, "this check needs a venv without extras"

answers = iter([Outcome.http(503), Outcome.http(503), Outcome.success()])
r = RetryPolicy(max_attempts=4, backoff=Backoff(200, 2, 5000, jitter="full")).run(
    lambda: next(answers), method="GET", rng=Mulberry32(20260114), sleep=lambda ms: None
)
assert (r.attempts, r.waits) == (3, (70, 184)), (r.attempts, r.waits)

with LabServer() as lab:
    got = RetryPolicy().run(
        sender(lab.url + "/measurements"), "GET", Mulberry32(20260114), sleep=lambda ms: None
    )
assert (got.attempts, got.waits, got.outcome.kind) == (3, (70, 184), "success"), got

c = contention(10, "full", runs=3)
assert c.calls > 0 and c.time_ms > 0

try:
    import retrylab.viz.explorer  # noqa: F401
except ImportError as e:
    assert 'pip install "retrylab[notebooks]"' in str(e), e
else:
    sys.exit("retrylab.viz imported without matplotlib")
try:
    from retrylab import to_tenacity  # noqa: F401
except ImportError as e:
    assert 'pip install "retrylab[bridge]"' in str(e), e
else:
    sys.exit("retrylab.to_tenacity imported without the bridge extra")
star: dict[str, object] = {}
exec("from retrylab import *", star)  # no bridge names asked for without the extra
assert "RetryPolicy" in star and "to_tenacity" not in star, sorted(star)
print(
    f"base install: RetryPolicy {r.waits}, LabServer {got.attempts} attempts, "
    f"contention {c.calls:.0f} calls; viz and the bridge name their extras"
)
