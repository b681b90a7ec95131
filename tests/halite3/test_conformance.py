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
