"""Battlesnake's media: a frame drawn as the board viewer draws it, and the HTML replay.

:func:`draw_frame` is pure (a :class:`DrawnFrame` in, a :class:`~snakewar.media.Scene`
out): the cells, hazards (darker per stack), food and snakes in the viewer's light
theme (``viewer.css``), a snake's body as a thick line between cell centres, broken
where it crosses a wrapped edge, its head a disc with an eye looking ahead and its tail
a wedge pointing back; snakes eliminated on the frame's own turn are faded, earlier
ones are gone, as on the board.  A scoreboard (name, length, health bar) may stand
beside the board.  :class:`SnakeMedia` reads the replay files :mod:`snakewar export
<snakewar.cli.export>` is given (Snakewar replays and official CLI JSONL).
"""

from __future__ import annotations

import gzip
import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from typing_extensions import override

from snakewar.engine.protocol import MediaCodec, MediaReplay
from snakewar.games.battlesnake.replay.format import load_replay
from snakewar.games.battlesnake.replay.official import read_official_jsonl, sniff_replay
from snakewar.games.battlesnake.rules.types import BoardState, Point
from snakewar.media import Circle, Polygon, Polyline, Rect, Scene, Shape, Text, blend
from snakewar.media.html import inline_page
from snakewar.replay._lines import ReplayError

__all__ = ["DARK_THEME", "THEME", "THEMES", "DrawnFrame", "DrawnSnake", "SnakeMedia", "draw_frame"]

CELL = 20.0
"""One cell in scene units (the viewer's ``CELL``)."""
GAP = CELL * 0.06
BORDER = CELL * 0.25
BODY = CELL * 0.8
ROW = CELL * 1.2
PANEL = CELL * 9

THEME = {
    "board": "#d3d8df",
    "cell": "#f7f8fa",
    "food": "#e0403a",
    "hazard": "#2e3440",
    "panel": "#ffffff",
    "text": "#1c2230",
    "muted": "#8b93a1",
    "track": "#e5e7eb",
}
"""The viewer's light theme (``viewer.css``), the colours a picture is drawn in."""

DARK_THEME = {
    "board": "#0d0f13",
    "cell": "#343b48",
    "food": "#ff5c5c",
    "hazard": "#000000",
    "panel": "#1b1f26",
    "text": "#e6e9ef",
    "muted": "#7d8696",
    "track": "#2c323c",
}
"""The viewer's dark theme (``viewer.css``, ``[data-theme="dark"]``)."""

THEMES = {"light": THEME, "dark": DARK_THEME}
"""The themes a picture can be drawn in (``snakewar export --theme``), the default first."""

DEFAULT_COLOR = "#888888"


def safe_color(color: str) -> str:
    """``color`` when it is a hex colour, else the engine's grey (as the viewer does)."""
    digits = color[1:] if color.startswith("#") else "x"
    ok = len(digits) in (3, 6) and all(c in "0123456789abcdefABCDEF" for c in digits)
    if not ok:
        return DEFAULT_COLOR
    if len(digits) == 3:
        digits = "".join(c * 2 for c in digits)
    return "#" + digits.lower()


@dataclass(frozen=True, slots=True)
class DrawnSnake:
    """A snake as drawn: ``eliminated_on`` is the turn it died (``None``: alive)."""

    id: str
    name: str
    color: str
    body: tuple[Point, ...]
    health: int
    eliminated_on: int | None = None


@dataclass(frozen=True, slots=True)
class DrawnFrame:
    """One frame to draw: the board and every snake the game had (in seat order)."""

    turn: int
    width: int
    height: int
    food: tuple[Point, ...]
    hazards: tuple[Point, ...]
    snakes: tuple[DrawnSnake, ...]


def _centre(p: Point, height: int) -> tuple[float, float]:
    return (p.x + 0.5) * CELL + BORDER, (height - p.y - 0.5) * CELL + BORDER


def _distinct(body: Sequence[Point]) -> list[Point]:
    out: list[Point] = []
    for p in body:
        if not out or out[-1] != p:
            out.append(p)
    return out


def _snake_shapes(snake: DrawnSnake, height: int, color: str, eye: str) -> list[Shape]:
    pts = _distinct(snake.body)
    if not pts:
        return []
    shapes: list[Shape] = []
    pieces: list[list[tuple[float, float]]] = [[_centre(pts[0], height)]]
    for a, b in itertools.pairwise(pts):
        if abs(a.x - b.x) + abs(a.y - b.y) > 1:  # across a wrapped edge: a new piece
            pieces.append([])
        pieces[-1].append(_centre(b, height))
    for piece in pieces:
        if len(piece) >= 2:
            shapes.append(Polyline(tuple(piece), color, BODY))
    hx, hy = _centre(pts[0], height)
    # The head looks away from its neck (up when stacked on one cell, as at turn 0).
    dx, dy = (0, -1) if len(pts) < 2 else _direction(pts[1], pts[0])
    shapes.append(Circle(hx, hy, CELL * 0.45, color))
    shapes.append(
        Circle(
            hx + dx * CELL * 0.22 - dy * CELL * 0.15,
            hy + dy * CELL * 0.22 + dx * CELL * 0.15,
            CELL * 0.09,
            eye,
        )
    )
    if len(pts) >= 2:
        tx, ty = _centre(pts[-1], height)
        bx, by = _direction(pts[-2], pts[-1])  # from the segment before the tail outward
        half = CELL * 0.4
        tip = (tx + bx * CELL * 0.5, ty + by * CELL * 0.5)
        base = (tx - bx * CELL * 0.1, ty - by * CELL * 0.1)
        shapes.append(
            Polygon(
                (
                    (base[0] - by * half, base[1] + bx * half),
                    tip,
                    (base[0] + by * half, base[1] - bx * half),
                ),
                color,
            )
        )
    return shapes


def _direction(a: Point, b: Point) -> tuple[int, int]:
    """The picture's direction (y down) of one step from ``a`` to ``b``, wraps folded."""
    dx, dy = b.x - a.x, b.y - a.y
    if abs(dx) > 1:
        dx = -1 if dx > 0 else 1
    if abs(dy) > 1:
        dy = -1 if dy > 0 else 1
    return dx, -dy


def draw_frame(frame: DrawnFrame, *, scoreboard: bool = True, theme: str = "light") -> Scene:
    """``frame`` as a scene: the board, and the scoreboard on its right when asked.

    ``theme``: one of :data:`THEMES` (the viewer's light or dark colours).
    """
    colors = THEMES[theme]
    board_w = frame.width * CELL + 2 * BORDER
    board_h = frame.height * CELL + 2 * BORDER
    rows_h = BORDER * 2 + ROW * (len(frame.snakes) + 1)
    width = board_w + (PANEL if scoreboard else 0)
    height = max(board_h, rows_h) if scoreboard else board_h
    shapes: list[Shape] = [Rect(0, 0, width, height, colors["panel"])]
    shapes.append(Rect(0, 0, board_w, board_h, colors["board"], CELL / 4))

    def cell(p: Point, fill: str) -> Rect:
        return Rect(
            p.x * CELL + GAP + BORDER,
            (frame.height - 1 - p.y) * CELL + GAP + BORDER,
            CELL - 2 * GAP,
            CELL - 2 * GAP,
            fill,
            CELL * 0.12,
        )

    for y in range(frame.height):
        for x in range(frame.width):
            shapes.append(cell(Point(x, y), colors["cell"]))
    on_board = [p for p in frame.hazards if 0 <= p.x < frame.width and 0 <= p.y < frame.height]
    stacks: dict[Point, int] = {}
    for p in on_board:
        stacks[p] = stacks.get(p, 0) + 1
    for p, n in stacks.items():
        opacity = min(0.3 + 0.15 * (n - 1), 0.8)  # the viewer's hazardOpacity
        shapes.append(cell(p, blend(colors["hazard"], colors["cell"], opacity)))
    for p in frame.food:
        if 0 <= p.x < frame.width and 0 <= p.y < frame.height:
            cx, cy = _centre(p, frame.height)
            shapes.append(Circle(cx, cy, CELL * 0.28, colors["food"]))
    shown = [s for s in frame.snakes if s.eliminated_on in (None, frame.turn)]
    # The eliminated first, so that the living are drawn over them.
    for snake in sorted(shown, key=lambda s: s.eliminated_on is None):
        color = safe_color(snake.color)
        if snake.eliminated_on is not None:
            color = blend(color, colors["cell"], 0.35)
        shapes.extend(_snake_shapes(snake, frame.height, color, colors["cell"]))
    if scoreboard:
        shapes.extend(_scoreboard(frame, board_w, colors))
    return Scene(width, height, tuple(shapes))


def _scoreboard(frame: DrawnFrame, left: float, colors: dict[str, str]) -> list[Shape]:
    x = left + BORDER * 2
    bar_w = PANEL - BORDER * 4 - CELL
    out: list[Shape] = [Text(x, BORDER + ROW / 2, f"Turn {frame.turn}", colors["text"], CELL * 0.6)]
    for i, snake in enumerate(frame.snakes):
        top = BORDER + ROW * (i + 1)
        alive = snake.eliminated_on is None
        color = safe_color(snake.color)
        out.append(Rect(x, top + ROW * 0.15, CELL * 0.7, CELL * 0.7, color, CELL * 0.15))
        name = snake.name if len(snake.name) <= 18 else snake.name[:17] + "…"
        label = f"{name} ({len(snake.body)})" if alive else f"{name} (out)"
        out.append(
            Text(
                x + CELL,
                top + ROW * 0.3,
                label,
                colors["text"] if alive else colors["muted"],
                CELL * 0.45,
            )
        )
        out.append(Rect(x + CELL, top + ROW * 0.62, bar_w, CELL * 0.18, colors["track"]))
        health = max(0, min(100, snake.health)) if alive else 0
        if health:
            out.append(Rect(x + CELL, top + ROW * 0.62, bar_w * health / 100, CELL * 0.18, color))
    return out


# -- replays -----------------------------------------------------------------------------


def _frames_of_replay(data: bytes, name: str) -> list[DrawnFrame]:
    record = load_replay(data, name=name).record
    entries = {e.id: e for e in record.snakes}
    states: list[BoardState] = [record.initial, *(t.after for t in record.turns)]
    out = []
    for state in states:
        by_id = {s.id: s for s in state.snakes}
        snakes = []
        for entry in record.snakes:
            snake = by_id.get(entry.id)
            if snake is None:
                continue
            dead = snake.eliminated_on_turn if snake.eliminated_cause else None
            snakes.append(
                DrawnSnake(entry.id, entry.name, entry.color, snake.body, snake.health, dead)
            )
        for snake in state.snakes:  # snakes with no entry (hand-made files): by id
            if snake.id not in entries:
                dead = snake.eliminated_on_turn if snake.eliminated_cause else None
                snakes.append(
                    DrawnSnake(snake.id, snake.id, DEFAULT_COLOR, snake.body, snake.health, dead)
                )
        out.append(
            DrawnFrame(
                state.turn, state.width, state.height, state.food, state.hazards, tuple(snakes)
            )
        )
    return out


def _frames_of_official(data: bytes, name: str) -> list[DrawnFrame]:
    replay = read_official_jsonl(data, name=name)
    out = []
    seen: dict[str, DrawnSnake] = {}
    for item in replay.frames:
        state = item.state
        alive = {s.id for s in state.snakes}
        for snake in state.snakes:
            info = item.infos.get(snake.id)
            old = seen.get(snake.id)
            seen[snake.id] = DrawnSnake(
                snake.id,
                info.name if info and info.name else (old.name if old else snake.id),
                info.color if info else (old.color if old else DEFAULT_COLOR),
                snake.body,
                snake.health,
            )
        # The file shows the living only: a snake gone is out from the turn it left.
        for sid, gone in list(seen.items()):
            if sid not in alive and gone.eliminated_on is None:
                seen[sid] = DrawnSnake(
                    sid, gone.name, gone.color, gone.body, gone.health, item.turn
                )
        out.append(
            DrawnFrame(
                item.turn,
                state.width,
                state.height,
                state.food,
                state.hazards,
                tuple(seen.values()),
            )
        )
    return out


def _text(data: bytes) -> bytes:
    if data[:2] == b"\x1f\x8b":
        try:
            return gzip.decompress(data)
        except (OSError, EOFError) as exc:
            raise ReplayError(f"a gzip file that does not unpack: {exc}") from None
    return data


class _Replay(MediaReplay):
    def __init__(self, data: bytes, name: str, theme: str = "light") -> None:
        self._data = _text(data)
        self._name = name
        self._theme = theme
        if sniff_replay(self._data, name) == "official":
            self._frames = _frames_of_official(self._data, name)
        else:
            self._frames = _frames_of_replay(self._data, name)
        if not self._frames:
            raise ReplayError(f"{name} holds no frame to draw")
        self.turns = tuple(f.turn for f in self._frames)

    @property
    def frames(self) -> tuple[DrawnFrame, ...]:
        """The frames as drawn, turn 0 first."""
        return tuple(self._frames)

    @override
    def scene(self, index: int, *, scoreboard: bool = True) -> Scene:
        return draw_frame(self._frames[index], scoreboard=scoreboard, theme=self._theme)

    @override
    def html(self, title: str) -> str:
        viewer = Path(__file__).parent / "viewer"
        text = self._data.decode("utf-8", "replace")
        return inline_page(viewer / "board.html", "battlesnake", viewer, text, self._name, title)


class SnakeMedia(MediaCodec):
    """Battlesnake's replay files as pictures, videos and HTML."""

    themes = tuple(THEMES)

    @override
    def load(
        self, data: bytes, name: str = "replay", *, theme: str = "", palette: str = ""
    ) -> _Replay:
        # One palette: the snakes' own colours (their /start's, as the viewer shows them).
        del palette
        return _Replay(data, name, theme or self.themes[0])
