"""Rate limits counted in the database: one limit per client for every server sharing it.

On a SQLite file and on PostgreSQL (the ``db_url`` fixture): the token bucket and the
budget of uses as the in-memory ones count, decided atomically when servers race, and
two apps on one database refusing one client together.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pytest
from fastapi.testclient import TestClient

from snakewar.server.app import create_app
from snakewar.server.config import ServerConfig
from snakewar.server.limits import RateBook, SharedRateLimiter, SharedUsageBudget
from snakewar.server.safety import RateLimiter, RateLimitError, UsageBudget
from snakewar.storage import AsyncStore, Store
from snakewar.storage.limits import UseOutcome
from tests.games.battlesnake.referee.counting_snake import counting_snake
from tests.server.accounts import BASE_URL, make_user

T0 = 1_800_000_000.0  # seconds since the epoch, as the servers count


@dataclass(frozen=True)
class Window:
    """A budget's settings."""

    per_window: int
    window_s: float
    at_once: int | None
    lease_s: float

    def take(self, store: Store, client: str, now: float) -> UseOutcome:
        return store.limits.take_use(
            "tester",
            client,
            per_window=self.per_window,
            window_s=self.window_s,
            at_once=self.at_once,
            lease_s=self.lease_s,
            now=now,
        )


def test_a_shared_bucket_counts_as_the_memory_one(store: Store) -> None:
    limits = store.limits
    memory = RateLimiter(per_minute=60, burst=3)
    for now in (T0, T0, T0, T0, T0 + 1.0, T0 + 1.0, T0 + 1.5, T0 + 10.0):
        shared = limits.take_token("games", "ip:1.2.3.4", 60, 3, now)
        assert shared == memory.allow("ip:1.2.3.4", now=now), now
    assert limits.take_token("games", "ip:5.6.7.8", 60, 3, T0)  # another client's own
    assert limits.take_token("logins", "ip:1.2.3.4", 60, 3, T0)  # another limit's own
    # Full again at T0 + 10 (3 tokens, one taken in the loop): two more, then none.
    taken = [limits.take_token("games", "ip:1.2.3.4", 60, 3, T0 + 10.0) for _ in range(3)]
    assert taken == [True, True, False]
    limits.refund_token("games", "ip:1.2.3.4", 60)  # refused after all: given back
    assert limits.take_token("games", "ip:1.2.3.4", 60, 3, T0 + 10.0)


def test_a_long_client_key_is_stored_as_its_hash(store: Store) -> None:
    long = "host:" + "x" * 300
    assert store.limits.take_token("games", long, 60, 1, T0)
    assert not store.limits.take_token("games", long, 60, 1, T0)
    assert store.limits.take_token("games", long + "y", 60, 1, T0)


def test_servers_racing_for_one_bucket_take_exactly_its_tokens(db_url: str) -> None:
    # Two stores (two servers' connection pools), four threads each, 80 requests at the
    # same instant for a bucket of 25: exactly 25 pass, whoever wins each race.
    with Store(db_url) as one, Store(db_url) as two:
        start = threading.Barrier(8)

        def ask(store: Store) -> int:
            start.wait()
            return sum(store.limits.take_token("games", "user:1", 1e-6, 25, T0) for _ in range(10))

        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            taken = sum(pool.map(ask, [one, two] * 4))
        assert taken == 25


def test_a_shared_budget_counts_a_window_and_uses_at_once(store: Store) -> None:
    limits = store.limits
    window = Window(2, 3600.0, 1, 900.0)
    first = window.take(store, "user:1", T0)
    assert first.use_id is not None
    busy = window.take(store, "user:1", T0 + 1)
    assert busy.use_id is None and busy.going_on == 1
    assert window.take(store, "user:2", T0 + 1).use_id is not None
    limits.end_use(first.use_id)
    assert limits.going_on("tester", "user:1", T0 + 2) == 0
    second = window.take(store, "user:1", T0 + 10)
    assert second.use_id is not None
    limits.end_use(second.use_id)
    spent = window.take(store, "user:1", T0 + 20)
    assert (spent.use_id, spent.recent, spent.oldest) == (None, 2, T0)
    # The first run left the hour: room again; a use refused after all counts nothing.
    third = window.take(store, "user:1", T0 + 3600.5)
    assert third.use_id is not None
    limits.drop_use(third.use_id)
    assert window.take(store, "user:1", T0 + 3601).use_id is not None


def test_a_use_whose_server_died_stops_counting_when_its_lease_runs_out(store: Store) -> None:
    window = Window(10, 3600.0, 1, 60.0)
    assert window.take(store, "user:1", T0).use_id is not None
    assert window.take(store, "user:1", T0 + 59).use_id is None
    assert window.take(store, "user:1", T0 + 61).use_id is not None


def test_pruning_drops_only_rows_that_limit_nothing(store: Store) -> None:
    limits = store.limits
    assert limits.take_token("games", "idle", 60, 1, T0)
    window = Window(1, 100.0, None, 10.0)
    assert window.take(store, "old", T0).use_id is not None
    assert limits.take_token("games", "busy", 1e-6, 1, T0 + 500)
    assert limits.prune(T0 + 500) >= 2  # the idle bucket, the old use (and its lock row)
    assert not limits.take_token("games", "busy", 1e-6, 1, T0 + 500)  # kept: still limits
    assert limits.take_token("games", "idle", 60, 1, T0 + 500)
    assert window.take(store, "old", T0 + 500).use_id is not None


def test_the_rate_book_counts_in_memory_for_a_memory_database(db_url: str) -> None:
    with Store("sqlite://") as memory, Store(db_url) as shared:
        alone = RateBook(AsyncStore(memory))
        assert not alone.shared
        assert isinstance(alone.rate("games", 30), RateLimiter)
        assert isinstance(alone.budget("tester", 2, at_once=1), UsageBudget)
        book = RateBook(AsyncStore(shared))
        assert book.shared
        assert isinstance(book.rate("games", 30), SharedRateLimiter)
        assert isinstance(book.budget("tester", 2, at_once=1), SharedUsageBudget)


def test_shared_limits_through_their_async_interface(db_url: str) -> None:
    async def scenario(astore: AsyncStore) -> None:
        book = RateBook(astore)
        rate = book.rate("uploads", per_minute=1e-6, burst=2)
        async with rate.counting("ip:9.9.9.9", "no"):
            pass
        with pytest.raises(ValueError):
            async with rate.counting("ip:9.9.9.9", "no"):
                raise ValueError("refused after all: the token comes back")
        assert await rate.take("ip:9.9.9.9")
        with pytest.raises(RateLimitError, match="too many"):
            async with rate.counting("ip:9.9.9.9", "too many"):
                pass
        budget = book.budget("tester_runs_per_hour", 1, 3600.0, at_once=1)
        async with budget.in_use("user:7", "tester runs"):
            assert isinstance(budget, SharedUsageBudget)
            assert await budget.going_on_now("user:7") == 1
            with pytest.raises(RateLimitError, match="going on"):
                await budget.begin("user:7", "tester runs")
        with pytest.raises(RateLimitError, match=r"tester_runs_per_hour=1\); try again in 60"):
            await budget.begin("user:7", "tester runs")

    with Store(db_url) as store:
        astore = AsyncStore(store)
        try:
            asyncio.run(scenario(astore))
        finally:
            astore.close()


@pytest.fixture
def two_servers(db_url: str) -> Iterator[tuple[TestClient, TestClient]]:
    """Two public servers (apps) on one database, as two replicas are."""
    config = ServerConfig(database_url=db_url, public=True, signup="closed", logins_per_minute=1)
    with (
        Store(db_url) as first,
        Store(db_url) as second,
        TestClient(create_app(config, store=first), base_url=BASE_URL) as one,
        TestClient(create_app(config, store=second), base_url=BASE_URL) as two,
    ):
        yield one, two


def test_two_servers_on_one_database_enforce_one_limit_per_client(
    two_servers: tuple[TestClient, TestClient],
) -> None:
    # Log-in and sign-up attempts: a burst of 10 per client address, counted by both.
    one, two = two_servers
    body = {"name": "someone", "password": "long enough password"}
    codes = [
        (one if i % 2 else two).post("/api/auth/signup", json=body).status_code for i in range(10)
    ]
    assert codes == [403] * 10  # counted, then refused for being closed
    for server in (one, two):
        refused = server.post("/api/auth/signup", json=body)
        assert refused.status_code == 429, refused.text
        assert "too many log-in or sign-up attempts" in refused.json()["detail"]


def test_the_tester_budget_holds_across_two_servers(db_url: str) -> None:
    # One run an hour per user, one at a time, whichever server each request reaches:
    # a run going on on one server refuses one on the other, and ended it still counts.
    config = ServerConfig(
        database_url=db_url,
        public=True,
        allowed_networks=("127.0.0.0/8",),
        tester_runs_per_hour=2,
    )
    with (
        counting_snake() as snake,
        Store(db_url) as first,
        Store(db_url) as second,
        TestClient(
            create_app(config, store=first), base_url=BASE_URL, raise_server_exceptions=False
        ) as one,
        TestClient(
            create_app(config, store=second), base_url=BASE_URL, raise_server_exceptions=False
        ) as two,
    ):
        ann = make_user(first, "ann")
        body = {"url": snake.url}
        with one.stream("POST", "/api/test/stream", json=body, headers=ann) as running:
            assert running.status_code == 200
            lines = running.iter_lines()
            assert json.loads(next(lines))["event"] == "start"
            refused = two.post("/api/test", json=body, headers=ann)
            assert refused.status_code == 429, refused.text
            assert "going on" in refused.json()["detail"]
        # The reader left: the run stops and ends (counted on the database's side).
        budget = one.app.state.tester_budget  # type: ignore[attr-defined]
        assert isinstance(budget, SharedUsageBudget)
        client = f"user:{first.accounts.user('ann').id}"
        wait_until(lambda: asyncio.run(budget.going_on_now(client)) == 0)
        assert two.post("/api/test", json=body, headers=ann).status_code == 200
        spent = one.post("/api/test", json=body, headers=ann)
        assert spent.status_code == 429, spent.text
        assert "tester_runs_per_hour=2" in spent.json()["detail"]


def wait_until(check: Callable[[], bool], timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)
