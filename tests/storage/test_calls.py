"""The request inspector's store: ``game_calls`` rows, and revision 0007 that makes them."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from alembic import command

from snakewar.storage import GameNotFoundError, Store, StoreError, alembic_config
from tests.storage.test_games import played, record, started


def call(kind: str, name: str, turn: int) -> dict[str, object]:
    # A reply's text may hold any character, NUL included (the column is plain JSON).
    body = f'{{"turn":{turn},"name":"{name}"}}\x00'
    return {"kind": kind, "name": name, "status": "ok", "request": body, "reply": "é"}


def test_calls_are_kept_per_turn_in_order_and_go_with_their_game(store: Store) -> None:
    rec = record(31)
    stored, data = started(rec, 2)
    store.games.begin(stored, data)
    store.games.add_calls(rec.id, 0, [call("start", "a", 0), call("start", "b", 0)])
    store.games.add_calls(rec.id, 0, [call("move", "a", 0)])
    store.games.add_calls(rec.id, 1, [call("move", "a", 1)])
    assert [(c["kind"], c["name"]) for c in store.games.calls(rec.id, 0)] == [
        ("start", "a"),
        ("start", "b"),
        ("move", "a"),
    ]
    assert store.games.calls(rec.id, 1) == [call("move", "a", 1)]
    assert store.games.calls(rec.id, 2) == []  # not asked yet
    store.games.finish(rec.id, "cancelled")
    store.games.delete(rec.id)
    with pytest.raises(GameNotFoundError):
        store.games.calls(rec.id, 0)
    with store.db.engine.connect() as connection:
        assert connection.execute(sa.text("SELECT count(*) FROM game_calls")).scalar() == 0


def test_calls_of_unknown_games_and_bad_turns_are_refused(store: Store) -> None:
    with pytest.raises(GameNotFoundError):
        store.games.add_calls("nope", 0, [call("move", "a", 0)])
    game = played(32)
    store.games.save_played(game)
    assert store.games.calls(game.id, 0) == []  # a game that kept none
    with pytest.raises(StoreError, match="turn -1 is not valid"):
        store.games.add_calls(game.id, -1, [])
    with pytest.raises(StoreError, match="turn"):
        store.games.calls(game.id, True)


def test_revision_7_adds_and_drops_the_table(db_url: str) -> None:
    with Store(db_url) as store:
        game = played(33)
        store.games.save_played(game)
        store.games.add_calls(game.id, 0, [call("start", "a", 0)])
    command.downgrade(alembic_config(db_url), "0006")
    engine = sa.create_engine(db_url, poolclass=sa.NullPool)
    try:
        assert "game_calls" not in sa.inspect(engine).get_table_names()
    finally:
        engine.dispose()
    with Store(db_url) as again:  # opening upgrades it again: the table is back, empty
        assert again.games.get(game.id) is not None
        assert again.games.calls(game.id, 0) == []
