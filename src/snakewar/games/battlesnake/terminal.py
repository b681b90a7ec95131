"""Battlesnake replays in a terminal: the board and a table of the snakes, frame by frame.

Reads Snakewar replays and the official CLI's JSONL files (told apart by their first line).

A Snakewar replay of a game under the unofficial timing rules (a time bank, retry-once
on timeout) shows them: the rules under every frame's turn line and in the summary, with
each snake's count of timed-out, retried and late (bank-drawing) moves, and per turn a
``timing`` column: ``timed out``, ``retried`` (the first try timed out), ``bank -N ms
(M left)``.  The official CLI's JSONL has no place for them (its lines are strict API
shapes), so its files show none.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from snakewar.engine.protocol import TerminalReplay
from snakewar.games.battlesnake.records import CallOutcome, CallStatus, GameRecord
from snakewar.games.battlesnake.replay.format import Replay, load_replay
from snakewar.games.battlesnake.replay.official import (
    OfficialReplay,
    read_official_jsonl,
    sniff_replay,
)
from snakewar.games.battlesnake.rules.ascii import render_board, snake_letter
from snakewar.games.battlesnake.rules.types import BoardState, Point, Snake
from snakewar.replay._lines import ReplayError

__all__ = ["terminal_replay"]

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
    timing: str = ""


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
    timing: str = ""
    """The game's unofficial timing rules, shown under every frame's turn line ("": none)."""


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


def _timing_cells(record: GameRecord) -> list[dict[str, str]]:
    """Each turn's timing marks by snake id (frame 0's ``/start`` calls have none).

    ``timed out``, ``retried`` (its first try timed out) and what a move drew from its
    snake's bank; empty for a game under the official timing.
    """
    if record.timing.official:
        return [{} for _ in range(len(record.turns) + 1)]
    bank = dict.fromkeys((e.id for e in record.snakes), record.timing.time_bank_ms)
    out: list[dict[str, str]] = [{}]
    for turn in record.turns:
        cells: dict[str, str] = {}
        for sid, call in turn.calls.items():
            marks = []
            if call.status is CallStatus.TIMEOUT:
                marks.append("timed out")
            if call.first_try is not None:
                marks.append("retried")
            if call.bank_ms is not None:
                used = bank.get(sid, record.timing.time_bank_ms) - call.bank_ms
                bank[sid] = call.bank_ms
                if used > 0:
                    marks.append(f"bank -{used} ms ({call.bank_ms} left)")
            if marks:
                cells[sid] = ", ".join(marks)
        out.append(cells)
    return out


def _timing_summary(record: GameRecord, names: dict[str, str]) -> list[str]:
    """The timing rules and, per snake, its timed-out, retried and late moves."""
    if record.timing.official:
        return []
    lines = [f"timing (NOT the official rules): {record.timing.label()}"]
    timeout = record.timeout_ms
    for entry in record.snakes:
        calls = [t.calls[entry.id] for t in record.turns if entry.id in t.calls]
        late = [c for c in calls if c.ok and c.first_try is None and c.latency_ms > timeout]
        counts = [
            (sum(c.status is CallStatus.TIMEOUT for c in calls), "timed out"),
            (sum(c.first_try is not None for c in calls), "retried"),
            (len(late), "late (drawn from its bank)"),
        ]
        parts = [f"{n} {what}" for n, what in counts if n]
        banks = [c.bank_ms for c in calls if c.bank_ms is not None]
        if banks:
            parts.append(f"bank {banks[-1]} ms left")
        if parts:
            lines.append(f"  {names.get(entry.id, entry.id)}: {', '.join(parts)}")
    return lines


def _show_replay(replay: Replay) -> _Show:

    record = replay.record
    timing = _timing_cells(record)
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
                    timing=timing[number].get(snake.id, ""),
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
    summary.extend(_timing_summary(record, names))
    if replay.cut_line is not None:
        summary.append(f"note: line {replay.cut_line} is cut short (ignored)")
    colors = {e.id: e.color for e in record.snakes if e.color.lower() != "#888888"}
    rules = record.timing.label()
    shown = f"timing (NOT the official rules): {rules}" if rules else ""
    return _Show(frames, summary, names, colors, shown)


_STEPS = {(0, 1): "up", (0, -1): "down", (-1, 0): "left", (1, 0): "right"}


def _step_name(before: Point, after: Point, width: int, height: int) -> str:
    dx, dy = after.x - before.x, after.y - before.y
    # A wrapped board's edge crossing shows as a jump across the board.
    dx = 1 if dx == -(width - 1) else -1 if dx == width - 1 else dx
    dy = 1 if dy == -(height - 1) else -1 if dy == height - 1 else dy
    return _STEPS.get((dx, dy), "")


def _show_official(replay: OfficialReplay) -> _Show:

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


def _load(data: bytes, name: str) -> _Show:
    if sniff_replay(data, name) == "official":
        show = _show_official(read_official_jsonl(data, name=name))
    else:
        show = _show_replay(load_replay(data, name=name))
    if not show.frames:
        raise ReplayError(f"{name} holds no frame to show")
    return show


def _draw(console: Console, show: _Show, index: int, *, color: bool, unicode: bool) -> None:

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
    if show.timing:
        console.print(show.timing, markup=False)
    console.print(Text.from_ansi(board) if color else board, markup=False, soft_wrap=True)
    table = Table(show_edge=False, pad_edge=False)
    columns = (
        "",
        "name",
        "length",
        "health",
        "move",
        "status",
        "latency",
        "timing",
        "shout",
        "result",
    )
    cells = [
        (
            row.letter,
            row.name,
            str(row.length),
            str(row.health),
            row.move,
            row.status,
            row.latency,
            row.timing,
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


def terminal_replay(data: bytes, name: str) -> TerminalReplay:
    """A Snakewar replay or official JSONL file, ready to draw in a terminal.

    Raises:
        ReplayError: a file that cannot be read, or one with no frame.
    """
    show = _load(data, name)

    def draw(console: Any, index: int, color: bool, unicode: bool) -> None:
        _draw(console, show, index, color=color, unicode=unicode)

    return TerminalReplay(tuple(f.turn for f in show.frames), draw, tuple(show.summary))
