"""A table or a printed label in the notebook's language, for display only.

The notebooks build their tables from English keys (``"stored"``,
``"attempts"``, ``"network"``), the keys a student types in code. For display,
:func:`localized` returns a copy whose headers, row labels, axis names and text
values are looked up in the catalogue (context ``"table"``), so a Turkish
edition shows Turkish; the table the code indexes keeps its English keys. In
English the copy reads exactly as the original. :func:`label` does the same for
one label in a printed line.

>>> import pandas as pd
>>> t = pd.DataFrame({"client saw": ["network"], "server stored": [1]}, index=["drop"])
>>> localized(t).equals(t)
True
>>> from retrylab.i18n import language
>>> with language("tr"):
...     print(localized(t).to_string())
...     print(label("stored"), label("a label nobody translated"))
       istemcinin gördüğü  sunucunun kaydettiği
yanıt kaybı                  ağ                     1
kaydedilen a label nobody translated
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, TypeVar, overload

import pandas as pd

if TYPE_CHECKING:  # pandas' Styler imports jinja2: loaded when a table is styled
    from pandas.io.formats.style import Styler

from ..i18n import NP_, current, pgettext

__all__ = [
    "LABELS",
    "LINES",
    "TITLES",
    "ShownFrame",
    "ShownSeries",
    "figure_title",
    "label",
    "line",
    "localized",
    "styled",
]

T = TypeVar("T", pd.DataFrame, pd.Series)

#: Every header, row label and text value the lessons' tables show (marked for the catalogue).
LABELS: frozenset[str] = frozenset(
    {
        # 01: outcomes and the rule
        NP_("table", "kind"),
        NP_("table", "status"),
        NP_("table", "retry a GET?"),
        NP_("table", "HTTP 404"),
        NP_("table", "HTTP 429"),
        NP_("table", "network"),
        NP_("table", "body"),
        NP_("table", "cancellation"),
        NP_("table", "cancelled"),
        NP_("table", "success"),
        NP_("table", "retry"),
        NP_("table", "why"),
        NP_("table", "with key"),
        NP_("table", "no"),
        NP_("table", "yes"),
        NP_("table", "method"),
        NP_("table", "outcome"),
        NP_("table", "key"),
        NP_("table", "case"),
        NP_("table", "the user left the screen"),
        # 01: did the server act?
        NP_("table", "client saw"),
        NP_("table", "server stored"),
        NP_("table", "close"),
        NP_("table", "drop"),
        # 01: methods
        NP_("table", "safe (RFC)"),
        NP_("table", "idempotent (RFC)"),
        NP_("table", "web lesson"),
        NP_("table", "RFC rule"),
        NP_("table", "mobile lesson"),
        # 01: the write experiment (WriteReport.series() and its modes)
        NP_("table", "writes"),
        NP_("table", "sent"),
        NP_("table", "stored"),
        NP_("table", "duplicates"),
        NP_("table", "acknowledged"),
        NP_("table", "unacknowledged"),
        NP_("table", "lost"),
        NP_("table", "retried_after_network"),
        NP_("table", "unsafe"),
        NP_("table", "lesson"),
        # 02: the strategies and jitters
        NP_("table", "fixed"),
        NP_("table", "linear"),
        NP_("table", "exponential"),
        NP_("table", "capped"),
        NP_("table", "full jitter"),
        NP_("table", "decorrelated"),
        NP_("table", "full"),
        NP_("table", "equal"),
        NP_("table", "proportional"),
        # 03: the loop's stops and costs
        NP_("table", "backoff (ms)"),
        NP_("table", "Retry-After (ms)"),
        NP_("table", "wait (ms)"),
        NP_("table", "attempts"),
        NP_("table", "waits (ms)"),
        NP_("table", "total wait (ms)"),
        NP_("table", "stopped"),
        NP_("table", "user_triggered"),
        NP_("table", "background"),
        NP_("table", "classifies (lesson)"),
        NP_("table", "retries everything"),
        NP_("table", "user waits (ms)"),
        NP_("table", "times later"),
        # 03: RetryMetrics
        NP_("table", "runs"),
        NP_("table", "retries"),
        NP_("table", "successes"),
        NP_("table", "success after retry"),
        NP_("table", "gave up"),
        NP_("table", "median wait (ms)"),
        NP_("table", "p90 wait (ms)"),
        NP_("table", "value"),
        NP_("table", "waits"),
        NP_("table", "reason"),
        NP_("table", "wait (ms, bucket start)"),
        # 04: the breaker's trace
        NP_("table", "time_ms"),
        NP_("table", "allowed"),
        NP_("table", "state_before"),
        NP_("table", "result"),
        NP_("table", "state_after"),
        NP_("table", "closed"),
        NP_("table", "open"),
        NP_("table", "half_open"),
        NP_("table", "failure"),
        NP_("table", "not sent"),
        # 05: the background() policy and the mobile lesson's strategies
        NP_("table", "backoff"),
        NP_("table", "incremental"),
        NP_("table", "fixed 2 s"),
        NP_("table", "incremental 1 s"),
        NP_("table", "exponential 1 s"),
        NP_("table", "exp. + proportional (Kotlin)"),
        NP_("table", "exp. + full, cap 30 s"),
        # 05b: the outage policies (the notebook's dict keys)
        NP_("table", "endless, fixed 2 s"),
        NP_("table", "endless, exp. cap 60 s"),
        NP_("table", "background(): 5 attempts"),
        # 09: the metastable runs (the notebook's dict keys)
        NP_("table", "3 retries, timeout 1 s"),
        NP_("table", "no retries"),
        NP_("table", "retry budget 10%"),
        NP_("table", "timeout 3 s"),
        NP_("table", "1 retry"),
        # 06: the fleets' columns and runs (the notebook's dict keys), the sweeps' clients
        NP_("table", "served"),
        NP_("table", "calls"),
        NP_("table", "clients"),
        NP_("table", "no budget"),
        NP_("table", "gRPC throttling"),
        NP_("table", "SRE budget"),
        NP_("table", "breaker"),
        # 06: the fleets' summary columns (summary_table), a step's answers, the layered calls
        NP_("table", "total_requests"),
        NP_("table", "peak_retries"),
        NP_("table", "recovery_ms"),
        NP_("table", "amplification"),
        NP_("table", "overloaded_steps_after_outage"),
        NP_("table", "accepted"),
        NP_("table", "rejected"),
        NP_("table", "no jitter"),
        NP_("table", "no backoff"),
        NP_("table", "service"),
        NP_("table", "per_request"),
        NP_("table", "gateway"),
        NP_("table", "station API"),
        NP_("table", "database"),
        # 06: the contention findings (retrylab.sim.contention.findings' keys)
        NP_("table", "full_vs_exponential_calls"),
        NP_("table", "equal_vs_full_calls"),
        NP_("table", "equal_vs_full_time"),
        NP_("table", "decorrelated_vs_full_time"),
        NP_("table", "decorrelated_vs_full_calls"),
        NP_("table", "exponential_vs_slowest_other_time"),
        NP_("table", "ratio"),
        # 04: the breaker's states as a value (State.OPEN -> "open")
        NP_("table", "state"),
        # 03, 05, 07: why a run stopped (StopReason's values) and the policy's knobs
        NP_("table", "not_retryable"),
        NP_("table", "max_attempts"),
        NP_("table", "time_budget"),
        NP_("table", "retry_after_too_long"),
        NP_("table", "retry_budget"),
        NP_("table", "breaker_open"),
        NP_("table", "max_retry_after"),
        NP_("table", "time_budget (ms)"),
        NP_("table", "max_retry_after (ms)"),
        # A1: the Combine runs (the notebook's dict keys)
        NP_("table", "503, 503, then data"),
        # 07: the capstone's targets and report (ex07.TARGETS, capstone_report), the quiz
        NP_("table", "target"),
        NP_("table", "measured"),
        NP_("table", "wanted"),
        NP_("table", "verdict"),
        NP_("table", "pass"),
        NP_("table", "FAIL"),
        NP_("table", "served (%)"),
        NP_("table", "requests per phone"),
        NP_("table", "overloaded steps after the outage"),
        NP_("table", "last phone done (s)"),
        NP_("table", "policy"),
        # 05b: the app lifecycle (lifecycle_table, measure_lifecycle)
        NP_("table", "requests"),
        NP_("table", "sent after background"),
        NP_("table", "at background"),
        NP_("table", "ended at (s)"),
        NP_("table", "the caller saw"),
        NP_("table", "loop"),
        NP_("table", "finished"),
        NP_("table", "in flight"),
        NP_("table", "waiting"),
        NP_("table", "CancelledError: the coroutine stopped"),
        # 07: the checklist's first rule (the notebook's dict keys)
        NP_("table", "503 on POST"),
        NP_("table", "429 on GET"),
        NP_("table", "422 on POST"),
        NP_("table", "network error on GET"),
        NP_("table", "network error on POST"),
        NP_("table", "body error on GET"),
        NP_("table", "cancelled GET"),
    }
)


#: The notebooks' printed lines, as templates with named placeholders.
LINES: frozenset[str] = frozenset(
    {
        NP_("line", "{name} {attempts} attempt(s), requests {seconds} s"),
        NP_("line", "cancelled during the wait; requests sent: {sent}"),
        NP_("line", "{start} - {end} ms  {state}"),
        NP_("line", "clients waking at exactly {cap} ms: {count}"),
        NP_("line", "events {events}: sent {sent}, blocked {blocked}"),
        NP_("line", "waits (s): {waits}"),
        NP_("line", "total (min): {total}"),
    }
)


def line(template: str, **values: Any) -> str:
    """One printed line: ``template`` (one of :data:`LINES`) in the notebook's language,
    filled with ``values`` (write a decimal with :func:`retrylab.i18n.number`).

    >>> line("cancelled during the wait; requests sent: {sent}", sent=1)
    'cancelled during the wait; requests sent: 1'
    """
    if template not in LINES:
        raise ValueError(
            f"template={template!r} is out of range: it must be one of "
            "retrylab.lessons.tables.LINES"
        )
    return pgettext("line", template).format(**values)


#: The titles the notebooks give their figures, as templates with named placeholders.
TITLES: frozenset[str] = frozenset(
    {
        NP_("figure title", "Waits of {runs} user-triggered refreshes"),
        NP_("figure title", "Waits before each retry: the lesson's strategies (seed {seed})"),
        NP_("figure title", "Background preset: phones give up during the outage"),
        NP_("figure title", "A passing policy"),
    }
)


def figure_title(template: str, **values: Any) -> str:
    """A figure's title: ``template`` (one of :data:`TITLES`) in the notebook's language,
    filled with ``values``.

    >>> from retrylab.i18n import language
    >>> with language("tr"):
    ...     print(figure_title("A passing policy"))
    Hedefleri tutturan bir politika
    """
    if template not in TITLES:
        raise ValueError(
            f"template={template!r} is out of range: it must be one of "
            "retrylab.lessons.tables.TITLES"
        )
    return pgettext("figure title", template).format(**values)


#: Axis names that read differently from the same header (02's ``retry``: a retry's number).
AXIS_LABELS: frozenset[str] = frozenset({NP_("table axis", "retry")})


def _axis(name: Any) -> Any:
    return pgettext("table axis", name) if name in AXIS_LABELS else label(name)


def label(text: Any) -> Any:
    """``text`` in the notebook's language if it is one of :data:`LABELS`, else as it is."""
    return pgettext("table", text) if isinstance(text, str) and text in LABELS else text


def _values(column: pd.Series) -> pd.Series:
    """``column``'s text values through :func:`label`, its dtype kept (4 stays 4, not 4.0)."""
    return pd.Series(
        [label(v) for v in column], index=column.index, name=column.name, dtype=column.dtype
    )


#: What a missing value shows in a Turkish table (pandas writes ``NaN`` or ``<NA>``).
MISSING = "–"
#: Marks a Turkish table shows: decimal comma, thousands grouped with a dot.
DECIMAL, THOUSANDS = ",", "."


def _decimals(values: pd.Series) -> int:
    """How many decimals pandas' own text of ``values`` gives its floats (0 if every
    float is whole: 621.0 is shown as 621)."""
    floats = [v for v in values if isinstance(v, float) and math.isfinite(v)]
    if not floats or all(v == int(v) for v in floats):
        return 0
    text = pd.Series(floats, dtype=float).to_string(index=False, header=False)
    return max((len(w.split(".")[1]) for w in text.split() if "." in w), default=0)


def styled(table: pd.DataFrame | pd.Series) -> Styler:
    """``table`` (already relabelled) as pandas' Styler writes it in Turkish: decimal
    comma, thousands with a dot, each float column with as many decimals as pandas
    gives it, a missing value as a dash, the index's and the header's numbers too.

    >>> print(styled(pd.DataFrame({"a": [6.62, 1.0], "b": [5937, None]})).to_string())
     a b
    0 6,62 5.937
    1 1,00 –
    <BLANKLINE>
    """
    frame = table.to_frame() if isinstance(table, pd.Series) else table
    styler = frame.style.format(na_rep=MISSING, decimal=DECIMAL, thousands=THOUSANDS, precision=0)
    for i in range(frame.shape[1]):
        digits = _decimals(frame.iloc[:, i])
        if digits:
            styler = styler.format(
                subset=[frame.columns[i]],
                na_rep=MISSING,
                decimal=DECIMAL,
                thousands=THOUSANDS,
                precision=digits,
            )
    for axis, index in ((0, frame.index), (1, frame.columns)):
        for level in range(index.nlevels):
            styler = styler.format_index(
                decimal=DECIMAL,
                thousands=THOUSANDS,
                axis=axis,
                level=level,
                na_rep=MISSING,
                precision=_decimals(pd.Series(index.get_level_values(level))),
            )
    if isinstance(table, pd.Series) and table.name is None:
        styler = styler.hide(axis="columns")
    return styler.set_uuid("table")


def _aligned(styler: Styler, index_levels: int) -> str:
    """The Styler's text laid out as pandas lays out a table: the index cells left,
    the values right, each column as wide as its widest cell."""
    rows = [line.split("\x1f") for line in styler.to_string(delimiter="\x1f").splitlines()]
    width = max(len(r) for r in rows)
    rows = [r + [""] * (width - len(r)) for r in rows]
    sizes = [max(len(r[c]) for r in rows) for c in range(width)]
    return "\n".join(
        "  ".join(
            cell.ljust(sizes[c]) if c < index_levels else cell.rjust(sizes[c])
            for c, cell in enumerate(r)
        ).rstrip()
        for r in rows
    )


class ShownFrame(pd.DataFrame):
    """A relabelled table for a Turkish page: pandas' own DataFrame, shown (in HTML and
    as text) with Turkish number marks (:func:`styled`); anything made from it is a
    plain DataFrame again."""

    @property
    def _constructor(self) -> type[pd.DataFrame]:
        return pd.DataFrame

    def _repr_html_(self) -> str:
        return styled(self).to_html()

    def __repr__(self) -> str:
        return _aligned(styled(self), self.index.nlevels)

    def to_string(self, *args: Any, **kwargs: Any) -> str:  # type: ignore[override]
        """The text a Turkish page shows (with arguments: pandas' own ``to_string``)."""
        if args or kwargs:
            return str(super().to_string(*args, **kwargs))
        return repr(self)


class ShownSeries(pd.Series):
    """A relabelled one-column table for a Turkish page (see :class:`ShownFrame`):
    its name heads the column, and no ``dtype`` line follows it."""

    @property
    def _constructor(self) -> type[pd.Series]:
        return pd.Series

    def _repr_html_(self) -> str:
        return styled(pd.Series(self)).to_html()

    def __repr__(self) -> str:
        return _aligned(styled(pd.Series(self)), self.index.nlevels)

    def to_string(self, *args: Any, **kwargs: Any) -> str:  # type: ignore[override]
        """The text a Turkish page shows (with arguments: pandas' own ``to_string``)."""
        if args or kwargs:
            return str(super().to_string(*args, **kwargs))
        return repr(self)


@overload
def localized(table: T) -> T: ...
@overload
def localized(table: Any) -> Any: ...
def localized(table: Any) -> Any:
    """A copy of ``table`` to show: headers, row labels, axis names and text values
    through :func:`label` (the original, with its English keys, is unchanged); in
    Turkish, numbers written with a decimal comma and thousands dots (:func:`styled`).

    Anything that is not a table (a checker's "Not yet" in place of the table a cell
    measures) is shown as it is:

    >>> localized("Not yet")
    'Not yet'
    >>> from retrylab.i18n import language
    >>> with language("tr"):
    ...     print(localized(pd.Series({"no backoff": 6.62, "full": 1234.5}, name="amplification")))
                      yük çarpanı
    geri çekilme yok         6,62
    tam sarsıntı         1.234,50
    """
    if not isinstance(table, (pd.DataFrame, pd.Series)):
        return table
    out = table.rename(index=label)
    if isinstance(out, pd.DataFrame):
        out = out.rename(columns=label)
        out.columns = out.columns.set_names([_axis(n) for n in out.columns.names])
        for i in range(out.shape[1]):
            if out.iloc[:, i].dtype.kind in "OSU":
                out.isetitem(i, _values(out.iloc[:, i]))
    else:
        out.name = label(out.name)
        if out.dtype.kind in "OSU":
            out = _values(out)
    out.index = out.index.set_names([_axis(n) for n in out.index.names])
    if (
        current() != "tr"
        or not out.index.is_unique
        or (isinstance(out, pd.DataFrame) and not out.columns.is_unique)
    ):
        return out  # English as it is; pandas' Styler needs unique labels
    return ShownFrame(out) if isinstance(out, pd.DataFrame) else ShownSeries(out)
