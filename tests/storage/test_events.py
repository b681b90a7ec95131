"""Game writes notify PostgreSQL at commit; the process's listener wakes waiters, reconnects.

Real PostgreSQL (the ``postgres`` marker) for the notifications and the listener: the
writes of :class:`~snakewar.storage.games.SqlGameRepository` are read back with a plain
``LISTEN`` connection, and the listener of :class:`~snakewar.storage.events.GameEvents`
has its backend killed (``pg_terminate_backend``: what a PostgreSQL restart looks like
to a client).  SQLite: the polling fallback wakes waiters with no notification at all.
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt
from pathlib import Path

import psycopg
import pytest
import sqlalchemy as sa

from snakewar.games.battlesnake.adapter import frames_of
from snakewar.storage import Store, StoreError
from snakewar.storage.events import MAX_PAYLOAD, GameEvent, GameEvents, parse_payload
from snakewar.storage.games import NOTIFY_CHANNEL
from tests.storage.test_games import played, record, started

PATIENCE_S = 60.0
"""How long a wake-up may take on a loaded machine before the test fails."""


def conninfo(db_url: str) -> str:
    """A plain libpq connection string for the test's database (its schema kept)."""
    return sa.make_url(db_url).set(drivername="postgresql").render_as_string(hide_password=False)


def test_payloads_are_checked_before_use() -> None:
    assert parse_payload("abc:12") == GameEvent("abc", "12")
    assert parse_payload("a:b:end") == GameEvent("a:b", "end")
    assert parse_payload("g:status") == GameEvent("g", "status")
    too_long_id = "x" * 101
    for bad in (
        "",
        "noevent",
        ":3",
        "g:",
        "g:-1",
        "g:1.5",
        "g:ende",
        "g:\u0663",  # a digit, but not an ASCII one
        "g:" + "9" * 13,
        f"{too_long_id}:1",
        "g:" + "1" * MAX_PAYLOAD,
        None,
        b"g:1",
    ):
        assert parse_payload(bad) is None, bad


@pytest.mark.postgres
@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
def test_every_game_write_notifies_at_commit_and_failed_ones_do_not(
    store: Store, db_url: str
) -> None:
    rec = record(11)
    listing, data = started(rec, 2)
    ids = [f"notify-{n}" for n in range(5)]
    with psycopg.connect(conninfo(db_url), autocommit=True) as listener:
        listener.execute(f"LISTEN {NOTIFY_CHANNEL}")
        games = store.games
        games.begin(dataclasses.replace(listing, id=ids[0]), data)
        games.add_frame(ids[0], frames_of(rec)[3])
        games.add_frame(ids[0], frames_of(rec)[3])  # stored already: nothing changes
        with pytest.raises(StoreError):  # a gap: refused, rolled back
            games.add_frame(ids[0], frames_of(rec)[6])
        games.finish(ids[0], "complete", dataclasses.replace(played(11), id=ids[0]))
        games.save_played(dataclasses.replace(played(11), id=ids[1]))
        games.begin(dataclasses.replace(listing, id=ids[2]), data)
        games.set_status(ids[2], "aborted")
        games.begin(dataclasses.replace(listing, id=ids[3]), data)
        assert games.abort_expired(dt.datetime.now(dt.UTC)) == 1
        assert games.mark_running_as_aborted() == 0
        games.begin(dataclasses.replace(listing, id=ids[4]), data)
        assert games.restart(ids[4])  # played again from turn 0
        games.abort(ids[4], "its worker died")
        seen = [
            n.payload
            for n in listener.notifies(timeout=2.0)
            if n.channel == NOTIFY_CHANNEL and n.payload.startswith("notify-")
        ]
    assert seen == [
        f"{ids[0]}:2",
        f"{ids[0]}:3",
        f"{ids[0]}:end",
        f"{ids[1]}:end",
        f"{ids[2]}:2",
        f"{ids[2]}:end",
        f"{ids[3]}:2",
        f"{ids[3]}:end",
        f"{ids[4]}:2",
        f"{ids[4]}:restart",
        f"{ids[4]}:end",
    ]


@pytest.mark.postgres
@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
def test_the_listener_reconnects_after_its_backend_is_killed_and_wakes_every_waiter(
    db_url: str,
) -> None:
    admin = sa.create_engine(db_url, poolclass=sa.NullPool)

    def notify(payload: str) -> None:
        with admin.begin() as connection:
            connection.execute(sa.select(sa.func.pg_notify(NOTIFY_CHANNEL, payload)))

    async def scenario() -> None:
        events = GameEvents(db_url)
        await events.start()
        try:
            assert await events.wait_connected(PATIENCE_S)
            first_pid = events.backend_pid
            with events.subscribe("game-a") as a, events.subscribe("game-b") as b:
                await a.wait(0)  # the first connection's wake-up: not what is tested
                await b.wait(0)
                await asyncio.to_thread(notify, "game-a:1")
                assert await a.wait(PATIENCE_S)
                assert not await b.wait(0.2)  # another game's waiter is not woken
                await asyncio.to_thread(notify, "game-b:bogus")  # malformed: ignored
                assert not await b.wait(0.2)

                # What a PostgreSQL restart looks like to the listening connection.
                with admin.begin() as connection:
                    connection.execute(sa.select(sa.func.pg_terminate_backend(first_pid)))
                for _ in range(int(PATIENCE_S / 0.05)):
                    if events.connects >= 2 and events.connected:
                        break
                    await asyncio.sleep(0.05)
                assert events.connects >= 2
                assert events.backend_pid not in (None, first_pid)
                # Anything may have been missed meanwhile: every waiter is woken.
                assert await a.wait(0)
                assert await b.wait(0)
                await asyncio.to_thread(notify, "game-b:end")
                assert await b.wait(PATIENCE_S)
                assert events.waiters == 2
            assert events.waiters == 0  # done waiters are forgotten
            assert await events.wait("game-c", 0.2) is False
            assert events.waiters == 0
        finally:
            await events.close()
        assert not events.connected

    try:
        asyncio.run(scenario())
    finally:
        admin.dispose()


def test_sqlite_waiters_are_woken_by_polling(tmp_path: Path) -> None:
    async def scenario() -> None:
        events = GameEvents(f"sqlite:///{tmp_path / 'games.db'}", poll_s=0.05)
        assert not events.listens
        await events.start()
        try:
            with events.subscribe("g") as sub:
                assert await sub.wait(PATIENCE_S)
                assert await sub.wait(PATIENCE_S)
        finally:
            await events.close()
        assert events.waiters == 0

    asyncio.run(scenario())
