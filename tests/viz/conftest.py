"""Fixtures the figure tests share."""

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
