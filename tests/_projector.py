"""The projector switch as a fixture, for the figure tests that check both layouts.

A test module imports it (``from _projector import switch``): a ``conftest.py`` in a
test folder would be imported as a second module named ``conftest`` and hide the
root one (``tests/project/test_layout.py`` reads its lists of slow tests).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from retrylab.viz import projector


@pytest.fixture(params=[False, True], ids=["plain", "projector"])
def switch(request: pytest.FixtureRequest) -> Iterator[bool]:
    """The projector switch off, then on (a test runs once each); off again after."""
    projector(request.param)
    try:
        yield request.param
    finally:
        projector(False)
