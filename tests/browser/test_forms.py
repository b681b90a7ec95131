"""The forms in chromium: the new-game form's maps and sizes, deleting a snake, and the
server's answer to a bad name in words.

* Every map is listed by its title; a map that does not take the board's size resets
  it to the map's default (Arcade Maze's 19x21, then Standard: 11x11, not 7x7).
* The account page's Delete looks destructive, unlike "Play it", and asks first in a
  dialog: Cancel and Escape keep the snake, the dialog's Delete deletes it.
* A bad user or snake name is answered with the rule in words, never a regular
  expression, in the sign-up, log-in and snake forms.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import Page, expect

from snakewar.server import ServerConfig, create_app
from tests.asgi_server import serve
from tests.browser.browser_env import shot
from tests.games.battlesnake.referee.snake_servers import SnakeServers

USER_RULE = "name: 1 to 32 lowercase letters, digits, _ or -, starting with a letter or digit"
SNAKE_RULE = "name: 1 to 40 letters, digits, _, . or -, starting with a letter or digit"


def size(page: Page) -> tuple[str, str]:
    return (
        page.locator("input[name=width]").input_value(),
        page.locator("input[name=height]").input_value(),
    )


def test_every_map_by_its_title_and_sizes_that_follow_the_map(base_url: str, page: Page) -> None:
    maps = {m["id"]: m for m in httpx.get(f"{base_url}/api/maps", timeout=30).json()}
    page.goto(base_url + "/new")
    select = page.get_by_test_id("map")
    expect(select).to_have_value("standard")
    options = select.locator("option")
    expect(options).to_have_count(len(maps))
    shown = {o.get_attribute("value"): o.inner_text() for o in options.all()}
    assert shown == {map_id: m["title"] for map_id, m in maps.items()}
    assert shown["hz_castle_wall"] == "Castle Wall"
    assert not [title for title in shown.values() if "_" in title or title.startswith("hz")]
    titles = list(shown.values())
    assert titles == sorted(titles, key=str.casefold), "listed in the order of their titles"

    assert size(page) == ("11", "11")
    select.select_option("arcade_maze")
    assert size(page) == ("19", "21")
    expect(page.locator("#map-info")).to_contain_text("arcade-style maze")
    select.select_option("standard")
    assert size(page) == ("11", "11")  # its default, not its first size (7x7)
    # A size the next map takes is kept; one it does not take becomes its default.
    page.locator("input[name=width]").fill("7")
    page.locator("input[name=height]").fill("7")
    select.select_option("healing_pools")
    assert size(page) == ("7", "7")
    select.select_option("hz_castle_wall_lg")
    assert size(page) == ("19", "19")
    select.select_option("hz_rings")
    assert size(page) == ("19", "19")
    select.select_option("hz_castle_wall")
    assert size(page) == ("11", "11")
    shot(page, "new-game-map-titles")

    # The game is made at the size the form shows.
    select.select_option("arcade_maze")
    select.select_option("standard")
    page.get_by_test_id("snakes").fill("builtin:greedy\nbuiltin:random")
    page.get_by_test_id("seed").fill("6")
    page.get_by_test_id("create").click()
    expect(page).to_have_url(re.compile(r"/view/[0-9a-f-]+$"))
    board = page.frame_locator("[data-testid=board-frame]")
    expect(board.get_by_test_id("game-info")).to_have_text("standard · standard · 11×11 · seed 6")


@pytest.fixture(scope="module")
def public(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, SnakeServers]]:
    db = tmp_path_factory.mktemp("db") / "games.db"
    config = ServerConfig(
        database_url=f"sqlite:///{db}",
        public=True,
        signup="open",
        allowed_networks=("127.0.0.0/8",),
    )
    with SnakeServers() as servers, serve(create_app(config)) as url:
        yield url, servers


def sign_up(page: Page, base: str, name: str) -> None:
    page.goto(base + "/login")
    page.get_by_test_id("signup-name").fill(name)
    page.get_by_test_id("signup-password").fill("a long password")
    page.get_by_test_id("signup-submit").click()
    expect(page).to_have_url(re.compile(r"/account$"))


def colours(page: Page, testid: str) -> dict[str, str]:
    found: dict[str, str] = page.get_by_test_id(testid).evaluate(
        "(node) => { const s = getComputedStyle(node);"
        " return {color: s.color, background: s.backgroundColor, border: s.borderTopColor}; }"
    )
    return found


def test_delete_looks_destructive_and_asks_first(
    public: tuple[str, SnakeServers], page: Page
) -> None:
    base, servers = public
    sign_up(page, base, "dora")
    page.get_by_test_id("snake-name").fill("good")
    page.get_by_test_id("snake-url").fill(servers.url("good"))
    page.get_by_test_id("register-snake").click()
    snakes = page.get_by_test_id("my-snakes")
    expect(snakes).to_contain_text("@dora/good")

    play, delete = colours(page, "play-good"), colours(page, "delete-good")
    assert delete != play
    assert delete["background"] == "rgba(0, 0, 0, 0)"  # outlined, not filled
    assert delete["color"] == delete["border"] != play["color"]  # in the error colour
    shot(page, "account-delete-button")

    dialog = page.get_by_test_id("confirm-dialog")
    expect(dialog).to_be_hidden()
    page.get_by_test_id("delete-good").click()
    expect(dialog).to_be_visible()
    expect(page.get_by_test_id("confirm-text")).to_contain_text("Delete @dora/good?")
    expect(page.get_by_test_id("confirm-yes")).to_have_text("Delete")
    shot(page, "account-delete-dialog")
    page.get_by_test_id("confirm-cancel").click()
    expect(dialog).to_be_hidden()
    page.get_by_test_id("delete-good").click()
    expect(dialog).to_be_visible()
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    page.reload()
    expect(snakes).to_contain_text("@dora/good")  # still there, on the server too

    page.get_by_test_id("delete-good").click()
    page.get_by_test_id("confirm-yes").click()
    expect(dialog).to_be_hidden()
    expect(snakes).not_to_contain_text("@dora/good")
    page.reload()
    expect(page.get_by_test_id("register-form")).to_be_visible()
    expect(snakes).not_to_contain_text("@dora/good")


def test_revoking_a_token_asks_first(public: tuple[str, SnakeServers], page: Page) -> None:
    base, _ = public
    sign_up(page, base, "tess")
    page.get_by_test_id("create-token").click()
    expect(page.get_by_test_id("new-token")).to_contain_text("Your new token")
    tokens = page.get_by_test_id("my-tokens")
    revoke = tokens.get_by_role("button", name="Revoke")
    revoke.click()
    expect(page.get_by_test_id("confirm-text")).to_contain_text('Revoke the token "cli"?')
    page.get_by_test_id("confirm-cancel").click()
    expect(tokens).not_to_contain_text("revoked")
    revoke.click()
    page.get_by_test_id("confirm-yes").click()
    expect(tokens).to_contain_text("revoked")


def test_a_bad_name_is_answered_in_words(public: tuple[str, SnakeServers], page: Page) -> None:
    base, servers = public
    page.goto(base + "/login")
    page.get_by_test_id("signup-name").fill("Bad Name")
    page.get_by_test_id("signup-password").fill("a long password")
    page.get_by_test_id("signup-submit").click()
    error = page.get_by_test_id("signup-error")
    expect(error).to_have_text(USER_RULE)
    shot(page, "signup-bad-name")
    page.get_by_test_id("login-name").fill("-nobody")
    page.get_by_test_id("login-password").fill("a long password")
    page.get_by_test_id("login-submit").click()
    expect(page.get_by_test_id("login-error")).to_have_text(USER_RULE)

    sign_up(page, base, "eve")
    page.get_by_test_id("snake-name").fill("no spaces allowed")
    page.get_by_test_id("snake-url").fill(servers.url("good"))
    page.get_by_test_id("register-snake").click()
    expect(page.get_by_test_id("error")).to_have_text(SNAKE_RULE)
