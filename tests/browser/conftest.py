"""Fixtures shared by the browser tests: the app on loopback, chromium and a page.

Every test here needs Debian's chromium: the autouse ``chromium`` fixture skips them
all without it, with the reason, and fails them under CI (``CI=1``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from snakewar.server import ServerConfig, create_app
from tests.asgi_server import serve
from tests.system_tools import tool

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page


@pytest.fixture(scope="session", autouse=True)
def chromium() -> str:
    """The path of Debian's chromium (a skip without it, a failure under CI)."""
    return tool("chromium")


PATIENCE_MS = 120_000
"""How long a page call or an ``expect`` waits (a loaded machine renders slowly)."""


@pytest.fixture(scope="session", autouse=True)
def patient_expect() -> None:
    from playwright.sync_api import expect

    expect.set_options(timeout=PATIENCE_MS)


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    db = tmp_path_factory.mktemp("db") / "games.db"
    with serve(create_app(ServerConfig(database_url=f"sqlite:///{db}"))) as url:
        yield url


@pytest.fixture(scope="module")
def browser(chromium: str) -> Iterator[Browser]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=chromium,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ],
        )
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(PATIENCE_MS)
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda exc: errors.append(str(exc)))
    yield opened
    context.close()
    assert not errors, f"JavaScript errors: {errors}"
