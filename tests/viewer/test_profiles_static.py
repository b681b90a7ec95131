"""The profile pages' modules under Node: API answers to text, rows and chart points.

The snake directory, a snake's and a user's pages, a ladder entry's page, the new-game
page's picker and the ladder page's standings export what turns the API's answers into
text and rows; here Node runs those parts on real answers of a server (a ladder played
with its placement at 3 games, one entrant's entry), and the browser tests drive the
rest.  The checks are ``js/profiles.test.mjs``, run by ``node --test``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from snakewar.arena.config import MatchConfig
from snakewar.arena.ladder import Ladder, LadderEntry, LadderSettings
from snakewar.storage import Store

JS = Path(__file__).resolve().parent / "js"
"""The Node test files of this folder."""


@pytest.fixture(scope="module")
def profiles_input() -> dict[str, Any]:
    """What ``js/profiles.test.mjs`` reads: a real server's ladder and entry answers."""
    from fastapi.testclient import TestClient

    from snakewar.server import ServerConfig, create_app

    with Store("sqlite://") as store:
        ladder = Ladder("club", MatchConfig.create("battlesnake", {"width": 7, "height": 7}))
        ladder.add("builtin:random", "random")
        ladder.add("builtin:greedy", "greedy")
        ladder.settings = LadderSettings(placement_games=3)
        store.ladders.create(ladder)
        # Three games of the first two: ranked; one that joins later: in placement.
        assert ladder.run(3, store) == 3
        store.ladders.save_entry("club", LadderEntry("late", "builtin:hunter?depth=1"))
        app = create_app(ServerConfig(database_url="memory"), store=store)
        with TestClient(app, base_url="http://localhost") as client:
            standings = client.get("/api/ladders/club").json()
            entry = client.get("/api/ladders/club/entries/random").json()
    return {"ladder": standings, "entry": entry}


def test_the_profile_modules_under_node(
    profiles_input: dict[str, Any], node_test: Callable[..., int]
) -> None:
    """``js/profiles.test.mjs``: the pages' functions on this server's answers."""
    assert node_test(JS / "profiles.test.mjs", profiles_input) == 7
