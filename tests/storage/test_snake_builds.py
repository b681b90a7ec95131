"""An upload's build rows: begun once, renewed, failed when stopped or left behind.

The background builds (:mod:`snakewar.server.builds`) rely on these statements: one
build at a time (:meth:`begin_build` is one conditional update), renewal by the
server building it, and the sweep that fails builds nobody renewed for a lease.  On
SQLite and on PostgreSQL (``postgres`` marker).
"""

from __future__ import annotations

import datetime as dt

import pytest

from snakewar.storage import SnakeNotFoundError, Store, UserNotFoundError
from snakewar.storage.models import SnakeModel


def _upload(store: Store, name: str, status: str | None) -> int:
    try:
        owner = store.accounts.user("ann")
    except UserNotFoundError:
        owner = store.accounts.create_user("ann", "a long password")
    snake = store.snakes.register(
        owner.id, name, "halite3", "upload", language="python3", archive=b"x",
        build_status=status,
    )  # fmt: skip
    return snake.id


def _age(store: Store, snake_id: int, seconds: float) -> None:
    with store.db.session() as session:
        row = session.get(SnakeModel, snake_id)
        assert row is not None
        row.updated_at = dt.datetime.now(dt.UTC) - dt.timedelta(seconds=seconds)


def test_a_build_begins_once_until_it_ends(store: Store) -> None:
    snake = _upload(store, "kit", None)
    store.snakes.set_build(snake, "failed", language="python3", log="old log", error="old")
    assert store.snakes.begin_build(snake) is True
    began = store.snakes.get(snake)
    assert (began.build_status, began.build_error) == ("building", None)
    assert store.snakes.build_log(snake) == ""  # the last build's log is not this one's
    assert store.snakes.begin_build(snake) is False  # one at a time
    store.snakes.set_build(snake, "ready", language="python3", log="built", build=b"folder")
    assert store.snakes.begin_build(snake) is True
    with pytest.raises(SnakeNotFoundError):
        store.snakes.begin_build(snake + 100)


def test_only_builds_nobody_renewed_are_failed(store: Store) -> None:
    left, renewed, done = (_upload(store, n, "building") for n in ("left", "renewed", "done"))
    store.snakes.set_build(done, "ready", language="python3", log="", build=b"folder")
    for snake in (left, renewed, done):
        _age(store, snake, 3600)
    store.snakes.renew_builds([renewed, done])
    assert store.snakes.fail_stale_builds(60.0, "its server stopped") == 1
    failed = store.snakes.get(left)
    assert (failed.build_status, failed.build_error) == ("failed", "its server stopped")
    assert store.snakes.build_log(left) == "(the build did not end: its server stopped)"
    assert store.snakes.get(renewed).build_status == "building"
    assert store.snakes.get(done).build_status == "ready"  # a finished build is no one's
    assert store.snakes.build(done) == b"folder"
    # A build its server stops is failed at once; one that ended is left as it is.
    assert store.snakes.fail_build(renewed, "stopped") is True
    assert store.snakes.fail_build(done, "stopped") is False
    assert store.snakes.get(renewed).build_error == "stopped"
