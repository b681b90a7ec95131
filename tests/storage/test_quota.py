"""Storage quota: what each user stores of uploads, and uploads refused past their quota.

SQLite always, PostgreSQL too when ``$SNAKEWAR_TEST_POSTGRES_URL`` is set.  The check
runs in the transaction that stores the upload, with the owner locked, so uploads of
one user racing on several threads (as on several servers) never pass it together.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses

import pytest

from snakewar.engine.protocol import PlayedGame
from snakewar.errors import TooLargeError
from snakewar.games.halite3.adapter import played_from_hlt
from snakewar.storage import QuotaExceededError, Store, StoreError
from tests.conformance_data import SHIPPED_HALITE_REPLAYS

SMALL = SHIPPED_HALITE_REPLAYS / "public-s100215-32x32-2p.hlt"


def upload(game_id: str, padding: int = 0) -> PlayedGame:
    """An uploaded replay stored as ``game_id``, its file padded by ``padding`` bytes."""
    played = played_from_hlt(SMALL.read_bytes(), game_id=game_id, source="upload")
    data = dataclasses.replace(played.data, replay=SMALL.read_bytes() + b" " * padding)
    return dataclasses.replace(played, data=data)


def user(store: Store, name: str) -> int:
    return store.accounts.create_user(name, "!").id


def test_a_users_uploads_count_replays_and_archives_and_nothing_else(store: Store) -> None:
    ann, bob = user(store, "ann"), user(store, "bob")
    size = SMALL.stat().st_size
    assert store.accounts.stored_bytes(ann) == 0
    assert store.games.save_played(upload("a1"), owner_id=ann)
    assert store.games.save_played(upload("a2", 1000), owner_id=ann)
    store.snakes.register(ann, "kit", "halite3", "upload", language="python3", archive=b"z" * 777)
    store.snakes.register(ann, "web", "battlesnake", "url", url="http://example.com/")
    # Games the server played (not uploads) and other users' uploads are not ann's.
    played = played_from_hlt(SMALL.read_bytes(), game_id="p1", source="ladder:x")
    assert store.games.save_played(played, owner_id=ann)
    assert store.games.save_played(upload("b1"), owner_id=bob)
    assert store.accounts.stored_bytes(ann) == 2 * size + 1000 + 777
    assert store.accounts.stored_by_user() == {ann: 2 * size + 1000 + 777, bob: size}
    # Deleting an upload frees its room at once.
    store.games.delete("a2")
    assert store.accounts.stored_bytes(ann) == size + 777


def test_an_upload_past_the_quota_is_refused_and_not_stored(store: Store) -> None:
    ann = user(store, "ann")
    size = SMALL.stat().st_size
    quota = 3 * size
    assert store.games.save_played(upload("a1"), owner_id=ann, quota=quota)
    assert store.games.save_played(upload("a2"), owner_id=ann, quota=quota)
    with pytest.raises(QuotaExceededError) as refused:
        store.games.save_played(upload("a3", 1), owner_id=ann, quota=quota)
    assert str(refused.value) == (
        f"storage quota: you store {2 * size} bytes of uploads and this one is {size + 1} "
        f"bytes; the quota is {quota} bytes per user (delete an upload or an uploaded "
        "snake to make room)"
    )
    # A 413 on the server (TooLargeError), a store's refusal (StoreError).
    assert issubclass(QuotaExceededError, TooLargeError)
    assert issubclass(QuotaExceededError, StoreError)
    assert store.games.get("a3") is None
    # Exactly up to the quota is allowed; an archive counts against the same quota.
    assert store.games.save_played(upload("a3"), owner_id=ann, quota=quota)
    with pytest.raises(QuotaExceededError):
        store.snakes.register(
            ann, "kit", "halite3", "upload", language="python3", archive=b"z", quota=quota
        )
    assert store.snakes.count_owned(ann) == 0
    # No quota (an admin): stored whatever the others hold.
    assert store.games.save_played(upload("a4"), owner_id=ann, quota=None)


def test_uploads_racing_on_many_threads_never_pass_the_quota_together(store: Store) -> None:
    ann = user(store, "ann")
    size = SMALL.stat().st_size
    quota = 5 * size

    def send(i: int) -> str:
        try:
            store.games.save_played(upload(f"r{i}"), owner_id=ann, quota=quota)
        except QuotaExceededError:
            return "refused"
        return "stored"

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        outcomes = list(pool.map(send, range(16)))
    assert outcomes.count("stored") == 5 and outcomes.count("refused") == 11, outcomes
    assert store.accounts.stored_bytes(ann) == quota
