"""Conformance: every recorded official-engine game replays exactly, field by field.

Reads every game under ``SNAKEWAR_HALITE_CONFORMANCE_DIR`` (default: the public set shipped
in ``tests/data/halite3/public``), builds the map from the seed, feeds each
turn's recorded command lines to the engine and compares inspiration, kills, events,
changed cells, ships, dropoffs, energy, deposits, then the final ranks, scores,
statistics and error-log messages.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from snakewar.testing.halite3_conformance import check_halite_game, iter_oracle_games
from tests.conformance_data import require
from tests.halite3.oracle import CONFORMANCE_DIR

GAMES = list(iter_oracle_games(CONFORMANCE_DIR)) if CONFORMANCE_DIR.is_dir() else []


def test_conformance_games_are_present() -> None:
    require(GAMES, f"Halite III conformance games under {CONFORMANCE_DIR}")


@pytest.mark.parametrize("path", GAMES, ids=[p.name.split(".")[0] for p in GAMES])
def test_official_game_replays_exactly(path: Path) -> None:
    check = check_halite_game(path)
    assert check.turns > 0
    assert check.ok, "\n".join(str(m) for m in check.mismatches[:10])


def test_conformance_command_checks_a_folder_and_needs_one(tmp_path: Path) -> None:
    import os
    import shutil
    import subprocess

    from tests.halite3.oracle import MAIN

    require(GAMES, "a Halite III conformance game")
    smallest = min(GAMES, key=lambda p: p.stat().st_size)
    shutil.copy(smallest, tmp_path / smallest.name)
    env = {k: v for k, v in os.environ.items() if k != "SNAKEWAR_HALITE_CONFORMANCE_DIR"}
    run = [*MAIN, "halite", "conformance"]
    done = subprocess.run(
        [*run, str(tmp_path)], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    missing = subprocess.run(run, capture_output=True, text=True, env=env, timeout=120)
    assert missing.returncode == 2  # a usage error, as elsewhere in the CLI
    assert missing.stderr.strip().splitlines() == [
        "error: no conformance folder given; expected a folder or $SNAKEWAR_HALITE_CONFORMANCE_DIR"
    ]
