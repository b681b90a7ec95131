"""``GET /api/games/{id}/scenario`` with a kill goal (``kill``), on a game the server played."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from snakewar.games.battlesnake.tester.files import load_scenarios
from snakewar.server import ServerConfig, create_app
from tests.waiting import wait_finished


@pytest.fixture
def client() -> Iterator[TestClient]:
    app = create_app(ServerConfig(database_url="memory"))
    with TestClient(app, raise_server_exceptions=False, base_url="http://localhost") as test:
        yield test


def test_a_turn_is_saved_with_a_kill_goal_and_bad_targets_are_a_422_naming_kill(
    client: TestClient,
) -> None:
    created = client.post(
        "/api/games",
        json={"snakes": ["greedy", "greedy"], "seed": 3, "width": 7, "height": 7},
    )
    assert created.status_code == 201, created.text
    game = str(created.json()["id"])
    final = wait_finished(client, game)
    assert final["status"] == "complete"
    url = f"/api/games/{game}/scenario"
    names = [e["name"] for e in final["entrants"]]
    saved = refused = None
    # A sure kill comes late in a game: the turns before the last, newest first.
    for turn in range(final["turn"] - 1, max(final["turn"] - 40, 0), -1):
        for me, other in (names, names[::-1]):
            answer = client.get(url, params={"turn": turn, "snake": me, "kill": other})
            if answer.status_code == 200:
                saved = saved or (turn, me, other, answer)
            elif refused is None and "for certain" in answer.text:
                refused = (other, answer)
        if saved is not None and refused is not None:
            break
    assert saved is not None, "no turn of the game has a sure kill"
    turn, me, other, answer = saved
    assert answer.headers["content-disposition"].endswith(f'-turn-{turn}.json"')
    (entry,) = answer.json()["scenarios"]
    assert entry["goal"] == "kill" and entry["name"] == f"turn-{turn}-{me}-kills-{other}"
    target = next(s for s in entry["request"]["board"]["snakes"] if s["name"] == other)
    assert entry["target"] == target["id"] and entry["acceptable"]
    (scenario,) = load_scenarios(answer.content, "download")
    assert scenario.goal == "kill" and scenario.acceptable == frozenset(entry["acceptable"])
    # A turn with no sure kill, and targets that are no other snake: 422 naming kill.
    assert refused is not None
    alive, answer = refused
    assert answer.status_code == 422, answer.text
    (problem,) = answer.json()["detail"]
    assert problem["loc"][-1] == "kill"
    assert problem["msg"].startswith(f"no move kills {alive} here for certain")
    for bad in ("nobody", me):
        wrong = client.get(url, params={"turn": turn, "snake": me, "kill": bad})
        assert wrong.status_code == 422, wrong.text
        (problem,) = wrong.json()["detail"]
        assert problem["loc"][-1] == "kill"
        assert problem["msg"].startswith(f"no snake {bad!r} to kill alive at turn {turn}")
    blank = client.get(url, params={"turn": turn, "snake": me, "kill": " "})
    assert blank.status_code == 422 and blank.json()["detail"][0]["loc"][-1] == "kill"
