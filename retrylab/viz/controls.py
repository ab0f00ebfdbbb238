"""The explorers' controls: sliders named after their parameter, one description width.

Use :func:`int_slider`, :func:`float_slider` and :func:`choice` in an
explorer's ``make_controls``; :class:`~retrylab.viz.explorer.Explorer` lines
their descriptions up with :func:`align_descriptions` and :func:`neighbours`
gives the values one key press away (what the benchmark and the tests use).
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import ipywidgets as widgets

from ..core._check import check_int
from ..i18n import NP_, _, number, parse_number, pgettext
from .i18n import translate
from .range import FloatRange, IntRange

__all__ = [
    "CONTROL_MIN_WIDTH",
    "LABEL_MAX_CH",
    "LIMIT_LINE_PX",
    "NUMBER_BOX_WIDTH",
    "TRACK_MIN_WIDTH",
    "UNITS",
    "ControlPanel",
    "align_descriptions",
    "check_value",
    "choice",
    "controls_grid",
    "explain_message",
    "float_slider",
    "int_slider",
    "label_of",
    "limit_note",
    "limit_notes",
    "neighbours",
    "number_box",
    "reject_unknown",
    "shown_value",
    "toggle",
    "typed_value",
]

_STYLE = {"description_width": "initial"}
_LAYOUT = {"width": "420px"}
#: The narrowest column of an explorer's control grid (two or three columns fit
#: a JupyterLab notebook, so the controls take two to four rows).
CONTROL_MIN_WIDTH = "260px"
#: The unit shown in a numeric control's label ("base (ms)"), by parameter name;
#: ``unit=`` of a factory overrides it ("" for none). A share is "0–1".
UNITS: dict[str, str] = {
    "base": "ms",
    "cap": "ms",
    "cooldown": "ms",
    "width": "ms",
    "timeout": "ms",
    "hedging_delay": "ms",
    "spike_ms": "ms",
    "failure_rate_threshold": "%",
    "base_failure": "0–1",
    "outage_failure": "0–1",
    "slow": "0–1",
    "degraded": "0–1",
    "reject_cost": "0–1",
    "window_size": NP_("unit", "calls"),
}


def _control_label(name: str) -> str:
    """A parameter's name as its control's label says it, in the notebook's language: a
    few words a person reads ("failure rate, healthy"), never the code's ``base_failure``
    (that one is the control's tooltip, as :meth:`~retrylab.viz.explorer.Explorer.set` takes it)."""
    labels = {
        "base": pgettext("control", "base"),
        "cap": pgettext("control", "cap"),
        "factor": pgettext("control", "factor"),
        "jitter": pgettext("control", "jitter"),
        "growth": pgettext("control", "growth"),
        "retries": pgettext("control", "retries"),
        "clients": pgettext("control", "clients"),
        "attempt": pgettext("control", "attempt"),
        "attempts": pgettext("control", "attempts"),
        "width": pgettext("control", "width"),
        "threshold": pgettext("control", "threshold"),
        "cooldown": pgettext("control", "cooldown"),
        "step": pgettext("control", "step"),
        "method": pgettext("control", "method"),
        "error": pgettext("control", "error"),
        "idempotency_key": pgettext("control label", "idempotency key"),
        "budget": pgettext("control", "budget"),
        "breaker": pgettext("control", "breaker"),
        "strategy": pgettext("control", "strategy"),
        "reject_cost": pgettext("control label", "refusal cost"),
        "timeout": pgettext("control", "timeout"),
        "spike_ms": pgettext("control label", "spike"),
        "throttle": pgettext("control", "throttle"),
        "degraded": pgettext("control label", "capacity when degraded"),
        "hedging_delay": pgettext("control label", "hedging delay"),
        "max_attempts": pgettext("control label", "max attempts"),
        "tail_alpha": pgettext("control label", "tail α (Pareto)"),
        "slow": pgettext("control label", "slow requests"),
        "base_failure": pgettext("control label", "failure rate, healthy"),
        "outage_failure": pgettext("control label", "failure rate, outage"),
        "failure_rate_threshold": pgettext("control label", "failure-rate threshold"),
        "half_open_calls": pgettext("control label", "half-open trial calls"),
        "window_size": pgettext("control label", "window"),
        "k": pgettext("control label", "multiplier K"),
    }
    text = labels.get(name, name)
    return translate(name) if text == name else text


def _option_label(control: str, option: str) -> str:
    """An option's text on its control, in the notebook's language (the value stays English)."""
    labels = {
        ("jitter", "none"): pgettext("jitter", "none"),
        ("jitter", "full"): pgettext("jitter", "full"),
        ("jitter", "equal"): pgettext("jitter", "equal"),
        ("jitter", "decorrelated"): pgettext("jitter", "decorrelated"),
        ("jitter", "proportional"): pgettext("jitter", "proportional"),
        ("strategy", "exponential"): pgettext("strategy", "exponential"),
        ("strategy", "full"): pgettext("strategy", "full"),
        ("strategy", "equal"): pgettext("strategy", "equal"),
        ("strategy", "decorrelated"): pgettext("strategy", "decorrelated"),
        ("strategy", "none"): pgettext("strategy", "none"),
        ("growth", "constant"): pgettext("growth", "constant"),
        ("growth", "linear"): pgettext("growth", "linear"),
        ("growth", "exponential"): pgettext("growth", "exponential"),
        ("budget", "none"): pgettext("budget", "none"),
        ("throttle", "none"): pgettext("throttle", "none"),
        ("throttle", "adaptive"): pgettext("throttle", "adaptive"),
        ("breaker", "off"): pgettext("breaker", "off"),
        ("breaker", "on"): pgettext("breaker", "on"),
        ("error", "network"): pgettext("error", "network"),
        ("error", "body"): pgettext("error", "body"),
        ("error", "timeout"): pgettext("error", "timeout"),
    }
    text = labels.get((control, option), option)
    return translate(option) if text == option else text


def label_of(name: str, unit: str | None = None) -> str:
    """The label of parameter ``name``'s control, with its unit (default: :data:`UNITS`).

    >>> label_of("base"), label_of("factor"), label_of("base", unit="")
    ('base (ms)', 'factor', 'base')
    """
    text = _control_label(name)
    unit = _unit_of(name, unit)
    return _("{name} ({unit})").format(name=text, unit=unit) if unit else text


def _unit_of(name: str, unit: str | None) -> str:
    """The unit shown for ``name`` (translated: "calls" is "çağrı" in Turkish)."""
    return (pgettext("unit", UNITS[name]) if name in UNITS else "") if unit is None else unit


def int_slider(
    name: str,
    value: int,
    low: int,
    high: int,
    step: int = 1,
    *,
    unit: str | None = None,
) -> Any:
    """A whole-number slider (:class:`~retrylab.viz.range.IntRange`, a range input its
    label names): its label says the parameter in words with its unit, in the notebook's
    language; its tooltip is the parameter's name in the code (what :meth:`~.Explorer.set`
    takes). Every slider follows the hand while dragged (the front end sends a value
    when the kernel has answered the last one).

    >>> s = int_slider("cooldown", 5000, 0, 10000, 500)
    >>> s.description, s.tooltip, s.continuous_update
    ('cooldown (ms)', 'cooldown', True)
    """
    return IntRange(value=value, min=low, max=high, step=step, **_slider_look(name, unit))


def float_slider(
    name: str,
    value: float,
    low: float,
    high: float,
    step: float = 0.1,
    *,
    unit: str | None = None,
) -> Any:
    """A slider of real numbers (:class:`~retrylab.viz.range.FloatRange`), labelled and
    following the hand as :func:`int_slider`'s.

    >>> s = float_slider("base_failure", 0.1, 0.0, 0.4, 0.05)
    >>> s.value, s.description, s.tooltip
    (0.1, 'failure rate, healthy (0–1)', 'base_failure')
    """
    return FloatRange(value=value, min=low, max=high, step=step, **_slider_look(name, unit))


def _slider_look(name: str, unit: str | None) -> dict[str, Any]:
    """A slider's label (words and unit), unit, tooltip (the code's name) and layout."""
    return {
        "description": label_of(name, unit),
        "unit": _unit_of(name, unit),
        "decimal_mark": number(0.5)[1],  # "0,5" in Turkish
        "tooltip": name,
        "continuous_update": True,
        "layout": widgets.Layout(**_LAYOUT),
    }


def toggle(name: str, value: bool) -> Any:
    """A ``Checkbox`` for an on/off setting (Space toggles it; its label names it).

    >>> box = toggle("idempotency_key", False)
    >>> type(box).__name__, box.description, box.value
    ('Checkbox', 'idempotency key', False)
    """
    return widgets.Checkbox(value=bool(value), **_box_look(name))


def _box_look(name: str) -> dict[str, Any]:
    """A checkbox's label (no unit), tooltip (the code's name), style and layout."""
    return {
        "description": label_of(name, ""),
        "tooltip": name,
        "indent": False,
        "style": _STYLE,
        "layout": widgets.Layout(**_LAYOUT),
    }


#: A choice of these two words is a checkbox (ticked: the second), not a list.
OFF_ON = ("off", "on")


class Switch(widgets.Checkbox):  # type: ignore[misc]
    """A ``Checkbox`` for a setting the code names by a word, ``"off"`` or ``"on"``:
    the box holds a bool (what the page shows), :func:`value_of` gives the word.

    >>> box = choice("breaker", ("off", "on"), "on")
    >>> type(box).__name__, box.value, value_of(box), options_of(box)
    ('Switch', True, 'on', ['off', 'on'])
    >>> set_value(box, "off"); box.value
    False
    """

    def __init__(self, name: str, words: Sequence[str], word: str) -> None:
        self.words = tuple(words)
        super().__init__(value=word == self.words[1], **_box_look(name))

    def word(self, value: Any) -> Any:
        """The word for the box's state ``value`` (a bool); anything else as it is."""
        return self.words[int(value)] if isinstance(value, bool) else value


def as_code(control: Any, value: Any) -> Any:
    """The control's state ``value`` as the code names it (a :class:`Switch`'s word)."""
    return control.word(value) if isinstance(control, Switch) else value


def value_of(control: Any) -> Any:
    """The value the code uses: the widget's, or a :class:`Switch`'s word."""
    return as_code(control, control.value)


def set_value(control: Any, value: Any) -> None:
    """Put ``value`` (as the code names it) on the control."""
    control.value = (value == control.words[1]) if isinstance(control, Switch) else value


def choice(name: str, options: Sequence[Any], value: Any) -> Any:
    """The control for a categorical choice: a ``Dropdown`` (its ``<select>`` is named by
    its label, and a keyboard user opens it with Alt+ArrowDown: issue 25 measured
    buttons side by side as taller in a grid cell and unnamed for a screen reader), a
    ``Checkbox`` (:func:`toggle`) for a yes/no pair of ``(label, False)``,
    ``(label, True)``, and a :class:`Switch` for ``("off", "on")``. Its tooltip is the
    parameter's name in the code.

    ``options`` may be values or ``(label, value)`` pairs; the values stay as the
    code uses them, the labels are in the notebook's language.

    >>> type(choice("breaker", ("off", "on"), "off")).__name__
    'Switch'
    >>> jitter = choice("jitter", ("none", "full", "equal", "decorrelated"), "full")
    >>> type(jitter).__name__, jitter.value
    ('Dropdown', 'full')
    >>> type(choice("idempotency_key", [("no", False), ("yes", True)], True)).__name__
    'Checkbox'
    """
    listed: list[Any] = list(options)
    values = [o[1] if isinstance(o, tuple) else o for o in listed]
    if sorted(values, key=repr) == [False, True] and all(isinstance(v, bool) for v in values):
        return toggle(name, value)
    if tuple(values) == OFF_ON:
        return Switch(name, OFF_ON, value)
    labelled = [
        (translate(o[0]), o[1])
        if isinstance(o, tuple)
        else (_option_label(name, o) if isinstance(o, str) else str(o), o)
        for o in listed
    ]
    return widgets.Dropdown(
        options=labelled,
        value=value,
        description=label_of(name, ""),
        tooltip=name,
        style=_STYLE,
        layout=widgets.Layout(**_LAYOUT),
    )


#: The width of a slider's number box: six digits and the spin arrows (every pixel it takes
#: comes off the slider's track). A CSS variable, so the projector switch's style
#: (:data:`~retrylab.viz.kit.PROJECTOR_CSS`) widens the box and the grid's columns together.
NUMBER_BOX_WIDTH = "var(--retrylab-number-width, 68px)"
#: The shortest a slider's track may be in the control grid (with its margins): a
#: column is made wider, and the grid gets fewer columns, rather than the track shorter.
TRACK_MIN_WIDTH = "64px"


def column_width(label_width: str, sliders: bool) -> str:
    """The narrowest a column of an explorer's control grid may be: :data:`CONTROL_MIN_WIDTH`,
    or wider when the labels are long (Turkish: "yedek istek gecikmesi (ms)"), so a
    label, a number box and a usable slider track always fit in one cell (else the
    track shrank to nothing and the labels were cut). ``label_width``: the widest
    label's (:func:`align_descriptions`); no ``sliders``, no track to fit.

    >>> column_width("", True), column_width("90px", False)
    ('260px', '260px')
    >>> column_width("90px", True)
    'max(260px, calc(90px + var(--retrylab-number-width, 68px) + 64px))'
    """
    if not label_width or not sliders:  # choices only: no track
        return CONTROL_MIN_WIDTH
    return f"max({CONTROL_MIN_WIDTH}, calc({label_width} + {NUMBER_BOX_WIDTH} + {TRACK_MIN_WIDTH}))"


def shown_value(slider: Any, value: Any = None) -> str:
    """A slider's value (or ``value``) as its number box writes it: in the notebook's
    language (``0,2`` in Turkish), a whole number for a whole-number slider.

    >>> from retrylab.i18n import language
    >>> shown_value(float_slider("factor", 2.0, 1.0, 4.0), 0.1 + 0.2)
    '0.3'
    >>> factor = float_slider("factor", 2.5, 1.0, 4.0)
    >>> with language("tr"):
    ...     shown_value(factor), shown_value(factor, 2.0)
    ('2,5', '2')
    """
    value = slider.value if value is None else value
    if isinstance(slider, IntRange):
        return str(int(value))
    value = round(float(value), 10)
    return number(int(value) if value.is_integer() else value)


def typed_value(slider: Any, text: str) -> tuple[Any, str]:
    """What ``text`` typed in ``slider``'s number box sets it to, and what the limit line
    says of it ("" when the text is a number in range): either decimal mark is
    understood (``2,5`` or ``2.5``), a whole-number slider rounds, and a number out of
    range is held at the nearer end, with a note naming it and the range. Text that is no
    number leaves the value as it is, with a note saying how to write one.

    >>> base = int_slider("base", 200, 50, 2000, 50)
    >>> typed_value(base, " 450 "), typed_value(base, "2.000")
    ((450, ''), (2000, ''))
    >>> typed_value(base, "9000")
    (2000, 'base (ms): 9000 is out of range, 50 to 2000')
    >>> typed_value(base, "two")
    (200, "base (ms): 'two' is not a number; type one such as 200")
    >>> typed_value(float_slider("factor", 2.0, 1.0, 4.0), "2,5")
    (2.5, '')
    """
    label = slider.description or slider.tooltip
    clean = text.strip()
    if isinstance(slider, IntRange) and re.fullmatch(r"\d{1,3}([.,]\d{3})+", clean):
        clean = re.sub(r"[.,]", "", clean)  # 2.000 or 2,000: thousands grouped
    try:
        wanted = parse_number(clean)
    except ValueError:
        wanted = math.nan
    if not math.isfinite(wanted):
        return slider.value, _("{name}: {text} is not a number; type one such as {example}").format(
            name=label, text=repr(text.strip()), example=shown_value(slider)
        )
    value: Any = round(wanted) if isinstance(slider, IntRange) else wanted
    if slider.min <= value <= slider.max:
        return value, ""
    held = min(max(value, slider.min), slider.max)
    return held, _("{name}: {value} is out of range, {low} to {high}").format(
        name=label,
        value=shown_value(slider, value),
        low=shown_value(slider, slider.min),
        high=shown_value(slider, slider.max),
    )


def number_box(slider: Any, complain: Callable[[str], None] | None = None) -> Any:
    """A number box beside ``slider`` that shows its value and sets it: the slider's
    readout, where a value can be typed exactly (its label, the slider's, is shown to a
    screen reader only: its accessible name).

    The box is a text box, not the browser's number input, so it writes the value in
    the notebook's language (Chromium writes ``<input type=number>`` in the browser's,
    ``0.2`` in a Turkish notebook). Typing a value and pressing Enter moves the slider
    (:func:`typed_value` reads it; ``complain(note)`` is told what a typed text that
    is no number, or out of range, came to), and moving the slider updates the box.
    ``None`` for a control that is not a numeric slider.

    >>> base = int_slider("base", 200, 50, 2000, 50)
    >>> box = number_box(base)
    >>> type(box).__name__, box.description, box.value
    ('Text', 'base (ms)', '200')
    >>> box.value = "450"; base.value
    450
    >>> base.value = 2000; box.value
    '2000'
    >>> box.value = "many"; base.value, box.value
    (2000, '2000')
    >>> number_box(choice("jitter", ("none", "full"), "full")) is None
    True
    """
    if not isinstance(slider, IntRange | FloatRange):
        return None
    box = widgets.Text(
        value=shown_value(slider),
        # its accessible name: the box's own label, the slider's, shown to a screen
        # reader only (retrylab.viz.range's CSS); an empty one named it nothing
        description=slider.description,
        tooltip=slider.description,
        placeholder=slider.description,  # what goes in the box, once it is emptied
        disabled=slider.disabled,
        continuous_update=False,  # a value is taken on Enter (or leaving the box)
        layout=widgets.Layout(width=NUMBER_BOX_WIDTH, flex="0 0 auto"),
    )
    box.add_class("retrylab-number")

    writing = [False]  # the box is being written from the slider: not typed

    def typed(change: Mapping[str, Any]) -> None:
        if writing[0]:
            return
        value, note = typed_value(slider, change["new"])
        if shown_value(slider, value) != shown_value(slider):
            slider.value = value
        moved({"new": slider.value})  # the box writes the value its own way
        if note and complain is not None:
            complain(note)

    def moved(change: Mapping[str, Any]) -> None:
        writing[0] = True
        try:
            box.value = shown_value(slider, change["new"])
        finally:
            writing[0] = False

    box.observe(typed, names="value")
    slider.observe(moved, names="value")
    widgets.link((slider, "disabled"), (box, "disabled"))
    return box


def controls_grid(
    controls: Mapping[str, Any], complain: Callable[[str], None] | None = None
) -> tuple[Any, dict[str, Any]]:
    """The controls in a grid of as many columns as the width allows (CSS class
    ``retrylab-controls``), each numeric slider with its :func:`number_box` beside it,
    their descriptions lined up (:func:`align_descriptions`); and the number boxes by
    control name. ``complain`` is told what a box made of a typed text (:func:`number_box`).

    >>> grid, boxes = controls_grid({"base": int_slider("base", 200, 50, 2000, 50),
    ...                              "jitter": choice("jitter", ("none", "full"), "full")})
    >>> type(grid).__name__, len(grid.children), sorted(boxes)
    ('GridBox', 2, ['base'])
    """
    label_width = align_descriptions(controls.values())
    boxes: dict[str, Any] = {}
    cells: list[Any] = []
    for name, w in controls.items():
        w.layout.width = "auto"  # fill a grid cell
        box = number_box(w, complain)
        if box is None:
            cells.append(w)
            continue
        boxes[name] = box
        w.layout.flex = "1 1 auto"
        w.layout.min_width = "0"
        cells.append(
            widgets.HBox([w, box], layout=widgets.Layout(width="auto", align_items="center"))
        )
    column = column_width(label_width, bool(boxes))
    grid = widgets.GridBox(
        cells,
        layout=widgets.Layout(
            grid_template_columns=f"repeat(auto-fill, minmax({column}, 1fr))",
            grid_gap="0px 16px",
            width="100%",
        ),
    )
    grid.add_class("retrylab-controls")
    return grid, boxes


#: The height of the limit line (kept while no note shows): a readout line's.
LIMIT_LINE_PX = 20


class ControlPanel:
    """An explorer's controls in one place: the grid of controls (:func:`controls_grid`,
    a number box beside each numeric slider) and the limit line under it (class
    ``retrylab-limit``). A value from code is validated here, once (:meth:`check`);
    the panel knows which control moved last and from what, greys out the controls
    that can change nothing, and writes the limit line: what the explorer says first
    (a ceiling passed), why a move drew the same figure (class ``retrylab-same``), then
    the sliders at an end of their range (:func:`limit_notes`).

    >>> panel = ControlPanel({"base": int_slider("base", 200, 50, 2000, 50)})
    >>> panel.check({"base": 50}); panel.put("base", 50); panel.show_note()
    >>> panel.values, panel.note
    ({'base': 50}, 'base (ms) is at its minimum, 50: it goes no lower')
    >>> panel.number_boxes["base"].value = "9000"
    >>> for part in panel.note.split("; "): print(part)
    base (ms): 9000 is out of range, 50 to 2000
    base (ms) is at its maximum, 2000: it goes no higher
    >>> panel.check({"bse": 1})
    Traceback (most recent call last):
    ...
    ValueError: bse=1 is out of range: the controls are base
    """

    def __init__(self, controls: Mapping[str, Any]) -> None:
        self.controls: dict[str, Any] = dict(controls)
        #: the controls' starting values, as the code names them
        self.defaults = {name: value_of(w) for name, w in self.controls.items()}
        #: the grid, and each numeric slider's number box by name
        self.grid, self.number_boxes = controls_grid(self.controls, self.typed)
        #: its line is kept while empty, so a note never moves what is below it
        self.limit_widget = widgets.HTML(
            layout=widgets.Layout(width="100%", height=f"{LIMIT_LINE_PX}px", overflow="hidden")
        )
        self.limit_widget.add_class("retrylab-limit")
        #: the limit line's text, plain
        self.note = ""
        #: the control that moved last (its name), and its value before, as the code names it
        self.moved: str | None = None
        self.old: Any = None
        #: what a number box made of a typed text (kept until a control moves again),
        #: and the limit line's other parts as last written
        self.typed_note = ""
        self._parts = ("", "")

    @property
    def values(self) -> dict[str, Any]:
        """The controls' values by name, as the code names them."""
        return {name: value_of(w) for name, w in self.controls.items()}

    def check(self, values: Mapping[str, Any]) -> None:
        """Refuse a name without a control, or a value its control cannot take."""
        reject_unknown(values, self.controls)
        for name, value in values.items():
            check_value(name, self.controls[name], value)

    def put(self, name: str, value: Any) -> None:
        """Put a :meth:`check`-ed ``value`` on control ``name`` (its observers run)."""
        set_value(self.controls[name], value)

    def observe(self, callback: Any) -> None:
        """Call ``callback(change)`` on every change of a control's value."""
        for w in self.controls.values():
            w.observe(callback, names="value")

    def took(self, change: Mapping[str, Any]) -> None:
        """Remember which control a value ``change`` moved, and from what."""
        owner = change.get("owner")
        self.typed_note = ""
        self.moved = next((n for n, w in self.controls.items() if w is owner), None)
        self.old = as_code(owner, change.get("old"))

    def grey_out(self, inactive: Iterable[str]) -> None:
        """Disable the ``inactive`` controls (they can change nothing now); enable the rest."""
        off = set(inactive)
        for name, w in self.controls.items():
            if hasattr(w, "disabled") and w.disabled != (name in off):
                w.disabled = name in off

    def ceiling_note(self, ceilings: Mapping[str, str], drawn: Mapping[str, Any]) -> str:
        """What the limit line says of each ``ceilings`` pair (bounded -> ceiling) past its
        ceiling, ``drawn`` the values the figure was computed with ("" when none is)."""
        notes = []
        for low, high in ceilings.items():
            a, b = self.controls.get(low), self.controls.get(high)
            if a is None or b is None or a.value <= b.value:
                continue
            names = {
                "name": a.description or low,
                "value": number(a.value),
                "ceiling": b.description or high,
                "top": number(b.value),
                "drawn": number(drawn[high]),
            }
            notes.append(
                _("{name} {value} is above {ceiling} {top}: every wait is capped at {top}").format(
                    **names
                )
                if drawn[high] == b.value
                else _(
                    "{ceiling} {top} is below the smallest {name}: drawn with both at {drawn}"
                ).format(**names)
            )
        return "; ".join(notes)

    def show_note(self, first: str = "", same: str = "") -> None:
        """Write the limit line: ``first``, then ``same`` (why the last move drew the same
        figure), then the sliders at an end (the moved one first): a press there changes
        nothing, so its sign is on screen before it. One line (a wrapped note pushed
        06's explorers past 650 px); the whole note is in its tooltip."""
        self._parts = (first, same)
        moved = limit_notes(self.controls, self.moved)
        self.note = "; ".join(filter(None, (self.typed_note, first, same, moved)))
        text = html.escape(self.note, quote=True)
        value = (
            ""
            if not self.note
            else (
                f'<div class="retrylab-{"same" if same else "note"}" title="{text}" '
                f'style="color:#555; white-space:nowrap; overflow:hidden; text-overflow:ellipsis;'
                f' line-height:{LIMIT_LINE_PX}px">{text}</div>'
            )
        )
        if self.limit_widget.value != value:
            self.limit_widget.value = value

    def typed(self, note: str) -> None:
        """Put what a number box made of a typed text first on the limit line (a text that
        is no number, a number out of range), until a control moves again."""
        self.typed_note = note
        self.show_note(*self._parts)


def limit_note(name: str, control: Any) -> str:
    """What a slider at an end of its range says, so a key press there has a sign
    ("" inside its range or for a choice).

    >>> limit_note("base", int_slider("base", 2000, 50, 2000, 50))
    'base (ms) is at its maximum, 2000: it goes no higher'
    >>> limit_note("base", int_slider("base", 200, 50, 2000, 50))
    ''
    """
    if not hasattr(control, "min") or not hasattr(control, "max"):
        return ""
    label = control.description or name
    if control.value >= control.max:
        return _("{name} is at its maximum, {value}: it goes no higher").format(
            name=label, value=number(control.value)
        )
    if control.value <= control.min:
        return _("{name} is at its minimum, {value}: it goes no lower").format(
            name=label, value=number(control.value)
        )
    return ""


def limit_notes(controls: Mapping[str, Any], moved: str | None = None) -> str:
    """What the explorer says about its sliders at an end of their range: one
    :func:`limit_note` each, the control just ``moved`` first ("" when none is).

    A key press at a slider's end changes nothing, so the kernel never hears of
    it: the note must already be on screen before that press. It therefore names
    every enabled slider that sits at an end, not only the one that moved (a
    slider that started at its maximum, or was left at its minimum, is named too).

    >>> sliders = {"base": int_slider("base", 50, 50, 2000, 50),
    ...            "cap": int_slider("cap", 20000, 100, 20000, 100),
    ...            "factor": float_slider("factor", 2.0, 1.0, 4.0)}
    >>> for note in limit_notes(sliders, moved="cap").split("; "): print(note)
    cap (ms) is at its maximum, 20000: it goes no higher
    base (ms) is at its minimum, 50: it goes no lower
    >>> limit_notes({"factor": sliders["factor"]})
    ''
    """
    order = [name for name in controls if name == moved]
    order += [name for name in controls if name != moved]
    notes = [
        limit_note(name, controls[name])
        for name in order
        if not getattr(controls[name], "disabled", False)
    ]
    return "; ".join(note for note in notes if note)


#: The widest a slider's label is (CSS ``ch``): a longer one wraps onto a second line
#: (its row grows a little) rather than widening every column, so three columns of
#: controls fit JupyterLab's 848 px column ("refusal cost (0–1)" made 06's storm
#: explorer two columns, six rows, 731 px tall).
LABEL_MAX_CH = 15


def align_descriptions(controls: Iterable[Any]) -> str:
    """Give controls one description width, so their slider tracks start at the same x.

    Use it on the controls of one explorer (:class:`~retrylab.viz.explorer.Explorer` does): the
    width is the longest description plus two characters, in CSS ``ch`` (the
    width of a "0", wider than the average lower-case letter), so no label is
    cut; at most :data:`LABEL_MAX_CH` for a slider's label, which wraps beyond it. A
    dropdown's or checkbox's label cannot wrap: those keep their whole text's width.
    Returns the sliders' width ("" when no control has a description style).

    >>> controls = [int_slider("base", 200, 50, 2000),
    ...             choice("idempotency_key", [("no", False), ("yes", True)], False)]
    >>> align_descriptions(controls), controls[0].description_width
    ('15ch', '15ch')
    >>> controls[1].style.description_width
    '17ch'
    >>> align_descriptions([int_slider("base", 200, 50, 2000), choice("jitter", ["full"], "full")])
    '11ch'
    """
    listed = list(controls)
    ranges = [c for c in listed if isinstance(c, IntRange | FloatRange)]
    styled = [c for c in listed if hasattr(getattr(c, "style", None), "description_width")]
    if not ranges and not styled:
        return ""
    widest = max(len(c.description or "") for c in ranges + styled) + 2
    width = f"{min(widest, LABEL_MAX_CH) if ranges else widest}ch"
    own = f"{max([len(c.description or '') + 2 for c in styled] + [int(width[:-2])])}ch"
    for c in ranges:
        c.description_width = width
    for c in styled:
        c.style.description_width = own
    return width


def options_of(control: Any) -> list[Any] | None:
    """The values a choice control (:func:`choice`'s) can take (``None`` for a numeric
    control)."""
    if isinstance(control, widgets.Dropdown):
        return [o[1] if isinstance(o, tuple) else o for o in control.options]
    if isinstance(control, Switch):
        return list(control.words)
    if isinstance(control, widgets.Checkbox):
        return [False, True]
    return None


def check_value(name: str, control: Any, value: Any) -> None:
    """Refuse a value ``control`` cannot take, naming it and the allowed values.

    >>> check_value("base", int_slider("base", 200, 50, 2000, 50), 10)
    Traceback (most recent call last):
    ...
    ValueError: base=10 is out of range: base must be an integer from 50 to 2000
    >>> check_value("jitter", choice("jitter", ("none", "full"), "full"), "half")
    Traceback (most recent call last):
    ...
    ValueError: jitter='half' is out of range: jitter must be one of 'none', 'full'
    """
    options = options_of(control)
    if options is not None:
        if value not in options:
            raise ValueError(
                f"{name}={value!r} is out of range: {name} must be one of "
                + ", ".join(repr(o) for o in options)
            )
    elif hasattr(control, "min") and hasattr(control, "max"):
        if type(control.value) is int:  # a whole-number slider or box
            check_int(name, value, low=control.min, high=control.max)
        elif (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not control.min <= value <= control.max
        ):
            raise ValueError(
                f"{name}={value!r} is out of range: {name} must be a "
                f"number from {control.min:g} to {control.max:g}"
            )


def reject_unknown(values: Mapping[str, Any], controls: Mapping[str, Any]) -> None:
    """Refuse a value for a control the explorer does not have.

    >>> reject_unknown({"bse": 10}, {"base": None, "cap": None})
    Traceback (most recent call last):
    ...
    ValueError: bse=10 is out of range: the controls are base, cap
    """
    unknown = sorted(set(values) - set(controls))
    if unknown:
        raise ValueError(
            f"{unknown[0]}={values[unknown[0]]!r} is out of range: "
            f"the controls are {', '.join(controls)}"
        )


def neighbours(control: Any, value: Any = None) -> list[Any]:
    """The values one key press away from ``value`` (default: the control's): up, then down.

    A choice's are the next and the previous option; a numeric slider's
    are one ``step`` either way, within its range.

    >>> neighbours(int_slider("cap", 5000, 100, 20000, 100))
    [5100, 4900]
    >>> neighbours(choice("jitter", ("none", "full", "equal"), "none"))
    ['full']
    >>> neighbours(toggle("idempotency_key", False))
    [True]
    """
    value = value_of(control) if value is None else value
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


def explain_message(error: ValueError, moved: str | None, values: Mapping[str, Any]) -> str:
    """The message an explorer shows for ``error``, raised after control ``moved`` changed
    to ``values``.

    A range error names its argument and bounds as data (``name``, ``low``: see
    :func:`retrylab.core._check.check_int`); when that argument is another control than
    the one moved, the message says which move made it so. Otherwise, and without a
    moved control (the first render), the error's own text.

    >>> from retrylab.core._check import check_int
    >>> try:
    ...     check_int("width", 50, low=60)
    ... except ValueError as exc:
    ...     error = exc
    >>> explain_message(error, "attempt", {"attempt": 9, "width": 50})
    'attempt=9 makes width=50 too small: width=50 is out of range: width must be an integer >= 60'
    >>> explain_message(error, "width", {"attempt": 9, "width": 50})
    'width=50 is out of range: width must be an integer >= 60'
    """
    message = str(error)
    other = getattr(error, "name", None)
    if (
        moved is None
        or moved not in values
        or not isinstance(other, str)
        or other == moved
        or other not in values
    ):
        return message
    low, value = getattr(error, "low", None), values[other]
    too_small = low is not None and isinstance(value, int | float) and value < low
    return (
        _("{moved}={value} makes {other}={other_value} too small: {message}")
        if too_small
        else _("after {moved}={value}: {message}")
    ).format(
        moved=moved,
        value=repr(values[moved]),
        other=other,
        other_value=repr(value),
        message=message,
    )
