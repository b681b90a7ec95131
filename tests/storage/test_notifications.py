"""The notifications' settings and outbox, and the dashboard's queries, on SQLite and PostgreSQL.

The outbox is shared by every server of a database: a message is claimed by one server
at a time (a second claimer gets nothing until the claim runs out), the hourly cap is
counted per user and channel, and a message is retried, then given up.
"""

from __future__ import annotations

import datetime as dt
import threading

import sqlalchemy as sa

from snakewar.storage import Store
from snakewar.storage.models import NotificationModel
from snakewar.storage.notifications import NotifySettings, SqlNotificationRepository
from snakewar.storage.operations import OperationsQueries, _last_lines

HOOK = "https://hooks.example.org/x"


def _user(store: Store, name: str, role: str = "user") -> int:
    return store.accounts.create_user(name, "hash", role=role).id


def test_settings_round_trip_and_subscribers(store: Store) -> None:
    repo = SqlNotificationRepository(store.db)
    ann, boss, off = _user(store, "ann"), _user(store, "boss", "admin"), _user(store, "off")
    assert repo.settings(ann) == NotifySettings()
    saved = repo.save_settings(
        ann, NotifySettings(HOOK, "ann@example.org", {"game_finished": ("webhook", "email")})
    )
    assert saved.events == {"game_finished": ("webhook", "email")}
    assert repo.settings(ann) == saved
    repo.save_settings(boss, NotifySettings(HOOK, None, {"signup": ("webhook",)}))
    repo.save_settings(off, NotifySettings(HOOK, None, {"game_finished": ("webhook",)}))
    store.accounts.update_user("off", disabled=True)
    assert repo.subscribers("game_finished", [ann, boss, off]) == [ann]
    assert repo.subscribers("signup", admins=True) == [boss]
    assert repo.subscribers("signup", [ann]) == []
    # Replaced whole: an event left out is no longer told.
    repo.save_settings(ann, NotifySettings(HOOK, None, {}))
    assert repo.subscribers("game_finished", [ann]) == []


def test_the_cap_counts_each_user_and_channel_in_the_last_hour(store: Store) -> None:
    repo = SqlNotificationRepository(store.db)
    ann, bob = _user(store, "ann"), _user(store, "bob")
    both = NotifySettings(HOOK, "ann@example.org", {"test": ("webhook", "email")})
    repo.save_settings(ann, both)
    repo.save_settings(bob, both)
    states = []
    for _ in range(3):
        made = repo.enqueue(ann, "test", "t", "b", None, per_hour=2)
        states.append(sorted((n.channel, n.state) for n in made))
    assert states[0] == states[1] == [("email", "pending"), ("webhook", "pending")]
    assert states[2] == [("email", "capped"), ("webhook", "capped")]
    assert [n.state for n in repo.enqueue(bob, "test", "t", "b", None, per_hour=2)] == [
        "pending",
        "pending",
    ]
    # An hour later the share is whole again.
    with store.db.session() as session:
        session.execute(
            sa.update(NotificationModel)
            .where(NotificationModel.user_id == ann)
            .values(created_at=dt.datetime.now(dt.UTC) - dt.timedelta(hours=1, minutes=1))
        )
    assert {n.state for n in repo.enqueue(ann, "test", "t", "b", None, per_hour=2)} == {"pending"}
    # A channel with nowhere to send queues nothing.
    repo.save_settings(ann, NotifySettings(None, None, {"test": ("webhook",)}))
    assert repo.enqueue(ann, "test", "t", "b", None, per_hour=2) == []


def test_the_cap_holds_for_servers_queueing_at_once(store: Store) -> None:
    repo = SqlNotificationRepository(store.db)
    ann = _user(store, "ann")
    repo.save_settings(ann, NotifySettings(HOOK, None, {"test": ("webhook",)}))
    results: list[str] = []
    lock = threading.Lock()

    def queue() -> None:
        for _ in range(5):
            made = repo.enqueue(ann, "test", "t", "b", None, per_hour=6)
            with lock:
                results.extend(n.state for n in made)

    threads = [threading.Thread(target=queue) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results).count("pending") == 6 and len(results) == 20


def test_a_claim_is_one_servers_until_it_runs_out_then_retried_and_given_up(
    store: Store,
) -> None:
    repo = SqlNotificationRepository(store.db)
    ann = _user(store, "ann")
    repo.save_settings(ann, NotifySettings(HOOK, None, {"test": ("webhook",)}))
    [made] = repo.enqueue(ann, "test", "t", "b", "/x", per_hour=5)
    [claimed] = repo.claim("a", 10, 60)
    assert claimed.id == made.id and claimed.link == "/x"
    assert repo.claim("b", 10, 60) == []  # claimed by "a"
    repo.retry(made.id, "b", "not b's to record", 0)  # only the claimer records
    assert repo.recent(ann)[0].attempts == 0
    repo.retry(made.id, "a", "webhook: HTTP status 503", 0)
    again = repo.claim("b", 10, 60)  # free again, due now: anyone's
    assert [n.id for n in again] == [made.id] and again[0].attempts == 1
    repo.failed(made.id, "b", "webhook: HTTP status 503")
    [done] = repo.recent(ann)
    assert (
        done.state == "failed" and done.attempts == 2 and done.error == "webhook: HTTP status 503"
    )
    assert repo.claim("a", 10, 60) == []
    # A claim that ran out (its server died mid-send) is taken up by another.
    [second] = repo.enqueue(ann, "test", "t", "b", None, per_hour=5)
    assert [n.id for n in repo.claim("a", 10, -1)] == [second.id]
    assert [n.id for n in repo.claim("b", 10, 60)] == [second.id]
    repo.sent(second.id, "b")
    assert repo.recent(ann)[0].state == "sent" and repo.recent(ann)[0].sent_at is not None
    assert repo.counts() == {"pending": 0, "sent": 1, "failed": 1, "capped": 0}
    # Old messages done with are forgotten; pending ones never.
    [third] = repo.enqueue(ann, "test", "t", "b", None, per_hour=5)
    with store.db.session() as session:
        session.execute(
            sa.update(NotificationModel).values(
                created_at=dt.datetime.now(dt.UTC) - dt.timedelta(days=31)
            )
        )
    assert repo.prune(dt.timedelta(days=30)) == 2
    assert [n.id for n in repo.recent(ann)] == [third.id]


def test_the_dashboard_queries(store: Store) -> None:
    queries = OperationsQueries(store.db)
    assert queries.games_by_status() == {"running": 0, "complete": 0, "aborted": 0, "cancelled": 0}
    assert queries.failed_games() == [] and queries.bot_errors() == []
    _user(store, "ann")
    _user(store, "bob")
    assert [u.name for u in queries.sign_ups()] == ["bob", "ann"]
    disk = queries.disk_use()
    assert disk.games == 0 and disk.frames == 0 and disk.replay_bytes == 0
    assert disk.database_bytes is not None and disk.database_bytes > 0


def test_a_bot_errors_text_is_the_end_of_its_log() -> None:
    log = "\nInitialization Phase\n=====\nerror: read failed\nBot error output was:\nboom\n"
    assert _last_lines(log) == "error: read failed · Bot error output was: · boom"
    assert _last_lines("x" * 1000).startswith("…") and len(_last_lines("x" * 1000)) == 300
