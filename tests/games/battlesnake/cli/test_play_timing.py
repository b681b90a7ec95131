"""``snakewar play --time-bank MS --retry-timeout``: the unofficial timing rules from the CLI."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from snakewar.cli import main
from snakewar.games.battlesnake.records import CallStatus, TimingRules
from snakewar.games.battlesnake.replay.format import read_replay
from tests.games.battlesnake.referee.snake_servers import SnakeServers


@pytest.fixture(scope="module")
def servers() -> Iterator[SnakeServers]:
    with SnakeServers() as running:
        yield running


def test_a_bank_from_the_command_line_keeps_a_slow_snakes_moves(
    servers: SnakeServers, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    replay = tmp_path / "game.jsonl"
    args = ["play", servers.url("sluggish"), servers.url("good"), "-t", "200", "-r", "4"]
    args += ["--max-turns", "2", "--no-live", "--replay", str(replay), "--json", "-"]
    assert main([*args, "--time-bank", "2000", "--retry-timeout"]) == 0
    record = read_replay(replay)
    assert record.timing == TimingRules(2000, True)
    slow = record.snakes[0].id
    assert [t.calls[slow].status for t in record.turns] == [CallStatus.OK] * 2
    # The summary says the timing was not the official one, and how to play it again.
    said = capsys.readouterr()
    words = " ".join((said.err + said.out).split())  # the console wraps long lines
    assert "unofficial timing: bank 2000 ms, retry on timeout" in words
    assert "snakewar play -r 4 --time-bank 2000 --retry-timeout ..." in words
    assert main(["replay", "verify", str(replay)]) == 0

    assert main(args) == 0
    record = read_replay(replay)
    assert record.timing.official
    assert [t.calls[slow].status for t in record.turns] == [CallStatus.TIMEOUT] * 2
    assert "timing" not in json.loads(replay.read_text().splitlines()[0])


@pytest.mark.parametrize(
    ("bank", "message"),
    [
        ("2001", "error: --time-bank 2001: timeBank: 2001 ms is more than 10 timeouts of 200 ms"),
        ("-1", "error: --time-bank -1: expected 0 or more milliseconds"),
    ],
)
def test_a_bad_bank_is_one_error_line(
    bank: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["play", "random", "random", "-t", "200", "--time-bank", bank]) == 2
    err = capsys.readouterr().err
    assert err.startswith(message) and "Traceback" not in err


def test_a_batch_and_a_verbose_game_keep_the_timing_rules(
    servers: SnakeServers, tmp_path: Path
) -> None:
    # A batch passes them to every game it plays.
    games = tmp_path / "games"
    args = ["play", "random", "random", "-t", "200", "--games", "2", "--max-turns", "2"]
    assert main([*args, "--time-bank", "900", "--replay-dir", str(games)]) == 0
    replays = sorted(games.glob("game-*.jsonl"))
    assert len(replays) == 2
    assert all(read_replay(p).timing == TimingRules(900, False) for p in replays)
    # --verbose logs each call through its own client: the bank still lengthens the deadline.
    replay = tmp_path / "verbose.jsonl"
    args = ["play", servers.url("sluggish"), "random", "-t", "200", "--max-turns", "1"]
    assert (
        main([*args, "--no-live", "--verbose", "--time-bank", "2000", "--replay", str(replay)]) == 0
    )
    record = read_replay(replay)
    call = record.turns[0].calls[record.snakes[0].id]
    assert call.status is CallStatus.OK and call.bank_ms is not None and call.bank_ms < 2000
