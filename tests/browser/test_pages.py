"""The web app in a real browser: Debian's chromium driven by Playwright.

The server runs on loopback with a SQLite database; screenshots of each step go
to ``$SNAKEWAR_ARTIFACTS`` (default ``test-artifacts/``) for people to look at.
CI (``.ci/run``) installs chromium and sets ``CI=1``, so
there a missing browser fails instead of skipping.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from playwright.sync_api import Browser, FloatRect, Page, Route, expect

from snakewar.server import ServerConfig, create_app
from tests.asgi_server import serve
from tests.browser.browser_env import shot
from tests.waiting import wait_finished


def test_create_a_game_in_the_form_and_watch_it_to_the_end(base_url: str, page: Page) -> None:
    page.goto(base_url + "/")
    page.get_by_test_id("start-game").click()
    expect(page).to_have_url(re.compile(r"/new$"))
    page.get_by_test_id("snakes").fill("builtin:random\nbuiltin:greedy")
    expect(page.get_by_test_id("map")).to_have_value("standard")
    page.locator("input[name=width]").fill("7")
    page.locator("input[name=height]").fill("7")
    page.get_by_test_id("seed").fill("5")  # the Battlesnake form's (Halite's has one too)
    shot(page, "new-game-form")
    page.get_by_test_id("create").click()
    expect(page).to_have_url(re.compile(r"/view/[0-9a-f-]+$"))
    board = page.frame_locator("[data-testid=board-frame]")
    expect(board.get_by_test_id("game-status")).to_contain_text("Game over", timeout=30_000)
    expect(board.get_by_test_id("snake-row")).to_have_count(2)
    expect(board.get_by_test_id("snake-name").first).to_have_text(re.compile("random|greedy"))
    shot(page, "game-over")
    # The finished game is on the home page.
    page.goto(base_url + "/")
    expect(page.get_by_test_id("recent-games").locator("tbody tr").first).to_contain_text(
        "random, greedy"
    )
    shot(page, "home")


def test_step_with_the_keyboard_and_permalink(base_url: str, page: Page) -> None:
    import httpx

    # Greedy is deterministic whatever the (random) server game id, so the game is too.
    game = httpx.post(
        base_url + "/api/games",
        json={"snakes": ["greedy", "greedy"], "seed": 9},
        timeout=60,
    ).json()
    last = wait_finished(base_url, game["id"])["turn"]
    assert last > 4
    page.goto(
        f"{base_url}/static/battlesnake/board.html?engine={base_url}&game={game['id']}&turn=3"
    )
    turn = page.get_by_test_id("turn")
    expect(turn).to_have_text("Turn 3")
    page.locator("body").press("ArrowRight")
    expect(turn).to_have_text("Turn 4")
    page.locator("body").press("ArrowLeft")
    page.locator("body").press("ArrowLeft")
    expect(turn).to_have_text("Turn 2")
    page.locator("body").press("t")
    expect(turn).to_have_text(f"Turn {last}")
    page.locator("body").press("r")
    expect(turn).to_have_text("Turn 0")
    expect(page).to_have_url(re.compile(r"turn=0"))
    shot(page, "keyboard-stepping")


def test_open_a_replay_file_and_check_the_scoreboard(
    base_url: str, page: Page, tmp_path: Path
) -> None:
    replay = tmp_path / "game.jsonl"
    subprocess.run(
        [sys.executable, "-m", "snakewar", "play", "random", "greedy", "-r", "4", "-n", "alpha",
         "-n", "beta", "--no-live", "--replay", str(replay)],
        check=True,
        capture_output=True,
    )  # fmt: skip
    page.goto(base_url + "/replay")
    board = page.frame_locator("[data-testid=page-frame]")
    board.get_by_test_id("replay-file").set_input_files(str(replay))
    names = board.get_by_test_id("snake-name")
    expect(names).to_have_count(2)
    expect(board.get_by_test_id("scoreboard")).to_contain_text("alpha")
    expect(board.get_by_test_id("scoreboard")).to_contain_text("beta")
    board.locator("body").press("t")
    expect(board.get_by_test_id("game-status")).to_contain_text("Game over")
    expect(board.get_by_test_id("snake-status").first).to_be_visible()
    shot(page, "replay-file")


def test_tester_page_shows_each_check(base_url: str, page: Page) -> None:
    page.goto(base_url + "/test")
    page.get_by_test_id("tester-url").fill("builtin:hunter?depth=1")
    page.get_by_test_id("run-tests").click()
    expect(page.get_by_test_id("tester-summary")).to_contain_text("PASS", timeout=60_000)
    rows = page.get_by_test_id("tester-results").locator("tr")
    expect(rows).to_have_count(4 + 26)  # standard rules: no hazards or wrapped boards
    shot(page, "tester")


def test_an_aborted_game_stays_viewable(browser: Browser, tmp_path: Path) -> None:
    import asyncio

    from snakewar.engine.protocol import GameData
    from snakewar.games.battlesnake.adapter import frames_of, listing
    from snakewar.games.battlesnake.referee.batch import SnakeMatch, play_match
    from snakewar.games.battlesnake.replay.format import header_dict
    from snakewar.storage import Store

    db = f"sqlite:///{tmp_path / 'games.db'}"
    from concurrent.futures import ThreadPoolExecutor

    # Playwright's sync API owns this thread's event loop: play the game on another thread.
    with ThreadPoolExecutor(1) as pool:
        record = pool.submit(
            lambda: asyncio.run(play_match(SnakeMatch(snakes=("random", "random")), 12))
        ).result()
    # Store the first 5 turns as a server would have before dying mid-game.
    with Store(db) as store:
        data = GameData(header_dict(record), frames_of(record)[:6])
        store.games.begin(listing(record), data)
    with serve(create_app(ServerConfig(database_url=db))) as base:
        context = browser.new_context()
        page = context.new_page()
        page.goto(f"{base}/view/{record.id}")
        board = page.frame_locator("[data-testid=board-frame]")
        expect(board.get_by_test_id("snake-row")).to_have_count(2)
        board.locator("body").press("t")
        expect(board.get_by_test_id("turn")).to_have_text("Turn 5")
        shot(page, "aborted-game")
        context.close()


def test_ladder_page_shows_standings_and_rating_chart(base_url: str, page: Page) -> None:
    import httpx

    created = httpx.post(
        f"{base_url}/api/ladders", json={"name": "web", "width": 7, "height": 7}, timeout=60
    )
    assert created.status_code == 201, created.text
    for snake in ("random", "greedy"):
        httpx.post(f"{base_url}/api/ladders/web/snakes", json={"snake": snake}, timeout=60)
    page.goto(f"{base_url}/ladders/web")
    page.get_by_test_id("ladder-run").click()  # plays 10 games in the background
    expect(page.get_by_test_id("ladder-summary")).to_have_text("10 games", timeout=30_000)
    expect(page.get_by_test_id("standings").locator("tr")).to_have_count(2)
    expect(page.get_by_test_id("standings").locator("tr").first).to_contain_text("greedy")
    expect(page.get_by_test_id("rating-chart").locator("polyline")).to_have_count(2)
    expect(page.get_by_test_id("ladder-games").locator("tr")).to_have_count(10)
    shot(page, "ladder")
    # The list of ladders links to it.
    page.goto(f"{base_url}/ladders")
    row = page.get_by_test_id("ladders").locator("tr", has_text="web")
    expect(row).to_contain_text("2 snakes")
    expect(row).to_contain_text("10 games")
    shot(page, "ladders")
    row.get_by_role("link", name="web").click()
    expect(page).to_have_url(re.compile(r"/ladders/web$"))


def test_an_admin_makes_a_ladder_play_on_by_itself_then_pauses_and_resumes_it(
    base_url: str, page: Page
) -> None:
    import httpx

    created = httpx.post(
        f"{base_url}/api/ladders", json={"name": "onward", "width": 7, "height": 7}, timeout=60
    )
    assert created.status_code == 201, created.text
    for snake in ("random", "greedy"):
        httpx.post(f"{base_url}/api/ladders/onward/snakes", json={"snake": snake}, timeout=60)
    page.goto(f"{base_url}/ladders/onward")
    expect(page.get_by_test_id("ladder-schedule")).to_have_text("")
    expect(page.get_by_test_id("ladder-pause")).to_be_hidden()
    edit = page.get_by_test_id("ladder-edit-form")
    expect(edit.get_by_test_id("edit-in-flight")).to_have_value("1")
    edit.get_by_test_id("edit-continuous").check()
    edit.get_by_test_id("edit-per-hour").fill("3600")
    edit.get_by_test_id("edit-daily-cap").fill("")
    edit.get_by_test_id("save-ladder").click()
    expect(edit.get_by_test_id("edit-done")).to_contain_text("Saved")
    schedule = httpx.get(f"{base_url}/api/ladders/onward", timeout=60).json()["schedule"]
    assert schedule["continuous"] is True and schedule["games_per_hour"] == 3600
    assert schedule["daily_cap"] is None and schedule["games_in_flight"] == 1
    # It plays on by itself: games come without anyone asking.
    expect(page.get_by_test_id("ladder-schedule")).to_contain_text("Plays on by itself")
    expect(page.get_by_test_id("ladder-run")).to_be_disabled()
    expect(page.get_by_test_id("ladder-games").locator("tr")).not_to_have_count(0)
    page.get_by_test_id("ladder-pause").click()
    expect(page.get_by_test_id("ladder-schedule")).to_contain_text("Paused by an admin")
    expect(page.get_by_test_id("ladder-schedule-status")).to_have_text("paused by an admin")
    expect(page.get_by_test_id("ladder-pause")).to_be_hidden()
    shot(page, "ladder-paused")
    page.get_by_test_id("ladder-resume").click()
    expect(page.get_by_test_id("ladder-schedule")).to_contain_text("Plays on by itself")
    expect(page.get_by_test_id("ladder-pause")).to_be_visible()
    played = httpx.get(f"{base_url}/api/ladders/onward", timeout=60).json()["games_played"]
    # Games go on: the page's count moves past what was played at the resume.
    expect(page.get_by_test_id("ladder-summary")).to_contain_text("games - playing now")
    expect(page.get_by_test_id("ladder-summary")).not_to_have_text(
        re.compile(rf"^{played} games\b"), timeout=120_000
    )
    page.get_by_test_id("ladder-pause").click()  # the module's other tests run on this server
    expect(page.get_by_test_id("ladder-resume")).to_be_visible()


def test_bracket_page_updates_to_the_champion(base_url: str, page: Page) -> None:
    import httpx

    created = httpx.post(
        f"{base_url}/api/tournaments",
        json={"name": "cup", "snakes": ["greedy", "random", "random", "hunter?depth=1"],
              "width": 7, "height": 7},
        timeout=60,
    ).json()  # fmt: skip
    page.goto(f"{base_url}{created['page']}")
    expect(page.get_by_test_id("tournament-status")).to_contain_text("Champion", timeout=60_000)
    expect(page.get_by_test_id("match")).to_have_count(3)
    expect(page.get_by_test_id("tournament-standings").locator("tr")).to_have_count(4)
    shot(page, "bracket")


BIG_SEED = "2618439174457646105"  # a JavaScript number makes it 2618439174457646000


def test_a_64_bit_seed_from_the_form_is_kept_exactly(base_url: str, page: Page) -> None:
    import httpx

    page.goto(base_url + "/new")
    page.get_by_test_id("snakes").fill("builtin:greedy\nbuiltin:greedy")
    page.locator("input[name=width]").fill("7")
    page.locator("input[name=height]").fill("7")
    page.get_by_test_id("seed").fill(BIG_SEED)
    page.get_by_test_id("create").click()
    expect(page).to_have_url(re.compile(r"/view/[0-9a-f-]+$"))
    game_id = page.url.rsplit("/", 1)[1]
    assert httpx.get(f"{base_url}/api/games/{game_id}", timeout=60).json()["seed"] == BIG_SEED
    board = page.frame_locator("[data-testid=board-frame]")
    expect(board.get_by_test_id("game-info")).to_have_text(
        f"standard · standard · 7×7 · seed {BIG_SEED}"
    )
    shot(page, "big-seed")


def test_a_ruleset_chosen_before_the_map_list_arrives_keeps_its_map(
    base_url: str, page: Page
) -> None:
    # On a slow connection the ruleset can change before /api/maps answers: the classic
    # map must still be the one selected once the list arrives (it once fell back to
    # the standard map).
    held: list[Route] = []

    def hold(route: Route) -> None:
        held.append(route)

    page.route("**/api/maps", hold)
    page.goto(base_url + "/new")
    deadline = time.monotonic() + 60  # polled: a busy machine loads the page slowly
    while not held and time.monotonic() < deadline:
        page.wait_for_timeout(10)
    assert held, "the page never asked for /api/maps"
    page.get_by_test_id("ruleset").select_option("classic")
    held[0].continue_()
    expect(page.get_by_test_id("map")).to_have_value("classic")
    expect(page.locator("input[name=width]")).to_have_value("20")
    page.unroute("**/api/maps")


def test_a_classic_game_from_the_form_plays_on_its_own_board(base_url: str, page: Page) -> None:
    import httpx

    page.goto(base_url + "/new")
    page.get_by_test_id("snakes").fill("builtin:greedy\nbuiltin:random")
    expect(page.locator("input[name=maxFood]")).to_be_hidden()
    page.get_by_test_id("ruleset").select_option("classic")
    expect(page.get_by_test_id("map")).to_have_value("classic")
    expect(page.locator("input[name=width]")).to_have_value("20")
    expect(page.locator("input[name=foodSpawnChance]")).to_be_hidden()
    page.locator("input[name=maxFood]").fill("3")
    page.get_by_test_id("seed").fill("9")
    shot(page, "classic-form")
    page.get_by_test_id("create").click()
    expect(page).to_have_url(re.compile(r"/view/[0-9a-f-]+$"))
    game_id = page.url.rsplit("/", 1)[1]
    board = page.frame_locator("[data-testid=board-frame]")
    expect(board.get_by_test_id("game-info")).to_have_text("classic · classic · 20×20 · seed 9")
    expect(board.get_by_test_id("game-status")).to_contain_text("Game over", timeout=60_000)
    frames = httpx.get(
        f"{base_url}/games/{game_id}/frames", params={"limit": 1000}, timeout=60
    ).json()
    assert {len(f["Food"]) for f in frames["Frames"]} == {3}
    shot(page, "classic-game-over")
    # Back to an official ruleset: its map, size and settings come back.
    page.goto(base_url + "/new")
    page.get_by_test_id("ruleset").select_option("classic")
    page.get_by_test_id("ruleset").select_option("royale")
    expect(page.get_by_test_id("map")).to_have_value("standard")
    expect(page.locator("input[name=width]")).to_have_value("11")
    expect(page.locator("input[name=foodSpawnChance]")).to_be_visible()


def test_a_bad_seed_is_named_in_the_form(base_url: str, page: Page) -> None:
    page.goto(base_url + "/new")
    page.get_by_test_id("seed").fill("99999999999999999999")
    page.get_by_test_id("create").click()
    expect(page.get_by_test_id("error")).to_contain_text("seed: Input should be less than")
    expect(page).to_have_url(re.compile(r"/new$"))


def _finished_game(base_url: str) -> str:
    import httpx

    game = httpx.post(
        base_url + "/api/games",
        json={"snakes": ["greedy", "greedy"], "seed": 3},
        timeout=60,
    ).json()
    wait_finished(base_url, game["id"])
    return str(game["id"])


def _inside(box: FloatRect | None, width: int, height: int) -> bool:
    assert box is not None
    return (
        box["x"] >= 0
        and box["y"] >= 0
        and box["x"] + box["width"] <= width
        and box["y"] + box["height"] <= height
    )


@pytest.mark.parametrize(
    ("width", "height"), [(1366, 768), (1280, 900), (390, 844)], ids=["laptop", "desktop", "phone"]
)
def test_the_whole_viewer_fits_the_window(
    base_url: str, browser: Browser, width: int, height: int
) -> None:
    game_id = _finished_game(base_url)
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.goto(f"{base_url}/view/{game_id}")
    board = page.frame_locator("[data-testid=board-frame]")
    expect(board.get_by_test_id("snake-row")).to_have_count(2)
    for test_id in ("board", "scrubber", "btn-play", "btn-first", "btn-last"):
        box = board.get_by_test_id(test_id).bounding_box()
        assert _inside(box, width, height), (test_id, box)
    # The page itself does not scroll: everything is in the window.
    assert page.evaluate("document.documentElement.scrollHeight") <= height
    shot(page, f"game-{width}x{height}")
    context.close()
