"""Ladders: matchmaking, ratings order, health-check pausing, storage and replays."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from snakewar.arena.config import MatchConfig
from snakewar.arena.ladder import Ladder, LadderError, LadderNotFoundError, load_ladder
from snakewar.cli import main
from snakewar.games.battlesnake.adapter import GAME
from snakewar.games.battlesnake.replay.format import read_replay
from snakewar.games.battlesnake.replay.verify import verify_replay
from snakewar.storage import Store
from tests.games.battlesnake.referee.snake_servers import SnakeServers

SMALL = MatchConfig.create("battlesnake", {"width": 7, "height": 7})


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store(f"sqlite:///{tmp_path / 'ladder.db'}") as opened:
        yield opened


def test_ladder_ranks_hunter_above_greedy_above_random(store: Store) -> None:
    ladder = Ladder("bots", SMALL, seed=3)
    ladder.add("random")
    ladder.add("greedy")
    ladder.add("hunter?depth=1", "hunter")
    assert ladder.run(60, store) == 60
    order = [row.snake for row in ladder.standings()]
    assert order == ["hunter", "greedy", "random"], [
        (r.snake, round(r.display, 2)) for r in ladder.standings()
    ]
    # Saved and reloaded, with every game stored, replayable and verifiable.
    again = load_ladder(store, "bots")
    assert [r.snake for r in again.standings()] == order and again.games_played == 60
    assert [g.number for g in again.recent] == list(range(40, 60))
    assert again.board.history.to_dict() == ladder.board.history.to_dict()
    for game in again.recent[:5]:
        record = read_replay(GAME.export(store.games.data(game.game_id)))
        assert record.config.seed == game.seed and record.id == game.game_id
        assert verify_replay(record).ok


def test_matchmaking_is_fair_and_prefers_close_ratings(store: Store) -> None:
    ladder = Ladder("six", SMALL, seed=5)
    for i in range(6):
        ladder.add("random", f"r{i}")
    ladder.run(48, store)
    games = Counter(ladder.board.games)
    assert set(games) == {f"r{i}" for i in range(6)} and sum(games.values()) == 96
    # Fair share: 48 games x 2 seats over 6 snakes is 16 each; none is 25% off it.
    assert all(abs(count - 16) <= 4 for count in games.values()), games
    # With spread-out ratings, the anchor's opponent is usually its nearest rival.
    board = ladder.board
    for i, snake in enumerate(("r0", "r1", "r2", "r3", "r4", "r5")):
        board.ratings[snake] = type(board.ratings[snake])(mu=10.0 + 6 * i, sigma=2.0)
        board.games[snake] = 10
    board.games["r0"] = 5
    rng = random.Random(1)
    picks = Counter(next(n for n in ladder.matchmake(rng) if n != "r0") for _ in range(200))
    assert picks.most_common(1)[0][0] == "r1" and picks["r1"] > 100
    assert picks["r5"] < 5


def test_failing_snakes_are_paused_and_resumed(store: Store) -> None:
    servers = SnakeServers()  # its port is bound but not listening yet: refused
    ladder = Ladder("health", SMALL, seed=2)
    ladder.add("random")
    ladder.add("greedy")
    ladder.add(servers.url("good"), "remote")
    ladder.run(4, store, parallel=2)
    remote = ladder.entries["remote"]
    assert remote.paused and "GET /" in remote.note
    # Everyone reads the note in the standings: it names the entrant, never its address.
    assert "remote" in remote.note and servers.url("good") not in remote.note, remote.note
    assert "127.0.0.1" not in remote.note, remote.note
    assert all("remote" not in g.seats for g in ladder.recent)
    assert load_ladder(store, "health").entries["remote"].paused  # saved as it changed
    with servers:
        ladder.run(6, store, parallel=2)
        assert not ladder.entries["remote"].paused
        assert any("remote" in g.seats for g in ladder.recent)


def test_too_few_active_snakes_is_a_clear_error(store: Store) -> None:
    ladder = Ladder("tiny", SMALL)
    ladder.add("random")
    with pytest.raises(LadderError, match="1 active entrants; a game needs 2"):
        ladder.run(1, store)
    with pytest.raises(LadderError, match="already has an entrant named 'random'"):
        ladder.add("random")
    with pytest.raises(LadderNotFoundError, match="no ladder named 'nope'"):
        load_ladder(store, "nope")


def test_two_ladders_with_the_same_seed_play_their_own_games(store: Store) -> None:
    first, second = Ladder("one", SMALL, seed=9), Ladder("two", SMALL, seed=9)
    for ladder in (first, second):
        ladder.add("random")
        ladder.add("greedy")
        assert ladder.run(3, store) == 3
    ids = [{g.game_id for g in ladder.recent} for ladder in (first, second)]
    assert len(ids[0]) == len(ids[1]) == 3 and not ids[0] & ids[1]
    assert store.games.count() == 6


def test_ladder_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = ["--database", f"sqlite:///{tmp_path / 'cli.db'}"]
    assert main(["ladder", "create", "local", "-W", "7", "-H", "7", *db]) == 0
    for bot in ("random", "greedy"):
        assert main(["ladder", "add", "local", bot, *db]) == 0
    assert main(["ladder", "run", "local", "--games", "6", *db]) == 0
    assert main(["ladder", "show", "local", *db]) == 0
    out = capsys.readouterr().out
    assert "ladder local: 6 games" in out and "greedy" in out
    assert main(["ladder", "show", "nowhere", *db]) == 2
    assert "no ladder named 'nowhere'" in capsys.readouterr().err
