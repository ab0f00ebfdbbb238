"""The nbgrader course's hidden tests: what each graded exercise is graded on.

A test cell of the course source (tools/build_notebooks.py: nbgrader_notebook)
shows the checker's verdict, for the student, and then runs a *hidden test*
(nbgrader's ``### BEGIN HIDDEN TESTS``: in the course source, never in the
release). The hidden test trusts nothing the answers could have reached or
redefined in the kernel (the checker, an unlocked name; ``Feedback``, a class
anyone can patch; the package's reference code, which a "write it yourself"
answer could call): it prints the answer's *plain values* (ints, floats,
strings, lists of them, of exact built-in types: no object of the student's
making) on one line, ``RETRYLAB-GOT [check, values]``. The grader judges that
line (classroom/nbgrader/hidden_results.py, an nbgrader preprocessor) against
:data:`EXPECTED_FILE`, in the teacher's course files, recorded from the
solutions by ``python tools/build_notebooks.py --edition nbgrader --record``.
The expected values never enter the kernel, so a kernel a submission patched
(a transformer that empties the test cells, a ``Feedback`` always true) scores
only by printing the right answer.

Three kinds of exercise (:data:`PROBES`; every exercise not listed is "value"):

    value    the answer's names, as plain values (numbers within the exercise's
             margin; a set in any order)
    call     a function or class to write: pickled by value (cloudpickle), run
             in a fresh interpreter (``python -I``) on inputs the student never
             sees, with the library's own implementation of it replaced by
             tripwires, so an answer that delegates to it fails; its results
    checker  a policy to design (several answers are right): its fields, which
             the grader rebuilds into the library object for the package's
             checker to judge

What this does not stop: a submission whose code, patching the kernel, prints
the right values it computed some other way (e.g. by the library, outside the
fresh interpreter's tripwires): that takes knowing where the answer is, and the
answer is what the exercise asks.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: The expected plain values, by check name: teacher's course files only.
EXPECTED_FILE = ROOT / "classroom" / "nbgrader" / "expected.json"


@dataclass(frozen=True)
class Probe:
    """How one exercise is graded (see the module's docstring)."""

    kind: str = "value"
    #: "call": Python run in the fresh interpreter with ``f`` the student's
    #: function or class; it sets ``result`` (plain values only)
    code: str = ""
    #: "call": "module:attribute.path" of the library's own answer, made to raise
    tripwires: tuple[str, ...] = ()
    #: numbers: how far from the expected value still counts (the checker's own margin)
    tol: float = 1e-9
    #: "checker": which library object the answer is ("policy" or "urllib3")
    rebuild: str = ""
    #: names graded, when not the check call's own arguments
    names: tuple[str, ...] = field(default_factory=tuple)


_JITTERS = tuple(
    f"retrylab.core.backoff:Backoff.{m}"
    for m in ("next_wait", "next_waits", "jittered", "waits", "_waits")
)
_DECIDE = (
    "retrylab.core.outcome:should_retry",
    "retrylab.core.outcome:decide",
    "retrylab.core.outcome:decision_table",
    "retrylab.core.outcome:StatusRule.__call__",
    "retrylab.core.production:production_rule",
    "retrylab.core.policy:RetryPolicy.decide",
)

PROBES: dict[str, Probe] = {
    "check_full_jitter": Probe(
        "call",
        """
result = [f(n, r) for n in range(10) for r in (0.0, 0.0025, 0.1234, 0.5, 0.77, 0.9999)]
""",
        _JITTERS,
    ),
    "check_decorrelated": Probe(
        "call",
        """
result = [f(p, r) for p in (200, 350, 1000, 2600, 5000)
          for r in (0.0, 0.0025, 0.3, 0.5, 0.9999)]
""",
        _JITTERS,
    ),
    "check_should_retry": Probe(
        "call",
        """
from retrylab.core.outcome import Outcome
outcomes = [Outcome.success(), Outcome.network(), Outcome.body(), Outcome.cancelled(),
            *(Outcome.http(s) for s in (400, 404, 408, 409, 429, 500, 501, 502, 503, 504))]
result = [bool(f(o, m, k)) if type(f(o, m, k)) in (bool, int) else None
          for o in outcomes for m in ("GET", "HEAD", "OPTIONS", "PUT", "DELETE", "POST")
          for k in (False, True)]
""",
        _DECIDE,
    ),
    "check_retry_loop": Probe(
        "call",
        """
from retrylab.core.outcome import Outcome
scenarios = [
    ([Outcome.http(503), Outcome.http(503), Outcome.success()], "GET", 5),
    ([Outcome.network()] * 6, "GET", 4),
    ([Outcome.network(), Outcome.success()], "POST", 4),
    ([Outcome.http(429, retry_after=3.0), Outcome.success()], "GET", 3),
    ([Outcome.http(404), Outcome.success()], "GET", 3),
    ([Outcome.http(500)] * 3, "GET", 1),
    ([Outcome.http(502, retry_after=0.0004)] * 5, "GET", 5),
]
result = []
for answers, method, most in scenarios:
    left, slept = iter(answers), []
    draws = iter([0.5, 0.25, 0.9, 0.1, 0.7, 0.3, 0.6, 0.05] * 2)
    attempts, last, waits = f(lambda: next(left), method, most, slept.append, lambda: next(draws))
    index = next((i for i, o in enumerate(answers) if o is last), -1)
    result.append([attempts, index, list(waits), slept])
""",
        ("retrylab.core.policy:RetryPolicy.run", "retrylab.core.policy:RetryPolicy.runs"),
    ),
    "check_breaker": Probe(
        "call",
        """
result = []
for threshold, cooldown in ((3, 2000), (2, 5000), (1, 1000)):
    b, row = f(threshold, cooldown), []
    for now, ok in ((0, False), (100, False), (200, False), (300, True), (1000, True),
                    (2199, True), (2200, False), (2300, True), (4000, True), (4400, True),
                    (4500, False), (4600, True), (5300, False), (7400, True),
                    (9999, True), (12000, True), (12001, False), (15000, True)):
        allowed = b.allow(now)
        if type(allowed) is not bool:
            raise TypeError("allow(now) returns True or False")
        if allowed:
            b.record(ok, now)
        row.append(allowed)
    result.append(row)
""",
        tuple(
            f"retrylab.core.breaker:CircuitBreaker.{m}"
            for m in ("__init__", "allow", "record", "_advance", "_open", "_move")
        ),
    ),
    "check_failure_rate": Probe(
        "call",
        """
cases = [([], 1), ([True], 2), ([True, False], 2), ([False] * 5, 3), ([False] * 5, 6),
         ([True, True, False, True], 4), ([True, False, False], 1), ([False, True], 0)]
result = [f(list(failed), minimum) for failed, minimum in cases]
""",
        (
            "retrylab.core.ratebreaker:RateWindow.failure_rate",
            "retrylab.core.ratebreaker:RateBreaker.failure_rate",
        ),
    ),
    "check_sre_probability": Probe(
        "call",
        """
cases = [(0, 0, 2), (10, 5, 2), (100, 20, 2), (100, 10, 1.5), (50, 50, 2), (7, 1, 2),
         (1000, 100, 1.1), (3, 0, 2)]
result = [f(*c) for c in cases]
""",
        ("retrylab.core.throttle:AdaptiveThrottle.reject_probability",),
    ),
    "check_hedged_latency": Probe(
        "call",
        """
cases = [(50, 500, 100), (150, 30, 100), (150, 80, 100), (100, 5, 100), (300, 300, 100),
         (120, 10, 100), (99.5, 0.25, 99), (400, 1, 0)]
result = [f(*c) for c in cases]
""",
        ("retrylab.sim.hedged:hedged_latencies", "retrylab.sim.hedged:hedge_stats"),
    ),
    "check_refresh_policy": Probe("checker", rebuild="policy"),
    "check_outage_policy": Probe("checker", rebuild="policy"),
    "check_capstone": Probe("checker", rebuild="policy"),
    "check_urllib3_retry": Probe("checker", rebuild="urllib3"),
    # the checkers' own margins
    "check_expected_duplicates": Probe(tol=1.0),
    "check_jitter_calls_ratio": Probe(tol=0.01),
}


def probe(check: str) -> Probe:
    return PROBES.get(check, Probe())


#: Kernel side: the answer as plain values (exact built-in types only), printed on one
#: line for the grader (classroom/nbgrader/hidden_results.py), which holds the expected
#: values: nothing the kernel sees could tell a patched kernel what to print.
_KERNEL = r"""
def _hidden_test(answer):
    '''The answer's plain values, computed afresh, for the grader to judge.'''
    import builtins as B
    import json
    import subprocess
    import sys

    import numpy

    NUMPY = (numpy.int64, numpy.int32, numpy.float64, numpy.float32, numpy.bool_)

    def plain(x):
        t = B.type(x)
        if x is None or t in (B.bool, B.int, B.float, B.str):
            return x
        if t in NUMPY:
            return plain(x.item())
        if t is numpy.ndarray:
            return plain(x.tolist())
        if t in (B.list, B.tuple):
            return [plain(v) for v in x]
        if t in (B.set, B.frozenset):
            return {"set": B.sorted((plain(v) for v in x), key=B.repr)}
        raise B.TypeError(f"{t.__name__} is not a plain value (a number, a string, a list)")

    if KIND == "value":
        got = plain(answer)
    elif KIND == "call":
        import cloudpickle
        done = subprocess.run([sys.executable, "-I", "-c", CHILD, json.dumps(sys.path),
                               json.dumps(TRIPWIRES)],
                              input=cloudpickle.dumps(answer), capture_output=True, timeout=120)
        lines = done.stdout.decode(errors="replace").strip().splitlines()
        if done.returncode or not lines:
            why = done.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["no result"]
            raise AssertionError(f"your answer, run on its own, failed: {why[0]}")
        got = json.loads(lines[-1])
    else:
        got = fields(answer, plain)
    print("RETRYLAB-GOT " + json.dumps([CHECK, got]))


def fields(answer, plain):
    '''The fields of a library object to design, plain; only the library's own type.'''
    import builtins as B
    import dataclasses
    import inspect
    if REBUILD == "policy":
        from retrylab.core.backoff import Backoff
        from retrylab.core.policy import RetryPolicy
        if B.type(answer) is not RetryPolicy or B.type(answer.backoff) is not Backoff:
            raise B.TypeError("the answer is a RetryPolicy(...)")
        out = {f.name: plain(getattr(answer, f.name)) for f in dataclasses.fields(RetryPolicy)
               if f.name != "backoff"}
        out["backoff"] = {f.name: plain(getattr(answer.backoff, f.name))
                          for f in dataclasses.fields(Backoff) if f.init}
        return out
    from urllib3.util.retry import Retry
    if B.type(answer) is not Retry:
        raise B.TypeError("the answer is a urllib3 Retry(...)")
    names = [p for p in inspect.signature(Retry).parameters if p != "history"]
    return {n: plain(getattr(answer, n)) for n in names if hasattr(answer, n)}
"""

#: Child side of a "call": a fresh interpreter (``python -I``), nothing of the kernel's
#: but the path; the library's own answer made to raise; the results, plain.
_CHILD = r"""
import importlib, json, pickle, sys
sys.path[:] = json.loads(sys.argv[1])

def plain(x):
    t = type(x)
    if x is None or t in (bool, int, float, str):
        return x
    if t.__module__ == "numpy":
        import numpy
        if t in (numpy.int64, numpy.int32, numpy.float64, numpy.float32, numpy.bool_):
            return plain(x.item())
    if t in (list, tuple):
        return [plain(v) for v in x]
    raise TypeError(f"{t.__name__} is not a plain value (a number, a string, a list)")

def trip(spec):
    module, _, path = spec.partition(":")
    owner = importlib.import_module(module)
    *outer, name = path.split(".")
    for part in outer:
        owner = getattr(owner, part, None)
        if owner is None:
            return
    def tripwire(*args, **kwargs):
        raise RuntimeError(f"this exercise is to write it yourself, not to call {path}")
    if hasattr(owner, name):
        setattr(owner, name, tripwire)

data = sys.stdin.buffer.read()
for spec in json.loads(sys.argv[2]):
    trip(spec)
f = pickle.loads(data)
PROBE
print(json.dumps(plain(result)))
"""


def hidden_test(check_line: str) -> str:
    """The hidden-test lines of the test cell for ``check_line`` (``check_x(a, b)``)."""
    check, args = re.match(r"^(check_\w+)\((.*)\)$", check_line).groups()  # type: ignore[union-attr]
    p = probe(check)
    names = list(p.names) or [a.strip() for a in args.split(",") if a.strip()]
    answer = names[0] if len(names) == 1 else "(" + ", ".join(names) + ")"
    child = _CHILD.replace("PROBE\n", p.code.strip() + "\n")
    constants = (
        f"CHECK = {check!r}\nKIND = {p.kind!r}\n"
        f"TRIPWIRES = {list(p.tripwires)!r}\nREBUILD = {p.rebuild!r}\n"
        f"CHILD = {child!r}\n"
    )
    return (
        "### BEGIN HIDDEN TESTS\n" + constants + _KERNEL.strip() + "\n\n\n"
        f"_hidden_test({answer})\n"
        "del _hidden_test, fields, CHECK, KIND, TRIPWIRES, REBUILD, CHILD\n"
        "### END HIDDEN TESTS"
    )


def grading_table(values: dict[str, object]) -> dict[str, object]:
    """What the grader judges with (:data:`EXPECTED_FILE`): each value exercise's expected
    value and margin, each design exercise's library object."""
    return {
        "about": "The nbgrader course's hidden tests: expected plain values and how "
        "each is judged (tools/hidden_tests.py, classroom/nbgrader/"
        "hidden_results.py); the teacher's course files only. Made by: "
        "python tools/build_notebooks.py --edition nbgrader --record",
        "expected": {k: v for k, v in sorted(values.items()) if probe(k).kind != "checker"},
        "tolerance": {k: p.tol for k, p in sorted(PROBES.items()) if p.tol != Probe().tol},
        "rebuild": {k: p.rebuild for k, p in sorted(PROBES.items()) if p.kind == "checker"},
    }


def expected_values() -> dict[str, object]:
    """check name -> expected plain value, from :data:`EXPECTED_FILE` (``{}`` if none)."""
    if not EXPECTED_FILE.exists():
        return {}
    values: dict[str, object] = json.loads(EXPECTED_FILE.read_text())["expected"]
    return values


def recorded(outputs_text: str) -> dict[str, object]:
    """The values a run of the solutions printed (``RETRYLAB-GOT [check, value]``)."""
    found: dict[str, object] = {}
    for line in outputs_text.splitlines():
        if line.startswith("RETRYLAB-GOT "):
            check, value = json.loads(line.split(" ", 1)[1])
            found[check] = value
    return found
