"""Forks in chromium: the game page's "Play on from here" and the position editor."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import Page, expect

from tests.browser.browser_env import shot
from tests.waiting import wait_finished

BOTS = ["builtin:hunter?depth=2", "builtin:greedy", "builtin:random", "builtin:random"]


def replay(base_url: str, game_id: str) -> list[dict[str, Any]]:
    text = httpx.get(f"{base_url}/api/games/{game_id}/replay", timeout=60).text
    return [json.loads(line) for line in text.splitlines()]


def test_play_on_from_the_turn_the_board_shows(base_url: str, page: Page) -> None:
    body = {"snakes": BOTS, "seed": 5, "timeout": 2000}
    created = httpx.post(f"{base_url}/api/games", json=body, timeout=60)
    assert created.status_code == 201, created.text
    original = wait_finished(base_url, created.json()["id"])
    page.goto(f"{base_url}/view/{original['id']}")
    button = page.get_by_test_id("fork")
    expect(button).to_be_enabled()
    # The board plays the game on its own: its last turn stops it (whenever it started),
    # then its keys show turn 7.
    board = page.frame_locator("[data-testid=board-frame]")
    page.keyboard.press("t")
    expect(button).to_have_text(f"Play on from turn {original['turn']}")
    expect(board.locator("[aria-label^='Play']").first).to_be_visible()
    page.keyboard.press("r")
    expect(button).to_have_text("Play on from turn 0")
    expect(board.locator("[aria-label^='Play']").first).to_be_visible()
    turn = 7
    for _ in range(turn):
        page.keyboard.press("ArrowRight")
    # The button names the turn the board shows, and forks that one.
    expect(button).to_have_text(f"Play on from turn {turn}")
    expect(page.get_by_test_id("toolbar-turn")).to_have_text(f"Turn {turn}")
    shot(page, "game-fork-button")
    button.click()
    page.wait_for_url(lambda url: original["id"] not in url and "/view/" in url)
    fork_id = page.url.rsplit("/", 1)[-1].split("?")[0]
    forked = wait_finished(base_url, fork_id)
    assert forked["status"] == "complete"
    before, after = replay(base_url, original["id"]), replay(base_url, fork_id)
    assert after[0]["forked_from"] == {"game": original["id"], "turn": turn}
    states = {line["turn"]: line["state"] for line in before if "turn" in line}
    assert after[0]["initial"] == states[turn - 1]
    # The same snakes from the same board and seed: the game goes on as it went.
    for line in after[1:-1]:
        assert line["state"] == states[line["turn"]], line["turn"]
    # Its page shows it from its first board: the turn it was forked at.
    expect(page.get_by_test_id("toolbar-turn")).to_contain_text("Turn")
    assert page.get_by_test_id("fork").count() == 1


def test_the_editor_draws_checks_saves_and_plays_a_position(base_url: str, page: Page) -> None:
    page.goto(f"{base_url}/editor")
    status = page.get_by_test_id("editor-status")
    # Snake 1, head first: three cells down column 3.
    for x, y in ((3, 3), (3, 2), (3, 1)):
        page.get_by_test_id(f"cell-{x}-{y}").click()
    page.get_by_test_id("editor-add-snake").click()
    for x, y in ((7, 7), (7, 8)):
        page.get_by_test_id(f"cell-{x}-{y}").click()
    page.get_by_test_id("editor-health").fill("42")
    page.get_by_test_id("editor-health").dispatch_event("change")
    page.get_by_test_id("tool-food").check()
    page.get_by_test_id("cell-5-5").click()
    expect(status).to_have_text("A valid position: 2 snakes.")
    expect(page.get_by_test_id("editor-board").locator("svg")).to_be_visible()
    expect(page.get_by_test_id("editor-board").locator(".food")).to_have_count(1)
    shot(page, "position-editor")
    # Saved: the position the server checked, for snakewar play --from-position.
    with page.expect_download() as download:
        page.get_by_test_id("editor-save").click()
    saved = json.loads(Path(download.value.path()).read_text(encoding="utf-8"))
    assert saved["format"] == "snakewar-position"
    assert [s["body"] for s in saved["state"]["snakes"]] == [
        [[3, 3], [3, 2], [3, 1]],
        [[7, 7], [7, 8]],
    ]
    assert [s["health"] for s in saved["state"]["snakes"]] == [100, 42]
    assert saved["state"]["food"] == [[5, 5]]
    # Played: a game from this board.
    page.get_by_test_id("editor-snakes").fill("builtin:random\nbuiltin:greedy")
    page.get_by_test_id("editor-play").click()
    page.wait_for_url(lambda url: "/view/" in url)
    game_id = page.url.rsplit("/", 1)[-1].split("?")[0]
    wait_finished(base_url, game_id)
    header = replay(base_url, game_id)[0]
    assert [s["source"] for s in header["snakes"]] == ["builtin:random", "builtin:greedy"]
    initial = header["initial"]
    assert [s["body"] for s in initial["snakes"]] == [[[3, 3], [3, 2], [3, 1]], [[7, 7], [7, 8]]]
    assert [s["health"] for s in initial["snakes"]] == [100, 42]
    assert [5, 5] in initial["food"]
    assert header["forked_from"] == {}


def test_the_editor_names_the_field_of_a_bad_pasted_position(base_url: str, page: Page) -> None:
    page.goto(f"{base_url}/editor")
    bad = {
        "width": 5,
        "height": 5,
        "snakes": [{"id": "a", "health": 90, "body": [{"x": 9, "y": 1}]}],
    }
    page.get_by_test_id("editor-paste").fill(json.dumps(bad))
    page.get_by_test_id("editor-load").click()
    expect(page.get_by_test_id("editor-error")).to_contain_text("snakes[0].body[0].x")
    expect(page.get_by_test_id("editor-error")).to_contain_text("9 is out of range (expected 0..4)")
    good = {**bad, "snakes": [{"id": "a", "health": 90, "body": [{"x": 1, "y": 1}]}]}
    page.get_by_test_id("editor-paste").fill(json.dumps({"turn": 3, "board": good}))
    page.get_by_test_id("editor-load").click()
    expect(page.get_by_test_id("editor-status")).to_have_text("A valid position: 1 snakes.")
    expect(page.get_by_test_id("editor-error")).to_have_text("")
    expect(page.get_by_test_id("editor-turn")).to_have_value("3")
    expect(page.get_by_test_id("cell-1-1")).to_have_class("snake")


def test_a_slow_check_does_not_overwrite_what_a_paste_says(base_url: str, page: Page) -> None:
    # A check of the drawn board still under way when a paste is loaded: its answer,
    # coming last, must not replace the paste's verdict on the page.
    from playwright.sync_api import Route

    page.goto(f"{base_url}/editor")
    error = page.get_by_test_id("editor-error")
    expect(error).to_contain_text("expected at least one point")  # the empty board's check
    held: list[Route] = []

    def hold_checks(route: Route) -> None:
        if '"state"' in (route.request.post_data or ""):  # a check of the drawn board
            held.append(route)
        else:
            route.continue_()

    page.route("**/api/battlesnake/position", hold_checks)
    # A check of the drawn board goes out (the width edited), and is held.
    page.get_by_test_id("editor-width").fill("9")
    page.get_by_test_id("editor-width").dispatch_event("change")
    bad = {"width": 5, "height": 5, "snakes": [{"id": "a", "body": [{"x": 9, "y": 1}]}]}
    page.get_by_test_id("editor-paste").fill(json.dumps(bad))
    page.get_by_test_id("editor-load").click()
    expect(error).to_contain_text("snakes[0].body[0].x")
    assert held, "the board's check was not held"
    for route in held:
        with page.expect_response("**/api/battlesnake/position"):
            route.continue_()
    page.wait_for_load_state("networkidle")
    page.wait_for_timeout(300)  # the late answer's handler has run by now, even on a busy machine
    assert "snakes[0].body[0].x" in error.inner_text()
