"""Copies of objects that hold a lock: independent, with a lock of their own.

A breaker, a budget or a throttle keeps mutable state (a window, a count, a log)
behind a lock. ``copy.copy`` would share both with the original, and a lock cannot
be pickled or deep-copied at all. Classes that mix in :class:`OwnLock` copy,
deep-copy and pickle to an object in the same state that shares nothing with the
original: its own state, taken under the original's lock, and a new lock.

>>> import copy, threading
>>> class Counter(OwnLock):
...     def __init__(self) -> None:
...         self._lock = threading.Lock()
...         self.seen = [1]
>>> a = Counter()
>>> b, c = copy.copy(a), copy.deepcopy(a)
>>> b.seen.append(2)
>>> a.seen, b.seen, c.seen, b._lock is not a._lock
([1], [1, 2], [1], True)
"""

from __future__ import annotations

import copy
import threading
from typing import Any, TypeVar

__all__ = ["OwnLock"]

_Self = TypeVar("_Self", bound="OwnLock")


class OwnLock:
    """Mix-in: ``copy.copy``, ``copy.deepcopy`` and pickle give an independent object.

    The object keeps its lock in ``_lock``; ``_new_lock`` makes a new one
    (``threading.Lock`` unless the class says otherwise).
    """

    _lock: Any

    @staticmethod
    def _new_lock() -> Any:
        return threading.Lock()

    def _copied_state(self, memo: dict[int, Any]) -> dict[str, Any]:
        with self._lock:
            return {k: copy.deepcopy(v, memo) for k, v in self.__dict__.items() if k != "_lock"}

    def __getstate__(self) -> dict[str, Any]:
        return self._copied_state({})

    def __setstate__(self, state: dict[str, Any]) -> None:
        # __dict__ directly: frozen dataclasses refuse setattr
        self.__dict__.update(state)
        self.__dict__["_lock"] = self._new_lock()

    def __copy__(self: _Self) -> _Self:
        """An independent object in the same state (a shallow copy would share it)."""
        return self.__deepcopy__({})

    def __deepcopy__(self: _Self, memo: dict[int, Any]) -> _Self:
        twin = type(self).__new__(type(self))
        memo[id(self)] = twin
        twin.__setstate__(self._copied_state(memo))
        return twin
