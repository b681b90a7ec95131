"""A terminal rendering of a board, like the official CLI's ``--viewmap``/``--color``.

Each square is two characters wide so the board keeps its proportions.  Snake
``i`` is drawn with the letter ``A + i``: upper case for the head, lower case
for the body.  Food is ``*`` (``●`` with ``unicode=True``); hazards are ``░``,
darker when stacked (``▒`` for two, ``▓`` for three or more).  Row 0 is at the
bottom, as on the official board.

With ``color=True`` the output carries ANSI colours: each snake in its own
colour (its ``#rrggbb`` customization if given), hazards on a grey background.
This module is pure: it returns a string and prints nothing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from snakewar.games.battlesnake.rules.types import BoardState, Point

__all__ = ["render_board", "snake_letter"]

_PALETTE = ("#e6194b", "#3cb44b", "#4363d8", "#f58231", "#911eb4", "#42d4f4", "#f032e6", "#bfef45")
_RESET = "\x1b[0m"


def snake_letter(index: int) -> str:
    """The letter of the ``index``-th snake: ``A``..``Z`` then ``a``.. cycles."""
    return chr(ord("A") + index % 26)


def _fg(hex_color: str) -> str:
    h = hex_color.lstrip("#")
    if len(h) != 6 or any(c not in "0123456789abcdefABCDEF" for c in h):
        return ""
    r, g, b = int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16)
    return f"\x1b[1;38;2;{r};{g};{b}m"


def render_board(
    state: BoardState,
    *,
    color: bool = False,
    unicode: bool = True,
    colors: Mapping[str, str] | None = None,
    names: Mapping[str, str] | None = None,
    legend: bool = True,
) -> str:
    """Return a multi-line drawing of ``state``.

    >>> from snakewar.games.battlesnake.rules.types import Snake
    >>> s = BoardState(1, 3, 2, (Snake("a", (Point(0, 0), Point(1, 0))),), (Point(2, 1),))
    >>> print(render_board(s, unicode=False, legend=False))
     1 .  .  *
     0 A  a  .
       0  1  2
    """
    colors = colors or {}
    names = names or {}
    food_ch = "●" if unicode else "*"
    empty_ch = "·" if unicode else "."
    hazard_chs = ("░", "▒", "▓") if unicode else ("x", "X", "#")
    hazards = Counter(state.hazards)
    food = set(state.food)
    cells: dict[Point, tuple[str, str]] = {}
    for index, snake in enumerate(state.snakes):
        if snake.eliminated_cause or not snake.body:
            continue
        letter = snake_letter(index)
        tint = _fg(colors.get(snake.id, _PALETTE[index % len(_PALETTE)])) if color else ""
        # Draw tail first so the head wins where segments overlap.
        for p in reversed(snake.body[1:]):
            cells[p] = (letter.lower(), tint)
        cells[snake.body[0]] = (letter, tint)
    width_label = len(str(max(state.height - 1, 0)))
    lines = []
    for y in range(state.height - 1, -1, -1):
        row = [f"{y:>{width_label + 1}} "]
        for x in range(state.width):
            p = Point(x, y)
            stack = hazards.get(p, 0)
            if p in cells:
                ch, tint = cells[p]
            elif p in food:
                ch, tint = food_ch, "\x1b[1;38;2;255;92;117m" if color else ""
            elif stack:
                ch, tint = hazard_chs[min(stack, 3) - 1], ""
            else:
                ch, tint = empty_ch, "\x1b[2m" if color else ""
            cell = f"{ch}  "[:3] if x < state.width - 1 else ch
            if color and stack:
                cell = f"\x1b[48;5;{240 - 2 * min(stack, 4)}m{tint}{cell}{_RESET}"
            elif color and tint:
                cell = f"{tint}{cell}{_RESET}"
            row.append(cell)
        lines.append("".join(row).rstrip())
    lines.append(" " * (width_label + 2) + "".join(f"{x:<3}" for x in range(state.width)).rstrip())
    if legend:
        lines.append(f"turn {state.turn}")
        for index, snake in enumerate(state.snakes):
            name = names.get(snake.id, snake.id)
            status = (
                f"eliminated: {snake.eliminated_cause} on turn {snake.eliminated_on_turn}"
                if snake.eliminated_cause
                else f"health {snake.health:>3}  length {len(snake.body)}"
            )
            lines.append(f"  {snake_letter(index)}  {name:<20} {status}")
    return "\n".join(lines)
