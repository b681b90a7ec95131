"""Issue 31: uploads' multipart parts counted by the parser's own boundary, and every
anonymous route that does work rate-limited per client: an IPv4 address, or an IPv6 /64
(one host usually holds a whole /64; counting single addresses gave it 2**64 clients).

The client's address is set per request by a small ASGI wrapper (``x-test-peer``), as
a server behind no proxy sees it in the connection.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from email.parser import BytesParser
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from starlette.types import ASGIApp, Receive, Scope, Send

from snakewar.games.halite3 import routes as halite
from snakewar.games.halite3.adapter import played_from_hlt
from snakewar.server import ServerConfig, create_app
from snakewar.server.safety import ClientRate, RateLimiter
from snakewar.storage import Store
from tests.conformance_data import SHIPPED_HALITE_REPLAYS
from tests.server.accounts import BASE_URL, make_user, password_of

SMALL = SHIPPED_HALITE_REPLAYS / "public-s100215-32x32-2p.hlt"


def detail(response: httpx.Response) -> str:
    text: str = response.json()["detail"]
    assert "\n" not in text
    return text


class FromPeer:
    """Serve ``app`` with the client address each request names in ``x-test-peer``."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            for key, value in scope["headers"]:
                if key == b"x-test-peer":
                    scope = {**scope, "client": (value.decode(), 40000)}
        await self.app(scope, receive, send)


def frozen(limiter: ClientRate) -> RateLimiter:
    """``limiter``'s burst with no refill to speak of: a slow machine gets no extra token."""
    return RateLimiter(per_minute=1e-9, burst=limiter.burst)


@pytest.fixture
def public() -> Iterator[TestClient]:
    with Store("sqlite://") as store:
        app = create_app(ServerConfig(public=True, signup="open"), store=store)
        with TestClient(FromPeer(app), base_url=BASE_URL, raise_server_exceptions=False) as client:
            app.state.login_limiter = frozen(app.state.login_limiter)
            app.state.halite = state = halite.HaliteState()
            state.uploads = frozen(state.uploads)
            state.documents_read = frozen(state.documents_read)
            client.store = store
            yield client


def peer(address: str) -> dict[str, str]:
    return {"x-test-peer": address}


# -- multipart: the parser's own boundary -------------------------------------------------


@pytest.fixture
def local() -> Iterator[TestClient]:
    with TestClient(create_app(ServerConfig(database_url="memory")), base_url=BASE_URL) as client:
        yield client


def form(boundary: str, parts: int, data: bytes = b"x") -> bytes:
    part = (
        (
            f"--{boundary}\r\nContent-Disposition: form-data; name=file; filename=g.hlt\r\n\r\n"
        ).encode()
        + data
        + b"\r\n"
    )
    return part * parts + f"--{boundary}--\r\n".encode()


@pytest.fixture
def parsed(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Records each whole-body parse of a multipart upload (a header-only parse is free)."""
    calls: list[bool] = []
    original = BytesParser.parsebytes

    def spy(self: BytesParser, text: bytes, headersonly: bool = False) -> Any:
        if not headersonly:
            calls.append(True)
        return original(self, text, headersonly)

    monkeypatch.setattr(BytesParser, "parsebytes", spy)
    return calls


def test_parts_are_counted_by_the_boundary_the_parser_splits_on(
    local: TestClient, parsed: list[bool]
) -> None:
    # "boundary=a" inside another parameter's quoted value: the count used to read it,
    # while the parser split the 80,000 parts on the real boundary, b.
    refused = local.post(
        "/api/halite/games",
        content=form("b", 80_000),
        headers={"Content-Type": 'multipart/form-data; x="y; boundary=a"; boundary=b'},
    )
    assert refused.status_code == 400
    assert detail(refused) == "multipart upload has 80000 parts; expected at most 4"
    assert parsed == [], "the body was never parsed"


@pytest.mark.parametrize(
    ("content_type", "message"),
    [
        ("multipart/form-data; boundary=a; boundary=b", "names a boundary twice"),
        ("multipart/form-data; boundary=b; BOUNDARY=a", "names a boundary twice"),
        ("multipart/form-data; charset=utf-8", "has no boundary"),
        ("multipart/form-data; boundary*=utf-8''%C3%A9", "is not 1 to 70 letters"),
        ('multipart/form-data; boundary="a;b"', "is not 1 to 70 letters"),
        ('multipart/form-data; boundary=""', "has no boundary"),
        (f"multipart/form-data; boundary={'b' * 71}", "is not 1 to 70 letters"),
    ],
    ids=["twice", "twice-case", "none", "non-ascii", "semicolon", "empty", "too-long"],
)
def test_a_boundary_is_one_rfc_2046_parameter_or_the_upload_is_refused(
    local: TestClient, parsed: list[bool], content_type: str, message: str
) -> None:
    refused = local.post(
        "/api/halite/games", content=form("b", 2), headers={"Content-Type": content_type}
    )
    assert refused.status_code == 400, refused.text
    assert message in detail(refused)
    assert parsed == []


@pytest.mark.parametrize(
    "boundary", ["----WebKitFormBoundary7MA4YWxkTrZu0gW", "a'()+_,-./:=?z", "x y"]
)
def test_browser_and_rfc_boundaries_upload(local: TestClient, boundary: str) -> None:
    stored = local.post(
        "/api/halite/games",
        content=form(boundary, 1, SMALL.read_bytes()),
        headers={"Content-Type": f'multipart/form-data; BOUNDARY="{boundary}"'},
    )
    assert stored.status_code == 201, stored.text
    game_id = stored.json()["id"]
    assert local.get(f"/api/halite/games/{game_id}/replay.hlt").content == SMALL.read_bytes()


# -- rates per client: an address, an IPv6 /64, a user ------------------------------------


def test_anonymous_decodes_count_per_ipv4_address_and_per_ipv6_64(public: TestClient) -> None:
    data = SMALL.read_bytes()

    def decode(address: str) -> int:
        answer = public.post("/api/halite/decode", content=data, headers=peer(address))
        status: int = answer.status_code
        return status

    # Five addresses of one /64 share its five tokens; the sixth address is refused.
    assert [decode(f"2001:db8:1:2::{i}") for i in range(1, 6)] == [200] * 5
    assert decode("2001:db8:1:2:ffff:ffff:ffff:ffff") == 429
    refused = public.post("/api/halite/decode", content=data, headers=peer("2001:db8:1:2::9"))
    assert detail(refused) == "too many replays sent from this client; wait a minute"
    assert decode("2001:db8:1:3::1") == 200  # the next /64 is another client
    # IPv4 counts per address; its IPv6-mapped form is the same client.
    assert [decode("192.0.2.7") for _ in range(5)] == [200] * 5
    assert decode("::ffff:192.0.2.7") == 429
    assert decode("192.0.2.8") == 200


def test_log_in_and_sign_up_attempts_count_per_ipv6_64(public: TestClient) -> None:
    store: Store = public.store
    make_user(store, "ann")
    # Each guess at another account: an account's own backoff (after 5 failures in a row)
    # is not what this test counts (tests/server/test_account_safety.py).
    codes = [
        public.post(
            "/api/auth/login",
            json={"name": f"user{i}", "password": "a-wrong-password"},
            headers=peer(f"2001:db8:7:7::{i:x}"),
        ).status_code
        for i in range(1, 11)
    ]
    assert codes == [401] * 10
    # Sign-up and log-in share the /64's attempts.
    signup = {"name": "bob", "password": "a-long-enough-password"}
    refused = public.post("/api/auth/signup", json=signup, headers=peer("2001:db8:7:7::abc"))
    assert refused.status_code == 429
    assert "too many log-in or sign-up attempts" in detail(refused)
    right = {"name": "ann", "password": password_of("ann")}
    assert public.post("/api/auth/login", json=right, headers=peer("2001:db8:7:8::1")).is_success


def test_stored_replays_opened_anonymously_count_per_64(public: TestClient) -> None:
    store: Store = public.store
    ids = [f"g{i}" for i in range(11)]
    for game_id in ids:
        store.games.save_played(played_from_hlt(SMALL.read_bytes(), game_id=game_id))

    def open_replay(game_id: str, address: str) -> int:
        url = f"/api/halite/games/{game_id}/replay"
        status: int = public.get(url, headers=peer(address)).status_code
        return status

    # Ten documents decoded for one /64, then it waits; a cached one is served still.
    assert [open_replay(g, f"2001:db8:5:5::{i + 1}") for i, g in enumerate(ids[:10])] == [200] * 10
    assert open_replay(ids[10], "2001:db8:5:5::ff") == 429
    assert open_replay(ids[9], "2001:db8:5:5::ff") == 200
    assert open_replay(ids[10], "2001:db8:5:6::1") == 200


def test_a_user_uploads_at_a_rate_of_their_own_wherever_they_connect_from(
    public: TestClient,
) -> None:
    store: Store = public.store
    ann, bob = make_user(store, "ann"), make_user(store, "bob")
    data = SMALL.read_bytes()
    codes = [
        public.post(
            "/api/halite/games", content=data, headers={**ann, **peer(f"198.51.100.{i}")}
        ).status_code
        for i in range(1, 7)
    ]
    assert codes == [201] * 5 + [429]
    # Another user on the same address is another client.
    sent = public.post("/api/halite/games", content=data, headers={**bob, **peer("198.51.100.1")})
    assert sent.status_code == 201


def test_every_anonymous_route_that_changes_or_computes_is_rate_limited(
    public: TestClient,
) -> None:
    """The routes an anonymous client may call with a body, found from the API itself.

    Every other non-GET route needs an account (401 anonymously; their rates are per
    user).  A new anonymous route fails this test until it is given a rate and listed.
    """
    app: Any = public.app
    anonymous = []
    for path, operations in app.app.openapi()["paths"].items():
        for method in operations:
            if method in ("get", "head"):
                continue
            url = re.sub(r"\{[^}]+\}", "1", path)
            answer = public.request(method.upper(), url, json={}, headers=peer("203.0.113.1"))
            if answer.status_code != 401:
                anonymous.append(f"{method.upper()} {path}")
    assert sorted(anonymous) == [
        "POST /api/auth/login",  # test_log_in_and_sign_up_attempts_count_per_ipv6_64
        "POST /api/auth/logout",  # no work: it forgets the caller's own session, if any
        "POST /api/auth/signup",  # test_log_in_and_sign_up_attempts_count_per_ipv6_64
        "POST /api/halite/decode",  # test_anonymous_decodes_count_per_ipv4_address_and_...
    ]


def test_the_upload_limits_are_the_documented_ones() -> None:
    state = halite.HaliteState()
    assert (state.uploads.per_minute, state.uploads.burst) == (10.0, 5)
    assert (state.documents_read.per_minute, state.documents_read.burst) == (30.0, 10)
