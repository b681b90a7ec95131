"""Checking a replay by playing it again.

:func:`verify_replay` sets the game up again from the replay's config and seed,
plays the recorded moves with :class:`~snakewar.games.battlesnake.Game`, and
compares every frame (the initial state and the state after each turn), the
result and the digest with what the file says.  The first frame that differs
stops the check; the report names its turn and each difference in it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from snakewar.errors import SnakewarError
from snakewar.games.battlesnake.records import GameRecord
from snakewar.games.battlesnake.replay.format import Replay, replay_digest
from snakewar.games.battlesnake.rules.game import Game, GameResult
from snakewar.games.battlesnake.rules.types import BoardState, Point

__all__ = ["VerifyReport", "state_differences", "verify_replay"]

_SHOWN = 240
"""Values longer than this (as text) are shown by their first difference only."""


@dataclass(frozen=True, slots=True)
class VerifyReport:
    """The outcome of :func:`verify_replay`."""

    ok: bool
    turns: int
    """The number of turns in the replay."""
    digest: str
    """The digest of the game as replayed (equal to the file's when ``ok``)."""
    complete: bool = True
    """Whether the replay has a result (an unfinished game can still be consistent)."""
    turn: int | None = None
    """The turn of the first frame that differs (``None`` for other problems)."""
    differences: tuple[str, ...] = ()
    """Everything found wrong at the first problem, the first one first."""

    @property
    def message(self) -> str:
        """One line: ``OK: N turns, digest ...`` or the first difference."""
        if self.ok:
            note = "" if self.complete else " (unfinished game: no result)"
            return f"OK: {self.turns} turns, digest {self.digest}{note}"
        return self.differences[0]


def _text(value: object) -> str:
    if isinstance(value, tuple | list):
        return "[" + ", ".join(_text(v) for v in value) + "]"
    if isinstance(value, Point):
        return f"[{value.x}, {value.y}]"
    return repr(str(value)) if isinstance(value, str) else repr(value)


def _compare(what: str, expected: Sequence[object], got: Sequence[object]) -> str:
    e_text, g_text = _text(expected), _text(got)
    if len(e_text) <= _SHOWN and len(g_text) <= _SHOWN:
        return f"{what} differs: expected {e_text} got {g_text}"
    index = next(
        (i for i, (e, g) in enumerate(zip(expected, got, strict=False)) if e != g),
        min(len(expected), len(got)),
    )
    e_item = _text(expected[index]) if index < len(expected) else "nothing"
    g_item = _text(got[index]) if index < len(got) else "nothing"
    return (
        f"{what} differs at item {index}: expected {e_item} got {g_item} "
        f"({len(expected)} items expected, {len(got)} found)"
    )


def state_differences(expected: BoardState, got: BoardState) -> list[str]:
    """List how ``got`` differs from ``expected``, field by field (empty if equal).

    >>> from snakewar.games.battlesnake.rules.types import Snake
    >>> a = BoardState(1, 5, 5, (Snake("x", (Point(1, 1), Point(1, 0))),))
    >>> b = BoardState(1, 5, 5, (Snake("x", (Point(1, 2), Point(1, 1))),))
    >>> state_differences(a, b)
    ["snake 'x' body differs: expected [[1, 1], [1, 0]] got [[1, 2], [1, 1]]"]
    """
    if expected == got:
        return []
    out = []
    for field in ("turn", "width", "height"):
        e, g = getattr(expected, field), getattr(got, field)
        if e != g:
            out.append(f"{field} differs: expected {e} got {g}")
    e_ids = [s.id for s in expected.snakes]
    g_ids = [s.id for s in got.snakes]
    if e_ids != g_ids:
        out.append(_compare("snakes", e_ids, g_ids))
    got_by_id = {s.id: s for s in got.snakes}
    for snake in expected.snakes:
        other = got_by_id.get(snake.id)
        if other is None or other == snake:
            continue
        label = f"snake {snake.id!r}"
        if snake.body != other.body:
            out.append(_compare(f"{label} body", snake.body, other.body))
        for field in ("health", "eliminated_cause", "eliminated_by", "eliminated_on_turn"):
            e, g = getattr(snake, field), getattr(other, field)
            if e != g:
                out.append(f"{label} {field} differs: expected {_text(e)} got {_text(g)}")
    for field in ("food", "hazards"):
        e_points, g_points = getattr(expected, field), getattr(got, field)
        if e_points != g_points:
            out.append(_compare(field, e_points, g_points))
    return out


def verify_replay(replay: GameRecord | Replay, *, digest: str | None = None) -> VerifyReport:
    """Play the replay's game again from its config, seed and moves, and compare.

    Args:
        replay: a record, or a :class:`Replay` from :func:`load_replay` (whose
            stored digest is then checked too).
        digest: a digest to check instead of the replay's stored one.

    Returns:
        A report; ``report.message`` is ``"OK: ..."`` or the first difference,
        such as ``"turn 57: snake 'x' body differs: expected [...] got [...]"``.
    """
    if isinstance(replay, Replay):
        record, complete = replay.record, replay.complete
        stored = digest if digest is not None else replay.digest
    else:
        record, complete, stored = replay, replay.result is not None, digest
    computed = replay_digest(record)

    def fail(problems: Sequence[str], turn: int | None = None) -> VerifyReport:
        prefix = "" if turn is None else f"turn {turn}: "
        return VerifyReport(
            ok=False,
            turns=len(record.turns),
            digest=computed,
            complete=complete,
            turn=turn,
            differences=tuple(prefix + p for p in problems),
        )

    try:
        # A game played on from a position starts from its recorded board, not the seed's.
        start = record.initial if record.forked_from is not None else None
        game = Game(record.config, [e.id for e in record.snakes], start)
    except SnakewarError as exc:
        return fail([f"setup: the game cannot be set up again: {exc}"])
    problems = state_differences(game.state, record.initial)
    if problems:
        return fail([f"initial state: {p}" for p in problems], record.initial.turn)
    for index, turn in enumerate(record.turns):
        if game.is_over:
            extra = len(record.turns) - index
            return fail(
                [f"the game is already over by the rules, yet the file has {extra} more turn(s)"],
                turn.turn,
            )
        alive, moved = game.alive_ids(), list(turn.calls)
        if sorted(alive) != sorted(moved):
            return fail([f"moves are for {moved!r}, but the snakes alive are {alive!r}"], turn.turn)
        try:
            step = game.step(turn.moves)
        except SnakewarError as exc:
            return fail([f"the rules refuse the moves {turn.moves!r}: {exc}"], turn.turn)
        if step.after is None:
            return fail(["the game ended during this turn, yet the file has a state after it"])
        problems = state_differences(step.after, turn.after)
        if problems:
            return fail(problems, step.after.turn)
    result = record.result
    if result is not None:
        problems = _result_differences(game, result)
        if problems:
            return fail([f"result: {p}" for p in problems])
    if stored is not None and stored != computed:
        return fail([f"digest differs: the file says {stored}, the game gives {computed}"])
    return VerifyReport(ok=True, turns=len(record.turns), digest=computed, complete=complete)


def _result_differences(game: Game, result: GameResult) -> list[str]:
    over, turn = game.is_over, game.state.turn
    if result.reason == "game_over" and not over:
        return [f"the file says the game is over after turn {turn}, but by the rules it goes on"]
    if result.reason == "max_turns" and over:
        return [f"the file says the turn limit stopped the game, but it is over by turn {turn}"]
    expected = GameResult.from_state(game.state, result.reason)
    out = []
    for field, label in (("winner", "winner"), ("is_draw", "isDraw"), ("turns", "turns")):
        e, g = getattr(expected, field), getattr(result, field)
        if e != g:
            out.append(f"{label} differs: expected {e!r} got {g!r}")
    return out
