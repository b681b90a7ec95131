"""The official CLI's replay file: what ``battlesnake play --output FILE`` writes.

JSON Lines, compact, one object per line (spec §12, ``cli/commands/output.go``)::

    {"id": GAME_ID, "ruleset": {"name": "standard", "version": "cli", "settings": {...}},
     "map": "standard", "timeout": 500, "source": ""}
    {"game": {...}, "turn": 0, "board": {...}, "you": {...}}     one API v1 request per frame:
    {"game": {...}, "turn": 1, "board": {...}, "you": {...}}     turn 0, then the state after
    ...                                                          each turn, the final one included
    {"winnerId": "...", "winnerName": "...", "isDraw": false}

Line 1 is the API ``game`` object (ruleset version ``"cli"``, source ``""``, the
settings with missing values as 0).  ``board.snakes`` lists only the snakes still
alive; each carries its name, the latency of its last reply (a string of
milliseconds), its last shout and its customizations.  The official CLI fills
``you`` with an arbitrary snake; Snakewar writes the first snake in placement
order, as it is at that turn even once eliminated.  The last line uses Go's zero
values (empty strings) when there is no winner.

The format records no seed and no elimination causes, so it can be shown but not
re-simulated; :func:`read_official_jsonl` reads it back as frames.
"""

from __future__ import annotations

import json
import os
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from snakewar.errors import SnakewarError
from snakewar.games.battlesnake.records import GameRecord
from snakewar.games.battlesnake.replay.format import FORMAT_NAME
from snakewar.games.battlesnake.rules.types import BoardState, Snake
from snakewar.games.battlesnake.rules.wire import (
    CLI_RULESET_VERSION,
    GameInfo,
    SnakeInfo,
    SnakeRequest,
    game_from_api,
    game_to_api,
)
from snakewar.replay._lines import (
    MAX_FILE_BYTES,
    MAX_LINE_BYTES,
    JsonLine,
    ReplayError,
    ReplaySource,
    json_lines,
    short,
    source_name,
)

__all__ = [
    "OfficialFrame",
    "OfficialReplay",
    "OfficialResult",
    "official_jsonl_lines",
    "read_official_jsonl",
    "sniff_replay",
    "write_official_jsonl",
]


def _dumps(value: Any) -> str:
    # Go's encoding/json writes compact objects in struct field order.
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def official_game_info(record: GameRecord) -> GameInfo:
    """The API ``game`` object the official CLI would send for ``record``'s game."""
    return GameInfo(
        id=record.id,
        ruleset_name=record.config.ruleset,
        ruleset_version=CLI_RULESET_VERSION,
        settings=record.config.settings,
        map=record.config.map,
        timeout=record.timeout_ms,
        source="",
    )


def official_jsonl_lines(record: GameRecord) -> list[str]:
    """Return the lines (without newlines) of the official CLI's JSONL for ``record``.

    The winner line is written only when the record has a result (the CLI writes
    the file once the game is over).
    """
    game = official_game_info(record)
    entries = {e.id: e for e in record.snakes}
    latency = {e.id: "0" for e in record.snakes}
    shout = {e.id: "" for e in record.snakes}
    you_id = record.snakes[0].id
    lines = [_dumps(game_to_api(game))]
    frames = [(record.initial, None)] + [(t.after, t.calls) for t in record.turns]
    for state, calls in frames:
        # Each frame shows the latency and shout of the reply that led to it.
        for sid, call in (calls or {}).items():
            latency[sid] = str(call.latency_ms)
            shout[sid] = call.shout
        infos = {
            sid: SnakeInfo(
                name=entry.name,
                latency=latency[sid],
                shout=shout[sid],
                color=entry.color,
                head=entry.head,
                tail=entry.tail,
                author=entry.author,
            )
            for sid, entry in entries.items()
        }
        board = state.replace(snakes=state.alive_snakes)
        request = SnakeRequest(game, state.turn, board, state.snake(you_id), infos)
        lines.append(_dumps(request.to_api()))
    result = record.result
    if result is not None:
        winner = result.winner or ""
        lines.append(
            _dumps(
                {
                    "winnerId": winner,
                    "winnerName": entries[winner].name if winner in entries else "",
                    "isDraw": result.is_draw,
                }
            )
        )
    return lines


def write_official_jsonl(record: GameRecord, path: str | os.PathLike[str]) -> Path:
    """Write the official CLI's JSONL for ``record`` to ``path`` (truncating it).

    Raises:
        ReplayError: if the file cannot be written.
    """
    target = Path(path)
    try:
        target.write_text(
            "".join(line + "\n" for line in official_jsonl_lines(record)), encoding="utf-8"
        )
    except OSError as exc:
        raise ReplayError(f"cannot write {os.fspath(path)!r}: {exc.strerror or exc}") from None
    return target


@dataclass(frozen=True, slots=True)
class OfficialFrame:
    """One request line: the board at ``turn`` (alive snakes only) and the snakes' infos."""

    turn: int
    state: BoardState
    infos: dict[str, SnakeInfo]
    you: Snake


@dataclass(frozen=True, slots=True)
class OfficialResult:
    """The last line: ``winner_id`` and ``winner_name`` are ``""`` when nobody won."""

    winner_id: str
    winner_name: str
    is_draw: bool


@dataclass(frozen=True, slots=True)
class OfficialReplay:
    """An official CLI JSONL file as read."""

    name: str
    game: GameInfo
    frames: list[OfficialFrame] = field(default_factory=list)
    result: OfficialResult | None = None
    """``None`` when the file has no winner line (cut short)."""
    cut_line: int | None = None
    """The number of a last line cut short while being written (dropped), if any."""


def _is_game_object(value: Any) -> bool:
    return isinstance(value, dict) and "ruleset" in value and "id" in value and "turn" not in value


def read_official_jsonl(
    source: ReplaySource,
    *,
    max_line_bytes: int = MAX_LINE_BYTES,
    max_file_bytes: int = MAX_FILE_BYTES,
    name: str | None = None,
) -> OfficialReplay:
    """Read an official CLI JSONL file (``battlesnake play --output``).

    Raises:
        ReplayError: for a missing, empty, damaged or foreign file, or a line that
            is not the API object expected there (naming the line and field).
    """
    name = name or source_name(source)
    cut: list[int] = []
    lines = json_lines(
        source, max_line_bytes=max_line_bytes, max_file_bytes=max_file_bytes, cut=cut, name=name
    )
    first = next(lines, None)
    if first is None:
        if cut:
            raise ReplayError(f"{name}: line 1 is cut short")
        raise ReplayError(f"{name} is empty (expected an official CLI JSONL file)")
    if isinstance(first.value, dict) and first.value.get("format") == FORMAT_NAME:
        raise ReplayError(
            f"{name} is a Snakewar replay, not an official CLI JSONL file "
            "(read it with snakewar.games.battlesnake.replay.format.read_replay)"
        )
    if not _is_game_object(first.value):
        raise ReplayError(
            f"{name} is not an official CLI JSONL file (line 1 is not an API 'game' object "
            f"with 'id' and 'ruleset'), got {short(first.value)}"
        )
    game = _wire(name, first, lambda v: game_from_api(v, "game"))
    frames: list[OfficialFrame] = []
    result: OfficialResult | None = None
    for item in lines:
        if result is not None:
            raise ReplayError(f"{name}: line {item.number}: unexpected line after the winner line")
        value = item.value
        if isinstance(value, dict) and ("winnerId" in value or "isDraw" in value):
            result = _result(name, item)
            continue
        request = _wire(name, item, SnakeRequest.from_api)
        expected = frames[-1].turn + 1 if frames else 0
        if request.turn != expected:
            raise ReplayError(
                f"{name}: line {item.number}: field 'turn': expected {expected} "
                f"(frames follow one another), got {request.turn}"
            )
        frames.append(OfficialFrame(request.turn, request.board, dict(request.infos), request.you))
    return OfficialReplay(name, game, frames, result, cut[0] if cut else None)


def _wire(name: str, line: JsonLine, parse: Any) -> Any:
    try:
        return parse(line.value)
    except SnakewarError as exc:
        raise ReplayError(f"{name}: line {line.number}: {exc}") from None


def _result(name: str, line: JsonLine) -> OfficialResult:
    value = line.value
    winner_id, winner_name, is_draw = (
        value.get("winnerId", ""),
        value.get("winnerName", ""),
        value.get("isDraw", False),
    )
    for key, item, ok in (
        ("winnerId", winner_id, isinstance(winner_id, str)),
        ("winnerName", winner_name, isinstance(winner_name, str)),
        ("isDraw", is_draw, isinstance(is_draw, bool)),
    ):
        if not ok:
            expected = "true or false" if key == "isDraw" else "a string"
            raise ReplayError(
                f"{name}: line {line.number}: field {key!r}: expected {expected}, got {short(item)}"
            )
    return OfficialResult(winner_id, winner_name, is_draw)


def sniff_replay(source: ReplaySource, name: str | None = None) -> Literal["snakewar", "official"]:
    """Tell a Snakewar replay from an official CLI JSONL file by its first line.

    Raises:
        ReplayError: for a missing or empty file, or one that is neither.
    """
    name = name or source_name(source)
    cut: list[int] = []
    with closing(json_lines(source, cut=cut, name=name)) as lines:
        first = next(lines, None)
    if first is None:
        if cut:
            raise ReplayError(f"{name}: line 1 is cut short")
        raise ReplayError(f"{name} is empty (expected a Snakewar replay or an official CLI JSONL)")
    if isinstance(first.value, dict) and first.value.get("format") == FORMAT_NAME:
        return "snakewar"
    if _is_game_object(first.value):
        return "official"
    raise ReplayError(
        f"{name} is neither a Snakewar replay (no 'format': {FORMAT_NAME!r} header) nor an "
        "official CLI JSONL file (line 1 is not an API 'game' object)"
    )
