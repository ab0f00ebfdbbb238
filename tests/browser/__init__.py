"""The notebooks in a real browser: JupyterLab + Debian Chromium + playwright.

Run: ``python -m pytest -m browser tests/browser -n 2`` (the heavy part, left out of
the plain ``python -m pytest`` by the ``-m 'not browser'`` of its addopts). Needs
/usr/bin/chromium (``apt-get install -y chromium``) and the ``browser`` extra
(playwright); skips with the reason without them, fails under ``CI=true``.
Screenshots, the server log and timings.json go to ``browser-artifacts/`` (or
``$RETRYLAB_ARTIFACTS``).

Other environment variables: ``RETRYLAB_NOTEBOOKS`` (serve another notebooks
folder), ``RETRYLAB_CHROMIUM`` (another Chromium binary), ``RETRYLAB_EXPLORER_MODULES``
(extra modules holding explorer classes).
"""
