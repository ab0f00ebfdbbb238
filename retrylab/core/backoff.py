"""Backoff: how long to wait before retry number n (n = 0 is the first retry).

Three growths (the mobile lesson's strategies) give the *ceiling* of a wait:

- ``"constant"``: ``base`` every time (the "fixed interval", 2, 2, 2 s);
- ``"linear"``: ``base + step * n`` (the "incremental interval", 1, 2, 3 s);
- ``"exponential"``: ``base * factor ** n`` (1, 2, 4, 8, 16 s);

each limited by ``cap``. Jitter then turns the ceiling into the actual wait:

- ``"none"``: the ceiling itself; every client that failed together comes back
  together (the herd);
- ``"full"``: ``round(r * ceiling)``, uniform in [0, ceiling], the widest spread;
- ``"equal"``: ``round(ceiling / 2 + r * ceiling / 2)``, never shorter than half;
- ``"decorrelated"``: ``prev = min(cap, round(base + r * (3 * prev - base)))``,
  ``prev`` starting at ``base``; each wait depends on the one before, not on n;
- ``"proportional"``: ``min(cap, round(ceiling * (0.5 + r)))``, the mobile
  lesson's Kotlin ``delay * (0.5 + Random.nextDouble())``.

``r`` is one draw of the generator in [0, 1) and rounding is JavaScript's
``Math.round``, as in the lesson. Here ``ceiling`` is the *unrounded*
``min(cap, base * factor ** n)``, rounded once at the end exactly as the
lesson's ``Math.round(r * Math.min(TAVAN, TABAN * CARPAN ** n))``; with a
fractional factor (1.5) that differs from rounding the ceiling first.
:meth:`Backoff.ceiling` returns the rounded integer a table shows.
"""

from __future__ import annotations

import functools
import math
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

import numpy as np
import numpy.typing as npt

from ..i18n import N_, _
from ._check import check_choice, check_int, check_number
from .jsround import js_round, js_round_array

JITTERS: tuple[str, ...] = ("none", "full", "equal", "decorrelated", "proportional")
GROWTHS: tuple[str, ...] = ("exponential", "linear", "constant")
MAX_WAIT_MS = 86_400_000  # one day: the largest base, step or cap accepted
_EXACT = 2**53  # float64 counts whole ms exactly up to here (285,616 years)

Jitter = Literal["none", "full", "equal", "decorrelated", "proportional"]
Growth = Literal["exponential", "linear", "constant"]


class Random(Protocol):
    """Anything called with no arguments that returns a float in [0, 1)."""

    def __call__(self) -> float: ...


#: How :meth:`Backoff.describe` names each jitter (its English words as they always were,
#: "none jitter" included; Turkish says "sarsıntısız").
_JITTER_IN_DESCRIBE: dict[str, str] = {
    "none": N_("none jitter"),
    "full": N_("full jitter"),
    "equal": N_("equal jitter"),
    "decorrelated": N_("decorrelated jitter"),
    "proportional": N_("proportional jitter"),
}


@dataclass(frozen=True)
class Backoff:
    """The waits between attempts: a growth, a cap and a jitter.

    Use ``jitter="full"`` when many clients may fail together (the default
    advice of the lesson and of the AWS Architecture Blog); ``"none"`` only to
    show why it is wrong.

    Arguments (all times in integer milliseconds):

    - ``base``: the first ceiling, >= 1.
    - ``factor``: the exponential multiplier, >= 1 (1 means constant).
    - ``cap``: the largest wait, >= base; ``None`` leaves growth unbounded,
      which only the lesson's "exponential without a cap" column should do.
    - ``jitter``: one of :data:`JITTERS`.
    - ``growth``: one of :data:`GROWTHS`.
    - ``step``: the linear increment, >= 0; defaults to ``base``.

    The lesson's table (base 200, factor 2, cap 5000):

    >>> b = Backoff(200, 2, 5000)
    >>> [b.ceiling(n) for n in range(6)]
    [200, 400, 800, 1600, 3200, 5000]
    >>> Backoff(1000, growth="linear").ceiling(2)
    3000
    """

    base: int = 200
    factor: float = 2
    cap: int | None = 5000
    jitter: Jitter = "none"
    growth: Growth = "exponential"
    step: int | None = field(default=None)

    def __post_init__(self) -> None:
        base = check_int("base", self.base, low=1, high=MAX_WAIT_MS)
        factor = check_number("factor", self.factor, low=1, high=1000)
        check_choice("jitter", self.jitter, JITTERS)
        check_choice("growth", self.growth, GROWTHS)
        if self.cap is not None:
            check_int("cap", self.cap, low=1, high=MAX_WAIT_MS)
            if self.cap < base:
                raise ValueError(
                    f"cap={self.cap!r} is out of range: cap must be >= base "
                    f"(base={base}) and <= {MAX_WAIT_MS}"
                )
        if self.step is not None:
            check_int("step", self.step, low=0, high=MAX_WAIT_MS)
        object.__setattr__(self, "base", base)
        object.__setattr__(self, "factor", int(factor) if factor.is_integer() else factor)
        if self.cap is not None:
            object.__setattr__(self, "cap", int(self.cap))

    # -- the ceiling ----------------------------------------------------------

    def ceiling(self, n: int) -> int:
        """The un-jittered wait before retry ``n`` (0-based), capped, rounded to a ms.

        This is the integer a table shows (and the wait with ``jitter="none"``);
        the jitters multiply the draw by the *unrounded* ceiling, as the lesson's
        JavaScript does (see :meth:`next_wait`).

        >>> Backoff(200, 2, 5000).ceiling(5)       # 6400 without the cap
        5000
        >>> Backoff(200, 2, None).ceiling(5)
        6400
        >>> Backoff(300, 1.5, 5000).ceiling(2)     # 675 exactly; 300 * 1.5 ** 3 = 1012.5
        675
        """
        return js_round(self._raw_ceiling(check_int("n", n, low=0)))

    def _raw_ceiling(self, n: int) -> float:
        """``min(cap, base * factor ** n)`` before rounding (the lesson's ``ustel(n)``)."""
        cap = math.inf if self.cap is None else self.cap
        if self.growth == "constant" or (self.factor == 1 and self.growth == "exponential"):
            return self.base
        if self.growth == "linear":
            return min(cap, self.base + (self.base if self.step is None else self.step) * n)
        if self.cap is not None and n * math.log(self.factor) > math.log(cap / self.base) + 1:
            return cap  # far beyond the cap: skip the huge power
        # A whole factor gives a whole (unbounded) int: without a cap it is made a float
        # here, so every jitter's arithmetic below stays finite or fails here, with the
        # one documented error, whatever the factor's type; half the largest float
        # leaves room for proportional jitter's 1.5x. Too large is refused before the
        # power is computed (a whole-number power of a huge n is slow).
        too_large = sys.float_info.max / 2
        try:
            if self.base > 0 and (
                math.log(self.base) + n * math.log(self.factor) > math.log(too_large)
            ):
                raise OverflowError
            raw = float(self.base * self.factor**n)
            if raw > too_large:
                raise OverflowError
        except OverflowError:
            raise ValueError(
                f"n={n} is out of range: without a cap, {self.base} * {self.factor} ** n overflows"
            ) from None
        return min(cap, raw)

    def ceilings(self, n: npt.ArrayLike) -> npt.NDArray[np.int64]:
        """:meth:`ceiling` for an array of retry numbers (vectorized, exact).

        Without a cap, a ceiling over 2**53 ms (285,616 years, where float64
        stops counting whole ms) is refused rather than silently saturated.

        >>> Backoff(200, 2, 5000).ceilings([0, 2, 9]).tolist()
        [200, 800, 5000]
        >>> Backoff(1, cap=None, growth="linear").ceilings([4096, 10_000]).tolist()
        [4097, 10001]
        """
        if self.growth == "exponential" and self.factor != 1:
            sat = self._exponential_saturation()
            if sat is not None and sat <= _TABLE_MAX:  # capped: index the kept table
                idx = np.minimum(_check_n_array(n), sat)
                return np.asarray(_ceiling_table(self, sat, True)[idx])
        return js_round_array(self._raw_ceilings(n))

    def _raw_ceilings(self, n: npt.ArrayLike) -> npt.NDArray[np.float64]:
        """:meth:`_raw_ceiling` over an array, exact: one scalar computation per distinct n."""
        idx = _check_n_array(n)
        if idx.size == 0:
            return np.zeros(idx.shape, dtype=np.float64)
        top = int(idx.max())
        if self.growth == "constant" or (self.growth == "exponential" and self.factor == 1):
            return np.full(idx.shape, float(self.base))
        if self.growth == "linear":
            step = self.base if self.step is None else self.step
            _check_exact(top, self.base + step * top if self.cap is None else 0)
            raw = self.base + step * idx.astype(np.float64)
            return raw if self.cap is None else np.minimum(raw, float(self.cap))
        sat = self._exponential_saturation()
        if sat is not None:
            idx = np.minimum(idx, sat)
            if sat <= _TABLE_MAX:  # capped (so exact): a table of every n up to the cap, kept
                return np.asarray(_ceiling_table(self, sat, False)[idx])
        uniq, inverse = np.unique(idx, return_inverse=True)
        values = [self._raw_ceiling(int(k)) for k in uniq.tolist()]
        _check_exact(int(uniq[int(np.argmax(values))]), max(values))
        return np.asarray(values, dtype=np.float64)[inverse].reshape(idx.shape)

    def _exponential_saturation(self) -> int | None:
        """The first retry number whose raw ceiling is the cap (None without a cap)."""
        return None if self.cap is None else _saturation(self, self.cap)

    def _find_saturation(self, cap: int) -> int:
        k = max(0, math.ceil(math.log(cap / self.base) / math.log(self.factor)) - 2)
        while self._raw_ceiling(k) < cap:  # a few steps at most: the log is close
            k += 1
        return k

    # -- one wait from one draw -----------------------------------------------

    def next_wait(self, n: int, r: float, prev: float | None = None) -> int:
        """The wait before retry ``n`` given the draw ``r`` in [0, 1).

        ``prev`` is the previous wait (>= 0 ms), used only by decorrelated
        jitter (``None`` means ``base``, the lesson's starting value).

        Full, equal and proportional jitter scale the *unrounded* ceiling
        ``c = min(cap, base * factor ** n)``, then round once, exactly as the
        lesson's ``Math.round(r * Math.min(TAVAN, TABAN * CARPAN ** n))``: with a
        fractional factor the result can differ by 1 ms from rounding the
        ceiling first. Whole-number factors give whole ceilings, so nothing
        changes there.

        >>> b = Backoff(200, 2, 5000, jitter="full")
        >>> b.next_wait(0, 0.35), b.next_wait(9, 0.5)
        (70, 2500)
        >>> Backoff(300, 1.5, 5000, jitter="full").next_wait(3, 0.5)   # 0.5 * 1012.5
        506
        """
        n = check_int("n", n, low=0)
        r = check_number("r", r, low=0, high=1, high_open=True)
        if self.jitter == "decorrelated":
            p = self.base if prev is None else check_number("prev", prev, low=0)
            wait = js_round(self.base + r * (3 * p - self.base))
            return wait if self.cap is None else min(self.cap, wait)
        if self.jitter == "none":
            return self.ceiling(n)
        c = self._raw_ceiling(n)
        if self.jitter == "full":
            return js_round(r * c)
        if self.jitter == "equal":
            return js_round(c / 2 + r * c / 2)
        wait = js_round(c * (0.5 + r))  # proportional
        return wait if self.cap is None else min(self.cap, wait)

    def next_waits(
        self, n: npt.ArrayLike, r: npt.ArrayLike, prev: npt.ArrayLike | None = None
    ) -> npt.NDArray[np.int64]:
        """:meth:`next_wait` for arrays of retry numbers, draws and previous waits.

        Every element is checked as the scalar checks it: ``n`` whole and >= 0,
        ``r`` in [0, 1), ``prev`` >= 0, all finite.

        >>> b = Backoff(200, 2, 5000, jitter="full")
        >>> b.next_waits([0, 1], [0.35, 0.74]).tolist()
        [70, 296]
        >>> Backoff(200, 2, 5000, jitter="decorrelated").next_waits(0, [0.35, 0.74],
        ...                                                          [200, 5000]).tolist()
        [340, 5000]
        """
        rr = _check_array("r", r, "a number >= 0 and < 1", lambda a: (a >= 0) & (a < 1))
        p = None
        if self.jitter == "decorrelated":
            p = (
                np.full(rr.shape, self.base, dtype=np.float64)
                if prev is None
                else _check_array("prev", prev, "a number >= 0 (a wait in ms)", lambda a: a >= 0)
            )
        if self.jitter == "none":
            waits = self.ceilings(n)
            return waits if waits.shape == rr.shape else np.broadcast_to(waits, rr.shape).copy()
        c = None if self.jitter == "decorrelated" else self._raw_ceilings(n)
        if c is not None and c.shape != rr.shape:
            c = np.broadcast_to(c, rr.shape)
        return self.jittered(c, rr, p)

    def jittered(
        self,
        c: npt.NDArray[np.float64] | None,
        rr: npt.NDArray[np.float64],
        p: npt.NDArray[Any] | None,
    ) -> npt.NDArray[np.int64]:
        """The waits from unrounded ceilings ``c`` (``self._raw_ceilings(n)``, one per
        wait; unused by decorrelated jitter), checked draws ``rr`` and, for
        decorrelated jitter, the previous waits ``p``. A simulation that looks
        its ceilings up in a table built once calls this directly.

        >>> b = Backoff(200, 2, 5000, jitter="full")
        >>> b.jittered(np.array([200.0, 400.0]), np.array([0.35, 0.74]), None).tolist()
        [70, 296]
        """
        if self.jitter == "decorrelated":
            if p is None:
                raise ValueError(
                    "p=None is out of range: decorrelated jitter needs the previous waits"
                )
            raw = self.base + rr * (3 * p - self.base)
            if self.cap is not None:
                raw = np.minimum(raw, float(self.cap))
            elif raw.size and float(raw.max()) > _EXACT:
                raise ValueError(
                    f"prev={float(np.max(p)):g} is out of range: without a cap, "
                    f"the next wait passes 2**53 ms; give a cap"
                )
            return js_round_array(raw)
        if c is None:
            raise ValueError(f"c=None is out of range: jitter={self.jitter!r} needs the ceilings")
        if self.jitter == "none":
            return js_round_array(c)
        if self.jitter == "full":
            return js_round_array(rr * c)
        if self.jitter == "equal":
            return js_round_array(c / 2 + rr * c / 2)
        w = js_round_array(c * (0.5 + rr))
        return w if self.cap is None else np.minimum(w, self.cap)

    @property
    def draws_per_wait(self) -> int:
        """How many generator draws one wait takes: 0 for ``"none"``, else 1."""
        return 0 if self.jitter == "none" else 1

    # -- the schedule -----------------------------------------------------------

    def waits(self, rng: Random | None = None) -> Iterator[int]:
        """An endless iterator of waits in ms, drawing lazily from ``rng``.

        One draw per wait (none for ``"none"``), taken only when the next wait
        is asked for, so two schedules on one generator interleave draw by draw
        exactly as the lesson's table does:

        >>> from retrylab.core.rng import Mulberry32
        >>> rng = Mulberry32(20260114)
        >>> full = Backoff(200, 2, 5000, jitter="full").waits(rng)
        >>> deco = Backoff(200, 2, 5000, jitter="decorrelated").waits(rng)
        >>> [(next(full), next(deco)) for _ in range(3)]
        [(70, 384), (296, 1034), (780, 2121)]
        """
        self.check_rng(rng)
        return self._waits(rng)

    def check_rng(self, rng: object) -> None:
        """Refuse ``rng=None`` when this jitter draws random numbers."""
        if self.jitter != "none" and rng is None:
            raise ValueError(
                f"rng=None is out of range: jitter={self.jitter!r} needs a "
                "generator such as Mulberry32(seed)"
            )

    def _waits(self, rng: Random | None) -> Iterator[int]:
        prev: int | None = None
        n = 0
        while True:
            r = 0.0 if rng is None or self.jitter == "none" else rng()
            prev = self.next_wait(n, r, prev)
            yield prev
            n += 1

    def describe(self) -> str:
        """One line for a figure title or a table caption.

        >>> Backoff(200, 2, 5000, jitter="full").describe()
        'exponential: base 200 ms x 2, cap 5000 ms, full jitter'
        """
        cap = _("no cap") if self.cap is None else _("cap {cap} ms").format(cap=self.cap)
        if self.growth == "exponential":
            grow = _("exponential: base {base} ms x {factor}").format(
                base=self.base, factor=f"{self.factor:g}"
            )
        elif self.growth == "linear":
            step = self.base if self.step is None else self.step
            grow = _("linear: base {base} ms + {step} ms per retry").format(
                base=self.base, step=step
            )
        else:
            grow = _("constant: {base} ms").format(base=self.base)
        jitter = _JITTER_IN_DESCRIBE.get(self.jitter)
        return _("{growth}, {cap}, {jitter}").format(
            growth=grow, cap=cap, jitter=_(jitter) if jitter else f"{self.jitter} jitter"
        )


def _check_n_array(n: npt.ArrayLike) -> npt.NDArray[np.int64]:
    """Retry numbers as int64, refusing NaN, fractions and negatives by name."""
    a = np.asarray(n)
    if a.dtype.kind == "b" or a.dtype.kind not in "iuf":
        raise ValueError(f"n={n!r} is out of range: n must be whole numbers >= 0")
    if a.dtype.kind == "f":
        bad = ~(np.isfinite(a) & (a >= 0) & (a == np.floor(a)))
        if bad.any():
            raise ValueError(f"n={a[bad].flat[0]!r} is out of range: n must be whole numbers >= 0")
        if a.size and float(a.max()) > 2**62:
            raise ValueError(
                f"n={float(a.max())!r} is out of range: n must be whole numbers >= 0 and < 2**62"
            )
    idx = a.astype(np.int64)
    if idx.size and idx.min() < 0:
        raise ValueError(f"n={int(idx.min())} is out of range: n must be an integer >= 0")
    return idx


def _check_array(
    name: str,
    value: npt.ArrayLike,
    allowed: str,
    ok: Callable[[npt.NDArray[np.float64]], npt.NDArray[np.bool_]],
) -> npt.NDArray[np.float64]:
    """``value`` as a float64 array if every element is finite and ``ok``."""
    try:
        a = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name}={value!r} is out of range: {name} must be {allowed}") from None
    bad = ~np.isfinite(a)
    bad[~bad] = ~ok(a[~bad])
    if bad.any():
        raise ValueError(
            f"{name}={float(a[bad].flat[0])!r} is out of range: {name} must be {allowed}"
        )
    return a


#: The longest table of ceilings :func:`_ceiling_table` keeps (retry numbers up to the cap's).
_TABLE_MAX = 4096


@functools.lru_cache(maxsize=128)
def _saturation(backoff: Backoff, cap: int) -> int:
    """:meth:`Backoff._exponential_saturation`, found once per backoff."""
    return backoff._find_saturation(cap)


@functools.lru_cache(maxsize=128)
def _ceiling_table(backoff: Backoff, top: int, rounded: bool) -> npt.NDArray[Any]:
    """``backoff._raw_ceiling(n)`` for n = 0..top, each computed as the scalar does
    (exact), rounded as :meth:`Backoff.ceiling` rounds if ``rounded``; kept
    read-only: a simulation asks for the same table thousands of times."""
    table: npt.NDArray[Any] = np.asarray(
        [backoff._raw_ceiling(k) for k in range(top + 1)], dtype=np.float64
    )
    if rounded:
        table = js_round_array(table)
    table.flags.writeable = False
    return table


def _check_exact(n: int, ceiling: float) -> None:
    """Refuse a ceiling past 2**53 ms, where float64 (and so every draw) stops being exact."""
    if ceiling > _EXACT:
        raise ValueError(
            f"n={n} is out of range: without a cap its ceiling passes "
            "2**53 ms (285,616 years); give a cap or a smaller n"
        )
