"""``snakewar play --from REPLAY --turn N`` and ``--from-position FILE``: play on from a board.

A fork starts from a turn of a replay (a Snakewar replay, or an official CLI ``-o``
JSON-lines file) or from a position file (:mod:`snakewar.games.battlesnake.position`),
with the replay's ruleset, map, settings, seed and time per turn unless the command
line gives others.  A Snakewar replay also gives its snakes, seat by seat.

The same seed and seat count give the same snake ids (they derive from the seed and
the seat), and the rules draw their randomness from the seed and the turn: a fork of
turn N played by the same snakes (the built-in bots draw theirs from their id and the
turn) continues exactly as the game did from turn N.  Maps that remember earlier turns
(the castle-wall maps' food) start afresh, so their games may go another way.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import typer

from snakewar.errors import ParamsError, SnakewarError
from snakewar.games.battlesnake.position import Position, parse_position
from snakewar.games.battlesnake.records import GameRecord, TimingRules
from snakewar.games.battlesnake.rules.types import BoardState

__all__ = ["MAX_POSITION_BYTES", "ForkStart", "load_fork", "record_state"]

MAX_POSITION_BYTES = 1 << 20
"""The largest position file read (a 25x25 board with 16 snakes is far below)."""


@dataclass(frozen=True, slots=True)
class ForkStart:
    """Where a fork starts and what the game it comes from played with.

    ``None`` (and empty tuples) where the source does not say: the command line's
    options, or their defaults, apply.
    """

    position: Position
    snakes: tuple[str, ...] = ()
    """The snakes of the game, seat by seat (empty: not known, give them)."""
    names: tuple[str, ...] = ()
    ruleset: str | None = None
    map: str | None = None
    params: dict[str, str] | None = None
    """The rules' raw settings."""
    seed: int | None = None
    timeout_ms: int | None = None
    timing: TimingRules | None = None
    """The unofficial timing rules the game was played under (each bank starts full)."""


def record_state(record: GameRecord, turn: int | None) -> tuple[int, BoardState]:
    """The board of ``record`` at ``turn`` (``None``: its last), with that turn.

    Raises:
        typer.BadParameter: a turn the game does not have.
    """
    first, last = record.initial.turn, record.final_state.turn
    if turn is None:
        turn = last
    if not first <= turn <= last:
        raise typer.BadParameter(
            f"{turn}: the game has turns {first} to {last}", param_hint=["--turn"]
        )
    state = record.initial if turn == first else record.turns[turn - first - 1].after
    return turn, state


def _from_replay(path: str, turn: int | None) -> ForkStart:
    from snakewar.games.battlesnake.replay.format import load_replay
    from snakewar.games.battlesnake.replay.official import read_official_jsonl, sniff_replay

    if sniff_replay(path) == "official":
        official = read_official_jsonl(path)
        if not official.frames:
            raise typer.BadParameter(f"{path}: the file has no turns", param_hint=["--from"])
        last = official.frames[-1].turn
        chosen = last if turn is None else turn
        if not 0 <= chosen <= last:
            raise typer.BadParameter(
                f"{chosen}: the game has turns 0 to {last}", param_hint=["--turn"]
            )
        frame = official.frames[chosen]
        names = tuple(
            frame.infos[s.id].name if s.id in frame.infos else "" for s in frame.state.snakes
        )
        game = official.game
        # The official file keeps no seed and no snakes' addresses: they are given here.
        position = Position(frame.state, names, {"game": game.id, "turn": chosen})
        return ForkStart(
            position,
            names=names,
            ruleset=game.ruleset_name,
            map=game.map,
            params=dict(game.settings.params),
            timeout_ms=game.timeout,
        )
    record = load_replay(path).record
    chosen, state = record_state(record, turn)
    entries = {e.id: e for e in record.snakes}
    seats = [entries[s.id] for s in state.snakes]
    config = record.config
    return ForkStart(
        Position(state, tuple(e.name for e in seats), {"game": record.id, "turn": chosen}),
        snakes=tuple(e.source for e in seats),
        names=tuple(e.name for e in seats),
        ruleset=config.ruleset,
        map=config.map,
        params=dict(config.settings.params),
        seed=config.seed,
        timeout_ms=record.timeout_ms,
        timing=record.timing,
    )


def _from_position(path: str) -> ForkStart:
    from snakewar.games.battlesnake.rules.wire import game_from_api

    file = Path(path)
    try:
        with file.open("rb") as handle:
            data = handle.read(MAX_POSITION_BYTES + 1)
    except OSError as exc:
        raise typer.BadParameter(
            f"cannot read {path!r}: {exc.strerror or exc}", param_hint=["--from-position"]
        ) from None
    if len(data) > MAX_POSITION_BYTES:
        raise typer.BadParameter(
            f"{path!r} is larger than {MAX_POSITION_BYTES} bytes", param_hint=["--from-position"]
        )
    try:
        value = json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise typer.BadParameter(
            f"{path!r} is not JSON: {exc}", param_hint=["--from-position"]
        ) from None
    try:
        position = parse_position(value)
    except ParamsError as exc:
        raise typer.BadParameter(f"{path!r}: {exc}", param_hint=["--from-position"]) from None
    start = ForkStart(position, names=position.names)
    if isinstance(value, dict) and isinstance(value.get("game"), dict):
        # A /move request body says which rules its board is played by.
        try:
            game = game_from_api(value["game"])
        except SnakewarError as exc:
            raise typer.BadParameter(f"{path!r}: {exc}", param_hint=["--from-position"]) from None
        start = ForkStart(
            position,
            names=position.names,
            ruleset=game.ruleset_name or None,
            map=game.map or None,
            params=dict(game.settings.params),
            timeout_ms=game.timeout or None,
        )
    return start


def load_fork(replay: str | None, turn: int | None, position: str | None) -> ForkStart | None:
    """The fork ``--from``/``--turn``/``--from-position`` ask for (``None``: none).

    Raises:
        typer.BadParameter: options that do not go together, a turn out of range, a
            position file that is not one (naming the field at fault).
        ReplayError: a replay that cannot be read.
    """
    if replay is not None and position is not None:
        raise typer.BadParameter(
            "starts from a position file; leave out --from", param_hint=["--from-position"]
        )
    if turn is not None and replay is None:
        raise typer.BadParameter("is a turn of --from REPLAY; add --from", param_hint=["--turn"])
    if replay is not None:
        return _from_replay(replay, turn)
    if position is not None:
        return _from_position(position)
    return None


def fork_snakes(fork: ForkStart, given: tuple[str, ...], launched: int) -> tuple[str, ...]:
    """The snakes that play a fork: those given, or the game's own, one per seat.

    Raises:
        typer.BadParameter: another count than the position's seats, or none given
            where the source does not say who played.
    """
    seats = len(fork.position.state.snakes)
    if not given and not launched:
        if not fork.snakes or not all(fork.snakes) or "hidden" in fork.snakes:
            raise typer.BadParameter(
                f"the file does not say which snakes played: give {seats} snakes, one a seat",
                param_hint=["SNAKE"],
            )
        return fork.snakes
    if len(given) + launched != seats:
        raise typer.BadParameter(
            f"{len(given) + launched} snakes given for the {seats} seats of the position",
            param_hint=["SNAKE"],
        )
    return given


def merged_params(fork: ForkStart, given: dict[str, Any]) -> dict[str, str] | None:
    """The fork's raw settings with those the command line gave over them (API names)."""
    from snakewar.games.battlesnake.adapter import settings_params

    if fork.params is None:
        return None
    return {**fork.params, **settings_params(given)}
