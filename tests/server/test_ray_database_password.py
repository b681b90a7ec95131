"""A Ray game's job names its database without the password; the worker has its own.

A Ray task's (and actor's) arguments are shown by the cluster's dashboard and state API,
so the server gives each game's actor the database URL with the password taken out
(:func:`without_password`), and the worker puts back the password of its own
environment, set when its node started (:func:`worker_database_url`).  The real
cluster's side (the arguments handed to ``.remote``, a game played) is in
``test_ray_games.py``; here are the two functions at that seam, and the worker's kit.
"""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest
import sqlalchemy as sa

import snakewar.server.runners
from snakewar.server.runners import DatabaseKit, RayRunner, without_password, worker_database_url
from snakewar.storage import DATABASE_URL_ENV, Store

SECRET = "s3cret-Pw"
PG = f"postgresql+psycopg://app:{SECRET}@db.internal:5432/games"


@pytest.mark.parametrize(
    ("url", "stripped"),
    [
        (PG, "postgresql+psycopg://app@db.internal:5432/games"),
        (
            f"postgresql+psycopg://app@db.internal/games?password={SECRET}&sslmode=require",
            "postgresql+psycopg://app@db.internal/games?sslmode=require",
        ),
        (
            f"postgresql+psycopg://app:{SECRET}@db/games?PASSWORD={SECRET}",
            "postgresql+psycopg://app@db/games",
        ),
        # Characters a URL must escape stay escaped in what is left.
        ("postgresql+psycopg://app:p%40ss%3Aw%2Frd@db/games", "postgresql+psycopg://app@db/games"),
    ],
)
def test_a_jobs_database_url_holds_no_password(url: str, stripped: str) -> None:
    shipped = without_password(url)
    assert shipped == stripped
    assert SECRET not in shipped and "p%40ss" not in shipped
    parsed = sa.make_url(shipped)
    assert parsed.password is None and "password" not in {k.lower() for k in parsed.query}


@pytest.mark.parametrize(
    "url",
    [
        "postgresql+psycopg://postgres@127.0.0.1:55432/postgres",
        "postgresql+psycopg://app@db/games?options=-csearch_path%3Dtest_1",
        "sqlite:////srv/snakewar/games.db",
        "sqlite://",
        "not a url",
    ],
)
def test_a_url_without_a_password_is_shipped_as_it_is(url: str) -> None:
    assert without_password(url) == url


def test_the_runner_ships_its_database_without_the_password() -> None:
    runner = RayRunner("auto", PG)
    assert runner.database_url == PG  # the server itself keeps the whole URL
    assert runner.job_database_url == "postgresql+psycopg://app@db.internal:5432/games"
    # What travels with every game besides the job: the kit, which holds no URL at all.
    assert SECRET.encode() not in pickle.dumps(runner.kit)


def test_a_worker_takes_the_password_of_its_own_environment() -> None:
    shipped = without_password(PG)
    assert worker_database_url(shipped, {DATABASE_URL_ENV: PG}) == PG
    # Its own URL may spell the same database otherwise: the default port, a bare scheme.
    same = {DATABASE_URL_ENV: f"postgresql://app:{SECRET}@DB.internal/games"}
    assert worker_database_url(shipped, same) == PG
    in_query = {DATABASE_URL_ENV: f"postgresql+psycopg://app@db.internal/games?password={SECRET}"}
    assert worker_database_url(shipped, in_query) == PG


def test_only_the_password_comes_from_the_workers_environment() -> None:
    # The job's options (its schema) are kept: the worker's URL gives its password only.
    shipped = "postgresql+psycopg://app@db.internal:5432/games?options=-csearch_path%3Dt1"
    found = sa.make_url(worker_database_url(shipped, {DATABASE_URL_ENV: PG}))
    assert found.password == SECRET
    assert dict(found.query) == {"options": "-csearch_path=t1"}
    assert (found.host, found.port, found.database) == ("db.internal", 5432, "games")


@pytest.mark.parametrize(
    "own",
    [
        "",  # no URL of its own
        "postgresql+psycopg://app@db.internal:5432/games",  # one without a password
        f"postgresql+psycopg://other:{SECRET}@db.internal:5432/games",  # another user
        f"postgresql+psycopg://app:{SECRET}@elsewhere:5432/games",  # another server
        f"postgresql+psycopg://app:{SECRET}@db.internal:5433/games",  # another port
        f"postgresql+psycopg://app:{SECRET}@db.internal:5432/archive",  # another database
        "sqlite:////srv/games.db",
        "::not a url::",
    ],
)
def test_a_worker_gives_no_password_for_another_database(own: str) -> None:
    shipped = without_password(PG)
    assert worker_database_url(shipped, {DATABASE_URL_ENV: own}) == shipped


def test_a_job_url_with_a_password_is_opened_as_it_is() -> None:
    other = PG.replace(SECRET, "theirs")
    assert worker_database_url(PG, {DATABASE_URL_ENV: other}) == PG


def test_the_workers_kit_opens_the_database_with_its_own_password(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[str] = []

    def store(url: str) -> Store:
        opened.append(url)
        return Store(f"sqlite:///{tmp_path / 'games.db'}")  # PG is not at db.internal

    monkeypatch.setattr(snakewar.server.runners, "Store", store)
    monkeypatch.setenv(DATABASE_URL_ENV, PG)
    DatabaseKit().open(without_password(PG)).close()
    assert opened == [PG]
