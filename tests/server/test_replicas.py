"""Real ``snakewar serve`` processes as replicas: ``--workers 2``, JSON logs, a replica killed.

Every server here is a child process on a real socket and a real database (a SQLite
file, or a fresh database of the scratch PostgreSQL): the workers of one
``--workers 2`` answer with their own replica ids and enforce one rate limit between
them; a replica killed with ``SIGKILL`` leaves the other serving every page and API,
the first's log-in cookie included.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from snakewar.command import main
from snakewar.storage import Store
from tests.server.accounts import make_user, password_of
from tests.server.multi_server import SNAKEWAR, free_port, servers, wait_until
from tests.system_tools import fresh_database, postgres_url

PUBLIC = ("--public", "--signup", "closed")
"""A public server (its rate limits are on) that makes no accounts itself."""


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def shared_db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A database that processes can share: a SQLite file, or a new PostgreSQL database.

    A database of its own (not a schema): the servers are other processes, which take
    the URL alone.
    """
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'shared.db'}"
        return
    with fresh_database(postgres_url(), "snakewar_replicas") as url:
        yield url


def _ready(url: str) -> bool:
    try:
        return httpx.get(f"{url}/ready", timeout=10).status_code == 200
    except httpx.HTTPError:
        return False


# -- --workers -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--workers", "0"], "error: --workers 0: expected 1 to 64\n"),
        (["--workers", "65"], "error: --workers 65: expected 1 to 64\n"),
        (
            ["--workers", "2", "--database", "memory"],
            "error: --workers 2: each worker is a full server on the shared database, and "
            "'memory' is one process's own; give a SQLite file or a PostgreSQL URL\n",
        ),
        (["--log-format", "xml"], "error: --log-format 'xml': expected one of text, json\n"),
    ],
)
def test_bad_workers_and_log_formats_are_one_line_errors(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["serve", *argv]) == 2
    assert capsys.readouterr().err == message


def test_workers_refuse_a_memory_database_named_by_the_environment(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SNAKEWAR_DATABASE_URL", "sqlite://")
    monkeypatch.setenv("SNAKEWAR_WORKERS", "3")
    assert main(["serve"]) == 2
    assert "--workers 3: the database 'sqlite://' is in memory" in capsys.readouterr().err


def _client_on_each_replica(url: str, replicas: int) -> dict[str, httpx.Client]:
    """One keep-alive connection to each of ``replicas`` workers, by replica id.

    The kernel hands each new connection to one worker; connections are opened until
    every worker has one (a loaded machine may favour one for a while: polled).
    """
    found: dict[str, httpx.Client] = {}
    deadline = time.monotonic() + 180
    while len(found) < replicas:
        assert time.monotonic() < deadline, f"only replicas {sorted(found)} answered"
        client = httpx.Client(base_url=url, timeout=60, limits=httpx.Limits(max_connections=1))
        replica = client.get("/health").json()["replica"]
        if replica in found:
            client.close()
            time.sleep(0.02)
        else:
            found[replica] = client
    return found


def test_serve_with_two_workers_shares_the_port_and_the_rate_limits(
    shared_db: str, tmp_path: Path
) -> None:
    port = free_port()
    log = tmp_path / "workers.log"
    argv = [sys.executable, "-c", SNAKEWAR, "serve", "--port", str(port), "--workers", "2"]
    with log.open("wb") as out:
        process = subprocess.Popen(
            [*argv, "--database", shared_db, *PUBLIC], stdout=out, stderr=subprocess.STDOUT
        )
    url = f"http://127.0.0.1:{port}"
    clients: dict[str, httpx.Client] = {}
    try:
        wait_until("the workers to answer", lambda: _ready(url), 180)
        clients = _client_on_each_replica(url, 2)
        one, two = clients.values()
        # Sign-up attempts count against one bucket per address (a burst of 10), on
        # whichever worker they land: five on each use it up for both.
        body = {"name": "someone", "password": "long enough password"}
        for _ in range(5):
            for client in (one, two):
                assert client.post("/api/auth/signup", json=body).status_code == 403
        for client in (one, two):
            refused = client.post("/api/auth/signup", json=body)
            assert refused.status_code == 429, refused.text
        # Still the same two workers (the connections were kept).
        assert {c.get("/health").json()["replica"] for c in (one, two)} == set(clients)
        # A worker killed is replaced; the server goes on answering.
        pids = _children(process.pid)
        assert len(pids) == 2, pids
        os.kill(pids[0], signal.SIGKILL)
        wait_until("a new worker", lambda: len(set(_children(process.pid)) - {pids[0]}) == 2, 180)
        wait_until("the server to answer", lambda: _ready(url), 180)
    finally:
        for client in clients.values():
            client.close()
        process.send_signal(signal.SIGINT)
        try:
            status = process.wait(120)
        except subprocess.TimeoutExpired:
            process.kill()
            raise
    assert status in (0, 130), log.read_text(errors="replace")[-2000:]
    assert _children(process.pid) == []


def _children(pid: int) -> list[int]:
    """The live worker processes of ``pid`` (from /proc; multiprocessing's spawned ones,
    not its resource tracker)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            command = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z" and b"spawn_main" in command:
            found.append(int(entry.name))
    return sorted(found)


# -- JSON logs -------------------------------------------------------------------------


def test_json_logs_are_one_object_a_line_with_the_game_id(tmp_path: Path) -> None:
    port = free_port()
    log = tmp_path / "json.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-c", SNAKEWAR, "serve", "--port", str(port), "--database", "memory"],
            stdout=subprocess.DEVNULL,
            stderr=out,
            env={**os.environ, "SNAKEWAR_LOG_FORMAT": "json"},
        )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until("the server to answer", lambda: _ready(url), 180)
        assert httpx.get(f"{url}/api/games/no-such-game", timeout=60).status_code == 404
        assert httpx.get(f"{url}/view/another-game", timeout=60).status_code == 404
        assert httpx.get(f"{url}/api/catalogue", timeout=60).status_code == 200
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(120)
    lines = [json.loads(line) for line in log.read_text().splitlines()]  # every line JSON
    assert lines, "no log lines"
    for line in lines:
        assert {"time", "level", "logger", "message"} <= set(line), line
        assert line["time"].endswith("Z")
    assert any("Snakewar is running at" in line["message"] for line in lines)
    access = {line["path"]: line for line in lines if line["logger"] == "snakewar.access"}
    assert access["/api/games/no-such-game"]["game_id"] == "no-such-game"
    assert access["/api/games/no-such-game"]["status"] == 404
    assert access["/view/another-game"]["game_id"] == "another-game"
    assert "game_id" not in access["/api/catalogue"]


# -- a replica killed ------------------------------------------------------------------


@pytest.mark.postgres
def test_a_replica_killed_leaves_the_other_serving_everything(tmp_path: Path) -> None:
    with fresh_database(postgres_url(), "snakewar_killed") as database:
        _replica_killed(database, tmp_path)


def _replica_killed(database: str, tmp_path: Path) -> None:
    with Store(database) as store:
        token = make_user(store, "ann")
    with servers(database, tmp_path, extra=PUBLIC) as make:
        a = make("a").start()
        b = make("b").start()
        a.wait_ready()
        b.wait_ready()
        assert a.get("/health").json()["replica"] != b.get("/health").json()["replica"]
        # Ann logs in on A (a browser: a session cookie and its CSRF token) and plays a
        # game there, to its end.
        with httpx.Client(base_url=a.url, timeout=60) as on_a:
            me = on_a.post("/api/auth/login", json={"name": "ann", "password": password_of("ann")})
            assert me.status_code == 200, me.text
            cookies = dict(on_a.cookies)
            csrf = me.json()["csrf"]
            made = on_a.post(
                "/api/games",
                json={"game": "battlesnake", "snakes": ["random", "random"], "seed": 5},
                headers={"X-CSRF-Token": csrf},
            )
            assert made.status_code == 201, made.text
            game_id = made.json()["id"]
            wait_until(
                "the game to finish",
                lambda: on_a.get(f"/api/games/{game_id}").json()["status"] != "running",
            )
        a.kill()  # SIGKILL: no clean-up at all
        assert a.process is not None and a.process.returncode == -signal.SIGKILL
        # B serves every page and API, and A's session.
        with httpx.Client(base_url=b.url, timeout=60, cookies=cookies) as on_b:
            assert on_b.get("/ready").status_code == 200
            assert on_b.get("/api/auth/me").json()["user"]["name"] == "ann"
            pages = ("/", "/new", f"/view/{game_id}", "/test", "/ladders", "/account", "/docs")
            for page in pages:
                answer = on_b.get(page)
                assert answer.status_code == 200, (page, answer.status_code)
            apis = ("/api/catalogue", "/api/games", f"/api/games/{game_id}", "/api/ladders")
            for api in (*apis, f"/games/{game_id}", "/api/snakes"):
                answer = on_b.get(api)
                assert answer.status_code == 200, (api, answer.text)
            assert on_b.get(f"/api/games/{game_id}").json()["status"] == "complete"
            frames = on_b.get(f"/api/games/{game_id}/frames")
            assert frames.status_code == 200
            # A new game on B, by A's cookie (and its CSRF token), and by ann's API token.
            again = on_b.post(f"/api/games/{game_id}/rematch", headers={"X-CSRF-Token": csrf})
            assert again.status_code == 201, again.text
        tokened = httpx.get(f"{b.url}/api/auth/me", headers=token, timeout=60)
        assert tokened.json()["user"]["name"] == "ann"
        assert b.stop() in (0, 130)


# -- one user's cap across replicas ------------------------------------------------------


def test_one_users_live_games_are_capped_across_replicas(shared_db: str, tmp_path: Path) -> None:
    with Store(shared_db) as store:
        ann = make_user(store, "ann")
    extra = (*PUBLIC, "--games-per-user", "2")
    paused = {"game": "battlesnake", "snakes": ["random", "random"], "step": True}
    with servers(shared_db, tmp_path, extra=extra) as make:
        a = make("a").start()
        b = make("b").start()
        a.wait_ready()
        b.wait_ready()
        with (
            httpx.Client(base_url=a.url, timeout=60, headers=ann) as on_a,
            httpx.Client(base_url=b.url, timeout=60, headers=ann) as on_b,
        ):
            # A paused game stays live: one on each replica is ann's cap.
            first = on_a.post("/api/games", json=paused)
            assert first.status_code == 201, first.text
            second = on_b.post("/api/games", json=paused)
            assert second.status_code == 201, second.text
            for on in (on_a, on_b):
                refused = on.post("/api/games", json=paused)
                assert refused.status_code == 429, refused.text
                assert "you have 2 live games" in refused.text
                assert "games_per_user=2" in refused.text
            # Cancelled on B (the replica that plays it), it frees ann's place on A.
            cancelled = on_b.post(f"/api/games/{second.json()['id']}/cancel")
            assert cancelled.status_code == 200, cancelled.text
            again = on_a.post("/api/games", json=paused)
            assert again.status_code == 201, again.text
            assert on_b.post("/api/games", json=paused).status_code == 429
