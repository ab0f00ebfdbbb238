"""Mulberry32: the lessons' seeded generator ``uretec(tohum)``, bit for bit.

Use it wherever a lesson draws a random number, so that every table a lesson
prints comes out identical here. In production, use an unseeded generator.

The JavaScript original::

    function uretec(tohum) {
      let a = tohum >>> 0;
      return () => {
        a = (a + 0x6d2b79f5) >>> 0;
        let t = Math.imul(a ^ (a >>> 15), 1 | a);
        t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
      };
    }

Every operation there is arithmetic modulo 2**32, which is exactly what numpy's
``uint32`` does, so :meth:`Mulberry32.random` computes a whole block of draws at
once: the state of draw ``k`` is ``seed + k * 0x6D2B79F5`` (mod 2**32).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ._check import check_int, check_size

_MASK = 0xFFFFFFFF
_STEP = 0x6D2B79F5
_SCALE = 1.0 / 4294967296.0
_CHUNK = 1 << 20  # draws per vectorized block: bounds temporary memory
#: The most draws one ``random(n)`` call returns (800 MB of float64): a larger n is
#: refused with a ValueError instead of failing with a MemoryError.
MAX_DRAWS = 100_000_000


class Mulberry32:
    """The lessons' generator: ``rng()`` gives one float in [0, 1).

    Use one instance per stream you want to reproduce; pass it to every
    function that draws, in the order the lesson draws.

    >>> rng = Mulberry32(20260114)
    >>> round(rng() * 200)          # the lesson's first full-jitter wait
    70
    >>> Mulberry32(20260114).random(2).round(4).tolist()
    [0.3504, 0.4591]
    """

    __slots__ = ("_state", "seed")

    def __init__(self, seed: int) -> None:
        check_int("seed", seed, low=-(2**53), high=2**53)
        self.seed = int(seed)
        self._state = int(seed) & _MASK  # JavaScript's `tohum >>> 0`

    @property
    def state(self) -> int:
        """The 32-bit state; the next draw first adds 0x6D2B79F5 to it."""
        return self._state

    def __call__(self) -> float:
        a = (self._state + _STEP) & _MASK
        self._state = a
        t = ((a ^ (a >> 15)) * (1 | a)) & _MASK
        t = ((t + (((t ^ (t >> 7)) * (61 | t)) & _MASK)) & _MASK) ^ t
        return ((t ^ (t >> 14)) & _MASK) * _SCALE

    def random(self, n: int) -> npt.NDArray[np.float64]:
        """The next ``n`` draws as a float64 array, same stream as ``rng()``.

        >>> a, b = Mulberry32(7), Mulberry32(7)
        >>> [a() for _ in range(3)] == b.random(3).tolist()
        True
        """
        n = check_size("n", n, MAX_DRAWS)
        out = np.empty(n, dtype=np.float64)
        start = self._state
        for lo in range(0, n, _CHUNK):
            hi = min(n, lo + _CHUNK)
            k = np.arange(lo + 1, hi + 1, dtype=np.uint32)
            _block(np.uint32(start), k, out[lo:hi])
        self._state = (start + n * _STEP) & _MASK
        return out

    def copy(self) -> Mulberry32:
        """An independent generator at the same point of the stream."""
        twin = Mulberry32(self.seed)
        twin._state = self._state
        return twin

    def __repr__(self) -> str:
        return f"Mulberry32(seed={self.seed}, state=0x{self._state:08x})"


def _block(start: np.uint32, k: npt.NDArray[np.uint32], out: npt.NDArray[np.float64]) -> None:
    """Draws number ``k`` (1-based) after ``start``, written into ``out``.

    All arithmetic is in place on uint32 arrays, which wrap modulo 2**32 like
    JavaScript's ``>>> 0`` and ``Math.imul``.
    """
    with np.errstate(over="ignore"):
        a = k
        a *= np.uint32(_STEP)
        a += start
        t = a >> np.uint32(15)
        t ^= a
        a |= np.uint32(1)
        t *= a
        u = t >> np.uint32(7)
        u ^= t
        v = t | np.uint32(61)
        u *= v
        u += t
        u ^= t
        t = u >> np.uint32(14)
        t ^= u
    np.multiply(t, _SCALE, out=out)
