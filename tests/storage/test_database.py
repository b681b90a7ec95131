"""Opening databases: URLs, the default database, schema revisions and migrations."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory

from snakewar.storage import (
    DATABASE_URL_ENV,
    Store,
    StoreError,
    alembic_config,
    default_database_url,
)
from snakewar.storage.models import Base
from tests.storage.test_games import played


def head_revision() -> str:
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None
    return head


def stored_revision(store: Store) -> list[str]:
    with store.db.engine.connect() as connection:
        return list(
            connection.execute(sa.text("SELECT version_num FROM alembic_version")).scalars()
        )


def test_a_fresh_database_gets_the_head_revision_and_reopens(db_url: str) -> None:
    with Store(db_url) as store:
        assert stored_revision(store) == [head_revision()] == ["0019"]
        tables = set(sa.inspect(store.db.engine).get_table_names())
        assert {
            "games",
            "frames",
            "game_calls",
            "game_logs",
            "ladders",
            "ladder_entries",
            "ladder_games",
            "ladder_ratings",
            "tournaments",
            "users",
            "sessions",
            "api_tokens",
            "invites",
            "login_failures",
            "login_devices",
            "rate_buckets",
            "rate_uses",
            "snakes",
            "tournament_entrants",
            "tournament_games",
            "tournament_settings",
            "saved_games",
            "export_jobs",
            "arena_runs",
            "ladder_matches",
            "ladder_match_seats",
            "leases",
            "notify_settings",
            "notifications",
            "alembic_version",
        } == tables
        indexes = {i["name"] for i in sa.inspect(store.db.engine).get_indexes("games")}
        assert {"ix_games_created_at", "ix_games_status_created_at"} <= indexes
        assert "ix_games_game_created_at" in indexes
        recorded = sa.inspect(store.db.engine).get_indexes("tournament_games")
        assert {(i["name"], tuple(i["column_names"]), bool(i["unique"])) for i in recorded} >= {
            ("ux_tournament_games_match_number", ("tournament_id", "match_id", "number"), True)
        }
        store.games.save_played(played(26))
    with Store(db_url) as again:
        assert stored_revision(again) == [head_revision()]
        assert again.games.get(played(26).id) is not None


def test_an_empty_old_database_is_upgraded_on_open(db_url: str) -> None:
    # The schema the previous Snakewar made (revision 0004), with nothing in it yet.
    command.upgrade(alembic_config(db_url), "0004")
    with Store(db_url) as store:
        tables = set(sa.inspect(store.db.engine).get_table_names())
        assert {"games", "frames", "ladder_entries"} <= tables and "halite_games" not in tables
        assert stored_revision(store) == [head_revision()]


def test_revision_5_cannot_be_undone(db_url: str) -> None:
    with (
        Store(db_url) as store,
        store.db.engine.begin() as connection,
        pytest.raises(RuntimeError, match="cannot be undone"),
    ):
        config = alembic_config()
        config.attributes["connection"] = connection
        command.downgrade(config, "0004")


def test_a_database_from_a_newer_snakewar_is_refused(db_url: str) -> None:
    with Store(db_url) as store, store.db.engine.begin() as connection:
        connection.execute(sa.text("UPDATE alembic_version SET version_num = '9999'"))
    with pytest.raises(StoreError, match=r"cannot migrate database .*'9999'.*upgrade Snakewar"):
        Store(db_url)


def test_the_models_match_the_migrations(store: Store) -> None:
    # A model change without a revision shows here (autogenerate would write one).
    with store.db.engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        assert compare_metadata(context, Base.metadata) == []


# -- where the database is ------------------------------------------------------------


def test_the_environment_names_the_default_database(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    path = tmp_path / "from-env.db"
    monkeypatch.setenv(DATABASE_URL_ENV, f"sqlite:///{path}")
    game = played(27)
    with Store() as store:
        assert store.url == f"sqlite:///{path}"
        store.games.save_played(game)
    assert path.exists()
    # An explicit URL wins over the environment.
    with Store(f"sqlite:///{tmp_path / 'explicit.db'}") as other:
        assert other.games.get(game.id) is None


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
