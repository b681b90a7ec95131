"""The web tester in a real browser: progress while it runs, failing positions as boards.

A slow single-threaded snake on loopback
(:func:`tests.games.battlesnake.tester.real_snakes.careless_app`,
always up) is tested from the page: the progress line counts scenarios as they
complete, and its failing positions are drawn as boards once the run ends.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from tests.asgi_server import serve
from tests.browser.browser_env import shot
from tests.games.battlesnake.tester.real_snakes import careless_app


@pytest.fixture(scope="module")
def careless_url() -> Iterator[str]:
    with serve(careless_app()) as url:
        yield url


def test_the_tester_shows_progress_then_failing_boards(
    base_url: str, careless_url: str, page: Page
) -> None:
    page.goto(base_url + "/test")
    page.get_by_test_id("tester-url").fill(careless_url)
    page.get_by_test_id("run-tests").click()
    progress = page.get_by_test_id("tester-progress")
    # Scenarios are counted as they complete, before the run ends (~4 s of 15 ms moves).
    expect(progress).to_contain_text(
        re.compile(r"health checks 4/4, scenarios ([1-9]|1[0-9])/26"), timeout=30_000
    )
    expect(page.get_by_test_id("tester-progress-bar")).to_be_visible()
    shot(page, "tester-progress")
    rows = page.get_by_test_id("tester-results").locator("tr")
    expect(page.get_by_test_id("tester-summary")).to_contain_text("FAIL", timeout=60_000)
    expect(progress).to_have_text("")
    expect(rows).to_have_count(4 + 26)
    summary = page.get_by_test_id("tester-summary")
    expect(summary).to_contain_text("survival ")
    expect(summary).to_contain_text("strategy ")
    failures = page.get_by_test_id("failure")
    first = failures.first
    # The corner's quarter turn: "up" is the wall there, the way out is left.
    expect(first).to_contain_text("survival walls-corner [rot90]")
    expect(first).to_contain_text("gave 'up', expected left (standard rules)")
    board = page.get_by_test_id("failure-board").first
    expect(board).to_contain_text("you (tested)")
    # The drawn board: rows 10 down to 0, the head in the bottom-right corner.
    expect(board).to_contain_text(re.compile(r"^ *10 (\.  ){10}\.", re.MULTILINE))
    expect(board).to_contain_text(re.compile(r"^ *0 (\.  ){10}A", re.MULTILINE))
    shot(page, "tester-failures")


def test_the_tester_rejects_an_unknown_snake_inline(base_url: str, page: Page) -> None:
    page.goto(base_url + "/test")
    page.get_by_test_id("tester-url").fill("builtin:nosuchbot")
    page.get_by_test_id("run-tests").click()
    expect(page.get_by_test_id("error")).to_contain_text("nosuchbot")
    expect(page.get_by_test_id("tester-summary")).to_have_text("")
