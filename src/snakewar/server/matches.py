"""Matches asked for by web requests: checked against the game and the server's limits.

Whatever a request names is checked here before anything is played: the entrants by
the game's adapter, what playing them involves (a bot on the network must be public in
public mode; a program is never started from a request), the parameters, and this
server's caps on board size, entrants, time per turn and turns.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from snakewar.adapters import default_game, get_game
from snakewar.engine.protocol import Entrant, GameAdapter, MatchSpec, entrants_from_texts
from snakewar.errors import ForbiddenError, OverLimitError
from snakewar.server.config import ServerConfig
from snakewar.server.safety import check_public_url

__all__ = ["ProgramEntrantError", "adapter_for", "check_entrants", "web_match"]


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
            await check_public_url(reach.url)


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
    names: Sequence[str],
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
