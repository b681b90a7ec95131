"""``snakewar play --from REPLAY --turn N`` and ``--from-position``: forks of any turn."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from snakewar.cli import main
from snakewar.games.battlesnake.position import position_json
from snakewar.games.battlesnake.replay.format import load_replay, read_replay
from snakewar.games.battlesnake.replay.official import read_official_jsonl
from snakewar.games.battlesnake.replay.verify import verify_replay
from snakewar.games.battlesnake.rules.wire import GameInfo, request_to_api
from snakewar.replay import ReplayError

# Deterministic built-in bots: a depth-limited hunter (a time budget would make its moves
# depend on the machine's speed), greedy and random (their randomness: snake id and turn).
BOTS = ["builtin:hunter?depth=2", "builtin:greedy", "builtin:random", "builtin:random"]


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def turn_lines(path: Path) -> dict[int, dict[str, Any]]:
    return {line["turn"]: line for line in lines(path) if "turn" in line}


@pytest.fixture(scope="module")
def original(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("fork") / "original.jsonl"
    assert main(["play", *BOTS, "-r", "5", "-t", "60000", "--no-live", "--replay", str(path)]) == 0
    assert len(turn_lines(path)) > 30  # a game long enough to fork in its middle
    return path


@pytest.mark.parametrize("where", ["first", "middle", "late"])
def test_a_fork_with_the_same_snakes_continues_identically(
    original: Path, tmp_path: Path, where: str
) -> None:
    before = turn_lines(original)
    last = max(before) + 1
    turn = {"first": 0, "middle": last // 2, "late": last - 3}[where]
    fork = tmp_path / "fork.jsonl"
    # No snakes given: the replay's own, in their seats, with its seed and settings.
    args = ["play", "--from", str(original), "--turn", str(turn), "--no-live"]
    assert main([*args, "-t", "60000", "--replay", str(fork)]) == 0
    header, after = lines(fork)[0], turn_lines(fork)
    first = lines(original)[0]
    assert header["forked_from"] == {"game": first["id"], "turn": turn}
    assert [s["id"] for s in header["snakes"]] == [s["id"] for s in first["snakes"]]
    assert [s["source"] for s in header["snakes"]] == [s["source"] for s in first["snakes"]]
    start = first["initial"] if turn == 0 else before[turn - 1]["state"]
    assert header["initial"] == start
    # Every turn from N on: the same moves and the same boards, to the same end.
    assert sorted(after) == [t for t in sorted(before) if t >= turn]
    for t, line in after.items():
        assert line["moves"] == before[t]["moves"], t
        assert line["state"] == before[t]["state"], t
    assert lines(fork)[-1]["result"]["winner"] == lines(original)[-1]["result"]["winner"]
    # The fork replays: verified from its own starting board.
    replay = load_replay(fork)
    assert replay.record.forked_from == {"game": first["id"], "turn": turn}
    report = verify_replay(replay)
    assert report.ok, report
    assert main(["replay", "verify", str(fork)]) == 0


def test_a_forked_replay_that_was_tampered_with_fails_verification(
    original: Path, tmp_path: Path
) -> None:
    fork = tmp_path / "fork.jsonl"
    assert (
        main(["play", "--from", str(original), "--turn", "10", "--no-live", "--replay", str(fork)])
        == 0
    )
    data = lines(fork)
    data[3]["state"]["food"].append([0, 0] if [0, 0] not in data[3]["state"]["food"] else [1, 0])
    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join(json.dumps(d) + "\n" for d in data))
    report = verify_replay(read_replay(bad))
    assert not report.ok and report.turn == 13, report


def test_given_snakes_replace_the_seats(original: Path, tmp_path: Path) -> None:
    fork = tmp_path / "fork.jsonl"
    args = ["play", "--from", str(original), "--turn", "12", "--no-live", "--replay", str(fork)]
    assert main([*args, "random", "random", "greedy", "random", "-n", "r1"]) == 0
    header = lines(fork)[0]
    first = lines(original)[0]
    assert [s["source"] for s in header["snakes"]] == [
        "builtin:random",
        "builtin:random",
        "builtin:greedy",
        "builtin:random",
    ]
    assert header["snakes"][0]["name"] == "r1"
    # The same seed and seat count: the same ids, and the board of turn 12.
    assert [s["id"] for s in header["snakes"]] == [s["id"] for s in first["snakes"]]
    assert header["initial"] == turn_lines(original)[11]["state"]
    assert verify_replay(read_replay(fork)).ok


def test_another_seed_renames_the_seats(original: Path, tmp_path: Path) -> None:
    fork = tmp_path / "fork.jsonl"
    args = ["play", "--from", str(original), "--turn", "12", "-r", "99", "--no-live"]
    assert main([*args, "--replay", str(fork)]) == 0
    header = lines(fork)[0]
    before = turn_lines(original)[11]["state"]
    ids = [s["id"] for s in header["snakes"]]
    assert ids != [s["id"] for s in lines(original)[0]["snakes"]]
    assert header["config"]["seed"] == 99
    # Same board, seat by seat, under the new game's ids.
    assert [s["body"] for s in header["initial"]["snakes"]] == [s["body"] for s in before["snakes"]]
    assert [s["id"] for s in header["initial"]["snakes"]] == ids
    assert verify_replay(read_replay(fork)).ok


def test_fork_of_an_official_cli_file(tmp_path: Path) -> None:
    official = tmp_path / "official.jsonl"
    assert main(["play", *BOTS, "-r", "8", "--no-live", "-o", str(official)]) == 0
    frames = read_official_jsonl(official).frames
    alive = len(frames[6].state.snakes)
    fork = tmp_path / "fork.jsonl"
    args = ["play", "--from", str(official), "--turn", "6", "--no-live", "--replay", str(fork)]
    assert main([*args, *["random"] * alive]) == 0
    header = lines(fork)[0]
    assert header["initial"]["turn"] == 6
    assert [s["body"] for s in header["initial"]["snakes"]] == [
        [[p.x, p.y] for p in s.body] for s in frames[6].state.snakes
    ]
    assert header["forked_from"]["turn"] == 6
    assert verify_replay(read_replay(fork)).ok


def test_from_position_reads_a_move_request_body(original: Path, tmp_path: Path) -> None:
    record = read_replay(original)
    state = record.turns[7].after  # the board of turn 8
    you = state.snakes[0].id
    body = request_to_api(GameInfo("some-game", ruleset_name="standard"), state, you)
    position = tmp_path / "move.json"
    position.write_text(json.dumps(body))
    alive = len(body["board"]["snakes"])
    fork = tmp_path / "fork.jsonl"
    args = ["play", "--from-position", str(position), "-r", "3", "--no-live"]
    assert main([*args, "--replay", str(fork), *["random"] * alive]) == 0
    header = lines(fork)[0]
    assert header["forked_from"] == {}
    assert header["initial"]["turn"] == 8
    assert [s["body"] for s in header["initial"]["snakes"]] == [
        [[p["x"], p["y"]] for p in s["body"]] for s in body["board"]["snakes"]
    ]
    assert verify_replay(read_replay(fork)).ok


def test_from_position_reads_its_own_saved_file(original: Path, tmp_path: Path) -> None:
    from snakewar.games.battlesnake.position import Position

    record = read_replay(original)
    state = record.turns[4].after
    saved = tmp_path / "position.json"
    saved.write_text(json.dumps(position_json(Position(state, ("a", "b", "c", "d")))))
    fork = tmp_path / "fork.jsonl"
    args = ["play", "--from-position", str(saved), "--no-live", "--replay", str(fork)]
    assert main([*args, *["random"] * len(state.snakes)]) == 0
    header = lines(fork)[0]
    assert [s["name"] for s in header["snakes"]] == ["random-1", "random-2", "random-3", "random-4"]
    assert header["initial"]["turn"] == 5


def _position_file(tmp_path: Path, body: Any) -> str:
    path = tmp_path / "p.json"
    path.write_text(json.dumps(body))
    return str(path)


def _board(**changes: Any) -> dict[str, Any]:
    board: dict[str, Any] = {
        "width": 7,
        "height": 7,
        "food": [{"x": 1, "y": 1}],
        "hazards": [],
        "snakes": [
            {"id": "a", "health": 90, "body": [{"x": 2, "y": 2}, {"x": 2, "y": 3}]},
            {"id": "b", "health": 90, "body": [{"x": 5, "y": 5}, {"x": 5, "y": 4}]},
        ],
    }
    board.update(changes)
    return board


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--turn", "999"], "'--turn': 999: the game has turns 0 to"),
        (["--turn", "-1"], "'--turn': -1: the game has turns 0 to"),
        (["random", "random"], "2 snakes given for the 4 seats of the position"),
        (["-W", "19"], "'--width': 19: the position's board is 11x11"),
    ],
)
def test_bad_fork_options_are_one_clear_line(
    original: Path, args: list[str], needle: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["play", "--from", str(original), "--no-live", *args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and needle in err[0], err


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        (
            _board(food=[{"x": 7, "y": 1}]),
            "food[0].x: 7 is out of range (expected 0..6)",
        ),
        (
            _board(snakes=[{"id": f"s{i}", "body": [{"x": 0, "y": 0}]} for i in range(17)]),
            "snakes: 17 items: at most 16",
        ),
        (
            _board(snakes=[{"id": "a", "health": 50, "body": [{"x": 1, "y": 1}] * 50}]),
            "snakes[0].body: 50 items: at most 49",
        ),
        (
            _board(snakes=[{"id": "a", "health": 500, "body": [{"x": 1, "y": 1}]}]),
            "snakes[0].health: 500 is out of range (expected 1..100)",
        ),
        ({"board": _board(width=100000)}, "board.width: 100000 is out of range"),
        ({"hello": 1}, "expected a Snakewar position"),
    ],
)
def test_bad_position_files_name_the_field(
    tmp_path: Path, body: Any, needle: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _position_file(tmp_path, body)
    assert main(["play", "--from-position", path, "--no-live", "random", "random"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and needle in err[0], err


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--turn", "3", "random"], "'--turn': is a turn of --from REPLAY; add --from"),
        (["--from", "/nonexistent/x.jsonl", "random"], "/nonexistent/x.jsonl"),
        (["--from-position", "/nonexistent/p.json", "random"], "cannot read '/nonexistent/p.json'"),
    ],
)
def test_bad_fork_sources_are_one_clear_line(
    args: list[str], needle: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["play", "--no-live", *args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and needle in err[0], err


def test_an_official_file_needs_its_snakes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    official = tmp_path / "official.jsonl"
    assert main(["play", "random", "random", "-r", "4", "--no-live", "-o", str(official)]) == 0
    capsys.readouterr()
    assert main(["play", "--from", str(official), "--turn", "1", "--no-live"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "does not say which snakes played: give 2 snakes" in err[0], err


def test_replay_header_forked_from_is_checked(original: Path, tmp_path: Path) -> None:
    data = lines(original)
    data[0]["forked_from"] = {"game": 3, "turn": "x"}
    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join(json.dumps(d) + "\n" for d in data))
    with pytest.raises(ReplayError, match="forked_from"):
        load_replay(bad)
    # A replay without it (every older one) reads as a game set up from its seed.
    assert read_replay(original).forked_from is None


def test_a_fork_in_the_browser_runs_on_the_local_server(original: Path, tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    from fastapi.testclient import TestClient

    from snakewar.server import ServerConfig, create_app

    env = {
        **os.environ,
        "SNAKEWAR_DATABASE_URL": f"sqlite:///{tmp_path / 'games.db'}",
        "BROWSER": "true",  # webbrowser runs `true URL`: nothing opens
    }
    play = [sys.executable, "-m", "snakewar", "play", "--from", str(original), "--turn", "10"]
    out = subprocess.run(
        [*play, "-t", "2000", "--browser", "--exit-at-end"],
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    first = lines(original)[0]
    with TestClient(
        create_app(ServerConfig(database_url=env["SNAKEWAR_DATABASE_URL"])),
        base_url="http://localhost",
    ) as client:
        game = client.get("/api/games").json()["games"][0]
        header = json.loads(client.get(f"/api/games/{game['id']}/replay").text.splitlines()[0])
    assert header["forked_from"] == {"game": first["id"], "turn": 10}
    assert header["initial"] == turn_lines(original)[9]["state"]


def test_a_fork_keeps_the_games_unofficial_timing_unless_told(tmp_path: Path) -> None:
    timed = tmp_path / "timed.jsonl"
    args = ["play", "random", "random", "-r", "4", "--no-live", "--max-turns", "8"]
    assert main([*args, "--time-bank", "900", "--retry-timeout", "--replay", str(timed)]) == 0
    assert lines(timed)[0]["timing"] == {"timeBank": 900, "retryTimeout": True}
    kept, changed = tmp_path / "kept.jsonl", tmp_path / "changed.jsonl"
    fork = ["play", "--from", str(timed), "--turn", "5", "--no-live", "--replay"]
    assert main([*fork, str(kept)]) == 0
    assert lines(kept)[0]["timing"] == {"timeBank": 900, "retryTimeout": True}
    assert main([*fork, str(changed), "--time-bank", "0"]) == 0
    assert lines(changed)[0]["timing"] == {"retryTimeout": True}
