"""Halite III games on the server: upload, storage, listing, replay download and pages.

The replays are official ones (``shared/conformance/halite3/public/replays``, written
by the official engine); SQLite always, PostgreSQL too when
``$SNAKEWAR_TEST_POSTGRES_URL`` is set.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from email.parser import BytesParser
from pathlib import Path
from typing import Any

import pytest
import zstandard
from fastapi.testclient import TestClient

from snakewar.errors import TooLargeError
from snakewar.games.halite3 import routes as halite
from snakewar.games.halite3.adapter import played_from_hlt
from snakewar.games.halite3.replay.hlt import read_hlt
from snakewar.server import ServerConfig, create_app
from snakewar.server.safety import RateLimiter
from snakewar.storage import GameExistsError, Store
from tests.conformance_data import SHIPPED_HALITE_REPLAYS
from tests.server.accounts import make_user

SMALL = SHIPPED_HALITE_REPLAYS / "public-s100215-32x32-2p.hlt"  # 25 turns, 2 players
FOUR = SHIPPED_HALITE_REPLAYS / "public-s100415-32x32-4p.hlt"  # 401 turns, 4 players


def document(path: Path) -> dict[str, Any]:
    """The JSON document inside an official ``.hlt`` (decompressed here, independently)."""
    raw = zstandard.ZstdDecompressor().decompress(path.read_bytes(), max_output_size=1 << 28)
    result: dict[str, Any] = json.loads(raw)
    return result


def compress(doc: Any) -> bytes:
    return bytes(zstandard.ZstdCompressor(level=3).compress(json.dumps(doc).encode()))


# -- databases --------------------------------------------------------------------------


@pytest.fixture
def client(store: Store) -> Iterator[TestClient]:
    with TestClient(
        create_app(ServerConfig(), store=store), base_url="http://localhost"
    ) as test_client:
        yield test_client


def detail(response: Any) -> str:
    text: str = response.json()["detail"]
    assert "\n" not in text, "errors are one line"
    return text


# -- upload, list, read back ---------------------------------------------------------------


def test_an_uploaded_official_replay_is_listed_and_reads_back(client: TestClient) -> None:
    data = FOUR.read_bytes()
    expected = document(FOUR)
    created = client.post(
        "/api/halite/games", content=data, headers={"Content-Type": "application/octet-stream"}
    )
    assert created.status_code == 201, created.text
    game_id = created.json()["id"]
    assert created.json()["url"] == f"/view/{game_id}"

    listed = client.get("/api/halite/games").json()
    assert [g["id"] for g in listed] == [game_id]
    summary = client.get(f"/api/halite/games/{game_id}").json()
    assert summary == listed[0]
    stats = sorted(expected["game_statistics"]["player_statistics"], key=lambda s: s["player_id"])
    assert summary["players"] == [p["name"] for p in expected["players"]]
    assert summary["ranks"] == [s["rank"] for s in stats]
    assert summary["scores"] == [s["final_production"] for s in stats]
    assert summary["winner"] == expected["players"][[s["rank"] for s in stats].index(1)]["name"]
    assert (summary["width"], summary["height"], summary["num_players"]) == (32, 32, 4)
    # Seeds are decimal strings in the JSON pages read (JavaScript rounds 64-bit ones).
    assert summary["seed"] == str(expected["map_generator_seed"]) == "100415"
    assert summary["turns"] == expected["game_statistics"]["number_turns"] - 1 == 400
    assert summary["replay_size"] == len(data)
    assert summary["source"] == "upload"

    # The JSON document, gzipped on the wire when asked for, identical once decoded.
    replay = client.get(f"/api/halite/games/{game_id}/replay")
    assert replay.headers["content-encoding"] == "gzip"
    assert replay.json() == expected
    plain = client.get(
        f"/api/halite/games/{game_id}/replay", headers={"Accept-Encoding": "identity"}
    )
    assert "content-encoding" not in plain.headers
    assert json.loads(plain.content) == expected
    assert client.get(f"/api/halite/games/{game_id}/replay").json() == expected  # from cache

    original = client.get(f"/api/halite/games/{game_id}/replay.hlt")
    assert original.content == data
    assert "attachment" in original.headers["content-disposition"]

    # The list page is a shell whose module draws the API's list (the browser tests
    # see the rows); the game's page names its players and embeds the viewer.
    page = client.get("/halite")
    assert page.status_code == 200
    assert '<script type="module" src="/static/halite3/pages/games.js">' in page.text
    assert listed[0]["url"] == f"/view/{game_id}"
    viewer = client.get(f"/view/{game_id}?turn=7")
    assert viewer.status_code == 200
    assert "<title>Halite III: " in viewer.text
    for player in expected["players"]:
        assert player["name"] in viewer.text
    assert f"/static/halite3/board.html?game={game_id}&amp;turn=7" in viewer.text
    # The old address of a Halite game's page leads to the same page.
    moved = client.get(f"/halite/games/{game_id}?turn=7", follow_redirects=False)
    assert moved.status_code == 307 and moved.headers["location"] == f"/view/{game_id}?turn=7"
    board = client.get("/static/halite3/board.html")
    assert '<script type="module" src="halite.js">' in board.text
    assert client.get("/static/halite3/halite.js").status_code == 200
    # The local file picker is the Halite viewer under the site's header.
    picker = client.get("/halite/view")
    assert picker.status_code == 200
    assert '<iframe src="/static/halite3/board.html?replay=1"' in picker.text


def test_a_multipart_upload_is_stored_byte_for_byte(client: TestClient) -> None:
    data = SMALL.read_bytes()
    created = client.post(
        "/api/halite/games", files={"file": ("game.hlt", data, "application/octet-stream")}
    )
    assert created.status_code == 201, created.text
    game_id = created.json()["id"]
    assert client.get(f"/api/halite/games/{game_id}/replay.hlt").content == data


def test_games_are_listed_newest_first_with_paging(client: TestClient, store: Store) -> None:
    data = SMALL.read_bytes()
    for minute in (1, 3, 2):
        played = played_from_hlt(data, game_id=f"m{minute}", source=f"ladder:m{minute}")
        when = dt.datetime(2025, 1, 1, 12, minute, tzinfo=dt.UTC)
        assert store.games.save_played(played, created_at=when)
    rows = store.games.latest(10, game="halite3")
    assert [r.source for r in rows] == ["ladder:m3", "ladder:m2", "ladder:m1"]
    listed = client.get("/api/halite/games", params={"limit": 1, "offset": 1}).json()
    assert [g["source"] for g in listed] == ["ladder:m2"]
    expected = document(SMALL)
    ranks = [s["rank"] for s in sorted(expected["game_statistics"]["player_statistics"],
                                       key=lambda s: s["player_id"])]  # fmt: skip
    assert rows[0].winner_name == expected["players"][ranks.index(1)]["name"]
    assert rows[0].created_at == dt.datetime(2025, 1, 1, 12, 3, tzinfo=dt.UTC)
    assert store.games.data("m3").replay == data
    assert store.games.save_played(played_from_hlt(data, game_id="m3")) is False
    with pytest.raises(GameExistsError):
        store.games.begin(played_from_hlt(data, game_id="m3").stored(), played.data)


def test_a_played_ladder_game_keeps_its_summary(store: Store) -> None:
    played = played_from_hlt(FOUR.read_bytes(), game_id="g4", source="ladder:local")
    store.games.save_played(played)
    row = store.games.get("g4")
    assert row is not None and row.game == "halite3"
    assert row.source == "ladder:local"
    assert [e["name"] for e in row.entrants] == [p["name"] for p in document(FOUR)["players"]]


# -- bad uploads --------------------------------------------------------------------------


def _wrong_version() -> bytes:
    doc = document(SMALL)
    doc["REPLAY_FILE_VERSION"] = 2
    return compress(doc)


def _no_statistics() -> bytes:
    doc = document(SMALL)
    del doc["game_statistics"]
    return compress(doc)


def _ragged_grid() -> bytes:
    doc = document(SMALL)
    doc["production_map"]["grid"][3].pop()
    return compress(doc)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: b"", "empty"),
        (lambda: b"not a replay at all" * 10, "not a Halite III replay"),
        (lambda: SMALL.read_bytes()[: len(SMALL.read_bytes()) // 2], "truncated"),
        (lambda: SMALL.read_bytes()[:4] + b"\x00" * 50, "truncated zstd data"),
        (lambda: SMALL.read_bytes()[:4] + b"\xff" * 50, "damaged zstd data"),
        (_wrong_version, "REPLAY_FILE_VERSION 2 is not supported, expected 3"),
        (_no_statistics, "lacks the key 'game_statistics'"),
        (_ragged_grid, "grid[3] must be 32 cells"),
        (lambda: compress([1, 2, 3]), "must be a JSON object"),
    ],
    ids=[
        "empty",
        "garbage",
        "truncated",
        "zeros",
        "bad-zstd",
        "version",
        "no-stats",
        "ragged",
        "list",
    ],
)
def test_bad_uploads_are_refused_with_one_line(client: TestClient, make: Any, message: str) -> None:
    response = client.post("/api/halite/games", content=make())
    assert response.status_code == 400, response.text
    assert message in detail(response)
    assert client.get("/api/halite/games").json() == []


def test_an_oversized_upload_is_413(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    data = SMALL.read_bytes()
    monkeypatch.setattr(halite, "MAX_UPLOAD_BYTES", len(data) - 1)
    response = client.post("/api/halite/games", content=data)
    assert response.status_code == 413
    assert f"expected at most {len(data) - 1}" in detail(response)
    multipart = client.post("/api/halite/games", files={"file": ("g.hlt", data)})
    assert multipart.status_code == 413
    assert client.post("/api/halite/decode", content=data).status_code == 413
    monkeypatch.setattr(halite, "MAX_UPLOAD_BYTES", len(data))
    assert client.post("/api/halite/games", content=data).status_code == 201


def test_a_decompression_bomb_stops_at_the_document_cap() -> None:
    bomb = bytes(zstandard.ZstdCompressor(level=19).compress(b"{" + b" " * (1 << 22)))
    with pytest.raises(TooLargeError, match="larger than the 1000000-byte limit"):
        read_hlt(bomb, max_json_bytes=1_000_000)


def test_unknown_games_are_404(client: TestClient) -> None:
    for path in (
        "/api/halite/games/nope",
        "/api/halite/games/nope/replay",
        "/api/halite/games/nope/replay.hlt",
        "/halite/games/nope",
        "/view/nope",
    ):
        response = client.get(path)
        assert response.status_code == 404, path
        assert "no stored game with id 'nope'" in detail(response)


def test_decode_returns_the_document_and_stores_nothing(client: TestClient) -> None:
    response = client.post("/api/halite/decode", content=SMALL.read_bytes())
    assert response.status_code == 200
    assert response.json() == document(SMALL)
    assert client.get("/api/halite/games").json() == []
    bad = client.post("/api/halite/decode", content=b"junk")
    assert bad.status_code == 400


def test_public_mode_rate_limits_uploads(store: Store) -> None:
    data = SMALL.read_bytes()
    with TestClient(
        create_app(ServerConfig(public=True), store=store), base_url="http://localhost"
    ) as public:
        # The real burst, with no refill to speak of: a slow machine gets no extra token.
        state = public.app.state.halite = halite.HaliteState()  # type: ignore[attr-defined]
        state.uploads = RateLimiter(per_minute=1e-9, burst=state.uploads.burst)
        codes = [public.post("/api/halite/decode", content=data).status_code for _ in range(6)]
        assert codes == [200] * 5 + [429]
        assert "too many replays sent from this client" in detail(
            public.post("/api/halite/decode", content=data)
        )
        # Storing a replay needs an account; decoding one (nothing kept) does not.
        assert public.post("/api/halite/games", content=data).status_code == 401
        # A user is one client wherever it connects from, with a rate of its own.
        user = make_user(store, "ann")
        stored = [
            public.post("/api/halite/games", content=data, headers=user).status_code
            for _ in range(6)
        ]
        assert stored == [201] * 5 + [429]


def test_a_server_keeping_nothing_still_stores_uploads_while_it_runs() -> None:
    with TestClient(
        create_app(ServerConfig(database_url="memory")), base_url="http://localhost"
    ) as bare:
        response = bare.post("/api/halite/games", content=SMALL.read_bytes())
        assert response.status_code == 201
        assert bare.get(response.json()["url"]).status_code == 200
        assert [g["id"] for g in bare.get("/api/halite/games").json()] == [response.json()["id"]]


def test_bombs_and_huge_names_are_refused_without_decompressing_them_whole() -> None:
    import zstandard

    from snakewar.games.halite3.routes import MAX_DOCUMENT_BYTES

    # The probe: 6 KB of zstd that decompress to 64 MiB of JSON.
    bomb = zstandard.ZstdCompressor(level=19).compress(b'{"x": "' + b"y" * (64 << 20) + b'"}')
    assert len(bomb) < 10_000
    document = json.loads(zstandard.ZstdDecompressor().decompress(SMALL.read_bytes()))
    document["players"][0]["name"] = "n" * 100_000
    long_name = zstandard.ZstdCompressor().compress(json.dumps(document).encode())
    with TestClient(
        create_app(ServerConfig(database_url="memory")), base_url="http://localhost"
    ) as client:
        refused = client.post("/api/halite/games", content=bomb)
        assert refused.status_code == 413, refused.text
        assert f"{MAX_DOCUMENT_BYTES}-byte limit" in detail(refused)
        named = client.post("/api/halite/games", content=long_name)
        assert named.status_code == 400 and "expected at most 30" in detail(named)
        assert client.get("/api/halite/games").json() == []
        decoded = client.post("/api/halite/decode", content=bomb)
        assert decoded.status_code == 413


def test_a_multipart_upload_of_many_parts_is_refused_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    boundary = "xyz"
    part = f"--{boundary}\r\nContent-Disposition: form-data; name=f\r\n\r\nx\r\n"
    body = (part * 80_000 + f"--{boundary}--\r\n").encode()
    # The probe's 80,000 parts froze the server for 47 s in the parser: it never runs.
    whole_parses: list[int] = []
    parse = BytesParser.parsebytes

    def counted(self: Any, text: bytes, headersonly: bool = False) -> Any:
        if not headersonly:
            whole_parses.append(len(text))
        return parse(self, text, headersonly)

    monkeypatch.setattr(BytesParser, "parsebytes", counted)
    with TestClient(
        create_app(ServerConfig(database_url="memory")), base_url="http://localhost"
    ) as client:
        refused = client.post(
            "/api/halite/games",
            content=body,
            headers={"Content-Type": f"multipart/form-data; boundary={boundary}"},
        )
    assert refused.status_code == 400 and "80000 parts" in detail(refused)
    assert whole_parses == []
