"""Every record of the official engine's recorded games must match exactly.

The folder comes from $SNAKEWAR_CONFORMANCE_DIR (default: the public and edge sets shipped
in tests/data/battlesnake); every game-record file under it is checked, one test per file.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from snakewar.games.battlesnake.rules.maps import map_ids
from snakewar.games.battlesnake.rules.rulesets import ruleset_names
from snakewar.games.battlesnake.testing.conformance import (
    ConformanceReport,
    check_battlesnake_game,
    data_files,
    iter_games,
)
from tests.conformance_data import battlesnake_dir, require
from tests.conftest import CONFORMANCE_COUNTS, CONFORMANCE_SETUPS

DATA_DIR = battlesnake_dir()
FILES = data_files([DATA_DIR])


def test_conformance_data_is_present() -> None:
    require(FILES, f"Battlesnake game records (*.jsonl.gz) under {DATA_DIR.resolve()}")


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(DATA_DIR)) for p in FILES])
@pytest.mark.slow
def test_conformance_file(path: Path) -> None:
    report = ConformanceReport()
    for header, turns, end in iter_games(path):
        check_battlesnake_game(header, turns, end, report)
    CONFORMANCE_COUNTS.update(report.records)
    CONFORMANCE_SETUPS.append(report.setups)
    assert sum(report.games.values()) > 0, f"{path}: no games"
    assert not report.failures, f"{len(report.failures)} mismatches in {path.name}:\n" + "\n".join(
        report.failures[:30]
    )
    # Nothing unknown may hide in the data: every ruleset and map it names is ours.
    for ruleset, map_id in report.games:
        assert ruleset in ruleset_names()
        assert map_id in map_ids()
