"""Snakewar's exceptions.

Every exception Snakewar raises on purpose derives from :class:`SnakewarError`, and
each one also derives from the builtin that fits, so ``except ValueError`` keeps
working::

    SnakewarError
    ├── RulesError (ValueError)          bad input handed to a rules engine
    │   ├── InvalidStateError            a board, snake or move list that cannot be played
    │   ├── UnknownRulesetError          a ruleset name that is not registered
    │   ├── UnknownMapError              a map id that is not registered
    │   ├── SettingsError                a setting value that cannot be used
    │   ├── MapSetupError                a map refuses the board size or snake count
    │   └── StepError                    the reference engine's own Execute errors
    ├── WireFormatError (ValueError)     a payload that is not Battlesnake API JSON
    ├── UnknownGameError (LookupError)   a game name that is not registered
    │
    │   defined next to the code that raises them:
    ├── bots.UnknownBotError (LookupError)        a built-in bot name or option that does not exist
    ├── bots._board.BotOptionError (ValueError)   a bot option value out of range
    ├── referee.SnakeSpecError (ValueError)       a snake argument that is no URL or bot
    ├── referee.SnakeUnreachableError (ConnectionError)
    │                                    a snake URL that is malformed or does not answer ``GET /``
    ├── replay.ReplayError (ValueError)  a replay file that is missing, damaged or foreign
    │   └── replay.hlt.HltReplayError    a Halite III .hlt file that cannot be read
    ├── games.halite3.HaliteError        a Halite III game set up or driven with bad input
    ├── games.halite3.ConstantsError     a Halite III constants file that is incomplete or mistyped
    ├── games.halite3.MapError (ValueError)  a Halite III map size or player count that cannot be
    │                                    generated
    ├── bots.halite.UnknownHaliteBotError (LookupError)  a built-in Halite bot that does not exist
    ├── tester.UnknownCategoryError (LookupError)  a tester category that does not exist
    ├── cli.play.OutputPathError (OSError)         an output path that cannot be written
    └── cli.replay.ReplayCommandError (ValueError) a replay command that cannot be done

A misbehaving bot is never an exception: the referee records it as a status value.
Messages are lowercase, name the bad value with ``!r`` and, where there is a fixed
set of valid choices, list them.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = [
    "InvalidStateError",
    "MapSetupError",
    "RulesError",
    "SettingsError",
    "SnakewarError",
    "StepError",
    "UnknownGameError",
    "UnknownMapError",
    "UnknownRulesetError",
    "WireFormatError",
]


def choices_text(choices: Iterable[str]) -> str:
    """Format valid choices for an error message: ``'a', 'b', 'c'``."""
    return ", ".join(repr(c) for c in choices)


class SnakewarError(Exception):
    """Base class of every exception Snakewar raises on purpose."""


class RulesError(SnakewarError, ValueError):
    """Raised when a rules engine is handed input it cannot play."""


class InvalidStateError(RulesError):
    """Raised when a board state, snake or move list is malformed."""


class UnknownRulesetError(RulesError):
    """Raised when a ruleset name is not registered."""


class UnknownMapError(RulesError):
    """Raised when a map id is not registered."""


class SettingsError(RulesError):
    """Raised when a setting value cannot be used."""


class MapSetupError(RulesError):
    """Raised when a map cannot set up or update a board (size, snake count, no room)."""


class StepError(RulesError):
    """Raised for the errors the reference engine's ``Execute`` returns.

    ``reason`` is the reference's exact error text (for example
    ``"move not provided for snake"``), so results can be compared with it.
    """

    def __init__(self, reason: str, detail: str = "") -> None:
        self.reason = reason
        super().__init__(f"{reason}: {detail}" if detail else reason)


class WireFormatError(SnakewarError, ValueError):
    """Raised when a payload is not valid Battlesnake API JSON."""


class UnknownGameError(SnakewarError, LookupError):
    """Raised when a game name is not registered."""
