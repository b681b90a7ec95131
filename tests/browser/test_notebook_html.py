"""A game's ``_repr_html_`` (what Jupyter shows) opens in chromium offline and draws the board.

The notebook's output is put in a page of its own, as Jupyter puts it in the notebook's;
every request other than the file itself is refused: the viewer must need none.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import snakewar

if TYPE_CHECKING:
    from pathlib import Path

    from playwright.sync_api import Page, Route


def test_the_inline_viewer_draws_the_game_offline(page: Page, tmp_path: Path) -> None:
    from playwright.sync_api import expect

    game = snakewar.play(
        ["hunter", "greedy"], seed=21, width=7, height=7, names=["h", "g"], bots_in_process=True
    )
    last = len(game.turns)
    notebook = tmp_path / "notebook.html"
    notebook.write_text(
        f"<!doctype html><html><body><h1>Out[1]:</h1>{game._repr_html_()}</body></html>",
        encoding="utf-8",
    )
    requested: list[str] = []

    def refuse(route: Route) -> None:
        requested.append(route.request.url)
        route.abort()

    page.context.route(re.compile(r"^(?!file://|about:).*"), refuse)
    page.context.set_offline(True)
    page.goto(notebook.as_uri())
    viewer = page.frame_locator("iframe.snakewar-viewer")
    expect(viewer.get_by_test_id("scrubber")).to_have_attribute("max", str(last))
    viewer.get_by_test_id("btn-last").click()
    expect(viewer.get_by_test_id("turn")).to_contain_text(f"Turn {last}")
    board = viewer.locator("[data-testid=board] svg.board-svg")
    expect(board).to_have_attribute("data-turn", str(last))
    alive = [s for s in game.boards[-1].snakes if not s.eliminated_cause]
    for snake in alive:
        expect(viewer.locator(f'[data-testid=board] [data-snake-id="{snake.id}"]')).to_have_count(1)
    for name in ("h", "g"):
        expect(viewer.get_by_test_id("scoreboard")).to_contain_text(name)
    # The frame is sized in the page: the board is drawn at a size one can see.
    box = page.locator("iframe.snakewar-viewer").bounding_box()
    assert box is not None and box["height"] >= 400 and box["width"] >= 400
    assert requested == [], requested
