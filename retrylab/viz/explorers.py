"""Slider explorers for the notebooks: one call returns a ready :class:`~retrylab.figure.Explorer`.

Use them in a notebook cell of their own (``backoff_explorer()``), then prove
the wiring in the next cell with ``ex.set(...)`` and the readout. Each class
also computes its readout without widgets (``HerdExplorer.readout_for(...)``),
which is what tests and browser checks compare the page with.

- :func:`backoff_explorer`: base, factor, cap, jitter, growth, retries -> the waits;
- :func:`herd_explorer`: the same plus clients, attempt, width -> the herd histograms;
- :func:`breaker_explorer`: threshold, cooldown, step -> state diagram and timeline;
- :func:`decision_explorer`: method, error, idempotency key -> retry or not, and why.

>>> HerdExplorer.readout_for()
'peak 24 -> 7 clients per 200 ms (0.29x)'
>>> BreakerExplorer.readout_for()
'sent 6, blocked 3; state closed at 11800 ms (event 9 of 9)'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from matplotlib.figure import Figure

from ..core._check import check_choice
from ..core.backoff import JITTERS, Backoff
from ..core.breaker import CircuitBreaker, State, TraceRow, replay
from ..core.constants import BREAKER_EVENTS, SEED
from ..core.outcome import Decision, Outcome, decide
from .breakerplot import BreakerPlot
from .figure import Explorer, choice_slider, float_slider, int_slider
from .herdplot import HerdData, HerdPlot, herd_data
from .schedule import Schedule, WaitBarsPlot, schedule_data

__all__ = [
    "BackoffExplorer",
    "BreakerExplorer",
    "DecisionExplorer",
    "HerdExplorer",
    "backoff_explorer",
    "breaker_explorer",
    "decision_explorer",
    "herd_explorer",
]

MAX_RETRIES = 12


def _backoff_controls(continuous: bool) -> dict[str, Any]:
    return {
        "base": int_slider("base", 200, 50, 2000, 50, continuous_update=continuous),
        "factor": float_slider("factor", 2.0, 1.0, 4.0, 0.25, continuous_update=continuous,
                               readout_format=".2f"),
        "cap": int_slider("cap", 5000, 100, 20000, 100, continuous_update=continuous),
        "jitter": choice_slider("jitter", JITTERS, "full", continuous_update=continuous),
    }


# -- the wait schedule --------------------------------------------------------------

#: The growths in the order a slider shows them: the mobile lesson's fixed,
#: incremental and exponential strategies.
GROWTH_CHOICES = ("constant", "linear", "exponential")


class BackoffExplorer(Explorer):
    """The waits before each retry for one backoff: bars, the jitter range, the ceiling, the cap.

    ``growth`` gives the mobile lesson's strategies: ``"constant"`` (fixed
    interval), ``"linear"`` (incremental, step = base) and ``"exponential"``
    (``factor``, which the other two ignore).

    >>> BackoffExplorer.readout_for(jitter="none")
    'waits 200, 400, 800, 1600, 3200, 5000 ms; total 11200 ms (none jitter, seed 20260114)'
    >>> BackoffExplorer.readout_for(growth="constant", jitter="none", base=2000, retries=3)
    'waits 2000, 2000, 2000 ms; total 6000 ms (none jitter, seed 20260114)'
    """

    title = "wait schedule"
    figsize = (8.0, 4.4)
    freeze_layout = True
    prefetch = True

    @classmethod
    def make_controls(cls) -> dict[str, Any]:
        controls = _backoff_controls(continuous=True)
        controls["growth"] = choice_slider("growth", GROWTH_CHOICES, "exponential")
        controls["retries"] = int_slider("retries", 6, 1, MAX_RETRIES)
        return controls

    @classmethod
    def compute(cls, base: int, factor: float, cap: int, jitter: str, growth: str,
                retries: int) -> Schedule:
        b = Backoff(base, factor, cap, jitter=jitter, growth=growth)  # type: ignore[arg-type]
        return schedule_data(b, retries, SEED)

    @classmethod
    def readout_text(cls, result: Schedule) -> str:
        waits = ", ".join(str(w) for w in result.waits)
        return (f"waits {waits} ms; total {sum(result.waits)} ms "
                f"({result.backoff.jitter} jitter, seed {result.seed})")

    def setup(self, fig: Figure) -> None:
        self.plot = WaitBarsPlot(fig, slots=MAX_RETRIES)
        # lay out for the widest labels the sliders allow: 5-digit waits, two-line title
        self.plot.ax.set_ylim(0, 22000)
        self.plot.ax.set_title("exponential backoff, full jitter: base 2000 ms x 4, cap "
                               "20000 ms\ntotal wait over 12 retries: 200000 ms")

    def draw(self, result: Schedule) -> None:
        self.plot.update(result)


def backoff_explorer(**values: Any) -> BackoffExplorer:
    """Sliders base, factor, cap, jitter, growth, retries redrawing one backoff's waits."""
    return BackoffExplorer(**values)


# -- the herd -----------------------------------------------------------------------


class HerdExplorer(Explorer):
    """Wake-up histograms of a herd without and with jitter; the readout gives the peaks.

    >>> HerdExplorer.readout_for(clients=10000, attempt=4)
    'peak 10000 -> 1297 clients per 200 ms (0.13x)'
    """

    title = "the herd"
    figsize = (9.0, 4.4)
    freeze_layout = True
    prefetch = True

    @classmethod
    def make_controls(cls) -> dict[str, Any]:
        controls = _backoff_controls(continuous=False)
        controls["clients"] = int_slider("clients", 24, 1, 10000, continuous_update=False)
        controls["attempt"] = int_slider("attempt", 3, 1, 10, continuous_update=False)
        controls["width"] = int_slider("width", 200, 50, 1000, 50, continuous_update=False)
        return controls

    @classmethod
    def compute(cls, base: int, factor: float, cap: int, jitter: str, clients: int,
                attempt: int, width: int) -> HerdData:
        b = Backoff(base, factor, cap, jitter=jitter)  # type: ignore[arg-type]
        return herd_data(b, clients, attempt, SEED, width)

    @classmethod
    def readout_text(cls, result: HerdData) -> str:
        return result.summary()

    def setup(self, fig: Figure) -> None:
        self.plot = HerdPlot(fig)
        # lay out for the widest labels the sliders allow: 10000 clients, two-line title
        self.plot.axes[0].set_ylim(0, 11000)
        self.plot.axes[0].set_xlim(0, 20000)
        self.plot.axes[1].set_xlim(0, 20000)
        for ax in self.plot.axes:
            ax.set_title("decorrelated jitter: peak 10000 per 1000 ms")
        self.plot.title.set_text("10000 clients failed together\npeak 10000 -> 10000")

    def draw(self, result: HerdData) -> None:
        self.plot.update(result)


def herd_explorer(**values: Any) -> HerdExplorer:
    """Sliders base, factor, cap, jitter, clients, attempt, width redrawing the herd."""
    return HerdExplorer(**values)


# -- the breaker --------------------------------------------------------------------


@dataclass(frozen=True)
class BreakerRun:
    """The lesson's events replayed: every row, and the breaker after ``step`` of them."""

    threshold: int
    cooldown: int
    step: int
    rows: tuple[TraceRow, ...]
    counts: dict[tuple[State, State], int]
    state: State

    @property
    def sent(self) -> int:
        """Requests sent among the first ``step`` events."""
        return sum(r.allowed for r in self.rows[:self.step])

    @property
    def blocked(self) -> int:
        """Requests refused among the first ``step`` events."""
        return self.step - self.sent


class BreakerExplorer(Explorer):
    """The lesson's nine events through a breaker: threshold, cooldown, and a step slider.

    >>> BreakerExplorer.readout_for(threshold=4)
    'sent 7, blocked 2; state closed at 11800 ms (event 9 of 9)'
    >>> BreakerExplorer.readout_for(step=4)
    'sent 3, blocked 1; state open at 900 ms (event 4 of 9)'
    """

    title = "circuit breaker"
    figsize = (10.0, 4.6)
    blit = True
    prefetch = True

    @classmethod
    def make_controls(cls) -> dict[str, Any]:
        n = len(BREAKER_EVENTS)
        return {
            "threshold": int_slider("threshold", 3, 1, 6, continuous_update=False),
            "cooldown": int_slider("cooldown", 5000, 0, 10000, 500, continuous_update=False),
            "step": int_slider("step", n, 0, n, continuous_update=False),
        }

    @classmethod
    def compute(cls, threshold: int, cooldown: int, step: int) -> BreakerRun:
        rows = tuple(replay(BREAKER_EVENTS, CircuitBreaker(threshold, cooldown)))
        cb = CircuitBreaker(threshold, cooldown)
        replay(BREAKER_EVENTS[:step], cb)
        return BreakerRun(threshold, cooldown, step, rows, dict(cb.transition_counts()),
                          cb.state)

    @classmethod
    def readout_text(cls, result: BreakerRun) -> str:
        head = f"sent {result.sent}, blocked {result.blocked}; state {result.state.value}"
        if result.step == 0:
            return f"{head} before the first event"
        return (f"{head} at {result.rows[result.step - 1].now} ms "
                f"(event {result.step} of {len(result.rows)})")

    def setup(self, fig: Figure) -> None:
        self.plot = BreakerPlot(fig, animated=True)

    def draw(self, result: BreakerRun) -> None:
        self.plot.update(result.rows, result.cooldown, result.threshold, result.step,
                         result.counts, result.state)


def breaker_explorer(**values: Any) -> BreakerExplorer:
    """Sliders threshold, cooldown and step redrawing the state diagram and the timeline."""
    return BreakerExplorer(**values)


# -- the retry decision -------------------------------------------------------------

METHODS: tuple[str, ...] = ("GET", "HEAD", "OPTIONS", "PUT", "DELETE", "POST", "PATCH")
ERRORS: tuple[str, ...] = ("200", "404", "422", "429", "500", "503", "network", "body",
                           "cancelled")


def outcome_for(error: str) -> Outcome:
    """The :class:`Outcome` a choice of the decision explorer stands for.

    >>> outcome_for("503"), outcome_for("network").kind
    (Outcome(kind='http', status=503), 'network')
    """
    check_choice("error", error, ERRORS)
    if error == "200":
        return Outcome.success()
    if error.isdigit():
        return Outcome.http(int(error))
    if error == "network":
        return Outcome.network()
    if error == "body":
        return Outcome.body()
    return Outcome.cancelled()


class DecisionExplorer(Explorer):
    """Pick a method, an error and whether an idempotency key was agreed: retry or not?

    >>> DecisionExplorer.readout_for()
    'POST, network error, no idempotency key -> do not retry: network error on POST without an
    idempotency key: the server may have acted; retrying could do it twice'
    >>> DecisionExplorer.readout_for(idempotency_key=True).split(": ")[0]
    'POST, network error, with an idempotency key -> retry'
    """

    title = "retry decision"
    figsize = None

    @classmethod
    def make_controls(cls) -> dict[str, Any]:
        return {
            "method": choice_slider("method", METHODS, "POST"),
            "error": choice_slider("error", ERRORS, "network"),
            "idempotency_key": choice_slider("idempotency_key", [("no", False),
                                                                 ("yes", True)], False),
        }

    @classmethod
    def compute(cls, method: str, error: str, idempotency_key: bool) -> tuple[str, str, bool,
                                                                              Decision]:
        return method, error, bool(idempotency_key), decide(outcome_for(error), method,
                                                            bool(idempotency_key))

    @classmethod
    def readout_text(cls, result: tuple[str, str, bool, Decision]) -> str:
        method, error, key, decision = result
        what = f"HTTP {error}" if error.isdigit() else f"{error} error"
        keyed = "with an idempotency key" if key else "no idempotency key"
        verdict = "retry" if decision.retry else "do not retry"
        return f"{method}, {what}, {keyed} -> {verdict}: {decision.reason}"


def decision_explorer(**values: Any) -> DecisionExplorer:
    """Choices method, error and idempotency_key showing ``decide``'s verdict and reason."""
    return DecisionExplorer(**values)
