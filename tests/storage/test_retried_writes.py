"""A game's writes tried again after a lost connection store what they store once.

A Ray actor's writes go through :func:`~snakewar.storage.retried`: when the database's
answer is lost with the connection, the same call is made again, although its first
try may have been committed.  ``begin`` and ``add_calls`` must then neither fail on the
game's key nor store a row (or a call) twice.  On SQLite and PostgreSQL (``store``).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any, TypeVar

import pytest
import sqlalchemy as sa
from sqlalchemy.exc import OperationalError

from snakewar.storage import GameExistsError, Store, retried
from tests.storage.test_calls import call
from tests.storage.test_games import SPEC, record, started

T = TypeVar("T")


def count(store: Store, table: str, game_id: str) -> int:
    with store.db.engine.connect() as connection:
        found = connection.execute(
            sa.text(f"SELECT count(*) FROM {table} WHERE game_id = :g"), {"g": game_id}
        ).scalar()
    return int(found or 0)


def answer_lost_once(fn: Callable[..., T]) -> Callable[..., T]:
    """``fn``, whose first call is done (committed) but answers as a dropped connection."""
    calls: list[int] = []

    def once(*args: Any, **kwargs: Any) -> T:
        result = fn(*args, **kwargs)
        calls.append(1)
        if len(calls) == 1:
            raise OperationalError("COMMIT", {}, Exception("server closed the connection"))
        return result

    return once


def lease(holder: str) -> tuple[str, dt.datetime]:
    return holder, dt.datetime.now(dt.UTC) + dt.timedelta(minutes=5)


def test_begin_done_twice_stores_the_game_once(store: Store) -> None:
    rec = record(41)
    listing, data = started(rec, 2)
    first = store.games.begin(listing, data, spec=SPEC, owner_id=None, lease=lease("ray-a"))
    again = store.games.begin(listing, data, spec=SPEC, owner_id=None, lease=lease("ray-a"))
    assert again.id == first.id == rec.id
    assert (again.status, again.turns) == ("running", 2)
    with store.db.engine.connect() as connection:
        rows = connection.execute(
            sa.text("SELECT count(*), min(server_id) FROM games WHERE id = :g"), {"g": rec.id}
        ).one()
    assert tuple(rows) == (1, "ray-a")
    assert count(store, "frames", rec.id) == 3
    assert [f.turn for f in store.games.data(rec.id).frames] == [0, 1, 2]
    # The game goes on from there as if begun once.
    store.games.add_frame(rec.id, started(rec, 3)[1].frames[3])
    assert store.games.get(rec.id).turns == 3  # type: ignore[union-attr]


def test_begin_without_a_lease_done_twice_stores_the_game_once(store: Store) -> None:
    rec = record(42)
    store.games.begin(*started(rec, 0))
    store.games.begin(*started(rec, 0))
    assert count(store, "frames", rec.id) == 1


def test_a_begin_whose_answer_was_lost_is_tried_again_and_done(store: Store) -> None:
    rec = record(43)
    begin = retried(answer_lost_once(store.games.begin))
    row = begin(*started(rec, 1), spec=SPEC, lease=lease("ray-b"))
    assert row.id == rec.id and row.turns == 1
    assert count(store, "frames", rec.id) == 2


def test_another_begin_of_a_stored_id_is_still_refused(store: Store) -> None:
    rec = record(44)
    listing, data = started(rec, 1)
    store.games.begin(listing, data, lease=lease("ray-a"))
    # Another actor or server, with the very same game: not its row to take.
    with pytest.raises(GameExistsError):
        store.games.begin(listing, data, lease=lease("ray-other"))
    with pytest.raises(GameExistsError):
        store.games.begin(listing, data)  # nobody's lease
    with pytest.raises(GameExistsError):
        store.games.begin(listing, data, owner_id=7, lease=lease("ray-a"))  # another owner
    with pytest.raises(GameExistsError):
        store.games.begin(*started(rec, 2), lease=lease("ray-a"))  # other frames
    store.games.add_frame(rec.id, started(rec, 2)[1].frames[2])
    with pytest.raises(GameExistsError):
        store.games.begin(listing, data, lease=lease("ray-a"))  # it has played on
    store.games.finish(rec.id, "cancelled")
    with pytest.raises(GameExistsError):
        store.games.begin(*started(rec, 2), lease=lease("ray-a"))  # and ended
    assert count(store, "frames", rec.id) == 3


def test_add_calls_done_twice_stores_the_calls_once(store: Store) -> None:
    rec = record(45)
    store.games.begin(*started(rec, 1))
    starts = [call("start", "a", 0), call("start", "b", 0)]
    moves = [call("move", "a", 0), call("move", "b", 0)]
    for _ in range(2):
        store.games.add_calls(rec.id, 0, starts)
    for _ in range(2):
        store.games.add_calls(rec.id, 0, moves)
    assert store.games.calls(rec.id, 0) == [*starts, *moves]
    assert count(store, "game_calls", rec.id) == 1


def test_add_calls_whose_answer_was_lost_is_tried_again_and_done(store: Store) -> None:
    rec = record(46)
    store.games.begin(*started(rec, 1))
    first = [call("move", "a", 1)]
    retried(answer_lost_once(store.games.add_calls))(rec.id, 1, first)
    assert store.games.calls(rec.id, 1) == first
    later = [call("end", "a", 1)]
    retried(answer_lost_once(store.games.add_calls))(rec.id, 1, later)
    assert store.games.calls(rec.id, 1) == [*first, *later]
    assert count(store, "game_calls", rec.id) == 1


def test_an_empty_round_stores_the_turn_once(store: Store) -> None:
    rec = record(47)
    store.games.begin(*started(rec, 1))
    store.games.add_calls(rec.id, 1, [])
    store.games.add_calls(rec.id, 1, [])
    assert store.games.calls(rec.id, 1) == []
    assert count(store, "game_calls", rec.id) == 1
