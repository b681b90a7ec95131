"""The referee: plays one game between snakes, the way the official engine does.

1. ``GET /`` every snake (done by :func:`connect`, once, before any game; API v0
   snakes get ``POST /ping``, legacy ones are only checked to answer).
2. Set up the board from the seed; ``POST /start`` to every snake, in parallel.
3. Each turn: ``POST /move`` to every alive snake in parallel (or one after the
   other with ``sequential``), each bounded by the timeout; a snake that fails in
   any way plays its last valid move (``up`` at first), as the official engine does,
   and the failure is recorded.  Shouts are relayed to everyone on the next turn.
4. ``POST /end`` to every snake with the final state.

Unlike the official CLI, the referee knows the game is over *before* asking for
moves, so no ``/move`` round is wasted after the decisive turn.
"""

from __future__ import annotations

import asyncio
import inspect
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any, ParamSpec

import httpx

from snakewar.errors import EntrantError
from snakewar.games.battlesnake.bots import bot_names, make_bot
from snakewar.games.battlesnake.records import (
    CallOutcome,
    CallStatus,
    GameRecord,
    SnakeEntry,
    TimingRules,
    TurnRecord,
    derive_ids,
)
from snakewar.games.battlesnake.referee.clients import (
    HttpSnakeClient,
    InProcessClient,
    LegacySnakeClient,
    SnakeClient,
    SnakeUnreachableError,
    V0SnakeClient,
    check_url,
)
from snakewar.games.battlesnake.referee.human import HUMAN, HumanClient, is_human
from snakewar.games.battlesnake.referee.workers import WorkerClient
from snakewar.games.battlesnake.rules.game import Game, GameConfig
from snakewar.games.battlesnake.rules.types import BoardState
from snakewar.games.battlesnake.rules.wire import (
    MAX_SHOUT_LENGTH,
    GameInfo,
    SnakeInfo,
    SnakeRequest,
    api_game_source,
    api_ruleset_version,
)
from snakewar.referee.transcript import Exchange, body_text, capturing, dumps
from snakewar.referee.workers import BotPool

__all__ = [
    "DUPLICATE_COLORS",
    "CallsCallback",
    "ConnectedSnake",
    "GameReferee",
    "RefereeHooks",
    "RefereeOptions",
    "SnakeSpecError",
    "StartCallback",
    "TurnCallback",
    "canonical_source",
    "close_clients",
    "connect",
    "default_snake_name",
    "distinct_builtin_colors",
    "make_client",
    "play_game",
    "snake_kind",
]

TurnCallback = Callable[[GameRecord, TurnRecord], Awaitable[None] | None]
"""Called after every turn (e.g. to draw it, store it or stream it)."""
StartCallback = Callable[[GameRecord], Awaitable[None] | None]
"""Called once the board is set up, before ``/start``."""
CallsCallback = Callable[[int, list[dict[str, object]]], Awaitable[None] | None]
"""Called with a turn's calls as JSON records (see :func:`play_game`'s ``on_calls``)."""


P = ParamSpec("P")

DUPLICATE_COLORS = (
    "#1e88e5",
    "#fb8c00",
    "#8e24aa",
    "#00acc1",
    "#fdd835",
    "#6d4c41",
    "#d81b60",
    "#3949ab",
    "#7cb342",
    "#00897b",
    "#f4511e",
    "#5e35b1",
    "#c0ca33",
    "#546e7a",
    "#ffb300",
    "#039be5",
)
"""Colours given, in this order, to built-in bots whose own colour is already taken.

Sixteen (the most snakes a game has), none a built-in bot's own colour, so that every
snake of a game can be told apart whatever the built-ins are.
"""


class SnakeSpecError(EntrantError):
    """Raised for a snake argument that is neither a built-in bot nor a URL."""


def snake_kind(spec: str) -> tuple[str, str]:
    """Classify a snake argument: ``("builtin"|"http"|"v0"|"legacy2017"|"legacy2018", target)``.

    Accepted forms: ``human`` or ``human?timeout=MS`` (a person at the keyboard:
    ``("human", "")``, ``("human", "timeout=MS")``),
    ``builtin:NAME[?options]`` (or a bare built-in name),
    ``http(s)://...``, ``v0:URL`` for snakes written for API v0 (2019 to mid-2020),
    and ``legacy:URL`` / ``legacy2018:URL`` / ``legacy2017:URL`` for snakes written
    for the 2017/2018 APIs.

    Raises:
        SnakeSpecError: for anything else.
    """
    for prefix, kind in (
        ("legacy2017:", "legacy2017"),
        ("legacy2018:", "legacy2018"),
        ("legacy:", "legacy2018"),
        ("v0:", "v0"),
    ):
        if spec.startswith(prefix):
            return kind, spec[len(prefix) :]
    if spec.startswith(("http://", "https://")):
        return "http", spec
    if is_human(spec):
        return "human", spec[len(HUMAN) + 1 :]
    name = spec.removeprefix("builtin:")
    if spec.startswith("builtin:") or name.partition("?")[0] in bot_names():
        return "builtin", name
    raise SnakeSpecError(
        f"snake {spec!r}: expected a URL (http://...), builtin:NAME "
        f"(one of {', '.join(bot_names())}), v0:URL, legacy:URL or human"
    )


def make_client(
    spec: str,
    http: httpx.AsyncClient,
    timeout_ms: int,
    bots: BotPool | None = None,
    human: HumanClient | None = None,
) -> SnakeClient:
    """Build the client for one snake argument (see :func:`snake_kind`).

    ``human`` is the client ``human`` plays through (the keys of a terminal or of
    the browser's page); a game without one refuses ``human``.

    A built-in bot plays in a worker of ``bots``
    (:class:`~snakewar.games.battlesnake.referee.workers.WorkerClient`) when a pool is
    given, else in this process (:class:`InProcessClient`).  Either way,
    :func:`close_clients` ends it.

    Raises:
        SnakeSpecError: for an unusable argument.
        UnknownBotError: for an unknown built-in bot.
        SnakeURLError: for a URL outside the grammar of
        :func:`~snakewar.games.battlesnake.referee.clients.check_url`.
    """
    kind, target = snake_kind(spec)
    if kind == "human":
        if human is None:
            raise SnakeSpecError(
                "snake 'human': a person plays it from a terminal (snakewar play human ...) "
                "or the browser (snakewar play human ... --browser)"
            )
        return human
    if kind == "builtin":
        if bots is not None:
            return WorkerClient(bots, target, timeout_ms)
        return InProcessClient(make_bot(target), f"builtin:{target}", timeout_ms)
    if kind == "http":
        return HttpSnakeClient(target, http, timeout_ms)
    if kind == "v0":
        return V0SnakeClient(target, http, timeout_ms)
    check_url(target)
    return LegacySnakeClient(target, http, timeout_ms, api=int(kind[-4:]))


@dataclass(frozen=True, slots=True)
class ConnectedSnake:
    """A snake whose metadata is known, ready to play."""

    client: SnakeClient
    name: str
    metadata_author: str
    color: str
    head: str
    tail: str
    version: str
    apiversion: str
    named: bool = True
    """Whether the user named it; else a 2017/2018 snake's ``/start`` reply may."""


async def connect(
    specs: Sequence[str],
    names: Sequence[str],
    http: httpx.AsyncClient,
    timeout_ms: int = 500,
    bots: BotPool | None = None,
    human: HumanClient | None = None,
) -> list[ConnectedSnake]:
    """Build a client for every snake and fetch its metadata (in parallel).

    Unnamed snakes are called after their source: the bot name or the URL's host.
    Copies of a built-in bot get distinct colours (:func:`distinct_builtin_colors`).
    Built-in bots play in workers of ``bots`` if given (see :func:`make_client`); the
    caller ends the game's clients with :func:`close_clients`.  ``human`` plays the
    seat named ``human`` (one at most: one keyboard).

    Raises:
        SnakeSpecError, UnknownBotError: for a bad argument.
        SnakeUnreachableError: if a snake cannot be reached; names the first one.
    """
    if len(names) > len(specs):
        raise SnakeSpecError(f"{len(names)} names given for {len(specs)} snakes")
    if sum(is_human(spec) for spec in specs) > 1:
        raise SnakeSpecError("one 'human' a game: a person has one keyboard")
    clients = [make_client(spec, http, timeout_ms, bots, human) for spec in specs]
    metas = await asyncio.gather(*(c.info() for c in clients), return_exceptions=True)
    failed = [m for m in metas if isinstance(m, BaseException)]
    if failed:
        # Workers bound by the snakes that did answer go back to the pool.
        await close_clients(clients)
    out: list[ConnectedSnake] = []
    for i, (client, meta) in enumerate(zip(clients, metas, strict=True)):
        if isinstance(meta, BaseException):
            if isinstance(meta, SnakeUnreachableError):
                raise meta
            raise SnakeUnreachableError(f"snake {client.source}: {meta}") from meta
        name = (
            names[i]
            if i < len(names) and names[i]
            else f"{default_snake_name(client.source)}-{i + 1}"
        )
        out.append(
            ConnectedSnake(
                client,
                name,
                meta.author,
                meta.color,
                meta.head,
                meta.tail,
                meta.version,
                meta.apiversion,
                named=i < len(names) and bool(names[i]),
            )
        )
    return distinct_builtin_colors(out)


def distinct_builtin_colors(snakes: Sequence[ConnectedSnake]) -> list[ConnectedSnake]:
    """``snakes`` with every built-in bot's colour unique in the game.

    HTTP snakes keep the colour they chose, always (it is theirs to choose, even if two
    choose alike).  A built-in bot keeps its own colour unless an HTTP snake or an
    earlier seat already has it; then it takes the first colour of
    :data:`DUPLICATE_COLORS` nobody has.  So ``random random`` plays grey and blue,
    the same in the CLI's board, the viewer and the replay, game after game.
    """
    builtin = [isinstance(s.client, InProcessClient | WorkerClient) for s in snakes]
    taken = {s.color.lower() for s, b in zip(snakes, builtin, strict=True) if not b}
    out: list[ConnectedSnake] = []
    for snake, is_builtin in zip(snakes, builtin, strict=True):
        if is_builtin:
            if snake.color.lower() in taken:
                free = next((c for c in DUPLICATE_COLORS if c not in taken), None)
                snake = replace(snake, color=free) if free is not None else snake
            taken.add(snake.color.lower())
        out.append(snake)
    return out


async def close_clients(clients: Sequence[SnakeClient | ConnectedSnake]) -> None:
    """End a game's clients: built-in bots in workers give their workers back.

    Safe to call more than once, and on clients that hold nothing.
    """
    for item in clients:
        client = item.client if isinstance(item, ConnectedSnake) else item
        if isinstance(client, WorkerClient):
            await client.aclose()


def default_snake_name(source: str) -> str:
    """The name of an unnamed snake: the bot's name, or the URL's host.

    >>> default_snake_name("hunter?depth=1"), default_snake_name("https://snake.example/api")
    ('hunter', 'snake.example')

    Raises:
        SnakeSpecError: if ``source`` is not a snake.
    """
    kind, target = snake_kind(source)
    if kind == "human":
        return "you"
    base = target.partition("?")[0] if kind == "builtin" else target.split("//")[-1]
    return base.split("/")[0]


def canonical_source(source: str) -> str:
    """``source`` with a bare built-in name written as ``builtin:NAME``.

    Raises:
        SnakeSpecError: if ``source`` is not a snake.
    """
    kind, target = snake_kind(source)
    return f"builtin:{target}" if kind == "builtin" else source


async def play_game(
    config: GameConfig,
    snakes: Sequence[ConnectedSnake],
    *,
    timeout_ms: int = 500,
    sequential: bool = False,
    max_turns: int | None = None,
    delay_ms: int = 0,
    duration_ms: int = 0,
    source: str = "",
    on_turn: TurnCallback | None = None,
    on_start: StartCallback | None = None,
    initial_state: BoardState | None = None,
    game_id: str | None = None,
    before_turn: Callable[[int], Awaitable[None]] | None = None,
    on_calls: CallsCallback | None = None,
    timing: TimingRules | None = None,
    forked_from: dict[str, Any] | None = None,
) -> GameRecord:
    """Referee one game and return its record.

    This is :class:`GameReferee`'s :meth:`~GameReferee.play` with these keyword
    arguments as its :class:`RefereeOptions` and hooks (:class:`RefereeHooks`); a hook
    may be a plain function or a coroutine function.

    Snake ids are derived from the seed (:func:`~snakewar.games.battlesnake.records.derive_ids`)
    and snakes are placed in the order given, so the same seed, snakes and replies
    give the identical game; the game's own id is new each time (as the official CLI's).
    ``delay_ms`` sleeps after each turn; ``duration_ms`` makes each turn last at least
    that long (the official ``-d`` and ``-D``).  ``on_start`` sees the record before
    ``/start`` is sent (e.g. to store it), or, with a snake of the older APIs in the game,
    once their ``/start`` replies gave their looks (:meth:`GameReferee.start`);
    ``game_id`` sets the game's id (a server names its games itself).
    ``initial_state`` starts the game from that board (its snakes, seat by seat, carry
    the game's ids); ``forked_from`` says in the record where it came from.
    ``source`` is the game's origin as stored (``custom``, ``ladder:NAME``...); the
    snakes see it as :func:`~snakewar.games.battlesnake.rules.wire.api_game_source` says.

    ``before_turn(turn)`` is awaited before the snakes are asked for each turn (a
    server's step gate; whatever it raises ends the game).  ``on_calls(turn, records)``
    gets every round of calls (``/start`` on turn 0, each turn's ``/move``s, ``/end``
    on the last turn), one JSON record per snake: ``kind``, ``snake`` (its id),
    ``name``, ``status``, ``http_status``, ``latency_ms``, ``error``, ``move`` (the
    reply's move, empty when the call failed), and the bodies sent and read,
    ``request`` and ``reply``, as text cut at
    :data:`~snakewar.referee.transcript.MAX_BODY_BYTES` (``request_truncated``,
    ``reply_truncated``); without it nothing is captured.  Each record also has
    ``deadline_ms`` (the time the call had: the timeout, plus the bank left under a
    time bank), ``bank_ms`` (the bank left after it, or ``None``) and ``first_try``
    (the try that timed out before a retry: ``status``, ``latency_ms``,
    ``deadline_ms``, ``error``; ``None`` when the call was not retried).

    ``timing`` sets the unofficial timing rules (:class:`TimingRules`: a time bank,
    a retry on timeout); ``None``, the official ones.

    Raises:
        RulesError: if the game cannot be set up (bad sizes, too many snakes for
            the map, unknown ruleset or map).  Nothing a snake does raises.
    """
    options = RefereeOptions(
        timeout_ms=timeout_ms,
        sequential=sequential,
        max_turns=max_turns,
        delay_ms=delay_ms,
        duration_ms=duration_ms,
        source=source,
        initial_state=initial_state,
        game_id=game_id,
        timing=timing or TimingRules(),
        forked_from=forked_from,
    )
    hooks = RefereeHooks(
        on_start=_awaited(on_start),
        before_turn=before_turn,
        on_turn=_awaited(on_turn),
        on_calls=_awaited(on_calls),
    )
    return await GameReferee(config, snakes, options, hooks).play()


@dataclass(frozen=True, slots=True)
class RefereeOptions:
    """How one game is refereed (see :func:`play_game`, whose keyword arguments they are)."""

    timeout_ms: int = 500
    sequential: bool = False
    max_turns: int | None = None
    delay_ms: int = 0
    duration_ms: int = 0
    source: str = ""
    initial_state: BoardState | None = None
    game_id: str | None = None
    timing: TimingRules = field(default_factory=TimingRules)
    forked_from: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class RefereeHooks:
    """What the game's owner is told, each hook awaited (``None``: not told).

    The same hooks as :func:`play_game`'s, which also takes plain functions and makes
    them awaitable once (:func:`_awaited`), so the match loop has one kind of hook.
    """

    on_start: Callable[[GameRecord], Awaitable[None]] | None = None
    before_turn: Callable[[int], Awaitable[None]] | None = None
    on_turn: Callable[[GameRecord, TurnRecord], Awaitable[None]] | None = None
    on_calls: Callable[[int, list[dict[str, object]]], Awaitable[None]] | None = None


def _awaited(
    hook: Callable[P, Awaitable[None] | None] | None,
) -> Callable[P, Awaitable[None]] | None:
    """``hook`` as a coroutine function, whether it was one or a plain function."""
    if hook is None:
        return None
    plain = hook

    async def call(*args: P.args, **kwargs: P.kwargs) -> None:
        result = plain(*args, **kwargs)
        if inspect.isawaitable(result):
            await result

    return call


class GameReferee:
    """One game being refereed, in named steps.

    :meth:`start` (the owner's ``on_start``, then ``/start``), :meth:`turn` until the
    game is over or at its turn limit, :meth:`finish` (the result, then ``/end``);
    :meth:`play` runs them all, as :func:`play_game` does.

    Raises:
        RulesError: from the constructor, if the game cannot be set up.
    """

    def __init__(
        self,
        config: GameConfig,
        snakes: Sequence[ConnectedSnake],
        options: RefereeOptions,
        hooks: RefereeHooks,
    ) -> None:
        self.options = options
        self.hooks = hooks
        _, ids = derive_ids(config.seed, len(snakes))
        # A new id for every game, as the official CLI draws one: snakes key their state by
        # it, and two games of one seed (a rerun, a batch) must not look like one game.
        game_id = options.game_id or str(uuid.uuid4())
        self.ids = ids
        self.game = Game(config, ids, options.initial_state)
        self.info = GameInfo(
            id=game_id,
            ruleset_name=config.ruleset,
            ruleset_version=api_ruleset_version(options.source),
            settings=config.settings,
            map=config.map,
            timeout=options.timeout_ms,
            # The record keeps the fine origin (``ladder:NAME``); snakes get a documented value.
            source=str(api_game_source(options.source)),
        )
        self.entries = [
            SnakeEntry(
                id=sid,
                name=s.name,
                source=s.client.source,
                author=s.metadata_author,
                color=s.color,
                head=s.head,
                tail=s.tail,
                version=s.version,
                apiversion=s.apiversion,
            )
            for sid, s in zip(ids, snakes, strict=True)
        ]
        self.clients = {sid: s.client for sid, s in zip(ids, snakes, strict=True)}
        self.named = {sid: s.named for sid, s in zip(ids, snakes, strict=True)}
        self.infos = {
            e.id: SnakeInfo(
                name=e.name, latency="0", color=e.color, head=e.head, tail=e.tail, author=e.author
            )
            for e in self.entries
        }
        self.record = GameRecord(
            id=game_id,
            config=config,
            timeout_ms=options.timeout_ms,
            snakes=self.entries,
            initial=self.game.state,
            source=options.source,
            timing=options.timing,
            forked_from=options.forked_from,
        )
        self.last_move = dict.fromkeys(ids, "up")
        """Each snake's last valid move: what it plays when a call fails (``up`` at first)."""
        self.bank: dict[str, int] = (
            dict.fromkeys(ids, options.timing.time_bank_ms) if options.timing.time_bank_ms else {}
        )
        """Each snake's time bank left (ms), under a time bank (:class:`TimingRules`)."""
        self.deadlines: dict[str, int] = {}
        """The deadline of each snake's last ``/move`` try (ms), for the inspector."""

    async def play(self) -> GameRecord:
        """Referee the whole game and return its record."""
        await self.start()
        reason = "game_over"
        while not self.game.is_over:
            limit = self.options.max_turns
            if limit is not None and self.game.state.turn >= limit:
                reason = "max_turns"
                break
            await self.turn()
        return await self.finish(reason)

    async def start(self) -> None:
        """Tell the owner the board is set up, then send every snake ``/start``.

        Snakes of the older APIs (2017, 2018, v0) say their colours (2017/2018: their
        name too) in their ``/start`` reply: with one of them in the game, the owner is
        told after the ``/start`` round, so that what it stores and shows has them.
        """
        on_start = self.hooks.on_start
        ids = list(self.clients)
        older = (LegacySnakeClient, V0SnakeClient)
        if not any(isinstance(c, older) for c in self.clients.values()):
            if on_start is not None:
                await on_start(self.record)
            self.record.start = await self.calls("start", self.game.state, ids)
            return
        self.record.start, told = await self._round("start", self.game.state, ids)
        _refresh_legacy(self.record, self.clients, self.infos, self.named)
        if on_start is not None:
            await on_start(self.record)
        await told()

    async def turn(self) -> TurnRecord:
        """Ask the snakes alive for their moves, play them, record the turn, then pace."""
        if self.hooks.before_turn is not None:
            await self.hooks.before_turn(self.game.state.turn)
        started = time.perf_counter()
        state = self.game.state
        played = self._played(await self.calls("move", state, self.game.alive_ids()))
        step = self.game.step({sid: c.move for sid, c in played.items()})
        assert step.after is not None  # is_over was false, so the turn was played
        turn = TurnRecord(state.turn, played, step.after)
        self.record.turns.append(turn)
        if self.hooks.on_turn is not None:
            await self.hooks.on_turn(self.record, turn)
        await self._pace(started)
        return turn

    async def finish(self, reason: str) -> GameRecord:
        """Record the result, send every snake ``/end``, and return the record."""
        self.record.result = self.game.result(reason)
        self.record.end = await self.calls("end", self.game.state, list(self.clients))
        return self.record

    async def calls(
        self, kind: str, state: BoardState, ids: Sequence[str]
    ) -> dict[str, CallOutcome]:
        """One round of ``kind`` calls to the snakes ``ids``, shown to ``on_calls``."""
        calls, told = await self._round(kind, state, ids)
        await told()
        return calls

    async def _round(
        self, kind: str, state: BoardState, ids: Sequence[str]
    ) -> tuple[dict[str, CallOutcome], Callable[[], Awaitable[None]]]:
        """One round of calls, and what shows it to ``on_calls`` (awaited by the caller)."""
        on_calls = self.hooks.on_calls
        exchanges: dict[str, Exchange] | None = {} if on_calls is not None else None
        options = self.options
        calls = await _round(
            kind,
            self.clients,
            self.info,
            state,
            ids,
            self.infos,
            options.sequential,
            exchanges,
            self._move if kind == "move" and not options.timing.official else None,
        )

        async def told() -> None:
            if on_calls is not None and exchanges is not None:
                records = [
                    _call_record(
                        kind,
                        sid,
                        self.entries,
                        calls[sid],
                        exchanges[sid],
                        self.deadlines.get(sid, options.timeout_ms)
                        if kind == "move"
                        else options.timeout_ms,
                        options.timeout_ms,
                    )
                    for sid in ids
                ]
                await on_calls(state.turn, records)

        return calls, told

    async def _move(self, sid: str, request: SnakeRequest) -> CallOutcome:
        """Ask ``sid`` for a move under the unofficial timing rules; retry once if asked."""
        first = await self._try_move(sid, request)
        if first.status is not CallStatus.TIMEOUT or not self.options.timing.retry_timeout:
            return first
        # The same request again: the snake sees the same turn, and its reply counts.
        second = await self._try_move(sid, request)
        return replace(second, first_try=first)

    async def _try_move(self, sid: str, request: SnakeRequest) -> CallOutcome:
        """One ``/move`` try, given the timeout plus what is left of the snake's bank."""
        client = self.clients[sid]
        timeout = self.options.timeout_ms
        bank = self.bank.get(sid)
        deadline = timeout + (bank or 0)
        self.deadlines[sid] = deadline
        with _deadline(client, deadline):
            outcome = await client.move(request)
        if bank is None:
            return outcome
        # A timed-out move spent the whole bank; an answer draws what it took past the timeout.
        spent = bank if outcome.status is CallStatus.TIMEOUT else outcome.latency_ms - timeout
        left = min(bank, max(bank - max(spent, 0), 0))
        self.bank[sid] = left
        return replace(outcome, bank_ms=left)

    def _played(self, calls: dict[str, CallOutcome]) -> dict[str, CallOutcome]:
        """The moves played: a failed call plays the snake's last valid move."""
        played: dict[str, CallOutcome] = {}
        for sid, call in calls.items():
            if call.ok:
                self.last_move[sid] = call.move
            else:
                call = replace(call, move=self.last_move[sid])
            played[sid] = call
            self.infos[sid] = replace(
                self.infos[sid],
                latency=str(call.latency_ms),
                shout=call.shout[:MAX_SHOUT_LENGTH],
            )
        return played

    async def _pace(self, started: float) -> None:
        """Sleep ``delay_ms`` after the turn, or until it lasted ``duration_ms``."""
        pause = self.options.delay_ms / 1000
        if self.options.duration_ms:
            pause = max(pause, self.options.duration_ms / 1000 - (time.perf_counter() - started))
        if pause > 0:
            await asyncio.sleep(pause)


@contextmanager
def _deadline(client: SnakeClient, deadline_ms: int) -> Iterator[None]:
    """Give ``client``'s calls ``deadline_ms`` for as long as the block runs.

    Every client bounds its calls by its ``timeout_ms``, read at each call; one client
    serves one snake of one game, whose calls never overlap, so this changes nothing
    else.  The game's own timeout (what snakes are told) is the referee's, not this.
    """
    if not hasattr(client, "timeout_ms"):
        yield
        return
    saved = client.timeout_ms
    client.timeout_ms = deadline_ms
    try:
        yield
    finally:
        client.timeout_ms = saved


def _call_record(
    kind: str,
    sid: str,
    entries: Sequence[SnakeEntry],
    outcome: CallOutcome,
    exchange: Exchange,
    deadline_ms: int,
    timeout_ms: int,
) -> dict[str, object]:
    """One call as the request inspector shows it (see :func:`play_game`)."""
    request, request_cut = body_text(exchange.request)
    reply, reply_cut = body_text(exchange.reply)
    name = next((e.name for e in entries if e.id == sid), sid)
    first = outcome.first_try
    return {
        "kind": kind,
        "snake": sid,
        "name": name,
        "status": outcome.status.value,
        "http_status": outcome.http_status,
        "latency_ms": outcome.latency_ms,
        "error": outcome.error,
        "move": outcome.move,
        "request": request,
        "request_truncated": request_cut,
        "reply": reply,
        "reply_truncated": reply_cut,
        "deadline_ms": deadline_ms,
        "timeout_ms": timeout_ms,
        "bank_ms": outcome.bank_ms,
        "first_try": None
        if first is None
        else {
            "status": first.status.value,
            # A try that timed out lasted its whole deadline.
            "latency_ms": first.latency_ms,
            "deadline_ms": first.latency_ms,
            "error": first.error,
        },
    }


def _refresh_legacy(
    record: GameRecord,
    clients: dict[str, SnakeClient],
    infos: dict[str, SnakeInfo],
    named: Mapping[str, bool],
) -> None:
    """Take the looks older snakes give in their ``/start`` reply.

    Legacy and API v0 snakes give their colour, head and tail there; 2017/2018 snakes
    their name as well (used unless the user named the snake).
    """
    for i, entry in enumerate(record.snakes):
        client = clients[entry.id]
        if isinstance(client, (LegacySnakeClient, V0SnakeClient)) and record.start[entry.id].ok:
            meta = client.metadata
            name = entry.name
            if isinstance(client, LegacySnakeClient) and client.name and not named[entry.id]:
                name = client.name
            record.snakes[i] = replace(
                entry, name=name, color=meta.color, head=meta.head, tail=meta.tail
            )
            infos[entry.id] = replace(
                infos[entry.id], name=name, color=meta.color, head=meta.head, tail=meta.tail
            )


async def _round(
    kind: str,
    clients: dict[str, SnakeClient],
    info: GameInfo,
    state: BoardState,
    ids: Sequence[str],
    infos: dict[str, SnakeInfo],
    sequential: bool,
    exchanges: dict[str, Exchange] | None = None,
    move: Callable[[str, SnakeRequest], Awaitable[CallOutcome]] | None = None,
) -> dict[str, CallOutcome]:
    """Send one kind of request to the snakes ``ids`` and collect the outcomes.

    With ``exchanges``, each call's bytes are captured into it, by snake id.  ``move``
    asks one snake for its move in the client's stead (the unofficial timing rules).
    """
    # Snakes see only the snakes still alive; ``you`` is always the recipient itself.
    visible = state.replace(snakes=tuple(s for s in state.snakes if not s.eliminated_cause))
    frozen_infos = dict(infos)
    requests = {
        sid: SnakeRequest(info, state.turn, visible, state.snake(sid), frozen_infos) for sid in ids
    }

    async def ask(sid: str) -> CallOutcome:
        client = clients[sid]
        request = requests[sid]
        if kind == "move":
            return await (client.move(request) if move is None else move(sid, request))
        if kind == "start":
            return await client.start(request)
        return await client.end(request)

    async def call(sid: str) -> CallOutcome:
        if exchanges is None:
            return await ask(sid)
        with capturing() as exchange:
            outcome = await ask(sid)
        if exchange.request is None:
            # A bot without a wire (in-process, a worker): what it was given, as API
            # v1 JSON, and the move object it returned.
            exchange.request = dumps(requests[sid].to_api())
            if outcome.ok and kind == "move":
                exchange.reply = dumps({"move": outcome.move, "shout": outcome.shout})
        exchanges[sid] = exchange
        return outcome

    if sequential:
        return {sid: await call(sid) for sid in ids}
    results = await asyncio.gather(*(call(sid) for sid in ids))
    return dict(zip(ids, results, strict=True))
