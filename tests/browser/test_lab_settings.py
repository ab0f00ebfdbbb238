"""The project's JupyterLab settings reach the lab the way a student starts it.

The server here gets ``jupyter-config/`` on ``JUPYTER_CONFIG_PATH``, as the README's
open command gives it, and no flag of its own: so a fresh session asks no question
about news and checks for no update, and widget state is not written into the
notebooks a student saves.
"""

from __future__ import annotations

import contextlib
import json
import re
import urllib.request
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from .lab import LabServer
    from .pages import NotebookPage

pytestmark = pytest.mark.browser


def _composite(server: LabServer, plugin: str) -> dict[str, Any]:
    """The settings a fresh session starts from: the user set none, so each is its
    schema's default, which the overrides replace (the page computes the composite)."""
    with urllib.request.urlopen(server.url(f"lab/api/settings/{plugin}"), timeout=10) as r:
        props = json.loads(r.read())["schema"]["properties"]
    return {k: v.get("default") for k, v in props.items()}


def test_news_and_update_checks_are_off_from_the_project_settings(lab_server: LabServer) -> None:
    notification = _composite(lab_server, "@jupyterlab/apputils-extension:notification")
    assert notification.get("fetchNews") == "false", notification
    assert notification.get("checkForUpdates") is False, notification
    widgets = _composite(lab_server, "@jupyter-widgets/jupyterlab-manager:plugin")
    assert widgets.get("saveState") is False, widgets


def test_a_fresh_session_asks_nothing_about_news(notebook: Callable[[str], NotebookPage]) -> None:
    nb = notebook("00_start_here.ipynb")
    # JupyterLab asks "Would you like to get notified about official Jupyter news?" in a
    # toast once the page is restored: give it a few seconds to show, as a student would
    news = nb.page.locator(".Toastify__toast, .jp-toast-message").filter(
        has_text=re.compile("news", re.IGNORECASE)
    )
    with contextlib.suppress(Exception):
        news.first.wait_for(state="visible", timeout=3_000)
    assert news.count() == 0, [news.nth(i).inner_text() for i in range(news.count())]
