"""Notifications: a real webhook receiver and a real SMTP server (aiosmtpd) on loopback.

Users set where and about what they are told (``/api/notifications/settings``); the
events queue messages, and the server's background worker delivers them: a Discord-
compatible JSON body POSTed to the webhook (through the outbound address policy) and
an e-mail through the configured SMTP server.  Rate caps hold per user and channel;
failed deliveries are tried a bounded number of times; a webhook on a private address
is refused when saved and again when delivered; bad settings are 422 naming the field.

Events end to end: a sign-up (to the admins who asked), a snake paused by the
continuous ladder's health check (to its owner), a finished game of one's snake, and a
tournament's start (the function the tournaments call).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from fastapi.testclient import TestClient

from snakewar.server import ServerConfig, create_app
from snakewar.server.notify import Notifier, notify_tournament_started
from snakewar.storage import Store
from snakewar.storage.notifications import NotifySettings
from tests.asgi_server import free_port
from tests.games.battlesnake.referee.snake_servers import SnakeServers
from tests.server.accounts import BASE_URL, make_user
from tests.server.receivers import SmtpSink, WebhookReceiver, wait_for

SENDER = "arena@snakes.example.org"


@dataclass
class Site:
    """A public server, its store, its notifier, and the two receivers."""

    client: TestClient
    store: Store
    hook: WebhookReceiver
    smtp: SmtpSink

    @property
    def notifier(self) -> Notifier:
        found: Notifier = self.client.app.state.notifier  # type: ignore[attr-defined]
        return found

    def user(self, name: str, *, admin: bool = False) -> dict[str, str]:
        return make_user(self.store, name, admin=admin)

    def settle(self, headers: dict[str, str], count: int) -> list[dict[str, Any]]:
        """Wait until the user's latest ``count`` messages are final; returns them all."""
        found: list[dict[str, Any]] = []

        def final() -> bool:
            nonlocal found
            found = self.client.get("/api/notifications", headers=headers).json()
            return len(found) >= count and all(n["state"] != "pending" for n in found)

        wait_for(final, f"{count} notifications to be delivered or given up")
        return found


@contextlib.contextmanager
def site(**config: Any) -> Iterator[Site]:
    with WebhookReceiver() as hook, SmtpSink() as smtp, Store("sqlite://") as store:
        options: dict[str, Any] = {
            "database_url": "memory",
            "public": True,
            "signup": "open",
            # The receivers run on loopback: the operator lets the server call there.
            "allowed_networks": ("127.0.0.0/8",),
            "smtp_host": "127.0.0.1",
            "smtp_port": smtp.port,
            "smtp_sender": SENDER,
            "site_url": "https://snakes.example.org",
            "logins_per_minute": 600.0,
            **config,
        }
        app = create_app(ServerConfig(**options), store=store)
        with TestClient(app, base_url=BASE_URL, raise_server_exceptions=False) as client:
            made = Site(client, store, hook, smtp)
            made.notifier.backoff_s = 0.05  # retries soon: the tests wait for them
            yield made


def subscribe(site: Site, headers: dict[str, str], **events: list[str]) -> None:
    body = {"webhook_url": site.hook.url(), "email": "ann@example.org", "events": events}
    saved = site.client.put("/api/notifications/settings", json=body, headers=headers)
    assert saved.status_code == 200, saved.text
    assert saved.json()["events"] == events


def test_a_test_message_reaches_the_webhook_and_the_smtp_server() -> None:
    with site() as s:
        ann = s.user("ann")
        subscribe(s, ann)
        shown = s.client.get("/api/notifications/settings", headers=ann).json()
        assert shown["webhook_url"] == s.hook.url() and shown["email"] == "ann@example.org"
        assert "signup" not in {e["name"] for e in shown["available_events"]}  # admins' only
        queued = s.client.post("/api/notifications/test", headers=ann)
        assert queued.status_code == 202, queued.text
        assert sorted(n["channel"] for n in queued.json()) == ["email", "webhook"]
        done = s.settle(ann, 2)
        assert {n["state"] for n in done} == {"sent"}, done
        # Discord's webhook body: content, username, one embed; nobody is pinged.
        [body] = s.hook.bodies()
        assert body["username"] == "Snakewar"
        assert body["content"] == "Snakewar test message"
        assert body["embeds"][0]["title"] == "Snakewar test message"
        assert body["embeds"][0]["url"] == "https://snakes.example.org/account"
        assert body["allowed_mentions"] == {"parse": []}
        assert s.hook.posted[0].headers["Content-Type"] == "application/json"
        [(envelope, message)] = s.smtp.messages()
        assert envelope.mail_from == SENDER and envelope.rcpt_tos == ["ann@example.org"]
        assert message["Subject"] == "[Snakewar] Snakewar test message"
        assert message["To"] == "ann@example.org" and message["From"] == SENDER
        content = message.get_content()
        assert "https://snakes.example.org/account" in content


def test_a_sign_up_tells_the_admins_who_asked_and_only_them() -> None:
    with site() as s:
        boss = s.user("boss", admin=True)
        s.user("other", admin=True)  # an admin who asked for nothing
        ann = s.user("ann")
        subscribe(s, boss, signup=["webhook", "email"])
        refused = s.client.put(
            "/api/notifications/settings",
            json={"webhook_url": s.hook.url(), "events": {"signup": ["webhook"]}},
            headers=ann,
        )
        assert refused.status_code == 422 and "admins only" in refused.text
        made = s.client.post(
            "/api/auth/signup", json={"name": "newbie", "password": "a long password"}
        )
        assert made.status_code == 201, made.text
        wait_for(lambda: len(s.hook.bodies()) == 1 and len(s.smtp.messages()) == 1, "sign-up")
        assert s.hook.bodies()[0]["content"] == "New account: newbie"
        assert s.smtp.messages()[0][1]["Subject"] == "[Snakewar] New account: newbie"
        done = s.settle(boss, 2)
        assert [n["event"] for n in done] == ["signup", "signup"]


def test_rate_caps_hold_per_user_and_channel() -> None:
    with site(notify_per_hour=2) as s:
        ann = s.user("ann")
        bob = s.user("bob")
        subscribe(s, ann)
        for _ in range(4):
            assert s.client.post("/api/notifications/test", headers=ann).status_code == 202
        done = s.settle(ann, 8)
        for channel in ("webhook", "email"):
            states = sorted(n["state"] for n in done if n["channel"] == channel)
            assert states == ["capped", "capped", "sent", "sent"], done
        capped = next(n for n in done if n["state"] == "capped")
        assert capped["error"] == "over the cap of 2 an hour" and capped["attempts"] == 0
        # Capped messages are never sent: what arrived is exactly what was sent.
        assert len(s.hook.bodies()) == 2 and len(s.smtp.messages()) == 2
        # Another user's share is their own.
        body = {"webhook_url": s.hook.url("/bob"), "events": {}}
        assert s.client.put("/api/notifications/settings", json=body, headers=bob).is_success
        assert s.client.post("/api/notifications/test", headers=bob).status_code == 202
        assert [n["state"] for n in s.settle(bob, 1)] == ["sent"]
        assert [p.path for p in s.hook.posted].count("/bob") == 1


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:{port}/hook",
        "http://10.1.2.3/hook",
        "http://[::1]:{port}/hook",
        "http://169.254.169.254/latest/meta-data",
        "http://[::ffff:127.0.0.1]:{port}/hook",
        "http://0.0.0.0:{port}/hook",
    ],
)
def test_a_private_webhook_address_is_refused_by_the_policy(url: str) -> None:
    with site(allowed_networks=()) as s:
        ann = s.user("ann")
        given = url.format(port=s.hook.port)
        refused = s.client.put(
            "/api/notifications/settings",
            json={"webhook_url": given, "events": {"game_finished": ["webhook"]}},
            headers=ann,
        )
        assert refused.status_code == 422, refused.text
        [detail] = refused.json()["detail"]
        assert detail["loc"][-1] == "webhook_url"
        assert "refused" in detail["msg"] and "public server" in detail["msg"]
        assert (
            s.client.get("/api/notifications/settings", headers=ann).json()["webhook_url"] is None
        )


def test_the_policy_holds_at_delivery_too() -> None:
    # A name that answered a public address when saved may answer loopback later (DNS
    # rebinding): the delivery checks the address it connects to, and gives up at once.
    with site(allowed_networks=()) as s:
        ann = s.user("ann")
        user_id = s.store.accounts.user("ann").id
        s.notifier.repo.save_settings(user_id, NotifySettings(webhook_url=s.hook.url()))
        assert s.client.post("/api/notifications/test", headers=ann).status_code == 202
        [done] = s.settle(ann, 1)
        assert done["state"] == "failed" and done["attempts"] == 1
        assert "refused: 127.0.0.1, a loopback address" in done["error"]
        assert s.hook.posted == []


def test_failed_deliveries_are_tried_a_bounded_number_of_times() -> None:
    with site(notify_attempts=3) as s:
        ann = s.user("ann")
        body = {"webhook_url": s.hook.url(), "events": {}}
        assert s.client.put("/api/notifications/settings", json=body, headers=ann).is_success
        s.hook.status = 503  # down for now: tried again, three times in all
        assert s.client.post("/api/notifications/test", headers=ann).status_code == 202
        [done] = s.settle(ann, 1)
        assert done["state"] == "failed" and done["attempts"] == 3, done
        assert done["error"] == "webhook: HTTP status 503"
        assert len(s.hook.posted) == 3
        s.hook.status = 404  # gone for good: not tried again
        assert s.client.post("/api/notifications/test", headers=ann).status_code == 202
        latest = s.settle(ann, 2)[0]
        assert latest["state"] == "failed" and latest["attempts"] == 1
        assert len(s.hook.posted) == 4
        s.hook.status = 200
        assert s.client.post("/api/notifications/test", headers=ann).status_code == 202
        assert s.settle(ann, 3)[0]["state"] == "sent"


def test_an_smtp_server_that_is_down_is_tried_again_then_given_up() -> None:
    with site(smtp_port=free_port(), notify_attempts=2) as s:
        ann = s.user("ann")
        body = {"email": "ann@example.org", "events": {}}
        assert s.client.put("/api/notifications/settings", json=body, headers=ann).is_success
        assert s.client.post("/api/notifications/test", headers=ann).status_code == 202
        [done] = s.settle(ann, 1)
        assert done["state"] == "failed" and done["attempts"] == 2, done
        assert done["error"].startswith("e-mail: ConnectionRefusedError")


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"webhook_url": "ftp://example.org/x"}, "webhook_url"),
        ({"webhook_url": "http://user:secret@127.0.0.1/x"}, "webhook_url"),
        ({"webhook_url": "http://127.0.0.1:99999/x"}, "webhook_url"),
        ({"webhook_url": "http://127.0.0.1/" + "x" * 2100}, "webhook_url"),
        ({"webhook_url": "http://127.0.0.1/a b"}, "webhook_url"),
        ({"email": "not an address"}, "email"),
        ({"email": "ann@example.org\r\nBcc: all@example.org"}, "email"),
        ({"events": {"game_finished": ["webhook"]}}, "webhook_url"),
        ({"events": {"game_finished": ["email"]}}, "email"),
        ({"events": {"bogus": []}}, "events"),
        ({"events": {"game_finished": ["pigeon"]}}, "events"),
        ({"events": "all"}, "events"),
        ({"colour": "red"}, "colour"),
    ],
)
def test_bad_settings_are_refused_naming_the_field(body: dict[str, Any], field: str) -> None:
    with site() as s:
        ann = s.user("ann")
        refused = s.client.put("/api/notifications/settings", json=body, headers=ann)
        assert refused.status_code == 422, refused.text
        assert field in str(refused.json()["detail"]), refused.text


def test_test_messages_are_rate_limited_per_client() -> None:
    with site(notify_per_hour=100) as s:
        ann = s.user("ann")
        body = {"webhook_url": s.hook.url(), "events": {}}
        assert s.client.put("/api/notifications/settings", json=body, headers=ann).is_success
        answers = [s.client.post("/api/notifications/test", headers=ann) for _ in range(8)]
        codes = [a.status_code for a in answers]
        assert codes[:5] == [202] * 5 and 429 in codes[5:], codes
        refused = next(a for a in answers if a.status_code == 429)
        assert refused.json()["detail"] == "too many test messages from this client; wait a minute"


def test_anonymous_visitors_have_no_settings_and_send_nothing() -> None:
    with site() as s:
        for method, path in (
            ("GET", "/api/notifications/settings"),
            ("PUT", "/api/notifications/settings"),
            ("POST", "/api/notifications/test"),
            ("GET", "/api/notifications"),
            ("GET", "/api/admin/dashboard"),
        ):
            answer = s.client.request(method, path, json={} if method == "PUT" else None)
            assert answer.status_code == 401, (method, path, answer.text)


def test_a_tournament_start_tells_the_owners_of_its_snakes() -> None:
    with site() as s:
        ann = s.user("ann")
        bob = s.user("bob")
        subscribe(s, ann, tournament_started=["webhook"])
        body = {"webhook_url": s.hook.url("/bob"), "events": {}}  # bob asked for nothing
        assert s.client.put("/api/notifications/settings", json=body, headers=bob).is_success
        assert s.client.portal is not None
        s.client.portal.call(
            notify_tournament_started,
            s.notifier,
            "t-1",
            "Winter Cup",
            ["@ann/viper", "@bob/mamba", "builtin:random"],
        )
        wait_for(lambda: len(s.hook.bodies()) == 1, "the tournament's message")
        [message] = s.hook.bodies()
        assert message["content"] == "Tournament Winter Cup started"
        assert "@ann/viper" in message["embeds"][0]["description"]
        assert message["embeds"][0]["url"] == "https://snakes.example.org/tournaments/t-1"
        assert s.hook.posted[0].path == "/hook"


def test_a_tournament_its_admin_starts_tells_its_snakes_owners() -> None:
    # The whole way: the tournaments' "started" hook is wired to the notifier.
    with SnakeServers() as snakes, site() as s:
        boss = s.user("boss", admin=True)
        ann = s.user("ann")
        subscribe(s, ann, tournament_started=["webhook"])
        registered = s.client.post(
            "/api/snakes", json={"name": "viper", "url": snakes.url("up")}, headers=ann
        )
        assert registered.status_code == 201, registered.text
        made = s.client.post(
            "/api/tournaments",
            json={
                "name": "Spring Cup",
                "format": "round_robin",
                "snakes": ["@ann/viper", "builtin:random"],
                "width": 7,
                "height": 7,
                "start": False,
            },
            headers=boss,
        )
        assert made.status_code == 201, made.text
        tid = made.json()["id"]
        assert not s.hook.bodies()  # made, not started: nobody is told yet
        started = s.client.post(f"/api/tournaments/{tid}/round", headers=boss)
        assert started.status_code == 202, started.text
        wait_for(lambda: len(s.hook.bodies()) == 1, "the tournament's message")
        [message] = s.hook.bodies()
        assert message["content"] == "Tournament Spring Cup started"
        assert message["embeds"][0]["url"] == f"https://snakes.example.org/tournaments/{tid}"


def test_a_finished_game_of_your_snake_tells_you() -> None:
    with SnakeServers() as snakes, site() as s:
        ann = s.user("ann")
        subscribe(s, ann, game_finished=["webhook", "email"])
        registered = s.client.post(
            "/api/snakes", json={"name": "viper", "url": snakes.url("up")}, headers=ann
        )
        assert registered.status_code == 201, registered.text
        created = s.client.post(
            "/api/games",
            json={"snakes": ["@ann/viper", "builtin:random"], "width": 7, "height": 7},
            headers=ann,
        )
        assert created.status_code == 201, created.text
        game_id = created.json()["id"]
        wait_for(lambda: len(s.hook.bodies()) == 1 and len(s.smtp.messages()) == 1, "game")
        [body] = s.hook.bodies()
        assert body["content"].startswith("Game finished: @ann/viper vs ")
        assert body["embeds"][0]["url"] == f"https://snakes.example.org/view/{game_id}"
        assert s.client.get(f"/api/games/{game_id}").json()["status"] == "complete"


def test_a_snake_paused_by_its_health_check_tells_its_owner() -> None:
    # A continuous ladder's scheduler checks its entrants; a snake that does not answer
    # is paused, and its owner told once (not at every later check).
    with SnakeServers() as snakes, site() as s:
        boss = s.user("boss", admin=True)
        ann = s.user("ann")
        subscribe(s, ann, snake_paused=["webhook"])
        dead = f"http://127.0.0.1:{free_port()}"
        for name, url in (("viper", dead), ("mamba", snakes.url("up"))):
            made = s.client.post("/api/snakes", json={"name": name, "url": url}, headers=ann)
            assert made.status_code == 201, made.text
        ladder = {"name": "lad", "timeout": 2000, "width": 7, "height": 7}
        assert s.client.post("/api/ladders", json=ladder, headers=boss).status_code == 201
        for snake in ("@ann/viper", "@ann/mamba", "builtin:random"):
            joined = s.client.post("/api/ladders/lad/snakes", json={"snake": snake}, headers=ann)
            assert joined.status_code == 201, joined.text
        turned = s.client.patch("/api/ladders/lad", json={"continuous": True}, headers=boss)
        assert turned.status_code == 200, turned.text
        wait_for(lambda: len(s.hook.bodies()) >= 1, "the pause's message", 120)
        [body] = s.hook.bodies()
        assert body["content"] == "@ann/viper is paused on ladder lad"
        assert "failed its health check" in body["embeds"][0]["description"]
        assert dead not in str(body)  # a snake's address is its owner's secret
        entries = s.client.get("/api/ladders/lad", headers=boss).json()
        assert "viper" in str(entries)
