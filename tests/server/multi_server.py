"""Real ``snakewar serve`` processes on one database: started, killed (-9), restarted.

The crash-and-restart scenario of issue 31 (H4), shared by the tests and by
``benchmarks/two_server_resume.py`` (which plays it many times and prints the figures):

1. server A starts a tournament of built-in bots, and is killed (``SIGKILL``) mid-run;
2. servers B and C start at once on the same database, both resuming (the default);
3. whichever plays it is killed mid-run, and a server D starts in its place;
4. once the tournament is finished every server is stopped, and one more starts (it
   must start, and answer for the tournament).

The tournament must then be finished, have no game recorded twice, and hold exactly the
games a straight run of the same tournament plays (in this process, no server).
Every wait is a poll with a generous deadline: the scenario runs on a loaded machine.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import sqlalchemy as sa

from snakewar.arena.config import MatchConfig
from snakewar.arena.executors import InProcessExecutor
from snakewar.arena.tournament_runner import TournamentRun, TournamentRunError
from snakewar.storage import Store

SNAKEWAR = "import sys; from snakewar.command import main; sys.exit(main())"

BOTS = ("builtin:greedy", "builtin:random", "builtin:hunter?depth=1", "builtin:greedy")
"""Deterministic built-ins (a game depends on its seed only): a crash cannot change one."""

TOURNAMENT: dict[str, Any] = {
    "name": "resume cup",
    "format": "single_elimination",
    "snakes": [BOTS[i % len(BOTS)] for i in range(8)],
    "best_of": 3,
    "width": 11,
    "height": 11,
    "seed": 31,
    # The longest a server allows: built-in bots' worker processes start slowly on a
    # loaded machine, and a game must not fail for that.
    "timeout": 2000,
}
"""About twenty games in some eight rounds (a round's games are played at once): long
enough to be killed mid-run twice, short enough for a test."""

MAX_REPLAYS = 5
"""Times a round plays a run on after a game failed for the machine's load (no more)."""

CLEAN_EXITS = (0, 130)
"""How ``snakewar serve`` exits when stopped with Ctrl-C (``SIGINT``)."""


def free_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def wait_until(what: str, check: Callable[[], bool], timeout: float = 300) -> None:
    """Poll ``check`` every 50 ms until it holds; fail naming ``what`` after ``timeout``."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(0.05)


@dataclass
class Server:
    """One ``snakewar serve`` child process on a database."""

    database: str
    name: str
    log_dir: Path
    lease_s: float = 3.0
    extra: Sequence[str] = ()
    env: dict[str, str] = field(default_factory=dict)
    port: int = 0
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def log(self) -> Path:
        return self.log_dir / f"{self.name}.log"

    def start(self) -> Server:
        """Start the process (it is ready once :meth:`ready`)."""
        self.port = free_port()
        argv = [
            sys.executable,
            "-c",
            SNAKEWAR,
            "serve",
            "--port",
            str(self.port),
            "--database",
            self.database,
            "--game-lease",
            str(self.lease_s),
            *self.extra,
        ]
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(
                argv, stdout=out, stderr=subprocess.STDOUT, env={**os.environ, **self.env}
            )
        return self

    def ready(self) -> bool:
        """Whether it answers (failing the test if it exited instead)."""
        assert self.process is not None
        if self.process.poll() is not None:
            lines = [x for x in self.log.read_text(errors="replace").splitlines() if x.strip()]
            raise AssertionError(
                f"server {self.name} exited with {self.process.returncode}: "
                + " | ".join(line.strip() for line in lines[-3:])
            )
        try:
            return httpx.get(f"{self.url}/api/tournaments", timeout=10).status_code == 200
        except httpx.HTTPError:
            return False

    def wait_ready(self, timeout: float = 120) -> Server:
        wait_until(f"server {self.name} to answer", self.ready, timeout)
        return self

    def kill(self) -> None:
        """``SIGKILL``: no clean-up at all, as a crash."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(60)

    def stop(self, timeout: float = 120) -> int:
        """``SIGINT`` (Ctrl-C): a clean stop; its exit status."""
        assert self.process is not None
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(60)
                raise AssertionError(f"server {self.name} did not stop in {timeout} s") from None
        return int(self.process.returncode)

    def get(self, path: str) -> httpx.Response:
        return httpx.get(f"{self.url}{path}", timeout=60)

    def post(self, path: str, body: Any = None) -> httpx.Response:
        return httpx.post(f"{self.url}{path}", json=body, timeout=60)


@contextlib.contextmanager
def servers(database: str, log_dir: Path, **options: Any) -> Iterator[Callable[[str], Server]]:
    """Make servers on ``database`` (``make(name)``); every one is killed at the end."""
    made: list[Server] = []

    def make(name: str) -> Server:
        server = Server(database, name, log_dir, **options)
        made.append(server)
        return server

    try:
        yield make
    finally:
        for server in made:
            server.kill()


def recorded(database: str, tid: str) -> int:
    """How many games the tournament ``tid`` has recorded."""
    engine = sa.create_engine(database, poolclass=sa.NullPool)
    try:
        with engine.connect() as connection:
            count = connection.execute(
                sa.text("SELECT count(*) FROM tournament_games WHERE tournament_id = :t"),
                {"t": tid},
            ).scalar()
            return int(count or 0)
    finally:
        engine.dispose()


def recorded_games(database: str, tid: str) -> list[tuple[Any, ...]]:
    """Every recorded game of ``tid``: match, number, game id, seats, placement, turns."""
    engine = sa.create_engine(database, poolclass=sa.NullPool)
    try:
        with engine.connect() as connection:
            rows = connection.execute(
                sa.text(
                    "SELECT match_id, number, game_id, seats, placement, turns "
                    "FROM tournament_games WHERE tournament_id = :t ORDER BY ordinal"
                ),
                {"t": tid},
            ).all()
    finally:
        engine.dispose()
    return [_game_key(*row) for row in rows]


def _game_key(
    match_id: str, number: int, game_id: str, seats: Any, placement: Any, turns: int
) -> tuple[Any, ...]:
    import json

    seats = json.loads(seats) if isinstance(seats, str) else seats
    placement = json.loads(placement) if isinstance(placement, str) else placement
    return (
        match_id,
        int(number),
        game_id,
        tuple(seats),
        tuple(tuple(g) for g in placement),
        int(turns),
    )


def _transient(error: str) -> bool:
    """Whether a run failed for the machine's load: a built-in bot's worker process that
    did not start in time (the games it played are recorded; the others are played on)."""
    return "could not be played" in error and "no bot worker ready" in error


def straight_run(data: dict[str, Any]) -> list[tuple[Any, ...]]:
    """The games a straight run of the tournament ``data`` (its API answer) plays."""
    # The same games, with all the time in the world per turn: a deterministic bot's
    # moves do not depend on it, and a loaded machine must not fail a turn here.
    config = MatchConfig.from_dict({**data["config"], "timeout_ms": 60_000})
    run = TournamentRun.create(
        data["name"],
        data["format"],
        [(s["source"], s["name"]) for s in data["snakes"]],
        config=config,
        seed=int(data["seed"]),
        heat_size=int(data["config"]["game_size"]),
        best_of=int(TOURNAMENT["best_of"]),
        tid=data["id"],
    )
    with Store("sqlite://") as store:
        store.tournaments.create(run)
        for _ in range(MAX_REPLAYS):
            try:
                run.run(store, InProcessExecutor(concurrency=2))
                break
            except TournamentRunError as exc:
                if not _transient(str(exc)):
                    raise
        assert run.is_finished, "the straight run did not finish"
        games = [g for match in run.games.values() for g in match]
        return [
            (
                g.match_id,
                g.number,
                g.game_id,
                tuple(g.seats),
                tuple(tuple(p) for p in g.placement),
                g.turns,
            )
            for g in games
        ]


@dataclass
class Outcome:
    """What one round of the scenario found."""

    finished: bool = False
    games: int = 0
    duplicates: int = 0
    same_as_straight: bool = False
    restarted: bool = False
    api_status: int = 0
    replays: int = 0
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return (
            self.finished
            and self.duplicates == 0
            and self.same_as_straight
            and self.restarted
            and not self.problems
        )


def scenario(
    database: str, log_dir: Path, *, server_env: dict[str, str] | None = None
) -> tuple[Outcome, list[tuple[Any, ...]]]:
    """Play the scenario once on a fresh ``database``; what it found, and the straight run.

    ``server_env`` is added to the servers' environment (``PYTHONPATH``: another
    checkout's servers, to compare).  The straight run is played afterwards, in this
    process: the tournament's id (from the server) is part of every game's seed.
    """
    outcome = Outcome()
    started = time.monotonic()
    with servers(database, log_dir, env=dict(server_env or {})) as make:
        first = make("a").start().wait_ready()
        made = first.post("/api/tournaments", TOURNAMENT)
        assert made.status_code == 201, made.text
        data = made.json()
        tid = data["id"]
        wait_until("the first games", lambda: _played(first, tid, 2, outcome, database))
        first.kill()
        at_crash = recorded(database, tid)
        # Two servers at once, both resuming.
        pair = [make("b").start(), make("c").start()]
        for server in pair:
            server.wait_ready()
        wait_until(
            "games after the restart",
            lambda: any(_played(s, tid, at_crash + 1, outcome, database) for s in pair),
        )
        at_second = recorded(database, tid)
        # Kill whichever plays it (both, if both did: the old bug); one takes its place.
        playing: list[Server] = []
        deadline = time.monotonic() + 10
        while not playing and time.monotonic() < deadline:
            playing = [s for s in pair if _plays(s, tid)]
        killed = playing or pair[:1]
        for server in killed:
            server.kill()
        survivors = [s for s in pair if s not in killed]
        late = make("d").start().wait_ready()
        live = [*survivors, late]

        def finished() -> bool:
            answer = live[-1].get(f"/api/tournaments/{tid}")
            outcome.api_status = answer.status_code
            if answer.status_code != 200:
                raise AssertionError(f"the tournament answers {answer.status_code}: {answer.text}")
            body = answer.json()
            _play_on_if_failed(live[-1], body, outcome)
            return bool(body["finished"]) and not body["running"]

        try:
            wait_until("the tournament to finish", finished)
            outcome.finished = True
        except AssertionError as exc:
            outcome.problems.append(str(exc)[:300])
        for server in live:
            status = server.stop()
            if status not in CLEAN_EXITS:
                outcome.problems.append(f"server {server.name} exited with {status}")
        # A server always starts afterwards, and answers for the tournament.
        again = make("e").start()
        try:
            again.wait_ready()
            answer = again.get(f"/api/tournaments/{tid}")
            outcome.api_status = answer.status_code
            outcome.restarted = answer.status_code == 200
        except AssertionError as exc:
            outcome.problems.append(f"a server does not start: {str(exc)[:300]}")
        again.stop()
    expected = straight_run(data)
    # Killed mid-run: neither crash came after the last game.
    if at_second >= len(expected):
        outcome.problems.append("the tournament ended before the second crash")
    games = recorded_games(database, tid)
    keys = [(g[0], g[1]) for g in games]
    outcome.games = len(games)
    outcome.duplicates = len(keys) - len(set(keys))
    outcome.same_as_straight = sorted(games) == sorted(expected)
    outcome.seconds = time.monotonic() - started
    return outcome, expected


def _play_on_if_failed(server: Server, body: dict[str, Any], outcome: Outcome) -> None:
    """Play a run on that failed for the machine's load, as its admin would (a few times)."""
    run = body.get("run") or {}
    if body["running"] or body["finished"] or run.get("state") not in (None, "failed"):
        return
    error = str(run.get("error") or "")
    if _transient(error) and outcome.replays < MAX_REPLAYS:
        outcome.replays += 1
        server.post(f"/api/tournaments/{body['id']}/run")
    elif error:
        raise AssertionError(f"the run failed: {error}")


def _played(server: Server, tid: str, count: int, outcome: Outcome, database: str) -> bool:
    """Whether ``count`` games are recorded (a failed run on ``server`` played on)."""
    if recorded(database, tid) >= count:
        return True
    answer = server.get(f"/api/tournaments/{tid}")
    if answer.status_code == 200:
        _play_on_if_failed(server, answer.json(), outcome)
    return False


def _plays(server: Server, tid: str) -> bool:
    """Whether ``server`` plays the tournament now (it shows the match's live game)."""
    try:
        answer = server.get(f"/api/tournaments/{tid}")
    except httpx.HTTPError:
        return False
    if answer.status_code != 200:
        return True  # broken already: kill it too
    return any(m.get("playing") for m in answer.json()["matches"])
