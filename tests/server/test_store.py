"""The game store: SQLite always, PostgreSQL too when $SNAKEWAR_TEST_POSTGRES_URL is set.

Games are played for real with in-process bots and stored turn by turn from the
referee's ``on_turn`` callback, as the server stores them.
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt
import json
import subprocess
import sys
import textwrap
import threading
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory

from snakewar.errors import SnakewarError
from snakewar.referee import MatchSpec, play_match
from snakewar.referee.records import GameRecord, TurnRecord
from snakewar.replay import (
    load_replay,
    read_replay,
    replay_digest,
    replay_lines,
    verify_replay,
)
from snakewar.server.frames import record_frames
from snakewar.server.store import (
    DATABASE_URL_ENV,
    MAX_LIST_LIMIT,
    Base,
    GameExistsError,
    GameNotFoundError,
    GameRow,
    Store,
    StoreError,
    alembic_config,
    default_database_url,
)

SPEC = MatchSpec(snakes=("random", "random"))

# -- games ----------------------------------------------------------------------------


@cache
def game(seed: int) -> GameRecord:
    """A finished game between two random bots (the same seed, the same game)."""
    return asyncio.run(play_match(SPEC, seed))


def partial(record: GameRecord, turns: int) -> GameRecord:
    """The record as it stood after ``turns`` turns: no result, no /end calls."""
    assert len(record.turns) > turns, "the game is too short for this test"
    return dataclasses.replace(record, turns=record.turns[:turns], result=None, end={})


def play_into(store: Store, seed: int) -> GameRecord:
    """Play a game storing it as the server does: created on the first turn, then turn by turn."""

    def on_turn(record: GameRecord, turn: TurnRecord) -> None:
        if len(record.turns) == 1:
            store.create_game(record)
        else:
            store.add_turn(record, turn)

    record = asyncio.run(play_match(SPEC, seed, on_turn=on_turn))
    store.finish_game(record)
    return record


def played(record: GameRecord) -> list[tuple[int, dict[str, str], object]]:
    """What defines the turns: numbers, moves and states (latencies are timings)."""
    return [(t.turn, t.moves, t.after) for t in record.turns]


def untimed(frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Frames without the snakes' latencies (timings differ from one run to the next)."""
    return [
        {**f, "Snakes": [{k: v for k, v in s.items() if k != "Latency"} for s in f["Snakes"]]}
        for f in frames
    ]


def at(minute: int) -> dt.datetime:
    return dt.datetime(2025, 1, 1, 12, minute, tzinfo=dt.UTC)


# -- databases ------------------------------------------------------------------------


def head_revision() -> str:
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None
    return head


def stored_revision(store: Store) -> list[str]:
    with store.engine.connect() as connection:
        return list(
            connection.execute(sa.text("SELECT version_num FROM alembic_version")).scalars()
        )


# -- storing games --------------------------------------------------------------------


def test_a_game_stored_turn_by_turn_round_trips(store: Store) -> None:
    record = play_into(store, 1)
    row = store.get_game(record.id)
    assert isinstance(row, GameRow)
    assert row.status == "complete" and row.finished
    assert (row.ruleset, row.map, row.width, row.height) == ("standard", "standard", 11, 11)
    assert row.seed == 1 and row.timeout_ms == SPEC.timeout_ms and row.source == ""
    assert row.turns == len(record.turns) > 0
    assert record.result is not None
    assert row.winner_id == record.result.winner
    winner = next(e.name for e in record.snakes if e.id == record.result.winner)
    assert row.winner_name == winner
    assert [s["name"] for s in row.snakes] == [e.name for e in record.snakes]
    assert [s["color"] for s in row.snakes] == [e.color for e in record.snakes]
    assert [s["source"] for s in row.snakes] == ["builtin:random", "builtin:random"]
    assert row.created_at.tzinfo is not None and row.updated_at >= row.created_at
    assert row.config["id"] == record.id and row.config["config"]["seed"] == 1
    assert row.result is not None and row.result["result"]["digest"] == replay_digest(record)

    assert store.frame_count(record.id) == len(record.turns) + 1
    assert store.frames(record.id) == record_frames(record)
    # Byte for byte the replay the referee's own writer makes (created time aside).
    assert store.export_replay_lines(record.id) == replay_lines(
        record, created=row.config["created"]
    )


def test_finishing_stores_the_final_header_and_any_missing_turns(store: Store) -> None:
    record = game(2)
    # Created before the /start round was recorded, with only three turns.
    store.create_game(dataclasses.replace(partial(record, 3), start={}))
    assert store.get_game(record.id).config["start"] == {}  # type: ignore[union-attr]
    row = store.finish_game(record)
    assert row.turns == len(record.turns)
    assert row.config["start"] == json.loads(replay_lines(record)[0])["start"] != {}
    assert store.frames(record.id) == record_frames(record)


def test_add_turn_is_idempotent(store: Store) -> None:
    record = game(3)
    store.create_game(partial(record, 2))
    store.add_turn(record, record.turns[2])
    before = store.frames(record.id)
    for turn in record.turns[:3]:
        store.add_turn(record, turn)  # all stored already: nothing changes
    assert store.frames(record.id) == before == record_frames(partial(record, 3))
    assert store.get_game(record.id).turns == 3  # type: ignore[union-attr]


def test_add_turn_refuses_gaps_and_finished_games(store: Store) -> None:
    record = game(3)
    store.create_game(partial(record, 2))
    with pytest.raises(StoreError, match=r"turn 4 .* would leave a gap: expected turn 2"):
        store.add_turn(record, record.turns[4])
    store.set_status(record.id, "cancelled")
    with pytest.raises(StoreError, match="is cancelled; turns are added to running games only"):
        store.add_turn(record, record.turns[2])
    with pytest.raises(GameNotFoundError):
        store.add_turn(dataclasses.replace(record, id="no-such-game"), record.turns[0])
    with pytest.raises(StoreError, match="expected a TurnRecord"):
        store.add_turn(record, "turn 3")  # type: ignore[arg-type]


def test_create_game_refuses_a_stored_id(store: Store) -> None:
    record = game(4)
    store.create_game(partial(record, 1))
    with pytest.raises(GameExistsError, match=f"{record.id!r} is stored already"):
        store.create_game(record)
    assert store.frame_count(record.id) == 2


def test_create_game_with_a_finished_status_imports_a_whole_game(store: Store) -> None:
    record = game(5)
    row = store.create_game(record, "complete", created_at=at(5))
    assert row.status == "complete" and row.created_at == at(5)
    assert row.config["created"] == "2025-01-01T12:05:00Z"
    report = verify_replay(load_replay(store.export_replay_lines(record.id)))
    assert report.ok and report.complete, report.message
    with pytest.raises(StoreError, match="has no result; status 'complete' needs one"):
        store.create_game(dataclasses.replace(partial(record, 2), id="other"), "complete")
    with pytest.raises(StoreError, match="timezone-aware"):
        store.create_game(
            dataclasses.replace(record, id="naive"), created_at=dt.datetime(2025, 1, 1)
        )


def test_any_text_in_names_and_shouts_is_kept(store: Store) -> None:
    record = game(9)
    odd = '名前 🐍 "quoted" \\ \x00 end'
    snakes = [dataclasses.replace(e, name=odd + str(i)) for i, e in enumerate(record.snakes)]
    first = record.turns[0]
    shouting = {sid: dataclasses.replace(c, shout=odd) for sid, c in first.calls.items()}
    turns = [dataclasses.replace(first, calls=shouting), *record.turns[1:]]
    strange = dataclasses.replace(record, snakes=snakes, turns=turns)
    row = store.create_game(strange, "complete")
    # The listing columns drop NUL (PostgreSQL text cannot hold it); the game keeps it.
    clean = odd.replace("\x00", "")
    assert [s["name"] for s in row.snakes] == [clean + "0", clean + "1"]
    assert row.winner_name is not None and "\x00" not in row.winner_name
    assert store.frames(strange.id, limit=2) == record_frames(strange)[:2]
    assert store.frames(strange.id)[1]["Snakes"][0]["Shout"] == odd
    assert read_replay(store.export_replay_lines(strange.id)) == strange


# -- reading --------------------------------------------------------------------------


def test_frames_page_by_turn(store: Store) -> None:
    record = play_into(store, 6)
    every = record_frames(record)
    count = len(every)
    assert store.frames(record.id, offset=0, limit=5) == every[:5]
    assert store.frames(record.id, offset=5, limit=5) == every[5:10]
    assert store.frames(record.id, offset=count - 2) == every[-2:]
    assert store.frames(record.id, offset=count - 1, limit=100) == every[-1:]
    assert store.frames(record.id, offset=count) == []
    assert [f["Turn"] for f in store.frames(record.id, offset=3, limit=4)] == [3, 4, 5, 6]
    for bad in ({"offset": -1}, {"limit": 0}, {"offset": 1.5}, {"limit": True}):
        with pytest.raises(StoreError, match="is not valid; expected an integer"):
            store.frames(record.id, **bad)


def test_exported_game_reads_back_and_verifies(store: Store) -> None:
    record = play_into(store, 7)
    lines = store.export_replay_lines(record.id)
    assert read_replay(lines) == record
    assert store.load_record(record.id) == record
    replay = load_replay(lines)
    assert replay.complete and replay.digest == replay_digest(record)
    report = verify_replay(replay)
    assert report.ok, report.message
    assert report.turns == len(record.turns)


def test_unfinished_game_exports_as_unfinished(store: Store) -> None:
    record = game(8)
    store.create_game(partial(record, 4))
    replay = load_replay(store.export_replay_lines(record.id))
    assert not replay.complete
    assert replay.record.result is None
    assert replay.record.turns == record.turns[:4]
    report = verify_replay(replay)
    assert report.ok and not report.complete, report.message


def test_cancelled_game_keeps_its_turns_and_reads_as_unfinished(store: Store) -> None:
    record = game(8)
    store.create_game(partial(record, 3))
    with pytest.raises(StoreError, match="has no result; status 'complete' needs one"):
        store.finish_game(partial(record, 3))
    with pytest.raises(StoreError, match="'running' is not a finished status"):
        store.finish_game(record, "running")
    row = store.finish_game(partial(record, 5), "cancelled")
    assert (row.status, row.result, row.winner_name, row.turns) == ("cancelled", None, None, 5)
    replay = load_replay(store.export_replay_lines(record.id))
    assert not replay.complete and len(replay.record.turns) == 5
    with pytest.raises(StoreError, match="has 2 turns but 5 are stored"):
        store.finish_game(partial(record, 2), "aborted")


def test_list_games_newest_first_by_status_and_page(store: Store) -> None:
    for minute, seed in enumerate((11, 12, 13, 14, 15)):
        record = game(seed)
        if seed % 2:
            store.create_game(record, "complete", created_at=at(minute))
        else:
            store.create_game(partial(record, 1), created_at=at(minute))
    ids = [game(s).id for s in (15, 14, 13, 12, 11)]
    assert [g.id for g in store.list_games()] == ids
    assert [g.id for g in store.list_games(limit=2, offset=1)] == ids[1:3]
    assert [g.id for g in store.list_games(offset=5)] == []
    assert [g.id for g in store.list_games(status="complete")] == [ids[0], ids[2], ids[4]]
    assert [g.id for g in store.list_games(status="running")] == [ids[1], ids[3]]
    assert store.list_games(status="aborted") == []
    assert store.count_games() == 5 and store.count_games("running") == 2
    with pytest.raises(StoreError, match=f"limit 0 is not valid.*from 1 to {MAX_LIST_LIMIT}"):
        store.list_games(limit=0)
    with pytest.raises(StoreError, match="limit 1001 is not valid"):
        store.list_games(limit=MAX_LIST_LIMIT + 1)
    with pytest.raises(StoreError, match="offset -1 is not valid"):
        store.list_games(offset=-1)
    with pytest.raises(StoreError, match="status 'done' is not known; expected one of 'running'"):
        store.list_games(status="done")


def test_set_status_and_delete(store: Store) -> None:
    kept, gone = game(16), game(17)
    store.create_game(partial(kept, 2))
    store.create_game(gone, "complete")
    store.set_status(kept.id, "cancelled")
    assert store.get_game(kept.id).status == "cancelled"  # type: ignore[union-attr]
    with pytest.raises(StoreError, match="status 'paused' is not known"):
        store.set_status(kept.id, "paused")
    store.delete_game(gone.id)
    assert store.get_game(gone.id) is None
    with store.engine.connect() as connection:
        left = connection.execute(
            sa.text("SELECT count(*) FROM frames WHERE game_id = :id"), {"id": gone.id}
        ).scalar()
    assert left == 0
    assert store.frame_count(kept.id) == 3
    with pytest.raises(GameNotFoundError):
        store.delete_game(gone.id)


def test_a_missing_game_is_not_found(store: Store) -> None:
    assert store.get_game("nope") is None
    calls = (
        lambda: store.frames("nope"),
        lambda: store.frame_count("nope"),
        lambda: store.export_replay_lines("nope"),
        lambda: store.set_status("nope", "aborted"),
        lambda: store.delete_game("nope"),
        lambda: store.finish_game(dataclasses.replace(game(1), id="nope")),
    )
    for call in calls:
        with pytest.raises(GameNotFoundError, match="no stored game with id 'nope'"):
            call()
    assert issubclass(GameNotFoundError, LookupError)
    assert issubclass(GameNotFoundError, SnakewarError)
    with pytest.raises(StoreError, match="game id '' is not valid"):
        store.get_game("")
    with pytest.raises(StoreError, match="expected a GameRecord, got dict"):
        store.create_game({"id": "x"})  # type: ignore[arg-type]


# -- crashes, threads, closing ----------------------------------------------------------

CRASHING_SERVER = textwrap.dedent(
    """
    import asyncio, os, sys
    from snakewar.referee import MatchSpec, play_match
    from snakewar.server.store import Store

    store = Store(sys.argv[1])
    stop = int(sys.argv[3])

    def on_turn(record, turn):
        if turn.turn == 0:
            store.create_game(record)
        else:
            store.add_turn(record, turn)
        if turn.turn + 1 == stop:
            os._exit(3)  # the server dies mid-game: nothing is finished or closed

    spec = MatchSpec(snakes=("random", "random"))
    asyncio.run(play_match(spec, int(sys.argv[2]), on_turn=on_turn))
    """
)


def test_a_crash_leaves_a_running_game_that_start_up_marks_aborted(db_url: str) -> None:
    finished = game(18)
    with Store(db_url) as first:
        first.create_game(finished, "complete")
    crashed = subprocess.run(
        [sys.executable, "-c", CRASHING_SERVER, db_url, "19", "6"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert crashed.returncode == 3, crashed.stderr
    cut = partial(game(19), 6)  # the same seed plays the same game

    with Store(db_url) as restarted:
        assert restarted.get_game(cut.id).status == "running"  # type: ignore[union-attr]
        assert restarted.mark_running_as_aborted() == 1
        assert restarted.mark_running_as_aborted() == 0
        row = restarted.get_game(cut.id)
        assert row is not None and (row.status, row.turns) == ("aborted", 6)
        assert restarted.get_game(finished.id).status == "complete"  # type: ignore[union-attr]
        # Played again in this process: the same game, but other latencies.
        assert untimed(restarted.frames(cut.id)) == untimed(record_frames(cut))
        replay = load_replay(restarted.export_replay_lines(cut.id))
        assert not replay.complete and played(replay.record) == played(cut)


def test_games_stored_from_several_threads_at_once(store: Store) -> None:
    records = [game(seed) for seed in (21, 22, 23, 24)]
    errors: list[BaseException] = []
    start = threading.Barrier(len(records))

    def write(record: GameRecord) -> None:
        try:
            start.wait()
            store.create_game(partial(record, 0))
            for turn in record.turns:
                store.add_turn(record, turn)
            store.finish_game(record)
        except BaseException as exc:  # reported below: a thread cannot fail the test itself
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(r,)) for r in records]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert errors == []
    for record in records:
        assert store.frames(record.id) == record_frames(record)
        assert store.get_game(record.id).status == "complete"  # type: ignore[union-attr]


def test_a_closed_store_refuses_work(db_url: str) -> None:
    store = Store(db_url)
    store.close()
    with pytest.raises(StoreError, match="is closed"):
        store.list_games()


def test_in_memory_sqlite_store_is_shared_across_threads() -> None:
    with Store("sqlite://") as store:
        record = game(25)
        worker = threading.Thread(target=store.create_game, args=(record, "complete"))
        worker.start()
        worker.join(timeout=30)
        assert store.frame_count(record.id) == len(record.turns) + 1


def test_sqlite_uses_wal_and_foreign_keys(tmp_path: Path) -> None:
    with Store(f"sqlite:///{tmp_path / 'games.db'}") as store:
        assert store.dialect == "sqlite"
        with store.engine.connect() as connection:
            assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert connection.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
            with pytest.raises(sa.exc.IntegrityError):
                connection.execute(
                    sa.text("INSERT INTO frames (game_id, turn, frame) VALUES ('x', 0, '{}')")
                )


# -- migrations -------------------------------------------------------------------------


def test_a_fresh_database_gets_the_head_revision_and_reopens(db_url: str) -> None:
    with Store(db_url) as store:
        assert stored_revision(store) == [head_revision()]
        tables = set(sa.inspect(store.engine).get_table_names())
        assert {"games", "frames", "alembic_version"} <= tables
        indexes = {i["name"] for i in sa.inspect(store.engine).get_indexes("games")}
        assert {"ix_games_created_at", "ix_games_status_created_at"} <= indexes
        store.create_game(game(26), "complete")
    with Store(db_url) as again:
        assert stored_revision(again) == [head_revision()]
        assert again.get_game(game(26).id) is not None


def test_an_old_database_is_upgraded_on_open(db_url: str) -> None:
    with Store(db_url) as store, store.engine.begin() as connection:
        config = alembic_config()
        config.attributes["connection"] = connection
        command.downgrade(config, "base")
    with Store(db_url) as store:
        assert {"games", "frames"} <= set(sa.inspect(store.engine).get_table_names())
        assert stored_revision(store) == [head_revision()]


def test_a_database_from_a_newer_snakewar_is_refused(db_url: str) -> None:
    with Store(db_url) as store, store.engine.begin() as connection:
        connection.execute(sa.text("UPDATE alembic_version SET version_num = '9999'"))
    with pytest.raises(StoreError, match=r"cannot migrate database .*'9999'.*upgrade Snakewar"):
        Store(db_url)


def test_the_models_match_the_migrations(store: Store) -> None:
    # A model change without a revision shows here (autogenerate would write one).
    with store.engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        assert compare_metadata(context, Base.metadata) == []


# -- where the database is ------------------------------------------------------------


def test_the_environment_names_the_default_database(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    path = tmp_path / "from-env.db"
    monkeypatch.setenv(DATABASE_URL_ENV, f"sqlite:///{path}")
    with Store() as store:
        assert store.url == f"sqlite:///{path}"
        store.create_game(game(27), "complete")
    assert path.exists()
    # An explicit URL wins over the environment.
    with Store(f"sqlite:///{tmp_path / 'explicit.db'}") as other:
        assert other.get_game(game(27).id) is None


@pytest.mark.skipif(sys.platform != "linux", reason="XDG_DATA_HOME places data on Linux only")
def test_the_default_database_is_in_the_user_data_directory(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv(DATABASE_URL_ENV, raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    expected = tmp_path / "data" / "snakewar" / "snakewar.db"
    assert default_database_url() == f"sqlite:///{expected}"
    assert expected.parent.is_dir()
    with Store() as store:
        assert store.url == f"sqlite:///{expected}"
    assert expected.exists()


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("", "database URL '' is empty"),
        ("mysql://u:secret@h/db", "driver 'mysql' is not supported"),
        ("not a url", "scheme 'not a url' cannot be parsed"),
    ],
)
def test_bad_urls_are_refused(url: str, message: str) -> None:
    with pytest.raises(StoreError, match=message) as info:
        Store(url)
    assert "secret" not in str(info.value)


def test_an_unopenable_sqlite_file_is_a_store_error(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match=r"cannot open database 'sqlite:///.*no-such-dir"):
        Store(f"sqlite:///{tmp_path / 'no-such-dir' / 'games.db'}")
