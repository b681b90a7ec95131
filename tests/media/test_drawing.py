"""The pure drawing of a Battlesnake frame (state in, shapes out), without any file."""

from __future__ import annotations

import itertools
import xml.etree.ElementTree as ET

from snakewar.games.battlesnake.media import (
    THEME,
    DrawnFrame,
    DrawnSnake,
    draw_frame,
    safe_color,
)
from snakewar.games.battlesnake.rules.types import Point
from snakewar.media import Circle, Polyline, Text, blend, to_svg


def frame(*snakes: DrawnSnake, turn: int = 5) -> DrawnFrame:
    return DrawnFrame(turn, 5, 5, (Point(4, 4),), (Point(0, 0), Point(0, 0)), snakes)


def test_a_body_across_a_wrapped_edge_is_two_lines_not_one_across_the_board() -> None:
    body = (Point(0, 2), Point(4, 2), Point(3, 2))  # head at x=0, neck across the edge
    scene = draw_frame(frame(DrawnSnake("a", "A", "#123456", body, 90)), scoreboard=False)
    lines = [s for s in scene.shapes if isinstance(s, Polyline)]
    assert len(lines) == 1  # the head's piece is one point: only the neck-tail piece
    assert all(abs(a[0] - b[0]) <= 20 for a, b in itertools.pairwise(lines[0].points))
    straight = (Point(1, 2), Point(2, 2), Point(3, 2))
    scene = draw_frame(frame(DrawnSnake("a", "A", "#123456", straight, 90)), scoreboard=False)
    assert len([s for s in scene.shapes if isinstance(s, Polyline)]) == 1


def test_the_dead_fade_on_their_turn_and_are_gone_after() -> None:
    dead = DrawnSnake("d", "D", "#ff0000", (Point(1, 1), Point(1, 2)), 0, eliminated_on=5)
    on_turn = draw_frame(frame(dead, turn=5), scoreboard=False)
    faded = blend("#ff0000", THEME["cell"], 0.35)
    assert any(isinstance(s, Circle) and s.fill == faded for s in on_turn.shapes)
    later = draw_frame(frame(dead, turn=6), scoreboard=False)
    assert not any(isinstance(s, Circle) and s.fill == faded for s in later.shapes)


def test_stacked_hazards_are_darker_and_bad_colours_are_grey() -> None:
    scene = draw_frame(frame(DrawnSnake("a", "<b>", "red;x", (Point(2, 2),) * 3, 100)))
    fills = {getattr(s, "fill", None) for s in scene.shapes}
    assert blend(THEME["hazard"], THEME["cell"], 0.45) in fills  # two stacked: 0.3 + 0.15
    assert safe_color("red;x") == "#888888" and "#888888" in fills
    assert safe_color("#ABC") == "#aabbcc"
    root = ET.fromstring(to_svg(scene))  # a name with markup is text, not markup
    texts = [el.text for el in root.iter("{http://www.w3.org/2000/svg}text")]
    assert any(t and t.startswith("<b>") for t in texts)
    assert any(isinstance(s, Text) and s.text == "Turn 5" for s in scene.shapes)
