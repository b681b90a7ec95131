"""Built-in Halite III bots and the bot-side protocol kit.

A bot plays in-process (a referee fills a :class:`~snakewar.games.halite3.bots.kit.GameView`
from the engine and calls :meth:`~snakewar.games.halite3.bots.kit.HaliteBot.turn`) or as a
subprocess speaking the official protocol: ``python -m snakewar.games.halite3.bots NAME``.
Options go after a ``?``, as in ``greedy?return_at=800``.
"""

from __future__ import annotations

from urllib.parse import parse_qsl

from snakewar.errors import UnknownBotError, choices_text
from snakewar.games.halite3.bots.crowd import CrowdBot
from snakewar.games.halite3.bots.greedy import GreedyMiner
from snakewar.games.halite3.bots.kit import (
    GameView,
    HaliteBot,
    PlayerView,
    ProtocolError,
    ShipView,
    apply_frame,
    parse_init,
    run_stdio,
    update_view_from_game,
    view_from_game,
)
from snakewar.games.halite3.bots.random_bot import RandomBot

__all__ = [
    "HALITE_BOTS",
    "CrowdBot",
    "GameView",
    "GreedyMiner",
    "HaliteBot",
    "PlayerView",
    "ProtocolError",
    "RandomBot",
    "ShipView",
    "apply_frame",
    "halite_bot_names",
    "make_halite_bot",
    "parse_init",
    "run_stdio",
    "update_view_from_game",
    "view_from_game",
]

#: The built-in Halite bots by name.
HALITE_BOTS: dict[str, type[HaliteBot]] = {
    "random": RandomBot,
    "greedy": GreedyMiner,
    "crowd": CrowdBot,
}


def halite_bot_names() -> list[str]:
    """The built-in Halite bots' names, sorted."""
    return sorted(HALITE_BOTS)


def make_halite_bot(spec: str, seed: int = 0) -> HaliteBot:
    """Build a built-in Halite bot from ``NAME`` or ``NAME?key=value&...``.

    A ``builtin:`` prefix is accepted.  Option values must be integers; a ``seed``
    option overrides the ``seed`` argument.

    Raises:
        UnknownBotError: an unknown name, an option the bot does not take, or a
            bad option value.
    """
    name, _, query = spec.removeprefix("builtin:").partition("?")
    factory = HALITE_BOTS.get(name)
    if factory is None:
        raise UnknownBotError(
            f"unknown halite bot {name!r} (expected one of {choices_text(halite_bot_names())})"
        )
    options: dict[str, int] = {"seed": seed}
    for key, value in parse_qsl(query, keep_blank_values=True):
        try:
            options[key] = int(value)
        except ValueError:
            raise UnknownBotError(
                f"halite bot {name!r}: option {key}={value!r} is not an integer"
            ) from None
    try:
        return factory(**options)
    except TypeError:
        raise UnknownBotError(f"halite bot {name!r}: unknown option in {query!r}") from None
    except ValueError as exc:
        raise UnknownBotError(f"halite bot {name!r}: {exc}") from None
