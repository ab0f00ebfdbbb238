"""Layer 3, viz: the figure kit, the figures and the slider explorers.

The only layer that imports matplotlib and ipywidgets. They come with the
``notebooks`` extra: ``pip install "retrylab[notebooks]"``.
"""

from __future__ import annotations

try:
    import ipywidgets  # noqa: F401
    import matplotlib  # noqa: F401
except ImportError as missing:  # pragma: no cover - tests/project/test_layers.py runs it
    raise ImportError(
        f"retrylab.viz needs matplotlib and ipywidgets ({missing}), which the base install "
        'leaves out: pip install "retrylab[notebooks]"'
    ) from missing

from .kit import projector

__all__ = ["projector"]
