"""The game protocol: what a game gives the game-agnostic layers.

Snakewar hosts several games (each a package under ``snakewar.games``) on one runner, one replay
store, one arena and one web server.  Those layers never ask *which* game they
handle: each game registers one :class:`GameAdapter`, and they go through it for
everything that differs between games::

    adapter.catalogue()             title, parameters, built-in bots, player counts
    adapter.parse_params(raw)       checked, normalised parameters (JSON values)
    adapter.entrant(text)           a checked entrant (bot URL, command, builtin:NAME)
    adapter.check(spec)             fail now if the match cannot be set up
    await adapter.play(spec, seed, session, hooks)
                                    one game through the game's own referee, as a
                                    :class:`PlayedGame`: ranks, failures, what to store
    await adapter.health(entrant, session)
                                    a reachability check (``None``: healthy)
    adapter.replays                 the replay codec: sniff, describe, verify
    adapter.export(stored)          a stored game as its replay file
    adapter.viewer_page(id, ...)    the web page that shows a game: a template
                                    embedding the game's static viewer

and, optionally, the parts a game adds to the front ends and the referee (each
default contributes nothing)::

    adapter.routers()               the server's extra routes (FastAPI routers)
    adapter.streamed_uploads()      paths of those routes that stream a larger body
    adapter.commands()              the command line's extra subcommands (imported on use)
    adapter.static_assets()         a folder of viewer assets, served at /static/<name>/
    adapter.templates()             a folder of Jinja2 page templates
    adapter.worker_bot(spec, seed)  a built-in bot that plays in a killable worker process
    adapter.worker_call(...)        one call to such a bot (default: text lines, worker_turn)
    adapter.worker_host()           a light module:attribute a worker uses instead of the adapter

The values exchanged here are plain, picklable and JSON-friendly, so a game can be
played in a worker process or a Ray task and stored by any storage backend.  This
module is pure: no I/O, no clock, no global randomness (``play`` is declared here and
implemented by the adapters, which do the I/O).
"""

from __future__ import annotations

import ipaddress
import math
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, TypeVar

from snakewar._commands import GameCommand
from snakewar.errors import BusyError, EntrantError, ParamsError, UnknownBotError, choices_text

__all__ = [
    "BeforeTurn",
    "BotInfo",
    "Catalogue",
    "Entrant",
    "EntrantResult",
    "Frame",
    "GameAdapter",
    "GameCommand",
    "GameData",
    "MatchHooks",
    "MatchSpec",
    "MediaCodec",
    "MediaReplay",
    "OnCalls",
    "Param",
    "ParamKind",
    "PlaySession",
    "PlayedGame",
    "Reach",
    "ReplayCodec",
    "ReplayInfo",
    "ScenarioCodec",
    "StatInfo",
    "StoredGame",
    "TerminalReplay",
    "VerifyResult",
    "ViewerPage",
    "entrants_from_texts",
    "named_entrant",
    "placement_from_ranks",
]

ParamKind = Literal["int", "str", "bool"]
"""The JSON type of a parameter's value."""

JSON = Any
"""A JSON value (what ``json.loads`` returns)."""

T = TypeVar("T")


# -- the catalogue ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Param:
    """One parameter of a game's matches (a board size, a ruleset, a setting).

    Attributes:
        name: the key in a match's ``params`` (and in request bodies).
        kind: ``"int"``, ``"str"`` or ``"bool"``.
        default: the value when not given.
        help: one line for forms, ``--help`` and the API docs.
        choices: the values a ``"str"`` parameter may take (empty: any).
        minimum: the smallest ``"int"`` value (``None``: no bound).
        maximum: the largest ``"int"`` value (``None``: no bound).
        hosted_maximum: the largest ``"int"`` value a server allows unless its operator
            says otherwise (``None``: ``maximum``): a bound on what one game of a hosted
            server may cost, e.g. a board's sides (the largest official board, where
            the rules would take more).
    """

    name: str
    kind: ParamKind
    default: int | str | bool
    help: str = ""
    choices: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None
    hosted_maximum: int | None = None

    def parse(self, value: object) -> int | str | bool:
        """Check and convert one value (a JSON value, or text from a command line).

        Raises:
            ParamsError: naming this parameter and what it expects.
        """
        if self.kind == "bool":
            return self._parse_bool(value)
        if self.kind == "int":
            return self._parse_int(value)
        if not isinstance(value, str):
            raise ParamsError(self.name, f"{self.name}: expected text, got {value!r}")
        if self.choices and value not in self.choices:
            raise ParamsError(
                self.name,
                f"{self.name} {value!r} is not known; expected one of {choices_text(self.choices)}",
            )
        return value

    def _parse_bool(self, value: object) -> bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in ("true", "false", "1", "0"):
            return value.lower() in ("true", "1")
        raise ParamsError(self.name, f"{self.name}: expected true or false, got {value!r}")

    def _parse_int(self, value: object) -> int:
        number: int | None = None
        if isinstance(value, int) and not isinstance(value, bool):
            number = value
        elif isinstance(value, float) and value.is_integer() and math.isfinite(value):
            number = int(value)
        elif (
            isinstance(value, str)
            and value.strip().lstrip("+-").isdigit()
            and len(value.strip()) <= 20  # no slow int() of huge digit strings
        ):
            number = int(value.strip())
        if number is None:
            raise ParamsError(self.name, f"{self.name}: expected an integer, got {value!r}")
        low = -math.inf if self.minimum is None else self.minimum
        high = math.inf if self.maximum is None else self.maximum
        if not low <= number <= high:
            raise ParamsError(
                self.name,
                f"{self.name} {number} is out of range; "
                f"expected {_bounds(self.minimum, self.maximum)}",
            )
        return number

    def to_dict(self) -> dict[str, JSON]:
        """A JSON-ready description (for forms and the API)."""
        return {
            "name": self.name,
            "kind": self.kind,
            "default": self.default,
            "help": self.help,
            "choices": list(self.choices),
            "minimum": self.minimum,
            "maximum": self.maximum,
            "hosted_maximum": self.hosted_maximum,
        }


def _bounds(low: int | None, high: int | None) -> str:
    if low is not None and high is not None:
        return f"{low} to {high}"
    return f"at least {low}" if low is not None else f"at most {high}"


@dataclass(frozen=True, slots=True)
class BotInfo:
    """A built-in bot of a game, usable as the entrant ``builtin:NAME``."""

    name: str
    description: str = ""


@dataclass(frozen=True, slots=True)
class StatInfo:
    """A secondary statistic a game records per entrant per game (ladders show its mean).

    Attributes:
        key: its key in :attr:`EntrantResult.stats` (a short identifier).
        label: its name for people, a few words (a table's column).
        description: one sentence saying what is counted.
    """

    key: str
    label: str
    description: str = ""


@dataclass(frozen=True, slots=True)
class Catalogue:
    """What a game offers: its parameters, built-in bots and limits.

    Attributes:
        name: the registry key (a short lowercase word, ``countgame``).
        version: bumped when the rules change, so old replays keep their meaning.
        title: the game's name for people.
        description: one sentence.
        params: the parameters of a match, in display order.
        bots: the built-in bots.
        player_counts: the numbers of entrants a game may have.
        default_timeout_ms: each entrant's time per turn unless a match says otherwise.
        entrant_help: what an entrant is, in a few words, for forms and errors.
        failures_before_pause: consecutive failed games after which a ladder pauses an
            entrant (a failed game: :attr:`EntrantResult.failure` is set).
        is_default: the game a user gets without naming one (one game says so).
        health_checked: whether :meth:`GameAdapter.health` can check entrants ahead of
            a game (bots on the network); ladders check those before every round.
        programs: whether the game's bots are programs (a server then takes uploaded
            bots and runs them in a sandbox, through :attr:`Entrant.program`).
        steps: whether its referee honours :attr:`MatchHooks.before_turn` and
            :attr:`MatchHooks.on_calls` (a server can then pause, step and inspect its
            games).
        extras: more catalogue data for user interfaces (JSON), e.g. maps and sizes.
        stats: the secondary statistics its games record per entrant
            (:attr:`EntrantResult.stats`), shown beside a ladder's rating.
    """

    name: str
    version: int
    title: str
    description: str
    params: tuple[Param, ...]
    bots: tuple[BotInfo, ...]
    player_counts: tuple[int, ...]
    default_timeout_ms: int
    entrant_help: str
    failures_before_pause: int = 1
    is_default: bool = False
    health_checked: bool = False
    programs: bool = False
    steps: bool = False
    extras: Mapping[str, JSON] = field(default_factory=dict)
    stats: tuple[StatInfo, ...] = ()

    @property
    def id(self) -> str:
        """The versioned id, e.g. ``countgame-v1``."""
        return f"{self.name}-v{self.version}"

    def param(self, name: str) -> Param:
        """The parameter ``name``.

        Raises:
            ParamsError: if the game has no such parameter.
        """
        for param in self.params:
            if param.name == name:
                return param
        raise ParamsError(
            name,
            f"{self.name} has no parameter {name!r}; expected one of "
            f"{choices_text(p.name for p in self.params)}",
        )

    def parse_params(self, raw: Mapping[str, object]) -> dict[str, JSON]:
        """Every parameter, from ``raw`` where given and the default elsewhere.

        Raises:
            ParamsError: an unknown name or a bad value, naming the field.
        """
        for name in raw:
            self.param(name)
        return {p.name: p.parse(raw[p.name]) if p.name in raw else p.default for p in self.params}

    def to_dict(self) -> dict[str, JSON]:
        """A JSON-ready description (``GET /api/catalogue``)."""
        return {
            "name": self.name,
            "id": self.id,
            "title": self.title,
            "description": self.description,
            "params": [p.to_dict() for p in self.params],
            "bots": [{"name": b.name, "description": b.description} for b in self.bots],
            "player_counts": list(self.player_counts),
            "default_timeout_ms": self.default_timeout_ms,
            "entrant_help": self.entrant_help,
            "failures_before_pause": self.failures_before_pause,
            "is_default": self.is_default,
            "health_checked": self.health_checked,
            "steps": self.steps,
            "extras": dict(self.extras),
            "stats": [
                {"key": x.key, "label": x.label, "description": x.description} for x in self.stats
            ],
        }


# -- a match ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Entrant:
    """One player of a match: where its bot is, and the name it plays under.

    ``source`` is canonical (as :meth:`GameAdapter.entrant` returns it): a URL, a
    command, ``builtin:NAME[?options]``...; the game decides what it means.
    ``program`` is what runs it when a server resolved it (a registered program bot,
    with its sandbox): a game that starts programs runs this one instead of reading
    ``source``; it is not stored (a stored game names the bot by ``source``).
    ``workdir`` is the folder a command (``python3 MyBot.py``) runs in, as it was when
    the entrant was entered (``None``: the current folder): ladders and tournaments
    keep it, so that their runs start the bot from its own folder wherever they run.
    """

    source: str
    name: str
    program: Any = field(default=None, compare=False, repr=False)
    workdir: str | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class Reach:
    """What playing an entrant involves, so a server can refuse what it must not do.

    Attributes:
        kind: ``"builtin"`` (a bot inside Snakewar), ``"remote"`` (a bot on the network,
            at ``url``), ``"program"`` (a program started on this machine: a command) or
            ``"person"`` (someone playing through the server's own API, whose moves reach
            only a game that the server plays in its own process).
        url: the address called, for a remote bot.
    """

    kind: Literal["builtin", "remote", "program", "person"]
    url: str | None = None


@dataclass(frozen=True, slots=True)
class MatchSpec:
    """One game to play, without its seed.

    Attributes:
        game: the registry key of the game.
        entrants: the players, in seat (placement) order.
        params: the game's parameters, as :meth:`GameAdapter.parse_params` returns them.
        timeout_ms: each entrant's time per turn (``None``: the game's default).
        max_turns: stop after this many turns (``None``: the game's own end).
        source: where the game comes from: ``custom``, ``ladder:NAME``,
            ``tournament:ID``, ``eval``...
    """

    game: str
    entrants: tuple[Entrant, ...]
    params: Mapping[str, JSON]
    timeout_ms: int | None = None
    max_turns: int | None = None
    source: str = ""

    @property
    def names(self) -> tuple[str, ...]:
        """The entrants' names, by seat."""
        return tuple(e.name for e in self.entrants)


# -- what a played game gives ----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Frame:
    """One stored step of a game: what a viewer draws and the replay's line for it.

    ``turn`` counts from 0 (the initial position); ``line`` is the replay line of the
    turn that led here (``None`` for turn 0).
    """

    turn: int
    view: Mapping[str, JSON]
    line: Mapping[str, JSON] | None = None


@dataclass(frozen=True, slots=True)
class GameData:
    """What storage keeps of a game, in the game's own JSON shapes.

    A game keeps either its frames (streamed turn by turn, so that a running game can
    be watched and a stopped one still read) or its whole replay file (``replay``),
    or both.  :meth:`GameAdapter.export` turns it back into the replay file.

    Attributes:
        header: the game's header: settings, entrants (JSON).
        frames: the frames so far, turn 0 first.
        result: how it ended (JSON), ``None`` while it runs.
        replay: the whole replay file, for games stored as one file.
    """

    header: Mapping[str, JSON]
    frames: tuple[Frame, ...] = ()
    result: Mapping[str, JSON] | None = None
    replay: bytes | None = None


@dataclass(frozen=True, slots=True)
class EntrantResult:
    """How one entrant did in one game.

    Attributes:
        seat: its position in :attr:`MatchSpec.entrants`.
        name: its name.
        source: its bot.
        rank: 1 for the best; entrants with the same rank tied.
        score: the game's score for it (a length, a stock...), if the game has one.
        failure: why it failed in this game ("" when it played correctly): many
            timed-out moves, a crash, a protocol error.  Ladders pause entrants
            that keep failing.
        color: its colour in viewers and listings ("" when the game has none).
        declared_name: the name its bot gave itself in this game, where bots declare
            one (a line-based bot's first line); "" otherwise, or when it declared none.
        log: what the game logged about it and what its bot wrote to stderr (the
            game's error log), bounded; "" when nothing.  A bot's log may hold what its author
            would not show: a server gives it to its owner only.
        stats: the game's secondary statistics of it (food eaten, a stock gathered...).
    """

    seat: int
    name: str
    source: str
    rank: int
    score: float | None = None
    failure: str = ""
    color: str = ""
    declared_name: str = ""
    log: str = field(default="", repr=False)
    stats: Mapping[str, float] = field(default_factory=dict)
    """The game's secondary statistics for it in this game, by :attr:`StatInfo.key`
    (those its catalogue's :attr:`Catalogue.stats` lists; ladders average them)."""


@dataclass(frozen=True, slots=True)
class StoredGame:
    """A game as storage lists it: everything but the data.

    Attributes:
        id: the game id.
        game: the registry key of its game.
        seed: its seed.
        width: its board or map width.
        height: its board or map height.
        turns: turns played so far.
        source: where it comes from (see :attr:`MatchSpec.source`).
        title: one line for listings ("standard, standard map, 11x11").
        entrants: each entrant, by seat.
        colors: each entrant's colour in viewers ("" when the game has none), by seat.
        ranks: each seat's rank once finished (empty before).
        winner: the winner's name, if one entrant won alone.
        failures: why each seat failed ("" when it played correctly), once finished.
    """

    id: str
    game: str
    seed: int
    width: int
    height: int
    turns: int
    source: str
    title: str
    entrants: tuple[Entrant, ...]
    colors: tuple[str, ...] = ()
    ranks: tuple[int, ...] = ()
    winner: str | None = None
    failures: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class PlayedGame:
    """One finished game: how each entrant did, and what to store.

    Attributes:
        game: the registry key of its game.
        id: the game id.
        seed: the seed it was played with.
        turns: turns played.
        results: one per entrant, by seat.
        data: what storage keeps (:class:`GameData`).
        title: one line for listings.
        width: board or map width.
        height: board or map height.
        source: where it comes from.
        spec: the match it played (``None`` for a game read from a replay file).
        details: the game's own digest (picklable), for game-specific tools.
    """

    game: str
    id: str
    seed: int
    turns: int
    results: tuple[EntrantResult, ...]
    data: GameData
    title: str = ""
    width: int = 0
    height: int = 0
    source: str = ""
    spec: MatchSpec | None = None
    details: object = None

    @property
    def placement(self) -> tuple[tuple[int, ...], ...]:
        """Seats grouped by rank, best first; a group is a tie."""
        return placement_from_ranks([r.rank for r in self.results])

    @property
    def winner(self) -> str | None:
        """The name of the entrant ranked first alone, if any."""
        first = [r for r in self.results if r.rank == 1]
        return first[0].name if len(first) == 1 and len(self.results) > 1 else None

    def stored(self) -> StoredGame:
        """Its listing row."""
        return StoredGame(
            id=self.id,
            game=self.game,
            seed=self.seed,
            width=self.width,
            height=self.height,
            turns=self.turns,
            source=self.source,
            title=self.title,
            entrants=tuple(Entrant(r.source, r.name) for r in self.results),
            colors=tuple(r.color for r in self.results),
            ranks=tuple(r.rank for r in self.results),
            winner=self.winner,
            failures=tuple(r.failure for r in self.results),
        )


def placement_from_ranks(ranks: Sequence[int]) -> tuple[tuple[int, ...], ...]:
    """Seats grouped by rank, best first.

    >>> placement_from_ranks([2, 1, 2, 4])
    ((1,), (0, 2), (3,))
    """
    groups: dict[int, list[int]] = {}
    for seat, rank in enumerate(ranks):
        groups.setdefault(rank, []).append(seat)
    return tuple(tuple(groups[rank]) for rank in sorted(groups))


# -- playing ---------------------------------------------------------------------------


IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
"""An IP address of either version."""


class OutboundPolicy(Protocol):
    """Which addresses the games' outbound connections may reach.

    A small, hashable, picklable value that a :class:`PlaySession` carries from its
    owner (a server, the arena) to the games; the referee's
    :class:`~snakewar.referee.addresses.AddressPolicy` is the one Snakewar ships, and
    :mod:`snakewar.referee.outbound` applies it to every connection.
    """

    @property
    def public_only(self) -> bool:
        """Whether every non-public address is refused (a public server)."""
        ...

    def refusal(self, address: IPAddress) -> str | None:
        """Why a connection to ``address`` is refused (``None``: it is allowed)."""
        ...


class PlaySession:
    """Resources shared by the games played together (an HTTP connection pool...).

    An executor opens one session for a batch of games and closes it afterwards; an
    adapter asks for what it needs with :meth:`shared`, and registers how to release
    it with :meth:`on_close`.  ``outbound`` is the address policy every connection the
    games make must follow (``None``: no limit, a bot author's own machine).

    A closed session makes nothing more: a resource made after :meth:`aclose` (bot worker
    processes, say) would have no one left to release it.
    """

    def __init__(self, outbound: OutboundPolicy | None = None) -> None:
        self.outbound = outbound
        self._shared: dict[str, object] = {}
        self._closers: list[Callable[[], Awaitable[None]]] = []
        self._closed = False

    @property
    def closed(self) -> bool:
        """Whether :meth:`aclose` was called."""
        return self._closed

    def _check_open(self) -> None:
        if self._closed:
            raise BusyError("the play session is closed (its games' owner is stopping)")

    def shared(self, key: str, factory: Callable[[], T]) -> T:
        """The resource ``key``, made by ``factory`` the first time it is asked for.

        Raises:
            BusyError: if the session is closed.
        """
        self._check_open()
        if key not in self._shared:
            self._shared[key] = factory()
        found: T = self._shared[key]  # type: ignore[assignment]
        return found

    def on_close(self, closer: Callable[[], Awaitable[None]]) -> None:
        """Await ``closer()`` when the session closes.

        Raises:
            BusyError: if the session is closed.
        """
        self._check_open()
        self._closers.append(closer)

    async def aclose(self) -> None:
        """Release every resource (in reverse order of creation); later asks fail."""
        self._closed = True
        closers, self._closers = self._closers, []
        for closer in reversed(closers):
            await closer()
        self._shared.clear()

    async def __aenter__(self) -> PlaySession:
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self.aclose()


OnStart = Callable[[StoredGame, GameData], Awaitable[None] | None]
"""Called with the game's listing and its header and first frame, before the first turn."""
OnFrame = Callable[[Frame], Awaitable[None] | None]
"""Called with each new frame as it is played."""
BeforeTurn = Callable[[int], Awaitable[None]]
"""Awaited before the entrants are asked for turn ``turn`` (a server's step gate)."""
OnCalls = Callable[[int, Sequence[Mapping[str, JSON]]], Awaitable[None] | None]
"""Called with the calls made to the entrants on turn ``turn``: one JSON record each,
with what was sent and what came back (the game's own shape, see its referee)."""


@dataclass(frozen=True, slots=True)
class MatchHooks:
    """How a caller follows a game while it is played (a server streams it live).

    Attributes:
        game_id: the id to give the game (default: the game derives one from the seed).
        on_start: see :data:`OnStart`.
        on_frame: see :data:`OnFrame`.
        before_turn: see :data:`BeforeTurn` (games whose catalogue says ``steps``).
        on_calls: see :data:`OnCalls` (games whose catalogue says ``steps``); only
            given when the caller keeps the calls, which cost time and space.
    """

    game_id: str | None = None
    on_start: OnStart | None = None
    on_frame: OnFrame | None = None
    before_turn: BeforeTurn | None = None
    on_calls: OnCalls | None = None


# -- replays ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ReplayInfo:
    """What a replay file holds, in a few lines.

    Attributes:
        game: the registry key of its game.
        format: the file format's name (``snakewar-replay``, ``official-jsonl``, ``hlt``).
        seed: the game's seed.
        turns: the turns it holds.
        entrants: the players' names, by seat.
        summary: a few lines for people (result, size, ...).
    """

    game: str
    format: str
    seed: int
    turns: int
    entrants: tuple[str, ...]
    summary: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class VerifyResult:
    """The outcome of playing a replay again through the engine.

    ``ok`` when every recorded turn and the result came out the same; ``message``
    says so in one line, or names the first difference; ``notes`` are remarks on the
    file (a line cut short...).
    """

    ok: bool
    message: str
    turns: int = 0
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class TerminalReplay:
    """A replay file ready for a terminal: the turn of each frame, and how to draw one.

    ``draw(console, index, color, unicode)`` prints frame ``index`` (its turn is
    ``turns[index]``) on a ``rich`` console; ``summary`` is a few lines for the end.
    """

    turns: tuple[int, ...]
    draw: Callable[[Any, int, bool, bool], None]
    summary: tuple[str, ...]


class ReplayCodec(ABC):
    """A game's replay files: recognise, read and verify them."""

    name: str
    """The format's name."""
    media_type: str = "application/octet-stream"
    """The files' media type (a download's ``Content-Type``)."""
    looks_like: str = ""
    """What the files look like, for people: said when a file is of no known format."""

    @abstractmethod
    def sniff(self, head: bytes, name: str = "") -> bool:
        """Whether a file named ``name`` starting with ``head`` (its first KiBs) is this format."""

    @abstractmethod
    def describe(self, data: bytes, name: str = "replay") -> ReplayInfo:
        """Read the file ``data`` (called ``name`` in error messages).

        Raises:
            ReplayError: a damaged or foreign file, in one line.
        """

    @abstractmethod
    def terminal(self, data: bytes, name: str = "replay") -> TerminalReplay:
        """The file ``data``, ready to show in a terminal.

        Raises:
            ReplayError: a file that cannot be read.
        """

    @abstractmethod
    def verify(self, data: bytes, name: str = "replay") -> VerifyResult:
        """Play the file ``data``'s game again through the engine and compare.

        Raises:
            ReplayError: a file that cannot be read.
        """


class MediaReplay(ABC):
    """One game's frames, ready to draw as pictures (``snakewar export``).

    Attributes:
        turns: the turn of each frame, in order.
        default_size: the picture's width in pixels when none is asked for; ``None``:
            the scene's own width, a scene unit a pixel (a game whose cells are sized
            by its map's size, so that they are whole pixels).
    """

    turns: tuple[int, ...]
    default_size: int | None = 640

    @abstractmethod
    def scene(self, index: int, *, scoreboard: bool = True) -> Any:
        """Frame ``index`` as a :class:`snakewar.media.Scene` (pure: no I/O)."""

    @abstractmethod
    def html(self, title: str) -> str:
        """A self-contained HTML replay page: the game's viewer and this replay inlined."""


class MediaCodec(ABC):
    """How a game's replays become media (:meth:`GameAdapter.media`).

    Attributes:
        themes: the themes its pictures can be drawn in (the viewer's page themes), the
            default first.
        palettes: the palettes of its pieces' colours (the viewer's), the default first.
    """

    themes: tuple[str, ...] = ("light",)
    palettes: tuple[str, ...] = ("default",)

    @abstractmethod
    def load(
        self, data: bytes, name: str = "replay", *, theme: str = "", palette: str = ""
    ) -> MediaReplay:
        """The replay file ``data`` ready to draw, in ``theme`` and ``palette``.

        ``data`` is what :meth:`GameAdapter.media_replay` gives for a stored game.
        An empty ``theme`` or ``palette`` is the default one (the first of
        :attr:`themes`, :attr:`palettes`); the caller checks a named one is there.

        Raises:
            ReplayError: a file that cannot be read, or one with no frame.
        """


class ScenarioCodec(ABC):
    """How a game saves a replay's turn as a test position (``snakewar replay scenario``).

    A scenario is one JSON object of the game's scenario files: the position as its
    bots see it and the moves that are right there, by the rules engine.
    """

    file_suffix: str = ".json"
    """The suffix of the game's scenario files (a download's name ends with it)."""

    @abstractmethod
    def from_replay(
        self,
        data: bytes,
        name: str,
        *,
        turn: int,
        player: str,
        scenario_name: str | None = None,
        keep: bool = False,
        target: str | None = None,
    ) -> dict[str, Any]:
        """Turn ``turn`` of the replay file ``data``, as the player ``player`` saw it.

        Args:
            data: the replay file.
            name: its name in messages.
            turn: the turn.
            player: the player's id or name.
            scenario_name: the scenario's name (default: one made of turn and player).
            keep: save a position that tests nothing (no right move, or every move right).
            target: another player's id or name: the goal is then to take it out this
                turn (the right moves are those that surely do); ``None``: to survive.

        Raises:
            SnakewarError: a file, turn, player or target that cannot be used, in one
                line (a game whose scenarios have no such goal refuses ``target``).
        """

    @abstractmethod
    def add(self, existing: bytes | None, entries: Sequence[dict[str, Any]], name: str) -> bytes:
        """The scenario file ``existing`` (``None``: a new one) with ``entries`` added.

        Raises:
            SnakewarError: ``existing`` is no valid scenario file, or a name is taken.
        """


@dataclass(frozen=True, slots=True)
class ViewerPage:
    """How the web app's game page (``/view/{id}``) shows a game of this kind.

    Attributes:
        template: the page's template: the server's generic ``game.html`` or one of the
            game's own :meth:`GameAdapter.templates` as ``<name>/<file>``; it gets
            ``game_id``, ``board`` (the viewer's URL) and ``title``.
        board: the game's viewer, a file of its :meth:`GameAdapter.static_assets` with
            its query (``board.html?game=ID``, served from ``/static/<name>/``), or a
            path from the site's root (``/static/...``); shown inside the page.
    """

    template: str
    board: str


# -- the adapter -----------------------------------------------------------------------


class GameAdapter(ABC):
    """One game, as the game-agnostic layers use it (see the module docstring)."""

    @abstractmethod
    def catalogue(self) -> Catalogue:
        """The game's catalogue."""

    @property
    def name(self) -> str:
        """The registry key (the catalogue's name)."""
        return self.catalogue().name

    def parse_params(self, raw: Mapping[str, object]) -> dict[str, JSON]:
        """Checked parameters: the catalogue's defaults with ``raw`` applied.

        Raises:
            ParamsError: an unknown name or a bad value, naming the field.
        """
        return self.catalogue().parse_params(raw)

    @abstractmethod
    def entrant(self, text: str, name: str | None = None) -> Entrant:
        """A checked entrant from what a user typed, named ``name`` or by default.

        Raises:
            EntrantError: text that is no entrant of this game.
        """

    @abstractmethod
    def reach(self, entrant: Entrant) -> Reach:
        """What playing ``entrant`` involves (a bot inside, a URL called, a program run)."""

    @abstractmethod
    def check(self, spec: MatchSpec) -> None:
        """Fail now, naming the problem, if ``spec`` cannot be played.

        Raises:
            SnakewarError: impossible parameters for this many entrants.
        """

    @abstractmethod
    async def play(
        self,
        spec: MatchSpec,
        seed: int,
        session: PlaySession,
        hooks: MatchHooks | None = None,
    ) -> PlayedGame:
        """Play one game through the game's own referee.

        Whatever an entrant does wrong is recorded in its result; only a game that
        cannot start (an unreachable bot, impossible parameters) raises.

        Raises:
            SnakewarError: the game cannot be started.
        """

    def turn_bound(self, params: Mapping[str, JSON]) -> int | None:
        """The most turns a game with ``params`` can last by its own rules.

        ``None`` (the default) when the rules set no bound: players that keep eating may
        play on forever, so a server caps them.  A game whose rules end it (a turn
        limit that grows with the map, say) says how late at most, so
        that a server applies its own cap only where the game's end could pass it and
        never changes the game it plays.
        """
        del params
        return None

    def longest_turn_ms(self, spec: MatchSpec, latest: Mapping[str, JSON] | None = None) -> int:
        """The longest one turn of ``spec`` may wait for its entrants, in milliseconds.

        A paused or stepped game holds only between turns: the server waits this long
        (and the last turn's closing calls) for the turn under way before it answers.
        ``latest`` is the game's newest frame's view (``None``: none yet), for a game
        whose wait depends on how it stands (a time bank left).  The default: one move
        timeout (2 s when the match sets none).
        """
        del latest
        return spec.timeout_ms or 2000

    async def health(self, entrant: Entrant, session: PlaySession) -> str | None:
        """Check that ``entrant`` can play; ``None`` if it can, else why not.

        Only called for games whose catalogue says ``health_checked``; games whose bots
        cannot be checked ahead (local programs) keep this default.
        """
        del entrant, session
        return None

    @property
    @abstractmethod
    def replays(self) -> ReplayCodec:
        """The game's replay codec."""

    @abstractmethod
    def export(self, data: GameData) -> bytes:
        """A stored game as its replay file (an unfinished game reads back as one).

        Raises:
            ReplayError: stored data that cannot make a replay.
        """

    media_reads_views: bool = False
    """Whether :meth:`media_replay` reads the stored frames' views (``Frame.view``), which
    storage reads only when asked (they are not needed to export a replay)."""

    def media_replay(self, data: GameData) -> bytes:
        """What :meth:`media`'s codec draws of a stored game: its replay (:meth:`export`).

        A game whose unfinished games have no replay file gives what its codec reads of
        the frames played so far, so that a running or stopped game is drawn too (with
        :attr:`media_reads_views` set when that needs the frames' views).

        Raises:
            ReplayError: stored data that cannot make one.
        """
        return self.export(data)

    def replay_filename(self, game_id: str) -> str:
        """The file name a downloaded replay gets."""
        return f"{game_id}.replay"

    def viewer_url(self, game_id: str) -> str:
        """Where the web app shows the game ``game_id``."""
        return f"/view/{game_id}"

    @abstractmethod
    def viewer_page(self, game_id: str, *, server: str, turn: int | None = None) -> ViewerPage:
        """The page showing ``game_id`` (opened at ``turn``) on the server at ``server``."""

    # -- optional parts: what the game adds to the server, the CLI and the referee --------
    # Each is called when that front end is built, so a game imports its web framework or
    # command line only there (this module stays pure: the values are typed loosely).

    def routers(self) -> Sequence[Any]:
        """The game's own routes: FastAPI ``APIRouter`` objects the server includes.

        The default is none.  Paths should sit under ``/api/<name>`` and ``/<name>``.
        """
        return ()

    def streamed_uploads(self) -> Sequence[str]:
        """Paths of :meth:`routers` that read their (larger) body under their own cap.

        The server's general request-body cap does not apply to them.
        """
        return ()

    def commands(self) -> Mapping[str, GameCommand]:
        """The game's own subcommands of ``snakewar``, by name (the default is none)."""
        return {}

    def media(self) -> MediaCodec | None:
        """How the game's replays become pictures, videos and HTML (``None``: they don't)."""
        return None

    def notebook_html(self, item: object) -> str | None:
        """``item``, one of the game's records or replays, as a notebook shows it: HTML.

        A game's records sit below its viewer in the layers, so their ``_repr_html_``
        asks the registry for their game's adapter and calls this when they are shown
        (Jupyter).  ``None`` (the default): the game has no inline view of ``item``.
        """
        del item
        return None

    def position_at(self, data: GameData, turn: int) -> dict[str, JSON]:
        """The board of a stored game at ``turn``, as the game's ``position`` parameter.

        A match whose parameters hold it under ``position`` starts from that board
        (a fork: "play on from here"); the game checks it in :meth:`parse_params`, as any
        parameter, and a game that cannot start from a position refuses the name there.

        Raises:
            ParamsError: naming ``turn`` for a turn the game does not have, or for any
                turn of a game that cannot be played on from a position (the default).
        """
        del data
        raise ParamsError("turn", f"turn {turn}: {self.name} games cannot be played on from a turn")

    def scenarios(self) -> ScenarioCodec | None:
        """How a replay's turn becomes a test scenario (``None``, the default: it doesn't)."""
        return None

    def static_assets(self) -> str | None:
        """A folder of the game's viewer assets, served at ``/static/<name>/``.

        Its modules may import the shared ones (``/static/viewer/``: playback, controls,
        the pages' helpers) by relative URL, ``../viewer/player.js``.

        ``None`` (the default): the game has no assets of its own.
        """
        return None

    def templates(self) -> str | None:
        """A folder of Jinja2 templates the server's pages may render (``None``: none).

        A template ``x.html`` there is ``<name>/x.html`` to the server, so games never
        shadow one another; it may extend the server's ``base.html``.  The site's header
        and home page include ``<name>/nav.html`` and ``<name>/how_to_play.html`` where a
        game has them; ``/new`` is the default game's ``<name>/new_game.html``.
        """
        return None

    def worker_bot(self, spec: str, seed: int | None = None) -> Any:
        """The built-in bot ``spec`` (``NAME[?options]``), as a bot worker process plays it.

        The object returned is the game's own bot; :mod:`snakewar.bots.host` drives it
        with :meth:`worker_turn`.  The default: the game has no bots for workers.

        Raises:
            UnknownBotError: ``spec`` names no built-in bot of this game.
        """
        del seed
        raise UnknownBotError(f"{self.name} has no built-in bots for workers: {spec!r}")

    def worker_turn(self, bot: Any, state: Any, text: str) -> tuple[Any, str]:
        """One request to a :meth:`worker_bot` bot: its new state and its reply line.

        ``text`` is the request the referee sent (the game's own protocol text), ``state``
        what the previous call returned (``None`` on the first).

        Raises:
            SnakewarError: a request the bot cannot read.
        """
        del bot, state, text
        raise UnknownBotError(f"{self.name} has no built-in bots for workers")

    def worker_call(self, bot: Any, state: Any, kind: str, payload: Any) -> tuple[Any, Any]:
        """One call ``kind`` to a :meth:`worker_bot` bot: its new state and its reply.

        A bot worker process (:mod:`snakewar.bots.host`) answers every call of the
        referee's side (:meth:`snakewar.referee.workers.BotSeat.call`) with this; ``state``
        is what the previous call returned (``None`` after the bot was built), and the
        reply must be JSON data.  The default speaks a line-based game's text protocol:
        ``init`` (the state starts afresh) and then one ``turn`` a frame, each answered by
        :meth:`worker_turn`.  A game whose referee sends other calls overrides it.

        Raises:
            RuntimeError: a ``turn`` before the ``init``.
            ValueError: a call of an unknown kind.
        """
        if kind == "init":
            return self.worker_turn(bot, None, str(payload))
        if kind == "turn":
            if state is None:
                raise RuntimeError("a turn before the init")
            return self.worker_turn(bot, state, str(payload))
        raise ValueError(f"unknown call {kind!r} for a bot of {self.name}")

    def worker_host(self) -> str | None:
        """Where a bot worker finds this game's worker bots without loading the registry.

        ``"module:ATTRIBUTE"``: an object with this class's :meth:`worker_bot` and
        :meth:`worker_call`, in a module that imports little, so a fresh worker process
        starts quickly.  ``None`` (the default): the worker loads the game's adapter
        through the registry and uses the adapter itself.
        """
        return None


def named_entrant(source: str, given: str | None, default: str) -> Entrant:
    """The entrant ``source`` called ``given`` (stripped), or ``default`` if none is given.

    Raises:
        EntrantError: a given name that is blank.
    """
    if given is None:
        return Entrant(source, default)
    if not given.strip():
        raise EntrantError("an entrant's name must not be empty")
    return Entrant(source, given.strip())


def entrants_from_texts(
    adapter: GameAdapter, texts: Iterable[str], names: Sequence[str | None] = ()
) -> tuple[Entrant, ...]:
    """Entrants from what users typed, named uniquely (``bot``, ``bot-2``, ``bot-3``).

    Raises:
        EntrantError: a text that is no entrant, or a given name used twice.
    """
    out: list[Entrant] = []
    taken: set[str] = set()
    for i, text in enumerate(texts):
        given = names[i] if i < len(names) else None
        entrant = adapter.entrant(text, given)
        name = entrant.name
        if given is not None:
            if name in taken:
                raise EntrantError(f"entrant name {name!r} is used twice")
        else:
            base, n = name, 1
            while name in taken:
                n += 1
                name = f"{base}-{n}"
        taken.add(name)
        out.append(Entrant(entrant.source, name))
    return tuple(out)
