"""Where the browser tests put their screenshots.

The browser itself is Debian's chromium, found by the ``chromium`` fixture
(``tests/browser/conftest.py``) through :func:`tests.system_tools.tool`: without it
every browser test is skipped with the reason, and fails under CI (``CI=1``).
Screenshots go to ``$SNAKEWAR_ARTIFACTS`` (default ``test-artifacts/``) for people to
look at.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.sync_api import Page

ARTIFACTS = Path(os.environ.get("SNAKEWAR_ARTIFACTS", "test-artifacts"))


def shot(page: Page, name: str) -> None:
    """Save a screenshot of ``page`` as ``$SNAKEWAR_ARTIFACTS/NAME.png``."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))
