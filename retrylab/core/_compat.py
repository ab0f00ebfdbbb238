"""Small shims so the package runs on Python 3.10 as well as 3.11+."""

from __future__ import annotations

import enum
import sys

if sys.version_info >= (3, 11):
    from enum import StrEnum
else:  # pragma: no cover - exercised only on 3.10

    class StrEnum(str, enum.Enum):
        """A str-valued Enum whose str() is its value, as in Python 3.11."""

        def __str__(self) -> str:
            return str(self.value)


__all__ = ["StrEnum"]
