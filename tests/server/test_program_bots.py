"""Program bots from the web: uploads and operators' commands, run in the sandbox.

A user uploads a bot (an archive and a language) and plays it in Halite games and
ladders; the server runs it in a bubblewrap sandbox.  Nothing a request says ever
becomes a command line: a request only names a registered bot.

The games need real sandboxes (the ``bubblewrap`` fixture: skipped without them, failed
under CI); the refusals, a server's without a sandbox included, run everywhere.
"""

from __future__ import annotations

import io
import shutil
import time
import zipfile
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from snakewar.games.halite3.replay.hlt import read_hlt
from snakewar.referee import cgroups
from snakewar.referee.sandbox import sandbox_available
from snakewar.server import programs
from snakewar.server.routers import snakes
from tests.server.accounts import make_user, public_client
from tests.waiting import wait_built, wait_finished

KIT = Path(__file__).resolve().parents[1] / "games" / "halite3" / "starter_kit"
HALITE: dict[str, Any] = {"game": "halite3", "width": 32, "height": 32, "maxTurns": 15}


def kit_zip() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in KIT.rglob("*.py"):
            archive.write(path, f"starter/{path.relative_to(KIT)}")
    return buffer.getvalue()


def upload(client: TestClient, headers: dict[str, str], data: bytes, **query: str) -> Any:
    params = {"name": "kit", "language": "python3", **query}
    return client.post(
        "/api/snakes/upload",
        params=params,
        content=data,
        headers={**headers, "Content-Type": "application/zip"},
    )


@pytest.mark.usefixtures("bubblewrap")
def test_an_uploaded_bot_plays_halite_in_the_sandbox() -> None:
    with public_client() as admin:
        ann = make_user(admin.store, "ann")
        made = upload(admin, ann, kit_zip())
        assert made.status_code == 201, made.text
        snake = made.json()
        assert snake["ref"] == "@ann/kit" and snake["kind"] == "upload"
        assert snake["game"] == "halite3" and snake["language"] == "python3"
        # The upload answered before its build: the bot is built in the background.
        assert snake["build_status"] in ("building", "ready"), snake
        assert wait_built(admin, snake["id"], headers=ann)["build_status"] == "ready"
        game = admin.post(
            "/api/games", json={**HALITE, "snakes": ["@ann/kit", "builtin:greedy"]}, headers=ann
        )
        assert game.status_code == 201, game.text
        done = wait_finished(admin, game.json()["id"])
        assert done["status"] == "complete", done
        assert [e["name"] for e in done["entrants"]] == ["@ann/kit", "greedy"]
        assert [e["source"] for e in done["entrants"]] == ["@ann/kit", "builtin:greedy"]
        row = admin.store.games.get(done["id"])
        assert row is not None and row.result is not None and row.result["killed"] == {}
        replay = read_hlt(admin.store.games.data(done["id"]).replay or b"")
        assert replay.statistics[0]["ships_spawned"] > 0  # it played: it made ships
        # A rematch runs the registered bot again (the stored game names it only).
        again = admin.post(f"/api/games/{done['id']}/rematch", headers=ann)
        assert again.status_code == 201, again.text
        assert wait_finished(admin, again.json()["id"])["status"] == "complete"


def test_bad_uploads_are_refused_naming_why(monkeypatch: pytest.MonkeyPatch) -> None:
    # The archive is checked after the sandbox: these refusals need no real one (nothing
    # runs), so the server is told it has one and they are checked everywhere.
    monkeypatch.setattr(snakes, "sandbox_available", lambda: None)
    with public_client() as admin:
        ann = make_user(admin.store, "ann")
        cases = [
            (b"#!/bin/sh\nrm -rf /\n", {}, 400, "no .zip or .tar.gz"),
            (_zip({"../../evil.py": b"x"}), {}, 400, "leaves the bot's folder"),
            (_zip({"bot.py": b"x"}), {}, 400, "needs MyBot.py"),
            (kit_zip(), {"language": "cobol"}, 400, "expected one of cmake, cpp, c, java"),
            (kit_zip(), {"game": "battlesnake"}, 400, "not programs"),
            (b"x" * (5 * 1024 * 1024), {}, 413, "larger than"),
        ]
        for data, query, status, words in cases:
            refused = upload(admin, ann, data, **query)
            assert refused.status_code == status, (words, refused.text)
            assert words in str(refused.json()["detail"]), refused.text
        assert admin.get("/api/snakes", headers=ann).json() == []
        anonymous = admin.post(
            "/api/snakes/upload",
            params={"name": "k", "language": "python3"},
            content=kit_zip(),
            headers={"Authorization": ""},
        )
        assert anonymous.status_code == 401


NO_SANDBOX = "bubblewrap is not installed (Debian package bubblewrap)"
"""What :func:`snakewar.referee.sandbox.sandbox_available` says on a machine without it."""


def test_a_server_without_a_sandbox_refuses_uploads_naming_why(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(snakes, "sandbox_available", lambda: NO_SANDBOX)
    with public_client() as admin:
        ann = make_user(admin.store, "ann")
        refused = upload(admin, ann, kit_zip())
        assert refused.status_code == 403, refused.text
        detail = str(refused.json()["detail"])
        assert "uploaded bots run in a sandbox and this server has none" in detail
        assert NO_SANDBOX in detail
        assert admin.get("/api/snakes", headers=ann).json() == []


def test_a_server_without_a_sandbox_refuses_games_of_uploaded_bots(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A bot uploaded while the server could sandbox it (or stored by an older server)
    # never runs bare once it cannot: the game is refused, naming why, and nothing starts.
    monkeypatch.setattr(programs, "sandbox_available", lambda: NO_SANDBOX)
    with public_client() as admin:
        ann = make_user(admin.store, "ann")
        owner = admin.store.accounts.user("ann")
        admin.store.snakes.register(
            owner.id, "kit", "halite3", "upload", language="python3", archive=kit_zip()
        )
        game = admin.post(
            "/api/games", json={**HALITE, "snakes": ["@ann/kit", "builtin:greedy"]}, headers=ann
        )
        assert game.status_code == 403, game.text
        detail = str(game.json()["detail"])
        assert "snake @ann/kit must run in a sandbox and this server cannot make one" in detail
        assert NO_SANDBOX in detail
        assert admin.get("/api/games").json()["games"] == []


def test_a_server_without_a_cgroup_per_sandbox_refuses_program_bots(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, bubblewrap: None
) -> None:
    # With bubblewrap present, the cgroup is what the sandbox lacks.
    # As without bubblewrap: a sandbox whose memory could only be capped per process
    # is no sandbox (issue 31, H1).  Uploads and games of program bots are refused.
    why = "no cgroup to confine a sandbox in: cgroup v2: /sys/fs/cgroup has no memory controller"
    monkeypatch.setattr(cgroups, "hierarchy", lambda: why)
    sandbox_available.cache_clear()
    try:
        with public_client() as admin:
            ann = make_user(admin.store, "ann")
            refused = upload(admin, ann, kit_zip())
            assert refused.status_code == 403, refused.text
            assert "has no memory controller" in str(refused.json()["detail"]), refused.text
            boss = admin.store.accounts.user("admin")
            folder = shutil.copytree(KIT, tmp_path / "kit")
            admin.store.snakes.register(
                boss.id, "kit", "halite3", "program", argv=["python3", "MyBot.py"],
                workdir=str(folder),
            )  # fmt: skip
            game = admin.post(
                "/api/games", json={**HALITE, "snakes": ["@admin/kit", "builtin:random"]}
            )
            assert game.status_code == 403, game.text
            assert "has no memory controller" in str(game.json()["detail"]), game.text
    finally:
        sandbox_available.cache_clear()


def _zip(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


@pytest.mark.usefixtures("bubblewrap")
def test_an_operators_program_runs_in_the_sandbox_on_a_public_server(tmp_path: Path) -> None:
    folder = shutil.copytree(KIT, tmp_path / "kit")
    with public_client() as admin:
        boss = admin.store.accounts.user("admin")
        admin.store.snakes.register(
            boss.id, "kit", "halite3", "program", argv=["python3", "MyBot.py"], workdir=str(folder)
        )
        game = admin.post("/api/games", json={**HALITE, "snakes": ["@admin/kit", "builtin:random"]})
        assert game.status_code == 201, game.text
        assert wait_finished(admin, game.json()["id"])["status"] == "complete"
    # Its logs were written in the sandbox's copy, not in the operator's folder.
    assert not list(Path(folder).glob("bot-*.log"))


@pytest.mark.usefixtures("bubblewrap")
def test_a_halite_ladder_with_uploaded_bots() -> None:
    with public_client() as admin:
        ann = make_user(admin.store, "ann")
        uploaded = upload(admin, ann, kit_zip())
        assert uploaded.status_code == 201, uploaded.text
        assert wait_built(admin, uploaded.json()["id"], headers=ann)["build_status"] == "ready"
        made = admin.post("/api/ladders", json={"name": "hl", "game": "halite3", **_size()})
        assert made.status_code == 201, made.text
        joined = admin.post("/api/ladders/hl/snakes", json={"snake": "@ann/kit"}, headers=ann)
        assert joined.status_code == 201, joined.text
        assert (
            admin.post("/api/ladders/hl/snakes", json={"snake": "builtin:greedy"}).status_code
            == 201
        )
        assert admin.post("/api/ladders/hl/run", json={"games": 2}).status_code == 202
        deadline = time.monotonic() + 180
        while True:
            ladder = admin.get("/api/ladders/hl").json()
            if not ladder["running"]:
                break
            assert time.monotonic() < deadline
            time.sleep(0.2)
        assert ladder["games_played"] == 2, ladder
        notes = {s["snake"]: s for s in ladder["standings"]}
        assert set(notes) == {"@ann/kit", "greedy"}


def _size() -> dict[str, Any]:
    return {"params": {"width": 32, "height": 32}, "max_turns": 15}
