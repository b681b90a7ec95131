"""A game's writes are tried again while the database cannot be reached, for a bounded time.

:func:`snakewar.storage.retrying` (a Ray worker's writes) and
:meth:`snakewar.storage.AsyncStore.run_retrying` (a server's) try a call again only for
errors that mean the database was not reached (:func:`snakewar.storage.unreachable`),
and give up after ``WRITE_RETRY_S``.  The whole story, with a real PostgreSQL server
stopped and started under two replicas, is ``tests/server/test_postgres_restart.py``.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

import pytest
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError

import snakewar.storage
import snakewar.storage.database
from snakewar.storage import AsyncStore, Store, StoreError, retried, retrying, unreachable


def refused() -> OperationalError:
    return OperationalError("SELECT 1", {}, ConnectionRefusedError("connection refused"))


def failing(times: int, error: Callable[[], Exception] = refused) -> Callable[[int], int]:
    """A write that fails ``times`` times with ``error``, then doubles its argument."""
    calls = [0]

    def add_frame(value: int) -> int:
        calls[0] += 1
        if calls[0] <= times:
            raise error()
        return 2 * value

    return add_frame


def test_unreachable_is_a_lost_or_refused_connection_only() -> None:
    assert unreachable(refused())
    dropped = DBAPIError("SELECT 1", {}, Exception("gone"), connection_invalidated=True)
    assert unreachable(dropped)
    assert not unreachable(IntegrityError("INSERT", {}, Exception("duplicate key")))
    assert not unreachable(StoreError("game 'x' is aborted"))
    assert not unreachable(ValueError("bad"))


def test_a_write_is_tried_again_until_the_database_answers(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING, "snakewar.storage"):
        assert retrying(failing(3), 21) == 42
        assert retried(failing(2))(5) == 10
    said = [r.getMessage() for r in caplog.records]
    assert any("add_frame cannot reach the database" in line for line in said), said
    assert any("add_frame reached the database again after 4 tries" in line for line in said)


def test_an_answer_of_the_database_is_not_tried_again() -> None:
    write = failing(1, lambda: StoreError("game 'x' is aborted; frames are added to running"))
    with pytest.raises(StoreError, match="aborted"):
        retrying(write, 1)
    assert retrying(write, 1) == 2  # it was called once, not twice


def test_a_database_gone_for_good_ends_the_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(snakewar.storage.database, "WRITE_RETRY_S", 0.5)
    started = time.monotonic()
    with pytest.raises(OperationalError):
        retrying(failing(10**6), 1)
    assert time.monotonic() - started < 60  # bounded (0.5 s, on any machine far less than this)


def test_the_async_store_waits_on_the_loop_and_gives_up_in_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async def scenario() -> None:
        with Store("sqlite://") as store:
            astore = AsyncStore(store, workers=1)
            try:
                assert await astore.run_retrying(failing(3), 4) == 8
                with pytest.raises(IntegrityError):
                    await astore.run_retrying(
                        failing(1, lambda: IntegrityError("INSERT", {}, Exception("dup"))), 1
                    )
                monkeypatch.setattr(snakewar.storage, "WRITE_RETRY_S", 0.5)
                with pytest.raises(OperationalError):
                    await astore.run_retrying(failing(10**6), 1)
            finally:
                astore.close()

    asyncio.run(scenario())
