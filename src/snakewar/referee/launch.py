"""Bot servers started and watched: ``--launch "python main.py --port {port}"``.

Game-agnostic: any referee that calls its bots over HTTP can start them with this.  A
:class:`LaunchedBot` is one bot server run as a child process of ours:

* its command line is split into words as a shell would (quotes work) and run **without**
  one (:func:`~snakewar.referee.process.split_command`): ``{port}`` in any word becomes a
  free port of 127.0.0.1, also exported as the ``PORT`` environment variable (the
  convention of the official starter snakes and of most hosts);
* it runs in its **own session and process group**, so stopping it stops whatever it
  started too (``npm start`` -> ``node``, a shell script -> its bot), and a Ctrl-C typed
  at our terminal reaches us, not it: we stop it in order;
* its stdout and stderr go, merged, to one log file (never a pipe: a talkative bot can
  never block on a full pipe); what it wrote last is quoted when it fails;
* it is ready when ``GET /`` answers 200, polled until a timeout; an exit or the timeout
  is a :class:`LaunchError` naming the command, with the last lines of its log;
* a bot that dies when it should not is restarted, on the same port (so addresses given
  out stay right), at most ``max_restarts`` times; each death is a :class:`Crash`;
* it is stopped with ``SIGTERM`` to its group, then ``SIGKILL`` after a grace.

A :class:`Launcher` holds several and watches them from one thread, so a bot that dies
while games are played elsewhere (worker processes) is restarted promptly.

    >>> launch_argv(("python3", "main.py", "--port", "{port}"), 8123)
    ('python3', 'main.py', '--port', '8123')
"""

from __future__ import annotations

import contextlib
import http.client
import os
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from snakewar.errors import SnakewarError
from snakewar.referee.process import Program

__all__ = [
    "PORT_FIELD",
    "Crash",
    "LaunchError",
    "LaunchSpec",
    "LaunchedBot",
    "Launcher",
    "launch_argv",
]

PORT_FIELD = "{port}"
"""What is replaced by the bot's port in each word of its command."""

_TAIL_LINES = 8
_TAIL_CHARS = 600
_POLL_S = 0.05


class LaunchError(SnakewarError, RuntimeError):
    """Raised for a launched bot that cannot start, exits early or never answers ``GET /``."""


def launch_argv(argv: Sequence[str], port: int) -> tuple[str, ...]:
    """``argv`` with :data:`PORT_FIELD` replaced by ``port`` in every word."""
    return tuple(word.replace(PORT_FIELD, str(port)) for word in argv)


def free_port() -> int:
    """A port of 127.0.0.1 nobody listens on now (the OS's choice).

    Another process could take it before the bot binds it; the bot then exits and says
    so in its log, which the :class:`LaunchError` quotes.
    """
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@dataclass(frozen=True, slots=True)
class LaunchSpec:
    """How to launch one bot server.

    Attributes:
        command: its command line, ``{port}`` where the port goes (run without a shell).
        cwd: its working directory.
        ready_timeout: seconds to wait for ``GET /`` to answer 200, at each (re)start.
        max_restarts: restarts allowed after it dies unasked.
        log_path: the file its stdout and stderr go to (``None``: a temporary file).
        grace: seconds between ``SIGTERM`` and ``SIGKILL`` when it is stopped.
        env: environment variables set for it, on top of ours (a config file's ``env``).
        max_games: the most games it plays at once (0: no limit); the caller keeps to it.
    """

    command: str
    cwd: str = "."
    ready_timeout: float = 30.0
    max_restarts: int = 2
    log_path: str | None = None
    grace: float = 5.0
    env: tuple[tuple[str, str], ...] = ()
    max_games: int = 0

    def program(self) -> Program:
        """The command as a :class:`Program` (leading ``NAME=value`` words set variables).

        Raises:
            CommandLineError: an empty command, an unclosed quote, or shell syntax.
        """
        return Program.from_command(self.command, cwd=self.cwd)


@dataclass(frozen=True, slots=True)
class Crash:
    """A launched bot that died unasked.

    Attributes:
        label: which bot (``"bot 1"``).
        command: its command line.
        returncode: its exit status (negative: the signal that killed it).
        tail: the last lines of its log, joined by `` | ``.
        restarted: whether it was started again (and answered).
        reason: why it was not, if it was not.
        games: the games it was playing when its death was seen (their ids, as the
            caller's :attr:`LaunchedBot.games_in_play` gave them).
    """

    label: str
    command: str
    returncode: int | None
    tail: str
    restarted: bool
    reason: str = ""
    games: tuple[str, ...] = ()

    def describe(self) -> str:
        """One line on it."""
        what = f"{self.label} ({self.command!r}) died with exit status {self.returncode}"
        if self.games:
            shown = ", ".join(self.games[:3])
            more = f" and {len(self.games) - 3} more" if len(self.games) > 3 else ""
            what += f" in game{'s' if len(self.games) > 1 else ''} {shown}{more}"
        then = "restarted" if self.restarted else f"not restarted: {self.reason}"
        tail = f"; last lines: {self.tail}" if self.tail else ""
        return f"{what}; {then}{tail}"


def _exit_text(returncode: int) -> str:
    if returncode < 0:
        with contextlib.suppress(ValueError):
            return f"was killed by {signal.Signals(-returncode).name}"
    return f"exited with status {returncode}"


class LaunchedBot:
    """One bot server, run as our child in its own process group (see the module)."""

    def __init__(self, spec: LaunchSpec, label: str) -> None:
        self.spec = spec
        self.label = label
        self.program = spec.program()
        self.port = 0
        self.restarts = 0
        self.given_up = ""
        """Why it is down for good ("" while it runs or may be restarted)."""
        self.pids: list[int] = []
        """Every process id it had, first start and restarts (for checks that none is left)."""
        self.crashes: list[Crash] = []
        """Its deaths so far, each once it was restarted or given up on."""
        self.games_in_play: Callable[[], Sequence[str]] = tuple
        """The games it plays now (their ids), asked when its death is seen: a caller
        that plays games sets it, so that each :class:`Crash` names its games."""
        self._process: subprocess.Popen[bytes] | None = None
        self._stopping = False
        self._stopped: subprocess.Popen[bytes] | None = None
        self._temp: tempfile.TemporaryDirectory[str] | None = None
        if spec.log_path is None:
            self._temp = tempfile.TemporaryDirectory(prefix="snakewar-launch-")
            self.log_path = Path(self._temp.name, "bot.log")
        else:
            self.log_path = Path(spec.log_path)
        self._lock = threading.RLock()

    @property
    def url(self) -> str:
        """Where it answers."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int | None:
        """Its current process id (also its process group's), if it was started."""
        return self._process.pid if self._process is not None else None

    def describe(self) -> str:
        """``bot 1 ('python main.py --port {port}')``."""
        return f"{self.label} ({self.spec.command!r})"

    def note(self, text: str) -> None:
        """Write a line of ours into its log (``--- snakewar: text``), between its own."""
        # O_APPEND on both sides: our line and the bot's writes never overwrite each other.
        with contextlib.suppress(OSError), self.log_path.open("a", encoding="utf-8") as log:
            log.write(f"--- snakewar: {text}\n")

    def tail(self, lines: int = _TAIL_LINES) -> str:
        """The last ``lines`` lines it wrote (not our notes), joined by `` | ``, capped."""
        try:
            with self.log_path.open("rb") as log:
                log.seek(0, os.SEEK_END)
                size = log.tell()
                log.seek(max(0, size - 16384))
                text = log.read().decode("utf-8", errors="replace")
        except OSError:
            return ""
        kept = [
            line.strip()
            for line in text.splitlines()
            if line.strip() and not line.startswith("--- snakewar:")
        ]
        joined = " | ".join(kept[-lines:])
        return joined if len(joined) <= _TAIL_CHARS else "..." + joined[-_TAIL_CHARS:]

    def start(self) -> None:
        """Start it on a free port and wait until ``GET /`` answers 200.

        Raises:
            LaunchError: it cannot be run, exits first, or does not answer in time
                (it is stopped then); the message names the command and quotes its log.
        """
        with self._lock:
            if not self.port:
                self.port = free_port()
            self._spawn()
            self._wait_ready()

    def _spawn(self) -> None:
        argv = launch_argv(self.program.argv, self.port)
        env = dict(self.program.env if self.program.env is not None else os.environ)
        env.update(self.spec.env)
        env["PORT"] = str(self.port)
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        try:
            with self.log_path.open("ab") as log:
                self._process = subprocess.Popen(
                    argv,
                    cwd=self.program.cwd,
                    env=env,
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
        except OSError as exc:
            raise LaunchError(
                f"launched {self.describe()}: cannot run {argv[0]!r}: {exc.strerror or exc}"
            ) from None
        self.pids.append(self._process.pid)
        self.note(f"started {self.describe()} on port {self.port}: pid {self._process.pid}")

    def _answers(self, timeout: float) -> int | None:
        """The status of ``GET /`` now (``None``: no answer)."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            connection.request("GET", "/")
            response = connection.getresponse()
            response.read(65536)
            return response.status
        except (OSError, http.client.HTTPException):
            return None
        finally:
            connection.close()

    def _wait_ready(self) -> None:
        process = self._process
        assert process is not None
        deadline = time.monotonic() + self.spec.ready_timeout
        last: int | None = None
        while True:
            returncode = process.poll()
            if returncode is not None:
                self._fail(f"{_exit_text(returncode)} before answering GET / on port {self.port}")
            last = self._answers(timeout=2.0)
            if last == 200:
                self.note(f"ready: pid {process.pid}, GET / answered 200")
                return
            if time.monotonic() >= deadline:
                answer = f" (last answer: HTTP {last})" if last is not None else ""
                self.stop()
                self._fail(
                    f"did not answer GET / with 200 on port {self.port} within "
                    f"{self.spec.ready_timeout:g} s{answer}"
                )
            time.sleep(_POLL_S if last is None else 0.2)

    def _fail(self, problem: str) -> None:
        tail = self.tail()
        quoted = f"; last lines of its output: {tail}" if tail else "; it wrote nothing"
        kept = f" (log: {self.log_path})" if self.spec.log_path is not None else ""
        raise LaunchError(f"launched {self.describe()} {problem}{quoted}{kept}")

    def running(self) -> bool:
        """Whether its process is alive."""
        return self._process is not None and self._process.poll() is None

    def check(self, wait_ready: bool = False) -> Crash | None:
        """Restart it if it died unasked (bounded); the :class:`Crash` if it had.

        With ``wait_ready``, a live bot that does not answer ``GET /`` is given its ready
        timeout to answer or die (a bot caught dying is then restarted too).
        """
        with self._lock:
            if self._stopping or self.given_up or self._process is None:
                return None
            if wait_ready and self._process.poll() is None:
                deadline = time.monotonic() + self.spec.ready_timeout
                while self._process.poll() is None and self._answers(2.0) != 200:
                    if time.monotonic() >= deadline:
                        break
                    time.sleep(_POLL_S)
            returncode = self._process.poll()
            if returncode is None:
                return None
            # Asked at once: the games it dies in may end while it is restarted.
            games = tuple(self.games_in_play())
            self._reap_group()
            tail = self.tail()
            self.note(f"{self.label} {_exit_text(returncode)}")
            if self.restarts >= self.spec.max_restarts:
                self.given_up = (
                    f"{_exit_text(returncode)} after {self.restarts} restarts "
                    f"(at most {self.spec.max_restarts})"
                )
                crash = Crash(
                    self.label, self.spec.command, returncode, tail, False, self.given_up, games
                )
            else:
                self.restarts += 1
                try:
                    self._spawn()
                    self._wait_ready()
                except LaunchError as exc:
                    self.given_up = str(exc)
                    crash = Crash(
                        self.label, self.spec.command, returncode, tail, False, str(exc), games
                    )
                else:
                    crash = Crash(
                        self.label, self.spec.command, returncode, tail, True, games=games
                    )
            self.crashes.append(crash)
            return crash

    def _reap_group(self) -> None:
        # The leader is gone; what it started may not be: stop the rest of its group.
        process = self._process
        if process is None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
        _wait_group(process, process.pid, 10.0)

    def stop(self) -> None:
        """``SIGTERM`` its process group, ``SIGKILL`` after the grace; reap it (idempotent)."""
        with self._lock:
            self._stopping = True
            process = self._process
            if process is None or self._stopped is process:
                return
            self._stopped = process
            group = process.pid
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(group, signal.SIGTERM)
            if not _wait_group(process, group, self.spec.grace):
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(group, signal.SIGKILL)
                # SIGKILL is delivered asynchronously: wait until it has been.
                _wait_group(process, group, 10.0)
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(10)
            self.note(f"stopped {self.label}")

    def close(self) -> None:
        """Stop it and remove its temporary log, if it has one."""
        self.stop()
        if self._temp is not None:
            self._temp.cleanup()


class Launcher:
    """Several launched bots, started together, watched by one thread, stopped together.

    Use it as a context manager: every bot is stopped when the block ends, however it
    ends (an error, Ctrl-C, or ``SIGTERM``, which raises :class:`SystemExit` inside).
    """

    def __init__(self, specs: Sequence[LaunchSpec], watch_every: float = 0.2) -> None:
        self.bots = [LaunchedBot(spec, f"bot {i + 1}") for i, spec in enumerate(specs)]
        self.watch_every = watch_every
        self._taken = [0] * len(self.bots)
        self._crash_lock = threading.Lock()
        self._done = threading.Event()
        self._watcher: threading.Thread | None = None
        self._previous_sigterm: object = None

    @property
    def urls(self) -> list[str]:
        """Each bot's address, in order."""
        return [bot.url for bot in self.bots]

    def start(self) -> None:
        """Start every bot (in order) and the watcher.

        Raises:
            LaunchError: the first bot that did not come up (the others are stopped).
        """
        try:
            for bot in self.bots:
                bot.start()
        except BaseException:
            self.close()
            raise
        self._watcher = threading.Thread(target=self._watch, name="launch-watcher", daemon=True)
        self._watcher.start()

    def _watch(self) -> None:
        while not self._done.wait(self.watch_every):
            self.check()

    def check(self, wait_ready: bool = False) -> list[Crash]:
        """Restart the bots that died (see :meth:`LaunchedBot.check`); their crashes."""
        return [c for bot in self.bots if (c := bot.check(wait_ready)) is not None]

    def take_crashes(self) -> list[Crash]:
        """The crashes seen since the last call (by whoever checked), bot by bot."""
        crashes: list[Crash] = []
        with self._crash_lock:
            for n, bot in enumerate(self.bots):
                seen = bot.crashes[:]  # a copy: the watcher may add one meanwhile
                crashes.extend(seen[self._taken[n] :])
                self._taken[n] = len(seen)
        return crashes

    def given_up(self) -> list[LaunchedBot]:
        """The bots down for good."""
        return [bot for bot in self.bots if bot.given_up]

    def note(self, text: str) -> None:
        """Write ``text`` into every bot's log (between games, for instance)."""
        for bot in self.bots:
            bot.note(text)

    def close(self) -> None:
        """Stop the watcher, then every bot (idempotent)."""
        self._done.set()
        if self._watcher is not None and self._watcher is not threading.current_thread():
            self._watcher.join()
        for bot in self.bots:
            bot.close()

    def __enter__(self) -> Launcher:
        if threading.current_thread() is threading.main_thread():
            # Without this, SIGTERM would end us at once and leave the bots running.
            self._previous_sigterm = signal.signal(signal.SIGTERM, _exit_on_sigterm)
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        try:
            self.close()
        finally:
            if self._previous_sigterm is not None:
                signal.signal(signal.SIGTERM, self._previous_sigterm)  # type: ignore[arg-type]


def _group_alive(group: int) -> bool:
    """Whether a process of process group ``group`` is alive (zombies are not).

    Not ``killpg(group, 0)`` alone: it succeeds while a zombie of the group is left, and
    where nobody reaps orphans (some containers' init) that is for ever.
    """
    proc = Path("/proc")
    if not proc.is_dir():
        try:
            os.killpg(group, 0)
        except (ProcessLookupError, PermissionError):
            return False
        return True
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue  # it ended while we looked
        # "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses.
        fields = stat.rsplit(")", 1)[-1].split()
        if len(fields) > 2 and fields[2] == str(group) and fields[0] not in ("Z", "X"):
            return True
    return False


def _wait_group(process: subprocess.Popen[bytes], group: int, timeout: float) -> bool:
    """Wait up to ``timeout`` s for every process of ``group`` to end; whether they did."""
    deadline = time.monotonic() + timeout
    while True:
        process.poll()  # reap the leader (ours): a zombie of ours is still ours to reap
        if not _group_alive(group):
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(_POLL_S)


def _exit_on_sigterm(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)
