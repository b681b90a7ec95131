"""The game page in chromium: who sees the step controls, how they look, the toolbar's
turn and the board's keys.

* The rematch and step controls are shown to the game's owner and to admins only
  (a public server with three accounts and a visitor); a disabled button looks
  disabled, and the controls say what step mode does.
* The toolbar shows the turn the board shows, in the same animation frame: a
  MutationObserver in the board's document compares the two as each turn is drawn,
  while the game is stepped live, played back and scrubbed.
* The board's shortcut keys work as soon as the page opens, without a click in the
  frame, and typing in a field of the page does not drive the board.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, BrowserContext, Locator, Page, expect

from snakewar.server import ServerConfig, create_app
from snakewar.storage import Store
from tests.asgi_server import serve
from tests.browser.browser_env import shot
from tests.conformance_data import SHIPPED_HALITE_REPLAYS
from tests.server.accounts import make_user, password_of
from tests.waiting import wait_finished


class PublicServer:
    """A public server on loopback and the API headers of its accounts."""

    def __init__(self, url: str, headers: dict[str, dict[str, str]]) -> None:
        self.url = url
        self.headers = headers

    def step_game(self, owner: str) -> str:
        """A step-mode game of two built-ins made by ``owner``; its id."""
        created = httpx.post(
            f"{self.url}/api/games",
            json={"snakes": ["builtin:random", "builtin:random"], "width": 7, "height": 7,
                  "seed": 4, "step": True},
            headers=self.headers[owner],
            timeout=30,
        )  # fmt: skip
        assert created.status_code == 201, created.text
        return str(created.json()["id"])


@pytest.fixture(scope="module")
def public(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PublicServer]:
    db = tmp_path_factory.mktemp("db") / "games.db"
    with Store(f"sqlite:///{db}") as store:
        headers = {
            "owner": make_user(store, "owner"),
            "other": make_user(store, "other"),
            "boss": make_user(store, "boss", admin=True),
        }
        config = ServerConfig(database_url=f"sqlite:///{db}", public=True, signup="closed")
        with serve(create_app(config, store=store)) as url:
            yield PublicServer(url, headers)


def logged_in(browser: Browser, base: str, name: str | None) -> BrowserContext:
    """A browser context logged in as ``name`` (``None``: an anonymous visitor)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    if name is not None:
        page = context.new_page()
        page.goto(base + "/login")
        page.get_by_test_id("login-name").fill(name)
        page.get_by_test_id("login-password").fill(password_of(name))
        page.get_by_test_id("login-submit").click()
        expect(page).to_have_url(re.compile(r"/account$"))
        page.close()
    return context


def style_of(locator: Locator) -> dict[str, str]:
    """The computed opacity and cursor of an element."""
    style: dict[str, str] = locator.evaluate(
        "(node) => { const s = getComputedStyle(node);"
        " return {opacity: s.opacity, cursor: s.cursor}; }"
    )
    return style


def test_only_the_owner_and_admins_see_the_controls(public: PublicServer, browser: Browser) -> None:
    game = public.step_game("owner")
    for who, sees in (("owner", True), ("boss", True), ("other", False), (None, False)):
        context = logged_in(browser, public.url, who)
        page = context.new_page()
        page.goto(f"{public.url}/view/{game}")
        # Everyone sees the turn the board shows and the replay download.
        expect(page.get_by_test_id("toolbar-turn")).to_have_text("Turn 0")
        expect(page.get_by_test_id("download-replay")).to_be_visible()
        if sees:
            expect(page.get_by_test_id("step-controls")).to_be_visible()
            expect(page.get_by_test_id("step")).to_be_enabled()
            expect(page.get_by_test_id("rematch")).to_be_visible()
        else:
            expect(page.get_by_test_id("step-controls")).to_have_count(0)
            expect(page.get_by_test_id("pause")).to_have_count(0)
            expect(page.get_by_test_id("rematch")).to_have_count(0)
        shot(page, f"game-controls-{who or 'visitor'}")
        context.close()
    # What the page hides, the API refuses: the other user may not step the game.
    refused = httpx.post(
        f"{public.url}/api/games/{game}/step", headers=public.headers["other"], timeout=60
    )
    assert refused.status_code == 403


def test_disabled_buttons_look_disabled_and_step_mode_is_explained(
    public: PublicServer, browser: Browser
) -> None:
    game = public.step_game("owner")
    context = logged_in(browser, public.url, "owner")
    page = context.new_page()
    page.goto(f"{public.url}/view/{game}")
    pause, step, resume = (page.get_by_test_id(name) for name in ("pause", "step", "resume"))
    expect(page.get_by_test_id("step-state")).to_have_text("Paused at turn 0")
    expect(page.get_by_test_id("step-help")).to_contain_text("Step plays the next turn")
    expect(pause).to_be_disabled()
    expect(step).to_be_enabled()
    off, on = style_of(pause), style_of(step)
    assert float(off["opacity"]) < 0.6 and off["cursor"] == "not-allowed", off
    assert float(on["opacity"]) == 1 and on["cursor"] == "pointer", on
    shot(page, "game-step-paused")
    step.click()
    expect(page.get_by_test_id("step-state")).to_have_text("Paused at turn 1")
    expect(page.get_by_test_id("toolbar-turn")).to_have_text("Turn 1")
    resume.click()
    # The game runs (or has already run) to its end; its buttons go once it is over.
    expect(page.get_by_test_id("step-state")).to_have_text(
        re.compile(r"Game complete at turn \d+"), timeout=60_000
    )
    expect(pause).to_be_hidden()
    expect(step).to_be_hidden()
    expect(page.get_by_test_id("step-help")).to_have_text("")
    context.close()


def test_running_state_names_no_turn_that_could_lag(public: PublicServer, browser: Browser) -> None:
    game = public.step_game("owner")
    context = logged_in(browser, public.url, "owner")
    page = context.new_page()
    # The step controls ask the API while the game runs: answer them that it runs.
    running = httpx.get(f"{public.url}/api/games/{game}", timeout=60).json() | {
        "paused": False,
        "turn": 3,
    }
    page.route(
        re.compile(rf".*/api/games/{game}$"),
        lambda route: route.fulfill(json=running),
    )
    page.goto(f"{public.url}/view/{game}")
    expect(page.get_by_test_id("step-state")).to_have_text("Running")
    expect(page.get_by_test_id("step-help")).to_contain_text("Pause holds the game")
    expect(page.get_by_test_id("pause")).to_be_enabled()
    off = style_of(page.get_by_test_id("step"))
    assert float(off["opacity"]) < 0.6 and off["cursor"] == "not-allowed", off
    context.close()


# -- the toolbar's turn and the board's ------------------------------------------------

WATCH = """
() => {
  // Runs in the board's document: as each turn is drawn, note what the page's toolbar
  // says at that moment (a mutation is seen right after the drawing script ran).
  const turn = document.querySelector('[data-testid="turn"]');
  const toolbar = window.parent.document.querySelector('[data-testid="toolbar-turn"]');
  window.parent.__samples = [];
  new MutationObserver(() => {
    window.parent.__samples.push([turn.textContent, toolbar.textContent]);
  }).observe(turn, { childList: true, characterData: true, subtree: true });
}
"""


def samples(page: Page) -> list[list[str]]:
    found: list[list[str]] = page.evaluate("window.__samples")
    return found


def board_frame(page: Page) -> Any:
    frame = page.frame_locator("[data-testid=board-frame]")
    handle = page.locator("[data-testid=board-frame]").element_handle()
    assert handle is not None
    content = handle.content_frame()
    assert content is not None
    return frame, content


def test_the_toolbar_turn_is_the_board_turn_on_every_frame(base_url: str, page: Page) -> None:
    created = httpx.post(
        f"{base_url}/api/games",
        json={"snakes": ["builtin:greedy", "builtin:random"], "width": 7, "height": 7, "seed": 8,
              "step": True},
        timeout=30,
    ).json()  # fmt: skip
    game = created["id"]
    page.goto(f"{base_url}/view/{game}")
    board, content = board_frame(page)
    toolbar = page.get_by_test_id("toolbar-turn")
    expect(board.get_by_test_id("turn")).to_have_text("Turn 0")
    expect(toolbar).to_have_text("Turn 0")
    content.evaluate(WATCH)

    # Live: each step's frame reaches the board over its websocket.
    for expected in range(1, 6):
        httpx.post(f"{base_url}/api/games/{game}/step", timeout=30)
        expect(board.get_by_test_id("turn")).to_have_text(f"Turn {expected}")
        expect(toolbar).to_have_text(f"Turn {expected}")
    # Scrubbing: keys and the scrubber itself.
    scrubber = board.get_by_test_id("scrubber")
    for key, expected in (("ArrowLeft", 4), ("ArrowLeft", 3), ("Home", 0), ("End", 5)):
        scrubber.press(key)
        expect(toolbar).to_have_text(f"Turn {expected}")
    scrubber.fill("2")
    expect(toolbar).to_have_text("Turn 2")
    # The rest of the game, turn by turn, once it is over.
    httpx.post(f"{base_url}/api/games/{game}/resume", timeout=30)
    last = int(wait_finished(base_url, game)["turn"])
    scrubber.press("Home")
    for expected in range(1, last + 1):
        scrubber.press("ArrowRight")
        expect(toolbar).to_have_text(f"Turn {expected}")
    # Playback at the fastest speed (the board may draw fewer frames than turns then).
    board.get_by_test_id("fps").select_option("60")
    board.get_by_test_id("btn-first").click()
    board.get_by_test_id("btn-play").click()
    expect(board.get_by_test_id("turn")).to_have_text(f"Turn {last}", timeout=60_000)
    expect(toolbar).to_have_text(f"Turn {last}")

    seen = samples(page)
    assert {s[0] for s in seen} == {f"Turn {t}" for t in range(last + 1)}
    assert [s for s in seen if s[0] != s[1]] == [], "the toolbar and the board disagreed"
    shot(page, "game-toolbar-turn")


# -- keys ------------------------------------------------------------------------------


def finished_game(base_url: str) -> tuple[str, int]:
    """A finished game between two greedy bots: its id and last turn."""
    created = httpx.post(
        f"{base_url}/api/games", json={"snakes": ["greedy", "greedy"], "seed": 3}, timeout=30
    ).json()
    return str(created["id"]), int(wait_finished(base_url, str(created["id"]))["turn"])


def test_shortcut_keys_work_from_the_page_at_once(base_url: str, page: Page) -> None:
    game, last = finished_game(base_url)
    assert last > 4
    page.goto(f"{base_url}/view/{game}?turn=3")
    board = page.frame_locator("[data-testid=board-frame]")
    turn = board.get_by_test_id("turn")
    expect(turn).to_have_text("Turn 3")
    # A linked turn is shown paused (autoplay is for pages opened at the start).
    play = board.get_by_test_id("btn-play")
    expect(play).to_have_attribute("data-state", "paused")
    # No click in the frame: the keys reach the board from the page.
    assert page.evaluate("document.activeElement === document.body")
    page.keyboard.press("r")
    expect(turn).to_have_text("Turn 0")
    expect(play).to_have_attribute("data-state", "paused")
    for key, expected in (("ArrowRight", 1), ("d", 2), ("l", 3), ("j", 2), ("a", 1)):
        page.keyboard.press(key)
        expect(turn).to_have_text(f"Turn {expected}")
        expect(page.get_by_test_id("toolbar-turn")).to_have_text(f"Turn {expected}")
    page.keyboard.press("t")
    expect(turn).to_have_text(f"Turn {last}")
    page.keyboard.press("r")
    expect(turn).to_have_text("Turn 0")
    page.keyboard.press(" ")
    expect(play).to_have_attribute("data-state", "playing")
    # (Not k to pause: the game may have played to its end by then, and k would replay.)
    page.keyboard.press("r")
    expect(play).to_have_attribute("data-state", "paused")
    expect(turn).to_have_text("Turn 0")
    shot(page, "game-keys-from-the-page")
    # Typing in a field of the page types; it does not drive the board.
    page.evaluate(
        "() => { const f = document.createElement('input'); f.dataset.testid = 'typing';"
        " document.querySelector('.toolbar').append(f); }"
    )
    field = page.get_by_test_id("typing")
    field.click()
    page.keyboard.type("tdl r")
    expect(field).to_have_value("tdl r")
    page.keyboard.press("ArrowRight")
    expect(turn).to_have_text("Turn 0")
    # Space on one of the page's buttons presses that button.
    page.get_by_test_id("inspector").locator("summary").focus()
    page.keyboard.press(" ")
    expect(page.get_by_test_id("inspector")).to_have_attribute("open", "")
    expect(play).to_have_attribute("data-state", "paused")


def test_a_key_pressed_while_the_game_loads_wins_over_the_pages_autoplay(
    base_url: str, page: Page
) -> None:
    # The game page's board plays a finished game on its own once its frames are in.
    # A user who pressed "r" (first turn, paused) before they came in stays there: the
    # frames are held back until the key was pressed, so the order is certain.
    from playwright.sync_api import Route

    game, last = finished_game(base_url)
    assert last > 4
    held: list[Route] = []
    released = False

    def hold(route: Route) -> None:
        if released:
            route.continue_()
        else:
            held.append(route)

    page.route(re.compile(r"/games/[^/?]+/frames\?"), hold)
    with page.expect_request(re.compile(r"/games/[^/?]+/frames\?")):
        page.goto(f"{base_url}/view/{game}")
    assert page.evaluate("document.activeElement === document.body")
    page.keyboard.press("r")
    released = True
    for route in held:
        route.continue_()
    board = page.frame_locator("[data-testid=board-frame]")
    expect(board.get_by_test_id("scrubber")).to_have_attribute("max", str(last))
    # Read once, no retrying: autoplay would be playing now, or past turn 0.
    play = board.get_by_test_id("btn-play")
    assert (play.get_attribute("data-state"), board.get_by_test_id("turn").inner_text()) == (
        "paused",
        "Turn 0",
    )
    page.keyboard.press("ArrowRight")
    expect(board.get_by_test_id("turn")).to_have_text("Turn 1")
    expect(page.get_by_test_id("toolbar-turn")).to_have_text("Turn 1")


def test_keys_work_at_once_on_the_replay_and_halite_pages(
    base_url: str, page: Page, tmp_path: Path
) -> None:
    import subprocess
    import sys

    replay = tmp_path / "game.jsonl"
    subprocess.run(
        [sys.executable, "-m", "snakewar", "play", "random", "greedy", "-r", "4", "--no-live",
         "--replay", str(replay)],
        check=True,
        capture_output=True,
    )  # fmt: skip
    page.goto(base_url + "/replay")
    board = page.frame_locator("[data-testid=page-frame]")
    board.get_by_test_id("replay-file").set_input_files(str(replay))
    expect(board.get_by_test_id("turn")).to_have_text("Turn 0")
    page.locator("header .brand").focus()
    page.locator("header .brand").blur()
    page.keyboard.press("t")
    expect(board.get_by_test_id("game-status")).to_contain_text("Game over")

    hlt = SHIPPED_HALITE_REPLAYS / "public-s100208-32x32-2p.hlt"
    stored = httpx.post(
        f"{base_url}/api/halite/games",
        content=hlt.read_bytes(),
        headers={"Content-Type": "application/octet-stream"},
        timeout=60,
    ).json()
    page.goto(base_url + stored["url"])
    frame = page.frame_locator("[data-testid=halite-frame]")
    expect(frame.get_by_test_id("halite-player-name").first).to_be_visible()
    page.keyboard.press("t")
    expect(frame.get_by_test_id("game-status")).to_have_text("Game over")
