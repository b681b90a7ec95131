"""Halite III replays in a terminal: the map as a heat map, ships and structures, frame by frame."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from snakewar.engine.protocol import TerminalReplay
from snakewar.games.halite3.replay.hlt import HltReplay, read_hlt

__all__ = ["terminal_replay"]


_HEAT = " .:-=+*#%@"
_PLAYER_STYLES = ("bold red", "bold cyan", "bold green", "bold magenta", "bold yellow", "bold blue")


@dataclass(frozen=True, slots=True)
class _HaliteFrame:
    turn: int


@dataclass(slots=True)
class _HaliteShow:
    replay: HltReplay
    frames: list[_HaliteFrame]
    summary: list[str]


def _load_halite(data: bytes, name: str) -> _HaliteShow:
    replay = read_hlt(data, name=name)
    frames = [_HaliteFrame(t) for t in range(len(replay.frames))]
    names = [p.name for p in replay.players]
    ranking = sorted(range(replay.num_players), key=lambda pid: replay.ranks[pid])
    summary = [
        f"Halite III game, seed {replay.seed}, {replay.width}x{replay.height}, "
        f"{replay.num_players} players, {replay.turns_played} turns "
        f"(engine {replay.engine_version})",
        "Ranks: "
        + ", ".join(
            f"{replay.ranks[pid]}. {names[pid]} "
            f"({replay.statistics[pid].get('final_production', 0)} halite)"
            for pid in ranking
        ),
    ]
    return _HaliteShow(replay, frames, summary)


def _draw_halite(console: Console, show: _HaliteShow, index: int, *, color: bool) -> None:
    """One frame: the map as a heat map of halite, ships as player digits, then a table.

    Shipyards are capital letters (A = player 0), dropoffs lower-case ones.
    """
    replay = show.replay
    turn = show.frames[index].turn
    # Ships of frame t stand where turn t starts; draw them on the map before turn t.
    grid = replay.grid_at(max(0, turn - 1))
    cells: dict[tuple[int, int], tuple[str, int]] = {}
    for p in replay.players:
        cells[p.factory] = (chr(ord("A") + p.id % 26), p.id)
    for d in replay.dropoffs_at(max(0, turn - 1)):
        cells[(d.x, d.y)] = (chr(ord("a") + d.owner % 26), d.owner)
    for ship in replay.ships_at(turn).values():
        cells[(ship.x, ship.y)] = (str(ship.owner % 10), ship.owner)
    top = max(1, replay.constants.get("MAX_CELL_PRODUCTION", 1000))
    text = Text()
    for y, row in enumerate(grid):
        for x, value in enumerate(row):
            mark = cells.get((x, y))
            if mark is not None:
                style = _PLAYER_STYLES[mark[1] % len(_PLAYER_STYLES)] if color else ""
                text.append(mark[0], style=style)
            else:
                level = min(len(_HEAT) - 1, value * len(_HEAT) // (top + 1))
                text.append(_HEAT[level], style="dim" if color else "")
        text.append("\n")
    last = len(show.frames) - 1
    label = "initial state" if turn == 0 else "final state" if turn == last else f"turn {turn}"
    console.print(f"{label} (frame {index + 1} of {len(show.frames)})", markup=False)
    console.print(text, soft_wrap=True)
    table = Table(show_edge=False, pad_edge=False)
    for column in ("", "name", "halite", "ships", "dropoffs", "deposited", "rank"):
        table.add_column(column)
    energy = replay.energy_at(turn)
    deposited = replay.deposited_at(turn)
    ships = replay.ships_at(turn).values()
    dropoffs = replay.dropoffs_at(turn)
    for p in replay.players:
        table.add_row(
            chr(ord("A") + p.id % 26),
            p.name,
            str(energy[p.id]),
            str(sum(1 for s in ships if s.owner == p.id)),
            str(sum(1 for d in dropoffs if d.owner == p.id)),
            str(deposited[p.id]),
            str(replay.ranks[p.id]) if turn == last else "",
        )
    console.print(table)


def terminal_replay(data: bytes, name: str) -> TerminalReplay:
    """A ``.hlt`` file, ready to draw in a terminal.

    Raises:
        HltReplayError: a file that cannot be read.
    """
    show = _load_halite(data, name)

    def draw(console: Any, index: int, color: bool, unicode: bool) -> None:
        del unicode  # the heat map is ASCII
        _draw_halite(console, show, index, color=color)

    return TerminalReplay(tuple(f.turn for f in show.frames), draw, tuple(show.summary))
