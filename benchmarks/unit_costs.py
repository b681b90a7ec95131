"""Unit costs for a capacity model: CPU per referee turn, writes and bytes per frame, memory.

Every figure comes from a real ``snakewar serve`` process (started as the tests start
one: ``tests/server/multi_server.py``) with its games created through the API, as a
user would, and is read from outside: the server's CPU from ``/proc/<pid>/stat``
(user + system time, before and after), its memory from ``/proc/<pid>/status`` and
``smaps_rollup``, the database's work from PostgreSQL's own statistics.

* **CPU per referee turn**: ``--games`` games at once between HTTP snakes that answer at
  once (``benchmarks/latency_snake.py``, each in its own process: their CPU is not the
  server's), an 11x11 duel and a 4-snake game; the server's CPU over the games, less its
  idle CPU over as long, divided by the turns played.  Also a duel of built-in bots,
  whose worker processes are the server's children: their CPU is added (``/proc``).
* **Database writes and bytes per frame** (PostgreSQL): each run has a fresh database
  of its own (so that other users of the same PostgreSQL are not in its statistics);
  the server is stopped before they are read (a backend flushes its counters when it
  exits).  Transactions (``pg_stat_database.xact_commit``) less those of an idle
  server's run of as long (startup, leases), rows written per table
  (``pg_stat_user_tables``), and the bytes: ``pg_total_relation_size`` of every table
  over the frames stored, and the average JSON of a frame.  With ``--sqlite``, the same
  duel on an SQLite file: its file size over the frames.
* **Memory per live game and per follower** (the local runner): the server's RSS with
  ``--paused`` step-mode games held before turn 1, less before them; then with
  ``--followers`` websocket followers of one of them (the lean clients of
  ``server_load.py``), less before them.  **CPU per frame per follower**: that game
  (a snake alone) stepped ``--steps`` turns with 5 followers, then with 5 more than
  ``--followers``, each turn once every follower has the one before; the difference in
  the server's CPU per turn, over the followers added.
* **Memory per live game on Ray** (unless ``--no-ray``): a local cluster
  (``ray.cluster_utils.Cluster``), the server with ``--ray-address``; each game is one
  actor, a worker process of its own: its RSS and PSS (the actor's ``pid()``), and its
  CPU per turn for one game played through.
* **Halite III**: the start of a bot in the bubblewrap sandbox (``hosting.py``'s
  measure), and a game of sandboxed Python starter-kit bots (tests/games/halite3) on a
  ``--halite-size`` map played by the referee in a child process: the referee's CPU
  per turn, the bots' CPU per turn and their peak memory (sampled from ``/proc``).

    python3 benchmarks/unit_costs.py [--database URL] [--games 4] [--max-turns 150] \\
        [--paused 30] [--followers 500] [--no-ray] [--sqlite]

Run it from the repository root with ``PYTHONPATH=src:.``.  The figures are CPU
seconds, bytes and memory, mostly independent of the machine's load (not its speed:
the CPU seconds are those of the machine they ran on).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import sqlalchemy as sa

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from cluster_throughput import latency_snakes, ray_cluster
from hosting import sandbox_cost
from server_load import Follower, load
from tests.server.multi_server import Server, wait_until
from tests.system_tools import fresh_database

HERE = Path(__file__).resolve().parent
KIT = HERE.parent / "tests" / "games" / "halite3" / "starter_kit"
TICK = os.sysconf("SC_CLK_TCK")
LEASE_S = 30.0
"""The server's game lease: ``snakewar serve``'s default (the tests' 3 s renews ten
times as often, which would count as writes of the games)."""
IDLE_S = 5.0
"""How long the server's idle CPU is measured before its games."""


# -- reading processes from outside ------------------------------------------------------


def cpu_seconds(pid: int, *, reaped: bool = False) -> float:
    """User + system CPU of ``pid`` so far (with ``reaped``: and of its waited-for children)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = int(fields[11]) + int(fields[12])
    if reaped:
        ticks += int(fields[13]) + int(fields[14])
    return ticks / TICK


def children(pid: int) -> list[int]:
    """Every live descendant of ``pid``."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                parents.setdefault(ppid, []).append(int(entry.name))
    found: list[int] = []
    todo = [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def tree_cpu(pid: int) -> float:
    """CPU of ``pid``, of its children that exited, and of its live descendants."""
    total = cpu_seconds(pid, reaped=True)
    for child in children(pid):
        with contextlib.suppress(OSError):
            total += cpu_seconds(child)
    return total


def rss_kib(pid: int) -> int:
    """Resident memory of ``pid`` (KiB)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def pss_kib(pid: int) -> int:
    """Proportional set size of ``pid`` (KiB): shared pages counted once in all."""
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        if line.startswith("Pss:"):
            return int(line.split()[1])
    return 0


def settled_rss(pid: int) -> int:
    """RSS once the server has had a moment to finish what it was doing."""
    time.sleep(1.0)
    return rss_kib(pid)


# -- the database ------------------------------------------------------------------------


def query(url: str, sql: str) -> list[Any]:
    engine = sa.create_engine(url, poolclass=sa.NullPool)
    try:
        with engine.connect() as connection:
            return list(connection.execute(sa.text(sql)).all())
    finally:
        engine.dispose()


def sessions(url: str) -> int:
    """Sessions connected to the database of ``url``, other than this one."""
    return int(
        query(
            url,
            "SELECT count(*) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()",
        )[0][0]
    )


def quiet(url: str) -> None:
    """Wait until no other session is connected (the server's backends have exited and
    flushed their statistics)."""
    wait_until(
        "the server's database sessions to end",
        lambda: (
            query(
                url,
                "SELECT count(*) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()",
            )[0][0]
            == 0
        ),
        120,
    )


@dataclass
class DbStats:
    """What the database counted, and what it holds."""

    commits: int = 0
    rollbacks: int = 0
    rows: dict[str, tuple[int, int, int]] = field(default_factory=dict)
    """Per table: rows inserted, updated, deleted."""
    sizes: dict[str, int] = field(default_factory=dict)
    frames: int = 0
    frame_json: float = 0.0
    frame_stored: float = 0.0
    """Average ``pg_column_size`` of a frame row's JSON columns (as stored, compressed)."""


def db_stats(url: str) -> DbStats:
    stats = DbStats()
    stats.commits, stats.rollbacks = query(
        url,
        "SELECT xact_commit, xact_rollback FROM pg_stat_database "
        "WHERE datname = current_database()",
    )[0]
    for name, inserted, updated, deleted in query(
        url, "SELECT relname, n_tup_ins, n_tup_upd, n_tup_del FROM pg_stat_user_tables"
    ):
        stats.rows[name] = (int(inserted), int(updated), int(deleted))
    for name, size in query(
        url,
        "SELECT relname, pg_total_relation_size(relid) FROM pg_stat_user_tables",
    ):
        stats.sizes[name] = int(size)
    count, text, stored = query(
        url,
        "SELECT count(*), avg(length(frame::text) + coalesce(length(replay_line::text), 0)), "
        "avg(pg_column_size(frame) + coalesce(pg_column_size(replay_line), 0)) FROM frames",
    )[0]
    stats.frames = int(count)
    stats.frame_json = float(text or 0)
    stats.frame_stored = float(stored or 0)
    return stats


# -- games through the API ---------------------------------------------------------------


def create(http: httpx.Client, body: dict[str, Any]) -> str:
    while True:
        reply = http.post("/api/games", json=body)
        if reply.status_code == 429:  # a slot or a built-in worker is busy: wait for one
            time.sleep(0.2)
            continue
        if reply.status_code != 201:
            raise SystemExit(f"game creation failed ({reply.status_code}): {reply.text[:300]}")
        return str(reply.json()["id"])


def finish(http: httpx.Client, ids: list[str]) -> int:
    """Wait for every game to end complete; the turns they played in all."""
    turns = 0
    for game_id in ids:
        while (game := http.get(f"/api/games/{game_id}").json())["status"] in (
            "starting",
            "running",
        ):
            time.sleep(0.5)
        if game["status"] != "complete":
            raise SystemExit(f"game {game_id} ended {game['status']}: {game.get('error')}")
        turns += int(game.get("turn") or 0)
    return turns


def running(http: httpx.Client, game_id: str) -> bool:
    return bool(http.get(f"/api/games/{game_id}").json()["status"] == "running")


def game_body(snakes: list[str], max_turns: int, size: int = 11) -> dict[str, Any]:
    return {
        "snakes": snakes,
        "width": size,
        "height": size,
        "timeout": 2000,
        "maxTurns": max_turns,
    }


@dataclass
class Played:
    """One run of games on a fresh server."""

    name: str
    games: int
    turns: int
    seconds: float
    cpu: float
    """The server's (and its children's) CPU over the games, less its idle CPU."""
    stats: DbStats | None = None
    control: DbStats | None = None
    sqlite_bytes: int = 0
    sqlite_frames: int = 0

    @property
    def frames(self) -> int:
        return self.turns + self.games  # every game stores turn 0 too

    def cpu_ms_per_turn(self) -> float:
        return self.cpu / self.turns * 1000


def play_run(
    name: str,
    database: str,
    log_dir: Path,
    snakes: list[str],
    games: int,
    max_turns: int,
    *,
    tree: bool = False,
    size: int = 11,
) -> tuple[Played, float]:
    """Play ``games`` games at once on a fresh server; (the run, how long the server ran)."""
    server = Server(database, name, log_dir, lease_s=LEASE_S, extra=["--max-games", "64"])
    started = time.monotonic()
    server.start().wait_ready()
    assert server.process is not None
    pid = server.process.pid
    measure: Callable[[int], float] = tree_cpu if tree else cpu_seconds
    try:
        idle_from = measure(pid)
        time.sleep(IDLE_S)
        idle_rate = (measure(pid) - idle_from) / IDLE_S
        with httpx.Client(base_url=server.url, timeout=120) as http:
            cpu_from, clock = measure(pid), time.monotonic()
            ids = [create(http, game_body(snakes, max_turns, size)) for _ in range(games)]
            turns = finish(http, ids)
            cpu, seconds = measure(pid) - cpu_from, time.monotonic() - clock
    finally:
        server.stop()
    played = Played(name, games, turns, seconds, cpu - idle_rate * seconds)
    return played, time.monotonic() - started


def idle_run(database: str, log_dir: Path, seconds: float) -> None:
    """A server on ``database`` that plays nothing for ``seconds`` after it answers."""
    server = Server(database, "idle", log_dir, lease_s=LEASE_S, extra=["--max-games", "64"])
    started = time.monotonic()
    server.start().wait_ready()
    try:
        time.sleep(max(0.0, seconds - (time.monotonic() - started)))
    finally:
        server.stop()


def postgres_run(
    name: str,
    url: str,
    log_dir: Path,
    snakes: list[str],
    games: int,
    max_turns: int,
    tree: bool,
    size: int,
) -> Played:
    """A run on a fresh database, then an idle server's run of as long on another."""
    with fresh_database(url, "snakewar_units") as database:
        played, lasted = play_run(
            name, database, log_dir, snakes, games, max_turns, tree=tree, size=size
        )
        quiet(database)
        played.stats = db_stats(database)
    with fresh_database(url, "snakewar_units") as database:
        idle_run(database, log_dir, lasted)
        quiet(database)
        played.control = db_stats(database)
    return played


def sqlite_run(name: str, folder: Path, snakes: list[str], games: int, max_turns: int) -> Played:
    path = folder / f"{name}.db"
    played, _ = play_run(name, f"sqlite:///{path}", folder, snakes, games, max_turns)
    engine = sa.create_engine(f"sqlite:///{path}", poolclass=sa.NullPool)
    with engine.begin() as connection:
        connection.execute(sa.text("VACUUM"))
        played.sqlite_frames = int(
            connection.execute(sa.text("SELECT count(*) FROM frames")).scalar() or 0
        )
    engine.dispose()
    # Less the file of a database that holds no game (its schema, the server's rows).
    empty = folder / "empty.db"
    idle_run(f"sqlite:///{empty}", folder, 0)
    played.sqlite_bytes = path.stat().st_size - empty.stat().st_size
    return played


# -- memory ------------------------------------------------------------------------------


@dataclass
class Memory:
    per_game_kib: float = 0.0
    per_follower_kib: float = 0.0
    games: int = 0
    followers: int = 0
    base_mib: float = 0.0
    ray_rss_mib: list[float] = field(default_factory=list)
    ray_pss_mib: list[float] = field(default_factory=list)
    ray_cpu_ms_per_turn: float = 0.0
    ray_server_cpu_ms_per_turn: float = 0.0
    ray_turns: int = 0
    fanout_us: float = 0.0
    """The server's CPU per frame per follower (microseconds)."""
    fanout_turns: int = 0
    ray_connections: float = 0.0
    """Database sessions per live game on Ray (each actor has a pool of its own)."""


async def attach(port: int, game_id: str, count: int) -> list[Follower]:
    loop = asyncio.get_running_loop()
    clients: list[Follower] = []
    for _ in range(count):
        # One at a time: the server's listen backlog is finite.
        _, client = await loop.create_connection(
            lambda: Follower(f"/games/{game_id}/events", [], timed=False), "127.0.0.1", port
        )
        clients.append(client)
    await asyncio.wait_for(asyncio.gather(*(c.joined.wait() for c in clients)), 300)
    return clients


def step_game(http: httpx.Client, snakes: list[str], size: int = 11) -> str:
    game_id = create(http, {**game_body(snakes, 150, size), "step": True})
    wait_until(f"game {game_id} to run", lambda: running(http, game_id), 120)
    return game_id


async def step_through(
    http: httpx.Client, pid: int, game_id: str, clients: list[Follower], count: int
) -> tuple[float, int]:
    """Step ``count`` turns, each once every follower holds the one before; the server's
    CPU over them and the turns stepped."""
    cpu = cpu_seconds(pid)
    stepped = 0
    for _ in range(count):
        target = min(len(c.turns) for c in clients) + 1
        reply = http.post(f"/api/games/{game_id}/step")
        if reply.status_code != 200 or reply.json()["status"] != "running":
            break
        stepped += 1
        deadline = time.monotonic() + 120
        while min(len(c.turns) for c in clients) < target:
            if time.monotonic() > deadline:
                raise SystemExit(f"the followers did not get turn {target - 1} in 120 s")
            await asyncio.sleep(0.01)
    return cpu_seconds(pid) - cpu, stepped


async def memory_local(
    database: str, log_dir: Path, snakes: list[str], games: int, followers: int, steps: int
) -> Memory:
    server = Server(database, "memory", log_dir, lease_s=LEASE_S, extra=["--max-games", "200"])
    server.start().wait_ready()
    assert server.process is not None
    pid = server.process.pid
    memory = Memory(games=games, followers=followers)
    clients: list[Follower] = []
    try:
        with httpx.Client(base_url=server.url, timeout=120) as http:
            # A first game (a snake alone: it lasts) and a few followers: what the first
            # of each loads once.
            watched = step_game(http, snakes[:1])
            clients += await attach(server.port, watched, 5)
            few, few_turns = await step_through(http, pid, watched, clients, steps)
            before = settled_rss(pid)
            memory.base_mib = before / 1024
            for _ in range(games):
                step_game(http, snakes)
            held = settled_rss(pid)
            memory.per_game_kib = (held - before) / games
            clients += await attach(server.port, watched, followers)
            memory.per_follower_kib = (settled_rss(pid) - held) / followers
            many, many_turns = await step_through(http, pid, watched, clients, steps)
            memory.fanout_us = (
                (many / max(many_turns, 1) - few / max(few_turns, 1)) / followers * 1e6
            )
            memory.fanout_turns = many_turns
    finally:
        for client in clients:
            client.finish(None)
        server.stop()
    return memory


def memory_ray(database: str, log_dir: Path, snakes: list[str], games: int, memory: Memory) -> None:
    """Per-game actors on a local Ray cluster: their worker processes' memory, and the CPU
    of one game played through (its actor's, and the web server's as it follows it)."""
    import ray

    from snakewar.arena.remote import ACTOR_NAMESPACE, actor_name

    with ray_cluster([games + 1]) as address:
        ray.init(address=address, log_to_driver=False)
        server = Server(database, "ray", log_dir, lease_s=LEASE_S, extra=["--ray-address", address])
        try:
            server.start().wait_ready(300)
            assert server.process is not None
            with httpx.Client(base_url=server.url, timeout=300) as http:
                idle_sessions = sessions(database)
                # 19x19: duels last longer there than on 11x11 (where these snakes meet
                # head to head soon), so a game's start and end weigh less per turn.
                ids = [step_game(http, snakes, 19) for _ in range(games)]
                pids: list[int] = []
                for game_id in ids:
                    actor = ray.get_actor(actor_name(game_id), namespace=ACTOR_NAMESPACE)
                    pid: Any = ray.get(actor.pid.remote(), timeout=120)  # ray is untyped
                    pids.append(int(pid))
                time.sleep(1.0)
                memory.ray_connections = (sessions(database) - idle_sessions) / games
                memory.ray_rss_mib = [rss_kib(p) / 1024 for p in pids]
                memory.ray_pss_mib = [pss_kib(p) / 1024 for p in pids]
                # Every game played through: its actor's CPU, sampled until it exits.
                first = {pid: cpu_seconds(pid) for pid in pids}
                last = dict(first)
                server_from = cpu_seconds(server.process.pid)
                for game_id in ids:
                    http.post(f"/api/games/{game_id}/resume")
                while any(Path(f"/proc/{pid}").exists() for pid in pids):
                    for pid in pids:
                        with contextlib.suppress(OSError):
                            last[pid] = cpu_seconds(pid)
                    time.sleep(0.05)
                turns = finish(http, ids)
                server_cpu = cpu_seconds(server.process.pid) - server_from
                memory.ray_turns = turns
                actors_cpu = sum(last[pid] - first[pid] for pid in pids)
                memory.ray_cpu_ms_per_turn = actors_cpu / max(turns, 1) * 1000
                memory.ray_server_cpu_ms_per_turn = server_cpu / max(turns, 1) * 1000
        finally:
            server.stop()
            ray.shutdown()


# -- Halite III --------------------------------------------------------------------------


def halite_child(size: int, players: int) -> None:
    """In a child process: a game of sandboxed starter-kit bots; prints its figures (JSON)."""
    from snakewar.games.halite3.referee.runner import play_halite_sync
    from snakewar.referee.process import Program
    from snakewar.referee.sandbox import SandboxPolicy

    folder = Path(tempfile.mkdtemp())
    folder.chmod(0o755)
    try:
        kit = shutil.copytree(KIT, folder / "kit")
        for path in [kit, *kit.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        program = Program(("python3", "MyBot.py"), sandbox=SandboxPolicy(), files=str(kit))
        me = os.getpid()
        seen: dict[int, float] = {}
        peak = [0, 0, 0]  # sum of RSS, of PSS, and processes then
        stop = threading.Event()

        def sample() -> None:
            while not stop.is_set():
                rss = pss = 0
                alive = children(me)
                for pid in alive:
                    with contextlib.suppress(OSError):
                        seen[pid] = cpu_seconds(pid)
                        rss += rss_kib(pid)
                        pss += pss_kib(pid)
                if pss > peak[1]:
                    peak[:] = [rss, pss, len(alive)]
                stop.wait(0.01)

        sampler = threading.Thread(target=sample)
        sampler.start()
        own = cpu_seconds(me)
        started = time.monotonic()
        match = play_halite_sync([program] * players, seed=1, width=size, height=size)
        seconds = time.monotonic() - started
        own = cpu_seconds(me) - own
        stop.set()
        sampler.join()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    turns = int(match.game.turn)
    print(
        json.dumps(
            {
                "turns": turns,
                "failures": len(match.failures),
                "seconds": seconds,
                # The referee shares this process with the sampling thread: an upper bound.
                "referee_ms_per_turn": own / turns * 1000,
                "bots_ms_per_turn": sum(seen.values()) / turns * 1000,
                "peak_rss_mib": peak[0] / 1024,
                "peak_pss_mib": peak[1] / 1024,
                "processes": peak[2],
            }
        )
    )


def halite(size: int, players: int) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, __file__, "--halite-child", str(size), str(players)],
        capture_output=True,
        text=True,
        timeout=1200,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"the Halite game failed: {done.stderr.strip()[-500:]}")
    figures: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


# -- the table ---------------------------------------------------------------------------


def writes_lines(played: Played) -> list[tuple[str, str, str]]:
    stats, control = played.stats, played.control
    assert stats is not None and control is not None
    frames = stats.frames
    commits = (stats.commits - control.commits) / frames
    rows: list[str] = []
    for table, (inserted, updated, deleted) in sorted(stats.rows.items()):
        base = control.rows.get(table, (0, 0, 0))
        written = (inserted - base[0], updated - base[1], deleted - base[2])
        if sum(written) > 0:
            rows.append(f"{table} {sum(written) / frames:.2f}")
    stored = sum(stats.sizes.values()) - sum(control.sizes.values())
    return [
        (played.name, "commits per frame (writes, reads, pool pings)", f"{commits:.2f}"),
        (played.name, "rows written per frame, by table", ", ".join(rows)),
        (played.name, "frame JSON (view + replay line), average", f"{stats.frame_json:.0f} B"),
        (played.name, "frame as stored (pg_column_size)", f"{stats.frame_stored:.0f} B"),
        (
            played.name,
            "frames table on disk per frame",
            f"{stats.sizes.get('frames', 0) / frames:.0f} B",
        ),
        (played.name, "all tables on disk per frame", f"{stored / frames:.0f} B"),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", default=os.environ.get("SNAKEWAR_TEST_POSTGRES_URL"))
    parser.add_argument("--games", type=int, default=4, help="games at once per CPU run")
    parser.add_argument("--max-turns", type=int, default=150)
    parser.add_argument("--paused", type=int, default=30, help="paused games for memory")
    parser.add_argument("--followers", type=int, default=500)
    parser.add_argument("--steps", type=int, default=20, help="turns stepped per fan-out run")
    parser.add_argument("--ray-games", type=int, default=3)
    parser.add_argument("--halite-size", type=int, default=32)
    parser.add_argument("--halite-players", type=int, default=4)
    parser.add_argument("--no-ray", action="store_true")
    parser.add_argument("--no-halite", action="store_true")
    parser.add_argument("--sqlite", action="store_true", help="also the duel on SQLite")
    parser.add_argument("--halite-child", nargs=2, type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.halite_child:
        halite_child(*args.halite_child)
        return
    if not args.database:
        raise SystemExit("error: give --database (a PostgreSQL URL) or $SNAKEWAR_TEST_POSTGRES_URL")
    print(f"machine: {os.cpu_count()} cores, {load()} at the start")
    table: list[tuple[str, str, str]] = []
    runs: list[Played] = []
    with tempfile.TemporaryDirectory() as name, latency_snakes(0, 4) as snakes:
        folder = Path(name)
        for label, seats, tree, size in (
            ("duel 11x11 (HTTP)", snakes[:2], False, 11),
            ("4 snakes 11x11 (HTTP)", snakes, False, 11),
            # Longer games than on 11x11, and longer snakes: bigger frames.
            ("4 snakes 19x19 (HTTP)", snakes, False, 19),
            ("duel 11x11 (built-ins)", ["builtin:greedy", "builtin:greedy"], True, 11),
        ):
            played = postgres_run(
                label, args.database, folder, seats, args.games, args.max_turns, tree, size
            )
            runs.append(played)
            print(
                f"played {label}: {args.games} games, {played.turns} turns in "
                f"{played.seconds:.1f} s",
                flush=True,
            )
        if args.sqlite:
            runs.append(
                sqlite_run("duel 11x11 (HTTP, SQLite)", folder, snakes[:2], args.games, 150)
            )
        for played in runs:
            who = "server + bot workers" if "built-in" in played.name else "server"
            per_game = played.turns / played.games
            table.append(
                (
                    played.name,
                    f"CPU per referee turn ({who}; {per_game:.0f} turns a game)",
                    f"{played.cpu_ms_per_turn():.2f} ms",
                )
            )
        for played in runs:
            if played.stats is not None:
                table += writes_lines(played)
            elif played.sqlite_frames:
                table.append(
                    (
                        played.name,
                        "SQLite file per frame",
                        f"{played.sqlite_bytes / played.sqlite_frames:.0f} B",
                    )
                )
        with fresh_database(args.database, "snakewar_units") as database:
            memory = asyncio.run(
                memory_local(database, folder, snakes[:2], args.paused, args.followers, args.steps)
            )
        table += [
            ("local runner", "server RSS with one paused game", f"{memory.base_mib:.0f} MiB"),
            (
                "local runner",
                f"memory per live game ({memory.games} paused duels)",
                f"{memory.per_game_kib:.0f} KiB",
            ),
            (
                "local runner",
                f"memory per follower ({memory.followers} websockets)",
                f"{memory.per_follower_kib:.1f} KiB",
            ),
            (
                "local runner",
                f"CPU per frame per follower ({memory.fanout_turns} turns stepped)",
                f"{memory.fanout_us:.0f} us",
            ),
        ]
        print("measured memory", flush=True)
        if not args.no_ray:
            with fresh_database(args.database, "snakewar_units") as database:
                memory_ray(database, folder, snakes[:2], args.ray_games, memory)
            rss = ", ".join(f"{m:.0f}" for m in memory.ray_rss_mib)
            pss = ", ".join(f"{m:.0f}" for m in memory.ray_pss_mib)
            table += [
                ("Ray runner", "actor worker RSS per live game", f"{rss} MiB"),
                ("Ray runner", "actor worker PSS per live game", f"{pss} MiB"),
                (
                    "Ray runner",
                    "database sessions per live game (paused)",
                    f"{memory.ray_connections:.1f}",
                ),
                (
                    "Ray runner",
                    f"actors' CPU per turn ({memory.ray_turns} turns of duels)",
                    f"{memory.ray_cpu_ms_per_turn:.2f} ms",
                ),
                (
                    "Ray runner",
                    "web server CPU per turn of a game on Ray",
                    f"{memory.ray_server_cpu_ms_per_turn:.2f} ms",
                ),
            ]
            print("measured Ray", flush=True)
    if not args.no_halite:
        bare, boxed = asyncio.run(sandbox_cost(10))
        figures = halite(args.halite_size, args.halite_players)
        game = f"{args.halite_players} kit bots {args.halite_size}x{args.halite_size}"
        table += [
            ("Halite", "bot start, bare / sandboxed", f"{bare:.0f} / {boxed:.0f} ms"),
            (
                "Halite",
                f"game of {game} ({figures['turns']} turns)",
                f"{figures['seconds']:.1f} s, {figures['failures']} failures",
            ),
            ("Halite", "referee CPU per turn", f"{figures['referee_ms_per_turn']:.2f} ms"),
            (
                "Halite",
                f"bots' CPU per turn ({args.halite_players} together)",
                f"{figures['bots_ms_per_turn']:.2f} ms",
            ),
            (
                "Halite",
                f"peak memory of the game's {figures['processes']} sandbox processes",
                f"RSS {figures['peak_rss_mib']:.0f} MiB, PSS {figures['peak_pss_mib']:.0f} MiB",
            ),
        ]
    width = max(len(what) for _, what, _ in table)
    setup = max(len(name) for name, _, _ in table)
    print(f"\n{'setup':<{setup}}  {'unit cost':<{width}}  figure")
    for name, what, figure in table:
        print(f"{name:<{setup}}  {what:<{width}}  {figure}")
    print(f"\n{load()} at the end (a shared machine: CPU seconds, not wall time, are the figures)")


if __name__ == "__main__":
    main()
