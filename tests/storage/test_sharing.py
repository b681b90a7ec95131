"""Saved games and export jobs in the store, on SQLite and PostgreSQL.

Saving titles a game per user (again: retitles), a deleted game leaves no saved row; an
export job is made queued (refused past the user's jobs in flight), claimed, moved on,
finished with its archive or failed; a job whose lease ran out is failed, an expired one
deleted; the games an export holds are a ladder's, a tournament's or a user's, newest
first, finished ones only.
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt
from functools import cache

import pytest
import sqlalchemy as sa

from snakewar.engine.protocol import PlayedGame
from snakewar.errors import NotFoundError
from snakewar.games.battlesnake.adapter import match_spec, played_game
from snakewar.games.battlesnake.records import GameRecord
from snakewar.games.battlesnake.referee.batch import SnakeMatch, play_match
from snakewar.storage import Store, StoreError
from snakewar.storage.database import now
from snakewar.storage.models import (
    ExportJobModel,
    LadderGameModel,
    LadderModel,
    TournamentGameModel,
    TournamentModel,
)
from snakewar.storage.sharing import JobsInFlightError

MATCH = SnakeMatch(snakes=("random", "random"))


@cache
def record(seed: int) -> GameRecord:
    return asyncio.run(play_match(MATCH, seed))


def played(seed: int, game_id: str) -> PlayedGame:
    return dataclasses.replace(played_game(record(seed), spec=match_spec(MATCH)), id=game_id)


def stored(store: Store, game_id: str, *, owner: int | None = None, minutes: int = 0) -> str:
    when = now() - dt.timedelta(minutes=60 - minutes)
    assert store.games.save_played(played(7, game_id), created_at=when, owner_id=owner)
    return game_id


def test_saving_titles_a_game_per_user_and_retitles_it(store: Store) -> None:
    ann = store.accounts.create_user("ann", "!", allow_reserved=True)
    bob = store.accounts.create_user("bob", "!", allow_reserved=True)
    first, second = stored(store, "g1"), stored(store, "g2")
    store.sharing.save_game(ann.id, first, "Good one")
    store.sharing.save_game(ann.id, second, "Another")
    saved = store.sharing.save_game(ann.id, first, " Best ")
    assert saved.title == "Best" and saved.entrants == ["random-1", "random-2"]
    assert [s.game_id for s in store.sharing.saved_games(ann.id)] == [second, first]
    assert store.sharing.saved_games(bob.id) == []
    with pytest.raises(NotFoundError):
        store.sharing.save_game(ann.id, "missing", "x")
    for title in ("", "  ", "x" * 121):
        with pytest.raises(StoreError):
            store.sharing.save_game(ann.id, first, title)
    assert not store.sharing.unsave_game(bob.id, first)
    assert store.sharing.unsave_game(ann.id, second)
    # A deleted game takes its saved rows with it.
    store.games.delete(first)
    assert store.sharing.saved_games(ann.id) == []


def test_an_export_job_goes_from_queued_to_done_with_its_archive(store: Store) -> None:
    ann = store.accounts.create_user("ann", "!", allow_reserved=True)
    job = store.sharing.create_job(
        ann.id, "user", "ann", 3, server_id="s1", lease_s=60, in_flight=1, keep_s=3600
    )
    assert (job.state, job.total, job.done, job.size, job.server_id) == ("queued", 3, 0, 0, "s1")
    with pytest.raises(JobsInFlightError):
        store.sharing.create_job(
            ann.id, "user", "ann", 3, server_id="s1", lease_s=60, in_flight=1, keep_s=3600
        )
    assert store.sharing.claim(job.id, 60)
    assert not store.sharing.claim(job.id, 60)  # once
    store.sharing.progress(job.id, 2, 500, 60)
    moving = store.sharing.job(job.id)
    assert moving is not None and (moving.state, moving.done, moving.size) == ("running", 2, 500)
    assert store.sharing.archive(job.id) is None
    store.sharing.finish(job.id, b"PK-archive", 3)
    done = store.sharing.job(job.id)
    assert done is not None and (done.state, done.done, done.size) == ("done", 3, 10)
    assert store.sharing.archive(job.id) == b"PK-archive"
    assert [j.id for j in store.sharing.jobs(ann.id)] == [job.id]
    # Done, it no longer counts against the user's jobs in flight.
    store.sharing.create_job(
        ann.id, "user", "ann", 1, server_id="s1", lease_s=60, in_flight=1, keep_s=3600
    )


def test_lost_jobs_are_failed_and_expired_ones_deleted(store: Store) -> None:
    ann = store.accounts.create_user("ann", "!", allow_reserved=True)
    lost = store.sharing.create_job(
        ann.id, "user", "ann", 1, server_id="gone", lease_s=60, in_flight=5, keep_s=3600
    )
    kept = store.sharing.create_job(
        ann.id, "user", "ann", 1, server_id="here", lease_s=60, in_flight=5, keep_s=0
    )
    with store.db.session() as session:
        session.execute(
            sa.update(ExportJobModel)
            .where(ExportJobModel.id == lost.id)
            .values(lease_until=now() - dt.timedelta(seconds=1))
        )
    assert store.sharing.renew("here", [kept.id, lost.id], 60) == 1
    assert store.sharing.fail_expired() == 1
    failed = store.sharing.job(lost.id)
    assert failed is not None and failed.state == "failed" and "interrupted" in failed.error
    # Unfinished jobs are not deleted even when past their expiry; finished ones are.
    assert store.sharing.delete_expired() == 0
    store.sharing.fail(kept.id, "no")
    assert store.sharing.delete_expired() == 1
    assert store.sharing.job(kept.id) is None


def test_the_games_of_an_export_are_the_newest_finished_ones(store: Store) -> None:
    ann = store.accounts.create_user("ann", "!", allow_reserved=True)
    games = [stored(store, f"g{i}", owner=ann.id, minutes=i) for i in range(4)]
    stored(store, "someone-elses", minutes=10)
    assert store.sharing.game_ids("user", "ann", 10) == list(reversed(games))
    assert store.sharing.game_ids("user", "ann", 2) == ["g3", "g2"]
    assert store.sharing.game_ids("user", "nobody", 10) is None
    when = now()
    with store.db.session() as session:
        ladder = LadderModel(
            name="lad",
            game="battlesnake",
            params={},
            game_size=2,
            seed=1,
            games_played=2,
            created_at=when,
            updated_at=when,
        )
        session.add(ladder)
        session.flush()
        for number, game_id in enumerate(("g0", "g2", "deleted-since")):
            session.add(
                LadderGameModel(
                    ladder_id=ladder.id,
                    number=number,
                    game_id=game_id,
                    seed=1,
                    seats=[],
                    placement=[],
                    turns=1,
                    played_at=when,
                )
            )
        session.add(
            TournamentModel(
                id="cup",
                name="Cup",
                game="battlesnake",
                params={},
                seed=1,
                format="x",
                heat_size=2,
                best_of=1,
                advance=1,
                options={},
                created_at=when,
                updated_at=when,
            )
        )
        session.flush()
        session.add(
            TournamentGameModel(
                tournament_id="cup",
                ordinal=0,
                match_id="m",
                number=0,
                game_id="g1",
                seed=1,
                seats=[],
                placement=[],
                turns=1,
                played_at=when,
            )
        )
    assert store.sharing.game_ids("ladder", "lad", 10) == ["g2", "g0"]
    assert store.sharing.game_ids("ladder", "nope", 10) is None
    assert store.sharing.game_ids("tournament", "cup", 10) == ["g1"]
    assert store.sharing.game_ids("tournament", "nope", 10) is None
    with pytest.raises(StoreError):
        store.sharing.game_ids("everything", "x", 10)
