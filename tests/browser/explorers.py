"""Read an explorer's controls off the page and compute what its readout must say.

Use it in the slider tests: ``page_controls(box)`` reads every control of one
``.retrylab-explorer`` as a person sees it (slider readouts, dropdown choices),
``ExplorerKinds.match(controls, readout)`` finds the class in ``retrylab.viz.explorers``
with exactly those controls, and ``kind.values(controls)`` turns the page texts
into the Python values that the class's ``readout_for(**values)`` takes.

>>> parse_text("200"), parse_text("2.50"), parse_text("1,500"), parse_text("full")
(200, 2.5, 1500, 'full')
>>> Control("cap", "slider", "5000").python_value(int, {})
5000
>>> Control("factor", "slider", "2.00").python_value(float, {})
2.0
>>> Control("jitter", "slider", "Full jitter").python_value(str, {"Full jitter": "full"})
'full'
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
import pkgutil
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# Explorer classes (anything with a callable ``readout_for``) are looked for in every
# module of this package whose source mentions readout_for (widgets, simplots, ...).
# RETRYLAB_EXPLORER_MODULES adds more (comma separated), e.g. a scratch module.
PACKAGE = "retrylab"


def explorer_modules(package: str = PACKAGE) -> list[str]:
    """Modules of ``package`` whose source mentions ``readout_for`` (no import needed).

    >>> "retrylab.viz.explorer" in explorer_modules()
    True
    """
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return []
    found = []
    for info in pkgutil.walk_packages(spec.submodule_search_locations, prefix=package + "."):
        sub = importlib.util.find_spec(info.name)
        origin = sub.origin if sub else None
        if origin and origin.endswith(".py"):
            try:
                text = Path(origin).read_text(encoding="utf-8")
            except OSError:
                continue
            if "readout_for" in text:
                found.append(info.name)
    return sorted(found)


JS_CONTROLS = r"""
(box) => Array.from(box.querySelectorAll(
    '.retrylab-range, .widget-dropdown, .widget-checkbox, .widget-toggle-buttons,' +
    ' .widget-radio, .widget-text:not(.retrylab-number)')).map(el => {
  // (a slider's number box is not a control of its own: its label, the slider's, is
  // for screen readers; the slider's own input gives the value)
  const label = el.querySelector(':scope > .widget-label, :scope > .retrylab-range-label');
  // a Checkbox's outer label holds only a zero-width space (its text is beside the box)
  let name = label ? label.textContent.replace(/\u200b/g, '').trim() : '';
  if (el.classList.contains('retrylab-range')) {  // retrylab.viz.range: <input type=range>
    const i = el.querySelector('input[type=range]');
    return {name, kind: 'slider', text: i.value, vertical: false, disabled: i.disabled,
            atMax: Number(i.value) >= Number(i.max), atMin: Number(i.value) <= Number(i.min)};
  }
  if (el.classList.contains('widget-dropdown')) {
    const s = el.querySelector('select');
    return {name, kind: 'dropdown', text: s && s.selectedIndex >= 0
            ? s.options[s.selectedIndex].textContent.trim() : ''};
  }
  if (el.classList.contains('widget-checkbox')) {
    if (!name) name = el.querySelector('.widget-label-basic span')?.textContent.trim() || '';
    return {name, kind: 'checkbox', text: el.querySelector('input')?.checked ? 'True' : 'False'};
  }
  if (el.classList.contains('widget-toggle-buttons') || el.classList.contains('widget-radio')) {
    const on = el.querySelector('.mod-active, input:checked');
    const txt = on ? (on.tagName === 'INPUT' ? on.parentElement.textContent : on.textContent) : '';
    return {name, kind: 'choice', text: txt.trim()};
  }
  return {name, kind: 'text', text: el.querySelector('input')?.value ?? ''};
}).filter(c => c.name)
"""

_INT = re.compile(r"^[+-]?\d{1,3}(,\d{3})+$|^[+-]?\d+$")
_FLOAT = re.compile(r"^[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?$")


def parse_text(text: str) -> int | float | str:
    """A control's text as int, float or str (the best guess without the class)."""
    t = text.strip()
    if _INT.match(t):
        return int(t.replace(",", ""))
    if _FLOAT.match(t):
        return float(t)
    return t


@dataclass(frozen=True)
class Control:
    """One control as the page shows it."""

    name: str
    kind: str  # slider | dropdown | checkbox | choice | text
    text: str
    vertical: bool = False
    disabled: bool = False
    at_max: bool = False
    at_min: bool = False

    def python_value(self, typ: type | None, labels: dict[str, Any]) -> Any:
        """The value the kernel holds: via the options' labels, else typed parse."""
        if self.text in labels:
            return labels[self.text]
        if typ is bool or self.kind == "checkbox":
            return self.text == "True"
        if typ is int:
            value = parse_text(self.text)
            return int(value) if isinstance(value, (int, float)) else value
        if typ is float:
            return float(str(self.text).replace(",", ""))
        if typ is str:
            return self.text
        return parse_text(self.text)


def page_controls(box: Any) -> list[Control]:
    """Every named control inside one explorer element (a playwright Locator)."""
    raw = box.evaluate(JS_CONTROLS)
    return [
        Control(
            c["name"],
            c["kind"],
            c.get("text") or "",
            bool(c.get("vertical")),
            bool(c.get("disabled")),
            bool(c.get("atMax")),
            bool(c.get("atMin")),
        )
        for c in raw
    ]


def _walk(widget: Any) -> Iterable[Any]:
    yield widget
    for child in getattr(widget, "children", ()) or ():
        yield from _walk(child)


@dataclass
class ExplorerKind:
    """One explorer class: its control names, value types and label maps."""

    cls: type
    names: frozenset[str]
    types: dict[str, type] = field(default_factory=dict)
    labels: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: a control's label on the page -> its parameter name ("base (ms)" -> "base")
    aliases: dict[str, str] = field(default_factory=dict)

    def name_of(self, label: str) -> str:
        return self.aliases.get(label, label)

    @property
    def name(self) -> str:
        return f"{self.cls.__module__}.{self.cls.__qualname__}"

    def values(self, controls: Iterable[Control]) -> dict[str, Any]:
        """The keyword arguments for readout_for, from the page's controls."""
        out = {}
        for c in controls:
            name = self.name_of(c.name)
            if name in self.names:
                out[name] = c.python_value(self.types.get(name), self.labels.get(name, {}))
        return out

    def readout_for(self, values: dict[str, Any]) -> str:
        fn: Callable[..., str] = self.cls.readout_for  # type: ignore[attr-defined]
        return str(fn(**values))

    def message_for(self, moved: str | None, values: dict[str, Any]) -> str:
        """The message the explorer shows after ``moved`` changed to these settings: the
        class's ``message_for`` (it names the moved slider), else the ValueError text."""
        fn = getattr(self.cls, "message_for", None)
        if callable(fn):
            return str(fn(moved, **values))
        try:
            self.readout_for(values)
        except ValueError as exc:
            return str(exc)
        return ""

    def png_for(self, values: dict[str, Any]) -> bytes | None:
        """The image the package renders for these settings (None if it cannot tell)."""
        try:
            png = self.cls(**values).png
        except Exception:
            return None
        return bytes(png) if png else None


def _controls_of(cls: type) -> dict[str, Any]:
    """name -> control widget: from ``make_controls()`` (the Explorer base), else from a
    default instance's widget tree."""
    make = getattr(cls, "make_controls", None)
    if callable(make):
        try:
            return dict(make())
        except Exception:
            pass
    try:
        inst = cls()
        values = dict(inst.values)
    except Exception:
        return {}
    root = getattr(inst, "widget", None)
    found = {getattr(w, "description", None): w for w in _walk(root)} if root else {}
    return {name: found[name] for name in values if name in found}


def _kind_of(cls: type) -> ExplorerKind | None:
    """Control names, value types and option labels; else readout_for's signature."""
    controls = _controls_of(cls)
    if controls:
        labels: dict[str, dict[str, Any]] = {}
        for name, w in controls.items():
            if hasattr(w, "_options_labels"):
                labels[name] = dict(zip(w._options_labels, w._options_values, strict=False))
            elif hasattr(w, "words"):  # retrylab.viz.controls.Switch: a box for off/on
                labels[name] = {"False": w.words[0], "True": w.words[1]}
        aliases = {
            str(w.description): name
            for name, w in controls.items()
            if getattr(w, "description", None)
        }
        return ExplorerKind(
            cls,
            frozenset(controls),
            {k: type(w.value) for k, w in controls.items()},
            labels,
            aliases,
        )
    try:
        params = inspect.signature(cls.readout_for).parameters  # type: ignore[attr-defined]
    except (TypeError, ValueError):
        return None
    names = [
        p.name
        for p in params.values()
        if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.name not in ("self", "cls")
    ]
    return ExplorerKind(cls, frozenset(names)) if names else None


class ExplorerKinds:
    """All explorer classes found in the retrylab modules (and extra modules)."""

    def __init__(self, modules: Iterable[str] | None = None) -> None:
        if modules is None:
            extra = os.environ.get("RETRYLAB_EXPLORER_MODULES", "")
            modules = [*explorer_modules(), *(m.strip() for m in extra.split(",") if m.strip())]
        self.import_errors: dict[str, str] = {}
        self.kinds: list[ExplorerKind] = []
        seen: set[type] = set()
        for modname in modules:
            try:
                mod = importlib.import_module(modname)
            except ImportError as exc:
                self.import_errors[modname] = str(exc)
                continue
            for _, obj in inspect.getmembers(mod, inspect.isclass):
                if obj in seen or not callable(getattr(obj, "readout_for", None)):
                    continue
                if inspect.isabstract(obj) or obj.__name__ == "Explorer":
                    continue
                seen.add(obj)
                kind = _kind_of(obj)
                if kind is not None:
                    self.kinds.append(kind)

    def match(self, controls: list[Control], readout: str) -> ExplorerKind:
        """The class whose controls are the page's; the readout breaks ties."""
        labels = frozenset(c.name for c in controls)

        def named(kind: ExplorerKind) -> frozenset[str]:
            return frozenset(kind.name_of(label) for label in labels)

        same = [k for k in self.kinds if k.names == named(k)]
        if not same:  # the page may show extra controls (e.g. a play button): subset
            same = [k for k in self.kinds if k.names and k.names <= named(k)]
        if len(same) > 1:
            agree = []
            for kind in same:
                try:
                    if normalize(kind.readout_for(kind.values(controls))) == normalize(readout):
                        agree.append(kind)
                except Exception:
                    continue
            same = agree or same
        if not same:
            known = {k.name: sorted(k.names) for k in self.kinds}
            raise LookupError(
                f"no explorer class has controls {sorted(labels)}; known: {known};"
                f" import errors: {self.import_errors}"
            )
        return same[0]


def normalize(text: str) -> str:
    """Whitespace-insensitive text, as innerText and a Python string are compared.

    >>> normalize(" a\\u00a0 b\\n c ")
    'a b c'
    """
    return re.sub(r"\s+", " ", text.replace("\u00a0", " ")).strip()
