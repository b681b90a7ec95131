"""A real game played by ``snakewar play`` (a subprocess), kept as a replay and stored."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from snakewar.games.battlesnake.adapter import played_game
from snakewar.games.battlesnake.records import GameRecord
from snakewar.games.battlesnake.replay.format import read_replay
from snakewar.storage import Store
from tests.test_cli_bad_input import run


@dataclass(frozen=True)
class PlayedReplay:
    """The game: its replay file, its record, and a database that stores it."""

    home: Path
    replay: Path
    record: GameRecord
    database: str


@pytest.fixture(scope="session")
def played(tmp_path_factory: pytest.TempPathFactory) -> PlayedReplay:
    home = tmp_path_factory.mktemp("export")
    replay = home / "game.jsonl"
    done = run(
        "play", "-W", "7", "-H", "7", "-r", "7", "--replay", str(replay),
        "builtin:hunter", "builtin:greedy", home=home,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    record = read_replay(replay)
    assert len(record.turns) >= 5
    database = f"sqlite:///{home / 'games.db'}"
    with Store(database) as store:
        assert store.games.save_played(played_game(record))
    return PlayedReplay(home, replay, record, database)
