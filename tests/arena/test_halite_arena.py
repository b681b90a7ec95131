"""Halite III in the arena: ladders, tournaments and executors with real bots."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from snakewar.arena.config import MatchConfig
from snakewar.arena.executors import GameJob, InProcessExecutor, ProcessPoolExecutor
from snakewar.arena.ladder import Ladder, LadderError, load_ladder
from snakewar.arena.ratings import placement_from_game
from snakewar.arena.tournament_runner import TournamentRun
from snakewar.engine.protocol import Entrant, MatchSpec
from snakewar.errors import ParamsError, UnknownGameError
from snakewar.games.halite3 import size_for_seed
from snakewar.games.halite3.adapter import GAME
from snakewar.games.halite3.replay.hlt import read_hlt
from snakewar.games.halite3.replay.verify import verify_hlt
from snakewar.storage import Store

# A real subprocess bot speaking the official protocol on stdin/stdout.
PROCESS_RANDOM = f"{sys.executable} -m snakewar.games.halite3.bots random"
CONFIG = MatchConfig.create("halite3", {"width": 32, "height": 32}, max_turns=150, timeout_ms=2000)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store(f"sqlite:///{tmp_path / 'arena.db'}") as s:
        yield s


def test_halite_config_checks_player_counts_and_sizes() -> None:
    with pytest.raises(ParamsError, match="game size 3: a rated halite3 game has 2, 4, 8, 16"):
        MatchConfig.create("halite3", game_size=3)
    with pytest.raises(UnknownGameError, match="game 'chess'"):
        MatchConfig.create("chess")
    with pytest.raises(ParamsError, match="33") as bad:
        MatchConfig.create("halite3", {"width": 33, "height": 32})
    assert bad.value.field == "width"
    with pytest.raises(ParamsError, match="halite3 has no parameter 'ruleset'"):
        MatchConfig.create("halite3", {"ruleset": "standard"})
    MatchConfig.create("halite3", {"width": 0, "height": 0})  # the seed picks the size
    assert MatchConfig.from_dict(CONFIG.to_dict()) == CONFIG


def test_halite_ladder_plays_rates_and_stores_official_replays(store: Store) -> None:
    ladder = Ladder("h3", CONFIG, seed=5)
    ladder.add("builtin:greedy")
    ladder.add("builtin:random")
    entry = ladder.add(PROCESS_RANDOM, "proc")
    assert entry.source == PROCESS_RANDOM
    with pytest.raises(LadderError):
        ladder.add("builtin:greedy")  # the name is taken
    played = ladder.run(6, store, executor=InProcessExecutor(concurrency=2), parallel=3)
    assert played == 6
    standings = ladder.standings()
    assert standings[0].snake == "greedy"
    stored = store.games.latest(50, game="halite3")
    assert len(stored) == 6 and store.games.count() == 6
    first = ladder.recent[0]
    data = store.games.data(first.game_id)
    assert data.replay is not None
    replay = read_hlt(data.replay)
    assert [p.name for p in replay.players] == list(first.seats)
    assert verify_hlt(replay).ok
    assert not any(e.paused for e in ladder.entries.values())
    # The ladder's state survives the store.
    again = load_ladder(store, "h3")
    assert again.config == CONFIG and again.games_played == 6
    assert [r.snake for r in again.standings()] == [r.snake for r in standings]


def test_halite_ladder_notes_and_pauses_a_bot_that_keeps_dying(store: Store) -> None:
    config = MatchConfig.create(
        "halite3", {"width": 32, "height": 32}, max_turns=10, timeout_ms=300
    )
    ladder = Ladder("crashy", config, seed=2)
    ladder.add("builtin:greedy")
    ladder.add(f"{sys.executable} -c 'import sys; sys.exit(3)'", "crasher")
    ladder.run(2, store, parallel=1)
    crasher = ladder.entries["crasher"]
    assert crasher.paused and crasher.failures == 2
    assert crasher.note.startswith("paused: failed 2 games in a row: failed to initialize: ")
    assert load_ladder(store, "crashy").entries["crasher"].paused
    assert ladder.standings()[0].snake == "greedy"


def test_halite_tournament_runs_to_a_winner(store: Store) -> None:
    run = TournamentRun.create(
        "h3-cup",
        "round_robin",
        [("builtin:greedy", None), ("builtin:random", None), (PROCESS_RANDOM, "proc")],
        config=CONFIG,
        seed=3,
        heat_size=2,
    )
    assert run.snakes["proc"] == PROCESS_RANDOM
    played = run.run(store, InProcessExecutor(concurrency=3))
    assert played == 3
    standings = run.tournament.standings()
    assert standings[0].entrant == "greedy"
    games = [g for match in run.games.values() for g in match]
    stored = {row.id: row for row in store.games.latest(50)}
    assert {g.game_id for g in games} == set(stored)
    assert {row.game for row in stored.values()} == {"halite3"}


def test_halite_jobs_run_in_worker_processes() -> None:
    spec = CONFIG.match_spec(
        [Entrant("builtin:greedy", "g"), Entrant("builtin:random", "r")], "test"
    )
    jobs = [GameJob(f"job-{i}", spec, seed) for i, seed in enumerate((11, 12))]
    outcomes = ProcessPoolExecutor(workers=2).run(jobs)
    local = InProcessExecutor().run(jobs)
    for outcome, again in zip(outcomes, local, strict=True):
        assert outcome.played is not None, outcome.error
        assert again.played is not None, again.error
        # Built-in bots are deterministic: the same game wherever it is played.
        assert outcome.played.results == again.played.results
        assert outcome.played.data.replay is not None
        assert list(placement_from_game(outcome.played)[0]) == ["g"]


def test_an_unplayable_halite_job_is_an_error_outcome() -> None:
    spec = MatchSpec(
        "halite3",
        (Entrant("builtin:nope", "a"), Entrant("builtin:random", "b")),
        GAME.params_for(32, 32),
        timeout_ms=5,
    )
    [outcome] = InProcessExecutor().run([GameJob("bad", spec, 1)])
    assert not outcome.ok and "nope" in (outcome.error or "")


def test_a_bot_that_fails_to_initialize_has_no_energy_in_the_arenas_replay() -> None:
    # As the official engine: the player is killed before the replay copies the players.
    spec = CONFIG.match_spec(
        [Entrant("builtin:greedy", "g"), Entrant(f"{sys.executable} -c pass", "quits")], "test"
    )
    [outcome] = InProcessExecutor().run([GameJob("quits", spec, 7)])
    assert outcome.played is not None and outcome.played.data.replay is not None, outcome.error
    players = read_hlt(outcome.played.data.replay).document["players"]
    assert [p["energy"] for p in players] == [5000, 0]


def test_a_side_not_given_is_the_seeds_size_in_the_arena_too() -> None:
    # As the official engine (and `snakewar halite --width 40`): seed 15151 picks 32.
    assert size_for_seed(15151) == 32
    entrants = [Entrant("builtin:greedy", "g"), Entrant("builtin:random", "r")]
    for params, size in (({"width": 40}, (40, 32)), ({"height": 40}, (32, 40))):
        config = MatchConfig.create("halite3", params, max_turns=2)
        [outcome] = InProcessExecutor().run([GameJob("side", config.match_spec(entrants), 15151)])
        assert outcome.played is not None and outcome.played.data.replay is not None
        replay = read_hlt(outcome.played.data.replay)
        assert (replay.width, replay.height) == size
