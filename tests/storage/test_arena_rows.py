"""Ladders and tournaments as rows, on SQLite and PostgreSQL: written game by game."""

from __future__ import annotations

import pytest

from snakewar.arena.config import MatchConfig
from snakewar.arena.executors import InProcessExecutor
from snakewar.arena.ladder import Ladder, LadderEntry, LadderError, LadderNotFoundError, load_ladder
from snakewar.arena.ports import ArenaStore
from snakewar.arena.tournament_runner import (
    TournamentNotFoundError,
    TournamentRun,
    TournamentRunError,
    load_tournament,
)
from snakewar.storage import Store

SMALL = MatchConfig.create("battlesnake", {"width": 7, "height": 7}, max_turns=60)


def test_a_store_is_what_the_arena_needs(store: Store) -> None:
    arena: ArenaStore = store  # checked by mypy: the storage implements the arena's ports
    assert arena.games is store.games


def test_a_ladder_is_written_game_by_game(store: Store) -> None:
    ladder = Ladder("rows", SMALL, seed=4)
    ladder.add("random")
    ladder.add("greedy")
    store.ladders.create(ladder)
    with pytest.raises(LadderError, match="a ladder named 'rows' already exists"):
        store.ladders.create(ladder)
    assert ladder.run(4, store, parallel=2) == 4
    again = load_ladder(store, "rows")
    assert again.games_played == 4 and [g.number for g in again.recent] == [0, 1, 2, 3]
    assert again.board.to_dict() == ladder.board.to_dict()
    assert store.ladders.get("rows", recent=2).recent == again.recent[2:]  # type: ignore[union-attr]
    assert store.ladders.summaries() == [
        {"name": "rows", "game": "battlesnake", "games_played": 4, "snakes": 2}
    ]
    # An entrant added later keeps its place; an update changes it in place.
    store.ladders.save_entry("rows", LadderEntry("late", "builtin:hunter?depth=1"))
    store.ladders.save_entry("rows", LadderEntry("random", "builtin:random", True, 3, "off"))
    entries = load_ladder(store, "rows").entries
    assert list(entries) == ["random", "greedy", "late"]
    assert (entries["random"].paused, entries["random"].failures) == (True, 3)
    with pytest.raises(LadderNotFoundError):
        store.ladders.save_entry("nope", LadderEntry("x", "builtin:random"))
    store.ladders.delete("rows")
    assert store.ladders.get("rows") is None and store.ladders.names() == []
    assert store.games.count() == 4  # the games stay
    with pytest.raises(LadderNotFoundError):
        store.ladders.delete("rows")


def test_a_tournament_is_written_game_by_game_and_rebuilt(store: Store) -> None:
    entrants: list[tuple[str, str | None]] = [
        ("random", None),
        ("greedy", None),
        ("hunter?depth=1", None),
    ]
    run = TournamentRun.create("rows", "round_robin", entrants, config=SMALL, seed=5, tid="rows-1")
    store.tournaments.create(run)
    with pytest.raises(TournamentRunError, match="'rows-1' already exists"):
        store.tournaments.create(run)
    store.tournaments.save(run)  # stored already: nothing changes
    assert run.step(store, InProcessExecutor(concurrency=2)) > 0
    again = load_tournament(store, "rows-1")
    assert again.tournament.to_dict() == run.tournament.to_dict()
    assert again.games == run.games and again.config == run.config
    again.run(store)
    assert load_tournament(store, "rows-1").is_finished
    assert store.tournaments.list_all() == [("rows-1", "rows")]
    store.tournaments.delete("rows-1")
    with pytest.raises(TournamentNotFoundError):
        load_tournament(store, "rows-1")
