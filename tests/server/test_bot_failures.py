"""A bot that fails is never invisible: its reason is stored and shown, its log kept.

Regression: a Halite bot killed or failed at initialisation left its game ``complete``
with no word of why in ``/api/games/{id}``.  Each failure here is a real bot program (a
timeout, a crash, a bad command, a failed start) in a real game on a local server; the
log route is checked for who may read what on a public server.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from snakewar.engine.protocol import EntrantResult, GameData, PlayedGame
from snakewar.server import ServerConfig, create_app
from snakewar.storage import Store
from tests.server.accounts import make_user, public_client
from tests.waiting import wait_finished

KIT = Path(__file__).resolve().parents[1] / "games" / "halite3" / "starter_kit"

# Each bot reads the init, answers its name, then misbehaves on its third turn.
BOT = """\
import sys
import time

def line():
    text = sys.stdin.readline()
    if not text:
        sys.exit(0)
    return text

line()  # the constants
players, me = line().split()
for _ in range(int(players)):
    line()
width, height = map(int, line().split())
for _ in range(height):
    line()
{init}
print("{name}", flush=True)
turn = 0
while True:
    turn = int(line())
    for _ in range(int(players)):
        pid, ships, dropoffs, halite = map(int, line().split())
        for _ in range(ships + dropoffs):
            line()
    for _ in range(int(line())):
        line()
    if turn == 3:
{act}
    print("", flush=True)
"""

FAILURES = {
    "timeout": ("", "        time.sleep(5)", "killed on turn 3: timed out after 300 ms"),
    "crash": ("", "        raise RuntimeError('out of ideas on turn 3')", "out of ideas on turn 3"),
    "bad-command": ("", "        print('m 0 x', flush=True); continue", 'decode bot message: "x"'),
    "no-start": ("sys.exit('cannot find my weights file')", "        pass", "failed to initialize"),
}


@pytest.fixture
def local(tmp_path: Path) -> Iterator[tuple[TestClient, Store]]:
    with Store(f"sqlite:///{tmp_path / 'g.db'}") as store:
        app = create_app(ServerConfig(database_url="memory"), store=store)
        with TestClient(app, base_url="http://localhost") as client:
            yield client, store


@pytest.mark.parametrize("kind", list(FAILURES))
def test_every_failure_is_stored_and_shown_with_its_reason(
    local: tuple[TestClient, Store], tmp_path: Path, kind: str
) -> None:
    client, store = local
    init, act, expected = FAILURES[kind]
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "bot.py").write_text(BOT.format(init=init, act=act, name=kind))
    owner = store.accounts.user("local")
    store.snakes.register(
        owner.id, kind, "halite3", "program", argv=[sys.executable, "bot.py"], workdir=str(folder)
    )
    created = client.post(
        "/api/games",
        json={
            "game": "halite3",
            "snakes": [f"@local/{kind}", "builtin:greedy"],
            "width": 32,
            "height": 32,
            "maxTurns": 8,
            "timeout": 300,
            "seed": 11,
        },
    )
    assert created.status_code == 201, created.text
    game = wait_finished(client, created.json()["id"])
    assert game["status"] == "complete"
    failed, greedy = game["entrants"]
    assert expected in failed["failure"], failed
    # When, then why: the turn it was killed on, or its failed start.
    when = "failed to initialize: " if kind == "no-start" else "killed on turn 3: "
    assert failed["failure"].startswith(when), failed
    assert greedy["failure"] == ""
    # The same once the game is only in the database (a fresh server reads it back).
    stored = client.get("/api/games", params={"limit": 5}).json()
    listed = next(g for g in [*stored["live"], *stored["games"]] if g["id"] == game["id"])
    assert expected in listed["entrants"][0]["failure"]
    log = client.get(f"/api/games/{game['id']}/logs/0")
    assert log.status_code == 200, log.text
    if kind == "crash":
        assert "out of ideas on turn 3" in log.json()["log"]
    if kind == "no-start":
        assert "cannot find my weights file" in failed["failure"]
        assert "cannot find my weights file" in log.json()["log"]
    assert client.get(f"/api/games/{game['id']}/logs/5").status_code == 404


def played_with_log(game_id: str, owner_snake: str) -> PlayedGame:
    results = (
        EntrantResult(0, "viper", owner_snake, 2, failure="killed: crashed", log="SECRET KEY"),
        EntrantResult(1, "greedy", "builtin:greedy", 1),
    )
    return PlayedGame(
        game="halite3",
        id=game_id,
        seed=1,
        turns=3,
        results=results,
        data=GameData({"players": 2}, result={"ranks": [2, 1]}),
        title="32x32 map",
        width=32,
        height=32,
        source="custom",
    )


def test_a_bots_log_is_shown_to_its_owner_only() -> None:
    with public_client() as admin:
        store: Store = admin.store
        ann = make_user(store, "ann")
        bob = make_user(store, "bob")
        store.games.save_played(played_with_log("g1", "@ann/viper"))
        game = admin.get("/api/games/g1").json()
        assert game["entrants"][0]["failure"] == "killed: crashed"  # public: the reason
        assert admin.get("/api/games/g1/logs/0").json()["log"] == "SECRET KEY"
        assert admin.get("/api/games/g1/logs/0", headers=ann).json()["log"] == "SECRET KEY"
        assert admin.get("/api/games/g1/logs/0", headers=bob).status_code == 403
        assert admin.get("/api/games/g1/logs/1", headers=ann).status_code == 403
        anonymous = admin.get("/api/games/g1/logs/0", headers={"Authorization": ""})
        assert anonymous.status_code == 401
        # Deleting the game deletes its logs.
        store.games.delete("g1")
        assert admin.get("/api/games/g1/logs/0").status_code == 404
