"""The Battlesnake API v1 wire format: state types to and from JSON objects.

Every camelCase name lives here.  The objects are plain ``dict``/``list`` trees
ready for ``json.dumps``; parsing accepts what ``json.loads`` returns and checks
every field it reads, raising :class:`~snakewar.errors.WireFormatError` with the
path of the bad field.

What the API carries (``client/models.go`` of the reference):

* ``board.snakes`` lists only snakes that are still alive, in board order;
  ``length`` counts stacked segments; ``latency`` is a string of milliseconds.
* ``game.ruleset.settings`` uses the API names (``hazardDamagePerTurn``,
  ``royale.shrinkEveryNTurns``) and always includes the unused squad settings.
* Hazards may repeat a point (stacked hazards) and, on snail_mode, lie off the board.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final

from snakewar.errors import WireFormatError
from snakewar.games.battlesnake.rules.api_schema import API_V1_SCHEMA
from snakewar.games.battlesnake.rules.settings import Settings
from snakewar.games.battlesnake.rules.types import MAX_BOARD_SIZE, BoardState, Point, Snake

__all__ = [
    "API_VERSION",
    "CLI_RULESET_VERSION",
    "MAX_SHOUT_LENGTH",
    "MOVES",
    "RULES_VERSION",
    "GameInfo",
    "GameSource",
    "MoveReply",
    "SnakeInfo",
    "SnakeRequest",
    "api_game_source",
    "api_ruleset_version",
    "api_schema",
    "board_from_api",
    "board_to_api",
    "game_from_api",
    "game_to_api",
    "move_reply_from_api",
    "point_from_api",
    "request_from_api",
    "request_to_api",
    "snake_from_api",
    "snake_to_api",
]

API_VERSION = "1"
MAX_SHOUT_LENGTH = 256
"""Shouts longer than this are cut (the API documentation's limit)."""


@dataclass(frozen=True, slots=True)
class SnakeInfo:
    """What the API shows about a snake beyond the rules state."""

    name: str = ""
    latency: str = "0"
    shout: str = ""
    squad: str = ""
    color: str = "#888888"
    head: str = "default"
    tail: str = "default"
    author: str = ""


_DEFAULT_INFO = SnakeInfo()


class GameSource(StrEnum):
    """The values Snakewar sends in the API's ``game.source``: where a game comes from.

    The official engine sends ``custom``, ``league``, ``tournament``, ``arena`` or
    ``challenge`` (and its CLI ``""``); some snakes validate the field against that
    list, so Snakewar sends only these:

    * ``custom``: a game someone started on the server, and the snake tester's games;
    * ``league``: a ladder's games;
    * ``tournament``: a tournament's games;
    * ``""`` (``CLI``): ``snakewar play`` and the other command-line games, as the
      official CLI.

    A stored game keeps its own, finer origin (``ladder:NAME``, ``tournament:ID``);
    :func:`api_game_source` turns that into the wire value.
    """

    CUSTOM = "custom"
    LEAGUE = "league"
    TOURNAMENT = "tournament"
    CLI = ""


RULES_VERSION: Final = "v1.2.3"
"""The ``ruleset.version`` of a server's games: the official rules release Snakewar plays."""

CLI_RULESET_VERSION: Final = "cli"
"""The ``ruleset.version`` of command-line games, as the official CLI sends it."""


def api_ruleset_version(origin: str) -> str:
    """The ``ruleset.version`` sent to snakes for a game whose stored origin is ``origin``.

    >>> api_ruleset_version(""), api_ruleset_version("ladder:main")
    ('cli', 'v1.2.3')
    """
    return CLI_RULESET_VERSION if origin == GameSource.CLI else RULES_VERSION


def api_game_source(origin: str) -> GameSource:
    """The ``game.source`` sent to snakes for a game whose stored origin is ``origin``.

    >>> [str(api_game_source(o)) for o in ("ladder:main", "tournament:x1", "custom", "")]
    ['league', 'tournament', 'custom', '']
    """
    if origin == GameSource.CLI:
        return GameSource.CLI
    if origin.startswith("ladder:"):
        return GameSource.LEAGUE
    if origin.startswith("tournament:"):
        return GameSource.TOURNAMENT
    # Anything else a server or the tester plays is a game someone set up by hand.
    return GameSource.CUSTOM


@dataclass(frozen=True, slots=True)
class GameInfo:
    """The API's ``game`` object."""

    id: str
    ruleset_name: str = "standard"
    ruleset_version: str = RULES_VERSION
    settings: Settings = field(default_factory=Settings)
    map: str = "standard"
    timeout: int = 500
    source: str = ""


def _fail(path: str, expected: str, value: Any) -> WireFormatError:
    shown = repr(value)
    if len(shown) > 80:
        shown = shown[:77] + "..."
    return WireFormatError(f"{path}: expected {expected}, got {shown}")


def _obj(value: Any, path: str) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise _fail(path, "an object", value)
    return value


def _int(obj: Mapping[str, Any], key: str, path: str) -> int:
    value = obj.get(key)
    if type(value) is not int:
        raise _fail(f"{path}.{key}", "an integer", value)
    return value


def _str(obj: Mapping[str, Any], key: str, path: str, default: str | None = None) -> str:
    value = obj.get(key, default)
    if not isinstance(value, str):
        raise _fail(f"{path}.{key}", "a string", value)
    return value


def _list(obj: Mapping[str, Any], key: str, path: str) -> list[Any]:
    value = obj.get(key)
    if value is None:
        return []  # some servers send null for empty lists
    if not isinstance(value, list):
        raise _fail(f"{path}.{key}", "a list", value)
    return value


def point_from_api(value: Any, path: str = "point") -> Point:
    """Parse a ``{"x": int, "y": int}`` coordinate.

    Raises:
        WireFormatError: if it is not one.
    """
    obj = _obj(value, path)
    return Point(_int(obj, "x", path), _int(obj, "y", path))


def snake_to_api(snake: Snake, info: SnakeInfo | None = None) -> dict[str, Any]:
    """Return the API ``Battlesnake`` object of ``snake``."""
    info = info or SnakeInfo()
    body = [{"x": p.x, "y": p.y} for p in snake.body]
    return {
        "id": snake.id,
        "name": info.name or snake.id,
        "latency": info.latency,
        "health": snake.health,
        "body": body,
        "head": dict(body[0]) if body else {"x": 0, "y": 0},
        "length": len(body),
        "shout": info.shout[:MAX_SHOUT_LENGTH],
        "squad": info.squad,
        "customizations": {"color": info.color, "head": info.head, "tail": info.tail},
    }


def snake_from_api(value: Any, path: str = "snake") -> tuple[Snake, SnakeInfo]:
    """Parse an API ``Battlesnake`` object into the rules snake and its display info.

    Raises:
        WireFormatError: if a field is missing or has the wrong type.
    """
    obj = _obj(value, path)
    sid = _str(obj, "id", path)
    body = tuple(
        point_from_api(p, f"{path}.body[{i}]") for i, p in enumerate(_list(obj, "body", path))
    )
    custom = obj.get("customizations") or {}
    custom = _obj(custom, f"{path}.customizations")
    latency = obj.get("latency", "0")
    info = SnakeInfo(
        name=_str(obj, "name", path, ""),
        latency=str(latency) if isinstance(latency, int | str) else "0",
        shout=_str(obj, "shout", path, "") if obj.get("shout") is not None else "",
        squad=_str(obj, "squad", path, "") if obj.get("squad") is not None else "",
        color=str(custom.get("color") or _DEFAULT_INFO.color),
        head=str(custom.get("head") or _DEFAULT_INFO.head),
        tail=str(custom.get("tail") or _DEFAULT_INFO.tail),
    )
    return Snake(sid, body, _int(obj, "health", path)), info


def board_to_api(state: BoardState, infos: Mapping[str, SnakeInfo] | None = None) -> dict[str, Any]:
    """Return the API ``board`` object: only alive snakes, in board order."""
    infos = infos or {}
    return {
        "height": state.height,
        "width": state.width,
        "snakes": [
            snake_to_api(s, infos.get(s.id)) for s in state.snakes if not s.eliminated_cause
        ],
        "food": [{"x": p.x, "y": p.y} for p in state.food],
        "hazards": [{"x": p.x, "y": p.y} for p in state.hazards],
    }


def board_from_api(
    value: Any, turn: int = 0, path: str = "board"
) -> tuple[BoardState, dict[str, SnakeInfo]]:
    """Parse an API ``board`` object (every snake in it is alive).

    Raises:
        WireFormatError: if the object is malformed or describes an invalid board.
    """
    obj = _obj(value, path)
    width, height = _int(obj, "width", path), _int(obj, "height", path)
    if not (1 <= width <= MAX_BOARD_SIZE and 1 <= height <= MAX_BOARD_SIZE):
        raise _fail(f"{path}.width/height", f"1..{MAX_BOARD_SIZE}", (width, height))
    snakes: list[Snake] = []
    infos: dict[str, SnakeInfo] = {}
    for i, item in enumerate(_list(obj, "snakes", path)):
        snake, info = snake_from_api(item, f"{path}.snakes[{i}]")
        snakes.append(snake)
        infos[snake.id] = info
    state = BoardState(
        turn=turn,
        width=width,
        height=height,
        snakes=tuple(snakes),
        food=tuple(
            point_from_api(p, f"{path}.food[{i}]") for i, p in enumerate(_list(obj, "food", path))
        ),
        hazards=tuple(
            point_from_api(p, f"{path}.hazards[{i}]")
            for i, p in enumerate(_list(obj, "hazards", path))
        ),
    )
    try:
        state.validate()
    except ValueError as exc:
        raise WireFormatError(f"{path}: {exc}") from None
    return state, infos


def game_to_api(game: GameInfo) -> dict[str, Any]:
    """Return the API ``game`` object."""
    return {
        "id": game.id,
        "ruleset": {
            "name": game.ruleset_name,
            "version": game.ruleset_version,
            "settings": game.settings.to_api(),
        },
        "map": game.map,
        "timeout": game.timeout,
        "source": game.source,
    }


def game_from_api(value: Any, path: str = "game") -> GameInfo:
    """Parse an API ``game`` object.

    Raises:
        WireFormatError: if it is malformed.
    """
    obj = _obj(value, path)
    ruleset = _obj(obj.get("ruleset", {}), f"{path}.ruleset")
    settings_obj = _obj(ruleset.get("settings") or {}, f"{path}.ruleset.settings")
    try:
        settings = Settings.from_api(settings_obj)
    except ValueError as exc:
        raise WireFormatError(f"{path}.ruleset.settings: {exc}") from None
    timeout = obj.get("timeout", 500)
    if type(timeout) is not int:
        raise _fail(f"{path}.timeout", "an integer", timeout)
    return GameInfo(
        id=_str(obj, "id", path, ""),
        ruleset_name=_str(ruleset, "name", f"{path}.ruleset", "standard"),
        ruleset_version=_str(ruleset, "version", f"{path}.ruleset", ""),
        settings=settings,
        map=_str(obj, "map", path, "standard"),
        timeout=timeout,
        source=_str(obj, "source", path, ""),
    )


def request_to_api(
    game: GameInfo,
    state: BoardState,
    you: str,
    infos: Mapping[str, SnakeInfo] | None = None,
) -> dict[str, Any]:
    """Return the body of ``/start``, ``/move`` or ``/end`` for the snake ``you``.

    ``you`` may be an eliminated snake (the ``/end`` request).

    Raises:
        KeyError: if ``you`` is not on the board.
    """
    infos = infos or {}
    return {
        "game": game_to_api(game),
        "turn": state.turn,
        "board": board_to_api(state, infos),
        "you": snake_to_api(state.snake(you), infos.get(you)),
    }


def request_from_api(value: Any) -> tuple[GameInfo, BoardState, str, dict[str, SnakeInfo]]:
    """Parse a request body into ``(game, state, you_id, infos)``.

    This is what a snake server does with ``/move``.  ``you`` need not be on the
    board (``/end`` after elimination); it is then not added to the state.

    Raises:
        WireFormatError: if the body is malformed.
    """
    obj = _obj(value, "request")
    game = game_from_api(obj.get("game"), "game")
    turn = _int(obj, "turn", "request")
    if turn < 0:
        raise _fail("request.turn", "a non-negative integer", turn)
    state, infos = board_from_api(obj.get("board"), turn)
    you, _ = snake_from_api(obj.get("you"), "you")
    return game, state, you.id, infos


@dataclass(frozen=True, slots=True)
class SnakeRequest:
    """A decoded ``/start``, ``/move`` or ``/end`` body: what one snake sees.

    ``board`` holds only the snakes that are alive (the API never shows the
    others), so ``you`` may be missing from it in ``/end``; ``you`` is always the
    recipient's own snake.  ``infos`` carries names, latencies, shouts and
    customizations by snake id.
    """

    game: GameInfo
    turn: int
    board: BoardState
    you: Snake
    infos: Mapping[str, SnakeInfo] = field(default_factory=dict)

    @property
    def wrapped(self) -> bool:
        """Whether the board wraps around its edges (the wrapped rulesets)."""
        return self.game.ruleset_name.startswith("wrapped")

    @property
    def opponents(self) -> tuple[Snake, ...]:
        """The other snakes on the board."""
        return tuple(s for s in self.board.snakes if s.id != self.you.id)

    def to_api(self) -> dict[str, Any]:
        """Return the JSON body."""
        return {
            "game": game_to_api(self.game),
            "turn": self.turn,
            "board": board_to_api(self.board, self.infos),
            "you": snake_to_api(self.you, self.infos.get(self.you.id)),
        }

    @classmethod
    def from_api(cls, value: Any) -> SnakeRequest:
        """Parse a JSON body.

        Raises:
            WireFormatError: if it is malformed, naming the bad field.
        """
        obj = _obj(value, "request")
        game = game_from_api(obj.get("game"), "game")
        turn = _int(obj, "turn", "request")
        if turn < 0:
            raise _fail("request.turn", "a non-negative integer", turn)
        board, infos = board_from_api(obj.get("board"), turn)
        you, you_info = snake_from_api(obj.get("you"), "you")
        if you.id not in infos:
            infos[you.id] = you_info
        return cls(game, turn, board, you, infos)


MOVES = ("up", "down", "left", "right")
"""The four move strings, exactly as the API spells them (case matters)."""


@dataclass(frozen=True, slots=True)
class MoveReply:
    """A snake's answer to ``/move``."""

    move: str
    shout: str = ""

    def to_api(self) -> dict[str, Any]:
        """Return the JSON reply (``shout`` only when there is one)."""
        out: dict[str, Any] = {"move": self.move}
        if self.shout:
            out["shout"] = self.shout[:MAX_SHOUT_LENGTH]
        return out


def move_reply_from_api(value: Any) -> MoveReply:
    """Validate a ``/move`` reply: ``move`` must be one of :data:`MOVES`.

    A missing or non-string ``shout`` is ignored (the official engine treats it as
    optional); a long one is cut to :data:`MAX_SHOUT_LENGTH` characters.

    Raises:
        WireFormatError: if there is no valid move.
    """
    obj = _obj(value, "reply")
    move = obj.get("move")
    if move not in MOVES:
        raise _fail("reply.move", "one of " + ", ".join(repr(m) for m in MOVES), move)
    shout = obj.get("shout")
    return MoveReply(str(move), shout[:MAX_SHOUT_LENGTH] if isinstance(shout, str) else "")


def api_schema() -> dict[str, Any]:
    """The API v1 JSON Schema shipped with Snakewar (strict: every field, nothing else).

    ``$defs`` holds ``SnakeRequest`` (the ``/start``, ``/move`` and ``/end`` bodies),
    ``MoveResponse`` and ``Metadata``.  Tools can validate what they send or receive
    against it; Snakewar's own tests validate every request the referee sends.  A copy:
    changing it changes nothing here.
    """
    return copy.deepcopy(API_V1_SCHEMA)
