"""``snakewar replay``: show a replay in the terminal, or verify it.

``snakewar replay FILE`` is ``snakewar replay show FILE``: any first argument that
is not a subcommand name is taken as the file (so a file named ``verify`` needs
``snakewar replay show verify``).  It reads Snakewar replays and the official
CLI's JSONL files (told apart by their first line).

* In a terminal it is interactive: Enter or ``n`` next frame, ``p`` previous,
  a number jumps to that turn, ``f``/``l`` first/last, ``q`` quits.
* ``--turn N`` prints turn N; ``--all`` prints every frame; otherwise (output
  piped, input not a terminal) it prints the final frame and a summary.

``snakewar replay verify FILE`` plays the game again from its seed and moves and
prints ``OK: N turns, digest ...`` (exit 0) or the first difference (exit 1).
A file that cannot be read is one ``error:`` line, exit 2.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import typer
from typer.core import TyperGroup

from snakewar.errors import SnakewarError

if TYPE_CHECKING:
    # Imported when used, so that `snakewar --help` stays fast.
    from rich.console import Console

    from snakewar.games.battlesnake.types import BoardState, Point
    from snakewar.referee.records import CallOutcome
    from snakewar.replay import OfficialReplay, Replay

__all__ = ["ReplayCommandError", "replay_app"]

_PROMPT = "[Enter/n] next  p previous  NUMBER turn  f first  l last  q quit > "


class ReplayCommandError(SnakewarError, ValueError):
    """Raised for a ``snakewar replay`` option that does not fit the file."""


class _ShowByDefault(TyperGroup):
    """A group whose unknown first arguments are handed to ``show`` (``replay FILE``)."""

    # ``ctx`` is click's Context, which newer typers vendor: typed loosely to fit both.
    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ctx.help_option_names:
            args = ["show", *args]
        return super().parse_args(ctx, args)


replay_app = typer.Typer(
    cls=_ShowByDefault,
    help="Show a replay file in the terminal (replay FILE), or verify it (replay verify FILE).",
    no_args_is_help=True,
)


# -- what is shown ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Row:
    letter: str
    name: str
    length: int
    health: int
    move: str = ""
    status: str = ""
    latency: str = ""
    shout: str = ""
    result: str = ""


@dataclass(frozen=True, slots=True)
class _Frame:
    turn: int
    state: BoardState
    rows: list[_Row]


@dataclass(slots=True)
class _Show:
    frames: list[_Frame]
    summary: list[str]
    names: dict[str, str]
    colors: dict[str, str] = field(default_factory=dict)


def _outcome_cells(call: CallOutcome | None) -> dict[str, str]:
    if call is None:
        return {}
    status = str(call.status)
    if call.http_status is not None and not call.ok:
        status += f" {call.http_status}"
    if call.error:
        error = call.error if len(call.error) <= 40 else call.error[:37] + "..."
        status += f": {error}"
    return {
        "move": call.move,
        "status": status,
        "latency": f"{call.latency_ms} ms",
        "shout": call.shout,
    }


def _show_replay(replay: Replay) -> _Show:
    from snakewar.games.battlesnake.ascii import snake_letter

    record = replay.record
    names = {e.id: e.name for e in record.snakes}
    result = record.result
    frames_data = [(record.initial, record.start)] + [(t.after, t.calls) for t in record.turns]
    frames = []
    for number, (state, calls) in enumerate(frames_data):
        final = number == len(frames_data) - 1
        rows = []
        for index, snake in enumerate(state.snakes):
            if snake.eliminated_cause:
                by = snake.eliminated_by
                outcome = str(snake.eliminated_cause)
                if by and by != snake.id:
                    outcome += f" by {names.get(by, by)}"
                outcome += f" on turn {snake.eliminated_on_turn}"
            elif final and result is not None and result.winner == snake.id:
                outcome = "winner"
            else:
                outcome = "alive"
            rows.append(
                _Row(
                    letter=snake_letter(index),
                    name=names.get(snake.id, snake.id),
                    length=len(snake.body),
                    health=snake.health,
                    result=outcome,
                    **_outcome_cells(calls.get(snake.id)),
                )
            )
        frames.append(_Frame(state.turn, state, rows))
    config = record.config
    summary = [
        f"game {record.id}: ruleset {config.ruleset}, map {config.map}, "
        f"{config.width}x{config.height}, seed {config.seed}, {len(record.turns)} turns"
    ]
    if result is None:
        summary.append("Unfinished game: the file has no result line.")
    elif result.winner is not None:
        summary.append(
            f"{names.get(result.winner, result.winner)} ({result.winner}) was the winner."
        )
    elif result.is_draw:
        summary.append("It was a draw.")
    elif result.reason == "max_turns":
        summary.append(f"Stopped at the turn limit after {result.turns} turns.")
    else:
        summary.append(f"No winner ({result.reason}).")
    if replay.cut_line is not None:
        summary.append(f"note: line {replay.cut_line} is cut short (ignored)")
    colors = {e.id: e.color for e in record.snakes if e.color.lower() != "#888888"}
    return _Show(frames, summary, names, colors)


_STEPS = {(0, 1): "up", (0, -1): "down", (-1, 0): "left", (1, 0): "right"}


def _step_name(before: Point, after: Point, width: int, height: int) -> str:
    dx, dy = after.x - before.x, after.y - before.y
    # A wrapped board's edge crossing shows as a jump across the board.
    dx = 1 if dx == -(width - 1) else -1 if dx == width - 1 else dx
    dy = 1 if dy == -(height - 1) else -1 if dy == height - 1 else dy
    return _STEPS.get((dx, dy), "")


def _show_official(replay: OfficialReplay) -> _Show:
    from snakewar.games.battlesnake.ascii import snake_letter
    from snakewar.games.battlesnake.types import Snake

    order: dict[str, Snake] = {}  # every snake seen, first-seen order, with its last state
    names: dict[str, str] = {}
    gone: dict[str, int] = {}
    colors: dict[str, str] = {}
    frames = []
    for number, frame in enumerate(replay.frames):
        state = frame.state
        alive = {s.id: s for s in state.snakes}
        previous = dict(order)
        for snake in state.snakes:
            order[snake.id] = snake
            info = frame.infos.get(snake.id)
            names.setdefault(snake.id, info.name if info and info.name else snake.id)
            if info and info.color.lower() != "#888888":
                colors.setdefault(snake.id, info.color)
        for sid in order:
            if sid not in alive:
                gone.setdefault(sid, frame.turn)
        final = number == len(replay.frames) - 1
        rows = []
        for index, (sid, snake) in enumerate(order.items()):
            info = frame.infos.get(sid)
            if sid in alive:
                before = previous.get(sid)
                move = (
                    _step_name(before.body[0], snake.body[0], state.width, state.height)
                    if before is not None and before.body and snake.body
                    else ""
                )
                won = final and replay.result is not None and replay.result.winner_id == sid
                rows.append(
                    _Row(
                        snake_letter(index),
                        names[sid],
                        len(snake.body),
                        snake.health,
                        move=move,
                        latency=f"{info.latency} ms" if info else "",
                        shout=info.shout if info else "",
                        result="winner" if won else "alive",
                    )
                )
            else:
                rows.append(
                    _Row(
                        snake_letter(index),
                        names[sid],
                        len(snake.body),
                        snake.health,
                        result=f"eliminated on turn {gone[sid]}",
                    )
                )
        # Keep every snake in the drawn state, so letters stay put as snakes die; the
        # eliminated ones have no body there and are not drawn.
        board = state.replace(snakes=tuple(alive.get(sid, Snake(sid, (), 0)) for sid in order))
        frames.append(_Frame(frame.turn, board, rows))
    game = replay.game
    turns = replay.frames[-1].turn if replay.frames else 0
    first = replay.frames[0].state if replay.frames else None
    size = f"{first.width}x{first.height}, " if first is not None else ""
    summary = [
        f"official CLI game {game.id}: ruleset {game.ruleset_name}, map {game.map}, "
        f"{size}{turns} turns"
    ]
    result = replay.result
    if result is None:
        summary.append("Unfinished game: the file has no winner line.")
    elif result.winner_id:
        summary.append(f"{result.winner_name} ({result.winner_id}) was the winner.")
    elif result.is_draw:
        summary.append("It was a draw.")
    else:
        summary.append("There was no winner.")
    if replay.cut_line is not None:
        summary.append(f"note: line {replay.cut_line} is cut short (ignored)")
    return _Show(frames, summary, names, colors)


def _load(path: str) -> _Show:
    from snakewar.replay import load_replay, read_official_jsonl, sniff_replay

    if sniff_replay(path) == "official":
        show = _show_official(read_official_jsonl(path))
    else:
        show = _show_replay(load_replay(path))
    if not show.frames:
        raise ReplayCommandError(f"{path!r} holds no frame to show")
    return show


# -- drawing ---------------------------------------------------------------------------


def _draw(console: Console, show: _Show, index: int, *, color: bool, unicode: bool) -> None:
    from rich.table import Table
    from rich.text import Text

    from snakewar.games.battlesnake.ascii import render_board

    frame = show.frames[index]
    board = render_board(
        frame.state,
        color=color,
        unicode=unicode,
        colors=show.colors,
        names=show.names,
        legend=False,
    )
    console.print(f"turn {frame.turn} (frame {index + 1} of {len(show.frames)})", markup=False)
    console.print(Text.from_ansi(board) if color else board, markup=False, soft_wrap=True)
    table = Table(show_edge=False, pad_edge=False)
    columns = ("", "name", "length", "health", "move", "status", "latency", "shout", "result")
    cells = [
        (
            row.letter,
            row.name,
            str(row.length),
            str(row.health),
            row.move,
            row.status,
            row.latency,
            row.shout,
            row.result,
        )
        for row in frame.rows
    ]
    # Leave out the call columns that say nothing here (official files have no status).
    keep = [i for i, name in enumerate(columns) if i < 4 or any(c[i] for c in cells)]
    for i in keep:
        table.add_column(columns[i], overflow="fold")
    for c in cells:
        table.add_row(*(c[i] for i in keep))
    console.print(table)


def _browse(
    console: Console,
    show: _Show | _HaliteShow,
    draw: Callable[[int], None],
    read: Callable[[str], str] = input,
) -> None:
    """The interactive viewer: one frame at a time, driven by short commands."""
    frames: Sequence[_Frame | _HaliteFrame] = show.frames
    by_turn: Mapping[int, int] = {f.turn: i for i, f in enumerate(frames)}
    index, last, message = 0, len(frames) - 1, ""
    while True:
        if console.is_terminal:
            console.clear()
        draw(index)
        if message:
            console.print(message, markup=False)
        try:
            answer = read(_PROMPT)
        except (EOFError, KeyboardInterrupt):
            console.print()
            return
        command, message = answer.strip().lower(), ""
        if command in ("", "n"):
            if index < last:
                index += 1
            else:
                message = "this is the last frame (q quits)"
        elif command == "p":
            if index > 0:
                index -= 1
            else:
                message = "this is the first frame"
        elif command == "f":
            index = 0
        elif command == "l":
            index = last
        elif command == "q":
            return
        elif command.isdigit():
            if int(command) in by_turn:
                index = by_turn[int(command)]
            else:
                message = f"no turn {command} here (turns {frames[0].turn}..{frames[-1].turn})"
        else:
            message = f"unknown command {answer.strip()!r}"


# -- Halite III (.hlt) -----------------------------------------------------------------

_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
_HEAT = " .:-=+*#%@"
_PLAYER_STYLES = ("bold red", "bold cyan", "bold green", "bold magenta", "bold yellow", "bold blue")


def _is_hlt(path: str) -> bool:
    """A Halite III replay: a ``.hlt`` name, or zstd bytes (the official compression)."""
    if path.endswith(".hlt"):
        return True
    try:
        with open(path, "rb") as handle:
            return handle.read(4) == _ZSTD_MAGIC
    except OSError:
        return False


@dataclass(frozen=True, slots=True)
class _HaliteFrame:
    turn: int


@dataclass(slots=True)
class _HaliteShow:
    replay: Any
    frames: list[_HaliteFrame]
    summary: list[str]


def _load_halite(path: str) -> _HaliteShow:
    from snakewar.replay.hlt import read_hlt

    replay = read_hlt(path)
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
    from rich.table import Table
    from rich.text import Text

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


# -- commands --------------------------------------------------------------------------


@replay_app.command("show")
def show_command(
    file: str = typer.Argument(
        ..., metavar="FILE", help="A Snakewar replay, official JSONL or Halite III .hlt file."
    ),
    turn: int | None = typer.Option(None, "-t", "--turn", help="Print this turn and exit."),
    all_frames: bool = typer.Option(False, "-a", "--all", help="Print every frame."),
    color: bool = typer.Option(False, "-c", "--color", help="Draw in colour."),
    interactive: bool | None = typer.Option(
        None,
        "--interactive/--no-interactive",
        help="Step through the frames (default: when input is a terminal).",
    ),
) -> None:
    """Show a replay: interactively in a terminal, else its final frame and a summary."""
    from rich.console import Console

    if turn is not None and all_frames:
        raise ReplayCommandError("--turn and --all cannot be used together")
    console = Console(highlight=False, force_terminal=True if color else None)
    unicode = (sys.stdout.encoding or "").lower().replace("-", "").startswith("utf")
    show: _Show | _HaliteShow
    if _is_hlt(file):
        halite = _load_halite(file)
        show = halite

        def draw(index: int) -> None:
            _draw_halite(console, halite, index, color=color)

    else:
        snake_show = _load(file)
        show = snake_show

        def draw(index: int) -> None:
            _draw(console, snake_show, index, color=color, unicode=unicode)

    if turn is not None:
        listed: Sequence[_Frame | _HaliteFrame] = show.frames
        matches = [i for i, f in enumerate(listed) if f.turn == turn]
        if not matches:
            raise ReplayCommandError(
                f"turn {turn} is not in {file!r} "
                f"(it has turns {show.frames[0].turn}..{show.frames[-1].turn})"
            )
        draw(matches[0])
        return
    if all_frames:
        for index in range(len(show.frames)):
            draw(index)
    elif interactive or (interactive is None and sys.stdin.isatty()):
        _browse(console, show, draw)
    else:
        draw(len(show.frames) - 1)
    for line in show.summary:
        console.print(line, markup=False, soft_wrap=True)


@replay_app.command("verify")
def verify_command(
    file: str = typer.Argument(
        ..., metavar="FILE", help="A Snakewar replay or a Halite III .hlt replay."
    ),
) -> None:
    """Play the game again from its seed and moves; print OK or the first difference."""
    from snakewar.replay import ReplayError, load_replay, sniff_replay, verify_replay

    if _is_hlt(file):
        from snakewar.replay.hlt import read_hlt
        from snakewar.replay.hlt_verify import verify_hlt

        result = verify_hlt(read_hlt(file))
        if not result.ok:
            typer.echo(f"FAILED: {result.message}")
            raise typer.Exit(1)
        typer.echo(result.message)
        return
    if sniff_replay(file) == "official":
        raise ReplayError(
            f"{file} is an official CLI JSONL file: it records no seed, so it cannot be "
            "played again (only Snakewar replays can be verified)"
        )
    replay = load_replay(file)
    report = verify_replay(replay)
    for note in replay.notes:
        typer.echo(f"note: {note}")
    if not report.ok:
        typer.echo(f"FAILED: {report.message}")
        raise typer.Exit(1)
    typer.echo(report.message)
