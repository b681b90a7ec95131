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
from snakewar.games.halite3.rules.snapshot import (
    HaliteSnapshot,
    SnapshotError,
    game_from_snapshot,
    generated_total,
    parse_snapshot,
    write_snapshot,
)
from snakewar.games.halite3.testing.conformance import iter_oracle_games, read_oracle
from tests.conformance_data import require
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
