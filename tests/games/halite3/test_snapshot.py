"""``--from-snapshot``: official snapshots read exactly as the engine reads them, and played on.

``snapshot_vectors.json`` holds snapshot strings (hand-made ones and mutations of a real
game's) with what the official engine's ``Snapshot::from_str`` made of each: the error
message with its position, or the decoded fields.  It was recorded by compiling that
function, unchanged, with g++/libstdc++ against stand-in types (its ``about`` says so).
The rest plays real games through ``snakewar halite play`` in a subprocess, and starts
from the conformance games' recorded states.
"""

from __future__ import annotations

import json
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from snakewar.games.halite3 import Constants, HaliteGame
from snakewar.games.halite3.replay.hlt import HltReplay, encode_hlt, read_hlt, replay_document
from snakewar.games.halite3.replay.verify import verify_hlt
from snakewar.games.halite3.rules.mapgen import generate_map
from snakewar.games.halite3.rules.snapshot import (
    HaliteSnapshot,
    SnapshotError,
    game_from_snapshot,
    generated_total,
    parse_snapshot,
    write_snapshot,
)
from snakewar.games.halite3.testing.conformance import iter_oracle_games, read_oracle
from tests.conformance_data import SHIPPED_HALITE_REPLAYS, require
from tests.games.halite3.oracle import CONFORMANCE_DIR, MAIN

VECTORS: list[dict[str, str]] = json.loads(
    (Path(__file__).with_name("snapshot_vectors.json")).read_text()
)["cases"]
GAME = ("-s", "5", "--width", "32", "--height", "32", "--no-replay", "--results-as-json")
BOTS = ("builtin:greedy", "builtin:greedy")


def engine_view(text: str) -> str:
    """What the recording harness printed for ``text``: the error, or the decoded fields."""
    try:
        s = parse_snapshot(text)
    except SnapshotError as exc:
        return str(exc)
    out = f"OK {s.width}x{s.height} n={s.num_players} seed={s.seed} cells={len(s.cells)}"
    for pid in sorted(s.players):
        p = s.players[pid]
        out += f" | p{pid} e={p.energy} f={p.factory[0]}-{p.factory[1]} d="
        out += "".join(f"{i}:{x}-{y}," for i, x, y in p.dropoffs)
        out += " s=" + "".join(f"{i}:{x}-{y}:{c}," for i, x, y, c in p.ships)
    return out


@pytest.mark.parametrize("case", VECTORS, ids=[str(i) for i in range(len(VECTORS))])
def test_snapshots_read_as_the_engine_reads_them(case: dict[str, str]) -> None:
    assert engine_view(case["snapshot"]) == case["engine"]


def test_vectors_cover_errors_and_successes() -> None:
    kinds = Counter(c["engine"].split(" (at position")[0] for c in VECTORS)
    assert sum(n for k, n in kinds.items() if k.startswith("OK ")) >= 10
    for error in (
        "could not decode snapshot: Halite engine version does not match",
        "could not decode snapshot: EOF while parsing engine version from snapshot",
        "could not decode snapshot: Expected ; but got EOF",
        "could not decode snapshot: Expected - but got EOF",
    ):
        assert kinds[error] > 0, error


def halite(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*MAIN, "halite", "play", *args], capture_output=True, text=True, timeout=280, cwd=cwd
    )


def ships_by_player(s: HaliteSnapshot) -> dict[int, list[tuple[int, int, int]]]:
    """Each player's ships without their ids (listed in hash order: sorted here)."""
    return {pid: sorted((x, y, c) for _, x, y, c in p.ships) for pid, p in s.players.items()}


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The final snapshot of a real 40-turn game (ships and, likely, a dropoff or two)."""
    done = halite(*GAME, "--turn-limit", "40", *BOTS, cwd=tmp_path_factory.mktemp("g"))
    assert done.returncode == 0, done.stderr
    snapshot: str = json.loads(done.stdout)["final_snapshot"]
    return snapshot


def test_a_game_started_from_a_snapshot_is_the_snapshots_state(played: str, tmp_path: Path) -> None:
    before = parse_snapshot(played)
    assert any(p.ships for p in before.players.values())
    # --turn-limit 0: the game ends before its first turn; its final snapshot is its start.
    # The command line's seed and size are the snapshot's no more.
    done = halite(
        "--from-snapshot", played, "--turn-limit", "0", "--no-replay", "--results-as-json",
        "-s", "9", "--width", "48", "--height", "40", *BOTS, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout)
    after = parse_snapshot(results["final_snapshot"])
    assert (after.width, after.height, after.num_players, after.seed) == (32, 32, 2, 5)
    # As the engine's main: the results name the command line's map, and the total of the
    # map generated for the snapshot's parameters (before its cells replaced it).
    assert (results["map_seed"], results["map_width"], results["map_height"]) == (9, 48, 40)
    assert results["map_total_halite"] == generated_total(before, 2, Constants())
    assert results["map_total_halite"] != sum(before.cells)
    assert after.cells == before.cells
    assert sorted(after.players) == sorted(before.players) == [0, 1]
    next_ship = next_dropoff = 0
    for pid in (0, 1):
        old, new = before.players[pid], after.players[pid]
        assert (new.energy, new.factory) == (old.energy, old.factory)
        # The engine makes every ship and dropoff anew: ids in snapshot order, players in turn.
        expected_ships = []
        for _, x, y, cargo in old.ships:
            expected_ships.append((next_ship, x, y, cargo))
            next_ship += 1
        assert sorted(new.ships) == expected_ships
        expected_dropoffs = []
        for _, x, y in old.dropoffs:
            expected_dropoffs.append((next_dropoff, x, y))
            next_dropoff += 1
        assert new.dropoffs == expected_dropoffs
    # Written again from a game started from it: the same string up to those ids.
    again = game_from_snapshot(after, 2)
    assert parse_snapshot(write_snapshot(again, 2)).cells == after.cells
    assert ships_by_player(parse_snapshot(write_snapshot(again, 2))) == ships_by_player(after)


def test_a_game_plays_on_from_a_snapshot(played: str, tmp_path: Path) -> None:
    done = halite(
        "--from-snapshot", played, "--turn-limit", "25", "-i", str(tmp_path), "--results-as-json",
        *BOTS, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout)
    assert Path(results["replay"]).is_file()
    final = parse_snapshot(results["final_snapshot"])
    start = parse_snapshot(played)
    assert final.cells != start.cells  # 25 turns of mining changed the map
    assert results["stats"]["0"]["score"] == final.players[0].energy


def test_the_start_matches_a_recorded_official_game() -> None:
    games = list(iter_oracle_games(CONFORMANCE_DIR)) if CONFORMANCE_DIR.is_dir() else []
    require(games, f"Halite III conformance games under {CONFORMANCE_DIR}")
    header, turns, _ = read_oracle(games[0])
    width, height, n = header["width"], header["height"], header["num_players"]
    game = HaliteGame.create(header["seed"], n, width=width, height=height)
    cells = [v for row in header["initial_halite"] for v in row]
    record: dict[str, Any] = {}
    for record in turns[:120]:
        game.step({int(k): v for k, v in record["commands"].items()})
        for x, y, halite_left in record["cells"]:
            cells[y * width + x] = halite_left
    # The snapshot written after 120 turns holds the official engine's recorded state.
    snap = parse_snapshot(write_snapshot(game, n))
    assert snap.cells == cells
    assert [snap.players[p].energy for p in range(n)] == record["energy"]
    for pid in range(n):
        recorded = sorted((i, x, y, c) for i, o, x, y, c in record["ships"] if o == pid)
        assert sorted(snap.players[pid].ships) == recorded
        drops = [(i, x, y) for i, o, x, y in record["dropoffs"] if o == pid]
        assert snap.players[pid].dropoffs == drops
        assert list(snap.players[pid].factory) == header["players"][pid]["shipyard"]
    # A game started from it stands where the official game stood.
    started = game_from_snapshot(snap, n)
    assert started.halite == cells and started.turn == 0
    assert [p.energy for p in started.players] == record["energy"]
    for pid in range(n):
        mine = sorted((s.x, s.y, s.cargo) for s in started.players[pid].ships.values())
        assert mine == sorted((x, y, c) for _, o, x, y, c in record["ships"] if o == pid)
        for s in started.players[pid].ships.values():
            assert started.occupant[s.y * width + s.x] == s.id
        for d in started.players[pid].dropoffs:
            assert started.owner[d.y * width + d.x] == pid
    assert started.max_turns == game.max_turns


@pytest.mark.parametrize(
    ("snapshot", "bots", "line"),
    [
        (
            "1.2.1;x",
            1,
            "could not decode snapshot: Halite engine version does not match (at position 6)",
        ),
        (
            "1.2.2.finals;fractal,32,32,2,5;",
            1,
            "could not decode snapshot: Expected ; but got EOF (at position -1)",
        ),
        (
            "1.2.2.finals;fractal,2,2,1,7;1,2,3,4,;0;5;0-0,;;",
            2,
            "--from-snapshot: 2 bots but the snapshot's map is for 1 players",
        ),
        (
            "1.2.2.finals;fractal,2,2,1,7;1,2,3,4,;0;5;0-0,;0-5-5-0,;",
            1,
            "a ship of player 0 at 5-5 is off the 2x2 map",
        ),
        (
            "1.2.2.finals;fractal,2,2,1,7;1,2,3,4,;0;5;0-0,;0-1-1-0,1-1-1-0,;",
            1,
            "two ships on cell 1-1",
        ),
    ],
)
def test_bad_snapshots_are_one_error_line(
    snapshot: str, bots: int, line: str, tmp_path: Path
) -> None:
    done = halite("--from-snapshot", snapshot, "--no-replay", *BOTS[:1] * bots, cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.startswith(f"error: {line}") and done.stderr.count("\n") == 1, done.stderr


def test_write_read_write_gives_the_same_string(played: str, tmp_path: Path) -> None:
    # The engine makes ships and dropoffs anew (new ids), so a snapshot comes back the same
    # when its ids are already the ones the engine gives: counted from 0, player by player,
    # in the order listed, one ship a player (their order is a hash table's).
    start = parse_snapshot(played)
    parts = [f"1.2.2.finals;fractal,{start.width},{start.height},{start.num_players},{start.seed};"]
    parts.append("".join(f"{v}," for v in start.cells) + ";")
    ship_id = dropoff_id = 0
    for pid in sorted(start.players):
        p = start.players[pid]
        dropoffs = ""
        for _, x, y in p.dropoffs:
            dropoffs += f"{dropoff_id}-{x}-{y},"
            dropoff_id += 1
        ships = ""
        for _, x, y, cargo in p.ships[:1]:
            ships += f"{ship_id}-{x}-{y}-{cargo},"
            ship_id += 1
        parts.append(f"{pid};{p.energy};{p.factory[0]}-{p.factory[1]},{dropoffs};{ships};")
    text = "".join(parts)
    assert ship_id == 2  # both players have a ship after 40 turns
    done = halite(
        "--from-snapshot", text, "--turn-limit", "0", "--no-replay", "--results-as-json",
        *BOTS, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["final_snapshot"] == text
    # And in process: read, start, write.
    assert write_snapshot(game_from_snapshot(parse_snapshot(text), 2), 2) == text


# -- the replay of a game started from a snapshot ------------------------------------------


def reread(document: dict[str, Any]) -> HltReplay:
    """``document`` written as a replay file and read back."""
    return read_hlt(encode_hlt(document, compress=False))


def test_a_snapshot_games_replay_is_the_engines_and_verifies(played: str, tmp_path: Path) -> None:
    done = halite(
        "--from-snapshot", played, "--turn-limit", "20", "-i", str(tmp_path), "--results-as-json",
        *BOTS, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    replay = read_hlt(json.loads(done.stdout)["replay"])
    snap = parse_snapshot(played)
    doc = replay.document
    # As the engine's main: the header's map is the one generated for the snapshot's
    # parameters, before initialize_game put the snapshot's cells in.
    generated = generate_map(5, 32, 32, 2)
    assert replay.initial_grid == [list(row) for row in generated.halite]
    assert doc["game_statistics"]["map_total_halite"] == sum(map(sum, generated.halite))
    # One statistic in the engine, so the results say the same.
    assert json.loads(done.stdout)["map_total_halite"] == sum(map(sum, generated.halite))
    first = doc["full_frames"][0]
    # Frame 0: every cell once, with the snapshot's halite (shipyards emptied) ...
    assert len(first["cells"]) == 32 * 32
    yards = {snap.players[p].factory for p in (0, 1)}
    assert {(c["x"], c["y"]) for c in first["cells"]} == {
        (x, y) for x in range(32) for y in range(32)
    }
    for c in first["cells"]:
        want = 0 if (c["x"], c["y"]) in yards else snap.cells[c["y"] * 32 + c["x"]]
        assert c["production"] == want
    assert replay.grid_at(0) == [
        [0 if (x, y) in yards else snap.cells[y * 32 + x] for x in range(32)] for y in range(32)
    ]
    # ... the snapshot's energy, a construct per dropoff (id 0) then a spawn per ship (new
    # ids, the cargo as energy), player by player, and no entities.
    assert first["energy"] == {str(p): snap.players[p].energy for p in (0, 1)}
    assert first["entities"] == {} and first["moves"] == {}
    expected_events: list[dict[str, Any]] = []
    next_ship = 0
    for pid in (0, 1):
        for _, x, y in snap.players[pid].dropoffs:
            expected_events.append(
                {"id": 0, "location": {"x": x, "y": y}, "owner_id": pid, "type": "construct"}
            )
        for _, x, y, cargo in snap.players[pid].ships:
            expected_events.append(
                {"energy": cargo, "id": next_ship, "location": {"x": x, "y": y},
                 "owner_id": pid, "type": "spawn"}
            )  # fmt: skip
            next_ship += 1
    assert first["events"] == expected_events
    assert any(e["type"] == "spawn" for e in expected_events)
    # The header's players: the snapshot's shipyards, energy and ships (id, place).
    for pid in (0, 1):
        player = doc["players"][pid]
        assert player["energy"] == snap.players[pid].energy
        assert (player["factory_location"]["x"], player["factory_location"]["y"]) == (
            snap.players[pid].factory
        )
        assert sorted((loc["x"], loc["y"]) for _, loc in player["entities"]) == sorted(
            (x, y) for _, x, y, _ in snap.players[pid].ships
        )
    # What the viewer and the exporter read at turn 0: the snapshot's ships and dropoffs.
    assert ships_by_player(snap) == {
        pid: sorted((s.x, s.y, s.halite) for s in replay.ships_at(0).values() if s.owner == pid)
        for pid in (0, 1)
    }
    assert [(d.owner, d.x, d.y) for d in replay.dropoffs_at(0)] == [
        (pid, x, y) for pid in (0, 1) for _, x, y in snap.players[pid].dropoffs
    ]
    report = verify_hlt(replay)
    assert report.ok, report.message
    assert report.message == f"OK: {replay.turns_played} turns, the same map, frames and ranks"
    assert 1 <= replay.turns_played <= 20
    # Through the command line as well.
    verified = subprocess.run(
        [*MAIN, "replay", "verify", json.loads(done.stdout)["replay"]],
        capture_output=True, text=True, timeout=280,
    )  # fmt: skip
    assert verified.returncode == 0, verified.stdout + verified.stderr


def snapshot_game_with_a_dropoff(played: str) -> tuple[HaliteSnapshot, dict[str, Any]]:
    """The played snapshot with a dropoff added, started and played 6 turns, no commands."""
    snap = parse_snapshot(played)
    taken = {snap.players[p].factory for p in (0, 1)} | {
        (x, y) for p in (0, 1) for _, x, y, _ in snap.players[p].ships
    }
    spot = next((x, 3) for x in range(32) if (x, 3) not in taken)
    snap.players[1].dropoffs.append((7, *spot))
    game = game_from_snapshot(snap, 2, turn_limit=6)
    while not game.over:
        game.step({0: "", 1: ""})
    return snap, replay_document(game, ["a", "b"])


def test_a_snapshots_dropoffs_are_in_frame_0_and_the_replay_verifies(played: str) -> None:
    snap, document = snapshot_game_with_a_dropoff(played)
    replay = reread(document)
    (dropoff_spot,) = [(x, y) for _, x, y in snap.players[1].dropoffs]
    constructs = [e for e in document["full_frames"][0]["events"] if e["type"] == "construct"]
    assert constructs[-1] == {
        "id": 0, "location": dict(zip("xy", dropoff_spot, strict=True)), "owner_id": 1,
        "type": "construct",
    }  # fmt: skip
    assert (1, *dropoff_spot) in [(d.owner, d.x, d.y) for d in replay.dropoffs_at(0)]
    report = verify_hlt(replay)
    assert report.ok, report.message
    # Cells in the engine's hash-table order: no "(not in the official engine's order)".
    assert report.message == "OK: 6 turns, the same map, frames and ranks"


def tampered(document: dict[str, Any], change: Any) -> HltReplay:
    copy = json.loads(json.dumps(document))
    change(copy)
    return reread(copy)


def _cargo(d: dict[str, Any]) -> None:
    spawn = next(e for e in d["full_frames"][0]["events"] if e["type"] == "spawn")
    spawn["energy"] += 1


def _drop_ship(d: dict[str, Any]) -> None:
    events = d["full_frames"][0]["events"]
    events.remove(next(e for e in events if e["type"] == "spawn"))


def _cell(d: dict[str, Any]) -> None:
    # The cell under a ship, which mines it on turn 1: a cell no ship ever touches is only
    # the snapshot's, with nothing later to check it against.
    spawn = next(e for e in d["full_frames"][0]["events"] if e["type"] == "spawn")
    cell = next(
        c
        for c in d["full_frames"][0]["cells"]
        if c["x"] == spawn["location"]["x"] and c["y"] == spawn["location"]["y"]
    )
    cell["production"] += 400


def _generated(d: dict[str, Any]) -> None:
    d["production_map"]["grid"][4][4]["energy"] += 1


def _energy(d: dict[str, Any]) -> None:
    d["full_frames"][0]["energy"]["0"] += 1000


def _event(d: dict[str, Any]) -> None:
    d["full_frames"][0]["events"].append(
        {"type": "shipwreck", "location": {"x": 0, "y": 0}, "ships": [0, 1]}
    )


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (_cargo, "turn 1: ships at the start differs"),
        (_drop_ship, "turn 0: events differs"),
        (_cell, "turn 1: changed cells differs"),
        (_generated, "the map generated from the seed differs from the replay's"),
        (_energy, "turn 1: energy differs"),
        (_event, "turn 0: the snapshot it started from: a 'shipwreck' event in frame 0"),
    ],
    ids=["cargo", "ship", "cell", "generated-map", "energy", "event"],
)
def test_a_tampered_snapshot_replay_fails_verification(
    played: str, change: Any, message: str
) -> None:
    _, document = snapshot_game_with_a_dropoff(played)
    report = verify_hlt(tampered(document, change))
    assert not report.ok
    assert report.message.startswith(message), report.message


def test_a_new_games_replay_has_an_empty_frame_0_and_still_verifies() -> None:
    game = HaliteGame.create(5, 2, width=32, height=32, turn_limit=5)
    while not game.over:
        game.step({0: "g", 1: ""})
    document = replay_document(game, ["a", "b"])
    first = document["full_frames"][0]
    assert (first["cells"], first["events"], first["entities"]) == ([], [], {})
    assert first["energy"] == {"0": 5000, "1": 5000}
    assert [p["energy"] for p in document["players"]] == [5000, 5000]
    assert all(p["entities"] == [] for p in document["players"])
    replay = reread(document)
    assert replay.ships_at(0) == {} and replay.dropoffs_at(0) == []
    assert replay.grid_at(0) == game.initial_halite
    assert verify_hlt(replay).ok


def test_an_official_replay_still_verifies() -> None:
    path = SHIPPED_HALITE_REPLAYS / "public-s100208-32x32-2p.hlt"
    require(path, f"the official replay {path.name}")
    report = verify_hlt(read_hlt(path))
    assert report.ok, report.message


def test_the_export_draws_a_snapshot_games_ships_and_dropoffs_at_turn_0(played: str) -> None:
    from snakewar.games.halite3.media import cell_size, draw_frame
    from snakewar.media import Circle, Polygon

    snap, document = snapshot_game_with_a_dropoff(played)
    replay = reread(document)
    c = cell_size(replay.width, replay.height)
    shapes = draw_frame(replay, 0).shapes
    centres = {(s.cx, s.cy) for s in shapes if isinstance(s, Circle)}
    ships = [(x, y) for p in (0, 1) for _, x, y, _ in snap.players[p].ships]
    assert ships and centres == {(x * c + c / 2, y * c + c / 2) for x, y in ships}
    # A dropoff is a diamond whose top corner is above its cell's centre.
    tops = {s.points[0] for s in shapes if isinstance(s, Polygon)}
    for _, x, y in snap.players[1].dropoffs:
        assert any(tx == x * c + c / 2 and y * c <= ty < y * c + c / 2 for tx, ty in tops)
