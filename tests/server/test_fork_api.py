"""Forks over HTTP: ``POST /api/games/{id}/fork`` and ``POST /api/games`` with a position."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from snakewar.games.battlesnake.replay.format import load_replay
from snakewar.games.battlesnake.replay.verify import verify_replay
from snakewar.server import ServerConfig, create_app
from tests.asgi_server import serve
from tests.waiting import wait_finished

# Deterministic built-in bots (a depth-limited hunter: a time budget would depend on the
# machine's speed); their randomness comes from their snake id and the turn.
BOTS = ["builtin:hunter?depth=2", "builtin:greedy", "builtin:random", "builtin:random"]


@pytest.fixture(scope="module")
def api() -> Iterator[httpx.Client]:
    with (
        serve(create_app(ServerConfig(database_url="memory"))) as base,
        httpx.Client(base_url=base, timeout=60) as client,
    ):
        yield client


def replay_lines(api: httpx.Client, game_id: str) -> list[dict[str, Any]]:
    response = api.get(f"/api/games/{game_id}/replay")
    assert response.status_code == 200, response.text
    return [json.loads(line) for line in response.text.splitlines()]


def turns(lines: list[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    return {line["turn"]: line for line in lines if "turn" in line}


@pytest.fixture(scope="module")
def original(api: httpx.Client) -> dict[str, Any]:
    body = {"snakes": BOTS, "seed": 5, "timeout": 2000}
    created = api.post("/api/games", json=body)
    assert created.status_code == 201, created.text
    game = wait_finished(api, created.json()["id"])
    assert game["status"] == "complete" and game["turn"] > 20, game
    return game


@pytest.mark.parametrize("where", ["middle", "late"])
def test_a_fork_with_the_games_snakes_continues_identically(
    api: httpx.Client, original: dict[str, Any], where: str
) -> None:
    # Late: snakes are eliminated by then; they keep their seats (and ids) in the fork.
    turn = original["turn"] // 2 if where == "middle" else original["turn"] - 2
    forked = api.post(f"/api/games/{original['id']}/fork", json={"turn": turn})
    assert forked.status_code == 201, forked.text
    game = forked.json()
    assert game["id"] != original["id"] and game["seed"] == original["seed"]
    assert [e["source"] for e in game["entrants"]] == BOTS
    done = wait_finished(api, game["id"])
    assert done["status"] == "complete"
    before, after = replay_lines(api, original["id"]), replay_lines(api, game["id"])
    assert after[0]["forked_from"] == {"game": original["id"], "turn": turn}
    assert after[0]["initial"] == turns(before)[turn - 1]["state"]
    if where == "late":
        assert any(s["eliminated_cause"] for s in after[0]["initial"]["snakes"])
    assert sorted(turns(after)) == [t for t in sorted(turns(before)) if t >= turn]
    for t, line in turns(after).items():
        assert line["state"] == turns(before)[t]["state"], t
    assert after[-1]["result"]["winner"] == before[-1]["result"]["winner"]
    # The fork's replay verifies, from the board it started from.
    data = "".join(json.dumps(line) + "\n" for line in after)
    report = verify_replay(load_replay(data.splitlines()))
    assert report.ok, report
    # Its viewer's frames count from 0 and show the board's own turns.
    frames = api.get(f"/games/{game['id']}/frames", params={"offset": 0, "limit": 2}).json()
    assert [f["Turn"] for f in frames["Frames"]] == [turn, turn + 1]


def test_a_fork_with_other_snakes(api: httpx.Client, original: dict[str, Any]) -> None:
    snakes = ["builtin:random", "builtin:greedy", "builtin:random", "builtin:random"]
    forked = api.post(
        f"/api/games/{original['id']}/fork",
        json={"turn": 3, "snakes": snakes, "names": ["first"]},
    )
    assert forked.status_code == 201, forked.text
    game = forked.json()
    assert [e["source"] for e in game["entrants"]] == snakes
    assert game["entrants"][0]["name"] == "first"
    wait_finished(api, game["id"])
    lines = replay_lines(api, game["id"])
    assert lines[0]["initial"] == turns(replay_lines(api, original["id"]))[2]["state"]


@pytest.mark.parametrize(
    ("body", "status", "field"),
    [
        ({"turn": 100000}, 422, "turn"),
        ({"turn": -1}, 422, "turn"),
        ({"turn": 2, "snakes": ["builtin:random"]}, 422, "snakes"),
        # An entrant that is no bot is refused as POST /api/games refuses it.
        ({"turn": 2, "snakes": ["builtin:nobody"] * 4}, 400, None),
    ],
)
def test_bad_forks_are_refused_naming_the_field(
    api: httpx.Client,
    original: dict[str, Any],
    body: dict[str, Any],
    status: int,
    field: str | None,
) -> None:
    response = api.post(f"/api/games/{original['id']}/fork", json=body)
    assert response.status_code == status, response.text
    detail = response.json()["detail"]
    if field is not None:
        assert field in detail[0]["loc"], detail
    else:
        assert "nobody" in json.dumps(detail)


def test_a_fork_of_no_game_is_404(api: httpx.Client) -> None:
    assert api.post("/api/games/nope/fork", json={"turn": 1}).status_code == 404


def board(**changes: Any) -> dict[str, Any]:
    value: dict[str, Any] = {
        "width": 7,
        "height": 7,
        "food": [{"x": 3, "y": 3}],
        "hazards": [],
        "snakes": [
            {"id": "a", "name": "A", "health": 80, "body": [{"x": 1, "y": 1}, {"x": 1, "y": 0}]},
            {"id": "b", "name": "B", "health": 70, "body": [{"x": 5, "y": 5}, {"x": 5, "y": 6}]},
        ],
    }
    value.update(changes)
    return value


def test_a_game_from_a_posted_position(api: httpx.Client) -> None:
    position = {"turn": 12, "board": board(), "you": board()["snakes"][0], "game": {"id": "x"}}
    body = {"snakes": ["builtin:random", "builtin:greedy"], "seed": 3, "position": position}
    created = api.post("/api/games", json=body)
    assert created.status_code == 201, created.text
    game = created.json()
    assert game["width"] == 7 and game["height"] == 7
    wait_finished(api, game["id"])
    header = replay_lines(api, game["id"])[0]
    assert header["forked_from"] == {}
    initial = header["initial"]
    assert initial["turn"] == 12
    assert [s["body"] for s in initial["snakes"]] == [[[1, 1], [1, 0]], [[5, 5], [5, 6]]]
    assert [s["health"] for s in initial["snakes"]] == [80, 70]
    assert [s["id"] for s in initial["snakes"]] == [s["id"] for s in header["snakes"]]


@pytest.mark.parametrize(
    ("position", "snakes", "field"),
    [
        (board(food=[{"x": 7, "y": 0}]), 2, "position.food[0].x"),
        ({"board": board(hazards=[{"x": 0, "y": -1}])}, 2, "position.board.hazards[0].y"),
        (
            board(snakes=[{"id": f"s{i}", "body": [{"x": i % 7, "y": 0}]} for i in range(17)]),
            2,
            "position.snakes",
        ),
        (
            board(snakes=[{"id": "a", "body": [{"x": 0, "y": 0}] * 5000}]),
            1,
            "position.snakes[0].body",
        ),
        (board(width=26, height=26), 2, None),
        (board(), 3, "snakes"),
        ({"nothing": True}, 2, "position"),
        (
            {"board": {"width": 7, "height": 7, "snakes": [{"id": "a", "body": "x"}]}},
            1,
            "position.board.snakes[0].body",
        ),
    ],
)
def test_bad_positions_are_422_naming_the_field(
    api: httpx.Client, position: dict[str, Any], snakes: int, field: str | None
) -> None:
    body = {"snakes": ["builtin:random"] * snakes, "position": position}
    response = api.post("/api/games", json=body)
    assert response.status_code == 422, response.text
    detail = response.json()["detail"]
    if field is None:  # past this server's board cap (25): the cap is named
        assert "width: 26 is larger than this server's 25" in json.dumps(detail), detail
    else:
        assert detail[0]["loc"] == ["body", field], detail


def test_a_huge_position_is_refused_before_it_is_read(api: httpx.Client) -> None:
    huge = board(food=[{"x": 1, "y": 1, "pad": "x" * 1000}] * 300)
    response = api.post("/api/games", json={"snakes": ["builtin:random"] * 2, "position": huge})
    assert response.status_code == 422, response.text
    assert response.json()["detail"][0]["loc"] == ["body", "position"]


def test_the_position_check_normalises_and_draws(api: httpx.Client) -> None:
    posted = {"turn": 4, "board": board(hazards=[{"x": 0, "y": 0}])}
    response = api.post("/api/battlesnake/position", json={"position": posted})
    assert response.status_code == 200, response.text
    out = response.json()
    position = out["position"]
    assert position["format"] == "snakewar-position" and position["names"] == ["A", "B"]
    assert position["state"]["turn"] == 4 and position["state"]["hazards"] == [[0, 0]]
    assert [s["body"] for s in position["state"]["snakes"]] == [[[1, 1], [1, 0]], [[5, 5], [5, 6]]]
    assert out["game"]["Width"] == 7 and out["frame"]["Turn"] == 4
    assert [s["Name"] for s in out["frame"]["Snakes"]] == ["A", "B"]
    # What it returns is what a game takes, and checks the same again.
    again = api.post("/api/battlesnake/position", json={"position": position})
    assert again.json()["position"] == position
    bad = api.post(
        "/api/battlesnake/position",
        json={"position": board(snakes=[{"id": "a", "body": [{"x": 3, "y": 99}]}])},
    )
    assert bad.status_code == 422
    assert bad.json()["detail"][0]["loc"] == ["body", "position.snakes[0].body[0].y"]


def test_only_the_owner_or_an_admin_forks_a_game() -> None:
    from tests.server.accounts import make_user, public_client

    with public_client() as admin:
        ann, bob = make_user(admin.store, "ann"), make_user(admin.store, "bob")
        body = {"snakes": ["builtin:random"] * 2, "seed": 2, "width": 7, "height": 7}
        game = admin.post("/api/games", json=body, headers=ann).json()
        wait_finished(admin, game["id"])
        refused = admin.post(f"/api/games/{game['id']}/fork", json={"turn": 1}, headers=bob)
        assert refused.status_code == 403, refused.text
        anonymous = admin.post(
            f"/api/games/{game['id']}/fork", json={"turn": 1}, headers={"Authorization": ""}
        )
        assert anonymous.status_code == 401
        mine = admin.post(f"/api/games/{game['id']}/fork", json={"turn": 1}, headers=ann)
        assert mine.status_code == 201, mine.text


def test_a_game_that_cannot_start_from_a_board_refuses_a_position(api: httpx.Client) -> None:
    body = {"game": "halite3", "snakes": ["builtin:random"] * 2, "position": board()}
    response = api.post("/api/games", json=body)
    assert response.status_code == 422, response.text
    assert response.json()["detail"][0]["loc"] == ["body", "position"]
