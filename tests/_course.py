"""The nbgrader course's configuration, copied into a test's own course folder.

>>> sorted(CONFIG)
['expected.json', 'hidden_results.py', 'nbgrader_config.py']
"""

from __future__ import annotations

import shutil
from pathlib import Path

#: nbgrader's config and what it loads (the hidden tests' judge and its values).
CONFIG = ("nbgrader_config.py", "hidden_results.py", "expected.json")


def copy_config(course: Path, to: Path) -> None:
    """Copy the course's configuration from ``course`` into the folder ``to``."""
    for name in CONFIG:
        shutil.copy(course / name, to)
