"""compose.yaml's deployment, run on this machine without Docker: each service's own command.

Docker is not at hand where the tests run (no daemon, no registry), so the stack is
started the way compose would start it, minus the containers: every service's command
line from compose.yaml, run as a process of this machine with compose's environment,
the names of the compose network (``postgres``, ``ray-head``, ``web1``...) replaced by
loopback ports.  The PostgreSQL service is a fresh database of the scratch server;
the proxy is Debian's Caddy running deploy/Caddyfile.  Through the proxy alone, as a
user would: the site is ready, a game made by an API token plays on a Ray worker node
and is followed live to its end over a websocket, a replica killed leaves the site
serving, and the replicas log JSON lines naming the game.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path

import httpx
import pytest
from websockets.sync.client import connect

from snakewar.storage import Store
from tests.server.accounts import make_user
from tests.server.multi_server import free_port
from tests.system_tools import fresh_database, postgres_url
from tests.test_deploy import ENV, ROOT, compose

pytestmark = [pytest.mark.postgres, pytest.mark.slow, pytest.mark.ray]

PATIENCE_S = 300.0
"""How long a step may take on a loaded machine before the test fails."""


def wait_until(what: str, ready: Callable[[], bool], seconds: float = PATIENCE_S) -> None:
    deadline = time.monotonic() + seconds
    while not ready():
        if time.monotonic() > deadline:
            pytest.fail(f"waited {seconds:g} s for {what}")
        time.sleep(0.2)


def descendants(pid: int) -> set[int]:
    """Every live descendant of ``pid`` (from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(entry.name))
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def command_line(pid: int) -> str:
    """The process's command line, as Ray's workers retitle themselves ("": gone)."""
    try:
        return (
            Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        )
    except OSError:
        return ""


def niceness(pid: int) -> int:
    """The process's niceness (``/proc/PID/stat``'s 19th field)."""
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[16])


class Stack:
    """The services' processes; every one (and what it started) is stopped at the end."""

    def __init__(self, logs: Path) -> None:
        self.logs = logs
        self.processes: dict[str, subprocess.Popen[bytes]] = {}
        self.ray_tmp = tempfile.mkdtemp(prefix="swr-", dir="/tmp")

    def start(self, name: str, argv: Sequence[str], env: Mapping[str, str]) -> None:
        with (self.logs / f"{name}.log").open("ab") as out:
            self.processes[name] = subprocess.Popen(
                list(argv), stdout=out, stderr=subprocess.STDOUT, env={**os.environ, **env}
            )

    def log(self, name: str) -> str:
        return (self.logs / f"{name}.log").read_text(errors="replace")

    def kill(self, name: str) -> None:
        process = self.processes.pop(name)
        family = descendants(process.pid)
        process.kill()
        process.wait(60)
        for pid in family:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)

    def stop(self, name: str) -> None:
        """SIGTERM (Ray's ``--block`` then stops its node), SIGKILL what is left."""
        process = self.processes.pop(name)
        family = descendants(process.pid)
        process.terminate()
        try:
            process.wait(60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(60)
        for pid in family:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)

    def stop_all(self) -> None:
        for name in reversed(list(self.processes)):
            self.stop(name)
        shutil.rmtree(self.ray_tmp, ignore_errors=True)


@contextlib.contextmanager
def stack(logs: Path) -> Iterator[Stack]:
    made = Stack(logs)
    try:
        yield made
    finally:
        made.stop_all()


def program(argv: Sequence[str]) -> list[str]:
    """A compose command line as this machine runs it: its program from this Python."""
    head, *rest = argv
    if head == "snakewar":
        return [sys.executable, "-m", "snakewar", *rest]
    if head == "ray":
        return [sys.executable, "-m", "ray.scripts.scripts", *rest]
    raise AssertionError(f"a command of compose.yaml this test cannot run: {argv}")


def rewritten(argv: Sequence[str], names: Mapping[str, str]) -> list[str]:
    """``argv`` with each compose ``host:port`` (and ``--port=N``) mapped to loopback."""
    out = []
    for word in argv:
        for old, new in names.items():
            word = word.replace(old, new)
        out.append(word)
    return out


def replace_option(argv: list[str], name: str, value: str) -> list[str]:
    """``argv`` with the value of ``name VALUE`` set to ``value`` (it must be there)."""
    at = argv.index(name)
    return [*argv[: at + 1], value, *argv[at + 2 :]]


def test_the_compose_stack_serves_a_game_through_the_proxy_and_survives_a_replica(
    tmp_path: Path,
) -> None:
    caddy = shutil.which("caddy")
    if caddy is None:
        if os.environ.get("CI"):
            pytest.fail("caddy is not installed (.ci/run installs Debian's caddy)")
        pytest.skip("caddy is not installed (Debian's caddy package)")
    services = compose()["services"]
    with fresh_database(postgres_url(), "snakewar_compose") as database, stack(tmp_path) as up:
        with Store(database) as store:  # the schema, and an account with an API token
            ann = make_user(store, "ann")
        head_port, proxy_port = free_port(), free_port()
        web_ports = {"web1": free_port(), "web2": free_port()}
        names = {"ray-head:6379": f"127.0.0.1:{head_port}", "--port=6379": f"--port={head_port}"}
        # Every Snakewar process of the stack reads the database from compose's environment:
        # the one setting that changes here is where the database is.
        env = dict(services["web1"]["environment"])
        assert env["SNAKEWAR_DATABASE_URL"].startswith("postgresql+psycopg://snakewar:")
        env["SNAKEWAR_DATABASE_URL"] = database
        # Ray's files of this stack in a folder of its own (each container has its own
        # /tmp): another test's ray.init() on this machine must not find this cluster.
        # A short path: Ray's sockets live there, and a socket's path has a length limit.
        env["RAY_TMPDIR"] = up.ray_tmp

        up.start("ray-head", program(rewritten(services["ray-head"]["command"], names)), env)
        worker = services["ray-worker"]
        replicas = worker["deploy"]["replicas"]
        worker_env = {**worker["environment"], **env}
        # Its own setting: the games' processes run at niceness 0, not Ray's 15 (under
        # a busy CI, a fresh cluster's first game waited 120 s for its actor to start).
        assert worker["environment"]["RAY_worker_niceness"] == "0"
        for number in range(replicas):
            argv = program(rewritten(worker["command"], names))
            up.start(f"ray-worker-{number}", argv, worker_env)

        for name, port in web_ports.items():
            argv = program(rewritten(services[name]["command"], names))
            argv = replace_option(replace_option(argv, "--host", "127.0.0.1"), "--port", str(port))
            web_env = {**env, **services[name]["environment"], "FORWARDED_ALLOW_IPS": "127.0.0.1"}
            web_env["SNAKEWAR_DATABASE_URL"] = database
            up.start(name, argv, web_env)

        # The proxy: deploy/Caddyfile as compose mounts it, its upstreams on loopback.
        caddyfile = (ROOT / "deploy" / "Caddyfile").read_text(encoding="utf-8")
        upstreams = " ".join(f"{name}:8000" for name in web_ports)
        assert upstreams in caddyfile
        local = " ".join(f"127.0.0.1:{port}" for port in web_ports.values())
        (tmp_path / "Caddyfile").write_text(caddyfile.replace(upstreams, local), encoding="utf-8")
        proxy_env = {
            **services["proxy"]["environment"],
            "SNAKEWAR_SITE": f":{proxy_port}",
            "CADDY_ADMIN": f"127.0.0.1:{free_port()}",
            "HOME": str(tmp_path),
            "XDG_DATA_HOME": str(tmp_path / "caddy-data"),
            "XDG_CONFIG_HOME": str(tmp_path / "caddy-config"),
        }
        caddy_argv = [caddy, "run", "--config", str(tmp_path / "Caddyfile")]
        up.start("proxy", [*caddy_argv, "--adapter", "caddyfile"], proxy_env)

        # A user reaches the site by its name (SNAKEWAR_HOST, "localhost" by default).
        site = f"http://localhost:{proxy_port}"
        # Generous: the first game of a fresh cluster waits for a Ray worker process to start.
        with httpx.Client(base_url=site, timeout=PATIENCE_S, headers=ann) as user:

            def ready() -> bool:
                for name in (*web_ports, "proxy", "ray-head"):
                    code = up.processes[name].poll()
                    assert code is None, f"{name} exited ({code}):\n{up.log(name)[-3000:]}"
                try:
                    return user.get("/ready").status_code == 200
                except httpx.HTTPError:
                    return False

            wait_until("the site to be ready through the proxy", ready)
            assert user.get("/api/auth/me").json()["user"]["name"] == "ann"

            # A game made through the proxy plays on a Ray worker node, followed live.
            made = user.post(
                "/api/games",
                json={"game": "battlesnake", "snakes": ["greedy", "greedy"], "seed": 7},
            )
            assert made.status_code == 201, made.text
            game_id = made.json()["id"]
            events = f"ws://localhost:{proxy_port}/games/{game_id}/events"
            frames: list[int] = []
            with connect(events, open_timeout=60, additional_headers=ann) as ws:
                while True:
                    message = json.loads(ws.recv(timeout=PATIENCE_S))
                    if message["Type"] == "frame":
                        frames.append(message["Data"]["Turn"])
                    elif message["Type"] == "game_end":
                        break
            assert frames == list(range(len(frames))) and len(frames) > 2
            # Its actor (alive a while after its game) ran as busy as the rest of the host.
            actors = [
                pid
                for node in range(replicas)
                for pid in descendants(up.processes[f"ray-worker-{node}"].pid)
                if "GameActor" in command_line(pid)
            ]
            assert actors and {niceness(pid) for pid in actors} == {0}, actors
            assert user.get(f"/api/games/{game_id}").json()["status"] == "complete"
            # No replica played it: both stand in compose for the web tier alone.
            for name in web_ports:
                assert "--ray-address" in services[name]["command"]

            # A replica killed: the site keeps serving (Caddy tries the other).
            up.kill("web1")
            for _ in range(10):
                answer = user.get(f"/api/games/{game_id}")
                assert answer.status_code == 200, answer.text
            again = user.post(
                "/api/games", json={"game": "battlesnake", "snakes": ["random", "random"]}
            )
            assert again.status_code == 201, again.text

        # The replicas' logs are JSON lines, the game's requests naming it.
        lines = [json.loads(line) for line in up.log("web2").splitlines() if line.startswith("{")]
        assert lines, up.log("web2")[-2000:]
        assert any(line.get("game_id") == game_id for line in lines)
        assert not re.search(r"Traceback", up.log("web2"))
        assert ENV["SNAKEWAR_DB_PASSWORD"] not in up.log("web2")
