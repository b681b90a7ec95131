"""Halite III in the arena: ladders, tournaments and executors with real bots."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from snakewar.arena.executors import GameJob, InProcessExecutor, ProcessPoolExecutor
from snakewar.arena.halite import HaliteSpec, HaliteSpecError, HaliteSummary
from snakewar.arena.ladder import Ladder, LadderConfig, LadderError
from snakewar.arena.ratings import placement_from_summary
from snakewar.arena.tournament_runner import TournamentRun
from snakewar.replay.hlt import read_hlt
from snakewar.replay.hlt_verify import verify_hlt
from snakewar.server.store import Store

# A real subprocess bot speaking the official protocol on stdin/stdout.
PROCESS_RANDOM = f"{sys.executable} -m snakewar.bots.halite random"
CONFIG = LadderConfig(width=32, height=32, max_turns=150, timeout_ms=2000, game="halite3")


@pytest.fixture
def store(tmp_path: Path) -> Store:
    with Store(f"sqlite:///{tmp_path / 'arena.db'}") as s:
        yield s


def test_halite_config_checks_player_counts_and_sizes() -> None:
    with pytest.raises(LadderError, match="Halite games have 2, 4 or 8 players"):
        LadderConfig(game="halite3", game_size=3)
    with pytest.raises(LadderError, match="game 'chess'"):
        LadderConfig(game="chess")
    with pytest.raises(HaliteSpecError, match="33"):
        LadderConfig(width=33, height=32, game="halite3").check()
    LadderConfig(game="halite3", width=0, height=0).check()  # the seed picks the size
    assert LadderConfig.from_dict(CONFIG.to_dict()) == CONFIG


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
    assert all(g["game"] == "halite3" for g in ladder.games)
    stored = store.list_halite_games(limit=50, offset=0)
    assert len(stored) == 6
    first = ladder.games[0]
    replay = read_hlt(store.halite_replay_bytes(first["game_id"]))
    assert [p.name for p in replay.players] == first["snakes"]
    assert verify_hlt(replay).ok
    assert not any(e.paused for e in ladder.entries.values())
    # The ladder's state survives the store.
    again = Ladder.from_dict(ladder.to_dict())
    assert again.config.game == "halite3" and len(again.games) == 6


def test_halite_ladder_notes_and_pauses_a_bot_that_keeps_dying(store: Store) -> None:
    config = LadderConfig(width=32, height=32, max_turns=10, timeout_ms=300, game="halite3")
    ladder = Ladder("crashy", config, seed=2)
    ladder.add("builtin:greedy")
    ladder.add(f"{sys.executable} -c 'import sys; sys.exit(3)'", "crasher")
    ladder.run(2, store, parallel=1)
    crasher = ladder.entries["crasher"]
    assert crasher.paused and "killed in 2 games" in crasher.note
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
    assert all(g["game"] == "halite3" for g in games)
    assert len(store.list_halite_games(limit=50, offset=0)) == 3


def test_halite_jobs_run_in_worker_processes() -> None:
    spec = CONFIG.match_spec(["builtin:greedy", "builtin:random"], ["g", "r"], "test")
    assert isinstance(spec, HaliteSpec)
    jobs = [GameJob(f"job-{i}", spec, seed) for i, seed in enumerate((11, 12))]
    outcomes = ProcessPoolExecutor(workers=2).run(jobs)
    local = InProcessExecutor().run(jobs)
    for outcome, again in zip(outcomes, local, strict=True):
        assert outcome.ok, outcome.error
        assert isinstance(outcome.summary, HaliteSummary)
        assert isinstance(again.summary, HaliteSummary)
        # Built-in bots are deterministic: the same game wherever it is played.
        assert outcome.summary.ranks == again.summary.ranks
        assert outcome.summary.scores == again.summary.scores
        assert list(placement_from_summary(outcome.summary)[0]) == ["g"]


def test_an_unplayable_halite_job_is_an_error_outcome() -> None:
    spec = HaliteSpec(("builtin:nope", "builtin:random"), ("a", "b"), 32, 32, 5)
    [outcome] = InProcessExecutor().run([GameJob("bad", spec, 1)])
    assert not outcome.ok and "nope" in (outcome.error or "")
