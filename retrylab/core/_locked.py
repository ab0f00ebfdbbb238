"""A lock that does not stop an object from being copied or pickled.

The thread-safe counters (retry budgets, throttles, breakers) guard their
state with a ``_lock``; a lock cannot be pickled, so without this an object
holding one could not be sent to another process (the explorers' prefetch
worker sends back results that hold a budget) nor ``copy.deepcopy``-ed. The
copy gets a new, unlocked lock of the same kind; the state is read under the
original's lock, so a copy taken while another thread updates it is whole.

>>> import copy, pickle
>>> from retrylab.core.budget import GrpcRetryThrottle
>>> t = GrpcRetryThrottle(10, 0.1)
>>> t.on_outcome(False)
>>> u = pickle.loads(pickle.dumps(t))
>>> u.tokens, u._lock is not t._lock, u._lock.acquire(blocking=False)
(9.0, True, True)
>>> copy.deepcopy(t).tokens
9.0
"""

from __future__ import annotations

import threading
from typing import Any, ClassVar

__all__ = ["Locked"]


class Locked:
    """Mixin for a class whose instances keep their lock in ``self._lock``."""

    #: ``threading.Lock`` or ``threading.RLock``: what a copy's new lock is.
    _lock_kind: ClassVar[Any] = threading.Lock

    @classmethod
    def _new_lock(cls) -> Any:
        return cls._lock_kind()

    def __getstate__(self) -> dict[str, Any]:
        lock = self.__dict__.get("_lock")
        if lock is None:
            state = dict(self.__dict__)
        else:
            with lock:
                state = dict(self.__dict__)
        state.pop("_lock", None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.__dict__["_lock"] = self._new_lock()
