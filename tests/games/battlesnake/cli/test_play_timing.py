"""``snakewar play --time-bank MS --retry-timeout``: the unofficial timing rules from the CLI."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import jsonschema
import pytest

from snakewar.cli import main
from snakewar.games.battlesnake.records import CallStatus, TimingRules
from snakewar.games.battlesnake.replay.format import read_replay
from snakewar.games.battlesnake.rules.wire import api_schema
from tests.games.battlesnake.referee.snake_servers import SnakeServers

REQUEST = jsonschema.Draft202012Validator(
    {"$ref": "#/$defs/SnakeRequest", "$defs": api_schema()["$defs"]}
)
"""The API's strict request shape, which every line between the first and last of the
official CLI's JSONL is."""


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


def test_replay_show_gives_the_timing_and_the_official_jsonl_stays_official(
    servers: SnakeServers,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("COLUMNS", "200")  # the table's cells on one line each
    # A 1 s timeout and a 6 s bank, each reply seconds away from its deadline: "first"
    # answers after 3 s each turn (drawing about 2 s); "late" after 5 s, so it draws about
    # 4 s on turn 0, then times out on turn 1 (its bank cannot cover 5 s), and its retry too.
    replay, official = tmp_path / "game.jsonl", tmp_path / "official.jsonl"
    args = ["play", servers.url("slowfirst"), servers.url("late"), "-n", "first", "-n"]
    args += ["late", "-t", "1000", "-r", "4", "--max-turns", "2", "--no-live"]
    args += ["--time-bank", "6000", "--retry-timeout", "--replay", str(replay)]
    assert main([*args, "-o", str(official)]) == 0
    err = capsys.readouterr().err
    assert f"note: {official} (the official CLI's JSONL) cannot record the unofficial " in err
    record = read_replay(replay)
    first, late = (e.id for e in record.snakes)
    (first0, late0), (first1, late1) = ((t.calls[first], t.calls[late]) for t in record.turns)
    assert first0.ok and first1.ok and late0.ok and late0.first_try is None
    assert late1.status is CallStatus.TIMEOUT and late1.first_try is not None
    assert first0.bank_ms is not None and first1.bank_ms is not None
    assert late0.bank_ms is not None and late1.bank_ms == 0

    def shown(*options: str) -> list[str]:
        capsys.readouterr()
        assert main(["replay", "show", str(replay), *options]) == 0
        return capsys.readouterr().out.splitlines()

    # Each turn: the rules under its turn line, and each snake's marks in its column.
    marks = {}
    for turn in (1, 2):
        lines = shown("--turn", str(turn))
        assert lines[1] == "timing (NOT the official rules): bank 6000 ms, retry on timeout"
        head = [cell.strip() for cell in next(line for line in lines if "┃" in line).split("┃")]
        for line in lines:
            cells = [c.strip() for c in line.split("│")]
            if len(cells) == len(head):
                marks[turn, cells[1]] = dict(zip(head, cells, strict=True))["timing"]
    assert marks == {
        (1, "first"): f"bank -{6000 - first0.bank_ms} ms ({first0.bank_ms} left)",
        (1, "late"): f"bank -{6000 - late0.bank_ms} ms ({late0.bank_ms} left)",
        (2, "first"): f"bank -{first0.bank_ms - first1.bank_ms} ms ({first1.bank_ms} left)",
        (2, "late"): f"timed out, retried, bank -{late0.bank_ms} ms (0 left)",
    }
    # The summary: the rules, and per snake its late, retried and timed-out moves.
    lines = shown("--no-interactive")
    at = lines.index("timing (NOT the official rules): bank 6000 ms, retry on timeout", 2)
    assert lines[at + 1 :] == [
        f"  first: 2 late (drawn from its bank), bank {first1.bank_ms} ms left",
        "  late: 1 timed out, 1 retried, 1 late (drawn from its bank), bank 0 ms left",
    ]

    # The official JSONL: the official CLI's lines exactly, with no timing anywhere.
    lines_out = [json.loads(line) for line in official.read_text().splitlines()]
    game, requests, result = lines_out[0], lines_out[1:-1], lines_out[-1]
    assert set(game) == {"id", "ruleset", "map", "timeout", "source"}
    for request in requests:
        REQUEST.validate(request)
    assert set(result) == {"winnerId", "winnerName", "isDraw"}
    assert "imeBank" not in official.read_text() and "etried" not in official.read_text()
    # So replay show has no timing for it, and a game under the official timing none.
    capsys.readouterr()
    assert main(["replay", "show", str(official), "--turn", "1"]) == 0
    assert "timing" not in capsys.readouterr().out
    plain = tmp_path / "plain.jsonl"
    args = ["play", "random", "random", "-r", "4", "--max-turns", "2", "--no-live"]
    assert main([*args, "--replay", str(plain), "-o", str(tmp_path / "o.jsonl")]) == 0
    assert "note:" not in capsys.readouterr().err
    assert main(["replay", "show", str(plain), "--turn", "1"]) == 0
    assert "timing" not in capsys.readouterr().out
