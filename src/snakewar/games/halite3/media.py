"""Halite III's media: a frame drawn as the Halite viewer draws it, and the HTML replay.

:func:`draw_frame` is pure (an :class:`~snakewar.games.halite3.replay.hlt.HltReplay`
and a frame index in, a :class:`~snakewar.media.Scene` out) and follows the viewer's
canvas (``viewer/halite.js``, ``MapView.draw``) in one of its palettes (``view.js``'s
``PALETTES``: the default, or Okabe-Ito's for colour-blind eyes) and its page's light or
dark theme (``viewer.css``: the panel's colours):

* each cell's halite as the heat map's colour of ``sqrt(halite / richest)`` (the
  richest: the initial map's most, at least 1000);
* shipyards as squares and dropoffs as diamonds, darkened by 35 % black and outlined
  in their owner's colour;
* ships as discs darkened by 75 % near-black, ringed in their owner's colour, with an
  inner disc of that colour growing with the square root of their cargo (full at
  1000), and a dashed white ring when inspired;
* a red cross on the cells of the frame's shipwrecks.

The scene's shapes are opaque: the viewer's translucent fills are blended here with
the heat colour under them.  A panel beside the map (optional) shows the turn and each
player's halite, ships, cargo and deposits, as the viewer's scoreboard does.
:class:`HaliteMedia` reads Snakewar's and the official engine's ``.hlt`` files (zstd
or plain JSON), and an unfinished game's frames so far (its replay head and frames,
as a live viewer gets them: the adapter's ``media_replay``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from typing_extensions import override

from snakewar.engine.protocol import MediaCodec, MediaReplay
from snakewar.games.halite3.replay.hlt import HltReplay, read_hlt
from snakewar.media import Circle, Polygon, Polyline, Rect, Scene, Shape, Text, blend, hex_color
from snakewar.media.html import inline_page
from snakewar.replay._lines import ReplayError

__all__ = [
    "DARK_THEME",
    "HEAT_STOPS",
    "PALETTES",
    "PLAYERS",
    "THEME",
    "THEMES",
    "HaliteMedia",
    "Style",
    "cell_size",
    "draw_frame",
    "heat_colors",
    "heat_level",
]

PLAYERS = ("#f2a900", "#2f9e44", "#e03131", "#7048e8", "#1c7ed6", "#e8590c")
"""The players' colours in seat order: ``view.js``'s default palette."""

Stops = tuple[tuple[float, tuple[int, int, int]], ...]

HEAT_STOPS: Stops = (
    (0.0, (14, 22, 38)),
    (0.35, (22, 86, 110)),
    (0.7, (70, 170, 140)),
    (1.0, (250, 214, 92)),
)
"""The heat map's stops from an empty cell (0) to the richest (1): ``view.js``'s default."""

PALETTES: dict[str, tuple[tuple[str, ...], Stops]] = {
    "default": (PLAYERS, HEAT_STOPS),
    # For colour-blind eyes: the Okabe-Ito colours, and a heat map changing in lightness.
    "okabe-ito": (
        ("#e69f00", "#56b4e9", "#009e73", "#f0e442", "#0072b2", "#d55e00", "#cc79a7", "#ffffff"),
        (
            (0.0, (0, 32, 77)),
            (0.25, (64, 77, 107)),
            (0.5, (124, 123, 120)),
            (0.75, (188, 175, 111)),
            (1.0, (253, 231, 55)),
        ),
    ),
}
"""``view.js``'s palettes by name (``snakewar export --palette``): the players' colours
in seat order and the heat map's stops; the default first."""

_CANVAS = {
    "shade": "#000000",  # structures: rgb(0 0 0 / 35%)
    "hull": "#0a0c10",  # ships: rgb(10 12 16 / 75%)
    "wreck": "#ff4d4f",
    "inspired": "#ffffff",
}

THEME = {"panel": "#ffffff", "text": "#1c2230", "muted": "#8b93a1", **_CANVAS}
"""The viewer's colours besides the palette (``halite.js``, ``viewer.css``'s light theme)."""

DARK_THEME = {"panel": "#1b1f26", "text": "#e6e9ef", "muted": "#7d8696", **_CANVAS}
"""The dark theme (``viewer.css``'s ``[data-theme="dark"]``): the page's colours change,
the map's (``halite.js``'s canvas) do not."""

THEMES = {"light": THEME, "dark": DARK_THEME}
"""The themes a picture can be drawn in (``snakewar export --theme``), the default first."""

MAX_CARGO = 1000
"""A ship's cargo that fills its inner disc (``halite.js``'s ``MAX_CARGO``)."""

BOARD_PIXELS = 640
"""About how wide the map is drawn by default (its cells are whole pixels)."""


def cell_size(width: int, height: int) -> int:
    """A cell's side in scene units (and pixels at the default size) for a map.

    About :data:`BOARD_PIXELS` for the whole map, in whole pixels: 20 on 32x32 maps and
    10 on 64x64 ones; never under 6 (the viewer's least) nor over 24.
    """
    return max(6, min(24, math.ceil(BOARD_PIXELS / max(width, height, 1))))


def _js_round(x: float) -> int:
    """JavaScript's ``Math.round`` (halves up), not Python's (halves to even)."""
    return math.floor(x + 0.5)


def heat_colors(stops: Stops = HEAT_STOPS) -> tuple[str, ...]:
    """The heat map's 256 colours of ``stops``, as ``view.js``'s ``heatColors`` computes them.

    Its bytes are stored in a ``Uint8ClampedArray``, which rounds halves to even, as
    Python's :func:`round` does; the arithmetic is the same, in the same order.
    """
    out: list[str] = []
    for i in range(256):
        v = i / 255
        k = 0
        while k < len(stops) - 2 and v > stops[k + 1][0]:
            k += 1
        a, ca = stops[k]
        b, cb = stops[k + 1]
        f = (v - a) / (b - a)
        r, g, bl = (max(0, min(255, round(ca[j] + (cb[j] - ca[j]) * f))) for j in range(3))
        out.append(hex_color((r, g, bl)))
    return tuple(out)


HEAT = heat_colors()
"""The default palette's heat map colours."""


def heat_level(halite: int, richest: int) -> int:
    """The heat map's index (0..255) of a cell holding ``halite`` (``halite.js``)."""
    return min(255, _js_round(math.sqrt(max(0, halite) / richest) * 255))


@dataclass(frozen=True, slots=True)
class Style:
    """The colours a picture is drawn in: a theme's (:data:`THEMES`) and a palette's."""

    colors: dict[str, str]
    players: tuple[str, ...]
    heat: tuple[str, ...]

    @classmethod
    def of(cls, theme: str = "light", palette: str = "default") -> Style:
        """The style of ``theme`` and ``palette`` (names of :data:`THEMES`, :data:`PALETTES`)."""
        players, stops = PALETTES[palette]
        heat = HEAT if stops is HEAT_STOPS else heat_colors(stops)
        return cls(THEMES[theme], players, heat)

    def player(self, seat: int) -> str:
        """Player ``seat``'s colour (the palette repeats past its end, as the viewer's)."""
        return self.players[seat % len(self.players)] if seat >= 0 else "#888888"


DEFAULT_STYLE = Style.of()


def player_color(seat: int) -> str:
    """Player ``seat``'s colour in the default palette."""
    return DEFAULT_STYLE.player(seat)


@dataclass(frozen=True, slots=True)
class _Layout:
    """Where things go: the cell's side, the map's size and the panel's measures."""

    cell: float
    board_w: float
    board_h: float
    panel: float
    font: float


def _layout(replay: HltReplay, scoreboard: bool) -> _Layout:
    c = float(cell_size(replay.width, replay.height))
    board_w, board_h = replay.width * c, replay.height * c
    # The panel is the map's size over the viewer's sidebar (about 3/8 of the map).
    panel = max(board_w * 0.375, 180.0) if scoreboard else 0.0
    font = max(board_w, 320.0) / 40
    return _Layout(c, board_w, board_h, panel, font)


def _ring(cx: float, cy: float, r: float, width: float, dash: float, style: Style) -> list[Shape]:
    """A dashed ring (``setLineDash([dash, dash])``) as short arcs."""
    around = 2 * math.pi * r
    count = max(2, int(around / (2 * dash)))
    step = 2 * math.pi / count
    shapes: list[Shape] = []
    for k in range(count):
        a0, a1 = k * step, k * step + step / 2
        points = tuple(
            (cx + r * math.cos(a), cy + r * math.sin(a)) for a in (a0, (a0 + a1) / 2, a1)
        )
        shapes.append(Polyline(points, style.colors["inspired"], width))
    return shapes


def _map_shapes(replay: HltReplay, index: int, c: float, style: Style) -> list[Shape]:
    grid = replay.grid_at(index)
    richest = max(max((v for row in replay.initial_grid for v in row), default=0), 1000)
    heat: dict[tuple[int, int], str] = {}
    shapes: list[Shape] = []
    for y, row in enumerate(grid):
        # Runs of one colour are one rectangle: a mined-out area is a few shapes.
        x = 0
        while x < len(row):
            color = style.heat[heat_level(row[x], richest)]
            end = x + 1
            while end < len(row) and style.heat[heat_level(row[end], richest)] == color:
                end += 1
            for k in range(x, end):
                heat[(k, y)] = color
            shapes.append(Rect(x * c, y * c, (end - x) * c, c, color))
            x = end

    def under(x: int, y: int) -> str:
        return heat.get((x, y), style.heat[0])

    line = max(1.5, c / 8)
    shaded: dict[tuple[int, int], str] = {}
    for seat, player in enumerate(replay.players):
        x, y = player.factory
        shade = shaded[x, y] = blend(style.colors["shade"], under(x, y), 0.35)
        color = style.player(seat)
        # The stroke is centred on the square 1.5 in from the cell's edge.
        shapes.append(
            Rect(x * c + 1.5 - line / 2, y * c + 1.5 - line / 2, c - 3 + line, c - 3 + line, color)
        )
        shapes.append(
            Rect(x * c + 1.5 + line / 2, y * c + 1.5 + line / 2, c - 3 - line, c - 3 - line, shade)
        )
    seats = {p.id: seat for seat, p in enumerate(replay.players)}
    for dropoff in replay.dropoffs_at(index):
        x, y = dropoff.x, dropoff.y
        shade = shaded[x, y] = blend(style.colors["shade"], under(x, y), 0.35)
        color = style.player(seats.get(dropoff.owner, -1))
        cx, cy = x * c + c / 2, y * c + c / 2
        half = c / 2 - 1
        # A mitred stroke of a diamond reaches sqrt(2) half-widths past its corners.
        for h, fill in (
            (half + line / 2 * math.sqrt(2), color),
            (half - line / 2 * math.sqrt(2), shade),
        ):
            if h > 0:
                shapes.append(
                    Polygon(((cx, cy - h), (cx + h, cy), (cx, cy + h), (cx - h, cy)), fill)
                )
    r = c * 0.36
    hull_line = max(1.2, c / 10)
    for ship in replay.ships_at(index).values():
        cx, cy = ship.x * c + c / 2, ship.y * c + c / 2
        color = style.player(seats.get(ship.owner, -1))
        # A ship on a shipyard or a dropoff is drawn over its shade, not the bare cell.
        hull = blend(
            style.colors["hull"], shaded.get((ship.x, ship.y), under(ship.x, ship.y)), 0.75
        )
        shapes.append(Circle(cx, cy, r + hull_line / 2, color))
        shapes.append(Circle(cx, cy, max(0.0, r - hull_line / 2), hull))
        cargo = math.sqrt(min(1.0, max(0, ship.halite) / MAX_CARGO))
        if cargo > 0:
            shapes.append(Circle(cx, cy, max(1.0, r * cargo * 0.85), color))
        if ship.inspired:
            shapes.extend(_ring(cx, cy, r + max(1.5, c / 10), 1.0, 2.0, style))
    for event in replay.frames[index]["events"]:
        if event["type"] == "shipwreck":
            x, y = event["location"]["x"], event["location"]["y"]
            width = max(1.5, c / 8)
            shapes.append(
                Polyline(
                    ((x * c + 2, y * c + 2), (x * c + c - 2, y * c + c - 2)),
                    style.colors["wreck"],
                    width,
                )
            )
            shapes.append(
                Polyline(
                    ((x * c + c - 2, y * c + 2), (x * c + 2, y * c + c - 2)),
                    style.colors["wreck"],
                    width,
                )
            )
    return shapes


def _panel(replay: HltReplay, index: int, layout: _Layout, style: Style) -> list[Shape]:
    left = layout.board_w
    pad = layout.font
    x = left + pad
    size = layout.font
    out: list[Shape] = [Rect(left, 0, layout.panel, max(layout.board_h, 1), style.colors["panel"])]
    out.append(Text(x, pad * 1.2, f"Turn {index}", style.colors["text"], size * 1.25))
    energy = replay.energy_at(index)
    deposited = replay.deposited_at(index)
    ships = list(replay.ships_at(index).values())
    last = index == len(replay.frames) - 1
    # One row height on every frame (room for the final score): rows never jump.
    row_h = size * 5.0
    chars = max(6, int((layout.panel - pad * 2 - size * 1.4) / (size * 0.55)))
    for seat, player in enumerate(replay.players):
        top = pad * 2.6 + seat * row_h
        color = style.player(seat)
        out.append(Rect(x, top + size * 0.2, size, size, color, size * 0.25))
        name = player.name if len(player.name) <= chars else player.name[: chars - 1] + "…"
        out.append(Text(x + size * 1.4, top + size * 0.7, name, style.colors["text"], size))
        held = energy[player.id] if player.id < len(energy) else 0
        own = [s for s in ships if s.owner == player.id]
        carrying = sum(s.halite for s in own)
        banked = deposited[player.id] if player.id < len(deposited) else 0
        out.append(Text(x, top + size * 1.9, f"halite {held}", style.colors["text"], size * 0.85))
        out.append(
            Text(
                x,
                top + size * 2.9,
                f"{len(own)} ship{'' if len(own) == 1 else 's'} · carrying {carrying}"
                f" · deposited {banked}",
                style.colors["muted"],
                size * 0.7,
            )
        )
        if last and player.id < len(replay.statistics):
            stat = replay.statistics[player.id]
            score = stat.get("final_production", held)
            rank = replay.ranks[player.id] if player.id < len(replay.ranks) else "?"
            out.append(
                Text(
                    x,
                    top + size * 3.9,
                    f"final score {score} · rank {rank}",
                    style.colors["text"],
                    size * 0.7,
                )
            )
    return out


def draw_frame(
    replay: HltReplay, index: int, *, scoreboard: bool = True, style: Style = DEFAULT_STYLE
) -> Scene:
    """Frame ``index`` of ``replay`` as a scene: the map, and the panel on its right.

    ``style``: the theme's and the palette's colours (default: light, default palette).
    """
    layout = _layout(replay, scoreboard)
    height = layout.board_h
    if scoreboard:
        rows = len(replay.players) * layout.font * 5.0 + layout.font * 3.6
        height = max(height, rows)
    shapes: list[Shape] = [Rect(0, 0, layout.board_w + layout.panel, height, style.colors["panel"])]
    shapes.extend(_map_shapes(replay, index, layout.cell, style))
    if scoreboard:
        shapes.extend(_panel(replay, index, layout, style))
    return Scene(layout.board_w + layout.panel, height, tuple(shapes))


class _Replay(MediaReplay):
    def __init__(self, data: bytes, name: str, style: Style = DEFAULT_STYLE) -> None:
        # An unfinished game's frames so far draw as its turns played (no final scores).
        self._replay = read_hlt(data, name=name, unfinished=True)
        self._name = name
        self._style = style
        if not self._replay.frames:
            raise ReplayError(f"{name} holds no frame to draw")
        self.turns = tuple(range(len(self._replay.frames)))
        # A scene unit is a pixel by default: cell_size() picks whole-pixel cells.
        self.default_size = None

    @property
    def replay(self) -> HltReplay:
        """The replay as read."""
        return self._replay

    @override
    def scene(self, index: int, *, scoreboard: bool = True) -> Scene:
        return draw_frame(self._replay, index, scoreboard=scoreboard, style=self._style)

    @override
    def html(self, title: str) -> str:
        import json

        viewer = Path(__file__).parent / "viewer"
        # The viewer reads the document (browsers cannot unpack zstd); compact JSON.
        text = json.dumps(self._replay.document, separators=(",", ":"))
        return inline_page(viewer / "board.html", "halite3", viewer, text, self._name, title)


class HaliteMedia(MediaCodec):
    """Halite III's replay files (``.hlt``) as pictures, videos and HTML."""

    themes = tuple(THEMES)
    palettes = tuple(PALETTES)

    @override
    def load(
        self, data: bytes, name: str = "replay", *, theme: str = "", palette: str = ""
    ) -> _Replay:
        style = Style.of(theme or self.themes[0], palette or self.palettes[0])
        return _Replay(data, name, style)
