"""A web Halite III game answers at once, runs in the background and streams live.

Regression: ``POST /api/games`` for Halite answered only when the game ended (1 min 45 s
for greedy against greedy), and nothing of a running game could be seen.  Here a real
bot program holds the game on a turn until the test lets it go (a file it waits for), so
that what is checked while the game runs is proven without the clock: the POST answered
while the game could not have ended, the turns played so far are served, cancelling
stops the game and its bots.  The frames a viewer is sent while the game runs are the
stored replay's, frame for frame.
"""

from __future__ import annotations

import asyncio
import dataclasses
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from snakewar.adapters import get_game
from snakewar.engine.protocol import (
    Entrant,
    EntrantResult,
    Frame,
    GameData,
    MatchHooks,
    MatchSpec,
    PlayedGame,
    PlaySession,
    StoredGame,
)
from snakewar.games.halite3.replay.hlt import read_hlt
from snakewar.server import ServerConfig, create_app
from snakewar.storage import Store
from tests.server.accounts import make_user, public_client
from tests.waiting import wait_finished

# Reads the init, answers its name, then plays empty turns; on each turn of GATES it
# says so (a file "reached-T") and waits for the file "release-T" before answering.
GATED_BOT = """\
import os
import sys
import time

GATES = {gates}

def line():
    text = sys.stdin.readline()
    if not text:
        sys.exit(0)
    return text

with open("pid", "w") as out:
    out.write(str(os.getpid()))
line()  # the constants
players, me = line().split()
for _ in range(int(players)):
    line()
width, height = map(int, line().split())
for _ in range(height):
    line()
print("gated", flush=True)
while True:
    turn = int(line())
    for _ in range(int(players)):
        pid, ships, dropoffs, halite = map(int, line().split())
        for _ in range(ships + dropoffs):
            line()
    for _ in range(int(line())):
        line()
    if turn in GATES:
        open(f"reached-{{turn}}", "w").close()
        while not os.path.exists(f"release-{{turn}}"):
            time.sleep(0.02)
    print("", flush=True)
"""

# A turn may take a minute: the gate holds the game, not the referee's timeout.
TIMEOUT_MS = 60_000


def deadline(seconds: float = 300) -> float:
    return time.monotonic() + seconds


def wait_for_file(path: Path) -> None:
    end = deadline()
    while not path.exists():
        assert time.monotonic() < end, f"{path} never appeared"
        time.sleep(0.02)


class Gated:
    """A registered bot program that holds its game on the turns of ``gates``."""

    def __init__(self, store: Store, folder: Path, gates: set[int], name: str = "gated") -> None:
        folder.mkdir()
        (folder / "bot.py").write_text(GATED_BOT.format(gates=sorted(gates)))
        owner = store.accounts.user("local")
        store.snakes.register(
            owner.id, name, "halite3", "program", argv=[sys.executable, "bot.py"],
            workdir=str(folder),
        )  # fmt: skip
        self.folder = folder
        self.ref = f"@local/{name}"

    def reached(self, turn: int) -> None:
        wait_for_file(self.folder / f"reached-{turn}")

    def release(self, turn: int) -> None:
        (self.folder / f"release-{turn}").touch()

    def pid(self) -> int:
        return int((self.folder / "pid").read_text())


@pytest.fixture
def local(tmp_path: Path) -> Iterator[tuple[TestClient, Store]]:
    with Store(f"sqlite:///{tmp_path / 'g.db'}") as store:
        config = ServerConfig(database_url="memory", max_timeout_ms=TIMEOUT_MS)
        with TestClient(create_app(config, store=store), base_url="http://localhost") as client:
            yield client, store


def start(client: TestClient, bot: Gated, max_turns: int, seed: int = 3) -> dict[str, Any]:
    created = client.post(
        "/api/games",
        json={
            "game": "halite3",
            "snakes": [bot.ref, "builtin:greedy"],
            "width": 32,
            "height": 32,
            "maxTurns": max_turns,
            "timeout": TIMEOUT_MS,
            "seed": seed,
        },
    )
    assert created.status_code == 201, created.text
    game: dict[str, Any] = created.json()
    return game


def test_the_game_answers_at_once_and_its_turns_are_served_as_they_are_played(
    local: tuple[TestClient, Store], tmp_path: Path
) -> None:
    client, store = local
    bot = Gated(store, tmp_path / "bot", {2})
    game = start(client, bot, max_turns=6)
    # The bot holds turn 2 until released below: this answer came while the game ran.
    assert game["status"] == "running"
    game_id = game["id"]
    bot.reached(2)
    now = client.get(f"/api/games/{game_id}").json()
    assert now["status"] == "running"
    assert now["turn"] == 1  # turn 1 played; turn 2 waits for the bot
    halite = client.get(f"/api/halite/games/{game_id}").json()
    assert halite["status"] == "running" and halite["players"] == ["@local/gated", "greedy"]

    page = client.get(f"/api/games/{game_id}/frames").json()
    assert (page["status"], page["turn"], page["count"], page["offset"]) == ("running", 1, 2, 0)
    header = page["header"]
    assert header["map_generator_seed"] == 3 and header["number_of_players"] == 2
    assert [p["name"] for p in header["players"]] == ["@local/gated", "greedy"]
    assert header["production_map"]["width"] == 32
    assert header["GAME_CONSTANTS"]["MAX_TURNS"] == 6
    running_frames = page["frames"]
    assert len(running_frames) == 2
    later = client.get(f"/api/games/{game_id}/frames", params={"offset": 1, "limit": 1}).json()
    assert later["header"] is None and later["frames"] == running_frames[1:]
    assert client.get(f"/api/games/{game_id}/frames", params={"offset": 9}).json()["frames"] == []
    for bad in ({"offset": -1}, {"limit": 0}, {"limit": 501}):
        refused = client.get(f"/api/games/{game_id}/frames", params=bad)
        assert refused.status_code == 422, refused.text
    # No replay file before the game ends: said in words, not a broken file.
    unfinished = client.get(f"/api/games/{game_id}/replay")
    assert unfinished.status_code == 409
    assert "did not finish (1 turn played)" in unfinished.json()["detail"]

    bot.release(2)
    done = wait_finished(client, game_id)
    assert done["status"] == "complete" and done["turn"] == 6
    document = client.get(f"/api/halite/games/{game_id}/replay").json()
    # The frames sent while it ran are the stored replay's (T + 2 frames for T turns).
    assert len(document["full_frames"]) == 8
    assert document["full_frames"][:2] == running_frames
    assert {k: v for k, v in document.items() if k in header} == header
    row = store.games.get(game_id)
    assert row is not None  # stored finished, its header is small: listings read it
    players = ["@local/gated", "greedy"]
    assert row.header == {"seed": 3, "width": 32, "height": 32, "players": players}
    # The replay file holds every frame: the streamed ones are not kept twice.
    assert store.games.frame_count(game_id) == 0
    data = store.games.data(game_id)
    assert data.replay is not None and read_hlt(data.replay).turns_played == 6


def test_a_running_halite_game_can_be_cancelled_and_its_turns_still_watched(
    local: tuple[TestClient, Store], tmp_path: Path
) -> None:
    client, store = local
    bot = Gated(store, tmp_path / "bot", {3})
    game_id = start(client, bot, max_turns=50)["id"]
    bot.reached(3)
    seen = client.get(f"/api/games/{game_id}/frames").json()
    assert seen["count"] == 3

    cancelled = client.post(f"/api/games/{game_id}/cancel")
    assert cancelled.status_code == 200, cancelled.text
    assert cancelled.json()["status"] == "cancelled"
    # Its bot is killed (the referee's SIGKILL), not left waiting.
    pid = bot.pid()
    end = deadline()
    while Path(f"/proc/{pid}").exists() and "zombie" not in _state(pid):
        assert time.monotonic() < end, f"bot {pid} still runs"
        time.sleep(0.02)
    assert client.post(f"/api/games/{game_id}/cancel").status_code == 409

    # Another server on the same database reads the stopped game back from storage.
    with TestClient(
        create_app(ServerConfig(database_url="memory"), store=store), base_url="http://localhost"
    ) as other:
        assert other.get(f"/api/games/{game_id}").json()["status"] == "cancelled"
        stored = other.get(f"/api/games/{game_id}/frames").json()
        assert (stored["status"], stored["count"], stored["turn"]) == ("cancelled", 3, 2)
        assert stored["header"] == seen["header"]
        assert stored["frames"] == seen["frames"]
        for route in ("/api/games/{}/replay", "/api/halite/games/{}/replay.hlt"):
            refused = other.get(route.format(game_id))
            assert refused.status_code == 409, refused.text
            assert "did not finish (2 turns played)" in refused.json()["detail"]
        assert other.get(f"/api/halite/games/{game_id}").json()["status"] == "cancelled"


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/status").read_text().lower()
    except OSError:
        return "zombie"  # gone meanwhile


def test_any_games_frames_can_be_paged_while_it_runs_and_after(
    local: tuple[TestClient, Store],
) -> None:
    client, _ = local
    created = client.post(
        "/api/games",
        json={"snakes": ["builtin:random", "builtin:random"], "width": 7, "height": 7,
              "seed": 4, "maxTurns": 5},
    )  # fmt: skip
    assert created.status_code == 201, created.text
    game_id = created.json()["id"]
    wait_finished(client, game_id)
    page = client.get(f"/api/games/{game_id}/frames").json()
    engine = client.get(f"/games/{game_id}/frames").json()
    # A Battlesnake game's views are its board's frames; its engine API is unchanged.
    assert page["frames"] == engine["Frames"] and page["count"] == engine["Count"]
    assert page["header"]["config"]["width"] == 7
    assert client.get("/api/games/nope/frames").status_code == 404


def test_the_streamed_frames_and_header_are_the_replays_own(tmp_path: Path) -> None:
    """Played through the adapter as a server does, with a bot killed on the way."""
    crash = tmp_path / "crash.py"
    crash.write_text(GATED_BOT.format(gates=[]).replace('print("", flush=True)', "1 / 0"))
    adapter = get_game("halite3")
    crashing = Entrant(f"{sys.executable} crash.py", "b", workdir=str(tmp_path))
    spec = MatchSpec(
        "halite3",
        (Entrant("builtin:greedy", "a"), crashing, Entrant("builtin:random", "c"),
         Entrant("builtin:greedy", "d")),
        adapter.parse_params({"width": 32, "height": 32}),
        max_turns=25,
    )  # fmt: skip
    starts: list[tuple[StoredGame, GameData]] = []
    frames: list[Frame] = []

    async def on_start(listing: StoredGame, data: GameData) -> None:
        starts.append((listing, data))

    async def play() -> PlayedGame:
        async with PlaySession() as session:
            hooks = MatchHooks(game_id="g1", on_start=on_start, on_frame=frames.append)
            return await adapter.play(spec, 12, session, hooks)

    played = asyncio.run(play())
    [(listing, data)] = starts
    assert (listing.id, listing.turns, listing.title) == ("g1", 0, "32x32 map")
    assert [e.name for e in listing.entrants] == ["a", "b", "c", "d"]
    assert played.data.replay is not None
    document = read_hlt(played.data.replay).document
    streamed = [frame.view for frame in [*data.frames, *frames]]
    assert [f.turn for f in [*data.frames, *frames]] == list(range(26))
    assert streamed == document["full_frames"][:-1]
    assert dict(data.header) == {
        k: v for k, v in document.items() if k not in ("full_frames", "game_statistics")
    }
    # Stored finished, the header is small again: listings read every game's.
    assert played.data.header == {"seed": 12, "width": 32, "height": 32,
                                  "players": ["a", "b", "c", "d"]}  # fmt: skip
    crashed = played.results[1]
    assert crashed.failure.startswith("killed on turn 1: communication error"), crashed
    assert "ZeroDivisionError" in crashed.failure


def _played(game_id: str, replay: bytes | None) -> PlayedGame:
    return PlayedGame(
        game="halite3",
        id=game_id,
        seed=1,
        turns=1,
        results=(EntrantResult(0, "a", "builtin:greedy", 1),),
        data=GameData({"seed": 1}, result={"ranks": [1]}, replay=replay),
        title="32x32 map",
        width=32,
        height=32,
    )


def test_a_game_finished_with_its_replay_file_keeps_no_streamed_frames(store: Store) -> None:
    for game_id in ("whole", "stopped"):
        listing = StoredGame(game_id, "halite3", 1, 32, 32, 0, "custom", "32x32 map",
                             (Entrant("builtin:greedy", "a"),))  # fmt: skip
        store.games.begin(listing, GameData({"seed": 1}, (Frame(0, {"t": 0}),)))
        store.games.add_frame(game_id, Frame(1, {"t": 1}))
        assert store.games.frame_count(game_id) == 2
    store.games.finish("whole", "complete", _played("whole", b"REPLAY"))
    assert store.games.frame_count("whole") == 0
    assert store.games.data("whole").replay == b"REPLAY"
    # A stopped game keeps its frames: they are all there is of it.
    store.games.finish("stopped", "cancelled")
    assert store.games.frames("stopped") == [{"t": 0}, {"t": 1}]


def test_failures_are_in_the_halite_listing_too(local: tuple[TestClient, Store]) -> None:
    client, store = local
    store.games.save_played(
        PlayedGame(
            game="halite3",
            id="h1",
            seed=1,
            turns=3,
            results=(
                EntrantResult(0, "viper", "builtin:greedy", 2, failure="killed on turn 2: why"),
                EntrantResult(1, "greedy", "builtin:greedy", 1),
            ),
            data=GameData({"seed": 1}, result={"ranks": [2, 1], "scores": [0, 5]}, replay=b"x"),
            title="32x32 map",
            width=32,
            height=32,
        )
    )
    assert client.get("/api/halite/games/h1").json()["failures"] == ["killed on turn 2: why", ""]


def test_the_game_page_offers_each_log_to_whoever_may_read_it() -> None:
    with public_client() as admin:
        store: Store = admin.store
        ann = make_user(store, "ann")  # the owner of the bot in seat 0
        starter = make_user(store, "starter")  # the owner of the game
        bob = make_user(store, "bob")
        starter_id = store.accounts.user("starter").id
        results = (
            EntrantResult(0, "viper", "@ann/viper", 2, failure="killed on turn 2: x", log="L"),
            EntrantResult(1, "greedy", "builtin:greedy", 1, log="M"),
        )
        game = PlayedGame("halite3", "g1", 1, 3, results, GameData({"seed": 1}, replay=b"x"))
        store.games.save_played(game, owner_id=starter_id)
        battlesnake = dataclasses.replace(game, game="battlesnake", id="b1")
        store.games.save_played(battlesnake, owner_id=starter_id)
        for who, seats in ((admin.headers, "0 1"), (ann, "0"), (starter, "0 1"), (bob, "")):
            page = admin.get("/view/g1", headers=who)
            assert page.status_code == 200
            assert f'data-log-seats="{seats}"' in page.text
            # What the page offers, the API gives; what it does not, the API refuses.
            for seat in (0, 1):
                status = admin.get(f"/api/games/g1/logs/{seat}", headers=who).status_code
                assert status == (200 if str(seat) in seats.split() else 403)
        # A game of bots on the network keeps no logs: none is offered.
        assert 'data-log-seats=""' in admin.get("/view/b1").text
