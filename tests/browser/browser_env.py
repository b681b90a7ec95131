"""Where the browser tests find chromium and put their screenshots.

CI (``.ci/run``) installs Debian's chromium and sets ``CI=1``, so
there a missing browser fails instead of skipping.  Screenshots go to
``$SNAKEWAR_ARTIFACTS`` (default ``test-artifacts/``) for people to look at.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.system_tools import IN_CI

if TYPE_CHECKING:
    from playwright.sync_api import Page

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARTIFACTS = Path(os.environ.get("SNAKEWAR_ARTIFACTS", "test-artifacts"))


def require_chromium() -> None:
    """Call at a test module's top: skip the module without chromium (fail under CI)."""
    if not Path(CHROMIUM).exists():
        message = f"chromium is not at {CHROMIUM} (Debian package chromium; .ci/run installs it)"
        if IN_CI:
            raise RuntimeError(message)
        pytest.skip(message, allow_module_level=True)


def shot(page: Page, name: str) -> None:
    """Save a screenshot of ``page`` as ``$SNAKEWAR_ARTIFACTS/NAME.png``."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))
