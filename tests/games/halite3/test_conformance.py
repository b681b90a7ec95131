"""Conformance: every recorded official-engine game replays exactly, field by field.

Reads every game under ``SNAKEWAR_HALITE_CONFORMANCE_DIR`` (default: the public set shipped
in ``tests/data/halite3/public``), builds the map from the seed, feeds each
turn's recorded command lines to the engine and compares inspiration, kills, events,
changed cells, ships, dropoffs, energy, deposits, then the final ranks, scores,
statistics and error-log messages.  Every game also has player 0's transcript and the
official replay: each frame the engine sends is compared with the transcript line by
line, in order (ships and changed cells come in the official engine's hash-table order),
and the replay this engine writes with the official one, every list in order.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from snakewar.games.halite3.testing.conformance import (
    check_halite_game,
    companion_files,
    iter_oracle_games,
    read_transcript,
)
from tests.conformance_data import require
from tests.games.halite3.oracle import CONFORMANCE_DIR

GAMES = list(iter_oracle_games(CONFORMANCE_DIR)) if CONFORMANCE_DIR.is_dir() else []


def test_conformance_games_are_present() -> None:
    require(GAMES, f"Halite III conformance games under {CONFORMANCE_DIR}")


@pytest.mark.parametrize("path", GAMES, ids=[p.name.split(".")[0] for p in GAMES])
def test_official_game_replays_exactly(path: Path) -> None:
    transcript, replay = companion_files(path)
    assert transcript.is_file(), f"no transcript {transcript}"
    assert replay.is_file(), f"no official replay {replay}"
    check = check_halite_game(path)
    assert check.turns > 0
    assert check.ok, "\n".join(str(m) for m in check.mismatches[:10])
    # Every frame player 0 received was compared, and the replay too.
    assert check.frames_checked == len(read_transcript(transcript)[1]) > 0
    assert check.replay_checked


def test_conformance_command_checks_a_folder_and_needs_one(tmp_path: Path) -> None:
    import os
    import shutil
    import subprocess

    from tests.games.halite3.oracle import MAIN

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
