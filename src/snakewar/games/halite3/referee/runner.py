r"""Referee a Halite III game between real bots, as the official engine does.

An entrant is either a shell command (a bot process speaking the official protocol on
stdin/stdout, see :mod:`snakewar.referee.process`) or ``builtin:NAME[?opts]`` (a
built-in bot from :mod:`snakewar.games.halite3.bots`).  A built-in plays in a worker of the
``bots`` pool when one is given (:mod:`snakewar.referee.workers`: the official protocol's
text over a pipe, under the same deadlines, and a bot that overruns is killed), else
in-process with no text protocol (judged after it answers: it cannot be interrupted).

The referee follows the engine (spec §3, §5):

* the init message goes to every bot in parallel; each must answer its name (cut to 30
  characters) within 30 s.  A bot that does not is killed before turn 1, as the engine
  does (it never receives a frame; its error log has an ``Initialization Phase`` entry);
* each turn the same frame goes to every player not yet terminated, and each must answer
  one line within 2 s of the end of the write; a timeout, EOF or read failure kills it
  with the engine's wording (``timed out after 2000 ms (when reading string)``,
  ``communication error with bot: read failed, errno was: 0 (Success)``);
* killed bots are ``SIGKILL``\ ed at once (their stderr is kept), and the remaining bots
  are ``SIGKILL``\ ed when the game ends: bots are never told the game is over;
* the per-player error logs are the engine's: the game's warnings and errors, plus
  ``Bot error output was:`` with the bot's stderr when it is killed or the game ends.

The pure engine (:class:`~snakewar.games.halite3.HaliteGame`) never reads the clock; this
module does (the default seed, timeouts, ``execution_time``).
"""

from __future__ import annotations

import asyncio
import inspect
import sys
import time
import traceback
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from snakewar.errors import EntrantError, SnakewarError
from snakewar.games.halite3 import (
    NAME,
    Constants,
    HaliteGame,
    TurnOutcome,
    frame_text,
    init_text,
)
from snakewar.games.halite3.referee.log import ENDED, EngineLog, LogLevel
from snakewar.games.halite3.rules.commands import CommandParseError, parse_commands
from snakewar.referee.process import MAX_LINE_BYTES, LineResult, LineStatus, ProcessBot, Program

if TYPE_CHECKING:
    import os

    # The built-in bots and the worker pool are imported when a game has them: a game
    # of bot programs (``snakewar halite play``) starts without them.
    from snakewar.games.halite3.rules.snapshot import HaliteSnapshot
    from snakewar.referee.workers import BotPool, BotSeat, WorkerReply

__all__ = [
    "BUILTIN_PREFIX",
    "EOF_MESSAGE",
    "FAILED_NAME",
    "NAME_MAX_LENGTH",
    "HaliteEntrantError",
    "HaliteMatch",
    "check_bot",
    "last_error_line",
    "play_halite",
    "play_halite_sync",
]

BUILTIN_PREFIX = "builtin:"
#: The engine cuts bot names to this many characters.
NAME_MAX_LENGTH = 30
#: The engine's name for a player whose bot failed its initialization.
FAILED_NAME = "(failed to initialize)"
_RULE = "=" * 64
EOF_MESSAGE = "communication error with bot: read failed, errno was: 0 (Success)"
"""The engine's words for a bot whose output ended: it exited, or crashed."""

TurnCallback = Callable[[HaliteGame, TurnOutcome], Awaitable[None] | None]
"""Called (and awaited, if it returns an awaitable) after each turn."""
StartCallback = Callable[["HaliteMatch"], Awaitable[None] | None]
"""Called (and awaited) once the bots are initialized, before turn 1."""


class HaliteEntrantError(EntrantError):
    """An entrant that is neither a command nor a known ``builtin:NAME``."""


@dataclass
class HaliteMatch:
    """A finished game and what the referee saw of its bots.

    Attributes:
        game: the finished game (``game.result()`` has ranks and scores).
        names: each player's name (the bot's answer, or the ``names`` override);
            :data:`FAILED_NAME` for a bot that failed its initialization, as the engine.
        declared_names: each player's name before the overrides: what its bot answered
            (or :data:`FAILED_NAME`).
        entrants: the entrant strings, by player id.
        execution_time_ms: the game's wall time in ms (bots launched to bots killed),
            as the engine's ``execution_time`` (it excludes writing the replay).
        stderr: what each subprocess bot wrote to stderr (bounded), by player id.
        failures: why a bot was killed at the protocol level (timeout, EOF, ...), by id.
        failed_on: the turn of each protocol failure (0 = during init).
        error_logs: the engine-style error log text of every player ("" when none).
        turn_times: wall seconds of each turn, bots' replies included.
        init_time: wall seconds from launching the bots to the last name received.
        pgids: the process group id of each subprocess bot (all killed by the end).
        unfinished: what each bot that failed had sent of a line without ending it.
    """

    game: HaliteGame
    names: list[str]
    entrants: list[str]
    execution_time_ms: int
    stderr: dict[int, str] = field(default_factory=dict)
    failures: dict[int, str] = field(default_factory=dict)
    failed_on: dict[int, int] = field(default_factory=dict)
    error_logs: dict[int, str] = field(default_factory=dict)
    turn_times: list[float] = field(default_factory=list)
    init_time: float = 0.0
    pgids: dict[int, int] = field(default_factory=dict)
    declared_names: list[str] = field(default_factory=list)
    unfinished: dict[int, str] = field(default_factory=dict)

    @property
    def failed_to_initialize(self) -> set[int]:
        """The players whose bot failed its initialization (killed before turn 1)."""
        return {pid for pid, turn in self.failed_on.items() if turn == 0}


# -- seats: one per player --------------------------------------------------------------


class _Seat(ABC):
    """A player's connection: a subprocess or an in-process bot."""

    name = ""
    #: What the bot had written of a line when it failed (the engine logs it).
    partial = ""

    @abstractmethod
    async def init(self, game: HaliteGame, pid: int, timeout: float | None) -> str | None:
        """Send the init; return ``None`` and set :attr:`name`, or the failure message."""

    @abstractmethod
    async def kill(self) -> None:
        """Stop the bot (idempotent)."""

    def stderr_text(self) -> str:
        return ""


class _ProcessSeat(_Seat):
    def __init__(self, bot: ProcessBot) -> None:
        self.bot = bot

    async def init(self, game: HaliteGame, pid: int, timeout: float | None) -> str | None:
        reply = await self._exchange(init_text(game, pid), timeout)
        if isinstance(reply, str):
            return reply
        self.name = reply.line[:NAME_MAX_LENGTH]
        return None

    async def turn(self, frame: str, timeout: float | None) -> LineResult | str:
        return await self._exchange(frame, timeout)

    async def _exchange(self, text: str, timeout: float | None) -> LineResult | str:
        """Write ``text`` and read one line: the line, or the engine-worded failure."""
        problem = await self.bot.send(text, timeout)
        if problem is not None:
            return f"communication error with bot: {problem}"
        # The timeout runs from the end of the write, as the engine's does.
        reply = await self.bot.read_line(timeout)
        if reply.status is LineStatus.OK:
            return reply
        self.partial = reply.partial
        return _failure_message(reply, timeout)

    async def kill(self) -> None:
        await self.bot.kill()

    def stderr_text(self) -> str:
        return self.bot.stderr_text()


class _DeadSeat(_Seat):
    """A program that could not be started: it fails to initialize, as if it exited."""

    def __init__(self, error: str) -> None:
        self.error = error

    async def init(self, game: HaliteGame, pid: int, timeout: float | None) -> str | None:
        del game, pid
        return _failure_message(LineResult(LineStatus.EOF), timeout)

    async def kill(self) -> None:
        """Nothing runs."""

    def stderr_text(self) -> str:
        return self.error


def _failure_message(reply: LineResult, timeout: float | None) -> str:
    if reply.status is LineStatus.TIMEOUT:
        ms = round((timeout or 0.0) * 1000)
        return f"timed out after {ms} ms (when reading string)"
    if reply.status is LineStatus.EOF:
        return EOF_MESSAGE
    if reply.status is LineStatus.TOO_LONG:
        return f"communication error with bot: line longer than {MAX_LINE_BYTES} bytes"
    return f"communication error with bot: read failed ({reply.detail})"


class _InProcessSeat(_Seat):
    def __init__(self, bot: Any) -> None:
        self.bot = bot
        self.view: Any = None
        self.errors = ""

    async def init(self, game: HaliteGame, pid: int, timeout: float | None) -> str | None:
        from snakewar.games.halite3.bots.kit import view_from_game

        start = time.perf_counter()
        try:
            self.view = view_from_game(game, pid)
            self.bot.setup(self.view)
            name = str(self.bot.name).replace("\r", "").split("\n", 1)[0]
        except Exception:  # a crashing built-in is a crashed bot, not a referee error
            self.errors += traceback.format_exc()
            return EOF_MESSAGE
        if timeout is not None and time.perf_counter() - start > timeout:
            return f"timed out after {round(timeout * 1000)} ms (when reading string)"
        self.name = name[:NAME_MAX_LENGTH]
        return None

    def turn(self, game: HaliteGame, timeout: float | None, update: Any) -> str | None:
        """This turn's line, or ``None`` with :attr:`last_failure` set."""
        start = time.perf_counter()
        try:
            update(self.view, game)
            line = " ".join(self.bot.turn(self.view))
        except Exception:
            self.errors += traceback.format_exc()
            self.last_failure = EOF_MESSAGE
            return None
        # An in-process bot cannot be interrupted: one that overran is judged afterwards.
        if timeout is not None and time.perf_counter() - start > timeout:
            self.last_failure = f"timed out after {round(timeout * 1000)} ms (when reading string)"
            return None
        return line

    last_failure = ""

    async def kill(self) -> None:
        """Nothing to stop: the bot runs in this process and holds no resources."""

    def stderr_text(self) -> str:
        return self.errors


class _WorkerSeat(_Seat):
    """A built-in bot in a :class:`BotPool` worker, fed the official protocol's text."""

    def __init__(self, pool: BotPool, spec: str, seed: int) -> None:
        self.pool = pool
        self.spec = spec
        self.seed = seed
        self.seat: BotSeat | None = None
        self.errors = ""

    async def init(self, game: HaliteGame, pid: int, timeout: float | None) -> str | None:
        from snakewar.referee.workers import WorkerBusyError

        started = time.perf_counter()
        try:
            self.seat = await self.pool.bind(NAME, self.spec, seed=self.seed, wait_s=timeout)
        except WorkerBusyError as exc:
            # No worker within the init's time: the bot never answered its name.
            self.errors += f"{exc}\n"
            return _timed_out(timeout)
        except SnakewarError as exc:
            self.errors += f"{exc}\n"
            return EOF_MESSAGE
        left = None if timeout is None else max(timeout - (time.perf_counter() - started), 0.0)
        reply = await self.seat.call("init", init_text(game, pid), left)
        failure = self._failure(reply, timeout)
        if failure is not None:
            return failure
        name = str(reply.value).replace("\r", "").split("\n", 1)[0]
        self.name = name[:NAME_MAX_LENGTH]
        return None

    async def turn(self, frame: str, timeout: float | None) -> LineResult | str:
        """This turn's line, or the engine-worded failure (a timeout kills the worker)."""
        if self.seat is None:
            return EOF_MESSAGE
        reply = await self.seat.call("turn", frame, timeout)
        failure = self._failure(reply, timeout)
        if failure is not None:
            return failure
        return LineResult(LineStatus.OK, line=str(reply.value), elapsed=reply.latency_ms / 1000)

    def _failure(self, reply: WorkerReply, timeout: float | None) -> str | None:
        if reply.status == "timeout":
            return _timed_out(timeout)
        if reply.status == "error":
            self.errors += reply.trace or f"{reply.error}\n"
            return EOF_MESSAGE
        if reply.status == "gone":
            self.errors += f"{reply.error}\n"
            return EOF_MESSAGE
        return None

    async def kill(self) -> None:
        """Give the worker back (killed if a call was cut off); the bot is done."""
        seat, self.seat = self.seat, None
        if seat is not None:
            await seat.release()

    def stderr_text(self) -> str:
        return self.errors


def _timed_out(timeout: float | None) -> str:
    return f"timed out after {round((timeout or 0.0) * 1000)} ms (when reading string)"


def _make_builtin(entrant: str, seed: int) -> Any:
    from snakewar.games.halite3.bots import make_halite_bot

    return make_halite_bot(entrant[len(BUILTIN_PREFIX) :], seed=seed)


# -- the game ----------------------------------------------------------------------------


async def play_halite(
    entrants: Sequence[str | Program],
    *,
    seed: int | None = None,
    width: int | None = None,
    height: int | None = None,
    map_players: int | None = None,
    constants: Constants | None = None,
    turn_limit: int | None = None,
    timeouts: bool = True,
    turn_timeout: float = 2.0,
    init_timeout: float = 30.0,
    cwd: str | os.PathLike[str] | None = None,
    names: Sequence[str] | None = None,
    on_turn: TurnCallback | None = None,
    bots: BotPool | None = None,
    log: EngineLog | None = None,
    on_start: StartCallback | None = None,
    snapshot: HaliteSnapshot | None = None,
) -> HaliteMatch:
    """Play one Halite III game between ``entrants`` and return it with the bots' record.

    Args:
        entrants: one per player: a :class:`~snakewar.referee.process.Program` (a
            sandboxed upload, an operator's argv), ``builtin:NAME[?opts]``, or a
            command line of this machine's user (split into words, never run by a shell;
            leading ``NAME=value`` words set its environment).
        seed: the map seed (``-s``); ``None`` takes the clock's seconds, as the engine.
        width: map width (``--width``); by default the size the seed picks.
        height: map height (``--height``).
        map_players: build the map for this many players (``-n``).
        constants: constants (``-c``); the official ones by default.
        turn_limit: ``--turn-limit`` (0: the game ends before its first turn, as there).
        timeouts: ``False`` is ``--no-timeout``: wait for bots forever.
        turn_timeout: seconds per turn, from the end of the frame's write.
        init_timeout: seconds to answer the name after the init.
        cwd: working directory for subprocess bots.
        names: name overrides (``-o``), applied in player order after the game.
        on_turn: called after each turn with the game and the turn's outcome; an
            awaitable it returns is awaited before the next turn (a server stores the
            turn's frame there).
        bots: play the built-in bots in this pool's workers (default: in-process).
        log: write the engine's console log of the game here, from ``Map seed is`` to
            ``Game has ended`` (default: none).
        on_start: called with the match once every bot answered its name or failed
            its initialization, before turn 1 (``match.failed_to_initialize`` is
            known; ``match.names`` are the bots' own); awaited likewise.
        snapshot: start from this snapshot (``--from-snapshot``, see
            :mod:`snakewar.games.halite3.rules.snapshot`): its map, players, ships and
            dropoffs; ``seed``, ``width``, ``height`` and ``map_players`` are then unused.

    Raises:
        HaliteEntrantError: no entrants, or an empty entrant.
        SnakewarError: an unknown built-in bot, or a map that cannot be made
            (:class:`~snakewar.games.halite3.MapError`, ``HaliteError``).
        OSError: a bot's shell cannot be started.
    """
    if not entrants:
        raise HaliteEntrantError("a game needs at least 1 bot, got none")
    if seed is None:
        seed = int(time.time())
    if snapshot is not None:
        from snakewar.games.halite3.rules.mapgen import size_for_seed
        from snakewar.games.halite3.rules.snapshot import game_from_snapshot

        # The constants' default size is the one the command line's seed picks.
        game = game_from_snapshot(
            snapshot,
            len(entrants),
            constants=constants,
            turn_limit=turn_limit,
            default_size=size_for_seed(seed & 0xFFFFFFFF),
        )
    else:
        game = HaliteGame.create(
            seed,
            len(entrants),
            width=width,
            height=height,
            map_players=map_players,
            constants=constants,
            turn_limit=turn_limit,
        )
    seats: list[_Seat] = []
    console = _Console(log, seats)
    # Build every built-in and split every command first: a bad one fails before any
    # process is started.
    builtins: dict[int, Any] = {}
    programs: dict[int, Program] = {}
    for pid, entrant in enumerate(entrants):
        if isinstance(entrant, Program):
            programs[pid] = entrant
        elif not entrant.strip():
            raise HaliteEntrantError(f"entrant {pid} is empty; expected a command or builtin:NAME")
        elif entrant.startswith(BUILTIN_PREFIX):
            builtins[pid] = _make_builtin(entrant, game.seed)
        else:
            programs[pid] = Program.from_command(entrant, str(cwd) if cwd is not None else None)

    console.log.log(f"Map seed is {game.seed}")
    turn_limit_s = turn_timeout if timeouts else None
    init_limit_s = init_timeout if timeouts else None
    shown = [e.describe() if isinstance(e, Program) else e for e in entrants]
    match = HaliteMatch(game=game, names=[""] * len(entrants), entrants=shown,
                        execution_time_ms=0)  # fmt: skip
    start = time.perf_counter()
    try:
        for pid, entrant in enumerate(entrants):
            console.log.log(f"Launching with command {shown[pid]}", player=pid)
            if pid in builtins and bots is not None:
                assert isinstance(entrant, str)  # a built-in is named by its text
                seats.append(_WorkerSeat(bots, entrant[len(BUILTIN_PREFIX) :], game.seed))
                continue
            if pid in builtins:
                seats.append(_InProcessSeat(builtins[pid]))
                continue
            try:
                process = await ProcessBot.start(programs[pid], cwd=cwd)
            except OSError as exc:
                # A program that cannot start (not found, not executable) fails its
                # initialization, as one that exits at once: the game goes on.
                seats.append(_DeadSeat(f"{type(exc).__name__}: {exc}"))
                continue
            seats.append(_ProcessSeat(process))
            match.pgids[pid] = process.pgid
        console.initializing(game, len(seats))
        init_failures = await _initialize(game, seats, init_limit_s)
        match.init_time = time.perf_counter() - start
        for pid, seat in enumerate(seats):
            match.names[pid] = seat.name
        for pid, why in init_failures.items():
            match.names[pid] = FAILED_NAME
            match.failures[pid] = why
            match.failed_on[pid] = 0
            if seats[pid].partial:
                match.unfinished[pid] = seats[pid].partial
            await seats[pid].kill()
        console.initialized(seats, init_failures)
        if on_start is not None:
            await _maybe_await(on_start(match))
        if game.max_turns == 0:
            # --turn-limit 0: the engine's turn loop runs no turn.
            game.end_without_turns(init_failures)
        else:
            await _run_turns(game, seats, match, init_failures, turn_limit_s, on_turn, console)
        console.log.log("Game has ended")
        console.log.turn = ENDED
    finally:
        await asyncio.gather(*(seat.kill() for seat in seats), return_exceptions=True)
        match.execution_time_ms = round((time.perf_counter() - start) * 1000)
        for pid, seat in enumerate(seats):
            text = seat.stderr_text()
            if text:
                match.stderr[pid] = text
    match.declared_names = list(match.names)
    if names:
        for pid, name in enumerate(names[: len(entrants)]):
            match.names[pid] = name
    match.error_logs = _error_logs(game, match, set(init_failures))
    return match


async def _initialize(
    game: HaliteGame, seats: list[_Seat], timeout: float | None
) -> dict[int, str]:
    """Send every init in parallel; return the failure message of each bot that failed."""
    results = await asyncio.gather(
        *(seat.init(game, pid, timeout) for pid, seat in enumerate(seats))
    )
    return {pid: why for pid, why in enumerate(results) if why is not None}


async def _run_turns(
    game: HaliteGame,
    seats: list[_Seat],
    match: HaliteMatch,
    init_failures: dict[int, str],
    timeout: float | None,
    on_turn: TurnCallback | None,
    console: _Console,
) -> None:
    # Subprocesses and workers answer text over pipes, all at once.
    process_seats = [
        (pid, s) for pid, s in enumerate(seats) if isinstance(s, _ProcessSeat | _WorkerSeat)
    ]
    local_seats = [(pid, s) for pid, s in enumerate(seats) if isinstance(s, _InProcessSeat)]
    if local_seats:
        from snakewar.games.halite3.bots.kit import update_view_from_game
    players = game.players
    # Bots that failed init are killed before turn 1 by the engine; the pure engine
    # kills them on turn 1 when given no line, with the same statistics.
    pending_failures = dict(init_failures)
    perf = time.perf_counter
    while not game.over:
        turn_start = perf()
        console.starting_turn(game)
        commands: dict[int, str | None] = {}
        failures: dict[int, str] = {}
        for pid, why in pending_failures.items():
            commands[pid] = None
            failures[pid] = why
        live_procs = [(pid, s) for pid, s in process_seats
                      if not players[pid].terminated and pid not in commands]  # fmt: skip
        if live_procs:
            frame = frame_text(game)
            replies = await asyncio.gather(*(s.turn(frame, timeout) for _, s in live_procs))
            for (pid, _), reply in zip(live_procs, replies, strict=True):
                if isinstance(reply, str):
                    commands[pid] = None
                    failures[pid] = reply
                    match.failures[pid] = reply
                    match.failed_on[pid] = game.turn + 1
                    if seats[pid].partial:
                        match.unfinished[pid] = seats[pid].partial
                else:
                    commands[pid] = reply.line
        for pid, seat in local_seats:
            if players[pid].terminated or pid in commands:
                continue
            line = seat.turn(game, timeout, update_view_from_game)
            commands[pid] = line
            if line is None:
                failures[pid] = seat.last_failure
                match.failures[pid] = seat.last_failure
                match.failed_on[pid] = game.turn + 1
        console.exchanged(game, commands, pending_failures)
        could_play = {p.id for p in players if not p.terminated and p.can_play}
        unfinished = {pid: seats[pid].partial for pid in failures if pid not in pending_failures}
        outcome = game.step(commands, failures, unfinished)
        for pid in outcome.killed:
            await seats[pid].kill()
        console.turn_played(game, outcome, commands, pending_failures, could_play)
        pending_failures = {}
        match.turn_times.append(perf() - turn_start)
        if on_turn is not None:
            await _maybe_await(on_turn(game, outcome))


async def _maybe_await(value: Awaitable[None] | None) -> None:
    if inspect.isawaitable(value):
        await value


class _Console:
    """What the engine logs while it plays, in its words and order (to ``play_halite``'s log).

    The engine's threads log some lines as they happen (a bot's failure while others
    still answer); here each step's lines come in player order once the step is done.
    """

    def __init__(self, log: EngineLog | None, seats: list[_Seat]) -> None:
        # No log: a disabled one, which writes nothing (and builds no line).
        self.log = log if log is not None else EngineLog(sys.stderr, enabled=False)
        #: The game's seats, by player id (filled as the bots are started).
        self.seats = seats

    def initializing(self, game: HaliteGame, players: int) -> None:
        log = self.log
        for pid in range(players):
            log.log("Initializing player", player=pid)
        if log.wants(LogLevel.DEBUG):
            for pid in range(players):
                size = len(init_text(game, pid).encode())
                log.log("Sending init message", LogLevel.DEBUG, pid)
                log.log(f"Sending message with length {size}", LogLevel.DEBUG)
                log.log("Init message sent", LogLevel.DEBUG, pid)

    def initialized(self, seats: list[_Seat], failures: dict[int, str]) -> None:
        log = self.log
        for pid, seat in enumerate(seats):
            if pid in failures:
                log.log("Failed to initialize", LogLevel.ERROR, pid)
                self.bot_error(pid, seat, seat.partial)
            else:
                log.log(f"Init message received, name: {seat.name}", LogLevel.DEBUG, pid)
        for pid, seat in enumerate(seats):
            if pid in failures:
                log.log("Killing player", LogLevel.WARNING, pid)
            else:
                log.log(f"Initialized player {seat.name}", player=pid)
        log.log("Player initialization complete")

    def starting_turn(self, game: HaliteGame) -> None:
        self.log.turn = game.turn + 1
        self.log.log(f"Starting turn {game.turn + 1}", LogLevel.DEBUG)

    def exchanged(
        self, game: HaliteGame, commands: dict[int, str | None], skipped: dict[int, str]
    ) -> None:
        """The debug lines of a turn's frames and answers."""
        log = self.log
        if not log.wants(LogLevel.DEBUG):
            return
        size = len(frame_text(game).encode())
        for pid in sorted(commands):
            if pid in skipped:
                continue  # failed its initialization: never sent a frame
            log.log(f"Sending message with length {size}", LogLevel.DEBUG)
            log.log("Turn info sent", LogLevel.DEBUG, pid)
            line = commands[pid]
            if line is None:
                continue
            try:
                count = len(parse_commands(line))
            except CommandParseError:
                continue
            log.log(f"Received {count} commands", LogLevel.DEBUG, pid)

    def turn_played(
        self,
        game: HaliteGame,
        outcome: TurnOutcome,
        commands: dict[int, str | None],
        skipped: dict[int, str],
        could_play: set[int],
    ) -> None:
        """A turn's lines: failed bots, command errors and warnings, kills, the abort."""
        log = self.log
        if not log.enabled:
            return
        seats = self.seats
        killed = set(outcome.killed)
        handled: set[int] = set()
        for pid in sorted(killed):
            line = commands.get(pid)
            if pid in skipped:
                handled.add(pid)  # failed its initialization: logged then
            elif line is None:
                handled.add(pid)
                self.communication_failed(pid, "\n" + seats[pid].partial)
            elif pid not in outcome.errors or _is_parse_error(outcome.errors[pid]):
                handled.add(pid)
                self.communication_failed(pid, line + "\n")
        # The commands' errors and warnings, then the players killed for their errors.
        for pid in sorted(outcome.errors):
            if pid in handled:
                continue
            for level, message in _entries(outcome.errors[pid]):
                log.log(message, LogLevel.ERROR if level == "error" else LogLevel.WARNING, pid)
        for pid in sorted(killed - handled):
            log.log("Killing player", LogLevel.WARNING, pid)
        # Under --strict an error of a player that is not killed for it (an unaffordable
        # move, an own collision) ends the game.
        offenders = sorted(set(outcome.errors) - killed)
        if game.constants.STRICT_ERRORS and offenders:
            ids = ", ".join(str(pid) for pid in offenders)
            log.log(
                f"Command processing failed for players: {ids}, aborting due to strict error check",
                LogLevel.ERROR,
            )
        for player in game.players:
            if player.id in could_play and not player.terminated and not player.can_play:
                log.log("player has insufficient resources to continue", player=player.id)

    def communication_failed(self, pid: int, received: str) -> None:
        """A bot that failed to answer, or answered what is not commands: it is killed."""
        log = self.log
        log.log("Communication failed", LogLevel.ERROR, pid)
        self.bot_error(pid, self.seats[pid], received)
        log.log("Killing player", LogLevel.WARNING, pid)

    def bot_error(self, pid: int, seat: _Seat, received: str) -> None:
        """What the bot last sent and what it wrote to stderr (the engine's words)."""
        if received:
            self.log.log_lines("Last input received was:\n" + received, pid)
        errors = seat.stderr_text()
        if errors:
            self.log.log_lines("Player's error output was:\n" + errors, pid)


def _entries(text: str) -> list[tuple[str, str]]:
    """The ``(level, message)`` of each entry of a turn's error log section.

    Every entry starts with ``error: `` or ``warning: `` at the start of a line; the
    lines after it are context (the commands around it), never bot text, except the
    line after ``Last input received was:`` of an unparsable line, which is skipped.
    """
    entries: list[tuple[str, str]] = []
    skip = False
    for line in text.split("\n"):
        if skip:
            skip = False
            continue
        if line == "Last input received was:":
            skip = True
            continue
        for level in ("error", "warning"):
            if line.startswith(f"{level}: "):
                entries.append((level, line[len(level) + 2 :]))
    return entries


def _is_parse_error(text: str) -> bool:
    """Whether a turn's error log section is that of an unparsable line."""
    return "\nLast input received was:\n" in text


def _error_logs(game: HaliteGame, match: HaliteMatch, init_failed: set[int]) -> dict[int, str]:
    """Each player's error log as the engine writes it (empty when nothing was logged)."""
    logs: dict[int, str] = {}
    for player in game.players:
        pid = player.id
        stderr = match.stderr.get(pid, "")
        if pid in init_failed:
            text = f"\nInitialization Phase\n{_RULE}\nerror: {match.failures[pid]}\n"
            if match.unfinished.get(pid):
                text += f"Last input received was:\n{match.unfinished[pid]}\n"
        else:
            text = game.error_logs.get(pid, "")
        if stderr:
            if player.terminated:
                # The kill's turn is the log's last section: the engine adds it there.
                text += f"Bot error output was:\n{stderr}\n"
            else:
                # Bots alive at the end are killed after the game, under "Game End".
                text += f"\nGame End\n{_RULE}\nBot error output was:\n{stderr}\n"
        logs[pid] = text
    return logs


def last_error_line(stderr: str, limit: int = 200) -> str:
    """The last line a bot wrote to stderr, cut to ``limit`` characters.

    Most often it says why the bot stopped (``python3: can't open file 'MyBot.py'``,
    an exception's last line).
    """
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    return lines[-1][:limit] if lines else ""


async def check_bot(entrant: str | Program, *, init_timeout: float = 30.0) -> str | None:
    """Start a bot program and play its initialization, as a game's first step does.

    ``None`` when it answered its name in time; else why not, in one line: the engine's
    words and the last line the bot wrote to stderr.  The bot is killed either way.
    """
    program = entrant if isinstance(entrant, Program) else Program.from_command(entrant)
    game = HaliteGame.create(1, 2, width=32, height=32)
    try:
        bot = await ProcessBot.start(program)
    except OSError as exc:
        return f"cannot start {program.describe()!r}: {type(exc).__name__}: {exc}"
    seat = _ProcessSeat(bot)
    try:
        why = await seat.init(game, 0, init_timeout)
    finally:
        await seat.kill()
    if why is None:
        return None
    said = last_error_line(seat.stderr_text())
    return f"failed to initialize: {why}" + (f"; its stderr: {said}" if said else "")


def play_halite_sync(entrants: Sequence[str | Program], **options: Any) -> HaliteMatch:
    """:func:`play_halite` in a fresh event loop (for scripts and worker processes)."""
    return asyncio.run(play_halite(entrants, **options))
