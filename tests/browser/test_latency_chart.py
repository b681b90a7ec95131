"""The game page's latency chart and the inspector's timeouts, in chromium.

A local game between a snake that never answers in time (the "late" snake of
tests/games/battlesnake/referee/snake_servers.py, 5 s a move) and a good one, under the
unofficial timing rules (a bank, retry on timeout): the chart has one line per snake in
its colour, the timeout line with red marks where the late snake timed out, the turn the
board shows highlighted and each turn told on hover; the badge names the unofficial
rules; the inspector says how long each try had ("timed out after X ms").
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.browser.browser_env import shot
from tests.games.battlesnake.referee.snake_servers import SnakeServers
from tests.waiting import wait_finished


@pytest.fixture(scope="module")
def servers() -> Iterator[SnakeServers]:
    with SnakeServers() as running:
        yield running


def test_the_chart_shows_each_snakes_latency_and_the_timeouts(
    base_url: str, page: Page, servers: SnakeServers
) -> None:
    body = {
        "snakes": [servers.url("late"), servers.url("good")],
        "names": ["late", "good"],
        "seed": 3,
        "timeout": 300,
        "maxTurns": 3,
        "params": {"timeBank": 600, "retryTimeout": True},
    }
    created = httpx.post(f"{base_url}/api/games", json=body, timeout=30)
    assert created.status_code == 201, created.text
    game = created.json()
    wait_finished(base_url, game["id"])
    page.goto(base_url + game["viewer"])

    chart = page.get_by_test_id("latency")
    expect(chart).to_be_visible()
    expect(page.get_by_test_id("timing-badge")).to_have_text(
        "unofficial timing: bank 600 ms, retry on timeout"
    )
    series = page.get_by_test_id("latency-series")
    expect(series).to_have_count(2)
    colors = {series.nth(i).get_attribute("stroke") for i in range(2)}
    assert colors == {"#123456"}  # both test snakes say this colour in GET /
    expect(page.get_by_test_id("timeout-line")).to_have_count(1)
    marks = page.get_by_test_id("timeout-mark")
    expect(marks.first).to_be_visible()
    assert marks.first.get_attribute("fill") == "#d32f2f"
    assert marks.first.get_attribute("data-snake") == series.nth(0).get_attribute("data-snake")

    # Hover the chart's left edge: turn 0, told in words, the late snake's timeout in it.
    svg = page.get_by_test_id("latency-chart")
    box = svg.bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] * 0.08, box["y"] + box["height"] / 2)
    tip = page.get_by_test_id("latency-tip")
    expect(tip).to_contain_text("Turn 0: late timed out after 300 ms (retried) (bank left 0 ms)")
    expect(tip).to_contain_text(re.compile(r"good \d+ ms"))
    page.mouse.move(0, 0)

    # The board's turn moves the highlight: the cursor line follows it.
    cursor = page.get_by_test_id("latency-cursor")
    board = page.frame_locator("[data-testid=board-frame]")
    board.get_by_test_id("scrubber").focus()
    board.get_by_test_id("scrubber").press("Home")
    expect(board.get_by_test_id("turn")).to_have_text("Turn 0")
    start_x = float(cursor.get_attribute("x1") or "nan")
    board.get_by_test_id("scrubber").press("ArrowRight")
    expect(board.get_by_test_id("turn")).to_have_text("Turn 1")
    expect(cursor).not_to_have_attribute("x1", str(start_x).removesuffix(".0"))
    shot(page, "latency-chart")

    # The inspector: both tries of the late snake's call, each with the time it had.
    page.locator("[data-testid=inspector] summary").click()
    board.get_by_test_id("scrubber").press("Home")
    first = (
        page.get_by_test_id("inspect-calls").locator("li", has_text="late").filter(has_text="move")
    )
    expect(first).to_contain_text(
        "try 1: timeout · timed out after 900 ms; try 2: move · timeout · "
        "timed out after 300 ms · bank left 0 ms"
    )


def test_the_new_game_form_sets_the_unofficial_timing_and_says_so(
    base_url: str, page: Page
) -> None:
    page.goto(base_url + "/new")
    expect(page.get_by_test_id("timing-note")).to_contain_text("Not the official rules")
    page.get_by_test_id("snakes").fill("builtin:greedy\nbuiltin:random")
    page.locator("#new-game input[name=timeout]").fill("200")
    # Past 10 timeouts: the server's answer names the field.
    page.get_by_test_id("time-bank").fill("2001")
    page.get_by_test_id("create").click()
    expect(page.get_by_test_id("error")).to_contain_text("timeBank")
    expect(page.get_by_test_id("error")).to_contain_text("at most 2000 ms")
    page.get_by_test_id("time-bank").fill("1500")
    page.get_by_test_id("retry-timeout").check()
    page.get_by_test_id("create").click()
    expect(page).to_have_url(re.compile(r"/view/"))
    expect(page.get_by_test_id("timing-badge")).to_have_text(
        "unofficial timing: bank 1500 ms, retry on timeout"
    )
    expect(page.get_by_test_id("latency-series")).to_have_count(2)


def test_the_chart_follows_a_live_game(base_url: str, page: Page) -> None:
    body = {
        "snakes": ["builtin:random", "builtin:greedy"],
        "seed": 5,
        "width": 7,
        "height": 7,
        "step": True,
    }
    created = httpx.post(f"{base_url}/api/games", json=body, timeout=30)
    assert created.status_code == 201, created.text
    page.goto(base_url + created.json()["viewer"])
    expect(page.get_by_test_id("step-state")).to_have_text("Paused at turn 0")
    series = page.get_by_test_id("latency-series")
    for turn in (1, 2, 3):
        page.get_by_test_id("step").click()
        expect(page.get_by_test_id("step-state")).to_have_text(f"Paused at turn {turn}")
        # One point per call made so far, for each snake; no badge for the official timing.
        expect(series).to_have_count(2)
        expect(series.first).to_have_attribute(
            "points", re.compile(r"^\S+" + r" \S+" * (turn - 1) + "$")
        )
    expect(page.get_by_test_id("timing-badge")).to_be_hidden()
    httpx.post(f"{base_url}/api/games/{created.json()['id']}/cancel", timeout=30)
