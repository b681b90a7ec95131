"""Issue 30: a snake's address is shown to its owner and admins only, on every route.

A public server holds alice's URL snake on a ladder, in a tournament and in a game.
Every GET route of the app (enumerated from the app itself, so that a new route
cannot leak unseen: each is walked or named as exempt with why) and the engine API's
websocket are read as anonymous, as another user, as alice and as an admin: only
alice and the admin ever read the address; the others read ``"hidden"``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from fastapi.routing import APIRoute, APIWebSocketRoute

from snakewar.server.privacy import HIDDEN
from tests.games.battlesnake.referee.snake_servers import SnakeServers
from tests.server.accounts import make_user, public_client
from tests.waiting import wait_finished

BOARD: dict[str, Any] = {"width": 7, "height": 7, "maxTurns": 5}

ENTRANT_ROUTES = {
    "/api/games",
    "/api/games/{game_id}",
    "/api/games/{game_id}/frames",
    "/api/games/{game_id}/replay",
    "/api/ladders/{name}",
    "/api/tournaments/{tid}",
    "/api/tournaments/{tid}/export",
    "/api/snakes",
    "/api/snakes/{snake_id}",
    "/api/snakes/{snake_id}/profile",
}
"""The routes that hold alice's address for alice and admins (and must not for others)."""

NO_ENTRANTS = {
    "/openapi.json": "the schema",
    "/api/auth/me": "the requester",
    "/api/auth/invites": "invitations (admins)",
    "/api/tokens": "the requester's tokens",
    "/api/users": "accounts (admins)",
    "/api/games/{game_id}/calls": "a local server's inspector (a public one keeps none)",
    "/api/games/{game_id}/logs/{seat}": "a finished program bot's log (its owner's)",
    "/api/catalogue": "the games and their built-ins",
    "/api/bots": "the built-ins",
    "/api/maps": "the maps",
    "/games/{game_id}": "the engine API: names and colours, no address",
    "/games/{game_id}/frames": "the engine API: names and colours, no address",
    "/api/ladders": "ladders' names and sizes",
    "/api/tournaments": "tournaments' names and sizes",
    "/api/halite/games": "Halite III games: players' names (program bots)",
    "/api/halite/games/{game_id}": "a Halite III game",
    "/api/halite/games/{game_id}/replay.hlt": "a Halite III replay (program bots)",
    "/api/halite/games/{game_id}/replay": "a Halite III replay (program bots)",
    "/api/admin/dashboard": "operations (admins): counts, failures, sign-ups, space",
    "/api/notifications": "the requester's own messages",
    "/api/notifications/settings": "the requester's own notification settings",
    "/api/snakes/directory": "snakes' names, owners and tags",
    "/api/users/{name}/profile": "a user's snakes and bots, by name",
    "/api/ladders/{name}/entries/{entrant:path}": "a ladder entry's rating history",
    "/api/snakes/{snake_id}/build": "an upload's build (its owner's)",
    "/api/games/{game_id}/media": "a game drawn (addresses hidden as in its replay)",
    "/api/games/{game_id}/human": "whether a game waits for its person's move (its owner's)",
    "/api/games/{game_id}/scenario": "a turn as a test scenario (names, no address)",
    "/api/games/{game_id}/preview.png": "a link preview's picture",
    "/api/saved": "the requester's saved games",
    "/api/saved/{game_id}": "one of the requester's saved games",
    "/api/exports": "the requester's export jobs",
    "/api/exports/{job_id}": "an export job's progress",
    "/api/exports/{job_id}/download": "an export's archive (addresses hidden as in a replay)",
}
"""GET routes that hold no address: walked all the same (none may show it to anyone)."""


def _routes(routes: list[Any]) -> Iterator[Any]:
    for route in routes:
        inner = getattr(route, "original_router", None)
        if inner is not None:
            yield from _routes(inner.routes)
        else:
            yield route


def test_every_route_shows_an_address_to_its_owner_and_admins_only() -> None:
    # A real snake on loopback (the server is told loopback is public for the test).
    with SnakeServers() as servers, public_client(allowed_networks=["127.0.0.0/8"]) as admin:
        address = servers.url("good")
        secret = address.split("://", 1)[1]
        alice = make_user(admin.store, "alice")
        bob = make_user(admin.store, "bob")
        made = admin.post("/api/snakes", json={"name": "s61", "url": address}, headers=alice)
        assert made.status_code == 201, made.text
        snake_id = made.json()["id"]
        assert admin.post("/api/ladders", json={"name": "club", **BOARD}).status_code == 201
        joined = admin.post("/api/ladders/club/snakes", json={"snake": "@alice/s61"}, headers=alice)
        assert joined.status_code == 201, joined.text
        cup = admin.post(
            "/api/tournaments",
            json={"name": "cup", "snakes": ["@alice/s61", "random"], "start": False, **BOARD},
        )
        assert cup.status_code == 201, cup.text
        tid = cup.json()["id"]
        game = admin.post(
            "/api/games", json={"snakes": ["@alice/s61", "random"], **BOARD}, headers=alice
        )
        assert game.status_code == 201, game.text
        game_id = game.json()["id"]
        wait_finished(admin, game_id, headers=alice)
        # Bob joins with his own snake: the ladder he is answered with holds alice's too.
        admin.post("/api/snakes", json={"name": "b", "url": "http://8.8.4.4/"}, headers=bob)
        bobs = admin.post("/api/ladders/club/snakes", json={"snake": "@bob/b"}, headers=bob)
        assert bobs.status_code == 201 and secret not in bobs.text, bobs.text

        values = {"game_id": game_id, "name": "club", "tid": tid, "snake_id": str(snake_id)}
        values["seat"] = "0"
        values["entrant:path"] = "@alice/s61"
        values["job_id"] = "0123456789abcdef"  # no such export: every reader gets a 404
        readers = {"anonymous": {"Authorization": ""}, "bob": bob, "alice": alice, "admin": {}}
        walked: set[str] = set()
        pages: set[str] = set()
        for route in _routes(admin.app.routes):  # type: ignore[attr-defined]
            if isinstance(route, APIWebSocketRoute):
                continue
            methods = getattr(route, "methods", None) or set()
            if "GET" not in methods:
                continue
            path: str = route.path
            if not path.startswith(("/api/", "/games/", "/openapi")):
                pages.add(path)  # a page is a template reading the API, checked below
                continue
            url = path
            for key, value in values.items():
                url = url.replace("{" + key + "}", value)
            assert "{" not in url, f"no value for a parameter of {path}: add it to the walk"
            for reader, headers in readers.items():
                answer = admin.get(url, headers=headers)
                assert answer.status_code < 500, (path, reader, answer.text)
                sees = secret in answer.text
                if reader in ("anonymous", "bob"):
                    assert not sees, (path, reader, answer.text[:500])
                elif path in ENTRANT_ROUTES and answer.status_code == 200:
                    assert sees, (path, reader, answer.text[:500])
            walked.add(path)
        # Every API route is walked and either holds entrants or is named as holding none.
        assert walked == ENTRANT_ROUTES | set(NO_ENTRANTS), walked ^ (
            ENTRANT_ROUTES | set(NO_ENTRANTS)
        )
        # Others read the placeholder where the address was.
        ladder = admin.get("/api/ladders/club", headers=bob).json()
        (entry,) = [s for s in ladder["standings"] if s["snake"] == "@alice/s61"]
        assert entry["source"] == HIDDEN
        mine = admin.get("/api/ladders/club", headers=alice).json()
        (entry,) = [s for s in mine["standings"] if s["snake"] == "@alice/s61"]
        assert entry["source"] == address
        seen = admin.get(f"/api/games/{game_id}", headers=bob).json()
        assert [e["source"] for e in seen["entrants"]] == [HIDDEN, "builtin:random"]
        replay = admin.get(f"/api/games/{game_id}/replay", headers=bob)
        assert HIDDEN in replay.text and secret not in replay.text
        # The pages embed no entrant: each is a template that reads the API above.
        for page in pages:
            url = page
            for key, value in values.items():
                url = url.replace("{" + key + "}", value)
            for headers in (readers["anonymous"], bob):
                answer = admin.get(url, headers=headers)
                assert secret not in answer.text, (page, answer.text[:300])
        # The engine API's websocket: its first message (the game's frames) too.
        with admin.websocket_connect(f"/games/{game_id}/events") as socket:
            first = socket.receive_text()
        assert secret not in first
        routes = {r.path for r in _routes(admin.app.routes) if isinstance(r, APIRoute)}  # type: ignore[attr-defined]
        assert {"/api/ladders/{name}", "/api/games/{game_id}/frames"} <= routes
