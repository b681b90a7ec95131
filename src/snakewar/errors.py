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
    "BusyError",
    "ConflictError",
    "EntrantError",
    "ForbiddenError",
    "InvalidStateError",
    "LimitError",
    "MapSetupError",
    "MatchSetupError",
    "NotFoundError",
    "OverLimitError",
    "ParamsError",
    "RulesError",
    "SettingsError",
    "SnakewarError",
    "StepError",
    "TooLargeError",
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


class NotFoundError(SnakewarError, LookupError):
    """Raised when a stored game, ladder or tournament does not exist."""


class ForbiddenError(SnakewarError, PermissionError):
    """Raised for a request refused on purpose (an address a public server never calls)."""


class ConflictError(SnakewarError):
    """Raised when a request clashes with what exists (a name taken, a run going on)."""


class LimitError(SnakewarError):
    """Raised when a request goes past a limit of the server or the library."""


class BusyError(LimitError, RuntimeError):
    """Raised when too much is going on already (games running, requests per minute)."""


class TooLargeError(LimitError, ValueError):
    """Raised for a body, upload or file larger than accepted."""


class OverLimitError(LimitError, ValueError):
    """Raised for a value past what this server allows (a board size, a timeout)."""


class MatchSetupError(SnakewarError, ValueError):
    """Raised for a match that cannot be set up: its parameters or entrants."""


class ParamsError(MatchSetupError):
    """Raised for a game parameter that does not exist or has a bad value.

    ``field`` names the parameter, so an API can say which field is wrong.
    """

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        super().__init__(message)


class EntrantError(MatchSetupError):
    """Raised for an entrant that is no bot of the game (a bad URL, command or name)."""
