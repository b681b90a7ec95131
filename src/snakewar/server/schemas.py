"""The JSON the server takes and gives: Pydantic models, so ``/openapi.json`` describes it all.

Seeds travel as decimal strings in responses (JavaScript numbers lose 64-bit seeds) and
are accepted as integers or decimal strings in requests.  Game parameters are the
game's own (``GET /api/catalogue``), validated by the game's adapter: a request gives
them in ``params``.  Deprecated, for one release: a parameter at the top level
(``{"snakes": [...], "width": 7}``) is read as if it were in ``params``
(:class:`GameParamsRequest` folds it in, the one place that does).  The entrants of
every game are its bots; requests and answers call them ``snakes`` (the API's first
game named them so, and clients rely on the name).
"""

from __future__ import annotations

import json
import re
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    AwareDatetime,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    WithJsonSchema,
    field_validator,
    model_validator,
)

from snakewar._moved import moved_attribute
from snakewar.arena.ladder import (
    MAX_DAILY_CAP,
    MAX_GAMES_IN_FLIGHT,
    MAX_GAMES_PER_HOUR,
    MAX_PLACEMENT_GAMES,
)
from snakewar.arena.tournaments import MatchStatus, TournamentFormat
from snakewar.server.arena import RunState
from snakewar.server.patterns import (
    LABEL,
    LADDER_NAME,
    SEED_TEXT,
    SNAKE_NAME,
    SNAKE_TAG,
    USER_NAME,
)
from snakewar.storage.accounts import InviteStatus
from snakewar.storage.models import GameStatus
from snakewar.storage.tournaments import MAX_ROUND_GAP_S

__all__ = [
    "INT64_MAX",
    "INT64_MIN",
    "MAX_POSITION_CHARS",
    "NO_CONTENT",
    "AccountOut",
    "AddEntrant",
    "BotOut",
    "BuildOut",
    "CallOut",
    "CallsOut",
    "CatalogueOut",
    "ChangePassword",
    "CreateGame",
    "CreateLadder",
    "CreateToken",
    "CreateTournament",
    "Credentials",
    "EntrantOut",
    "ForkGame",
    "FramesOut",
    "GameList",
    "GameOut",
    "InviteInfoOut",
    "InviteOut",
    "LadderGameOut",
    "LadderOut",
    "LadderSummaryOut",
    "LiveGameOut",
    "LogOut",
    "MapOut",
    "MaxTurnsSpelling",
    "MeOut",
    "NewTokenOut",
    "NextRoundOut",
    "ParamOut",
    "PasswordResetOut",
    "QualifierOut",
    "QualifyTournament",
    "RatingPointOut",
    "RegisterEntrant",
    "RegisterSnake",
    "RegistrationMode",
    "RegistrationOut",
    "RequestModel",
    "RunAccepted",
    "RunLadder",
    "RunOut",
    "ScheduleOut",
    "Seed",
    "Signup",
    "SnakeOut",
    "StandingOut",
    "TokenOut",
    "TournamentFormat",
    "TournamentGameOut",
    "TournamentMatchOut",
    "TournamentOut",
    "TournamentPhase",
    "TournamentStandingOut",
    "TournamentSummaryOut",
    "TryOut",
    "UpdateLadder",
    "UpdateSnake",
    "UpdateTournament",
    "UpdateUser",
    "UploadOut",
    "UserOut",
    "binary_download",
    "position_size",
]


def __getattr__(name: str) -> Any:
    # The models that moved into a game's routes (snakewar._moved): for one release.
    return moved_attribute(__name__, name)


INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1

_DECIMAL = re.compile(r"-?[0-9]{1,20}")


def _seed_value(value: object) -> object:
    """An int seed from an int or a decimal string; anything else is refused (a 422)."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise ValueError('expected an integer or a string of decimal digits, such as "42"')
    if isinstance(value, str):
        if not _DECIMAL.fullmatch(value):
            raise ValueError(f'{value!r} is not a decimal integer; expected digits, such as "42"')
        return int(value)
    return value


Seed = Annotated[
    int,
    BeforeValidator(_seed_value),
    Field(ge=INT64_MIN, le=INT64_MAX),
    WithJsonSchema(
        {
            "anyOf": [
                {"type": "integer", "minimum": INT64_MIN, "maximum": INT64_MAX},
                {"type": "string", "pattern": SEED_TEXT.pattern},
            ],
            "description": "A 64-bit seed: an integer, or the same as a decimal string "
            "(exact in JavaScript).",
            "examples": ["2618439174457646105"],
        }
    ),
]
"""A request's seed: an integer or a decimal string, in the signed 64-bit range."""


def _check_text(value: Any) -> None:
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError("holds a lone surrogate (\\ud800-\\udfff), which is no text") from None
    elif isinstance(value, (list, tuple)):
        for item in value:
            _check_text(item)
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_text(key)
            _check_text(item)


class RequestModel(BaseModel):
    """A request body: every string in it must be Unicode text.

    JSON can spell a lone surrogate (an escape from U+D800 to U+DFFF), which Python
    decodes to a string that no database, log or JSON answer can encode: it is refused
    where it enters, naming the field, instead of failing later in a game or a write.
    """

    @field_validator("*", mode="after")
    @classmethod
    def _text_only(cls, value: Any) -> Any:
        _check_text(value)
        return value

    @model_validator(mode="after")
    def _extra_text_only(self) -> RequestModel:
        _check_extra_text(self.model_extra or {})
        return self


def _check_extra_text(extra: dict[str, Any]) -> None:
    for key, value in extra.items():
        try:
            _check_text(key)
            _check_text(value)
        except ValueError as exc:
            raise ValueError(f"{key!r}: {exc}") from None


def _max_turns_field() -> Any:
    """The turn limit of games, ladders and tournaments: one spelling, ``maxTurns``."""
    return Field(
        None,
        ge=1,
        alias="maxTurns",
        description="Stop a game after this many turns (null: the game's own end, within "
        "this server's cap).  Spelled maxTurns everywhere (games, ladders, tournaments); "
        "max_turns is accepted too.",
    )


class MaxTurnsSpelling(RequestModel):
    """A request with a turn limit: ``maxTurns``, or ``max_turns`` (never both at once)."""

    @model_validator(mode="before")
    @classmethod
    def _one_spelling(cls, data: Any) -> Any:
        if isinstance(data, dict) and "maxTurns" in data and "max_turns" in data:
            raise ValueError("maxTurns: give maxTurns or max_turns, not both")
        return data


_PARAMS_DESCRIPTION = (
    "The game's parameters (GET /api/catalogue), checked by the game.  Deprecated: the "
    "same names at the top level of the request are read as parameters too (params win "
    "when both give one); give them here."
)


class GameParamsRequest(MaxTurnsSpelling):
    """A request that sets up games: the game's own parameters go in ``params``.

    Deprecated alias, kept for one release because existing clients send it: a field
    this model does not know, at the top level, is a game parameter.  This validator is
    the one place where such fields are folded into ``params`` (``params`` wins when
    both give a name); the game's adapter then checks them all, naming an unknown one.
    """

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    params: dict[str, int | str | bool] = Field(
        default_factory=dict, description=_PARAMS_DESCRIPTION
    )

    @model_validator(mode="after")
    def _fold_top_level_params(self) -> GameParamsRequest:
        extra = self.model_extra
        if extra:
            _check_extra_text(extra)
            # Any JSON value: the game's adapter refuses what is not one of its
            # parameters' types, naming the parameter, as it does for ``params``.
            self.params = {**extra, **self.params}
            extra.clear()
        return self


# -- games -----------------------------------------------------------------------------


MAX_POSITION_CHARS = 200_000
"""The largest ``position`` a request carries, as compact JSON (a 25x25 board of 16 snakes
takes about 20 000)."""

_POSITION_DESCRIPTION = (
    "The board the game starts from, in the game's own JSON (see its documentation); its "
    "players are the seats, one entrant each.  Null: the game sets its board up from the "
    "seed.  A game that cannot start from a board refuses it (422 naming 'position')."
)


def position_size(value: dict[str, Any] | None) -> dict[str, Any] | None:
    """A request's starting position, refused past :data:`MAX_POSITION_CHARS` of JSON."""
    if value is not None:
        size = len(json.dumps(value, separators=(",", ":")))
        if size > MAX_POSITION_CHARS:
            raise ValueError(f"{size} characters of JSON: at most {MAX_POSITION_CHARS}")
    return value


class CreateGame(GameParamsRequest):
    """A new game: its entrants (bots of the game) and the game's parameters."""

    game: str | None = Field(
        None, max_length=32, description="The game (default: the server's default game)."
    )
    snakes: list[str] = Field(
        min_length=1,
        max_length=64,
        description="The entrants (the game's bots), in seat order, each as the game takes "
        "one (GET /api/catalogue: a URL, builtin:NAME, ...).  Named snakes for every game.",
    )
    names: list[str] = Field(default_factory=list, max_length=64)
    seed: Seed | None = None
    timeout: int | None = Field(None, ge=1, le=60_000, description="Time per turn in ms.")
    max_turns: int | None = _max_turns_field()
    step: bool = Field(
        False,
        description="Step mode: the game starts paused before turn 0; "
        "POST .../step plays one turn, .../resume lets it run.",
    )
    position: Annotated[dict[str, Any] | None, AfterValidator(position_size)] = Field(
        None, description=_POSITION_DESCRIPTION
    )


class ForkGame(RequestModel):
    """A new game played on from a turn of a stored one ("play on from here")."""

    turn: int = Field(ge=0, le=1_000_000, description="The turn, as the game's viewer shows it.")
    snakes: list[str] | None = Field(
        None,
        min_length=1,
        max_length=64,
        description="The entrants, one a seat of the board at that turn (default: the "
        "game's own, as its rematch has them).",
    )
    names: list[str] = Field(default_factory=list, max_length=64)
    step: bool = Field(False, description="Start paused, to be played turn by turn.")


class EntrantOut(BaseModel):
    """One entrant of a game."""

    name: str
    source: str
    color: str = ""
    failure: str = Field(
        default="",
        description="Why it failed in this game, once finished (a timeout, a crash, a bad "
        "command, a failed initialization, a sandbox limit); '' when it played correctly.",
    )


class FramesOut(BaseModel):
    """A page of a game's frames: what its viewer draws, turn by turn, as they are played.

    A viewer reads ``offset=0`` first (the page brings the game's ``header``), then
    polls from the frame after the last it has, while ``status`` is ``running``.  A game
    kept as one replay file once complete (its game's codec) has its frames here while it runs
    or when it stopped early; once complete, read its replay.
    """

    id: str
    game: str
    status: GameStatus = Field(
        description="starting, running, complete, aborted, cancelled or error (live only)."
    )
    turn: int = Field(description="Turns played so far.")
    offset: int = Field(description="The index (turn) of the first frame of the page.")
    count: int = Field(description="How many frames the game has so far.")
    header: dict[str, Any] | None = Field(
        None, description="The game's header (its own JSON), in the page from offset 0 only."
    )
    frames: list[dict[str, Any]] = Field(description="The frames' views, in turn order.")


class LogOut(BaseModel):
    """What a finished game logged about one seat: its bot's error log (its owner's only)."""

    game_id: str
    seat: int
    name: str
    log: str = Field(description="The game's errors and the bot's stderr ('' when none).")


class GameOut(BaseModel):
    """A game, running or stored."""

    id: str
    game: str
    status: GameStatus
    error: str = ""
    seed: str
    title: str
    width: int
    height: int
    turn: int
    entrants: list[EntrantOut]
    winner: str | None = None
    is_draw: bool = False
    source: str = ""
    created_at: str | None = None
    viewer: str
    params: dict[str, Any] | None = None
    paused: bool = Field(False, description="A running game stopped before its next turn.")
    records_calls: bool = Field(
        False, description="Its calls' request and reply bodies are kept (GET .../calls)."
    )


class TryOut(BaseModel):
    """A try that timed out before the call was asked again (an unofficial retry rule)."""

    status: str
    latency_ms: int
    deadline_ms: int = Field(description="The time the try had (ms).")
    error: str = ""


class CallOut(BaseModel):
    """One call to one entrant: what was sent and what came back (the request inspector).

    Bodies are text cut at 16 KiB (``*_truncated``); ``omitted`` when the game's budget
    for bodies was used up.  ``deadline_ms``, ``timeout_ms``, ``bank_ms`` and
    ``first_try`` are there for a game whose referee records them.
    """

    kind: str = Field(description="start, move or end.")
    snake: str = Field(description="The entrant's id in the game.")
    name: str
    status: str = Field(description="ok, timeout, connection-error, http-status...")
    http_status: int | None = None
    latency_ms: int
    error: str = ""
    move: str = ""
    request: str = Field(description="The request body sent, as text.")
    request_truncated: bool = False
    reply: str = Field(description="The reply body read, as text.")
    reply_truncated: bool = False
    omitted: bool = False
    deadline_ms: int | None = Field(
        None, description="The time the call had (ms): the timeout, plus a time bank left."
    )
    timeout_ms: int | None = Field(None, description="The game's timeout per call (ms).")
    bank_ms: int | None = Field(
        None, description="The entrant's time bank left after the call (unofficial rules)."
    )
    first_try: TryOut | None = Field(
        None, description="The try that timed out before this one, when the call was retried."
    )


class CallsOut(BaseModel):
    """The calls made on one turn of a game (empty if the game keeps none)."""

    game_id: str
    turn: int
    records_calls: bool
    calls: list[CallOut]


class GameList(BaseModel):
    """Live games, then a page of stored ones (newest first).

    Paging: ask again with ``offset=next_offset`` for the next page (``next_offset``
    null: this is the last); ``total`` counts the stored games that match the filters.
    """

    live: list[GameOut]
    games: list[GameOut]
    total: int | None = Field(
        default=None, description="Stored games matching the filters (all pages)."
    )
    next_offset: int | None = Field(
        default=None,
        description="The offset of the next page (null: no more games).",
    )


# -- the catalogue ---------------------------------------------------------------------


class ParamOut(BaseModel):
    """One parameter of a game."""

    name: str
    kind: str
    default: int | str | bool
    help: str
    choices: list[str]
    minimum: int | None
    maximum: int | None
    hosted_maximum: int | None = Field(
        default=None, description="The largest value a server allows by default (null: maximum)."
    )


class BotOut(BaseModel):
    """A built-in bot."""

    name: str
    description: str


class StatOut(BaseModel):
    """A secondary statistic a game records per entrant (food eaten, a stock gathered...)."""

    key: str
    label: str
    description: str = ""


class CatalogueOut(BaseModel):
    """What a game offers."""

    name: str
    id: str
    title: str
    description: str
    params: list[ParamOut]
    bots: list[BotOut]
    player_counts: list[int]
    default_timeout_ms: int
    entrant_help: str
    failures_before_pause: int
    is_default: bool
    health_checked: bool
    steps: bool = False
    extras: dict[str, Any]
    stats: list[StatOut] = Field(
        default_factory=list,
        description="The secondary statistics its games record per entrant (ladders show "
        "their means beside the rating).",
    )


class MapOut(BaseModel):
    """A map of a game that has maps, with its sizes and player counts.

    ``name`` is the reference engine's (for some maps their id); ``title`` is what
    pages show, and ``default_size`` the ``[width, height]`` a game on it starts from.
    """

    id: str
    name: str
    title: str
    default_size: list[int]
    description: str
    min_players: int
    max_players: int
    sizes: str | list[list[int]]


# -- ladders ---------------------------------------------------------------------------


class CreateLadder(GameParamsRequest):
    """A new ladder: its game, the game's parameters and the limits."""

    name: Annotated[str, LADDER_NAME.field()]
    game: str | None = Field(None, max_length=32)
    timeout: int | None = Field(None, ge=1, le=60_000, description="Time per turn in ms.")
    max_turns: int | None = _max_turns_field()
    game_size: int = Field(2, ge=2, le=16)
    seed: Seed = 1


class AddEntrant(RequestModel):
    """An entrant joining a ladder."""

    model_config = ConfigDict(extra="forbid")

    snake: str = Field(
        min_length=1,
        max_length=2048,
        description="The entrant (a bot of the ladder's game), as the game takes one.",
    )
    name: str | None = Field(None, min_length=1, max_length=64)


class RunLadder(RequestModel):
    """How many games to play now."""

    model_config = ConfigDict(extra="forbid")

    games: int = Field(10, ge=1, le=1000)


class UpdateLadder(MaxTurnsSpelling):
    """An admin's change to a ladder, for its future games: a field left out stays as it is.

    The game and the entrants per game stay: ratings compare games of one kind.
    ``timeout`` set to ``null`` goes back to the game's own, ``maxTurns`` to what a new
    ladder gets (the game's own end, within this server's cap).  ``continuous`` and the
    fields after it say how the ladder plays on by itself (``dailyCap`` ``null``: no cap).
    """

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    timeout: int | None = Field(None, ge=1, le=60_000, description="Time per turn in ms.")
    max_turns: int | None = _max_turns_field()
    params: dict[str, int | str | bool] = Field(
        default_factory=dict,
        description="Parameters to change (the others keep their values; GET /api/catalogue).",
    )
    continuous: bool | None = Field(
        None, description="Whether the ladder plays on by itself (its scheduler starts games)."
    )
    paused: bool | None = Field(None, description="Paused by its admin: no new games start.")
    games_in_flight: int | None = Field(
        None,
        ge=1,
        le=MAX_GAMES_IN_FLIGHT,
        alias="gamesInFlight",
        description="The most of its games playing at once.",
    )
    games_per_hour: int | None = Field(
        None,
        ge=1,
        le=MAX_GAMES_PER_HOUR,
        alias="gamesPerHour",
        description="The most games it starts an hour.",
    )
    daily_cap: int | None = Field(
        None,
        ge=1,
        le=MAX_DAILY_CAP,
        alias="dailyCap",
        description="The most games one entrant starts in 24 hours (null: no cap).",
    )
    placement_games: int | None = Field(
        None,
        ge=0,
        le=MAX_PLACEMENT_GAMES,
        alias="placementGames",
        description="Games an entrant plays unranked, in placement, before it is ranked.",
    )


class ScheduleOut(BaseModel):
    """How a ladder plays on by itself, and how it is doing."""

    continuous: bool = Field(description="Whether it plays on by itself.")
    paused: bool = Field(description="Paused by its admin (no new games start).")
    games_in_flight: int = Field(description="The most of its games playing at once.")
    games_per_hour: int = Field(description="The most games it starts an hour.")
    daily_cap: int | None = Field(description="The most games an entrant starts a day.")
    in_flight: int = Field(description="Its games playing now.")
    games_last_hour: int = Field(description="Its games started in the last hour.")
    scheduled: bool = Field(description="Whether a server schedules the ladders now.")
    scheduler: str | None = Field(
        description="The server that schedules (shown to admins; null: none, or hidden)."
    )
    status: str = Field(description="What the scheduler last did for it, or why it waits.")


class RunAccepted(BaseModel):
    """A run started in the background."""

    name: str
    running: bool
    games: int


class RunOut(BaseModel):
    """A ladder's or tournament's latest run: going on, or how it ended."""

    games: int | None = Field(
        description="Games asked for (a ladder's run); a tournament's: 1 for one round, null "
        "to its end."
    )
    done: int = Field(description="Games played so far.")
    running: bool = Field(description="Whether a server plays it now (this one or another).")
    error: str = Field(description='Why the run stopped early ("" if it did not).')
    state: RunState = Field(
        description="running; stopping (an admin stopped it, its server ends it soon); done; "
        "stopped (by an admin); failed (error says why); interrupted (its server stopped or "
        "died mid-run: a server plays it on when it starts).",
    )


class StandingOut(BaseModel):
    """One entrant's line on a ladder (rating ``None`` before its first game)."""

    rank: int | None
    snake: str = Field(description="The entrant's name.")
    rating: float | None
    mu: float | None
    sigma: float | None
    games: int
    paused: bool
    note: str
    failure: str = Field(
        default="",
        description="Why its last game or health check failed, while it is not paused "
        "(it plays on until the game's number of failures in a row pauses it); '' if none.",
    )
    source: str
    in_placement: bool = Field(
        default=False,
        description="Still playing its placement games: unranked (rank null) until then.",
    )
    placement_left: int = Field(default=0, description="Placement games it has still to play.")
    wins: int = Field(default=0, description="Games it won (first alone).")
    win_rate: float | None = Field(default=None, description="Wins per game (null: no game).")
    stats: dict[str, float] = Field(
        default_factory=dict,
        description="The mean of each of the game's statistics over its games (see scorers).",
    )


class RatingPointOut(BaseModel):
    """An entrant's rating after one game."""

    game: str
    mu: float
    sigma: float


class LadderGameOut(BaseModel):
    """One rated game of a ladder."""

    number: int
    game_id: str
    seed: str
    snakes: list[str] = Field(description="The entrants' names, in seat order.")
    placement: list[list[str]]
    turns: int
    viewer: str


class LadderOut(BaseModel):
    """A ladder: standings, rating history and recent games."""

    name: str
    game: str
    running: bool
    config: dict[str, Any]
    games_played: int
    standings: list[StandingOut]
    history: dict[str, list[RatingPointOut]]
    recent_games: list[LadderGameOut]
    run: RunOut | None = Field(default=None, description="The latest run since the server started.")
    schedule: ScheduleOut | None = Field(
        default=None, description="How it plays on by itself (continuous ladders)."
    )
    placement_games: int = Field(
        default=10, description="Games an entrant plays in placement (unranked) first."
    )
    scorers: list[StatOut] = Field(
        default_factory=list,
        description="The secondary scorers shown beside the rating: the game's statistics "
        "(each standing's stats, by key); win rate is every game's.",
    )


class LadderSummaryOut(BaseModel):
    """A ladder in a list."""

    name: str
    game: str
    snakes: int = Field(description="How many entrants it has.")
    games_played: int
    running: bool


# -- tournaments -----------------------------------------------------------------------


RegistrationMode = Literal["closed", "open", "owner"]
TournamentPhase = Literal["upcoming", "registering", "running", "finished"]
_REGISTRATION_TEXT = (
    "Who enters snakes themselves: closed (nobody: its admins enter them), open (every "
    "user, their own snakes) or owner (its creator and admins, their own snakes)."
)
_PHASE_TEXT = (
    "upcoming (not started, registration not open), registering (not started, users may "
    "enter snakes now), running (started, not finished) or finished."
)


class CreateTournament(GameParamsRequest):
    """A new tournament: entrants by seed (best first), the format and the game."""

    name: str = Field(min_length=1, max_length=100)
    format: TournamentFormat = TournamentFormat.SINGLE_ELIMINATION
    snakes: list[str] = Field(
        default_factory=list,
        max_length=64,
        description="The entrants (bots of the game), by seed, best first, each as the game "
        "takes one.  Named snakes for every game.  Fewer than 2: it waits for entrants "
        "(registration, or qualifying from a ladder).",
    )
    names: list[str] = Field(
        default_factory=list, max_length=64, description="Entrants' names, in their order."
    )
    heat_size: int = Field(2, ge=2, le=8)
    best_of: int = Field(1, ge=1, le=9)
    game: str | None = Field(None, max_length=32)
    timeout: int | None = Field(None, ge=1, le=60_000)
    max_turns: int | None = _max_turns_field()
    seed: Seed = 1
    start: bool = Field(
        default=True,
        description="Start playing it now; false: it waits for POST .../run (and may be "
        "edited until then).",
    )
    registration: RegistrationMode = Field(default="closed", description=_REGISTRATION_TEXT)
    registration_closes_at: AwareDatetime | None = Field(
        default=None, description="When registration closes (null: when it starts)."
    )
    max_entrants: int | None = Field(default=None, ge=2, le=64, description="The most entrants.")
    per_owner: int | None = Field(
        default=None, ge=1, le=64, description="The most entrants of one user's snakes."
    )
    starts_at: AwareDatetime | None = Field(
        default=None,
        description="When the tournament scheduler starts it and plays its rounds (null: "
        "its admins start it and run each round).",
    )
    round_gap_s: int = Field(
        default=0, ge=0, le=MAX_ROUND_GAP_S, description="Seconds between scheduled rounds."
    )


class UpdateTournament(RequestModel):
    """An admin's change to a tournament that has not started: its name or entrants.

    Entrants named in ``remove`` leave; those in ``add`` (with ``add_names``, as
    :class:`CreateTournament`'s ``snakes`` and ``names``) join after the others, in
    seed order.
    """

    model_config = ConfigDict(extra="forbid")

    name: str | None = Field(None, min_length=1, max_length=100)
    remove: list[Annotated[str, Field(max_length=100)]] = Field(
        default_factory=list, max_length=64, description="Entrants' names."
    )
    add: list[Annotated[str, Field(min_length=1, max_length=2048)]] = Field(
        default_factory=list, max_length=64
    )
    add_names: list[Annotated[str, Field(min_length=1, max_length=64)]] = Field(
        default_factory=list, max_length=64
    )
    # How people enter it and when it starts: each one given (null clears it) changes.
    registration: RegistrationMode | None = Field(default=None, description=_REGISTRATION_TEXT)
    registration_closes_at: AwareDatetime | None = None
    max_entrants: int | None = Field(default=None, ge=2, le=64)
    per_owner: int | None = Field(default=None, ge=1, le=64)
    starts_at: AwareDatetime | None = None
    round_gap_s: int | None = Field(default=None, ge=0, le=MAX_ROUND_GAP_S)


class RegisterEntrant(RequestModel):
    """A snake entered into a tournament: a registered snake, ``@owner/name``.

    Users enter their own snakes while registration is open; admins enter any entrant
    the game takes (a built-in too), whatever the registration says.
    """

    model_config = ConfigDict(extra="forbid")

    snake: str = Field(min_length=1, max_length=100)


class QualifyTournament(RequestModel):
    """Entrants from a ladder: its ``top`` entries, at most ``per_owner`` of one user's.

    They replace the tournament's entrants, seeded by their place on the ladder.
    """

    model_config = ConfigDict(extra="forbid")

    ladder: str = Field(min_length=1, max_length=64)
    top: int = Field(ge=2, le=64)
    per_owner: int | None = Field(default=None, ge=1, le=64)


class RegistrationOut(BaseModel):
    """How people enter a tournament."""

    mode: RegistrationMode = Field(description=_REGISTRATION_TEXT)
    closes_at: AwareDatetime | None = Field(description="When registration closes.")
    open: bool = Field(description="Whether users may enter snakes now.")
    max_entrants: int | None
    per_owner: int | None


class QualifierOut(BaseModel):
    """The ladder a tournament took its entrants from."""

    ladder: str
    top: int
    per_owner: int | None


class NextRoundOut(BaseModel):
    """The round ``POST .../round`` plays next."""

    index: int = Field(description="Its place among the bracket's rounds, 0 first.")
    name: str
    matches: list[str] = Field(description="Its matches left to play.")


class LiveGameOut(BaseModel):
    """A game being played now, to watch live."""

    game_id: str
    viewer: str


class TournamentGameOut(BaseModel):
    """One game of a match."""

    game_id: str
    seed: str
    seats: list[str]
    placement: list[list[str]]
    turns: int
    viewer: str


class TournamentMatchOut(BaseModel):
    """One match (heat) of the bracket."""

    round: str
    bracket: str
    id: str
    status: MatchStatus = Field(
        description="waiting (its entrants are not known yet), pending (to be played), done, "
        "bye (not played: its entrants go on) or skipped (a grand final reset not needed)."
    )
    entrants: list[str]
    wins: dict[str, int]
    advanced: list[str]
    lost: list[str]
    games: list[TournamentGameOut]
    playing: LiveGameOut | None = Field(default=None, description="Its game being played now.")


class TournamentStandingOut(BaseModel):
    """One entrant's line in a tournament's standings."""

    place: int
    entrant: str
    seed: int
    points: float
    losses: int
    game_wins: int
    game_losses: int
    buchholz: float
    eliminated_in: str | None


class TournamentOut(BaseModel):
    """A tournament: its bracket, standings and champion."""

    id: str
    name: str
    format: TournamentFormat
    seed: str
    config: dict[str, Any]
    snakes: list[dict[str, str]] = Field(
        description="The entrants by seed, best first: each one's name and source."
    )
    finished: bool
    champion: str | None
    standings: list[TournamentStandingOut]
    matches: list[TournamentMatchOut]
    running: bool
    page: str
    format_title: str = Field(
        default="", description='The format for people ("Single elimination").'
    )
    started: bool = Field(
        default=True, description="False until an admin starts it (POST .../run)."
    )
    run: RunOut | None = Field(default=None, description="The latest run since the server started.")
    schedule: ScheduleOut | None = Field(
        default=None, description="How it plays on by itself (continuous ladders)."
    )
    phase: TournamentPhase = Field(default="upcoming", description=_PHASE_TEXT)
    registration: RegistrationOut | None = None
    starts_at: AwareDatetime | None = Field(
        default=None, description="When the scheduler starts it (null: its admins do)."
    )
    round_gap_s: int = 0
    next_round_at: AwareDatetime | None = Field(
        default=None, description="When the scheduler plays its next round, once noted."
    )
    creator: str | None = None
    qualifier: QualifierOut | None = None
    next_round: NextRoundOut | None = Field(
        default=None, description="The round to play next (null once it is finished)."
    )
    scheduler: str = Field(
        default="", description="What the tournament scheduler last did for it, or why it waits."
    )


class TournamentSummaryOut(BaseModel):
    """A tournament in a list."""

    id: str
    name: str
    page: str
    running: bool
    game: str = ""
    format: str = ""
    format_title: str = ""
    entrants: int = 0
    started: bool = True
    finished: bool = False
    champion: str | None = None
    error: str = Field(
        default="",
        description="Why its bracket cannot be loaded (its stored games do not fit it); "
        '"" when it can.',
    )
    phase: TournamentPhase = Field(default="upcoming", description=_PHASE_TEXT)
    registration: RegistrationMode = "closed"
    registration_open: bool = False
    registration_closes_at: AwareDatetime | None = None
    starts_at: AwareDatetime | None = None


# -- uploads and downloads ------------------------------------------------------------


def binary_download(description: str, *media_types: str) -> dict[str, Any]:
    """An OpenAPI response entry for a route that answers a file, not JSON."""
    binary = {"schema": {"type": "string", "format": "binary"}}
    return {"description": description, "content": {m: binary for m in media_types}}


class UploadOut(BaseModel):
    """A stored upload."""

    id: str
    url: str


# -- accounts ------------------------------------------------------------------------------

UserName = Annotated[str, USER_NAME.field()]
Password = Annotated[str, Field(min_length=8, max_length=256, description="8 to 256 characters.")]


class Credentials(RequestModel):
    """A user name and password (log in)."""

    model_config = ConfigDict(extra="forbid")

    name: UserName
    password: Password


class Signup(Credentials):
    """A new account; ``invite`` is needed where sign-up is by invitation."""

    invite: str | None = Field(None, min_length=1, max_length=100)


class UserOut(BaseModel):
    """An account as shown."""

    name: str
    role: str
    disabled: bool = False
    created_at: str


class AccountOut(UserOut):
    """An account as admins see it: what it stores of uploads, and its storage quota."""

    stored_bytes: int = Field(0, description="Bytes of its uploads: .hlt replays and bot archives.")
    quota_bytes: int | None = Field(
        None, description="The most it may store of uploads; null: no quota (admins)."
    )


class MeOut(BaseModel):
    """Who the requester is: ``user`` is null for an anonymous visitor."""

    user: UserOut | None
    via: str
    csrf: str | None = None
    signup: str
    public: bool


class UpdateUser(RequestModel):
    """An admin's change to an account."""

    model_config = ConfigDict(extra="forbid")

    role: Literal["user", "admin"] | None = None
    disabled: bool | None = None


class InviteOut(BaseModel):
    """A sign-up invitation (its code is shown once)."""

    code: str
    expires_at: str
    id: str = Field(default="", description="What lists and revokes it (never its code).")


class InviteInfoOut(BaseModel):
    """A sign-up invitation as listed (its code is never shown again)."""

    id: str
    created_at: str
    expires_at: str
    made_by: str | None
    used_by: str | None
    status: InviteStatus


class PasswordResetOut(BaseModel):
    """A reset account: its new password, shown this once (the user changes it)."""

    name: str
    password: str


class ChangePassword(RequestModel):
    """A user's change of their own password."""

    model_config = ConfigDict(extra="forbid")

    current_password: str = Field(min_length=1, max_length=256)
    new_password: Password


class CreateToken(RequestModel):
    """A new API token, with a label to recognise it by."""

    model_config = ConfigDict(extra="forbid")

    label: Annotated[str, LABEL.field()]


class TokenOut(BaseModel):
    """An API token as listed (never its secret)."""

    id: int
    label: str
    created_at: str
    last_used_at: str | None
    revoked: bool


class NewTokenOut(TokenOut):
    """A new API token: ``token`` is shown this once and never again."""

    token: str


Tag = Annotated[str, SNAKE_TAG.field()]
"""A snake's tag: a short lowercase word (``python``, ``c++``, ``minimax``)."""


class RegisterSnake(RequestModel):
    """A snake to register: an HTTP snake at ``url`` (what the game takes)."""

    model_config = ConfigDict(extra="forbid")

    name: Annotated[str, SNAKE_NAME.field()]
    game: str | None = Field(
        None, max_length=32, description="The game (default: the catalogue's default game)."
    )
    url: str = Field(
        min_length=1,
        max_length=2048,
        description="The snake's URL (v0:URL or legacy:URL for snakes of older APIs).",
    )
    visibility: Literal["public", "private"] = "public"
    tags: list[Tag] = Field(
        default_factory=list, max_length=8, description="Words for the directory: python..."
    )


class UpdateSnake(RequestModel):
    """A change to one's snake."""

    model_config = ConfigDict(extra="forbid")

    url: str | None = Field(None, min_length=1, max_length=2048)
    visibility: Literal["public", "private"] | None = None
    paused: bool | None = None
    tags: list[Tag] | None = Field(None, max_length=8, description="Replaces its tags.")


class SnakeOut(BaseModel):
    """A registered snake; ``url`` and ``build_error`` are shown to its owner and admins only.

    ``build_status`` is an upload's build: ``building``, ``ready`` or ``failed``
    (``None``: not built, other kinds and uploads stored before builds).
    """

    id: int
    ref: str
    owner: str
    name: str
    game: str
    kind: str
    url: str | None = None
    language: str | None = None
    build_status: str | None = None
    build_error: str | None = None
    visibility: str
    paused: bool
    created_at: str
    updated_at: str
    tags: list[str] = Field(default_factory=list)


class BuildOut(BaseModel):
    """An uploaded bot's build, as its owner sees it: why it failed and its whole log."""

    snake: str
    language: str | None = Field(description="The language's id (cpp, java, go...).")
    language_label: str | None = Field(description="The language's name (C++, Java...).")
    status: str | None = Field(description="building, ready, failed (None: not built).")
    error: str | None = Field(description="Why the build failed, in one line.")
    log: str = Field(description="What the build printed (its start and end, if long).")


NO_CONTENT: dict[int | str, dict[str, Any]] = {204: {"description": "No Content"}}
"""``responses=`` of a route that answers 204 with no body."""


# -- profiles, the directory and ladder entries ------------------------------------------


class DirectoryOut(BaseModel):
    """A page of the snake directory (``next_offset`` null: the last page)."""

    snakes: list[SnakeOut]
    total: int = Field(description="Snakes matching the search (all pages).")
    next_offset: int | None = Field(description="The offset of the next page (null: none).")


class RatingStepOut(BaseModel):
    """An entrant's rating after one ladder game, and what that game changed."""

    number: int = Field(description="The ladder's game number.")
    game_id: str
    played_at: str
    rating: float = Field(description="Its shown rating after the game (mu - 3 sigma).")
    mu: float
    sigma: float
    delta: float | None = Field(description="The change of its rating (null: its first game).")
    place: int = Field(description="Its place in the game (1: first; ties share a place).")
    places: int
    won: bool
    stats: dict[str, float] = Field(description="The game's statistics of it in this game.")
    viewer: str


class LadderEntryOut(BaseModel):
    """One entrant of one ladder: rank or placement, scorers and rating history."""

    ladder: str
    game: str
    entrant: str
    rank: int | None = Field(description="Its rank (null: in placement, or unrated).")
    ranked: int = Field(description="How many entrants are ranked.")
    in_placement: bool
    placement_games: int
    placement_left: int
    rating: float | None
    mu: float | None
    sigma: float | None
    games: int
    wins: int
    win_rate: float | None
    placements: dict[str, int] = Field(description="Games per place it finished in (1: first).")
    stats: dict[str, float] = Field(description="Its mean of each of the game's statistics.")
    scorers: list[StatOut]
    paused: bool
    failure: str = Field(description="Why its last game or health check failed ('' if none).")
    history: list[RatingStepOut] = Field(description="Its games on the ladder, oldest first.")


class LatencyOut(BaseModel):
    """A snake's call latency over its recent games that kept their calls."""

    games: int = Field(description="Recent games measured (local servers keep calls).")
    calls: int
    p50_ms: float | None
    p95_ms: float | None
    timeouts: int


class HealthOut(BaseModel):
    """A snake's health as its ladders' checks see it."""

    status: Literal["ok", "failing", "paused", "unchecked"]
    detail: str


class SnakeProfileOut(BaseModel):
    """A snake's page: the snake, each ladder's standing, latency and health."""

    snake: SnakeOut
    ladders: list[LadderEntryOut]
    latency: LatencyOut
    health: HealthOut
    can_change: bool = Field(description="Whether the requester may edit the snake.")


class UserProfileOut(BaseModel):
    """A user's page: their snakes (HTTP bots) and program bots the requester may see."""

    name: str
    created_at: str
    snakes: list[SnakeOut]
    bots: list[SnakeOut]
