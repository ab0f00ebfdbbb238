"""The explorers' controls: sliders named after their parameter, one description width.

Use :func:`int_slider`, :func:`float_slider` and :func:`choice_slider` in an
explorer's ``make_controls``; :class:`~retrylab.viz.explorer.Explorer` lines
their descriptions up with :func:`align_descriptions` and :func:`neighbours`
gives the values one key press away (what the benchmark and the tests use).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import ipywidgets as widgets

from .i18n import translate

__all__ = ["CONTROL_MIN_WIDTH", "align_descriptions", "choice_slider", "explain_message",
           "float_slider", "int_slider", "neighbours"]

_STYLE = {"description_width": "initial"}
_LAYOUT = {"width": "420px"}
#: The narrowest column of an explorer's control grid (two or three columns fit
#: a JupyterLab notebook, so the controls take two to four rows).
CONTROL_MIN_WIDTH = "260px"


def int_slider(name: str, value: int, low: int, high: int, step: int = 1, *,
               continuous_update: bool = True) -> Any:
    """An ``IntSlider`` whose description is the parameter name (in the notebook's language).

    >>> int_slider("clients", 24, 1, 1000).description
    'clients'
    """
    return widgets.IntSlider(value=value, min=low, max=high, step=step,
                             description=translate(name), tooltip=name,
                             continuous_update=continuous_update, style=_STYLE,
                             layout=widgets.Layout(**_LAYOUT))


def float_slider(name: str, value: float, low: float, high: float, step: float = 0.1, *,
                 continuous_update: bool = True, readout_format: str = ".1f") -> Any:
    """A ``FloatSlider`` whose description is the parameter name (in the notebook's language).

    >>> float_slider("factor", 2.0, 1.0, 4.0).value
    2.0
    """
    return widgets.FloatSlider(value=value, min=low, max=high, step=step,
                               description=translate(name), tooltip=name,
                               continuous_update=continuous_update, style=_STYLE,
                               readout_format=readout_format,
                               layout=widgets.Layout(**_LAYOUT))


def choice_slider(name: str, options: Sequence[Any], value: Any, *,
                  continuous_update: bool = True) -> Any:
    """A ``SelectionSlider`` for a categorical choice, so a keyboard moves it too.

    ``options`` may be values or ``(label, value)`` pairs.

    >>> choice_slider("jitter", ("none", "full"), "full").value
    'full'
    """
    labelled: list[Any] = list(options)
    if any(isinstance(o, str) and translate(o) != o for o in labelled):
        # translated labels, the same values (ipywidgets wants all pairs or none)
        labelled = [(translate(o), o) if isinstance(o, str) else o for o in labelled]
    return widgets.SelectionSlider(options=labelled, value=value,
                                   description=translate(name), tooltip=name,
                                   continuous_update=continuous_update, style=_STYLE,
                                   layout=widgets.Layout(**_LAYOUT))


def align_descriptions(controls: Iterable[Any]) -> str:
    """Give controls one description width, so their slider tracks start at the same x.

    Use it on the controls of one explorer (:class:`Explorer` does): the
    width is the longest description plus two characters, in CSS ``ch`` (the
    width of a "0", wider than the average lower-case letter), so no label is
    cut. Returns the width set ("" when no control has a description style).

    >>> controls = [int_slider("base", 200, 50, 2000),
    ...             choice_slider("idempotency_key", [("no", False), ("yes", True)], False)]
    >>> align_descriptions(controls), [c.style.description_width for c in controls]
    ('17ch', ['17ch', '17ch'])
    """
    described = [c for c in controls
                 if hasattr(getattr(c, "style", None), "description_width")]
    if not described:
        return ""
    width = f"{max(len(c.description or '') for c in described) + 2}ch"
    for c in described:
        c.style.description_width = width
    return width



_CHOICES = (widgets.SelectionSlider, widgets.Dropdown, widgets.ToggleButtons,
            widgets.RadioButtons)


def options_of(control: Any) -> list[Any] | None:
    """The values a choice control can take (``None`` for a numeric control)."""
    if isinstance(control, _CHOICES):
        return [o[1] if isinstance(o, tuple) else o for o in control.options]
    return None


def neighbours(control: Any, value: Any = None) -> list[Any]:
    """The values one key press away from ``value`` (default: the control's): up, then down.

    A choice slider's are the next and the previous option; a numeric slider's
    are one ``step`` either way, within its range.

    >>> neighbours(int_slider("cap", 5000, 100, 20000, 100))
    [5100, 4900]
    >>> neighbours(choice_slider("jitter", ("none", "full", "equal"), "none"))
    ['full']
    """
    value = control.value if value is None else value
    options = options_of(control)
    if options is not None:
        i = options.index(value)
        return [options[j] for j in (i + 1, i - 1) if 0 <= j < len(options)]
    if not hasattr(control, "step") or not hasattr(control, "min"):
        return []
    out = []
    for v in (value + control.step, value - control.step):
        v = round(v, 10) if isinstance(v, float) else v
        if control.min <= v <= control.max:
            out.append(v)
    return out


#: The Backoff's (and the contention model's) message for a cap below the base.
_CAP_BELOW_BASE = re.compile(r"^cap=\S+ is out of range: cap must be >= base")
#: A message that names its parameter first: ``name=value is out of range: ...``.
_NAMED = re.compile(r"^(\w+)=")


def explain_message(message: str, moved: str | None, values: Mapping[str, Any]) -> str:
    """The message an explorer shows for a ValueError ``message`` after control ``moved``
    changed to ``values``.

    It names the slider that moved and the fix. A cap below the base is
    said from the moved slider's side; a message about another control
    than the one moved says which move made it so. Without a moved control
    (the first render) the message is kept.

    >>> msg = "cap=1000 is out of range: cap must be >= base (base=1200)"
    >>> explain_message(msg, "base", {"base": 1200, "cap": 1000})
    'base=1200 is above cap=1000: lower base or raise cap'
    >>> explain_message(msg, "cap", {"base": 1200, "cap": 1000})
    'cap=1000 is below base=1200: raise cap or lower base'
    >>> explain_message("width=50 is out of range: width must be >= 60 here", "attempt",
    ...                 {"attempt": 9, "width": 50})
    'attempt=9 makes width=50 too small: width=50 is out of range: width must be >= 60 here'
    """
    if moved is None or moved not in values:
        return message
    if _CAP_BELOW_BASE.match(message) and {"base", "cap"} <= set(values):
        base, cap = values["base"], values["cap"]
        if moved == "base":
            return f"base={base} is above cap={cap}: lower base or raise cap"
        return f"cap={cap} is below base={base}: raise cap or lower base"
    named = _NAMED.match(message)
    if named and named.group(1) != moved and named.group(1) in values:
        other = named.group(1)
        return (f"{moved}={values[moved]!r} makes {other}={values[other]!r} too small: "
                f"{message}" if "must be >=" in message else
                f"after {moved}={values[moved]!r}: {message}")
    return message

