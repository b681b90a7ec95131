"""The viewer tests run the JavaScript with Node (Debian's nodejs)."""

from __future__ import annotations

import pytest

from tests.system_tools import tool


@pytest.fixture(scope="session")
def node() -> str:
    """The ``node`` command (skipped without it; a failure under CI)."""
    return tool("node", "nodejs")
