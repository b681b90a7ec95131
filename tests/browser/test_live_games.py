"""Running games in chromium: a Halite game watched live, and every bot's failure shown.

* The Halite viewer follows a running game (a real bot program holds it on chosen turns
  until the test lets it go, so what the page shows while it runs is checked without
  the clock): the turn advances as the game is played, the viewer can go back while it
  runs, and once the game is over the stored replay (with its statistics) replaces the
  frames, at the turn shown.
* A Halite bot that crashed: its failure is shown in the viewer's scoreboard and on the
  game page, to everyone; its "Bot log" link only to those who may read the log (the
  game's owner, the bot's owner, admins), and the link shows the log.
* A Battlesnake snake whose moves failed: the game page says so.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from fastapi.responses import JSONResponse
from playwright.sync_api import Browser, Page, expect

from snakewar.server import ServerConfig, create_app
from snakewar.storage import Store
from tests.asgi_server import serve
from tests.browser.browser_env import shot
from tests.browser.test_game_page import logged_in
from tests.server.accounts import make_user
from tests.server.test_halite_live import GATED_BOT, TIMEOUT_MS, Gated
from tests.waiting import wait_finished

# What the page shows may wait for a poll (1 s) on a busy machine: generous waits.
WAIT_MS = 60_000

CRASHING_BOT = GATED_BOT.format(gates=[]).replace(
    '    print("", flush=True)\n',
    '    if turn == 3:\n        raise RuntimeError("out of ideas on turn 3")\n'
    '    print("", flush=True)\n',
)


class Server:
    """A server on loopback, its store, and the API headers of its accounts."""

    def __init__(self, url: str, store: Store, headers: dict[str, dict[str, str]]) -> None:
        self.url = url
        self.store = store
        self.headers = headers

    def create(self, body: dict[str, Any], who: str | None = None) -> str:
        headers = self.headers[who] if who is not None else {}
        created = httpx.post(f"{self.url}/api/games", json=body, headers=headers, timeout=120)
        assert created.status_code == 201, created.text
        return str(created.json()["id"])

    def finished(self, game_id: str) -> dict[str, Any]:
        return wait_finished(self.url, game_id)


@pytest.fixture(scope="module")
def local(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    db = tmp_path_factory.mktemp("db") / "games.db"
    with Store(f"sqlite:///{db}") as store:
        config = ServerConfig(database_url="memory", max_timeout_ms=TIMEOUT_MS)
        with serve(create_app(config, store=store)) as url:
            yield Server(url, store, {})


@pytest.fixture(scope="module")
def public(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    db = tmp_path_factory.mktemp("db") / "games.db"
    with Store(f"sqlite:///{db}") as store:
        headers = {
            "owner": make_user(store, "owner"),
            "other": make_user(store, "other"),
            "boss": make_user(store, "boss", admin=True),
        }
        # The operator's bot runs unsandboxed here: what is tested is who sees what.
        config = ServerConfig(
            database_url="memory", public=True, signup="closed", sandbox_programs=False
        )
        with serve(create_app(config, store=store)) as url:
            yield Server(url, store, headers)


def test_the_halite_viewer_follows_a_running_game_then_shows_its_replay(
    local: Server, page: Page, tmp_path: Path
) -> None:
    bot = Gated(local.store, tmp_path / "bot", {2, 6})
    game_id = local.create(
        {"game": "halite3", "snakes": [bot.ref, "builtin:greedy"], "width": 32, "height": 32,
         "maxTurns": 10, "timeout": TIMEOUT_MS, "seed": 3},
    )  # fmt: skip
    bot.reached(2)
    page.goto(f"{local.url}/view/{game_id}")
    board = page.frame_locator("[data-testid=halite-frame]")
    # Turn 1 is played and turn 2 waits for the bot: the viewer is at the live edge.
    expect(board.get_by_test_id("turn")).to_have_text("Turn 1", timeout=WAIT_MS)
    expect(board.get_by_test_id("game-status")).to_have_text("Live: the next turn is being played")
    expect(board.get_by_test_id("game-info")).to_contain_text("1 turn so far")
    expect(board.get_by_test_id("halite-player-name")).to_have_text(["@local/gated", "greedy"])
    expect(page.get_by_test_id("game-state")).to_have_text("Running · 1 turn played")
    expect(page.get_by_test_id("halite-download")).to_be_hidden()
    shot(page, "halite-live-turn-1")

    # The game goes on to turn 6's gate: the viewer follows it there by itself.
    bot.release(2)
    bot.reached(6)
    expect(board.get_by_test_id("turn")).to_have_text("Turn 5", timeout=WAIT_MS)
    expect(board.get_by_test_id("scrubber")).to_have_attribute("max", "5")
    expect(page.get_by_test_id("game-state")).to_have_text(
        "Running · 5 turns played", timeout=WAIT_MS
    )
    # Back to turn 2 while it runs: the viewer stays there.
    board.get_by_test_id("scrubber").fill("2")
    expect(board.get_by_test_id("turn")).to_have_text("Turn 2")
    expect(board.get_by_test_id("game-status")).to_have_text("Live")
    shot(page, "halite-live-scrubbed-back")

    # The end: the stored replay replaces the frames, at the turn shown.
    bot.release(6)
    game = local.finished(game_id)
    assert game["status"] == "complete"
    expect(page.get_by_test_id("game-state")).to_have_text(
        re.compile(r"^(Won by .+|Over) · 10 turns$"), timeout=WAIT_MS
    )
    expect(page.get_by_test_id("halite-download")).to_be_visible()
    # A finished replay has a frame after the last turn: 12 frames for 10 turns.
    expect(board.get_by_test_id("scrubber")).to_have_attribute("max", "11", timeout=WAIT_MS)
    expect(board.get_by_test_id("game-info")).to_contain_text("10 turns")
    expect(board.get_by_test_id("turn")).to_have_text("Turn 2")
    expect(board.get_by_test_id("halite-player-score")).to_have_count(2)
    board.get_by_test_id("halite-canvas").click()
    board.locator("body").press("t")
    expect(board.get_by_test_id("turn")).to_have_text("Turn 11")
    expect(board.get_by_test_id("game-status")).to_have_text("Game over")
    expect(board.get_by_test_id("halite-player-score").first).to_contain_text("Final score")
    shot(page, "halite-live-over")


def test_a_cancelled_halite_game_is_still_watched_with_what_stopped_it(
    local: Server, page: Page, tmp_path: Path
) -> None:
    bot = Gated(local.store, tmp_path / "bot", {4}, name="stopper")
    game_id = local.create(
        {"game": "halite3", "snakes": [bot.ref, "builtin:greedy"], "width": 32, "height": 32,
         "maxTurns": 40, "timeout": TIMEOUT_MS, "seed": 8},
    )  # fmt: skip
    bot.reached(4)
    page.goto(f"{local.url}/view/{game_id}")
    board = page.frame_locator("[data-testid=halite-frame]")
    expect(board.get_by_test_id("turn")).to_have_text("Turn 3", timeout=WAIT_MS)
    cancelled = httpx.post(f"{local.url}/api/games/{game_id}/cancel", timeout=60)
    assert cancelled.status_code == 200, cancelled.text
    expect(board.get_by_test_id("game-status")).to_have_text(
        "Game cancelled after turn 3", timeout=WAIT_MS
    )
    expect(page.get_by_test_id("game-state")).to_have_text("Cancelled after 3 turns")
    expect(page.get_by_test_id("halite-download")).to_be_hidden()
    # Opened afresh, the stopped game is drawn from its stored frames.
    page.reload()
    expect(board.get_by_test_id("game-status")).to_have_text(
        "Game cancelled after turn 3", timeout=WAIT_MS
    )
    expect(board.get_by_test_id("scrubber")).to_have_attribute("max", "3")


def test_a_bots_failure_is_shown_to_all_and_its_log_to_those_who_may_read_it(
    public: Server, browser: Browser, tmp_path: Path
) -> None:
    folder = tmp_path / "crashy"
    folder.mkdir()
    (folder / "bot.py").write_text(CRASHING_BOT)
    owner = public.store.accounts.user("owner")
    public.store.snakes.register(
        owner.id, "crashy", "halite3", "program", argv=[sys.executable, "bot.py"],
        workdir=str(folder),
    )  # fmt: skip
    game_id = public.create(
        {"game": "halite3", "snakes": ["@owner/crashy", "builtin:greedy"], "width": 32,
         "height": 32, "maxTurns": 8, "seed": 5},
        "owner",
    )  # fmt: skip
    game = public.finished(game_id)
    failure = game["entrants"][0]["failure"]
    assert failure.startswith("killed on turn 3: ") and "out of ideas on turn 3" in failure

    # The game's owner (here also the bot's) and an admin may read both seats' logs.
    for who, links in (("owner", 2), ("boss", 2), ("other", 0), (None, 0)):
        context = logged_in(browser, public.url, who)
        page = context.new_page()
        page.goto(f"{public.url}/view/{game_id}")
        board = page.frame_locator("[data-testid=halite-frame]")
        expect(board.get_by_test_id("halite-player-failure")).to_have_text(failure)
        shown = page.get_by_test_id("entrant-failure")
        expect(shown).to_have_text(failure)
        expect(page.get_by_test_id("bot-log-link")).to_have_count(links)
        if links:
            log = page.get_by_test_id("entrant").first.get_by_test_id("bot-log")
            expect(log).to_be_hidden()
            page.get_by_test_id("bot-log-link").first.click()
            expect(log).to_contain_text("out of ideas on turn 3")
        shot(page, f"halite-failure-{who or 'visitor'}")
        context.close()


def broken_snake() -> FastAPI:
    """A snake that answers its info and fails every move (HTTP 500)."""
    app = FastAPI()

    @app.get("/")
    def info() -> dict[str, str]:
        return {"apiversion": "1", "author": "tests"}

    @app.post("/start")
    @app.post("/end")
    def ack() -> dict[str, str]:
        return {}

    @app.post("/move")
    def move() -> JSONResponse:
        return JSONResponse({"error": "out of ideas"}, status_code=500)

    return app


def test_the_battlesnake_game_page_shows_a_snakes_failure(local: Server, page: Page) -> None:
    with serve(broken_snake()) as snake:
        game_id = local.create(
            {"snakes": [f"{snake}/", "builtin:random"], "width": 7, "height": 7, "seed": 4,
             "maxTurns": 6, "timeout": 500},
        )  # fmt: skip
        game = local.finished(game_id)
    failure = game["entrants"][0]["failure"]
    assert re.fullmatch(r"\d+ of \d+ moves failed", failure), failure
    page.goto(f"{local.url}/view/{game_id}")
    expect(page.get_by_test_id("entrant")).to_have_count(1)
    expect(page.get_by_test_id("entrant")).to_contain_text(game["entrants"][0]["name"])
    expect(page.get_by_test_id("entrant-failure")).to_have_text(failure)
    # Battlesnake games keep no bot logs: no link to one.
    expect(page.get_by_test_id("bot-log-link")).to_have_count(0)
    shot(page, "battlesnake-failure")
