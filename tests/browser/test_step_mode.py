"""Step mode and the request inspector in a real browser, on a live local game.

The game is between a real HTTP snake (tests/games/battlesnake/referee/snake_servers.py, which keeps
every body it receives) and a built-in bot, created in step mode: the page steps it
turn by turn, scrubs back while it is paused, and opens and copies the request the
snake was sent, which must be exactly what the snake received.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.browser_env import shot
from tests.games.battlesnake.referee.snake_servers import SnakeServers


@pytest.fixture(scope="module")
def servers() -> Iterator[SnakeServers]:
    with SnakeServers() as running:
        yield running


@pytest.fixture
def clip_page(browser: Browser, base_url: str) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base_url)
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda exc: errors.append(str(exc)))
    yield opened
    context.close()
    assert not errors, f"JavaScript errors: {errors}"


def test_step_a_live_game_scrub_back_and_inspect_a_request(
    base_url: str, clip_page: Page, servers: SnakeServers
) -> None:
    page = clip_page
    servers.received.clear()
    body = {
        "snakes": [servers.url("good"), "builtin:random"],
        "names": ["good", "bot"],
        "seed": 3,
        "width": 7,
        "height": 7,
        # The server's longest: on a loaded machine a late reply would play the snake's
        # last move again, and this seed's game could end before the steps below.
        "timeout": 2000,
        "step": True,
    }
    created = httpx.post(f"{base_url}/api/games", json=body, timeout=30)
    assert created.status_code == 201, created.text
    game = created.json()
    page.goto(base_url + game["viewer"])
    board = page.frame_locator("[data-testid=board-frame]")
    state = page.get_by_test_id("step-state")
    turn = board.get_by_test_id("turn")
    expect(state).to_have_text("Paused at turn 0")
    expect(turn).to_have_text("Turn 0")
    pause = page.get_by_test_id("pause")
    expect(pause).to_be_disabled()
    # A button that cannot be used looks it: faded, with no pointing hand.
    step = page.get_by_test_id("step")
    assert pause.evaluate("b => getComputedStyle(b).opacity") == "0.4"
    assert pause.evaluate("b => getComputedStyle(b).cursor") == "not-allowed"
    assert step.evaluate("b => getComputedStyle(b).opacity") == "1"
    assert step.evaluate("b => getComputedStyle(b).cursor") == "pointer"
    for expected in (1, 2, 3):
        page.get_by_test_id("step").click()
        expect(state).to_have_text(f"Paused at turn {expected}")
        expect(turn).to_have_text(f"Turn {expected}")
    shot(page, "step-mode-turn-3")
    # Scrub back while the game is paused: the board shows turn 1, the game stays at 3.
    scrubber = board.get_by_test_id("scrubber")
    scrubber.press("ArrowLeft")
    expect(turn).to_have_text("Turn 2")
    scrubber.press("ArrowLeft")
    expect(turn).to_have_text("Turn 1")
    expect(state).to_have_text("Paused at turn 3")
    # The inspector follows the turn shown: each snake's call on turn 1.
    page.locator("[data-testid=inspector] summary").click()
    expect(page.get_by_test_id("inspect-turn")).to_have_text("1")
    calls = page.get_by_test_id("inspect-calls").locator("li")
    expect(calls).to_have_count(2)
    expect(calls.nth(0)).to_contain_text("good")
    expect(calls.nth(0)).to_contain_text("move · ok · HTTP 200")
    page.get_by_test_id("open-request-0").click()
    shown = page.get_by_test_id("inspect-body")
    expect(shown).to_contain_text('"turn": 1,')
    sent = servers.bodies("good", "move")
    assert len(sent) == 3
    assert json.loads(shown.inner_text()) == sent[1]  # exactly what the snake received
    expect(page.get_by_test_id("inspect-body-title")).to_have_text(
        "Request of good, move on turn 1"
    )
    page.get_by_test_id("copy-body").click()
    expect(page.get_by_test_id("copy-state")).to_have_text("Copied")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert json.loads(copied) == sent[1] and '"turn":1,' in copied
    page.get_by_test_id("open-reply-0").click()
    expect(shown).to_contain_text('"shout": "good says 1"')
    shot(page, "step-mode-inspector")
    # Turn 3 has not been asked yet: on it, the inspector shows the calls just made, turn
    # 2's, which led to it.
    scrubber.press("End")
    expect(turn).to_have_text("Turn 3")
    expect(page.get_by_test_id("inspect-turn")).to_have_text("2")
    expect(page.get_by_test_id("inspect-note")).to_contain_text(
        "Calls on turn 2, just made: they led to turn 3"
    )
    expect(calls).to_have_count(2)
    # Step: the board moves to turn 4 and the inspector to the call just made, turn 3's.
    page.get_by_test_id("step").click()
    expect(state).to_have_text("Paused at turn 4")
    expect(turn).to_have_text("Turn 4")
    expect(page.get_by_test_id("inspect-turn")).to_have_text("3")
    expect(calls).to_have_count(2)
    page.get_by_test_id("open-request-0").click()
    expect(page.get_by_test_id("inspect-body-title")).to_have_text(
        "Request of good, move on turn 3"
    )
    sent = servers.bodies("good", "move")
    assert len(sent) == 4
    assert json.loads(shown.inner_text()) == sent[3]
    # Scrubbed back one, turn 3's own calls are the same ones.
    scrubber.press("ArrowLeft")
    expect(turn).to_have_text("Turn 3")
    expect(page.get_by_test_id("inspect-turn")).to_have_text("3")
    expect(calls).to_have_count(2)
    # Resume lets it play to the end.
    page.get_by_test_id("resume").click()
    expect(state).to_have_text(re.compile(r"Game complete at turn \d+"), timeout=30_000)
    expect(page.get_by_test_id("step")).to_be_disabled()
    scrubber.press("End")
    expect(board.get_by_test_id("game-status")).to_contain_text("Game over")
