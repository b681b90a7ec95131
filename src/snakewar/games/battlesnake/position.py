"""Starting positions: a game played on from a board, not set up from the seed.

A position is read from one of three JSON shapes (:func:`parse_position`):

* Snakewar's own, what :func:`position_json` writes (``snakewar play --from-position``,
  the editor's download, the server's ``position`` parameter)::

      {"format": "snakewar-position", "version": 1, "state": STATE,
       "names": ["a", ...], "forked_from": {"game": GAME_ID, "turn": 40}}

  ``STATE`` is a replay's board state (:meth:`BoardState.to_dict`): eliminated snakes
  stay in it, so a fork keeps every seat of the game it comes from.
* an API v1 request body (what a snake's ``/move`` gets: ``game``, ``turn``, ``board``,
  ``you``); only ``board`` is needed, ``turn`` defaults to 0;
* a bare API v1 ``board`` object.

Every field is checked and size-capped before anything is built, and a problem is a
:class:`~snakewar.errors.ParamsError` naming the field (``board.snakes[1].body[3]``).
The snakes of a position are its seats, in order; their ids are replaced by the game's
own (:func:`seated_state`), so any snakes can play any position.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from snakewar.errors import ParamsError
from snakewar.games.battlesnake.rules.types import (
    MAX_BOARD_SIZE,
    SNAKE_MAX_HEALTH,
    BoardState,
    EliminationCause,
    Point,
    Snake,
)

__all__ = [
    "MAX_POSITION_SNAKES",
    "POSITION_FORMAT",
    "Position",
    "parse_position",
    "position_json",
    "seated_state",
]

POSITION_FORMAT = "snakewar-position"
MAX_POSITION_SNAKES = 16
"""The most snakes a position holds (the most a Battlesnake game has)."""
MAX_TURN = 1_000_000
"""The latest turn a position may be at."""
_MAX_ID = 64
_MAX_NAME = 64
_GAME_ID = re.compile(r"[A-Za-z0-9._:-]{1,64}")
_CAUSES = frozenset(str(c) for c in EliminationCause)


@dataclass(frozen=True, slots=True)
class Position:
    """A checked position: the board, each seat's name, and where it came from."""

    state: BoardState
    names: tuple[str, ...] = ()
    """Each seat's name as the position gives it (``""``: none)."""
    forked_from: dict[str, Any] | None = None
    """``{"game": GAME_ID, "turn": N}`` for a turn of a game; ``None`` for a drawn one."""


def _fail(field: str, message: str) -> ParamsError:
    return ParamsError(field, f"{field}: {message}")


def _obj(value: Any, field: str) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise _fail(field, f"expected an object, got {type(value).__name__}")
    return value


def _int(value: Any, field: str, low: int, high: int) -> int:
    if type(value) is not int:
        raise _fail(field, f"expected an integer, got {type(value).__name__}")
    if not low <= value <= high:
        raise _fail(field, f"{value} is out of range (expected {low}..{high})")
    return value


def _list(value: Any, field: str, most: int) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise _fail(field, f"expected a list, got {type(value).__name__}")
    # Counted before any item is read: a huge list costs nothing but this check.
    if len(value) > most:
        raise _fail(field, f"{len(value)} items: at most {most}")
    return value


def _text(value: Any, field: str, most: int, default: str = "") -> str:
    if value is None:
        return default
    if not isinstance(value, str):
        raise _fail(field, f"expected a string, got {type(value).__name__}")
    if len(value) > most or not value.isprintable():
        raise _fail(field, f"expected printable text of at most {most} characters")
    return value


class _Reader:
    """Reads points against one board's size."""

    def __init__(self, width: int, height: int) -> None:
        self.width = width
        self.height = height

    def point(self, value: Any, field: str, *, margin: int = 0) -> Point:
        # API points are {"x", "y"}; Snakewar's are [x, y].
        if isinstance(value, list) and len(value) == 2:
            x, y = value
        elif isinstance(value, dict):
            x, y = value.get("x"), value.get("y")
        else:
            raise _fail(field, 'expected a point, {"x": X, "y": Y} or [X, Y]')
        # ``margin``: an eliminated snake's head may be just off the board (it left it).
        low = -margin
        return Point(
            _int(x, f"{field}.x", low, self.width - 1 + margin),
            _int(y, f"{field}.y", low, self.height - 1 + margin),
        )

    def points(self, value: Any, field: str, most: int, margin: int = 0) -> tuple[Point, ...]:
        items = _list(value, field, most)
        return tuple(self.point(p, f"{field}[{i}]", margin=margin) for i, p in enumerate(items))


def _size(obj: Mapping[str, Any], field: str, max_side: int) -> tuple[int, int]:
    prefix = f"{field}." if field else ""
    return (
        _int(obj.get("width"), f"{prefix}width", 1, max_side),
        _int(obj.get("height"), f"{prefix}height", 1, max_side),
    )


def _api_snake(value: Any, field: str, reader: _Reader) -> tuple[Snake, str]:
    obj = _obj(value, field)
    sid = _text(obj.get("id"), f"{field}.id", _MAX_ID)
    if not sid:
        raise _fail(f"{field}.id", "expected a non-empty id")
    cells = reader.width * reader.height
    body = reader.points(obj.get("body"), f"{field}.body", cells)
    if not body:
        raise _fail(f"{field}.body", "expected at least one point")
    health = _int(obj.get("health", SNAKE_MAX_HEALTH), f"{field}.health", 1, SNAKE_MAX_HEALTH)
    return Snake(sid, body, health), _text(obj.get("name"), f"{field}.name", _MAX_NAME)


def _state_snake(value: Any, field: str, reader: _Reader) -> tuple[Snake, str]:
    obj = _obj(value, field)
    cause = _text(obj.get("eliminated_cause"), f"{field}.eliminated_cause", 32)
    if cause not in _CAUSES:
        raise _fail(f"{field}.eliminated_cause", f"unknown cause {cause!r}")
    if not cause:
        return _api_snake(value, field, reader)
    sid = _text(obj.get("id"), f"{field}.id", _MAX_ID)
    if not sid:
        raise _fail(f"{field}.id", "expected a non-empty id")
    cells = reader.width * reader.height
    items = _list(obj.get("body"), f"{field}.body", cells + 1)
    body = tuple(reader.point(p, f"{field}.body[{i}]", margin=1) for i, p in enumerate(items))
    snake = Snake(
        sid,
        body,
        _int(obj.get("health", 0), f"{field}.health", -(2**31), SNAKE_MAX_HEALTH),
        EliminationCause(cause),
        _text(obj.get("eliminated_by"), f"{field}.eliminated_by", _MAX_ID),
        _int(obj.get("eliminated_on_turn", 0), f"{field}.eliminated_on_turn", 0, MAX_TURN),
    )
    return snake, _text(obj.get("name"), f"{field}.name", _MAX_NAME)


def _board(
    obj: Mapping[str, Any],
    field: str,
    turn: int,
    max_side: int,
    *,
    snakewar: bool,
) -> tuple[BoardState, list[str]]:
    width, height = _size(obj, field, max_side)
    reader = _Reader(width, height)
    prefix = f"{field}." if field else ""
    raw = _list(obj.get("snakes"), f"{prefix}snakes", MAX_POSITION_SNAKES)
    if not raw:
        raise _fail(f"{prefix}snakes", "expected at least one snake")
    snakes: list[Snake] = []
    names: list[str] = []
    for i, item in enumerate(raw):
        where = f"{prefix}snakes[{i}]"
        read = _state_snake if snakewar else _api_snake
        snake, name = read(item, where, reader)
        if any(s.id == snake.id for s in snakes):
            raise _fail(f"{where}.id", f"{snake.id!r} is the id of another snake")
        snakes.append(snake)
        names.append(name)
    if not any(s.is_alive for s in snakes):
        raise _fail(f"{prefix}snakes", "expected at least one snake alive")
    cells = width * height
    state = BoardState(
        turn=turn,
        width=width,
        height=height,
        snakes=tuple(snakes),
        food=reader.points(obj.get("food"), f"{prefix}food", cells),
        # Hazards may stack (a cell in several of them deals their damage each); a game's
        # own board may hold some off it (snail mode's below it), which a fork keeps.
        hazards=reader.points(
            obj.get("hazards"),
            f"{prefix}hazards",
            4 * cells,
            margin=max(width, height) if snakewar else 0,
        ),
    )
    try:
        state.validate()
    except ValueError as exc:  # pragma: no cover - every field was checked above
        raise _fail(field or "board", str(exc)) from None
    return state, names


def _forked_from(value: Any) -> dict[str, Any] | None:
    if value is None:
        return None
    obj = _obj(value, "forked_from")
    game = obj.get("game")
    if not isinstance(game, str) or not _GAME_ID.fullmatch(game):
        raise _fail("forked_from.game", "expected a game id (letters, digits, . _ : -)")
    return {"game": game, "turn": _int(obj.get("turn"), "forked_from.turn", 0, MAX_TURN)}


def parse_position(value: Any, *, max_side: int = MAX_BOARD_SIZE) -> Position:
    """Check a position in any of the module's three shapes and return it.

    Args:
        value: the parsed JSON.
        max_side: the widest and tallest board taken (a server's cap).

    Raises:
        ParamsError: naming the first field at fault (``board.snakes[0].body[2].x``).
    """
    obj = _obj(value, "position")
    if obj.get("format") == POSITION_FORMAT:
        version = obj.get("version", 1)
        if version != 1:
            raise _fail("version", f"expected 1, got {version!r}")
        state_obj = _obj(obj.get("state"), "state")
        turn = _int(state_obj.get("turn", 0), "state.turn", 0, MAX_TURN)
        state, names = _board(state_obj, "state", turn, max_side, snakewar=True)
        given = _list(obj.get("names"), "names", MAX_POSITION_SNAKES)
        for i, name in enumerate(given):
            if i < len(names):
                names[i] = _text(name, f"names[{i}]", _MAX_NAME) or names[i]
        return Position(state, tuple(names), _forked_from(obj.get("forked_from")))
    if "board" in obj:
        turn = _int(obj.get("turn", 0), "turn", 0, MAX_TURN)
        state, names = _board(_obj(obj["board"], "board"), "board", turn, max_side, snakewar=False)
        return Position(state, tuple(names))
    if "width" in obj and "snakes" in obj:
        state, names = _board(obj, "", 0, max_side, snakewar=False)
        return Position(state, tuple(names))
    raise ParamsError(
        "position",
        "position: expected a Snakewar position ('format': 'snakewar-position'), an API v1 "
        "request body (with 'board') or an API v1 board (with 'width' and 'snakes')",
    )


def position_json(position: Position) -> dict[str, Any]:
    """The position in Snakewar's shape (what :func:`parse_position` reads back)."""
    out: dict[str, Any] = {
        "format": POSITION_FORMAT,
        "version": 1,
        "state": position.state.to_dict(),
        "names": list(position.names),
    }
    if position.forked_from is not None:
        out["forked_from"] = dict(position.forked_from)
    return out


def seated_state(state: BoardState, ids: Sequence[str]) -> BoardState:
    """``state`` with its snakes' ids replaced, seat by seat, by ``ids`` (a game's own).

    ``eliminated_by`` follows the renaming; an id that names no snake of the state is
    kept.  A fork of a game played with the same seed and seat count gets its own ids
    back (they derive from the seed and seat), so its snakes see what they saw.

    Raises:
        ParamsError: if ``ids`` has another count than the state's snakes.
    """
    if len(ids) != len(state.snakes):
        raise ParamsError(
            "snakes",
            f"snakes: the position has {len(state.snakes)} snakes, {len(ids)} were given",
        )
    renamed = {s.id: new for s, new in zip(state.snakes, ids, strict=True)}
    snakes = tuple(
        s._replace(id=renamed[s.id], eliminated_by=renamed.get(s.eliminated_by, s.eliminated_by))
        for s in state.snakes
    )
    return state.replace(snakes=snakes)
