"""Snakewar's exceptions.

Every exception Snakewar raises on purpose derives from :class:`SnakewarError`, and
each one also derives from the builtin that fits, so ``except ValueError`` keeps
working.  The tree, each class under its first Snakewar base (``+X``: another Snakewar base);
names without a module are in this module, the others are where they are raised.
Each game draws its own exceptions in its package's documentation, under the classes
of this tree they derive from (a test keeps the drawings equal to the classes)::

    SnakewarError
    ├── RulesError (ValueError)                       bad input handed to a rules engine
    │   ├── InvalidStateError                         a board, snake or moves that cannot be played
    │   ├── UnknownRulesetError                       a ruleset name that is not registered
    │   ├── UnknownMapError                           a map id that is not registered
    │   ├── SettingsError                             a setting value that cannot be used
    │   ├── MapSetupError                             a map refuses the board size or snake count
    │   └── StepError                                 the reference engine's own Execute errors
    ├── WireFormatError (ValueError)                  a bot's payload that is not its API's JSON
    ├── UnknownGameError (LookupError)                a game name that is not registered
    ├── GameLoadError (ImportError)                   a game plug-in that cannot be loaded
    ├── MatchSetupError (ValueError)                  a match that cannot be set up
    │   ├── ParamsError                               a game parameter, naming the field
    │   │   └── arena.ladder.LadderSettingsError      a continuous ladder's setting out of bounds
    │   └── EntrantError                              an entrant that is no bot of the game
    │       ├── UnknownBotError (LookupError)         a built-in bot or option that does not exist
    │       ├── referee.process.CommandLineError      a bot command line that needs a shell
    │       ├── referee.languages.LanguageError       an upload whose language cannot be told
    │       └── referee.uploads.UploadedBotError      an uploaded bot that cannot be unpacked
    ├── referee.workers.BotPoolError (ValueError)     a bot pool setting, a worker that cannot start
    ├── referee.cgroups.CgroupError (OSError)         a sandbox's cgroup that cannot be made here
    ├── referee.launch.LaunchError (RuntimeError)     a launched bot server that did not come up
    ├── cli.botconfig.BotConfigError (ValueError)     a bot config file's bad key or value
    ├── bots.serving.ListenError (OSError)            an address a server cannot listen on
    ├── replay.ReplayError (ValueError)               a replay file missing, damaged or foreign
    ├── media.MediaError (ValueError)                 a game that cannot be drawn as asked
    ├── storage.StoreError (ValueError)               a database that cannot be used, a bad request
    │   ├── storage.GameExistsError (+ConflictError)  a game id that is stored already
    │   ├── storage.UserExistsError (+ConflictError)  a user name that is taken
    │   │   └── storage.accounts.ConfusableUserNameError  one that looks like a taken name
    │   ├── storage.usernames.ReservedUserNameError (+ParamsError)  a reserved user name
    │   ├── storage.accounts.InviteNotUsableError (+ForbiddenError)  an unknown or spent invitation
    │   ├── storage.UserNotFoundError (+NotFoundError)  no user of that name
    │   ├── storage.SnakeExistsError (+ConflictError)  a snake name its owner already uses
    │   ├── storage.SnakeNotFoundError (+NotFoundError)  no registered snake of that name
    │   ├── storage.QuotaExceededError (+TooLargeError)  an upload past its owner's storage quota
    │   └── storage.sharing.JobsInFlightError (+ConflictError)  an export while one is in progress
    ├── arena.RatingError (ValueError)                a placement, rating or model that is wrong
    ├── arena.TournamentError (ValueError)            a bracket that cannot be set up or reported to
    ├── arena.ExecutorError (ValueError)              an executor setting or job list that is wrong
    ├── arena.evaluation.EvalError (ValueError)       an evaluation that cannot run
    │   └── arena.ratingsbook.RatingsFileError        a ratings file unreadable or of another game
    ├── arena.LadderError (ValueError)                a ladder setting that cannot be used
    │   ├── arena.LadderNotFoundError (+NotFoundError)    no ladder of that name
    │   ├── arena.LadderExistsError (+ConflictError)      a ladder name that is taken
    │   └── arena.LadderGameRecordedError (+ConflictError)  a ladder game another run recorded
    ├── arena.TournamentRunError (ValueError)         a tournament run that cannot go on
    │   ├── arena.TournamentNotFoundError (+NotFoundError)  no tournament of that id
    │   ├── arena.TournamentExistsError (+ConflictError)    a tournament id that is taken
    │   ├── storage.tournaments.TournamentStartedError (+ConflictError)  an edit after its start
    │   ├── storage.tournaments.RegistrationClosedError (+ConflictError)  an entry it does not take
    │   └── storage.tournaments.TournamentFullError (+ConflictError)  an entry past its caps
    ├── server.stepping.PauseExpiredError             a paused game that waited past its bound
    ├── server.fanout.FollowerLagError                a live follower too far behind (closed, 1013)
    ├── server.fanout.FeedClosedError                 a live feed stopped mid-game (closed, 1012)
    ├── MissingExtraError (ImportError)               an optional extra that is not installed
    ├── NotFoundError (LookupError)                   a stored thing that does not exist (HTTP 404)
    │   └── storage.GameNotFoundError                 no game of that id
    ├── ConflictError                                 a clash with what exists (HTTP 409)
    │   ├── server.arena.ArenaBusyError               a ladder or tournament already running
    │   ├── server.builds.BuildRunningError           a rebuild of a bot that is being built
    │   ├── server.runs.RunNotRunningError            a stop asked of a run that is not going on
    │   ├── server.routers.games.GameNotRunningError  a game that is not running (or has no match)
    │   ├── server.routers.ladders.NotContinuousError  a pause of a ladder not playing on by itself
    │   ├── server.manager.NotSteppableError          a game whose referee cannot pause
    │   └── server.stepping.NotPausedError            a step asked of a game that is not paused
    ├── UnauthorizedError (PermissionError)           no login or a bad one (HTTP 401)
    ├── ForbiddenError (PermissionError)              refused on purpose (HTTP 403)
    │   ├── server.ForbiddenSnakeError                an address a public server never calls
    │   ├── server.matches.ProgramEntrantError        a program a request may not start
    │   ├── server.auth.NotAllowedError               an action the user's role or ownership forbids
    │   ├── server.auth.CsrfError                     a browser request without its CSRF token
    │   ├── server.auth.SignupClosedError             a sign-up this server does not accept
    │   ├── referee.outbound.AddressRefusedError      an address the outbound policy refuses
    │   └── referee.sandbox.SandboxError              a sandbox that cannot be made here
    │       └── server.runners.NoSandboxNodeError     no cluster node can sandbox a game's bots
    ├── LimitError                                    past a limit
    │   ├── BusyError (RuntimeError)                  too much going on already (HTTP 429)
    │   │   ├── server.GameLimitError                 as many games running as allowed
    │   │   ├── server.arena.ArenaFullError           as many arena runs queued as allowed
    │   │   ├── server.safety.RateLimitError          more requests than a client's rate
    │   │   ├── server.followers.FollowerLimitError   as many stored-game followers as allowed
    │   │   ├── server.mirror.MirrorLimitError        as many games of others followed as allowed
    │   │   ├── server.decoding.DecoderBusyError      every replay decoder busy, its line full
    │   │   ├── server.manager.UserLimitError         as many games or workers as one user may hold
    │   │   ├── server.manager.BuiltinWorkersBusyError  too few bot workers free for a game
    │   │   ├── server.auth.LoginBackoffError         a log-in while its account's backoff lasts
    │   │   └── referee.workers.WorkerBusyError       no bot worker free in time
    │   ├── TooLargeError (ValueError)                a body, upload or file too large (HTTP 413)
    │   │   └── server.exports.ExportTooLargeError    an export's archive past its size cap
    │   └── OverLimitError (ValueError)               a value past this server's cap (HTTP 422)
    │       └── server.manager.TooManyBuiltinsError   more built-in bots than may play at once
    ├── cli.CommandLoadError (ValueError)             a command plug-in that cannot load, or clashes
    ├── cli.bench.AnchorError (RuntimeError)          an official engine that cannot be run or read
    ├── cli.paths.OutputPathError (OSError)           an output path that cannot be written
    ├── cli.replay.ReplayCommandError (ValueError)    a replay file or option that cannot be used
    ├── cli.export.ExportError (ValueError)           an export's input or option that is wrong
    └── cli.remote.RemoteError                        a server that cannot be reached or refuses

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
    "GameLoadError",
    "InvalidStateError",
    "LimitError",
    "MapSetupError",
    "MatchSetupError",
    "MissingExtraError",
    "NotFoundError",
    "OverLimitError",
    "ParamsError",
    "RulesError",
    "SettingsError",
    "SnakewarError",
    "StepError",
    "TooLargeError",
    "UnauthorizedError",
    "UnknownBotError",
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
    """Raised when a bot's payload is not valid JSON of its game's API."""


class UnknownGameError(SnakewarError, LookupError):
    """Raised when a game name is not registered."""


class GameLoadError(SnakewarError, ImportError):
    """Raised when a game's entry point cannot be loaded, or loads no game adapter."""


class NotFoundError(SnakewarError, LookupError):
    """Raised when a stored game, ladder or tournament does not exist."""


class UnauthorizedError(SnakewarError, PermissionError):
    """Raised for a request that needs a login or an API token, or for wrong credentials."""


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


class UnknownBotError(EntrantError, LookupError):
    """Raised for a built-in bot name or option that does not exist."""


class MissingExtraError(SnakewarError, ImportError):
    """Raised when a feature needs an optional extra that is not installed.

    The message names the ``pip install "snakewar[EXTRA]"`` that adds it.
    """
