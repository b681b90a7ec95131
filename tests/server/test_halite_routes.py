"""Halite III games on the server: upload, storage, listing, replay download and pages.

The replays are official ones (``shared/conformance/halite3/public/replays``, written
by the official engine); SQLite always, PostgreSQL too when
``$SNAKEWAR_TEST_POSTGRES_URL`` is set.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from snakewar.server import ServerConfig, create_app
from snakewar.server.halite_routes import (
    HaliteReplayFileError,
    add_halite_routes,
    decode_hlt,
    save_hlt,
)
from snakewar.server.routers import pages
from snakewar.server.store import GameExistsError, GameNotFoundError, Store, StoreError

zstandard = pytest.importorskip("zstandard")

REPLAYS = (
    (
        Path(os.environ.get("SNAKEWAR_HALITE_CONFORMANCE_DIR", ""))
        if os.environ.get("SNAKEWAR_HALITE_CONFORMANCE_DIR")
        else Path(__file__).resolve().parents[3] / "shared" / "conformance" / "halite3"
    )
    / "public"
    / "replays"
)
SMALL = REPLAYS / "public-s100215-32x32-2p.hlt"  # 25 turns, 2 players
FOUR = REPLAYS / "public-s100415-32x32-4p.hlt"  # 401 turns, 4 players

if not SMALL.is_file():
    pytest.skip(f"official Halite replays not found in {REPLAYS}", allow_module_level=True)


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
    with TestClient(create_app(ServerConfig(store=store))) as test_client:
        yield test_client


def small_app(store: Store | None, **options: Any) -> TestClient:
    """The Halite API, with the given caps (the server's defaults are 32 MiB), and the pages."""
    app = FastAPI()
    app.state.store = store
    add_halite_routes(app, {"store": store, "public": options.pop("public", False)}, **options)
    app.include_router(pages.router)
    return TestClient(app)


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
    assert created.json()["url"] == f"/halite/games/{game_id}"

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
    assert '<script type="module" src="/static/viewer/pages/halite_games.js">' in page.text
    assert listed[0]["url"] == f"/halite/games/{game_id}"
    viewer = client.get(f"/halite/games/{game_id}?turn=7")
    assert viewer.status_code == 200
    for player in expected["players"]:
        assert player["name"] in viewer.text
    assert f"/halite/board?game={game_id}&amp;turn=7" in viewer.text
    board = client.get("/halite/board")
    assert "/static/viewer/halite.js" in board.text
    assert client.get("/static/viewer/halite.js").status_code == 200
    assert client.get("/halite/view", follow_redirects=False).headers["location"] == (
        "/halite/board?replay=1"
    )


def test_a_multipart_upload_is_stored_byte_for_byte(client: TestClient) -> None:
    data = SMALL.read_bytes()
    created = client.post(
        "/api/halite/games", files={"file": ("game.hlt", data, "application/octet-stream")}
    )
    assert created.status_code == 201, created.text
    game_id = created.json()["id"]
    assert client.get(f"/api/halite/games/{game_id}/replay.hlt").content == data


def test_games_are_listed_newest_first_with_paging(store: Store) -> None:
    data = SMALL.read_bytes()
    ids = []
    for minute in (1, 3, 2):
        ids.append(
            store.save_halite_game(
                data,
                source=f"ladder:m{minute}",
                seed=minute,
                width=32,
                height=32,
                players=["a", "b"],
                ranks=[2, 1],
                scores=[0, 10],
                turns=5,
                created_at=dt.datetime(2025, 1, 1, 12, minute, tzinfo=dt.UTC),
            )
        )
    rows = store.list_halite_games(limit=10)
    assert [r.source for r in rows] == ["ladder:m3", "ladder:m2", "ladder:m1"]
    assert [r.source for r in store.list_halite_games(limit=1, offset=1)] == ["ladder:m2"]
    assert rows[0].winner == "b"
    assert rows[0].created_at == dt.datetime(2025, 1, 1, 12, 3, tzinfo=dt.UTC)
    assert store.halite_replay_bytes(ids[0]) == data
    assert store.get_halite_game("nope") is None
    with pytest.raises(GameNotFoundError):
        store.halite_replay_bytes("nope")
    with pytest.raises(GameExistsError):
        save_hlt(store, data, game_id=ids[0])
    with pytest.raises(StoreError, match="2 players, 1 ranks"):
        store.save_halite_game(
            data, source="x", seed=1, width=1, height=1, players=["a", "b"], ranks=[1],
            scores=[1, 2], turns=1,
        )  # fmt: skip
    with pytest.raises(StoreError, match="limit 0"):
        store.list_halite_games(limit=0)


def test_save_hlt_stores_a_ladder_game_with_its_summary(store: Store) -> None:
    game_id = save_hlt(store, FOUR.read_bytes(), source="ladder:local")
    row = store.get_halite_game(game_id)
    assert row is not None
    assert row.source == "ladder:local"
    assert row.players == [p["name"] for p in document(FOUR)["players"]]


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


def test_an_oversized_upload_is_413(store: Store) -> None:
    data = SMALL.read_bytes()
    with small_app(store, max_upload_bytes=len(data) - 1) as small:
        response = small.post("/api/halite/games", content=data)
        assert response.status_code == 413
        assert f"expected at most {len(data) - 1}" in detail(response)
        multipart = small.post("/api/halite/games", files={"file": ("g.hlt", data)})
        assert multipart.status_code == 413
        assert small.post("/api/halite/decode", content=data).status_code == 413
    with small_app(store, max_upload_bytes=len(data)) as exact:
        assert exact.post("/api/halite/games", content=data).status_code == 201


def test_a_decompression_bomb_stops_at_the_document_cap() -> None:
    bomb = bytes(zstandard.ZstdCompressor(level=19).compress(b"{" + b" " * (1 << 22)))
    with pytest.raises(HaliteReplayFileError, match="larger than the 1000000-byte limit") as info:
        decode_hlt(bomb, max_document=1_000_000)
    assert info.value.status == 413


def test_unknown_games_are_404(client: TestClient) -> None:
    for path in (
        "/api/halite/games/nope",
        "/api/halite/games/nope/replay",
        "/api/halite/games/nope/replay.hlt",
        "/halite/games/nope",
    ):
        response = client.get(path)
        assert response.status_code == 404, path
        assert "'nope' not found" in detail(response)


def test_decode_returns_the_document_and_stores_nothing(client: TestClient) -> None:
    response = client.post("/api/halite/decode", content=SMALL.read_bytes())
    assert response.status_code == 200
    assert response.json() == document(SMALL)
    assert client.get("/api/halite/games").json() == []
    bad = client.post("/api/halite/decode", content=b"junk")
    assert bad.status_code == 400


def test_public_mode_rate_limits_uploads(store: Store) -> None:
    data = SMALL.read_bytes()
    with small_app(store, public=True, uploads_per_minute=0.001) as public:
        codes = [public.post("/api/halite/decode", content=data).status_code for _ in range(6)]
        assert codes == [200] * 5 + [429]
        assert "too many replays" in detail(public.post("/api/halite/games", content=data))


def test_a_server_without_a_database_says_so() -> None:
    with small_app(None) as bare:
        response = bare.post("/api/halite/games", content=SMALL.read_bytes())
        assert response.status_code == 503
        assert "need a database" in detail(response)
        # The list page still opens; its module shows the API's 503 in place of the list.
        assert bare.get("/halite").status_code == 200
        listed = bare.get("/api/halite/games")
        assert listed.status_code == 503 and "need a database" in detail(listed)
        assert bare.get("/halite/games/some-id").status_code == 503
