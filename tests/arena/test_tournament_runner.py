"""Tournament runs: real games through a bracket, storage, resuming, export and the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from snakewar.arena.config import MatchConfig
from snakewar.arena.executors import InProcessExecutor
from snakewar.arena.ladder import Ladder
from snakewar.arena.ratings import Rating
from snakewar.arena.tournament_runner import (
    TournamentRun,
    TournamentRunError,
    entry_owner,
    load_tournament,
    qualifiers,
)
from snakewar.cli import main
from snakewar.errors import EntrantError
from snakewar.games.battlesnake.adapter import GAME
from snakewar.games.battlesnake.replay.format import read_replay
from snakewar.games.battlesnake.replay.verify import verify_replay
from snakewar.storage import Store

SMALL = MatchConfig.create(
    "battlesnake", {"width": 7, "height": 7}, max_turns=150, timeout_ms=60_000
)
"""Small games whose moves never time out: a resumed run must play a straight run's games
at any load (a bot's move that timed out on a busy machine made another game)."""
BOTS: list[tuple[str, str | None]] = [
    ("random", None),
    ("greedy", None),
    ("hunter?depth=1", None),
    ("random", "chaos"),
]


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store(f"sqlite:///{tmp_path / 'tournament.db'}")


def test_single_elimination_runs_to_the_end_with_every_game_stored(store: Store) -> None:
    run = TournamentRun.create("cup", "single_elimination", BOTS, config=SMALL, seed=4)
    assert run.snakes == {
        "random": "builtin:random",
        "greedy": "builtin:greedy",
        "hunter": "builtin:hunter?depth=1",
        "chaos": "builtin:random",
    }
    steps: list[int] = []
    played = run.run(store, InProcessExecutor(concurrency=2), on_step=lambda _, n: steps.append(n))
    assert run.is_finished and sum(steps) == played
    # Two semifinals then a final, each decided by one game that is not a draw (a draw
    # is played again, so a match may have more games).
    assert set(run.games) == {"R1-1", "R1-2", "R2-1"}
    assert played == sum(len(g) for g in run.games.values())
    final = run.tournament.match("R2-1")
    assert final.order[0] == run.tournament.champion
    semis_winners = {run.tournament.match(m).order[0] for m in ("R1-1", "R1-2")}
    assert set(final.entrants) == semis_winners
    seeds = set()
    for match_id, games in run.games.items():
        match = run.tournament.match(match_id)
        assert len(games) == len(match.games)
        for game in games:
            assert sorted(game.seats) == sorted(match.entrants)
            record = read_replay(GAME.export(store.games.data(game.game_id)))
            assert record.config.seed == game.seed == run.game_seed(match_id, game.number)
            assert [s.name for s in record.snakes] == list(game.seats)
            assert verify_replay(record).ok
            seeds.add(game.seed)
    assert len(seeds) == played
    # Recorded game by game, and the export names every game.
    again = load_tournament(store, run.id)
    assert again.tournament.to_dict() == run.tournament.to_dict()
    assert again.export() == run.export()
    exported = json.loads(json.dumps(run.export()))
    assert exported["champion"] == run.tournament.champion and exported["finished"]
    assert exported["standings"][0]["entrant"] == run.tournament.champion
    assert {m["id"]: [g["game_id"] for g in m["games"]] for m in exported["matches"]} == {
        mid: [g.game_id for g in games] for mid, games in run.games.items()
    }
    assert run.step(store) == 0


def test_round_robin_of_three_plays_three_matches(store: Store) -> None:
    run = TournamentRun.create(
        "rr", "round_robin", [("greedy", None), ("hunter?depth=1", None), ("random", None)],
        config=SMALL, seed=2,
    )  # fmt: skip
    run.run(store)
    assert run.is_finished
    assert len(run.tournament.matches) == 3 and set(run.games) == set(run.tournament.matches)
    pairs = {frozenset(run.tournament.match(m).entrants) for m in run.games}
    assert pairs == {
        frozenset(p) for p in (("greedy", "hunter"), ("greedy", "random"), ("hunter", "random"))
    }
    assert sum(s.points for s in run.tournament.standings()) == 3


def test_resuming_a_saved_run_plays_the_same_games(tmp_path: Path) -> None:
    bots: list[tuple[str, str | None]] = [
        ("greedy", "g1"), ("hunter?depth=1", "h1"), ("greedy", "g2"), ("hunter?depth=1", "h2"),
    ]  # fmt: skip
    whole = Store(f"sqlite:///{tmp_path / 'whole.db'}")
    parts = Store(f"sqlite:///{tmp_path / 'parts.db'}")
    first = TournamentRun.create(
        "same", "double_elimination", bots, config=SMALL, seed=9, tid="same-1"
    )
    second = TournamentRun.create(
        "same", "double_elimination", bots, config=SMALL, seed=9, tid="same-1"
    )
    first.run(whole)
    assert second.step(parts) == 2
    resumed = load_tournament(parts, "same-1")
    assert resumed.tournament.to_dict() == second.tournament.to_dict()
    assert not resumed.is_finished and len(resumed.games) == 2
    resumed.run(parts)
    assert resumed.export() == first.export()
    assert resumed.tournament.champion == first.tournament.champion


def test_seeding_by_rating_and_bad_input(store: Store) -> None:
    ratings = {"hunter": Rating(30, 1), "greedy": Rating(25, 1)}
    run = TournamentRun.create("seeded", "swiss", BOTS, config=SMALL, ratings=ratings)
    assert run.tournament.entrants == ["hunter", "greedy", "random", "chaos"]
    with pytest.raises(EntrantError, match="entrant name 'x' is used twice"):
        TournamentRun.create("dup", "round_robin", [("random", "x"), ("greedy", "x")])
    with pytest.raises(TournamentRunError, match="no tournament with id 'nope'"):
        load_tournament(store, "nope")


def test_tournament_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = ["--database", f"sqlite:///{tmp_path / 'cli.db'}"]
    create = ["tournament", "create", "Local cup", "--format", "single_elimination",
              "--snake", "random", "--snake", "greedy", "--snake", "hunter?depth=1",
              "--name", "r", "-W", "7", "-H", "7", "--seed", "3", *db]  # fmt: skip
    assert main(create) == 0
    tid = capsys.readouterr().out.strip()
    assert tid.startswith("local-cup-")
    assert main(["tournament", "list", *db]) == 0
    assert capsys.readouterr().out == f"{tid}\tLocal cup\n"
    assert main(["tournament", "run", tid, *db]) == 0
    out = capsys.readouterr().out
    assert "finished" in out and "champion:" in out and "Final (main):" in out
    assert main(["tournament", "show", tid, *db]) == 0
    assert "Round 1 (main):" in capsys.readouterr().out
    target = tmp_path / "results.json"
    assert main(["tournament", "export", tid, "-o", str(target), *db]) == 0
    results = json.loads(target.read_text())
    assert results["finished"]
    final = results["matches"][-1]
    assert final["advanced"] == [results["champion"]]
    assert final["games"][-1]["placement"][0] == [results["champion"]]
    assert all(g["seed"] > 0 for m in results["matches"] for g in m["games"])
    capsys.readouterr()
    assert main(["tournament", "show", "nowhere", *db]) == 2
    assert "no tournament with id 'nowhere'" in capsys.readouterr().err


def test_a_game_that_cannot_be_played_stops_the_run_with_the_run_saved(store: Store) -> None:
    run = TournamentRun.create(
        "gone", "round_robin", [("greedy", None), ("http://127.0.0.1:9", "gone")], config=SMALL
    )
    with pytest.raises(TournamentRunError, match=r"1 game\(s\) could not be played \(RR1-1: "):
        run.run(store)
    again = load_tournament(store, run.id)
    assert again.games == {} and [m.id for m in again.tournament.pending_matches()] == ["RR1-1"]


def test_qualifiers_are_a_ladders_rated_top_n_with_at_most_k_per_owner() -> None:
    ladder = Ladder("main", SMALL)
    for source, name in [
        ("builtin:random", "@amy/a1"),
        ("builtin:random", "@amy/a2"),
        ("builtin:random", "@bob/b1"),
        ("builtin:greedy", "greedy"),
        ("builtin:random", "@amy/a3"),
        ("builtin:random", "@cy/idle"),  # never played: not rated, never qualifies
    ]:
        ladder.add(source, name)
    # Ratings from games: a1 > a2 > greedy > b1 > a3.
    for number, order in enumerate(
        [["@amy/a1", "@amy/a2"], ["@amy/a2", "greedy"], ["greedy", "@bob/b1"],
         ["@bob/b1", "@amy/a3"], ["@amy/a1", "greedy"], ["@amy/a2", "@amy/a3"]]
    ):  # fmt: skip
        ladder.board.play(f"g{number}", order)
    ranked = [row.snake for row in ladder.standings() if row.games]
    names = [e.name for e in qualifiers(ladder, 4, per_owner=1)]
    # Best first, skipping amy's snakes past her first; built-ins belong to nobody; 3 of
    # the 5 rated entries are left once the cap bites, fewer than the 4 asked.
    best_amy = next(n for n in ranked if n.startswith("@amy/"))
    assert names == [n for n in ranked if not n.startswith("@amy/") or n == best_amy]
    assert len(names) == 3
    assert sum(1 for n in names if n.startswith("@amy/")) == 1
    assert "@cy/idle" not in names
    uncapped = [e.name for e in qualifiers(ladder, 3)]
    assert uncapped == ranked[:3]
    ladder.entries["@amy/a1"].paused = True  # paused by its owner: it does not qualify
    assert "@amy/a1" not in [e.name for e in qualifiers(ladder, 5)]
    assert entry_owner("@amy/a1") == "amy" and entry_owner("greedy") is None


def test_tournament_cli_entries_rounds_and_qualifying(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = ["--database", f"sqlite:///{tmp_path / 'cli.db'}"]
    refused = ["tournament", "create", "Early", "-W", "7", "-H", "7", *db]
    assert main(refused) == 2
    assert "give --later" in capsys.readouterr().err
    bad_time = [*refused, "--later", "--starts-at", "2030-01-01T00:00:00"]
    assert main(bad_time) == 2
    assert "--starts-at '2030-01-01T00:00:00': give its time zone" in capsys.readouterr().err
    create = ["tournament", "create", "Later cup", "--later", "--per-owner", "1",
              "--max-entrants", "4", "-W", "7", "-H", "7", *db]  # fmt: skip
    assert main(create) == 0
    tid = capsys.readouterr().out.strip()
    for bot in ("builtin:random", "builtin:greedy", "builtin:hunter?depth=1"):
        assert main(["tournament", "enter", tid, bot, *db]) == 0
    assert "3 entrant(s)" in capsys.readouterr().out
    assert main(["tournament", "withdraw", tid, "hunter", *db]) == 0
    assert main(["tournament", "withdraw", tid, "hunter", *db]) == 2
    assert "no entrant 'hunter'" in capsys.readouterr().err
    # A ladder's rated top 2 replace the entrants.
    ladder = ["ladder", "create", "main", "-W", "7", "-H", "7", *db]
    assert main(ladder) == 0
    for bot in ("random", "greedy", "hunter?depth=1"):
        assert main(["ladder", "add", "main", f"builtin:{bot}", "--no-check", *db]) == 0
    assert main(["ladder", "run", "main", "--games", "6", *db]) == 0
    capsys.readouterr()
    assert main(["tournament", "qualify", tid, "--ladder", "main", "--top", "2", *db]) == 0
    picked = [line.split(". ", 1)[1] for line in capsys.readouterr().out.splitlines()]
    assert len(picked) == 2
    assert main(["tournament", "show", tid, *db]) == 0
    assert "not started" in capsys.readouterr().out
    assert main(["tournament", "round", tid, *db]) == 0
    out = capsys.readouterr().out
    assert "Final: played" in out and "finished" in out
    assert main(["tournament", "enter", tid, "builtin:random", *db]) == 2
    assert "has started" in capsys.readouterr().err
    assert main(["tournament", "round", tid, *db]) == 2
    assert "finished; nothing to play" in capsys.readouterr().err
