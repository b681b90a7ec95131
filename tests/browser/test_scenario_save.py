"""The game page's "Save as test scenario", and its route ``GET /api/games/{id}/scenario``.

A real game is played by the server (two greedy bots); the page, in chromium, saves the
turn the board shows as a scenario file, which the tester's loader then proves against
the rules engine.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import httpx

from snakewar.games.battlesnake.tester.files import load_scenarios
from tests.browser.test_game_page import finished_game

if TYPE_CHECKING:
    from pathlib import Path

    from playwright.sync_api import Page


def _names(base_url: str, game: str) -> list[str]:
    data = httpx.get(f"{base_url}/api/games/{game}", timeout=60).json()
    return [e["name"] for e in data["entrants"]]


def _savable_turn(base_url: str, game: str, last: int, snake: str) -> tuple[int, Any]:
    """The first turn after 0 that tests something for ``snake``, and its file."""
    url = f"{base_url}/api/games/{game}/scenario"
    for turn in range(1, last + 1):
        answer = httpx.get(url, params={"turn": turn, "snake": snake}, timeout=60)
        if answer.status_code == 200:
            return turn, answer
        # Every other turn is refused for a reason, naming the field.
        assert answer.status_code == 422, answer.text
        assert answer.json()["detail"][0]["loc"][-1] in ("turn", "snake"), answer.text
    raise AssertionError("no turn of the game tests anything")


def test_the_route_saves_a_turn_and_refuses_bad_input(base_url: str) -> None:
    game, last = finished_game(base_url)
    snake = _names(base_url, game)[0]
    turn, answer = _savable_turn(base_url, game, last, snake)
    assert answer.headers["content-type"] == "application/json"
    assert f'filename="{game}-turn-{turn}.json"' in answer.headers["content-disposition"]
    (scenario,) = load_scenarios(answer.content, "download")
    entry = answer.json()["scenarios"][0]
    assert entry["request"]["turn"] == turn and entry["request"]["you"]["name"] == snake
    assert scenario.acceptable == frozenset(entry["acceptable"])
    url = f"{base_url}/api/games/{game}/scenario"
    # Turn 0: both snakes on their start squares, every move is right: nothing to test.
    answer = httpx.get(url, params={"turn": 0, "snake": snake}, timeout=60)
    assert answer.status_code == 422
    detail = answer.json()["detail"][0]
    assert detail["loc"][-1] == "turn" and "tests nothing" in detail["msg"]
    kept = httpx.get(url, params={"turn": 0, "snake": snake, "keep": "true"}, timeout=60)
    assert kept.status_code == 200 and kept.json()["scenarios"][0]["kind"] == "survival"
    bad: list[tuple[dict[str, str | int], str]] = [
        ({"turn": last + 5, "snake": snake}, "turn"),
        ({"turn": 1, "snake": "nobody"}, "snake"),
        ({"turn": 1, "snake": "bad\x01name"}, "snake"),
        ({"turn": -1, "snake": snake}, "turn"),
        ({"snake": snake}, "turn"),
    ]
    for params, field in bad:
        answer = httpx.get(url, params=params, timeout=60)
        assert answer.status_code == 422, (params, answer.text)
        assert answer.json()["detail"][0]["loc"][-1] == field, answer.text
    answer = httpx.get(f"{base_url}/api/games/nosuchgame/scenario?turn=1&snake=x", timeout=60)
    assert answer.status_code == 404


def test_the_game_page_saves_the_turn_it_shows(base_url: str, page: Page, tmp_path: Path) -> None:
    from playwright.sync_api import expect

    game, last = finished_game(base_url)
    names = _names(base_url, game)
    snake = names[-1]
    turn, _ = _savable_turn(base_url, game, last, snake)
    page.goto(f"{base_url}/view/{game}")
    box = page.get_by_test_id("scenario-save")
    expect(box).to_be_visible()
    # Back to turn 0, paused, then step to the turn (the board's keys, from the page).
    page.keyboard.press("r")
    toolbar = page.get_by_test_id("toolbar-turn")
    expect(toolbar).to_have_text("Turn 0")
    page.get_by_test_id("scenario-snake").select_option(snake)
    # Turn 0 tests nothing: the server's line is shown, no file.
    page.get_by_test_id("scenario-button").click()
    expect(page.get_by_test_id("scenario-state")).to_contain_text("tests nothing")
    for step in range(1, turn + 1):
        page.keyboard.press("ArrowRight")
        expect(toolbar).to_have_text(f"Turn {step}")
    with page.expect_download() as info:
        page.get_by_test_id("scenario-button").click()
    download = info.value
    assert download.suggested_filename == f"{game}-turn-{turn}.json"
    target = tmp_path / download.suggested_filename
    download.save_as(target)
    expect(page.get_by_test_id("scenario-state")).to_have_text(f"turn {turn} saved")
    document = json.loads(target.read_text())
    entry = document["scenarios"][0]
    assert entry["request"]["turn"] == turn and entry["request"]["you"]["name"] == snake
    assert [s.id for s in load_scenarios(target.read_bytes(), target.name)] == [entry["name"]]
