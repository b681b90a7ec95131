"""``snakewar play`` end to end: URLs and built-ins, outputs, reproducibility, batches."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from snakewar.cli import main
from snakewar.games.battlesnake.replay.format import read_replay
from snakewar.games.battlesnake.replay.verify import verify_replay
from snakewar.games.battlesnake.rules.wire import api_schema
from tests.games.battlesnake.referee.snake_servers import SnakeServers

REQUEST = jsonschema.Draft202012Validator(
    {"$ref": "#/$defs/SnakeRequest", "$defs": api_schema()["$defs"]}
)


@pytest.fixture(scope="module")
def servers() -> Iterator[SnakeServers]:
    with SnakeServers() as running:
        yield running


def without_timing(path: Path) -> list[Any]:
    """The replay's lines with the run-dependent fields removed: what was measured, and
    the game's id (each game gets its own)."""
    out = []
    for line in path.read_text().splitlines():
        data = json.loads(line)
        for key in ("created", "latency", "id"):
            data.pop(key, None)
        for key in ("start", "end"):
            if isinstance(data.get(key), dict):
                for outcome in data[key].values():
                    outcome.pop("latency", None)
                    outcome.pop("latency_ms", None)
        out.append(data)
    return out


def test_same_seed_same_snakes_give_identical_replays(
    servers: SnakeServers, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    snakes = [servers.url("good"), "builtin:random", servers.url("good2"), "random"]
    paths = [tmp_path / "a.jsonl", tmp_path / "b.jsonl"]
    # A move that times out on a busy machine is a different game, so the
    # snakes get a timeout no loaded machine reaches: the test is about seeds.
    for path in paths:
        args = ["play", "-r", "77", "-t", "60000", "--no-live", "--replay", str(path)]
        assert main([*args, *snakes]) == 0
    first, second = (without_timing(p) for p in paths)
    assert first == second
    assert len(first) > 3
    out = capsys.readouterr().out
    assert "seed 77" in out and "Game completed after" in out
    record = read_replay(paths[0])
    report = verify_replay(record)
    assert report.ok, report
    assert main(["replay", "verify", str(paths[0])]) == 0


def test_output_is_the_official_cli_jsonl(servers: SnakeServers, tmp_path: Path) -> None:
    out = tmp_path / "game.jsonl"
    code = main(
        [
            "play",
            "-r",
            "5",
            "--no-live",
            "-o",
            str(out),
            "-n",
            "alpha",
            servers.url("good"),
            "random",
        ]
    )
    assert code == 0
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    game, requests, result = lines[0], lines[1:-1], lines[-1]
    assert set(game) == {"id", "ruleset", "map", "timeout", "source"}
    assert game["ruleset"]["version"] == "cli"
    assert [r["turn"] for r in requests] == list(range(len(requests)))
    for request in requests:
        REQUEST.validate(request)
    assert set(result) == {"winnerId", "winnerName", "isDraw"}
    names = {s["name"] for s in requests[0]["board"]["snakes"]}
    assert "alpha" in names


def test_batch_prints_rates_and_writes_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "results.json"
    replays = tmp_path / "replays"
    replays.mkdir()
    code = main(
        [
            "play", "random", "random", "-r", "100", "--games", "6", "--workers", "2",
            "--json", str(out), "--replay-dir", str(replays), "-W", "7", "-H", "7",
        ]
    )  # fmt: skip
    assert code == 0
    data = json.loads(out.read_text())
    assert data["games"] == 6 and data["first_seed"] == 100
    seats = data["seats"]
    assert len(seats) == 2
    for seat in seats:
        assert seat["games"] == 6
        assert seat["wins"] + seat["draws"] + seat["losses"] + seat["unfinished"] == 6
        lo, hi = seat["win_rate_ci95"]
        assert 0 <= lo <= seat["win_rate"] <= hi <= 1
        assert set(seat["latency_ms"]) == {"p50", "p95", "max"}
    assert seats[0]["wins"] + seats[1]["wins"] + data["draws"] == 6
    files = sorted(replays.iterdir())
    assert [f.name for f in files] == [f"game-{s}.jsonl" for s in range(100, 106)]
    assert all(verify_replay(read_replay(f)).ok for f in files)
    assert "games/min" in capsys.readouterr().out


def test_batch_results_do_not_depend_on_workers(tmp_path: Path) -> None:
    results: list[list[tuple[int, ...]]] = []
    for workers in ("1", "2"):
        out = tmp_path / f"w{workers}.json"
        args = ["play", "random", "random", "random", "-r", "9", "--games", "4"]
        assert main([*args, "--workers", workers, "--json", str(out)]) == 0
        data = json.loads(out.read_text())
        results.append([(s["wins"], s["draws"], s["losses"]) for s in data["seats"]])
    assert results[0] == results[1]


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["play", "-W", "3", "-H", "3", *["random"] * 6], "6 snakes on a 3x3 board"),
        (["play", "-W", "0", "random"], "board width 0"),
        (["play", *["random"] * 17], "17 snakes"),
        (["play", "-o", "/nonexistent-dir/x.jsonl", "random"], "/nonexistent-dir"),
        (["play", "--replay", "/", "random"], "is a directory"),
        (["play", "http://127.0.0.1:9/", "random"], "127.0.0.1:9"),
        (["play", "http://", "random"], "malformed"),
        (["play", "builtin:nobody"], "unknown built-in bot 'nobody'"),
        (["play", "random", "--games", "0"], "'--games': 0: expected at least 1"),
        (["play", "-n", "a", "-n", "b", "random"], "2 names given for 1 snakes"),
    ],
)
def test_bad_input_is_one_clear_line(
    args: list[str], needle: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and needle in err[0], err


@pytest.mark.slow
@pytest.mark.ray
def test_batch_on_ray_matches_the_local_batch(tmp_path: Path) -> None:
    import subprocess
    import sys

    results: list[list[tuple[float, ...]]] = []
    for extra in ([], ["--ray-address", "local"]):
        out = tmp_path / f"r{len(results)}.json"
        args = ["play", "random", "greedy", "-r", "11", "--games", "12", "-W", "7", "-H", "7"]
        done = subprocess.run(
            [sys.executable, "-m", "snakewar", *args, *extra, "--json", str(out)],
            capture_output=True,
            text=True,
            timeout=180,
        )
        assert done.returncode == 0, done.stderr
        data = json.loads(out.read_text())
        results.append(
            [(s["wins"], s["draws"], s["losses"], s["mean_length"]) for s in data["seats"]]
        )
    assert results[0] == results[1]
