"""The club pages' modules under Node: forms to request bodies, API answers to rows.

The ladders, tournaments, users and invitations pages (and the shared ``club.js``)
export what turns the catalogue and the API's answers into fields, rows, chart axes
and request bodies; here Node runs those parts on real answers of a server where it
can (the catalogue, a ladder's history), and the browser tests drive the rest.  The
checks are ``js/club.test.mjs``, run by ``node --test``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

BIG_SEED = "2618439174457646105"


JS = Path(__file__).resolve().parent / "js"
"""The Node test files of this folder."""


@pytest.fixture(scope="module")
def club_input() -> dict[str, Any]:
    """What ``js/club.test.mjs`` reads: a real server's catalogue and a ladder it played."""
    from fastapi.testclient import TestClient

    from snakewar.server import ServerConfig, create_app

    with TestClient(
        create_app(ServerConfig(database_url="memory")), base_url="http://localhost"
    ) as client:
        catalogue = client.get("/api/catalogue").json()
        client.post("/api/ladders", json={"name": "l", "width": 7, "height": 7})
        for snake in ("random", "greedy", "hunter?depth=1"):
            client.post("/api/ladders/l/snakes", json={"snake": snake})
        deadline = time.monotonic() + 240
        # Six games for the chart; on a loaded machine a game may not get its bot worker
        # in time (it is skipped, as a ladder does): the rest are played by another run.
        while (ladder := client.get("/api/ladders/l").json())["games_played"] < 6:
            assert time.monotonic() < deadline, ladder["run"]
            if not ladder["running"]:
                client.post("/api/ladders/l/run", json={"games": 6 - ladder["games_played"]})
            time.sleep(0.05)
        while (ladder := client.get("/api/ladders/l").json())["running"]:
            time.sleep(0.05)
    assert ladder["games_played"] == 6, ladder["run"]
    return {"bigSeed": BIG_SEED, "catalogue": catalogue, "history": ladder["history"]}


def test_the_club_modules_under_node(
    club_input: dict[str, Any], node_test: Callable[..., int]
) -> None:
    """``js/club.test.mjs``: the pages' functions on this server's catalogue and ladder."""
    assert node_test(JS / "club.test.mjs", club_input) == 13
