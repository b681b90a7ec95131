"""The site's page modules (``viewer/static/pages/``): their pure parts under Node.

Each page module exports the logic that turns API answers into rows, chart lines,
bracket columns or a request body; the DOM part only runs in a browser (the
browser tests drive it).  Here Node imports the modules and runs the pure parts on
API-shaped data, some of it real answers from the server: the checks are
``js/pages.test.mjs``, run by ``node --test``.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

BIG_SEED = "2618439174457646105"  # a JavaScript number would make it ...6000


JS = Path(__file__).resolve().parent / "js"
"""The Node test files of this folder."""


@pytest.fixture(scope="module")
def pages_input() -> dict[str, Any]:
    """What ``js/pages.test.mjs`` reads: a server's games list and account page's trial bots."""
    from fastapi.testclient import TestClient

    from snakewar.server import ServerConfig, create_app

    with TestClient(
        create_app(ServerConfig(database_url="memory")), base_url="http://localhost"
    ) as client:
        game = client.post(
            "/api/games", json={"snakes": ["random", "greedy"], "seed": BIG_SEED, "width": 7}
        ).json()
        account = client.get("/account").text
        (trial_bots,) = re.findall(r'data-trial-bots="([^"]*)"', account)
        client.post(f"/api/games/{game['id']}/cancel")
        games = client.get("/api/games").json()
    return {
        "bigSeed": BIG_SEED,
        "games": games["live"] + games["games"],
        # The account page's trial bots, by game (the registry's, as the page has them).
        "trialBots": json.loads(html.unescape(trial_bots)),
    }


def test_the_page_modules_under_node(
    pages_input: dict[str, Any], node_test: Callable[..., int]
) -> None:
    assert node_test(JS / "pages.test.mjs", pages_input) == 11


def test_the_build_page_and_the_account_pages_build_cells_under_node(
    node_test: Callable[..., int],
) -> None:
    assert node_test(JS / "build.test.mjs") == 4
