"""Why a key press drew the same image: the note an explorer shows when a move changes
nothing in the figure (a cap above every ceiling, more attempts than the run uses).

ipywidgets sends nothing for an unchanged value, so an image that stays the same
looks, to a student, like a key press that was lost. The explorer compares the
new PNG with the one on screen and, when they are the same bytes, says so in its
limit line, with the reason its class knows
(:meth:`~retrylab.viz.explorer.Explorer.unchanged_reason`) or this module's
general sentence. Each reason is a whole sentence of the catalogue.

>>> same_figure_note("cap (ms)", 5100)
'the same figure: at these settings cap (ms) 5100 changes nothing the figure shows'
>>> cap_above_ceilings(5100)
'the same figure: cap 5100 ms is above every ceiling here, so no wait reaches it'
>>> more_than_used("attempts", 10, 11)
'the same figure: no client in this run makes more than 10 attempts, so allowing 11 changes nothing'
"""

from __future__ import annotations

from typing import Any

from ..i18n import _, number

__all__ = [
    "all_capped",
    "cap_above_ceilings",
    "more_than_used",
    "no_wait_reaches_cap",
    "same_figure_note",
    "same_steps",
    "throttle_rejects_nothing",
]


def _n(value: Any) -> str:
    """A slider's value as the note writes it (a float slider's 3.5000000000000004: 3.5)."""
    return number(round(value, 6)) if isinstance(value, float) else str(value)


def same_figure_note(label: str, value: Any) -> str:
    """The general note: control ``label`` moved to ``value`` and the figure is the same."""
    return _(
        "the same figure: at these settings {name} {value} changes nothing the figure shows"
    ).format(name=label, value=_n(value))


def cap_above_ceilings(cap: int) -> str:
    """A cap above every ceiling the figure shows: no wait reaches it."""
    return _(
        "the same figure: cap {cap} ms is above every ceiling here, so no wait reaches it"
    ).format(cap=cap)


def all_capped(label: str, value: Any, cap: int) -> str:
    """Every wait the figure shows is already at the cap, before the move and after it."""
    return _(
        "the same figure: every wait here is already at the cap ({cap} ms), so {name} "
        "{value} changes no wait"
    ).format(cap=cap, name=label, value=_n(value))


def no_wait_reaches_cap(cap: int) -> str:
    """No wait of the runs reaches the cap (the contention experiment)."""
    return _(
        "the same figure: no wait in these runs reaches the cap, so cap {cap} ms changes nothing"
    ).format(cap=cap)


def more_than_used(kind: str, old: int, new: int) -> str:
    """More attempts (``kind="attempts"``) or retries (``"retries"``) than the run uses."""
    used = min(old, new)
    if kind == "attempts":
        return _(
            "the same figure: no client in this run makes more than {used} attempts, so "
            "allowing {value} changes nothing"
        ).format(used=used, value=new)
    return _(
        "the same figure: no request in this run is retried more than {used} times, so "
        "allowing {value} changes nothing"
    ).format(used=used, value=new)


def same_steps(label: str, value: Any, step_ms: int) -> str:
    """A simulation in steps of ``step_ms``: the move leaves every client's steps the same."""
    return _(
        "the same figure: the simulation moves in {step} ms steps, and {name} {value} "
        "gives every client the same steps as before"
    ).format(step=step_ms, name=label, value=_n(value))


def throttle_rejects_nothing(value: Any) -> str:
    """The client-side throttle rejects nothing at these settings, whatever its K."""
    return _(
        "the same figure: the throttle rejects nothing at these settings (no client "
        "sends more than K times what the server accepts), so K {value} changes "
        "nothing"
    ).format(value=_n(value))
