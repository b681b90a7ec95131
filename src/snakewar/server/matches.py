"""Matches asked for by web requests: checked against the game and the server's limits.

Whatever a request names is checked here before anything is played: the entrants by
the game's adapter, what playing them involves (a bot on the network must be public in
public mode; a program is never started from a request), the parameters, and this
server's caps on board size, entrants, time per turn and turns.

Registered snakes are named ``@owner/name``: they are looked up (a private snake only
for its owner and admins; a paused one refused) and play under that name.  On a public
server a user's entrants are built-in bots and registered snakes only; a raw URL is
for admins (a snake is checked against the address policy when it is registered, and
again on every connection by the referee's transport).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

from snakewar.adapters import default_game, get_game
from snakewar.engine.protocol import JSON, Entrant, GameAdapter, MatchSpec, entrants_from_texts
from snakewar.errors import EntrantError, ForbiddenError, OverLimitError, ParamsError
from snakewar.referee.process import Program
from snakewar.referee.uploads import UploadCache
from snakewar.server.auth import NotAllowedError, Principal
from snakewar.server.config import ServerConfig
from snakewar.server.patterns import parse_snake_ref
from snakewar.server.programs import program_of
from snakewar.server.safety import check_public_url
from snakewar.storage import AsyncStore, SnakeNotFoundError, StoredSnake

__all__ = [
    "NAMESPACE_MARKS",
    "ProgramEntrantError",
    "Resolved",
    "adapter_for",
    "check_caps",
    "check_entrants",
    "check_free_name",
    "check_not_a_builtins_name",
    "find_snake",
    "programs_for",
    "resolve_entrants",
    "turn_limit",
    "web_match",
    "with_programs",
]


class ProgramEntrantError(ForbiddenError):
    """Raised for an entrant that would start a program: never from a web request."""


def adapter_for(game: str | None) -> GameAdapter:
    """The adapter of ``game`` (``None``: the default game).

    Raises:
        UnknownGameError: an unknown game.
    """
    return get_game(game) if game is not None else default_game()


async def check_entrants(
    adapter: GameAdapter, entrants: Sequence[Entrant], config: ServerConfig
) -> None:
    """Refuse entrants that would start a program, and non-public addresses in public mode.

    Raises:
        ProgramEntrantError: an entrant that is a program (a command line).
        ForbiddenSnakeError: in public mode, a bot URL that is not a public address.
        EntrantError: a person, on a server whose games play on a Ray cluster (their
            moves arrive at this process, which does not play the game).
    """
    for entrant in entrants:
        reach = adapter.reach(entrant)
        if entrant.program is not None:
            # Resolved by this server from its own registry (program_of): sandboxed
            # where it must be.  A request never supplies one.
            continue
        if reach.kind == "program":
            raise ProgramEntrantError(
                f"entrant {entrant.source[:80]!r} would start a program on the server; "
                "a request may name built-in bots and bots on the network only"
            )
        if reach.kind == "remote" and config.public and reach.url is not None:
            await check_public_url(reach.url, config.allowed_networks)
        if reach.kind == "person" and config.ray_address is not None:
            raise EntrantError(
                f"entrant {entrant.source[:80]!r} is a person, whose moves reach only games "
                "this server plays itself; its games play on a Ray cluster"
            )


async def find_snake(store: AsyncStore, principal: Principal, ref: str) -> StoredSnake:
    """The registered snake ``@owner/name`` that ``principal`` may play.

    Raises:
        EntrantError: ``ref`` is no reference, or the snake is paused.
        SnakeNotFoundError: no such snake, or a private one of someone else.
    """
    parsed = parse_snake_ref(ref)
    if parsed is None:
        raise EntrantError(f"{ref[:80]!r} is no snake reference; expected @owner/name")
    snake = await store.run(store.store.snakes.by_ref, parsed.owner, parsed.name)
    if snake.visibility != "public" and not principal.can_change(snake.owner_id):
        # Someone else's private snake does not exist, as far as this requester knows.
        raise SnakeNotFoundError(f"no snake {ref[:80]}")
    if snake.paused:
        raise EntrantError(f"snake {snake.ref} is paused by its owner")
    return snake


NAMESPACE_MARKS: Final = ("@", "/", ":")
"""What a name given to an entrant may not hold: the marks of the names the server gives
(``@owner/name``, ``builtin:NAME``), so that no free name reads as one of them."""


def check_free_name(name: str, field: str) -> None:
    """Refuse a name given to an entrant that could imitate a namespaced one.

    A registered snake plays as ``@owner/name`` and a built-in as ``builtin:NAME``;
    a name a request gives holds none of ``@``, ``/`` and ``:``, so it can never be
    read as a user's entry (``alice/s61``) or a built-in, nor take its place first.

    Raises:
        ParamsError: naming ``field``.
    """
    marks = [mark for mark in NAMESPACE_MARKS if mark in name]
    if marks:
        raise ParamsError(
            field,
            f"{field}: {name[:64]!r} holds {' and '.join(repr(m) for m in marks)}; a given "
            "name may not (a registered snake plays as @owner/name, a built-in as builtin:NAME)",
        )


_NUMBERED = re.compile(r"-\d+$")


def check_not_a_builtins_name(
    adapter: GameAdapter, name: str, builtin: str | None, field: str
) -> None:
    """Refuse a given name that reads as one of the game's built-in bots but is not that bot.

    A built-in plays under its bot's name (``random``, ``random-2`` for a second one):
    another entrant named so would pass for it.  ``builtin`` is the entrant's text when it
    is a built-in (``random``, ``builtin:random``, ``hunter?depth=3``), else ``None``.

    Raises:
        ParamsError: naming ``field``.
    """
    bots = {bot.name for bot in adapter.catalogue().bots}
    base = _NUMBERED.sub("", name)
    if base not in bots:
        return
    if builtin is not None and builtin.removeprefix("builtin:").split("?", 1)[0] == base:
        return
    raise ParamsError(
        field,
        f"{field}: {name[:64]!r} is the name of the built-in bot {base!r}; only that bot "
        "plays under it",
    )


async def resolve_entrants(
    store: AsyncStore,
    principal: Principal,
    config: ServerConfig,
    adapter: GameAdapter,
    texts: Sequence[str],
    names: Sequence[str],
    *,
    raw_ok: bool | None = None,
    uploads: UploadCache | None = None,
    names_field: str = "names",
) -> Resolved:
    """What ``texts`` name, with registered snakes (``@owner/name``) looked up.

    A URL snake's text becomes its URL; a program bot keeps its reference as its text
    and gets its :class:`~snakewar.referee.process.Program` (made with ``uploads``; no
    cache: program bots are refused).  ``raw_ok`` says whether a bot may be named by URL
    (default: on a local server, or for an admin).

    Names are bound to their owner's namespace: a registered snake plays as its
    reference, ``@owner/name`` (a request may not rename it); a name a request gives
    may hold no ``@``, ``/`` or ``:`` (:func:`check_free_name`), so nobody's entry can
    be imitated.  A built-in keeps its bot's name (``random``, ``random-2``) unless
    named: a name with none of those marks, which no user's entry can take.

    Raises:
        EntrantError, SnakeNotFoundError: a reference that cannot be played.
        ParamsError: a given name that could imitate a namespaced one, or that renames
            a registered snake.
        NotAllowedError: on a public server, a raw URL from a user who is no admin.
        ProgramEntrantError: a program bot where none may run.
        SandboxError: a program bot that needs a sandbox this server cannot make.
    """
    if raw_ok is None:
        raw_ok = not config.public or principal.is_admin
    out: list[str] = []
    named: list[str | None] = [*names, *[None] * (len(texts) - len(names))]
    for i, given in enumerate(named):
        if given is not None:
            check_free_name(given, f"{names_field}[{i}]")
    programs: dict[int, Program] = {}
    for i, text in enumerate(texts):
        if not text.startswith("@"):
            builtin = adapter.reach(adapter.entrant(text, None)).kind == "builtin"
            if not raw_ok and not builtin:
                raise NotAllowedError(
                    f"snakes[{i}]: register the snake first (POST /api/snakes) and "
                    "name it @owner/name; only built-in bots are named directly here"
                )
            given = named[i]
            if given is not None:
                check_not_a_builtins_name(
                    adapter, given, text if builtin else None, f"{names_field}[{i}]"
                )
            out.append(text)
            continue
        snake = await find_snake(store, principal, text)
        if snake.game != adapter.name:
            raise EntrantError(f"snakes[{i}]: {snake.ref} plays {snake.game}, not {adapter.name}")
        if named[i] is not None:
            raise ParamsError(
                f"{names_field}[{i}]",
                f"{names_field}[{i}]: {snake.ref} plays under its own name; leave its name out",
            )
        if snake.kind == "url" and snake.url is not None:
            out.append(snake.url)
        elif uploads is None:
            raise ProgramEntrantError(f"snakes[{i}]: {snake.ref} is a program bot; not here")
        else:
            out.append(snake.ref)
            programs[i] = await program_of(snake, store, uploads, config)
        named[i] = snake.ref
    return Resolved(out, named, programs)


@dataclass(frozen=True, slots=True)
class Resolved:
    """Entrants as :func:`resolve_entrants` found them: texts, names, programs by seat."""

    texts: list[str]
    names: list[str | None]
    programs: dict[int, Program] = field(default_factory=dict)


async def programs_for(
    store: AsyncStore, config: ServerConfig, uploads: UploadCache, sources: Iterable[str]
) -> dict[str, Program]:
    """The programs of the registered program bots among ``sources`` (a ladder's entries).

    A source that is no reference, or names a snake that is gone or not a program,
    is left out: its game fails as data, as a vanished bot's does.
    """
    found: dict[str, Program] = {}
    for source in sources:
        ref = parse_snake_ref(source)
        if ref is None:
            continue
        try:
            snake = await store.run(store.store.snakes.by_ref, ref.owner, ref.name)
        except SnakeNotFoundError:
            continue
        if snake.kind != "url":
            found[source] = await program_of(snake, store, uploads, config)
    return found


def with_programs(
    entrants: Sequence[Entrant], programs: Mapping[int, Program]
) -> tuple[Entrant, ...]:
    """``entrants`` with the server-resolved programs attached, by seat."""
    return tuple(
        dataclasses.replace(e, program=programs[i]) if i in programs else e
        for i, e in enumerate(entrants)
    )


def check_caps(
    config: ServerConfig,
    adapter: GameAdapter,
    count: int,
    params: Mapping[str, object],
    timeout_ms: int | None,
) -> None:
    """Refuse what passes this server's caps: entrants, board size, time per turn.

    A board side's cap is the operator's (``max_board``), else the game's own
    (:attr:`~snakewar.engine.protocol.Param.hosted_maximum`): one game's boards and
    another's maps differ, so one game's bound never applies to another.

    Raises:
        OverLimitError: naming the field and the cap.
    """
    if count > config.max_snakes:
        raise OverLimitError(f"snakes: {count} given, this server allows {config.max_snakes}")
    sizes = {p.name: p for p in adapter.catalogue().params if p.name in ("width", "height")}
    for key, param in sizes.items():
        value = params.get(key)
        cap = config.max_board
        if cap is None:
            cap = param.hosted_maximum if param.hosted_maximum is not None else param.maximum
        if isinstance(value, int) and cap is not None and value > cap:
            raise OverLimitError(f"{key}: {value} is larger than this server's {cap}")
    if timeout_ms is not None and timeout_ms > config.max_timeout_ms:
        raise OverLimitError(
            f"timeout: {timeout_ms} ms exceeds this server's {config.max_timeout_ms}"
        )


def turn_limit(
    config: ServerConfig,
    adapter: GameAdapter,
    params: Mapping[str, JSON],
    asked: int | None,
) -> int | None:
    """The turn limit of a match this server plays: its cap is a cap, never a default.

    What was asked, within the cap.  When nothing was asked, the game's own end
    (``None``: a game whose rules end it then lasts its own number of turns, which may
    depend on its map and which its replay records), unless the game's rules could let
    it pass the cap (:meth:`~snakewar.engine.protocol.GameAdapter.turn_bound`): then the cap.
    """
    cap = config.max_turns
    if asked is not None:
        return min(asked, cap)
    bound = adapter.turn_bound(params)
    return None if bound is not None and bound <= cap else cap


async def web_match(
    config: ServerConfig,
    game: str | None,
    texts: Sequence[str],
    names: Sequence[str | None],
    params: Mapping[str, object],
    *,
    timeout_ms: int | None,
    max_turns: int | None,
    source: str,
    programs: Mapping[int, Program] | None = None,
) -> MatchSpec:
    """The match a request asks for, checked (see the module docstring).

    Raises:
        UnknownGameError, EntrantError, ParamsError: what the game refuses.
        ProgramEntrantError, ForbiddenSnakeError: entrants the server refuses.
        OverLimitError: past this server's caps.
        SnakewarError: a match the game cannot set up.
    """
    adapter = adapter_for(game)
    if len(names) > len(texts):
        raise OverLimitError(f"names: {len(names)} given for {len(texts)} snakes")
    normalized = adapter.parse_params(params)
    check_caps(config, adapter, len(texts), normalized, timeout_ms)
    entrants = with_programs(entrants_from_texts(adapter, texts, list(names)), programs or {})
    await check_entrants(adapter, entrants, config)
    spec = MatchSpec(
        game=adapter.name,
        entrants=entrants,
        params=normalized,
        timeout_ms=timeout_ms,
        max_turns=turn_limit(config, adapter, normalized, max_turns),
        source=source,
    )
    adapter.check(spec)
    return spec
