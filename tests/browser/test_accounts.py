"""A public server in a real browser: sign up, register a snake, play it, log out.

An anonymous visitor sees every game and ladder but no control that would change
anything.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from snakewar.server import ServerConfig, create_app
from tests.asgi_server import serve
from tests.browser.browser_env import shot
from tests.games.battlesnake.referee.snake_servers import SnakeServers
from tests.waiting import BUILD_PATIENCE_S, wait_finished


@pytest.fixture(scope="module")
def public_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, SnakeServers]]:
    db = tmp_path_factory.mktemp("db") / "games.db"
    # The test's snakes run on loopback: the operator lets bots live there.
    config = ServerConfig(
        database_url=f"sqlite:///{db}",
        public=True,
        signup="open",
        allowed_networks=("127.0.0.0/8",),
    )
    with SnakeServers() as servers, serve(create_app(config)) as url:
        yield url, servers


def test_an_anonymous_visitor_sees_no_control(
    public_url: tuple[str, SnakeServers], browser: Browser
) -> None:
    import httpx

    base, _ = public_url
    context = browser.new_context()
    page = context.new_page()
    page.goto(base + "/")
    expect(page.get_by_test_id("nav-login")).to_be_visible()
    expect(page.get_by_test_id("start-game")).to_have_count(0)
    expect(page.get_by_test_id("nav-new")).to_have_count(0)
    expect(page.get_by_test_id("nav-test")).to_have_count(0)
    for path, control in (
        ("/new", "new-game-form"),
        ("/test", "tester-form"),
        ("/halite", "halite-upload-form"),
    ):
        page.goto(base + path)
        expect(page.get_by_test_id(control)).to_have_count(0)
        expect(page.get_by_test_id("log-in-to-play")).to_be_visible()
    # Nothing on the pages works for a visitor anyway: the API says 401.
    assert (
        httpx.post(base + "/api/games", json={"snakes": ["random"]}, timeout=60).status_code == 401
    )
    shot(page, "anonymous-home")
    context.close()


def test_sign_up_register_a_snake_play_it_and_log_out(
    public_url: tuple[str, SnakeServers], page: Page
) -> None:
    base, servers = public_url
    page.goto(base + "/")
    page.get_by_test_id("nav-login").click()
    expect(page).to_have_url(re.compile(r"/login$"))
    page.get_by_test_id("signup-name").fill("ann")
    page.get_by_test_id("signup-password").fill("a long password")
    shot(page, "sign-up")
    page.get_by_test_id("signup-submit").click()
    expect(page).to_have_url(re.compile(r"/account$"))
    expect(page.get_by_test_id("nav-account")).to_have_text("ann")
    # The session cookie is out of the page's reach.
    cookies = {c["name"]: c for c in page.context.cookies()}
    session = cookies["snakewar_session"]
    assert session["httpOnly"] and session["sameSite"] == "Strict"
    assert "snakewar_session" not in page.evaluate("document.cookie")

    page.get_by_test_id("snake-name").fill("good")
    page.get_by_test_id("snake-url").fill(servers.url("good"))
    page.get_by_test_id("register-snake").click()
    expect(page.get_by_test_id("my-snakes")).to_contain_text("@ann/good")
    shot(page, "account-with-snake")

    page.get_by_test_id("nav-new").click()
    page.get_by_test_id("snakes").fill("@ann/good\nbuiltin:random")
    page.locator("input[name=width]").fill("7")
    page.locator("input[name=height]").fill("7")
    page.get_by_test_id("create").click()
    expect(page).to_have_url(re.compile(r"/view/[0-9a-f-]+$"))
    board = page.frame_locator("[data-testid=board-frame]")
    expect(board.get_by_test_id("game-status")).to_contain_text("Game over", timeout=30_000)
    expect(board.get_by_test_id("snake-name").first).to_have_text(re.compile("ann/good|random"))
    assert servers.bodies("good", "move")
    shot(page, "own-snake-game")

    page.get_by_test_id("logout").click()
    expect(page.get_by_test_id("nav-login")).to_be_visible()
    page.goto(base + "/account")
    expect(page).to_have_url(re.compile(r"/login$"))
    page.get_by_test_id("login-name").fill("ann")
    page.get_by_test_id("login-password").fill("not the password")
    page.get_by_test_id("login-submit").click()
    expect(page.get_by_test_id("login-error")).to_contain_text("wrong user name or password")
    page.get_by_test_id("login-password").fill("a long password")
    page.get_by_test_id("login-submit").click()
    expect(page).to_have_url(re.compile(r"/account$"))
    page.get_by_test_id("delete-good").click()
    page.get_by_test_id("confirm-yes").click()
    expect(page.get_by_test_id("my-snakes")).not_to_contain_text("@ann/good")


@pytest.mark.usefixtures("bubblewrap")
def test_upload_a_python_halite_bot_and_watch_it_play_in_the_sandbox(
    public_url: tuple[str, SnakeServers], page: Page, tmp_path: Path
) -> None:
    import io
    import zipfile

    base, _ = public_url
    kit = Path(__file__).resolve().parents[1] / "games" / "halite3" / "starter_kit"
    archive = tmp_path / "kit.zip"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as packed:
        for path in kit.rglob("*.py"):
            packed.write(path, f"kit/{path.relative_to(kit)}")
    archive.write_bytes(buffer.getvalue())

    page.goto(base + "/login")
    page.get_by_test_id("signup-name").fill("hal")
    page.get_by_test_id("signup-password").fill("a long password")
    page.get_by_test_id("signup-submit").click()
    expect(page).to_have_url(re.compile(r"/account$"))
    page.get_by_test_id("bot-file").set_input_files(str(archive))
    page.get_by_test_id("bot-name").fill("kit")
    page.get_by_test_id("upload-bot").click()
    expect(page.get_by_test_id("my-snakes")).to_contain_text("@hal/kit")
    # Built in the background: its Play button waits for the build (the page asks again).
    play = page.get_by_test_id("play-kit")
    expect(play).to_be_enabled(timeout=BUILD_PATIENCE_S * 1000)
    shot(page, "uploaded-halite-bot")
    play.click()
    # A Halite game is stored whole: the page moves on once it is played (100 turns).
    expect(page).to_have_url(re.compile(r"/view/[0-9a-f-]+$"), timeout=120_000)
    game_id = page.url.rsplit("/", 1)[1]
    game = wait_finished(base, game_id, every=0.5)
    assert game["status"] == "complete", game
    page.reload()
    board = page.frame_locator("[data-testid=halite-frame]")
    expect(board.get_by_test_id("halite-player-name")).to_have_text(["@hal/kit", "greedy"])
    expect(board.get_by_test_id("halite-canvas")).to_be_visible()
    shot(page, "uploaded-bot-game")
