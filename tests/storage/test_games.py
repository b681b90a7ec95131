"""Stored games: SQLite always, PostgreSQL too when $SNAKEWAR_TEST_POSTGRES_URL is set.

Games are played for real with in-process bots and stored as the server stores them:
begun with the first frame, then frame by frame, then finished with the played game.
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

from snakewar.engine.protocol import (
    Frame,
    GameData,
    MatchHooks,
    PlayedGame,
    PlaySession,
    StoredGame,
)
from snakewar.errors import NotFoundError, SnakewarError, TooLargeError
from snakewar.games.battlesnake.adapter import GAME, frames_of, listing, match_spec, played_game
from snakewar.games.battlesnake.frames import record_frames
from snakewar.games.battlesnake.records import GameRecord
from snakewar.games.battlesnake.referee.batch import SnakeMatch, play_match
from snakewar.games.battlesnake.replay.format import (
    header_dict,
    load_replay,
    read_replay,
    replay_digest,
    replay_lines,
    result_dict,
)
from snakewar.games.battlesnake.replay.verify import verify_replay
from snakewar.storage import (
    MAX_LIST_LIMIT,
    MAX_REPLAY_BYTES,
    GameExistsError,
    GameNotFoundError,
    GameRow,
    Store,
    StoreError,
)

MATCH = SnakeMatch(snakes=("random", "random"))
SPEC = match_spec(MATCH)

# -- games ----------------------------------------------------------------------------


@cache
def record(seed: int) -> GameRecord:
    """A finished game between two random bots (the same seed, the same game)."""
    return asyncio.run(play_match(MATCH, seed))


def played(seed: int) -> PlayedGame:
    return played_game(record(seed), spec=SPEC)


def started(rec: GameRecord, turns: int) -> tuple[StoredGame, GameData]:
    """A game as it stood after ``turns`` turns: its listing and data, no result."""
    assert len(rec.turns) > turns, "the game is too short for this test"
    return listing(rec), GameData(header_dict(rec), frames_of(rec)[: turns + 1])


def play_into(store: Store, seed: int) -> PlayedGame:
    """Play a game storing it as the server does: begun, frame by frame, then finished."""

    async def on_start(stored: StoredGame, data: GameData) -> None:
        store.games.begin(stored, data, spec=SPEC)

    async def on_frame(frame: Frame) -> None:
        store.games.add_frame(game_id, frame)

    async def play() -> PlayedGame:
        async with PlaySession() as session:
            hooks = MatchHooks(game_id=game_id, on_start=on_start, on_frame=on_frame)
            return await GAME.play(SPEC, seed, session, hooks)

    game_id = f"game-{seed}"
    game = asyncio.run(play())
    store.games.finish(game.id, "complete", game)
    return game


def untimed(frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Frames without the snakes' latencies (timings differ from one run to the next)."""
    return [
        {**f, "Snakes": [{k: v for k, v in s.items() if k != "Latency"} for s in f["Snakes"]]}
        for f in frames
    ]


def at(minute: int) -> dt.datetime:
    return dt.datetime(2025, 1, 1, 12, minute, tzinfo=dt.UTC)


def exported(store: Store, game_id: str) -> list[str]:
    row = store.games.get(game_id)
    assert row is not None
    return GAME.export(store.games.data(game_id)).decode().splitlines()


# -- storing games --------------------------------------------------------------------


def test_a_game_stored_frame_by_frame_round_trips(store: Store) -> None:
    game = play_into(store, 1)
    rec = GAME.record(game.data)
    row = store.games.get(game.id)
    assert isinstance(row, GameRow)
    assert row.status == "complete" and row.finished and row.game == "battlesnake"
    assert (row.title, row.width, row.height) == ("standard · standard · 11x11", 11, 11)
    assert row.seed == 1 and row.timeout_ms == 500 and row.source == ""
    assert row.params == dict(SPEC.params) and row.max_turns is None
    assert row.turns == len(rec.turns) > 0
    assert rec.result is not None
    winner = next((e.name for e in rec.snakes if e.id == rec.result.winner), None)
    assert row.winner_name == winner
    assert row.ranks == [r.rank for r in game.results]
    assert [e["name"] for e in row.entrants] == [e.name for e in rec.snakes]
    assert [e["color"] for e in row.entrants] == [e.color for e in rec.snakes]
    assert [e["source"] for e in row.entrants] == ["builtin:random", "builtin:random"]
    assert row.created_at.tzinfo is not None and row.updated_at >= row.created_at
    assert row.header["id"] == game.id and row.header["config"]["seed"] == 1
    assert row.result is not None and row.result["result"]["digest"] == replay_digest(rec)
    assert row.replay_size == 0  # kept as frames, not as one file

    assert store.games.frame_count(game.id) == len(rec.turns) + 1
    assert store.games.frames(game.id) == record_frames(rec)
    # Byte for byte the replay the referee's own writer makes (created time aside).
    assert exported(store, game.id) == replay_lines(rec, created=row.header["created"])
    assert row.spec() == dataclasses.replace(SPEC, source="")


def test_finishing_stores_the_final_header_and_any_missing_frames(store: Store) -> None:
    rec = record(2)
    stored, data = started(rec, 3)
    # Begun before the /start round was recorded, with only three turns.
    store.games.begin(stored, dataclasses.replace(data, header={**data.header, "start": {}}))
    assert store.games.get(rec.id).header["start"] == {}  # type: ignore[union-attr]
    row = store.games.finish(rec.id, "complete", played(2))
    assert row.turns == len(rec.turns)
    assert row.header["start"] == json.loads(replay_lines(rec)[0])["start"] != {}
    assert store.games.frames(rec.id) == record_frames(rec)


def test_add_frame_is_idempotent(store: Store) -> None:
    rec = record(3)
    store.games.begin(*started(rec, 2))
    frames = frames_of(rec)
    store.games.add_frame(rec.id, frames[3])
    before = store.games.frames(rec.id)
    for frame in frames[:4]:
        store.games.add_frame(rec.id, frame)  # all stored already: nothing changes
    assert store.games.frames(rec.id) == before == record_frames(rec)[:4]
    assert store.games.get(rec.id).turns == 3  # type: ignore[union-attr]


def test_add_frame_refuses_gaps_and_finished_games(store: Store) -> None:
    rec = record(3)
    store.games.begin(*started(rec, 2))
    frames = frames_of(rec)
    with pytest.raises(StoreError, match=r"turn 5 .* would leave a gap: expected turn 3"):
        store.games.add_frame(rec.id, frames[5])
    store.games.set_status(rec.id, "cancelled")
    with pytest.raises(StoreError, match="is cancelled; frames are added to running games only"):
        store.games.add_frame(rec.id, frames[3])
    with pytest.raises(GameNotFoundError):
        store.games.add_frame("no-such-game", frames[1])
    with pytest.raises(StoreError, match="expected a Frame"):
        store.games.add_frame(rec.id, "turn 3")  # type: ignore[arg-type]


def test_begin_refuses_a_stored_id(store: Store) -> None:
    rec = record(4)
    store.games.begin(*started(rec, 1))
    with pytest.raises(GameExistsError, match=f"{rec.id!r} is stored already"):
        store.games.begin(*started(rec, 2))
    assert store.games.frame_count(rec.id) == 2
    assert store.games.save_played(played(4)) is False  # stored already: kept as it is
    assert store.games.get(rec.id).status == "running"  # type: ignore[union-attr]


def test_a_game_played_again_from_turn_0_forgets_the_earlier_try(store: Store) -> None:
    # A game whose worker died is played again: what the dead try stored goes, the row
    # stays running (with a new lease), and begin(again=True) stores turn 0 anew.
    rec = record(3)
    store.games.begin(*started(rec, 4), spec=SPEC)
    store.games.add_calls(rec.id, 2, [{"request": "{}", "reply": "{}"}])
    until = dt.datetime.now(dt.UTC) + dt.timedelta(minutes=5)
    assert store.games.restart(rec.id, ("worker-2", until)) is True
    row = store.games.get(rec.id)
    assert row is not None and row.status == "running" and row.turns == 0
    assert store.games.frames(rec.id) == [] and store.games.calls(rec.id, 2) == []
    store.games.begin(*started(rec, 0), spec=SPEC, again=True)
    store.games.add_frame(rec.id, frames_of(rec)[1])
    assert store.games.frames(rec.id) == record_frames(rec)[:2]
    # Without again, or once the game ended, its row is not taken over.
    with pytest.raises(GameExistsError):
        store.games.begin(*started(rec, 0))
    store.games.finish(rec.id, "cancelled")
    assert store.games.restart(rec.id) is False
    with pytest.raises(GameExistsError):
        store.games.begin(*started(rec, 0), again=True)
    assert store.games.restart("no-such-game") is False
    assert store.games.get(rec.id).turns == 1  # type: ignore[union-attr]


def test_an_aborted_game_keeps_its_frames_and_says_why(store: Store) -> None:
    rec = record(4)
    store.games.begin(*started(rec, 2))
    store.games.abort(rec.id, "its Ray worker died 3 times\x00; gave up" + "!" * 5000)
    row = store.games.get(rec.id)
    assert row is not None and row.status == "aborted"
    assert row.failure is not None and row.failure.startswith(
        "its Ray worker died 3 times; gave up"
    )
    assert len(row.failure) == 1000  # capped, as entrants' failures are
    assert store.games.frames(rec.id) == record_frames(rec)[:3]
    assert store.games.latest()[0].failure == row.failure
    with pytest.raises(GameNotFoundError):
        store.games.abort("no-such-game", "why")


def test_save_played_stores_a_whole_game_at_once(store: Store) -> None:
    game = played(5)
    assert store.games.save_played(game, created_at=at(5)) is True
    row = store.games.get(game.id)
    assert row is not None and row.status == "complete" and row.created_at == at(5)
    report = verify_replay(load_replay(exported(store, game.id)))
    assert report.ok and report.complete, report.message
    with pytest.raises(StoreError, match="timezone-aware"):
        store.games.save_played(
            dataclasses.replace(game, id="naive"), created_at=dt.datetime(2025, 1, 1)
        )
    finished = "expected one of 'complete', 'aborted', 'cancelled'"
    with pytest.raises(StoreError, match=f"'running' is not a finished status; {finished}"):
        store.games.save_played(dataclasses.replace(game, id="other"), status="running")


def test_a_game_kept_as_one_file_is_capped(store: Store) -> None:
    game = played(5)
    whole = dataclasses.replace(game, id="whole", data=GameData({}, (), {}, b"x" * 10))
    assert store.games.save_played(whole)
    assert store.games.get("whole").replay_size == 10  # type: ignore[union-attr]
    assert store.games.data("whole").replay == b"x" * 10
    huge = dataclasses.replace(
        game, id="huge", data=GameData({}, (), {}, b"x" * (MAX_REPLAY_BYTES + 1))
    )
    with pytest.raises(TooLargeError, match="too large"):
        store.games.save_played(huge)
    assert store.games.get("huge") is None


def test_any_text_in_names_and_shouts_is_kept(store: Store) -> None:
    rec = record(9)
    odd = '名前 🐍 "quoted" \\ \x00 end'
    snakes = [dataclasses.replace(e, name=odd + str(i)) for i, e in enumerate(rec.snakes)]
    first = rec.turns[0]
    shouting = {sid: dataclasses.replace(c, shout=odd) for sid, c in first.calls.items()}
    turns = [dataclasses.replace(first, calls=shouting), *rec.turns[1:]]
    strange = dataclasses.replace(rec, snakes=snakes, turns=turns)
    assert store.games.save_played(played_game(strange))
    row = store.games.get(strange.id)
    assert row is not None
    # The listing columns drop NUL (PostgreSQL text cannot hold it); the game keeps it.
    clean = odd.replace("\x00", "")
    assert [e["name"] for e in row.entrants] == [clean + "0", clean + "1"]
    assert row.winner_name is None or "\x00" not in row.winner_name
    assert store.games.frames(strange.id, limit=2) == record_frames(strange)[:2]
    assert store.games.frames(strange.id)[1]["Snakes"][0]["Shout"] == odd
    assert read_replay(GAME.export(store.games.data(strange.id))) == strange


# -- reading --------------------------------------------------------------------------


def test_frames_page_by_turn(store: Store) -> None:
    game = play_into(store, 6)
    every = [dict(f.view) for f in game.data.frames]
    count = len(every)
    frames = store.games.frames
    assert frames(game.id, offset=0, limit=5) == every[:5]
    assert frames(game.id, offset=5, limit=5) == every[5:10]
    assert frames(game.id, offset=count - 2) == every[-2:]
    assert frames(game.id, offset=count - 1, limit=100) == every[-1:]
    assert frames(game.id, offset=count) == []
    assert [f["Turn"] for f in frames(game.id, offset=3, limit=4)] == [3, 4, 5, 6]
    for bad in ({"offset": -1}, {"limit": 0}, {"offset": 1.5}, {"limit": True}, {"offset": 2**63}):
        with pytest.raises(StoreError, match="is not valid; expected an integer"):
            frames(game.id, **bad)


def test_exported_game_reads_back_and_verifies(store: Store) -> None:
    game = play_into(store, 7)
    rec = GAME.record(game.data)
    lines = exported(store, game.id)
    assert read_replay(lines) == rec
    assert GAME.record(store.games.data(game.id)) == rec
    replay = load_replay(lines)
    assert replay.complete and replay.digest == replay_digest(rec)
    report = verify_replay(replay)
    assert report.ok, report.message
    assert report.turns == len(rec.turns)


def test_unfinished_game_exports_as_unfinished(store: Store) -> None:
    rec = record(8)
    store.games.begin(*started(rec, 4))
    replay = load_replay(exported(store, rec.id))
    assert not replay.complete
    assert replay.record.result is None
    assert replay.record.turns == rec.turns[:4]
    report = verify_replay(replay)
    assert report.ok and not report.complete, report.message


def test_cancelled_game_keeps_its_frames_and_reads_as_unfinished(store: Store) -> None:
    rec = record(8)
    store.games.begin(*started(rec, 3))
    with pytest.raises(StoreError, match="has no result; status 'complete' needs one"):
        store.games.finish(rec.id, "complete")
    with pytest.raises(StoreError, match="'running' is not a finished status"):
        store.games.finish(rec.id, "running")
    for frame in frames_of(rec)[4:6]:
        store.games.add_frame(rec.id, frame)
    row = store.games.finish(rec.id, "cancelled")
    assert (row.status, row.result, row.winner_name, row.turns) == ("cancelled", None, None, 5)
    replay = load_replay(exported(store, rec.id))
    assert not replay.complete and len(replay.record.turns) == 5
    short = dataclasses.replace(played(8), data=GameData(header_dict(rec), frames_of(rec)[:3]))
    with pytest.raises(StoreError, match="has 2 turns but 5 are stored"):
        store.games.finish(rec.id, "aborted", short)


def test_list_games_newest_first_by_status_and_page(store: Store) -> None:
    for minute, seed in enumerate((11, 12, 13, 14, 15)):
        if seed % 2:
            store.games.save_played(played(seed), created_at=at(minute))
        else:
            store.games.begin(*started(record(seed), 1), created_at=at(minute))
    ids = [record(s).id for s in (15, 14, 13, 12, 11)]
    games = store.games
    assert [g.id for g in games.latest()] == ids
    assert [g.id for g in games.latest(limit=2, offset=1)] == ids[1:3]
    assert [g.id for g in games.latest(offset=5)] == []
    assert [g.id for g in games.latest(status="complete")] == [ids[0], ids[2], ids[4]]
    assert [g.id for g in games.latest(status="running")] == [ids[1], ids[3]]
    assert games.latest(status="aborted") == []
    assert [g.id for g in games.latest(game="battlesnake")] == ids
    assert games.latest(game="halite3") == []
    assert games.count() == 5 and games.count(status="running") == 2
    assert games.count(game="halite3") == 0
    with pytest.raises(StoreError, match=f"limit 0 is not valid.*from 1 to {MAX_LIST_LIMIT}"):
        games.latest(limit=0)
    with pytest.raises(StoreError, match="limit 1001 is not valid"):
        games.latest(limit=MAX_LIST_LIMIT + 1)
    with pytest.raises(StoreError, match="offset -1 is not valid"):
        games.latest(offset=-1)
    with pytest.raises(StoreError, match="status 'done' is not known; expected one of 'running'"):
        games.latest(status="done")


def test_set_status_and_delete(store: Store) -> None:
    kept, gone = record(16), record(17)
    store.games.begin(*started(kept, 2))
    store.games.save_played(played(17))
    store.games.set_status(kept.id, "cancelled")
    assert store.games.get(kept.id).status == "cancelled"  # type: ignore[union-attr]
    with pytest.raises(StoreError, match="status 'paused' is not known"):
        store.games.set_status(kept.id, "paused")
    store.games.delete(gone.id)
    assert store.games.get(gone.id) is None
    with store.db.engine.connect() as connection:
        left = connection.execute(
            sa.text("SELECT count(*) FROM frames WHERE game_id = :id"), {"id": gone.id}
        ).scalar()
    assert left == 0
    assert store.games.frame_count(kept.id) == 3
    with pytest.raises(GameNotFoundError):
        store.games.delete(gone.id)


def test_a_missing_game_is_not_found(store: Store) -> None:
    games = store.games
    assert games.get("nope") is None and games.get("") is None and games.get("x" * 101) is None
    calls = (
        lambda: games.frames("nope"),
        lambda: games.frame_count("nope"),
        lambda: games.data("nope"),
        lambda: games.set_status("nope", "aborted"),
        lambda: games.delete("nope"),
        lambda: games.finish("nope", "complete", played(1)),
    )
    for call in calls:
        with pytest.raises(GameNotFoundError, match="no stored game with id 'nope'"):
            call()
    assert issubclass(GameNotFoundError, NotFoundError)
    assert issubclass(GameNotFoundError, LookupError)
    assert issubclass(GameNotFoundError, SnakewarError)
    with pytest.raises(StoreError, match="game id '' is not valid"):
        games.frames("")


# -- crashes, threads, closing ----------------------------------------------------------

CRASHING_SERVER = textwrap.dedent(
    """
    import asyncio, os, sys
    from snakewar.games.battlesnake.adapter import GAME, match_spec
    from snakewar.engine.protocol import MatchHooks, PlaySession
    from snakewar.games.battlesnake.referee.batch import SnakeMatch
    from snakewar.storage import Store

    store = Store(sys.argv[1])
    stop = int(sys.argv[3])
    spec = match_spec(SnakeMatch(snakes=("random", "random")))

    ids = []

    def on_start(stored, data):
        ids.append(stored.id)
        store.games.begin(stored, data, spec=spec)

    def on_frame(frame):
        store.games.add_frame(ids[0], frame)
        if frame.turn == stop:
            os._exit(3)  # the server dies mid-game: nothing is finished or closed

    async def play():
        async with PlaySession() as session:
            hooks = MatchHooks(on_start=on_start, on_frame=on_frame, game_id=sys.argv[4])
            await GAME.play(spec, int(sys.argv[2]), session, hooks)

    asyncio.run(play())
    """
)


def test_a_crash_leaves_a_running_game_that_start_up_marks_aborted(db_url: str) -> None:
    finished = played(18)
    with Store(db_url) as first:
        first.games.save_played(finished)
    # The same seed plays the same game; the server names it (each game's id is its own).
    cut = record(19)
    crashed = subprocess.run(
        [sys.executable, "-c", CRASHING_SERVER, db_url, "19", "6", cut.id],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert crashed.returncode == 3, crashed.stderr

    with Store(db_url) as restarted:
        assert restarted.games.get(cut.id).status == "running"  # type: ignore[union-attr]
        assert restarted.games.mark_running_as_aborted() == 1
        assert restarted.games.mark_running_as_aborted() == 0
        row = restarted.games.get(cut.id)
        assert row is not None and (row.status, row.turns) == ("aborted", 6)
        assert restarted.games.get(finished.id).status == "complete"  # type: ignore[union-attr]
        # Played again in this process: the same game, but other latencies.
        assert untimed(restarted.games.frames(cut.id)) == untimed(record_frames(cut)[:7])
        replay = load_replay(GAME.export(restarted.games.data(cut.id)))
        assert not replay.complete
        assert [(t.turn, t.moves, t.after) for t in replay.record.turns] == [
            (t.turn, t.moves, t.after) for t in cut.turns[:6]
        ]


def test_games_stored_from_several_threads_at_once(store: Store) -> None:
    seeds = (21, 22, 23, 24)
    errors: list[BaseException] = []
    start = threading.Barrier(len(seeds))

    def write(seed: int) -> None:
        try:
            rec = record(seed)
            start.wait()
            store.games.begin(*started(rec, 0))
            for frame in frames_of(rec)[1:]:
                store.games.add_frame(rec.id, frame)
            store.games.finish(rec.id, "complete", played(seed))
        except BaseException as exc:  # reported below: a thread cannot fail the test itself
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(s,)) for s in seeds]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert errors == []
    for seed in seeds:
        assert store.games.frames(record(seed).id) == record_frames(record(seed))
        assert store.games.get(record(seed).id).status == "complete"  # type: ignore[union-attr]


def test_a_closed_store_refuses_work(db_url: str) -> None:
    store = Store(db_url)
    store.close()
    with pytest.raises(StoreError, match="is closed"):
        store.games.latest()


def test_in_memory_sqlite_store_is_shared_across_threads() -> None:
    with Store("sqlite://") as store:
        game = played(25)
        worker = threading.Thread(target=store.games.save_played, args=(game,))
        worker.start()
        worker.join(timeout=30)
        assert store.games.frame_count(game.id) == game.turns + 1


def test_sqlite_uses_wal_and_foreign_keys(tmp_path: Path) -> None:
    with Store(f"sqlite:///{tmp_path / 'games.db'}") as store:
        assert store.dialect == "sqlite"
        with store.db.engine.connect() as connection:
            assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert connection.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
            with pytest.raises(sa.exc.IntegrityError):
                connection.execute(
                    sa.text("INSERT INTO frames (game_id, turn, frame) VALUES ('x', 0, '{}')")
                )


def test_result_dict_matches_the_stored_result(store: Store) -> None:
    game = played(26)
    store.games.save_played(game)
    row = store.games.get(game.id)
    assert row is not None and row.result == result_dict(record(26))


def test_a_users_running_games_are_counted_by_their_live_leases(store: Store) -> None:
    ann = store.accounts.create_user("ann", "not-a-real-hash").id
    bob = store.accounts.create_user("bob", "not-a-real-hash").id
    now = dt.datetime.now(dt.UTC)
    alive, dead = now + dt.timedelta(minutes=1), now - dt.timedelta(seconds=1)
    for number, owner, lease in ((1, ann, alive), (2, ann, alive), (3, ann, dead), (4, bob, alive)):
        game = played(number)
        store.games.begin(game.stored(), game.data, owner_id=owner, lease=("server-a", lease))
    finished = played(5)
    store.games.begin(finished.stored(), finished.data, owner_id=ann, lease=("server-a", alive))
    store.games.finish(finished.id, "complete", finished)
    count = store.games.count_running_owned
    # Games 1 and 2: game 3's server stopped renewing its lease, game 5 ended.
    assert count(ann) == 2
    assert count(ann, excluding=[played(1).id]) == 1
    assert count(bob) == 1
    assert count(ann, when=now + dt.timedelta(minutes=2)) == 0
