"""Accounts, roles and ownership on a public server; the local server's one user and walls."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient

from snakewar.server.app import create_app
from snakewar.server.auth import SESSION_COOKIE
from snakewar.server.config import ServerConfig
from snakewar.storage import Store
from tests.asgi_server import serve
from tests.server.accounts import BASE_URL, make_user, password_of, public_client
from tests.waiting import wait_finished

GAME: dict[str, Any] = {"snakes": ["random", "random"], "width": 7, "height": 7}
# One snake alone on a big board, thinking 100 ms every turn: it runs for over a minute
# (a fixed-depth hunter plays ~400 turns a second and can finish in under a second).
SLOW_GAME: dict[str, Any] = {
    "snakes": ["hunter?budget=100"],
    "width": 19,
    "height": 19,
    "maxTurns": 5000,
}


def detail(response: httpx.Response) -> str:
    return str(response.json()["detail"])


def log_in(client: TestClient, name: str) -> str:
    """Log ``client`` in with a session cookie; returns the session's CSRF token."""
    response = client.post("/api/auth/login", json={"name": name, "password": password_of(name)})
    assert response.status_code == 200, response.text
    csrf = response.json()["csrf"]
    assert isinstance(csrf, str) and len(csrf) > 30
    return csrf


# -- sign-up, log-in, sessions ---------------------------------------------------------


def test_open_signup_logs_in_with_a_strict_httponly_cookie() -> None:
    with public_client(as_user=None, signup="open") as client:
        made = client.post("/api/auth/signup", json={"name": "ann", "password": "long enough"})
        assert made.status_code == 201, made.text
        cookie = made.headers["set-cookie"]
        assert f"{SESSION_COOKIE}=" in cookie
        assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/" in cookie
        me = client.get("/api/auth/me").json()
        assert me["user"]["name"] == "ann" and me["user"]["role"] == "user"
        assert me["via"] == "session" and me["csrf"] == made.json()["csrf"]
        # The password is stored as an argon2 hash; the session as a digest.
        store: Store = client.store
        with store.db.engine.connect() as connection:
            stored = connection.execute(sa.text("SELECT password_hash FROM users")).scalars()
            assert all(h.startswith("$argon2") for h in stored if h != "!")
            sessions = connection.execute(sa.text("SELECT id FROM sessions")).scalars().all()
        assert client.cookies[SESSION_COOKIE] not in sessions
        # Taken names, short passwords and bad names are refused, naming the field (to a
        # new visitor: a logged-in browser's changes need the CSRF header).
        client.cookies.clear()
        again = client.post("/api/auth/signup", json={"name": "ann", "password": "long enough"})
        assert again.status_code == 409
        short = client.post("/api/auth/signup", json={"name": "bob", "password": "short"})
        assert short.status_code == 422 and short.json()["detail"][0]["loc"][-1] == "password"
        shouty = client.post("/api/auth/signup", json={"name": "Bob!", "password": "long enough"})
        assert shouty.status_code == 422 and shouty.json()["detail"][0]["loc"][-1] == "name"


def test_invite_only_and_closed_signup() -> None:
    with public_client(signup="invite") as admin:
        anonymous = {"Authorization": ""}
        no_invite = {"name": "ann", "password": "long enough"}
        refused = admin.post("/api/auth/signup", json=no_invite, headers=anonymous)
        assert refused.status_code == 403 and "invitation" in detail(refused)
        code = admin.post("/api/auth/invites").json()["code"]
        # Not entered: the app is running already (entering would start it again).
        visitor = TestClient(admin.app, base_url=BASE_URL)
        if True:
            made = visitor.post("/api/auth/signup", json={**no_invite, "invite": code})
            assert made.status_code == 201, made.text
            # An invitation works once (for a new visitor: this browser is logged in now).
            visitor.cookies.clear()
            twice = visitor.post(
                "/api/auth/signup", json={"name": "bob", "password": "long enough", "invite": code}
            )
            assert twice.status_code == 403 and "not valid" in detail(twice)
            # Only admins invite.
            assert visitor.post("/api/auth/invites").status_code in (401, 403)
    with public_client(as_user=None, signup="closed") as client:
        closed = client.post("/api/auth/signup", json={"name": "ann", "password": "long enough"})
        assert closed.status_code == 403 and "closed" in detail(closed)


def test_wrong_passwords_are_401_and_attempts_are_throttled() -> None:
    with public_client(as_user="ann", admin=False) as client:
        # Guesses at many accounts from one address: the address's own limit (each
        # account's backoff is tests/server/test_account_safety.py's).
        names = ["ann", "bob", "cat", "dan", "eve", "fay", "gus", "hal", "ivy", "jon", "kit"]
        codes = [
            client.post("/api/auth/login", json={"name": name, "password": "wrong password"})
            for name in names
        ]
        assert [c.status_code for c in codes[:10]] == [401] * 10
        assert "wrong user name or password" in detail(codes[0])
        assert codes[10].status_code == 429 and "from this address" in detail(codes[10])
        # A name that does not exist gets the same answer.
    with public_client(as_user="ann", admin=False) as client:
        nobody = client.post("/api/auth/login", json={"name": "zed", "password": "whatever1"})
        assert nobody.status_code == 401 and detail(nobody) == "wrong user name or password"


def test_a_session_must_repeat_its_csrf_token_and_other_origins_are_refused() -> None:
    with public_client(as_user="ann", admin=False) as client:
        client.headers.pop("Authorization")
        csrf = log_in(client, "ann")
        no_token = client.post("/api/games", json=GAME)
        assert no_token.status_code == 403 and "X-CSRF-Token" in detail(no_token)
        wrong = client.post("/api/games", json=GAME, headers={"X-CSRF-Token": "x" * 43})
        assert wrong.status_code == 403
        ok = client.post("/api/games", json=GAME, headers={"X-CSRF-Token": csrf})
        assert ok.status_code == 201, ok.text
        foreign = client.post(
            "/api/games",
            json=GAME,
            headers={"X-CSRF-Token": csrf, "Origin": "https://evil.example"},
        )
        assert foreign.status_code == 403 and "another site" in detail(foreign)
        # Logging out ends the session on the server, not only in this browser.
        cookie = client.cookies[SESSION_COOKIE]
        assert client.post("/api/auth/logout", headers={"X-CSRF-Token": csrf}).status_code == 204
        client.cookies.set(SESSION_COOKIE, cookie)
        assert client.get("/api/auth/me").json()["user"] is None


def test_api_tokens_are_shown_once_and_revocable() -> None:
    with public_client(as_user="ann", admin=False) as client:
        made = client.post("/api/tokens", json={"label": "ci"})
        assert made.status_code == 201
        token = made.json()["token"]
        assert token.startswith("sw_")
        listed = client.get("/api/tokens").json()
        assert {t["label"] for t in listed} == {"tests", "ci"}
        assert all("token" not in t for t in listed)
        bearer = {"Authorization": f"Bearer {token}"}
        assert client.get("/api/auth/me", headers=bearer).json()["via"] == "token"
        gone = client.delete(f"/api/tokens/{made.json()['id']}")
        assert gone.status_code == 204
        revoked = client.get("/api/auth/me", headers=bearer)
        assert revoked.status_code == 401 and "not valid" in detail(revoked)
        assert client.get("/api/auth/me", headers={"Authorization": "Basic x"}).status_code == 401


def test_a_disabled_account_stops_working() -> None:
    with public_client() as admin:
        ann = make_user(admin.store, "ann")
        assert admin.get("/api/auth/me", headers=ann).json()["user"]["name"] == "ann"
        changed = admin.patch("/api/users/ann", json={"disabled": True})
        assert changed.status_code == 200 and changed.json()["disabled"] is True
        assert admin.get("/api/auth/me", headers=ann).status_code == 401
        assert admin.patch("/api/users/admin", json={"role": "user"}).status_code == 403
        assert admin.get("/api/users", headers=make_user(admin.store, "bob")).status_code == 403


# -- roles and ownership ---------------------------------------------------------------


def test_anonymous_visitors_watch_and_change_nothing() -> None:
    with public_client() as admin:
        game = admin.post("/api/games", json=SLOW_GAME).json()
        admin.post("/api/ladders", json={"name": "lad"})
        visitor = TestClient(admin.app, base_url=BASE_URL)  # the app runs already
        if True:
            assert visitor.get("/api/games").status_code == 200
            assert visitor.get(f"/api/games/{game['id']}").status_code == 200
            assert visitor.get("/api/ladders/lad").status_code == 200
            for method, path, body in [
                ("POST", "/api/games", GAME),
                ("POST", f"/api/games/{game['id']}/cancel", None),
                ("POST", f"/api/games/{game['id']}/rematch", None),
                ("DELETE", f"/api/games/{game['id']}", None),
                ("POST", "/api/ladders", {"name": "mine"}),
                ("POST", "/api/ladders/lad/snakes", {"snake": "builtin:random"}),
                ("POST", "/api/ladders/lad/run", {"games": 1}),
                ("DELETE", "/api/ladders/lad", None),
                ("POST", "/api/tournaments", {"name": "t", "snakes": ["random", "greedy"]}),
                ("POST", "/api/snakes", {"name": "s", "url": "http://8.8.8.8/"}),
                ("POST", "/api/tokens", {"label": "x"}),
                ("POST", "/api/test", {"url": "http://8.8.8.8/"}),
                ("POST", "/api/halite/games", None),
            ]:
                response = visitor.request(method, path, json=body)
                assert response.status_code == 401, (method, path, response.text)
        assert admin.post(f"/api/games/{game['id']}/cancel").status_code in (200, 409)


def test_only_the_owner_or_an_admin_cancels_rematches_or_deletes_a_game() -> None:
    with public_client() as admin:
        ann, bob = make_user(admin.store, "ann"), make_user(admin.store, "bob")
        game = admin.post("/api/games", json=SLOW_GAME, headers=ann).json()
        gid = game["id"]
        # The foreign cancel of the probe: refused every time.
        for _ in range(3):
            refused = admin.post(f"/api/games/{gid}/cancel", headers=bob)
            assert refused.status_code == 403 and "not yours" in detail(refused)
        assert admin.post(f"/api/games/{gid}/rematch", headers=bob).status_code == 403
        assert admin.delete(f"/api/games/{gid}", headers=bob).status_code == 403
        assert admin.get(f"/api/games/{gid}").json()["status"] == "running"
        # Its owner can; a running game is cancelled before it is deleted.
        assert admin.delete(f"/api/games/{gid}", headers=ann).status_code == 409
        assert admin.post(f"/api/games/{gid}/cancel", headers=ann).status_code == 200
        rematch = admin.post(f"/api/games/{gid}/rematch", headers=ann)
        assert rematch.status_code == 201
        # An admin can stop anyone's game.
        assert admin.post(f"/api/games/{rematch.json()['id']}/cancel").status_code == 200
        assert admin.delete(f"/api/games/{gid}", headers=ann).status_code == 204
        assert admin.get(f"/api/games/{gid}").status_code == 404


def test_users_name_built_ins_and_registered_snakes_never_raw_urls() -> None:
    with public_client() as admin:
        ann = make_user(admin.store, "ann")
        raw = admin.post("/api/games", json={**GAME, "snakes": ["http://8.8.8.8/"]}, headers=ann)
        assert raw.status_code == 403 and "register" in detail(raw)
        unknown = admin.post("/api/games", json={**GAME, "snakes": ["@ann/nope"]}, headers=ann)
        assert unknown.status_code == 404


def test_snakes_are_owned_private_ones_hidden_and_urls_shown_to_owners_only() -> None:
    with public_client() as admin:
        ann, bob = make_user(admin.store, "ann"), make_user(admin.store, "bob")
        made = admin.post(
            "/api/snakes", json={"name": "viper", "url": "http://8.8.8.8/"}, headers=ann
        )
        assert made.status_code == 201, made.text
        snake = made.json()
        assert snake["ref"] == "@ann/viper" and snake["url"] == "http://8.8.8.8/"
        assert (
            admin.post(
                "/api/snakes", json={"name": "viper", "url": "http://8.8.4.4/"}, headers=ann
            ).status_code
            == 409
        )
        seen_by_bob = admin.get(f"/api/snakes/{snake['id']}", headers=bob).json()
        assert seen_by_bob["url"] is None and seen_by_bob["owner"] == "ann"
        path = f"/api/snakes/{snake['id']}"
        assert admin.patch(path, json={"paused": True}, headers=bob).status_code == 403
        assert admin.delete(path, headers=bob).status_code == 403
        hidden = admin.patch(path, json={"visibility": "private"}, headers=ann)
        assert hidden.status_code == 200 and hidden.json()["visibility"] == "private"
        assert admin.get(path, headers=bob).status_code == 404
        assert admin.get("/api/snakes", headers=bob).json() == []
        playing = admin.post("/api/games", json={**GAME, "snakes": ["@ann/viper"]}, headers=bob)
        assert playing.status_code == 404
        # Pointing it at a private address later is refused as at registration.
        inward = admin.patch(path, json={"url": "http://127.0.0.1:9/"}, headers=ann)
        assert inward.status_code == 403 and "public server" in detail(inward)
        paused = admin.patch(path, json={"paused": True}, headers=ann).json()
        assert paused["paused"] is True
        refused = admin.post("/api/games", json={**GAME, "snakes": ["@ann/viper"]}, headers=ann)
        assert refused.status_code == 400 and "paused" in detail(refused)
        # An admin may remove anyone's snake.
        assert admin.delete(path).status_code == 204
        assert admin.get(path, headers=ann).status_code == 404


def test_ladders_are_run_by_admins_and_joined_by_users_with_their_own_snakes() -> None:
    with public_client() as admin:
        ann, bob = make_user(admin.store, "ann"), make_user(admin.store, "bob")
        assert admin.post("/api/ladders", json={"name": "l"}, headers=ann).status_code == 403
        assert admin.post("/api/ladders", json={"name": "l"}).status_code == 201
        for user, name in ((ann, "a"), (bob, "b")):
            made = admin.post(
                "/api/snakes", json={"name": name, "url": "http://8.8.8.8/"}, headers=user
            )
            assert made.status_code == 201
        foreign = admin.post("/api/ladders/l/snakes", json={"snake": "@bob/b"}, headers=ann)
        assert foreign.status_code == 403 and "own snakes" in detail(foreign)
        joined = admin.post("/api/ladders/l/snakes", json={"snake": "@ann/a"}, headers=ann)
        assert joined.status_code == 201, joined.text
        entry = joined.json()["standings"][0] if joined.json()["standings"] else None
        ladder = admin.get("/api/ladders/l").json()
        assert entry is None or entry["snake"] == "@ann/a"
        assert admin.post("/api/ladders/l/run", json={"games": 1}, headers=ann).status_code == 403
        assert admin.delete("/api/ladders/l/snakes/%40ann%2Fa", headers=bob).status_code in (
            403,
            404,
        )
        # A deleted snake leaves its ladders.
        snake_id = admin.get("/api/snakes?mine=true", headers=ann).json()[0]["id"]
        assert admin.delete(f"/api/snakes/{snake_id}", headers=ann).status_code == 204
        assert admin.store.ladders.entries_named("@ann/a") == []
        assert ladder["name"] == "l"
        assert admin.delete("/api/ladders/l", headers=ann).status_code == 403
        assert admin.delete("/api/ladders/l").status_code == 204


# -- the concurrency cap ---------------------------------------------------------------


def test_concurrent_requests_never_pass_the_game_cap() -> None:
    # The probe: 100 concurrent rematches gave 110 live games against a cap of 32.
    with Store("sqlite://") as store:
        headers = make_user(store, "ann")
        app = create_app(
            ServerConfig(public=True, max_concurrent_games=4, games_per_minute=1000), store=store
        )
        with serve(app) as base:

            async def burst() -> list[int]:
                async with httpx.AsyncClient(base_url=base, headers=headers, timeout=60) as http:
                    first = await http.post("/api/games", json=SLOW_GAME)
                    assert first.status_code == 201, first.text
                    gid = first.json()["id"]
                    replies = await asyncio.gather(
                        *(http.post(f"/api/games/{gid}/rematch") for _ in range(40))
                    )
                    live = (await http.get("/api/games")).json()["live"]
                    assert len(live) <= 4
                    for game in live:
                        await http.post(f"/api/games/{game['id']}/cancel")
                    return [r.status_code for r in replies]

            codes = asyncio.run(burst())
        assert codes.count(201) == 3 and codes.count(429) == 37, codes


# -- a local server ---------------------------------------------------------------------


def test_a_local_server_has_one_admin_and_no_sign_up() -> None:
    with TestClient(create_app(ServerConfig(database_url="memory")), base_url=BASE_URL) as client:
        me = client.get("/api/auth/me").json()
        assert me["user"]["name"] == "local" and me["user"]["role"] == "admin"
        assert me["public"] is False and me["via"] == "local"
        made = client.post("/api/auth/signup", json={"name": "ann", "password": "long enough"})
        assert made.status_code == 403
        nobody = client.post("/api/auth/login", json={"name": "local", "password": "whatever1"})
        assert nobody.status_code == 403


def test_a_local_server_answers_only_to_its_loopback_names() -> None:
    app = create_app(ServerConfig(database_url="memory"))
    with TestClient(app, base_url="http://evil.example") as rebound:
        # DNS rebinding: a page on evil.example resolving to 127.0.0.1 sends its own Host.
        refused = rebound.post("/api/games", json=GAME)
        assert refused.status_code == 400 and "not a name of this server" in detail(refused)
        assert rebound.get("/api/games").status_code == 400
    for host in ("http://localhost:8000", "http://127.0.0.1:8000", "http://[::1]:8000"):
        with TestClient(app, base_url=host) as client:
            assert client.get("/api/games").status_code == 200, host


def test_cors_opens_only_the_engine_read_routes() -> None:
    with TestClient(create_app(ServerConfig(database_url="memory")), base_url=BASE_URL) as client:
        game = client.post("/api/games", json=GAME).json()
        origin = {"Origin": "https://play.battlesnake.com"}
        engine = client.get(f"/games/{game['id']}", headers=origin)
        assert engine.headers.get("access-control-allow-origin") == "*"
        frames = client.get(f"/games/{game['id']}/frames", headers=origin)
        assert frames.headers.get("access-control-allow-origin") == "*"
        api = client.get("/api/games", headers=origin)
        assert "access-control-allow-origin" not in api.headers
        preflight = client.options(
            "/api/games",
            headers={**origin, "Access-Control-Request-Method": "POST"},
        )
        assert "access-control-allow-origin" not in preflight.headers
        # A page on another site cannot make the local server do anything.
        posted = client.post("/api/games", json=GAME, headers=origin)
        assert posted.status_code == 403


def test_the_local_user_plays_its_registered_loopback_snake() -> None:
    from tests.games.battlesnake.referee.snake_servers import SnakeServers

    with (
        SnakeServers() as servers,
        TestClient(create_app(ServerConfig(database_url="memory")), base_url=BASE_URL) as client,
    ):
        made = client.post("/api/snakes", json={"name": "good", "url": servers.url("good")})
        assert made.status_code == 201, made.text
        game = client.post("/api/games", json={**GAME, "snakes": ["@local/good", "random"]})
        assert game.status_code == 201, game.text
        assert [e["name"] for e in game.json()["entrants"]] == ["@local/good", "random"]
        wait_finished(client, game.json()["id"])
        assert servers.bodies("good", "move")


@pytest.mark.parametrize("name", ["", "x" * 33, "UPPER", "-dash", "a b"])
def test_bad_user_names_are_refused_by_the_store(name: str) -> None:
    from snakewar.storage import StoreError

    with Store("sqlite://") as store, pytest.raises(StoreError, match="user name"):
        store.accounts.create_user(name, "hash")


def test_a_log_in_posted_from_another_site_is_refused() -> None:
    with public_client(as_user="ann", admin=False) as client:
        client.headers.pop("Authorization")
        body = {"name": "ann", "password": password_of("ann")}
        foreign = client.post(
            "/api/auth/login", json=body, headers={"Origin": "https://evil.example"}
        )
        assert foreign.status_code == 403 and "another site" in detail(foreign)
        assert SESSION_COOKIE not in client.cookies
        assert client.post("/api/auth/login", json=body).status_code == 200
