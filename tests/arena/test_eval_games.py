"""``snakewar eval`` with real games: an SPRT that stops early, one that does not accept."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from snakewar.adapters import get_game
from snakewar.arena.config import MatchConfig
from snakewar.arena.evalstats import Sprt
from snakewar.arena.evaluation import EvalError, run_eval, seatings
from snakewar.arena.executors import InProcessExecutor


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "snakewar", *args],
        capture_output=True,
        text=True,
        timeout=900,
        cwd=cwd,
        env={**os.environ, "COLUMNS": "160", "PYTHONIOENCODING": "utf-8"},
    )


def test_seatings_cover_every_permutation() -> None:
    assert seatings(2) == [(0, 1), (1, 0)]
    assert len(set(seatings(3))) == 6


def test_known_better_bot_is_accepted_early(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    done = _run(
        "eval",
        "random",
        "hunter",
        "--games",
        "200",
        "--batch",
        "2",
        "--json",
        str(report),
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(report.read_text())
    assert data["sprt"]["decision"] == "H1"
    assert data["sprt"]["hypothesis"] == "hunter is better than random"
    assert data["games_used"] < 200
    # Every seed with both seatings: an even number of games, counted in whole pairs.
    assert data["games_used"] % 2 == 0
    cell = data["crosstable"]["hunter"]["random"]
    assert cell["wins"] > cell["losses"]
    assert cell["games"] == data["games_used"]
    assert data["bots"][1]["version"].startswith("builtin:hunter (snakewar ")
    assert "-> H1 after" in done.stdout
    if cell["losses"] == 0 and cell["draws"] == 0:
        # Random lost every game: its row's Elo is minus infinity, hunter's plus.
        assert "-inf" in done.stdout and "+inf" in done.stdout


def test_equal_bots_are_not_accepted_as_better() -> None:
    config = MatchConfig.create("battlesnake", {}, game_size=2)
    adapter = get_game("battlesnake")
    entrants = [adapter.entrant("random"), adapter.entrant("random", "random#2")]
    result = run_eval(
        config,
        entrants,
        ["a", "b"],
        InProcessExecutor(concurrency=4),
        sprt=Sprt(0, 30, 0.05, 0.05),
        max_games=24,
        batch_seeds=4,
    )
    assert result.state is not None
    assert result.state.decision in ("", "H0")
    assert result.games_used + len(result.errors) == result.games_played
    if result.state.decision == "":
        # It ran on to the cap.
        assert result.games_played == 24
    t = result.head_to_head(1, 0)
    assert t == result.head_to_head(0, 1).flipped()
    assert t.games == result.games_used


def test_pair_results_follow_the_seating() -> None:
    config = MatchConfig.create("battlesnake", {}, game_size=2)
    adapter = get_game("battlesnake")
    entrants = [adapter.entrant("random"), adapter.entrant("hunter")]
    result = run_eval(
        config,
        entrants,
        ["a", "b"],
        InProcessExecutor(concurrency=2),
        sprt=Sprt(0, 30),
        max_games=2,
    )
    assert result.games_played == 2
    assert result.head_to_head(0, 1).games + len(result.errors) == 2


def test_run_eval_rejects_bad_settings() -> None:
    config = MatchConfig.create("battlesnake", {}, game_size=2)
    adapter = get_game("battlesnake")
    two = [adapter.entrant("random"), adapter.entrant("hunter")]
    with pytest.raises(EvalError, match="one seed is 2 games"):
        run_eval(config, two, ["", ""], InProcessExecutor(), sprt=Sprt(), max_games=1)
    with pytest.raises(EvalError, match="1 bots"):
        run_eval(config, two[:1], [""], InProcessExecutor(), sprt=Sprt(), max_games=4)


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["eval", "hunter"], "1 bots"),
        (["eval", "hunter", "random", "--games", "0"], "--games 0"),
        (["eval", "hunter", "random", "--elo0", "5", "--elo1", "5"], "elo1"),
        (["eval", "hunter", "random", "--alpha", "0"], "alpha"),
        (["eval", "hunter", "nosuchbot"], "nosuchbot"),
        (["eval", "hunter", "random", "--json", "/nonexistent/dir/r.json"], "--json"),
        (["eval", "hunter", "random", "-p", "bogus"], "bogus"),
    ],
)
def test_bad_input_is_one_error_line(args: list[str], needle: str, tmp_path: Path) -> None:
    done = _run(*args, cwd=tmp_path)
    assert done.returncode == 2, (done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:"), done.stderr
    assert needle in lines[0]
    assert "games:" not in done.stdout


def test_halite_eval_through_the_same_code(tmp_path: Path) -> None:
    report = tmp_path / "h.json"
    done = _run(
        "eval",
        "--game",
        "halite3",
        "random",
        "greedy",
        "--games",
        "4",
        "--batch",
        "2",
        "-p",
        "width=32",
        "-p",
        "height=32",
        "--json",
        str(report),
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(report.read_text())
    assert data["config"]["game"] == "halite3"
    assert data["games_played"] == 4
    cell = data["crosstable"]["greedy"]["random"]
    assert cell["games"] + data["error_count"] == 4
    assert data["sprt"]["decision"] in ("H0", "H1", "inconclusive")


def test_version_keys(tmp_path: Path) -> None:
    from snakewar.arena.evaluation import version_key
    from snakewar.engine.protocol import Entrant

    url = Entrant("http://127.0.0.1:1/", "s")

    def answer(body: bytes) -> Callable[[str], bytes]:
        return lambda _url: body

    def down(_url: str) -> bytes:
        raise OSError("refused")

    assert version_key(url, "remote", answer(b'{"apiversion":"1","version":"2.3"}')) == (
        "version 2.3"
    )
    hashed = version_key(url, "remote", answer(b"hello"))
    assert hashed.startswith("sha256:") and hashed != version_key(url, "remote", answer(b"bye"))
    assert version_key(url, "remote", down) == "unreachable (OSError)"
    bot = tmp_path / "MyBot.py"
    bot.write_text("print(1)\n")
    program = Entrant("python3 MyBot.py", "p", workdir=str(tmp_path))
    first = version_key(program, "program", None)
    bot.write_text("print(2)\n")
    assert version_key(program, "program", None) != first
