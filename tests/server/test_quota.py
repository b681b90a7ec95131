"""Issue 31: a storage quota per user (uploaded replays and bot archives), 413 past it.

The probe padded valid replays to 22 MiB and stored 133 MiB in 6 uploads; now each
user's uploads are capped (``ServerConfig.upload_quota_bytes``, admins excepted), the
refusal names the quota, and admins see every account's use (``GET /api/users``).
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from snakewar.games.halite3 import routes as halite
from snakewar.referee.sandbox import sandbox_available
from snakewar.server import ServerConfig, create_app
from snakewar.server.safety import RateLimiter
from snakewar.storage import Store
from tests.conformance_data import SHIPPED_HALITE_REPLAYS
from tests.server.accounts import BASE_URL, make_user
from tests.server.serve_command import recorded_configs
from tests.system_tools import need
from tests.waiting import wait_built

SMALL = SHIPPED_HALITE_REPLAYS / "public-s100215-32x32-2p.hlt"
SIZE = SMALL.stat().st_size
QUOTA = 3 * SIZE + 100


@pytest.fixture
def club() -> Iterator[tuple[TestClient, Store]]:
    with Store("sqlite://") as store:
        app = create_app(ServerConfig(public=True, upload_quota_bytes=QUOTA), store=store)
        with TestClient(app, base_url=BASE_URL, raise_server_exceptions=False) as client:
            # Rates are test_upload_limits.py's: here, uploads until the quota speaks.
            app.state.halite = state = halite.HaliteState()
            state.uploads = RateLimiter(per_minute=1e-9, burst=100)
            yield client, store


def send(client: TestClient, who: dict[str, str], padding: int = 0) -> tuple[int, str]:
    answer = client.post(
        "/api/halite/games", content=SMALL.read_bytes() + b" " * padding, headers=who
    )
    body = answer.json()
    return answer.status_code, str(body.get("detail") or body.get("id"))


def accounts(client: TestClient, admin: dict[str, str]) -> dict[str, tuple[int, int | None]]:
    listed = client.get("/api/users", headers=admin)
    assert listed.status_code == 200, listed.text
    return {u["name"]: (u["stored_bytes"], u["quota_bytes"]) for u in listed.json()}


def test_replays_past_the_quota_are_413_naming_it_and_deleting_makes_room(
    club: tuple[TestClient, Store],
) -> None:
    client, store = club
    ann, boss = make_user(store, "ann"), make_user(store, "boss", admin=True)
    codes = [send(client, ann) for _ in range(3)]
    assert [code for code, _ in codes] == [201] * 3
    status, detail = send(client, ann, padding=101)
    assert status == 413
    assert detail == (
        f"storage quota: you store {3 * SIZE} bytes of uploads and this one is "
        f"{SIZE + 101} bytes; the quota is {QUOTA} bytes per user (delete an upload or an "
        "uploaded snake to make room)"
    )
    assert accounts(client, boss)["ann"] == (3 * SIZE, QUOTA)
    assert len(client.get("/api/halite/games").json()) == 3
    # One of ann's games deleted frees its room; up to the quota exactly is allowed.
    first = codes[0][1]
    assert client.delete(f"/api/games/{first}", headers=ann).status_code == 204
    assert accounts(client, boss)["ann"] == (2 * SIZE, QUOTA)
    assert send(client, ann, padding=100)[0] == 201
    assert accounts(client, boss)["ann"] == (QUOTA, QUOTA)
    assert send(client, ann, padding=0)[0] == 413


def test_admins_have_no_quota_and_see_everyones_use(club: tuple[TestClient, Store]) -> None:
    client, store = club
    ann, boss = make_user(store, "ann"), make_user(store, "boss", admin=True)
    assert [send(client, boss)[0] for _ in range(4)] == [201] * 4
    assert send(client, ann)[0] == 201
    assert accounts(client, boss) == {"ann": (SIZE, QUOTA), "boss": (4 * SIZE, None)}
    # The list is for admins only.
    assert client.get("/api/users", headers=ann).status_code == 403


def bot_archive(padding: int) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("MyBot.py", "print('kit')\n" + "#" * padding)
    return buffer.getvalue()


def test_bot_archives_count_against_the_same_quota_and_uploads_are_rated(
    club: tuple[TestClient, Store],
) -> None:
    need("a bubblewrap sandbox", sandbox_available() is None, "bubblewrap")
    client, store = club
    ann, boss = make_user(store, "ann"), make_user(store, "boss", admin=True)
    client.app.state.bot_upload_limiter = RateLimiter(per_minute=1e-9, burst=5)  # type: ignore[attr-defined]
    assert send(client, ann)[0] == 201
    archive = bot_archive(SIZE)

    def upload_bot(name: str, data: bytes) -> tuple[int, str]:
        answer = client.post(
            "/api/snakes/upload",
            params={"name": name, "language": "python3"},
            content=data,
            headers={**ann, "Content-Type": "application/zip"},
        )
        return answer.status_code, str(answer.json().get("detail", ""))

    assert upload_bot("kit", archive)[0] == 201
    # The built bot is stored beside its archive, once built (in the background), and
    # counts too.
    kit = store.snakes.by_ref("ann", "kit").id
    assert wait_built(client, kit, headers=ann)["build_status"] == "ready"
    built = len(store.snakes.build(kit))
    assert built > 0
    assert accounts(client, boss)["ann"] == (SIZE + len(archive) + built, QUOTA)
    status, detail = upload_bot("kit2", archive)
    assert status == 413 and f"the quota is {QUOTA} bytes per user" in detail
    status, detail = send(client, ann)
    assert status == 413 and f"you store {SIZE + len(archive) + built} bytes" in detail
    # Five bot uploads a client, then a wait (refusals count: each was unpacked).
    small = bot_archive(0)
    assert [upload_bot(f"k{i}", small)[0] for i in range(3)] == [201, 201, 201]
    status, detail = upload_bot("k4", small)
    assert status == 429 and detail == "too many bots uploaded by this client; wait a minute"


def test_serve_takes_the_quota_in_mib(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from snakewar.command import main

    configs = recorded_configs(monkeypatch)
    assert main(["serve", "--database", "memory", "--upload-quota", "5"]) == 0
    assert [c.upload_quota_bytes for c in configs] == [5 << 20]
    assert main(["serve", "--database", "memory"]) == 0
    assert configs[-1].upload_quota_bytes == 64 << 20 == ServerConfig().upload_quota_bytes
    capsys.readouterr()
    for wrong in ("0", "1048577"):
        assert main(["serve", "--database", "memory", "--upload-quota", wrong]) == 2
        assert capsys.readouterr().err == (
            f"error: --upload-quota {wrong}: expected 1 to 1048576 MiB\n"
        )
    assert len(configs) == 2
