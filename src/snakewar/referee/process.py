r"""A bot that runs as a child process and speaks a line protocol on stdin/stdout.

Game-agnostic: a line-based game's referee plays its uploaded bots through it. It
follows the conventions of the official engines of such games, with one exception: **no
shell**. A bot is a :class:`Program`, an argument list executed directly; a command line
typed on one's own machine (``"python3 MyBot.py"``) is split into words as a shell would
(quotes work) but never run by one, so ``&&``, ``;``, pipes, redirections and
``$VARIABLES`` are refused (put them in a script). A program may run in a sandbox
(:mod:`snakewar.referee.sandbox`).

* the program runs in its **own session and process group**, so
  :meth:`ProcessBot.kill` can ``SIGKILL`` the bot together with everything it started;
* a bot that writes two lines at once stays one line ahead: extra lines are queued and
  returned by later reads, as the engine does;
* every failure while reading is a value (:class:`LineResult` with a
  :class:`LineStatus`), never an exception, so a referee can turn it into a kill.

One deliberate improvement on the official engine: stderr is drained continuously into a
bounded buffer (the first and the last part are kept, the middle is counted), so a bot
that writes more than the 64 KiB pipe buffer to stderr does **not** block and time out.

    >>> import asyncio, sys
    >>> echo = "import sys; print('got', sys.stdin.readline().strip())"
    >>> async def demo() -> str:
    ...     bot = await ProcessBot.start(Program((sys.executable, "-c", echo)))
    ...     try:
    ...         await bot.send("hi\n")
    ...         return (await bot.read_line(5.0)).line
    ...     finally:
    ...         await bot.kill()
    >>> asyncio.run(demo())
    'got hi'
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import os
import re
import shlex
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import TYPE_CHECKING, Any

from snakewar.errors import EntrantError

if TYPE_CHECKING:
    from snakewar.referee.sandbox import SandboxPolicy, SandboxRun

__all__ = [
    "MAX_LINE_BYTES",
    "CommandLineError",
    "LineResult",
    "LineStatus",
    "ProcessBot",
    "Program",
    "split_command",
]

#: The longest line a bot may send (a line past this is a protocol failure, not a hang).
MAX_LINE_BYTES = 1 << 20
_CHUNK = 1 << 16


# A shell variable assignment: a name, then "=" (the value may be empty).
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_SHELL_WORDS = frozenset({"&&", "||", ";", "|", "&", ">", ">>", "<", "<<", "2>", "2>&1", "&>"})


class CommandLineError(EntrantError):
    """Raised for a bot command line that cannot be split into words, or needs a shell."""


def split_command(text: str) -> tuple[str, ...]:
    """The words of a command line, split as a shell would, for running without one.

    >>> split_command("python3 'My Bot.py' --fast")
    ('python3', 'My Bot.py', '--fast')

    Raises:
        CommandLineError: an unclosed quote, no words, or shell syntax.
    """
    try:
        words = tuple(shlex.split(text))
    except ValueError as exc:
        raise CommandLineError(f"bot command {text[:80]!r}: {exc}") from None
    if not words:
        raise CommandLineError("bot command is empty; expected a program and its arguments")
    for word in words:
        if word in _SHELL_WORDS or word.startswith(("$", "`")) or "$(" in word:
            raise CommandLineError(
                f"bot command {text[:80]!r}: {word!r} needs a shell, and bots run without "
                "one; put the command in a script and run the script"
            )
    return words


@dataclass(frozen=True, slots=True)
class Program:
    """How to start a bot: an argument list, run directly (never by a shell).

    Attributes:
        argv: the program and its arguments.
        cwd: its working directory (default: ours; inside a sandbox: its files).
        env: its environment (default: ours; inside a sandbox: a minimal one).
        sandbox: run it in a bubblewrap sandbox under this policy (``None``: not).
        files: the directory of the bot's own files (what a sandbox shows it).
    """

    argv: tuple[str, ...]
    cwd: str | None = None
    env: Mapping[str, str] | None = field(default=None, hash=False, compare=False)
    sandbox: SandboxPolicy | None = None
    files: str | None = None

    @classmethod
    def from_command(cls, text: str, cwd: str | None = None) -> Program:
        """A program from a command line typed by the machine's own user.

        Leading ``NAME=value`` words set environment variables for the program, as a
        shell does (``RUST_BACKTRACE=1 ./target/debug/my_bot``, as the official Rust
        kit's ``run_game.sh`` has it): the program inherits this process's environment
        with those added.

        Raises:
            CommandLineError: as :func:`split_command`, or assignments and no program.
        """
        words = split_command(text)
        count = 0
        while count < len(words) and _ASSIGNMENT.match(words[count]):
            count += 1
        if count == 0:
            return cls(words, cwd=cwd)
        if count == len(words):
            raise CommandLineError(
                f"bot command {text[:80]!r} sets variables but names no program to run"
            )
        added = dict(word.split("=", 1) for word in words[:count])
        return cls(words[count:], cwd=cwd, env={**os.environ, **added})

    def describe(self) -> str:
        """The command, quoted as a shell would show it (for messages and replays)."""
        return shlex.join(self.argv)


class LineStatus(enum.Enum):
    """How a read from a bot ended."""

    OK = "ok"
    TIMEOUT = "timeout"
    EOF = "eof"
    TOO_LONG = "too_long"
    ERROR = "error"


@dataclass(frozen=True, slots=True)
class LineResult:
    r"""One line read from a bot, or why none came.

    Attributes:
        status: ``OK`` when ``line`` holds a full line.
        line: the line without its newline and with every ``\r`` removed ("" unless OK).
        partial: text received without a newline yet (on a failure), ``\r`` removed.
        elapsed: seconds spent waiting in this read.
        detail: a short description of an ``ERROR`` (the OS error), else "".
    """

    status: LineStatus
    line: str = ""
    partial: str = ""
    elapsed: float = 0.0
    detail: str = ""

    @property
    def ok(self) -> bool:
        """Whether a full line arrived."""
        return self.status is LineStatus.OK


def _decode(data: bytes | bytearray) -> str:
    return bytes(data).decode("utf-8", errors="replace").replace("\r", "")


class _StderrBuffer:
    """Keeps the first and last ``limit / 2`` bytes of a stream and counts the rest."""

    __slots__ = ("dropped", "half", "head", "tail")

    def __init__(self, limit: int) -> None:
        self.half = max(1, limit // 2)
        self.head = bytearray()
        self.tail = bytearray()
        self.dropped = 0

    def add(self, data: bytes) -> None:
        room = self.half - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if not data:
            return
        self.tail += data
        excess = len(self.tail) - self.half
        if excess > 0:
            del self.tail[:excess]
            self.dropped += excess

    def text(self) -> str:
        if not self.dropped:
            return _decode(self.head + self.tail)
        return (
            _decode(self.head)
            + f"\n[... {self.dropped} bytes of stderr dropped ...]\n"
            + _decode(self.tail)
        )


class ProcessBot:
    """A running bot process; create it with :meth:`start`, end it with :meth:`kill`.

    Use it as an async context manager (``async with await ProcessBot.start(cmd) as bot``)
    or call :meth:`kill` in a ``finally``: the process group is killed and reaped even when
    the caller is cancelled.
    """

    def __init__(
        self,
        command: str,
        process: asyncio.subprocess.Process,
        stderr_limit: int,
        release: Any = None,
    ) -> None:
        self.command = command
        self._process = process
        self._release = release
        self._sandbox: SandboxRun | None = None
        if release is not None:
            from snakewar.referee.sandbox import SandboxRun

            self._sandbox = release if isinstance(release, SandboxRun) else None
        self._buffer = bytearray()
        self._eof = False
        self._killed = False
        self._stderr = _StderrBuffer(stderr_limit)
        self._stderr_task: asyncio.Task[None] | None = asyncio.get_running_loop().create_task(
            self._drain_stderr()
        )

    @classmethod
    async def start(
        cls,
        program: Program | Sequence[str] | str,
        *,
        cwd: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
        stderr_limit: int = 64 * 1024,
    ) -> ProcessBot:
        """Start ``program`` in a new session with piped stdin/stdout/stderr.

        Args:
            program: a :class:`Program`, an argument list, or a command line (split by
                :func:`split_command`).
            cwd: its working directory, if the program names none (default: ours).
            env: its environment, if the program names none (default: ours).
            stderr_limit: bytes of stderr kept (half from the start, half from the end).

        Raises:
            CommandLineError: a command line that cannot be split.
            SandboxError: a sandboxed program where no sandbox can be made.
            OSError: the program cannot be started (not found, a bad ``cwd``).
        """
        if isinstance(program, str):
            program = Program(split_command(program))
        elif not isinstance(program, Program):
            program = Program(tuple(program))
        argv: Sequence[str] = program.argv
        environment = program.env if program.env is not None else env
        options: dict[str, Any] = {
            "cwd": program.cwd or cwd,
            "env": dict(environment) if environment is not None else None,
        }
        release = None
        if program.sandbox is not None:
            from snakewar.referee.sandbox import prepare

            argv, options, release = prepare(program)
        try:
            process = await asyncio.create_subprocess_exec(
                *argv,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                start_new_session=True,
                **options,
            )
        except BaseException as exc:
            if release is not None:
                release()
            if release is not None and isinstance(exc, subprocess.SubprocessError):
                # Its cgroup, limits or user could not be set between fork and exec: the
                # bot never ran.  A sandbox that cannot be made, as far as callers go.
                from snakewar.referee.sandbox import SandboxError

                raise SandboxError(
                    f"cannot start bot {program.describe()[:80]!r} in its sandbox: {exc}"
                ) from exc
            raise
        return cls(program.describe(), process, stderr_limit, release)

    async def __aenter__(self) -> ProcessBot:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.kill()

    @property
    def pid(self) -> int:
        """The bot's process id (also the process group id)."""
        return self._process.pid

    @property
    def pgid(self) -> int:
        """The bot's process group id (the bot leads its own session)."""
        return self._process.pid

    @property
    def returncode(self) -> int | None:
        """The bot's exit status once it has been reaped, else ``None``."""
        return self._process.returncode

    @property
    def sandbox(self) -> SandboxRun | None:
        """The bot's sandbox (its cgroup, why it was killed), if it runs in one."""
        return self._sandbox

    @property
    def killed(self) -> bool:
        """Whether :meth:`kill` has run."""
        return self._killed

    async def _drain_stderr(self) -> None:
        stream = self._process.stderr
        assert stream is not None
        with contextlib.suppress(OSError, ValueError):
            while True:
                chunk = await stream.read(_CHUNK)
                if not chunk:
                    return
                self._stderr.add(chunk)

    async def send(self, text: str, timeout: float | None = None) -> str | None:
        """Write ``text`` to the bot's stdin and wait until it is flushed.

        Returns:
            ``None`` on success, else why the write failed (a broken pipe, a timeout
            while the bot does not read, or a bot already killed).
        """
        stdin = self._process.stdin
        if self._killed or stdin is None or stdin.is_closing():
            return "write failed: the bot's stdin is closed"
        try:
            stdin.write(text.encode())
            if timeout is None:
                await stdin.drain()
            else:
                await asyncio.wait_for(stdin.drain(), timeout)
        except TimeoutError:
            return f"write timed out after {round(timeout * 1000) if timeout else 0} ms"
        except (BrokenPipeError, ConnectionResetError) as exc:
            return f"write failed, errno was: {exc.errno} ({os.strerror(exc.errno or 0)})"
        except OSError as exc:  # any other pipe error: still the bot's fault, not ours
            return f"write failed: {exc}"
        return None

    def _take_line(self) -> str | None:
        index = self._buffer.find(b"\n")
        if index < 0:
            return None
        line = _decode(self._buffer[:index])
        del self._buffer[: index + 1]
        return line

    async def read_line(self, timeout: float | None) -> LineResult:
        """Read the next line, waiting at most ``timeout`` seconds (``None``: forever).

        A line already queued (the bot wrote ahead) is returned at once.
        """
        line = self._take_line()
        if line is not None:
            return LineResult(LineStatus.OK, line)
        start = time.perf_counter()
        deadline = None if timeout is None else start + timeout
        stdout = self._process.stdout
        assert stdout is not None
        while True:
            if self._eof:
                return self._failure(LineStatus.EOF, start)
            if len(self._buffer) > MAX_LINE_BYTES:
                return self._failure(LineStatus.TOO_LONG, start)
            try:
                if deadline is None:
                    chunk = await stdout.read(_CHUNK)
                else:
                    remaining = deadline - time.perf_counter()
                    if remaining <= 0:
                        return self._failure(LineStatus.TIMEOUT, start)
                    chunk = await asyncio.wait_for(stdout.read(_CHUNK), remaining)
            except TimeoutError:
                return self._failure(LineStatus.TIMEOUT, start)
            except (OSError, ValueError) as exc:
                return self._failure(LineStatus.ERROR, start, str(exc))
            if not chunk:
                self._eof = True
                continue
            newline = chunk.find(b"\n")
            self._buffer += chunk
            if newline >= 0:
                line = self._take_line()
                assert line is not None
                return LineResult(LineStatus.OK, line, elapsed=time.perf_counter() - start)

    def _failure(self, status: LineStatus, start: float, detail: str = "") -> LineResult:
        partial = _decode(self._buffer[:MAX_LINE_BYTES])
        return LineResult(
            status, partial=partial, elapsed=time.perf_counter() - start, detail=detail
        )

    async def kill(self) -> None:
        """``SIGKILL`` the bot's whole process group and reap it (idempotent).

        The stderr drain gets a moment to read what the bot left in the pipe.
        """
        if self._killed:
            return
        self._killed = True
        process = self._process
        try:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                # The group is gone or out of reach: signal the leader alone.  Not
                # ``process.kill()``: its Popen polls (waitpid) first, which can reap the
                # child under asyncio's child watcher, whose own waitpid then fails
                # ("Unknown child process pid N, will report returncode 255").  An
                # unreaped child keeps its pid, so os.kill cannot hit another process.
                if process.returncode is None:
                    with contextlib.suppress(ProcessLookupError, PermissionError):
                        os.kill(process.pid, signal.SIGKILL)
            if process.stdin is not None:
                process.stdin.close()
        finally:
            # Reap even when cancelled: shield it so no zombie or open pipe is left behind.
            try:
                await asyncio.shield(self._reap())
            finally:
                if self._release is not None:
                    release, self._release = self._release, None
                    release()

    async def _reap(self) -> None:
        process = self._process
        # Not ``process.wait()``: it also waits for every pipe to close, and a stdout the
        # bot flooded stays paused (never at EOF) once nobody reads it, so it can hang.
        # The exit status alone comes from the child watcher; SIGKILL makes it prompt.
        while process.returncode is None:
            await asyncio.sleep(0.005)
        stdout = process.stdout
        drains = [asyncio.get_running_loop().create_task(self._discard(stdout))]
        if self._stderr_task is not None:
            drains.append(self._stderr_task)
            self._stderr_task = None
        # A grandchild that left the group could hold a pipe open: do not hang on it.
        _, pending = await asyncio.wait(drains, timeout=1.0)
        for task in pending:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        # asyncio has no public close for a subprocess; its transport's close() releases
        # whatever pipe is still open (a no-op once all reached EOF).
        transport = getattr(process, "_transport", None)
        if transport is not None:
            transport.close()

    @staticmethod
    async def _discard(stream: asyncio.StreamReader | None) -> None:
        if stream is None:
            return
        with contextlib.suppress(OSError, ValueError):
            while await stream.read(_CHUNK):
                pass

    def stderr_text(self) -> str:
        """What the bot wrote to stderr so far (bounded; dropped bytes are counted).

        A sandbox that was killed for its memory or CPU time says so on a last line.
        """
        text = self._stderr.text()
        verdict = self._sandbox.verdict if self._sandbox is not None else None
        if verdict is not None:
            if text and not text.endswith("\n"):
                text += "\n"
            text += f"[sandbox] {verdict}\n"
        return text

    @property
    def stderr_dropped(self) -> int:
        """How many stderr bytes were dropped from the middle."""
        return self._stderr.dropped
