"""Forks in chromium: the game page's "Play on from here" and the position editor."""

from __future__ import annotations

import json
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
