"""Revision 0005 on a database written by Snakewar 0.1 (revision 0004), SQLite and PostgreSQL.

``tests/data/store-v0004.json.gz`` holds every row of a database that Snakewar 0.1 wrote
with its own code: Battlesnake games (one finished, one cut off and aborted, ladder and
tournament games), a Battlesnake and a Halite ladder, a finished Battlesnake tournament,
a half-played Halite tournament, and Halite games in ``halite_games``.  The rows go into
a fresh database at revision 0004; opening it as a store upgrades it; everything must
still read, export, verify and show.
"""

from __future__ import annotations

import base64
import datetime as dt
import gzip
import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic import command
from fastapi.testclient import TestClient

from snakewar.adapters import get_game
from snakewar.arena.ladder import load_ladder
from snakewar.arena.tournament_runner import load_tournament
from snakewar.games.battlesnake.replay.format import load_replay
from snakewar.games.battlesnake.replay.verify import verify_replay
from snakewar.games.halite3.replay.hlt import read_hlt
from snakewar.games.halite3.replay.verify import verify_hlt
from snakewar.server import ServerConfig, create_app
from snakewar.storage import QuotaExceededError, Store, alembic_config

FIXTURE = Path(__file__).resolve().parents[1] / "data" / "store-v0004.json.gz"
JSON_COLUMNS = {
    "games": ("config", "result", "snakes"),
    "frames": ("frame", "replay_line"),
    "ladders": ("state",),
    "tournaments": ("state",),
    "halite_games": ("players", "ranks", "scores"),
}
TIME_COLUMNS = ("created_at", "updated_at")


def _rows() -> dict[str, list[dict[str, Any]]]:
    data: dict[str, list[dict[str, Any]]] = json.loads(gzip.decompress(FIXTURE.read_bytes()))
    return data


def _value(table: str, column: str, value: Any) -> Any:
    if value is None:
        return None
    if column in JSON_COLUMNS.get(table, ()):
        return json.loads(value)
    if column in TIME_COLUMNS:
        return dt.datetime.fromisoformat(value).replace(tzinfo=dt.UTC)
    if isinstance(value, dict) and "base64" in value:
        return base64.b64decode(value["base64"])
    return value


def _table(name: str, first: dict[str, Any]) -> sa.TableClause:
    types: dict[str, Any] = {c: sa.JSON(none_as_null=True) for c in JSON_COLUMNS.get(name, ())}
    types.update({c: sa.DateTime(timezone=True) for c in TIME_COLUMNS})
    types["replay"] = sa.LargeBinary()
    for column, value in first.items():
        if isinstance(value, int) and column not in types:
            types[column] = sa.BigInteger()
    return sa.table(name, *(sa.column(c, types.get(c, sa.String())) for c in first))


def write_v0004(url: str, *, drop_game_key: str | None = None) -> dict[str, list[dict[str, Any]]]:
    """Bring ``url`` to revision 0004 and insert the rows Snakewar 0.1 wrote.

    ``drop_game_key`` names a ladder whose config loses its ``"game"`` key, as ladders
    written before Halite III joined had none.
    """
    command.upgrade(alembic_config(url), "0004")
    rows = _rows()
    engine = sa.create_engine(url, poolclass=sa.NullPool)
    try:
        with engine.begin() as connection:
            for table in ("games", "frames", "ladders", "tournaments", "halite_games"):
                items = rows[table]
                if not items:
                    continue
                values = [{k: _value(table, k, v) for k, v in row.items()} for row in items]
                if table == "ladders" and drop_game_key is not None:
                    for row in values:
                        if row["name"] == drop_game_key:
                            del row["state"]["config"]["game"]
                connection.execute(sa.insert(_table(table, items[0])), values)
    finally:
        engine.dispose()
    return rows


@pytest.fixture
def upgraded(db_url: str) -> Iterator[tuple[Store, dict[str, list[dict[str, Any]]]]]:
    rows = write_v0004(db_url, drop_game_key="bots")
    with Store(db_url) as store:
        yield store, rows


def test_every_game_is_kept_and_still_exports_and_verifies(
    upgraded: tuple[Store, dict[str, list[dict[str, Any]]]],
) -> None:
    store, rows = upgraded
    old_snakes = {row["id"]: row for row in rows["games"]}
    old_halite = {row["id"]: row for row in rows["halite_games"]}
    stored = {row.id: row for row in store.games.latest(100)}
    assert set(stored) == set(old_snakes) | set(old_halite)
    assert store.games.count() == len(old_snakes) + len(old_halite) == 15
    for game_id, old in old_snakes.items():
        row = stored[game_id]
        assert (row.game, row.status, row.turns) == ("battlesnake", old["status"], old["turns"])
        assert (row.seed, row.width, row.height) == (old["seed"], old["width"], old["height"])
        assert row.title == f"{old['ruleset']} · {old['map']} · {old['width']}x{old['height']}"
        assert row.params is not None and row.params["ruleset"] == old["ruleset"]
        assert row.header == json.loads(old["config"])
        assert row.winner_name == old["winner_name"]
        assert store.games.frame_count(game_id) == old["turns"] + 1
        replay = load_replay(get_game("battlesnake").export(store.games.data(game_id)))
        report = verify_replay(replay)
        assert report.ok, report.message
        assert replay.complete == (old["status"] == "complete")
    aborted = [r for r in stored.values() if r.status == "aborted"]
    assert len(aborted) == 1 and aborted[0].params is not None
    assert aborted[0].params["hazardDamagePerTurn"] == 7  # from "damagePerTurn": "7"
    assert aborted[0].seed == 2618439174457646105  # a 64-bit seed, exactly
    for game_id, old in old_halite.items():
        row = stored[game_id]
        players = json.loads(old["players"])
        assert (row.game, row.status, row.turns) == ("halite3", "complete", old["turns"])
        assert [e["name"] for e in row.entrants] == players
        assert row.ranks == json.loads(old["ranks"])
        assert row.result is not None and row.result["scores"] == json.loads(old["scores"])
        data = store.games.data(game_id)
        assert data.replay == base64.b64decode(old["replay"]["base64"])
        assert verify_hlt(read_hlt(data.replay)).ok
        winner = players[json.loads(old["ranks"]).index(1)]
        assert row.winner_name == winner


def test_ladders_become_rows_with_their_ratings_and_history(
    upgraded: tuple[Store, dict[str, list[dict[str, Any]]]],
) -> None:
    store, rows = upgraded
    old = {row["name"]: json.loads(row["state"]) for row in rows["ladders"]}
    assert store.ladders.names() == sorted(old) == ["bots", "h3"]
    for name, state in old.items():
        ladder = load_ladder(store, name)
        config = state["config"]
        assert ladder.config.game == config.get("game", "battlesnake")
        assert ladder.config.params["width"] == config["width"]
        assert ladder.config.game_size == config["game_size"]
        assert ladder.config.max_turns == config["max_turns"]
        assert ladder.seed == state["seed"] and ladder.games_played == len(state["games"])
        assert [e.name for e in ladder.entries.values()] == [e["name"] for e in state["entries"]]
        assert ladder.board.to_dict() == state["leaderboard"]
        assert [g.game_id for g in ladder.recent] == [g["game_id"] for g in state["games"]]
        assert [list(g.seats) for g in ladder.recent] == [g["snakes"] for g in state["games"]]
        for game in ladder.recent:
            assert store.games.get(game.game_id) is not None
    # Games go on where they stopped, rated on top of the old ratings.
    bots = load_ladder(store, "bots")
    assert bots.config.params["ruleset"] == "standard"  # the old config had no "game" key
    assert bots.run(2, store) == 2
    assert load_ladder(store, "bots").games_played == len(old["bots"]["games"]) + 2


def test_tournaments_become_rows_and_rebuild_their_brackets(
    upgraded: tuple[Store, dict[str, list[dict[str, Any]]]],
) -> None:
    store, rows = upgraded
    old = {row["id"]: json.loads(row["state"]) for row in rows["tournaments"]}
    assert {tid for tid, _ in store.tournaments.list_all()} == set(old)
    for tid, state in old.items():
        run = load_tournament(store, tid)
        assert run.name == state["name"] and run.seed == state["seed"]
        assert run.snakes == {s["name"]: s["source"] for s in state["snakes"]}
        assert run.tournament.to_dict() == state["tournament"]
        games = {mid: [g.to_dict() for g in items] for mid, items in run.games.items()}
        old_games = {
            mid: [{k: v for k, v in g.items() if k != "game"} for g in items]
            for mid, items in state["match_games"].items()
        }
        assert games == old_games
    halite = next(tid for tid, state in old.items() if not state["tournament"]["finished"])
    resumed = load_tournament(store, halite)
    assert resumed.config.game == "halite3" and not resumed.is_finished
    resumed.run(store)
    assert load_tournament(store, halite).is_finished


def test_pages_and_api_show_the_upgraded_database(db_url: str) -> None:
    rows = write_v0004(db_url)
    with TestClient(
        # The old database's tournament is unfinished: seen as it was, not played on.
        create_app(ServerConfig(database_url=db_url, resume_tournaments=False)),
        base_url="http://localhost",
    ) as client:
        listed = client.get("/api/games", params={"limit": 100}).json()
        assert {g["id"] for g in listed["games"]} == {
            r["id"] for r in rows["games"] + rows["halite_games"]
        }
        for game in listed["games"]:
            assert client.get(game["viewer"]).status_code == 200
            if game["game"] == "battlesnake":
                engine = client.get(f"/games/{game['id']}").json()
                assert engine["Game"]["ID"] == game["id"]
                assert engine["LastFrame"]["Turn"] == game["turn"]
            else:
                assert client.get(f"/api/halite/games/{game['id']}/replay").status_code == 200
            replay = client.get(f"/api/games/{game['id']}/replay")
            assert replay.status_code == 200 and replay.content
        ladders = client.get("/api/ladders").json()
        assert [(x["name"], x["game"]) for x in ladders] == [
            ("bots", "battlesnake"),
            ("h3", "halite3"),
        ]
        for ladder in ladders:
            assert client.get(f"/ladders/{ladder['name']}").status_code == 200
            detail = client.get(f"/api/ladders/{ladder['name']}").json()
            assert detail["games_played"] == ladder["games_played"] > 0
            assert all(g["viewer"] for g in detail["recent_games"])
        for tournament in client.get("/api/tournaments").json():
            assert client.get(tournament["page"]).status_code == 200
            detail = client.get(f"/api/tournaments/{tournament['id']}").json()
            assert all(g["viewer"] for m in detail["matches"] for g in m["games"])
        halite = client.get("/api/halite/games").json()
        assert {g["id"] for g in halite} == {r["id"] for r in rows["halite_games"]}
        assert len(halite) == 4


def test_uploaded_archives_get_their_sha256_and_games_a_failure_column(db_url: str) -> None:
    # Revision 0014: archives stored before it are addressed by their hash after it.
    command.upgrade(alembic_config(db_url), "0011")
    archive = b"PK\x05\x06" + bytes(18)  # any bytes: the migration hashes, never unpacks
    engine = sa.create_engine(db_url, poolclass=sa.NullPool)
    stamp = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    try:
        with engine.begin() as connection:
            connection.execute(
                sa.text(
                    "INSERT INTO users (id, name, password_hash, role, disabled, created_at) "
                    "VALUES (1, 'ann', 'x', 'user', false, :t)"
                ),
                {"t": stamp},
            )
            connection.execute(
                sa.text(
                    "INSERT INTO snakes (owner_id, name, game, kind, language, archive, "
                    "visibility, paused, created_at, updated_at) VALUES (1, 'kit', 'halite3', "
                    "'upload', 'python3', :a, 'public', false, :t, :t)"
                ),
                {"a": archive, "t": stamp},
            )
    finally:
        engine.dispose()
    with Store(db_url) as store:
        snake = store.snakes.by_ref("ann", "kit")
        assert snake.archive_sha256 == hashlib.sha256(archive).hexdigest()
        assert store.snakes.archive_by_hash(snake.archive_sha256) == archive
        assert store.snakes.archive_by_hash("0" * 64) is None
        assert store.snakes.archive_by_hash("not a hash") is None
    command.downgrade(alembic_config(db_url), "0011")
    command.upgrade(alembic_config(db_url), "head")


def test_uploads_stored_before_builds_run_from_their_archive_and_builds_are_kept(
    db_url: str,
) -> None:
    # Revision 0019: an upload stored before it has no build (it runs from its archive);
    # a build recorded after it is kept, addressed by its hash, counted in the quota.
    command.upgrade(alembic_config(db_url), "0014")
    archive = b"PK\x05\x06" + bytes(18)
    engine = sa.create_engine(db_url, poolclass=sa.NullPool)
    stamp = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    try:
        with engine.begin() as connection:
            connection.execute(
                sa.text(
                    "INSERT INTO users (id, name, password_hash, role, disabled, created_at) "
                    "VALUES (1, 'ann', 'x', 'user', false, :t)"
                ),
                {"t": stamp},
            )
            connection.execute(
                sa.text(
                    "INSERT INTO snakes (owner_id, name, game, kind, language, archive, "
                    "archive_sha256, visibility, paused, created_at, updated_at) VALUES (1, "
                    "'kit', 'halite3', 'upload', 'python3', :a, :h, 'public', false, :t, :t)"
                ),
                {"a": archive, "h": hashlib.sha256(archive).hexdigest(), "t": stamp},
            )
    finally:
        engine.dispose()
    command.upgrade(alembic_config(db_url), "head")
    with Store(db_url) as store:
        snake = store.snakes.by_ref("ann", "kit")
        assert (snake.build_status, snake.build_error, snake.build_sha256) == (None, None, None)
        assert store.snakes.build(snake.id) == b"" and store.snakes.build_log(snake.id) == ""
        built = b"\x1f\x8b built folder"
        stored = store.snakes.set_build(
            snake.id, "ready", language="python3", log="$ python3 -c ...\n", build=built
        )
        assert stored.build_status == "ready" and stored.build_error is None
        assert stored.build_sha256 == hashlib.sha256(built).hexdigest()
        assert store.snakes.archive_by_hash(stored.build_sha256) == built
        assert store.snakes.build(snake.id) == built
        assert store.snakes.build_log(snake.id) == "$ python3 -c ...\n"
        assert store.accounts.stored_bytes(1) == len(archive) + len(built)
        with pytest.raises(QuotaExceededError, match="storage quota"):
            store.snakes.set_build(
                snake.id, "ready", language="python3", log="", build=built, quota=len(archive)
            )
        failed = store.snakes.set_build(
            snake.id, "failed", language="python3", log="boom", error="python3 failed"
        )
        assert (failed.build_status, failed.build_error, failed.build_sha256) == (
            "failed",
            "python3 failed",
            None,
        )
        assert store.snakes.build(snake.id) == b""
    command.downgrade(alembic_config(db_url), "0014")
    command.upgrade(alembic_config(db_url), "head")
