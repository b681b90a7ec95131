"""Batch evaluation (``snakewar halite eval``) and a starter-kit bot in full games."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from snakewar.games.halite3.referee.runner import play_halite_sync
from snakewar.games.halite3.replay.hlt import read_hlt, replay_document, write_hlt
from snakewar.games.halite3.replay.verify import verify_hlt
from snakewar.referee.process import Program
from tests.games.halite3.oracle import MAIN

MY_BOT = Path(__file__).resolve().parent / "starter_kit" / "MyBot.py"


def test_starter_kit_bot_plays_full_games_unchanged(tmp_path: Path) -> None:
    # MyBot.py is written against the official Python starter kit's API (a clean-room
    # copy of the kit sits next to it): it runs as `python3 MyBot.py`, as with the engine.
    # A copy: the kit writes its logs (bot-N.log) where it runs.
    folder = shutil.copytree(MY_BOT.parent, tmp_path / "kit")
    kit = Program((sys.executable, "MyBot.py"), cwd=str(folder))
    greedy = f"{sys.executable} -m snakewar.games.halite3.bots greedy"
    match = play_halite_sync([kit, greedy, kit, greedy], seed=77, width=32, height=32)
    game = match.game
    assert game.over
    assert match.names[0] == "MyPythonBot" and match.names[1] == "greedy"
    assert not match.failures, match.failures
    assert not any(p.terminated for p in game.players)
    assert game.turn == game.max_turns == 400  # four players: nobody runs out this fast
    spawned = game.result().statistics[0]["ships_spawned"]
    assert spawned > 0
    path = write_hlt(replay_document(game, match.names), tmp_path / "kit.hlt")
    assert verify_hlt(read_hlt(path)).ok


def test_eval_reports_win_ratios_over_rotated_seats() -> None:
    options = ["--games", "4", "--width", "32", "--turn-limit", "150", "--json"]
    result = subprocess.run(
        [*MAIN, "halite", "eval", "builtin:greedy", "builtin:random", *options],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["games"] == 4 and report["failed"] == 0
    greedy, random_bot = report["bots"]
    assert greedy["name"] == "greedy" and random_bot["name"] == "random"
    assert greedy["games"] == random_bot["games"] == 4
    assert greedy["wins"] + random_bot["wins"] == 4
    assert greedy["wins"] > random_bot["wins"]
    low, high = greedy["win_ratio_95"]
    assert 0 <= low <= greedy["win_ratio"] <= high <= 1


def test_eval_refuses_a_player_count_with_no_map() -> None:
    result = subprocess.run(
        [*MAIN, "halite", "eval", "builtin:greedy", "builtin:random", "builtin:random"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2
    assert result.stderr == "error: 3 bots: expected 2, 4 or 8 (one Halite map per game)\n"


def test_wilson_interval_contains_the_ratio_at_the_extremes() -> None:
    from snakewar.referee.intervals import wilson_interval

    for n in range(1, 200):
        assert wilson_interval(n, n)[1] == 1.0
        assert wilson_interval(0, n)[0] == 0.0
        for wins in (0, n // 3, n):
            low, high = wilson_interval(wins, n)
            assert low <= wins / n <= high


def test_play_strict_ends_the_game_on_the_first_warning(tmp_path: Path) -> None:
    args = ["--seed", "3", "--width", "32", "--height", "32", "--no-replay", "--results-as-json"]
    bots = ["builtin:random", "builtin:random"]
    strict = subprocess.run(
        [*MAIN, "halite", "play", "--strict", *args, *bots],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert strict.returncode == 0, strict.stderr
    relaxed = subprocess.run(
        [*MAIN, "halite", "play", *args, *bots],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    # The random bots make unaffordable moves: warnings in a normal game, the end under --strict.
    logs = json.loads(relaxed.stdout)["error_logs"]
    assert logs and "warning:" in (tmp_path / next(iter(logs.values()))).read_text()
    assert json.loads(strict.stdout)["stats"] != json.loads(relaxed.stdout)["stats"]


def test_play_refuses_map_types_other_than_fractal() -> None:
    result = subprocess.run(
        [*MAIN, "halite", "play", "-m", "basic", "builtin:random"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert result.stderr.startswith("error: map type 'basic': only 'fractal' is supported")
