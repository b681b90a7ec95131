"""A 404 in chromium: a browser that opens a missing page gets the site's page, with its
header and the way back, not raw JSON; the page's own ``fetch`` of a missing thing
still reads JSON."""

from __future__ import annotations

import re

from playwright.sync_api import Browser, Page, expect

from tests.browser.browser_env import shot
from tests.browser.layout import VIEWPORTS, assert_no_sideways_scroll


def test_a_missing_page_is_the_sites_404_page(base_url: str, page: Page) -> None:
    for path, said in (
        ("/no/such/page", "there is no page at /no/such/page"),
        ("/view/no-such-game", "no stored game with id 'no-such-game'"),
        ("/ladders/no-such-ladder", "no ladder named 'no-such-ladder'"),
    ):
        response = page.goto(base_url + path)
        assert response is not None and response.status == 404, path
        assert response.headers["content-type"].startswith("text/html")
        expect(page.get_by_test_id("not-found")).to_have_text("Not found")
        expect(page.get_by_test_id("not-found-detail")).to_contain_text(said)
        expect(page.locator("body > header .brand")).to_be_visible()
        expect(page.get_by_test_id("nav-ladders")).to_be_visible()
        assert '"detail"' not in page.content()
    shot(page, "not-found")
    page.get_by_test_id("not-found-home").click()
    expect(page).to_have_url(re.compile(r"/$"))
    # What the pages' modules fetch is still JSON.
    answer = page.evaluate(
        """async () => {
            const response = await fetch("/view/no-such-game");
            return [response.status, response.headers.get("content-type"), await response.json()];
        }"""
    )
    assert answer == [404, "application/json", {"detail": "no stored game with id 'no-such-game'"}]


@VIEWPORTS
def test_the_404_page_fits_the_window(
    base_url: str, browser: Browser, width: int, height: int
) -> None:
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.goto(base_url + "/a/page/that/was/never/there")
    expect(page.get_by_test_id("not-found-home")).to_be_visible()
    assert_no_sideways_scroll(page)
    shot(page, f"not-found-{width}x{height}")
    context.close()
