"""Halite bots in every starter-kit language, uploaded through the web API over real HTTP.

Each bot of ``tests/data/halite3/kits`` is zipped unchanged and uploaded with no
language named: the server tells the language from the files as the official site did,
builds the bot in its sandbox, and the built bot plays a real Halite game to its end in
the game sandbox.  A bot that does not compile keeps its log for its owner only; a build
past its time limit is stopped and says so.  These need real sandboxes and the
toolchains (the Debian packages ``g++ cmake default-jdk-headless golang-go rustc cargo
nodejs``): the ``bubblewrap`` fixture skips them without a sandbox (fails them under
CI), and :func:`toolchain` a language whose compiler is missing (fails it under CI).
"""

from __future__ import annotations

import io
import os
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from snakewar.games.halite3.replay.hlt import read_hlt
from snakewar.server.app import create_app
from snakewar.server.config import ServerConfig
from snakewar.storage import Store
from tests.asgi_server import serve
from tests.server.accounts import make_user
from tests.server.serve_command import recorded_configs
from tests.system_tools import need
from tests.waiting import wait_built, wait_finished

KITS = Path(__file__).resolve().parents[1] / "data" / "halite3" / "kits"
HALITE: dict[str, Any] = {"game": "halite3", "width": 32, "height": 32, "maxTurns": 40}

# kit folder -> (the language the server tells, the toolchain it needs)
LANGUAGES = {
    "cpp": ("cmake", "/usr/bin/cmake"),
    "java": ("java", "/usr/bin/javac"),
    "go": ("go", "/usr/bin/go"),
    "rust": ("rust", "/usr/bin/cargo"),
    "javascript": ("javascript", "/usr/bin/node"),
    "python": ("python3", "/usr/bin/python3"),
}

PACKAGES = {
    "/usr/bin/cmake": "cmake",
    "/usr/bin/g++": "g++",
    "/usr/bin/javac": "default-jdk-headless",
    "/usr/bin/go": "golang-go",
    "/usr/bin/cargo": "cargo",
    "/usr/bin/node": "nodejs",
    "/usr/bin/python3": "python3",
}
"""The Debian package of each toolchain (the sandbox sees only /usr)."""


def toolchain(path: str) -> None:
    """Skip a test whose compiler is not installed here (fail it under CI, which has all)."""
    need(path, os.path.exists(path), PACKAGES[path])


def zipped(folder: Path, top: str = "") -> bytes:
    """The files of ``folder`` as a zip, unchanged (under ``top/`` if given)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                name = path.relative_to(folder).as_posix()
                archive.write(path, f"{top}/{name}" if top else name)
    return buffer.getvalue()


def zip_of(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


@pytest.fixture
def site() -> Iterator[tuple[httpx.Client, dict[str, str], dict[str, str]]]:
    """A public server over real HTTP, and the headers of two users, ann and bob."""
    with Store("sqlite://") as store:
        ann = make_user(store, "ann")
        bob = make_user(store, "bob")
        config = ServerConfig(database_url="memory", public=True, build_seconds=240.0)
        with (
            serve(create_app(config, store=store)) as url,
            httpx.Client(base_url=url, timeout=300.0) as client,
        ):
            yield client, ann, bob


def upload(client: httpx.Client, headers: dict[str, str], data: bytes, name: str) -> Any:
    return client.post(
        "/api/snakes/upload",
        params={"name": name, "game": "halite3"},
        content=data,
        headers={**headers, "Content-Type": "application/zip"},
    )


@pytest.mark.usefixtures("bubblewrap")
@pytest.mark.parametrize("kit", sorted(LANGUAGES))
def test_a_bot_of_each_language_builds_and_plays_a_game(
    site: tuple[httpx.Client, dict[str, str], dict[str, str]], kit: str
) -> None:
    client, ann, _ = site
    language, compiler = LANGUAGES[kit]
    toolchain(compiler)
    made = upload(client, ann, zipped(KITS / kit, top=f"{kit}-starter"), f"{kit}-bot")
    assert made.status_code == 201, made.text
    assert made.json()["language"] == language, made.text
    snake = wait_built(client, made.json()["id"], headers=ann)
    build = client.get(f"/api/snakes/{snake['id']}/build", headers=ann).json()
    assert snake["build_status"] == "ready", build["log"]
    assert build["status"] == "ready" and build["error"] is None
    game = client.post(
        "/api/games", json={**HALITE, "snakes": [snake["ref"], "builtin:greedy"]}, headers=ann
    )
    assert game.status_code == 201, game.text
    done = wait_finished(client, game.json()["id"], headers=ann)
    assert done["status"] == "complete", done
    # The bot was not killed (it spoke the protocol every turn) and it played: it spawned.
    full = client.get(f"/api/games/{done['id']}", headers=ann).json()
    assert [e["source"] for e in full["entrants"]] == [snake["ref"], "builtin:greedy"]
    assert full["entrants"][0]["failure"] == "", full["entrants"]
    replay = client.get(f"/api/games/{done['id']}/replay", headers=ann)
    assert replay.status_code == 200, replay.text
    statistics = read_hlt(replay.content).statistics
    assert statistics[0]["ships_spawned"] > 0, statistics


@pytest.mark.usefixtures("bubblewrap")
def test_a_compile_error_is_explained_and_its_log_shown_to_its_owner_only(
    site: tuple[httpx.Client, dict[str, str], dict[str, str]],
) -> None:
    client, ann, bob = site
    toolchain("/usr/bin/g++")
    broken = zip_of({"MyBot.cpp": b"int main() { return undeclared_name; }\n"})
    made = upload(client, ann, broken, "broken")
    assert made.status_code == 201, made.text
    snake = wait_built(client, made.json()["id"], headers=ann)
    assert snake["language"] == "cpp" and snake["build_status"] == "failed"
    assert snake["build_error"] == "g++ failed; the log says why"
    build = client.get(f"/api/snakes/{snake['id']}/build", headers=ann)
    assert build.status_code == 200, build.text
    assert "undeclared_name" in build.json()["log"] and "error" in build.json()["log"]
    # Others see that it failed, never why nor the log (it shows the bot's code).
    seen = client.get(f"/api/snakes/{snake['id']}", headers=bob).json()
    assert seen["build_status"] == "failed" and seen["build_error"] is None
    refused = client.get(f"/api/snakes/{snake['id']}/build", headers=bob)
    assert refused.status_code == 403, refused.text
    assert "shown to its owner only" in refused.json()["detail"]
    anonymous = client.get(f"/api/snakes/{snake['id']}/build", headers={"Authorization": ""})
    assert anonymous.status_code == 403, anonymous.text
    assert "undeclared_name" not in anonymous.text
    # A bot that did not build plays no game, and says why.
    game = client.post(
        "/api/games", json={**HALITE, "snakes": [snake["ref"], "builtin:greedy"]}, headers=ann
    )
    assert game.status_code == 400, game.text
    assert "did not build (g++ failed" in game.json()["detail"]


@pytest.mark.usefixtures("bubblewrap")
def test_a_build_past_its_time_limit_is_stopped_and_explained() -> None:
    with Store("sqlite://") as store:
        ann = make_user(store, "ann")
        config = ServerConfig(database_url="memory", public=True, build_seconds=3.0)
        with (
            serve(create_app(config, store=store)) as url,
            httpx.Client(base_url=url, timeout=120.0) as client,
        ):
            endless = zip_of(
                {
                    "MyBot.py": b"print('never built')\n",
                    "install.sh": b"#!/bin/bash\nwhile :; do :; done\n",
                }
            )
            made = upload(client, ann, endless, "endless")
            assert made.status_code == 201, made.text
            snake = wait_built(client, made.json()["id"], headers=ann)
            assert snake["build_status"] == "failed", snake
            assert snake["build_error"] == (
                "the build ran past its time limit of 3 s and was stopped"
            )
            log = client.get(f"/api/snakes/{snake['id']}/build", headers=ann).json()["log"]
            assert "$ /bin/bash ./install.sh" in log


@pytest.mark.usefixtures("bubblewrap")
def test_a_custom_bot_runs_its_run_sh_after_its_install_sh(
    site: tuple[httpx.Client, dict[str, str], dict[str, str]],
) -> None:
    # The run.sh convention: install.sh builds (here: writes the bot), run.sh runs it.
    client, ann, _ = site
    python = (KITS / "python").resolve()
    files = {f"hlt/{p.name}": p.read_bytes() for p in (python / "hlt").iterdir() if p.is_file()}
    files["install.sh"] = b"#!/bin/bash\nset -e\ncp bot.txt Bot.py\necho installed\n"
    files["bot.txt"] = (python / "MyBot.py").read_bytes()
    files["run.sh"] = b"#Python 3\npython3 Bot.py\n"
    made = upload(client, ann, zip_of(files), "custom")
    assert made.status_code == 201, made.text
    snake = wait_built(client, made.json()["id"], headers=ann)
    assert snake["language"] == "custom" and snake["build_status"] == "ready", snake
    log = client.get(f"/api/snakes/{snake['id']}/build", headers=ann).json()["log"]
    assert "installed" in log
    game = client.post(
        "/api/games", json={**HALITE, "snakes": [snake["ref"], "builtin:greedy"]}, headers=ann
    )
    assert game.status_code == 201, game.text
    assert wait_finished(client, game.json()["id"], headers=ann)["status"] == "complete"


def test_a_bot_whose_language_cannot_be_told_is_refused_naming_why(
    site: tuple[httpx.Client, dict[str, str], dict[str, str]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Refused before any build: no sandbox is needed (the server is told it has one).
    from snakewar.server.routers import snakes

    monkeypatch.setattr(snakes, "sandbox_available", lambda: None)
    client, ann, _ = site
    cases = [
        ({"bot.py": b"x"}, "no main file at the archive's top: expected one of"),
        ({"MyBot.py": b"x", "MyBot.go": b"x"}, "main files of 2 languages (MyBot.go, MyBot.py)"),
        ({"MyBot.rb": b"x"}, "Ruby bots cannot be built on this server"),
    ]
    for files, words in cases:
        refused = upload(client, ann, zip_of(files), "unknown")
        assert refused.status_code == 400, refused.text
        assert words in refused.json()["detail"], refused.text
    assert client.get("/api/snakes", headers=ann).json() == []


def test_serve_takes_the_build_time_and_the_builds_at_once(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from snakewar.command import main

    configs = recorded_configs(monkeypatch)
    flags = ["--build-time", "600", "--concurrent-builds", "3"]
    assert main(["serve", "--database", "memory", *flags]) == 0
    assert [(c.build_seconds, c.concurrent_builds) for c in configs] == [(600.0, 3)]
    assert main(["serve", "--database", "memory"]) == 0
    assert (configs[-1].build_seconds, configs[-1].concurrent_builds) == (300.0, 2)
    capsys.readouterr()
    for flag, wrong, most in (("--build-time", "0", 3600), ("--concurrent-builds", "65", 64)):
        assert main(["serve", "--database", "memory", flag, wrong]) == 2
        assert capsys.readouterr().err == f"error: {flag} {wrong}: expected 1 to {most}\n"
    assert len(configs) == 2
