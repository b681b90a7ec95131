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

import re
from collections.abc import Mapping, Sequence
from typing import Final

from snakewar.adapters import default_game, get_game
from snakewar.engine.protocol import Entrant, GameAdapter, MatchSpec, entrants_from_texts
from snakewar.errors import EntrantError, ForbiddenError, OverLimitError
from snakewar.server.auth import NotAllowedError, Principal
from snakewar.server.config import ServerConfig
from snakewar.server.safety import check_public_url
from snakewar.storage import AsyncStore, SnakeNotFoundError, StoredSnake

__all__ = [
    "SNAKE_REF",
    "ProgramEntrantError",
    "adapter_for",
    "check_entrants",
    "find_snake",
    "resolve_entrants",
    "web_match",
]

SNAKE_REF: Final = re.compile(r"@([a-z0-9][a-z0-9_-]{0,31})/([A-Za-z0-9][A-Za-z0-9_.-]{0,39})\Z")
"""A registered snake's reference: ``@owner/name``."""


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
    """
    for entrant in entrants:
        reach = adapter.reach(entrant)
        if reach.kind == "program":
            raise ProgramEntrantError(
                f"entrant {entrant.source[:80]!r} would start a program on the server; "
                "a request may name built-in bots and bots on the network only"
            )
        if reach.kind == "remote" and config.public and reach.url is not None:
            await check_public_url(reach.url, config.allowed_networks)


async def find_snake(store: AsyncStore, principal: Principal, ref: str) -> StoredSnake:
    """The registered snake ``@owner/name`` that ``principal`` may play.

    Raises:
        EntrantError: ``ref`` is no reference, or the snake is paused.
        SnakeNotFoundError: no such snake, or a private one of someone else.
    """
    match = SNAKE_REF.match(ref)
    if match is None:
        raise EntrantError(f"{ref[:80]!r} is no snake reference; expected @owner/name")
    snake = await store.run(store.store.snakes.by_ref, match[1], match[2])
    if snake.visibility != "public" and not principal.can_change(snake.owner_id):
        # Someone else's private snake does not exist, as far as this requester knows.
        raise SnakeNotFoundError(f"no snake {ref[:80]}")
    if snake.paused:
        raise EntrantError(f"snake {snake.ref} is paused by its owner")
    return snake


async def resolve_entrants(
    store: AsyncStore,
    principal: Principal,
    config: ServerConfig,
    adapter: GameAdapter,
    texts: Sequence[str],
    names: Sequence[str],
    *,
    raw_ok: bool | None = None,
) -> tuple[list[str], list[str | None]]:
    """What ``texts`` name, with registered snakes (``@owner/name``) looked up.

    Returns the entrants' texts (a snake's URL in place of its reference) and names
    (a snake plays as ``owner/name`` unless the request names it).  ``raw_ok`` says
    whether a bot may be named by URL (default: on a local server, or for an admin).

    Raises:
        EntrantError, SnakeNotFoundError: a reference that cannot be played.
        NotAllowedError: on a public server, a raw URL from a user who is no admin.
    """
    if raw_ok is None:
        raw_ok = not config.public or principal.is_admin
    out: list[str] = []
    named: list[str | None] = [*names, *[None] * (len(texts) - len(names))]
    for i, text in enumerate(texts):
        if not text.startswith("@"):
            if not raw_ok:
                reach = adapter.reach(adapter.entrant(text, None))
                if reach.kind != "builtin":
                    raise NotAllowedError(
                        f"snakes[{i}]: register the snake first (POST /api/snakes) and "
                        "name it @owner/name; only built-in bots are named directly here"
                    )
            out.append(text)
            continue
        snake = await find_snake(store, principal, text)
        if snake.game != adapter.name:
            raise EntrantError(f"snakes[{i}]: {snake.ref} plays {snake.game}, not {adapter.name}")
        if snake.kind != "url" or snake.url is None:
            raise ProgramEntrantError(
                f"snakes[{i}]: {snake.ref} is a program bot, which this server does not run"
            )
        out.append(snake.url)
        if named[i] is None:
            named[i] = f"{snake.owner}/{snake.name}"
    return out, named


def _check_caps(
    config: ServerConfig,
    count: int,
    params: Mapping[str, object],
    timeout_ms: int | None,
) -> None:
    if count > config.max_snakes:
        raise OverLimitError(f"snakes: {count} given, this server allows {config.max_snakes}")
    for key in ("width", "height"):
        value = params.get(key)
        if isinstance(value, int) and value > config.max_board:
            raise OverLimitError(f"{key}: {value} is larger than this server's {config.max_board}")
    if timeout_ms is not None and timeout_ms > config.max_timeout_ms:
        raise OverLimitError(
            f"timeout: {timeout_ms} ms exceeds this server's {config.max_timeout_ms}"
        )


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
    _check_caps(config, len(texts), normalized, timeout_ms)
    entrants = entrants_from_texts(adapter, texts, list(names))
    await check_entrants(adapter, entrants, config)
    spec = MatchSpec(
        game=adapter.name,
        entrants=entrants,
        params=normalized,
        timeout_ms=timeout_ms,
        max_turns=min(max_turns or config.max_turns, config.max_turns),
        source=source,
    )
    adapter.check(spec)
    return spec
