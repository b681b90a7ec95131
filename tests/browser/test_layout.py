"""The site's tables and the empty home page at three window sizes, a phone's included.

No page scrolls sideways (``document.documentElement.scrollWidth <= innerWidth``); the
key columns of each table (a game's status and its "watch" link, a ladder entrant's
status, a snake's buttons) are on screen inside the table's box, or reached by
scrolling that box alone.  A server without games says what to do on its home page.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from snakewar.server import ServerConfig, create_app
from snakewar.storage import Store
from tests.asgi_server import serve
from tests.browser.browser_env import shot
from tests.browser.layout import VIEWPORTS, assert_no_sideways_scroll, column_reach
from tests.server.accounts import make_user, password_of
from tests.waiting import wait_finished

NAMES = ["alice-s-deep-thought-the-second", "hunter-of-the-long-corridors"]
ENTRANTS = [
    "an-entrant-with-a-name-as-long-as-a-ladder-allows-it-to-be",
    "greedy-but-with-a-much-longer-name-than-usual",
    "tiny",
]


@pytest.fixture(scope="module")
def busy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A local server with finished games, one paused live game and a ladder."""
    db = tmp_path_factory.mktemp("db") / "games.db"
    with serve(create_app(ServerConfig(database_url=f"sqlite:///{db}"))) as url:
        for seed in (1, 2):
            game = httpx.post(
                f"{url}/api/games",
                json={"snakes": ["greedy", "random"], "names": NAMES, "seed": seed,
                      "width": 7, "height": 7},
                timeout=30,
            ).json()  # fmt: skip
            wait_finished(url, game["id"])
        live = httpx.post(
            f"{url}/api/games",
            json={"snakes": ["greedy", "random"], "names": NAMES, "step": True},
            timeout=30,
        )
        assert live.status_code == 201, live.text
        ladder = httpx.post(f"{url}/api/ladders", json={"name": "the-long-ladder"}, timeout=30)
        assert ladder.status_code == 201, ladder.text
        for name in ENTRANTS:
            added = httpx.post(
                f"{url}/api/ladders/the-long-ladder/snakes",
                json={"snake": "greedy", "name": name},
                timeout=30,
            )
            assert added.status_code == 201, added.text
        yield url


@pytest.fixture
def sized(browser: Browser, request: pytest.FixtureRequest) -> Iterator[Page]:
    params = request.node.callspec.params
    context = browser.new_context(viewport={"width": params["width"], "height": params["height"]})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    yield page
    context.close()
    assert not errors, f"JavaScript errors: {errors}"


@VIEWPORTS
def test_the_home_tables_show_status_and_watch(
    busy: str, sized: Page, width: int, height: int
) -> None:
    page = sized
    page.goto(busy + "/")
    for box, table in (("live-box", "live-games"), ("recent-box", "recent-games")):
        expect(page.get_by_test_id(box)).to_be_visible()
        rows = page.get_by_test_id(table).locator("tbody tr")
        expect(rows.first).to_be_visible()
        headers = page.get_by_test_id(table).locator("thead th")
        expect(headers.nth(3)).to_have_text("Status")
        for row in rows.all():
            status, watch = row.locator("td").nth(3), row.locator("td").nth(4)
            expect(watch).to_have_text("watch")
            # The key columns are on screen without any scrolling at all.
            assert column_reach(status) == "visible", (table, width)
            assert column_reach(watch) == "visible", (table, width)
    expect(page.get_by_test_id("no-games")).to_be_hidden()
    shot(page, f"home-{width}x{height}")
    assert_no_sideways_scroll(page)


@VIEWPORTS
def test_the_ladder_tables_fit_or_scroll_in_their_box(
    busy: str, sized: Page, width: int, height: int
) -> None:
    page = sized
    page.goto(busy + "/ladders/the-long-ladder")
    rows = page.get_by_test_id("standings").locator("tr")
    expect(rows).to_have_count(len(ENTRANTS))
    # The status is the last column but the leave button's (after the secondary scorers).
    status = len(page.get_by_test_id("standings-head").locator("th").all()) - 2
    for row in rows.all():
        cells = row.locator("td")
        expect(cells.nth(status)).to_have_text("active")
        for column in (1, status):  # the snake and its status
            assert column_reach(cells.nth(column)) in ("visible", "scrolled"), (column, width)
    if width >= 1366:
        assert column_reach(rows.first.locator("td").nth(status)) == "visible"
    shot(page, f"ladder-{width}x{height}")
    assert_no_sideways_scroll(page)

    page.goto(busy + "/ladders")
    row = page.get_by_test_id("ladders").locator("tr", has_text="the-long-ladder")
    expect(row).to_contain_text("3 snakes")
    for cell in row.locator("td").all():
        assert column_reach(cell) in ("visible", "scrolled"), width
    shot(page, f"ladders-{width}x{height}")
    assert_no_sideways_scroll(page)


# -- the account page's table (a public server) -----------------------------------------


@pytest.fixture(scope="module")
def public(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    db = tmp_path_factory.mktemp("db") / "games.db"
    with Store(f"sqlite:///{db}") as store:
        headers = make_user(store, "carol")
        config = ServerConfig(
            database_url=f"sqlite:///{db}",
            public=True,
            signup="closed",
            allowed_networks=("127.0.0.0/8",),
        )
        with serve(create_app(config, store=store)) as url:
            long_url = "http://127.0.0.1:9/" + "a-snake-that-lives-at-a-long-address/" * 3
            made = httpx.post(
                f"{url}/api/snakes",
                json={"name": "far-away-snake", "url": long_url},
                headers=headers,
                timeout=30,
            )
            assert made.status_code == 201, made.text
            yield url


def log_in(page: Page, base: str, name: str) -> None:
    page.goto(base + "/login")
    page.get_by_test_id("login-name").fill(name)
    page.get_by_test_id("login-password").fill(password_of(name))
    page.get_by_test_id("login-submit").click()
    expect(page).to_have_url(re.compile(r"/account$"))


@VIEWPORTS
def test_the_account_table_keeps_its_buttons_in_reach(
    public: str, sized: Page, width: int, height: int
) -> None:
    page = sized
    log_in(page, public, "carol")
    row = page.get_by_test_id("my-snakes").locator("tr").first
    expect(row).to_contain_text("@carol/far-away-snake")
    for testid in ("play-far-away-snake", "delete-far-away-snake"):
        button = page.get_by_test_id(testid)
        expect(button).to_be_attached()
        assert column_reach(button) in ("visible", "scrolled"), (testid, width)
    shot(page, f"account-{width}x{height}")
    assert_no_sideways_scroll(page)


# -- the empty home page -------------------------------------------------------------------


@pytest.fixture(scope="module")
def empty() -> Iterator[str]:
    with serve(create_app(ServerConfig(database_url="memory"))) as url:
        yield url


@VIEWPORTS
def test_a_home_page_without_games_says_what_to_do(
    empty: str, sized: Page, width: int, height: int
) -> None:
    page = sized
    page.goto(empty + "/")
    help_box = page.get_by_test_id("no-games")
    expect(help_box).to_be_visible()
    expect(help_box).to_contain_text("No games yet")
    # No bare headings over empty tables.
    expect(page.get_by_test_id("live-box")).to_be_hidden()
    expect(page.get_by_test_id("recent-box")).to_be_hidden()
    expect(page.get_by_role("heading", name="Live")).to_be_hidden()
    # What to do: start a game (this server's one user may), and how to play a snake.
    expect(page.get_by_test_id("empty-new-game")).to_have_attribute("href", "/new")
    expect(page.get_by_test_id("empty-test")).to_have_attribute("href", "/test")
    expect(page.get_by_test_id("how-to-play")).to_contain_text("snakewar bot serve greedy")
    shot(page, f"home-empty-{width}x{height}")
    assert_no_sideways_scroll(page)
    page.get_by_test_id("empty-new-game").click()
    expect(page).to_have_url(re.compile(r"/new$"))
    # The first game makes the help give way to the list.
    game = httpx.post(
        f"{empty}/api/games",
        json={"snakes": ["greedy", "random"], "width": 7, "height": 7},
        timeout=30,
    ).json()
    page.goto(empty + "/")
    expect(page.get_by_test_id("no-games")).to_be_hidden()
    expect(page.locator(f"a[href='{game['viewer']}']").first).to_be_visible()
    wait_finished(empty, game["id"])
    assert httpx.delete(f"{empty}/api/games/{game['id']}", timeout=30).status_code == 204


def test_a_visitor_to_an_empty_public_server_is_asked_to_log_in(browser: Browser) -> None:
    config = ServerConfig(database_url="memory", public=True, signup="open")
    with serve(create_app(config)) as url:
        context = browser.new_context(viewport={"width": 390, "height": 844})
        page = context.new_page()
        page.goto(url + "/")
        expect(page.get_by_test_id("no-games")).to_be_visible()
        expect(page.get_by_test_id("empty-log-in")).to_have_attribute("href", "/login")
        expect(page.get_by_test_id("empty-new-game")).to_have_count(0)
        expect(page.get_by_test_id("empty-test")).to_have_count(0)
        assert_no_sideways_scroll(page)
        shot(page, "home-empty-visitor")
        context.close()
