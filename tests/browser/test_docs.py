"""The API docs work offline: chromium with every request off this machine refused.

Swagger UI (``/docs``) and ReDoc (``/redoc``) come from the ``fastapi-offline``
package, served by Snakewar itself; a CDN would leave both pages blank here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from playwright.sync_api import expect

from tests.browser.browser_env import shot

if TYPE_CHECKING:
    from playwright.sync_api import Page, Route


def offline(page: Page) -> list[str]:
    """Abort every request not to 127.0.0.1; return the list of what was refused."""
    refused: list[str] = []

    def handle(route: Route) -> None:
        url = route.request.url
        if urlsplit(url).hostname == "127.0.0.1" or url.startswith(("data:", "blob:")):
            route.continue_()
        else:
            refused.append(url)
            route.abort()

    page.route("**/*", handle)
    return refused


def test_swagger_ui_renders_the_operations_offline(base_url: str, page: Page) -> None:
    refused = offline(page)
    page.goto(base_url + "/docs")
    games = page.locator(".opblock", has=page.locator("[data-path='/api/games']"))
    expect(games.first).to_be_visible()
    halite = page.locator(".opblock-summary-path[data-path='/api/halite/games']")
    expect(halite.first).to_be_visible()
    expect(page.locator(".info .title")).to_contain_text("Snakewar")
    shot(page, "docs-swagger")
    assert refused == []


def test_redoc_renders_offline(base_url: str, page: Page) -> None:
    refused = offline(page)
    page.goto(base_url + "/redoc")
    expect(page.locator("h1").first).to_contain_text("Snakewar")
    expect(page.get_by_text("/api/games/{game_id}/rematch").first).to_be_attached()
    shot(page, "docs-redoc")
    # ReDoc's bundle links its own "powered by" logo on its CDN: the one request that
    # goes out, and nothing depends on it (offline, the menu's footer shows no logo).
    assert [url.rsplit("/", 1)[1] for url in refused] in ([], ["logo-mini.svg"])
