"""JavaScript's ``Math.round``: halves round up (towards +infinity).

The lessons round with ``Math.round``; Python's ``round`` rounds halves to
even, which would change the lesson's numbers. ``x - floor(x)`` is exact for
doubles, so the comparison with 0.5 never suffers the classic
``floor(x + 0.5)`` error at 0.49999999999999994.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt


def js_round(x: float) -> int:
    """Round like JavaScript's ``Math.round``.

    >>> js_round(2.5), js_round(3.5), js_round(-2.5), round(2.5)
    (3, 4, -2, 2)
    >>> js_round(0.49999999999999994)
    0
    """
    f = math.floor(x)
    return int(f + 1 if x - f >= 0.5 else f)


def js_round_array(x: npt.ArrayLike) -> npt.NDArray[np.int64]:
    """:func:`js_round` over an array, as int64.

    >>> js_round_array([0.5, 1.5, 2.49, -0.5]).tolist()
    [1, 2, 2, 0]
    """
    a = np.asarray(x, dtype=np.float64)
    f = np.floor(a)
    return (f + (a - f >= 0.5)).astype(np.int64)
