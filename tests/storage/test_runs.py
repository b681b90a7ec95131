"""Runs in a shared database, on SQLite and PostgreSQL: one server each, games recorded once.

Several "servers" here are several :class:`Store` s on one database (each its own
connections), racing from threads the way two server processes do.
"""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Callable
from typing import TypeVar

import sqlalchemy as sa
from alembic import command

from snakewar.arena.config import MatchConfig
from snakewar.arena.ladder import Ladder, LadderGame, LadderGameRecordedError
from snakewar.arena.ratings import Rating
from snakewar.arena.tournament_runner import TournamentGame, TournamentRun, load_tournament
from snakewar.storage import Store, alembic_config
from snakewar.storage.models import ArenaRunState, TournamentGameModel

SMALL = MatchConfig.create("battlesnake", {"width": 7, "height": 7}, max_turns=60)
T = TypeVar("T")


def soon(seconds: float = 60) -> dt.datetime:
    return dt.datetime.now(dt.UTC) + dt.timedelta(seconds=seconds)


def gone() -> dt.datetime:
    return dt.datetime.now(dt.UTC) - dt.timedelta(seconds=1)


def race(count: int, attempt: Callable[[int], T]) -> list[T]:
    """Run ``attempt(i)`` on ``count`` threads released at once; their results by ``i``."""
    barrier = threading.Barrier(count)
    results: dict[int, T] = {}
    errors: list[BaseException] = []

    def go(i: int) -> None:
        try:
            barrier.wait(30)
            results[i] = attempt(i)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=go, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not errors, errors
    return [results[i] for i in range(count)]


def test_a_run_is_claimed_by_one_server_until_its_lease_runs_out(store: Store) -> None:
    runs = store.runs
    assert runs.get("tournament:cup") is None
    assert runs.claim("tournament:cup", "tournament", "cup", "a", soon())
    row = runs.get("tournament:cup")
    assert row is not None and row.state == "running" and row.server_id == "a" and row.held()
    # Another server cannot start it while "a" vouches for it; "a" itself may again.
    assert not runs.claim("tournament:cup", "tournament", "cup", "b", soon())
    assert runs.resume("tournament:cup", "b", soon()) is None
    assert runs.claim("tournament:cup", "tournament", "cup", "a", soon())
    # "a" dies: its lease runs out, and the run is there for the next server to resume.
    assert runs.renew("a", {"tournament:cup": 3}, gone()) == {"tournament:cup": False}
    taken = runs.resume("tournament:cup", "b", soon())
    assert taken is not None and taken.server_id == "b" and taken.done == 3
    assert runs.resume("tournament:cup", "c", soon()) is None  # "b" holds it now
    # "a" comes back to renew: it lost the run, and is told so (left out).
    assert runs.renew("a", {"tournament:cup": 4}, soon()) == {}
    # Only the holder ends it.
    assert not runs.finish("tournament:cup", "a", ArenaRunState.DONE, 9)
    assert runs.finish("tournament:cup", "b", ArenaRunState.DONE, 9)
    ended = runs.get("tournament:cup")
    assert ended is not None and (ended.state, ended.done, ended.server_id) == ("done", 9, None)
    assert runs.resume("tournament:cup", "c", soon()) is None  # done: nothing to resume


def test_of_servers_claiming_at_once_exactly_one_wins(db_url: str) -> None:
    stores = [Store(db_url) for _ in range(6)]

    def claim_and_resume(key: str) -> None:
        won = race(6, lambda i: stores[i].runs.claim(key, "ladder", key[7:], f"s{i}", soon()))
        assert won.count(True) == 1, won
        row = stores[0].runs.get(key)
        assert row is not None and row.server_id == f"s{won.index(True)}"
        # Its server dies: of six servers resuming at once, one takes it over.
        stores[0].runs.renew(f"s{won.index(True)}", {key: 0}, gone())
        taken = race(6, lambda i: stores[i].runs.resume(key, f"t{i}", soon()))
        winners = [t for t in taken if t is not None]
        assert len(winners) == 1, taken
        assert stores[0].runs.get(key).server_id == winners[0].server_id  # type: ignore[union-attr]

    try:
        for round_ in range(5):
            claim_and_resume(f"ladder:l{round_}")
    finally:
        for opened in stores:
            opened.close()


def test_a_server_that_stops_lets_its_runs_go_still_running(store: Store) -> None:
    runs = store.runs
    runs.claim("ladder:x", "ladder", "x", "a", soon(), games=10, base=4)
    runs.claim("ladder:y", "ladder", "y", "b", soon())
    assert runs.release("a") == 1
    row = runs.get("ladder:x")
    assert row is not None and row.state == "running" and not row.held()
    assert (row.games, row.base, row.owed(7)) == (10, 4, 7)
    assert row.owed(20) == 0
    # At once, without waiting for the lease: the next server resumes it.
    assert runs.resume("ladder:x", "c", soon()) is not None
    assert runs.get("ladder:y").server_id == "b"  # type: ignore[union-attr]


def test_a_stop_reaches_the_server_that_plays_the_run(store: Store) -> None:
    runs = store.runs
    assert runs.request_stop("tournament:none") is None  # never run
    runs.claim("tournament:t", "tournament", "t", "a", soon())
    assert runs.request_stop("tournament:t") == "stopping"
    assert runs.renew("a", {"tournament:t": 2}, soon()) == {"tournament:t": True}
    assert runs.finish("tournament:t", "a", ArenaRunState.STOPPED, 2)
    assert runs.request_stop("tournament:t") is None  # not running any more
    # A run nobody plays (its server died) is stopped at once, and not resumed.
    runs.claim("tournament:t", "tournament", "t", "a", soon())
    runs.release("a")
    assert runs.request_stop("tournament:t") == "stopped"
    assert runs.get("tournament:t").state == "stopped"  # type: ignore[union-attr]
    assert runs.resume("tournament:t", "b", soon()) is None


def test_ensure_records_a_run_once(store: Store) -> None:
    runs = store.runs
    runs.ensure("tournament:old", "tournament", "old")
    runs.claim("tournament:old", "tournament", "old", "a", soon())
    # Kept as it is:
    runs.ensure("tournament:old", "tournament", "old", ArenaRunState.FAILED, "nope")
    row = runs.get("tournament:old")
    assert row is not None and row.state == "running" and row.server_id == "a"
    assert runs.keys("tournament") == {"tournament:old"} and runs.keys("ladder") == set()
    broken = ("tournament:broken", "tournament", "broken")
    runs.ensure(*broken, ArenaRunState.FAILED, "cannot be loaded")
    assert [r.key for r in runs.runs(ArenaRunState.FAILED)] == ["tournament:broken"]
    assert runs.get("tournament:broken").error == "cannot be loaded"  # type: ignore[union-attr]


def cup(store: Store) -> TournamentRun:
    run = TournamentRun.create(
        "cup",
        "single_elimination",
        [("random", f"s{i}") for i in range(4)],
        config=SMALL,
        seed=5,
        tid="cup",
    )
    store.tournaments.create(run)
    return run


def game(match: str, number: int, winner: str, loser: str) -> TournamentGame:
    return TournamentGame(
        match, number, f"g-{match}-{number}", 7, (winner, loser), ((winner,), (loser,)), 9
    )


def test_a_match_game_is_recorded_once(store: Store) -> None:
    run = cup(store)
    (first, second) = [m.id for m in run.tournament.pending_matches()]
    won = game(first, 0, "s0", "s3")
    assert store.tournaments.record_game("cup", won) == won
    # A second try of that game (another server, a resumed run) changes nothing: the
    # game recorded first is the one the bracket follows.
    other = game(first, 0, "s3", "s0")
    assert store.tournaments.record_game("cup", other) == won
    store.tournaments.record_game("cup", game(second, 0, "s1", "s2"))
    again = load_tournament(store, "cup")
    assert [g.game_id for g in again.games[first]] == [won.game_id]
    assert again.tournament.pending_matches()[0].entrants == ["s0", "s1"]


def test_games_recorded_at_once_get_one_row_each(db_url: str) -> None:
    stores = [Store(db_url) for _ in range(4)]
    try:
        run = cup(stores[0])
        (first, second) = [m.id for m in run.tournament.pending_matches()]
        # Four writers record the same two games at once: two rows, ordinals unique.
        recorded = race(
            8,
            lambda i: stores[i % 4].tournaments.record_game(
                "cup",
                game(first if i % 2 else second, 0, *(("s0", "s3") if i % 2 else ("s1", "s2"))),
            ),
        )
        assert {g.game_id for g in recorded} == {f"g-{first}-0", f"g-{second}-0"}
        with stores[0].db.session() as session:
            rows = session.execute(
                sa.select(TournamentGameModel.ordinal, TournamentGameModel.match_id)
            ).all()
        assert sorted(o for o, _ in rows) == [0, 1] and {m for _, m in rows} == {first, second}
    finally:
        for opened in stores:
            opened.close()


def test_a_ladder_game_recorded_twice_is_refused_and_changes_nothing(store: Store) -> None:
    ladder = Ladder("lad", SMALL, seed=4)
    ladder.add("random")
    ladder.add("greedy")
    store.ladders.create(ladder)
    played = LadderGame(0, "g0", 3, ("random", "greedy"), (("random",), ("greedy",)), 5)
    ratings = {"random": Rating(30.0, 7.0), "greedy": Rating(20.0, 7.0)}
    store.ladders.record_game("lad", played, ratings, [])
    other = {"random": Rating(1.0, 1.0), "greedy": Rating(1.0, 1.0)}
    try:
        store.ladders.record_game("lad", played, other, [])
    except LadderGameRecordedError as exc:
        assert "game 0 is recorded already" in str(exc)
    else:
        raise AssertionError("a game number recorded twice was taken")
    again = store.ladders.get("lad")
    assert again is not None and again.games_played == 1
    assert again.board.ratings["random"].mu == 30.0


def test_copies_recorded_by_an_older_snakewar_are_dropped_on_upgrade(db_url: str) -> None:
    # Two servers that both resumed a tournament (before revision 0010) recorded its
    # games twice: the bracket could not be loaded (the tournament answered 400).
    command.upgrade(alembic_config(db_url), "0009")
    engine = sa.create_engine(db_url)
    stamp = dt.datetime.now(dt.UTC)
    with engine.begin() as connection:
        connection.execute(
            sa.text(
                "INSERT INTO tournaments (id, name, game, params, timeout_ms, max_turns, seed, "
                "format, heat_size, best_of, advance, options, created_at, updated_at) VALUES "
                "('cup', 'cup', 'battlesnake', :params, NULL, 60, 5, 'single_elimination', 2, "
                "1, 1, :options, :at, :at)"
            ),
            {
                "params": '{"width": 7, "height": 7}',
                "options": '{"grand_final_reset": true, "swiss_rounds": null, "swiss_seed": null}',
                "at": stamp,
            },
        )
        for position in range(4):
            connection.execute(
                sa.text(
                    "INSERT INTO tournament_entrants (tournament_id, position, name, source, "
                    "seed_rank) VALUES ('cup', :p, :name, 'builtin:random', :p)"
                ),
                {"p": position, "name": f"s{position}"},
            )
        # Match r1m1 recorded three times (by two servers), r1m2 once.
        for ordinal, match in enumerate(["R1-1", "R1-1", "R1-2", "R1-1"]):
            winner, loser = ("s0", "s3") if match == "R1-1" else ("s1", "s2")
            connection.execute(
                sa.text(
                    "INSERT INTO tournament_games (tournament_id, ordinal, match_id, number, "
                    "game_id, seed, seats, placement, turns, played_at) VALUES ('cup', :o, :m, "
                    "0, :g, 7, :seats, :placement, 9, :at)"
                ),
                {
                    "o": ordinal,
                    "m": match,
                    "g": f"g-{match}",
                    "seats": f'["{winner}", "{loser}"]',
                    "placement": f'[["{winner}"], ["{loser}"]]',
                    "at": stamp,
                },
            )
    engine.dispose()
    with Store(db_url) as store:
        run = load_tournament(store, "cup")
        assert [len(run.games[m]) for m in ("R1-1", "R1-2")] == [1, 1]
        assert run.tournament.pending_matches()[0].entrants == ["s0", "s1"]
        # The next game recorded gets an ordinal after the last one kept.
        final = run.tournament.pending_matches()[0].id
        store.tournaments.record_game("cup", game(final, 0, "s0", "s1"))
        assert load_tournament(store, "cup").is_finished
