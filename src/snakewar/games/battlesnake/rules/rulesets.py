"""The rules: named stages, and the six rulesets as stage pipelines.

A ruleset is data: an ordered tuple of stage names (the reference's
``pipeline.go``).  ``Ruleset.execute(state, moves)`` copies the state, runs the
stages in order and stops at the first stage that reports game over or fails.
It never changes the turn number; the driver does that after the map update.

Stage order (every ruleset): game over -> movement -> starvation -> hazard damage
-> feeding -> elimination, then royale's shrink or constrictor's growth.  The
consequences that matter most (all as in the reference):

1. Game over is checked on the incoming state, before any move is applied.
2. Hazard damage comes before feeding, so food elsewhere cannot save a snake;
   food *on* the hazard square cancels that hazard's damage.
3. Snakes eliminated by hazards or starvation are not obstacles for this turn's
   collisions; collision eliminations are applied together after one pass.
4. Eliminations are attributed to the longest snake first: ties in board order
   with up to 12 snakes, in the order of Go's (unstable) ``sort.Slice`` of all
   snakes above that.
5. Every sum the rules make of health, turn and damage wraps as Go's 64-bit
   ``int`` does (:func:`~snakewar.games.battlesnake.rules.rng.go_int`): ``Health - 1`` at ``-2**63``
   is ``2**63 - 1`` (the snake lives), ``Turn + 1`` at ``2**63 - 1`` is ``-2**63``
   (the eliminated_on_turn recorded, and no royale zone that turn), and a hazard
   damage near ``-2**63`` overflows to a negative health (eliminated), it does not
   heal.  No loop runs a number of times that grows with the turn: the royale
   zone stops drawing once it covers the board.

Where the reference panics instead of returning, Snakewar does not crash:

* an alive snake without a body when no moves are given after turn 0 (the
  reference indexes its head in the hazard stage): ``snake is length zero``,
  from the elimination stage, as with moves;
* a one-segment snake under constrictor (the reference indexes ``Body[-2]``):
  it grows to two segments.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from snakewar.errors import InvalidStateError, StepError, UnknownRulesetError, choices_text
from snakewar.games.battlesnake.rules._gosort import INSERTION_SORT_MAX, go_sort_slice_by_key
from snakewar.games.battlesnake.rules.board import MutableBoard, MutableSnake
from snakewar.games.battlesnake.rules.classic import (
    eliminate_snakes_classic,
    reduce_health_classic,
    restock_food_classic,
)
from snakewar.games.battlesnake.rules.rng import go_int
from snakewar.games.battlesnake.rules.settings import (
    HAZARD_DAMAGE_PER_TURN,
    SHRINK_EVERY_N_TURNS,
    Settings,
)
from snakewar.games.battlesnake.rules.types import (
    SNAKE_MAX_HEALTH,
    BoardState,
    Point,
    reduce_dataclass,
)

__all__ = [
    "RULESETS",
    "STAGES",
    "MoveList",
    "Moves",
    "Ruleset",
    "Stage",
    "default_move",
    "named_ruleset",
    "normalize_moves",
    "royale_hazards",
    "ruleset_names",
]

MoveList: TypeAlias = Sequence[tuple[str, str]]
"""Moves as the reference passes them: ``(snake_id, move)`` pairs, in order."""
Moves: TypeAlias = Mapping[str, str] | Iterable[tuple[str, str]]
"""Moves as callers may give them: a ``{snake_id: move}`` mapping or pairs."""
Stage: TypeAlias = Callable[[MutableBoard, Settings, MoveList], bool]
"""A stage edits the board in place and returns True if the game is over."""

# tuple.__new__ skips the named tuple's generated __new__ and _make (Python code,
# which mypyc cannot compile): new heads are made every turn.
_new_tuple = tuple.__new__

# Reference error texts (``constants.go``).
ERR_NO_MOVE = "move not provided for snake"
ERR_ZERO_LENGTH = "snake is length zero"
ERR_ROYALE_SHRINK = "royale game can't shrink more frequently than every turn"

_VALID_MOVES: dict[str, tuple[int, int]] = {
    "up": (0, 1),
    "down": (0, -1),
    "left": (-1, 0),
    "right": (1, 0),
}


def is_initialization(board: MutableBoard, moves: MoveList) -> bool:
    """The initialization call: turn 0 (or less) and no moves."""
    return board.turn <= 0 and not moves


def default_move(body: Sequence[Point]) -> str:
    """The move a snake makes when its move is not a valid direction.

    It continues in the neck-to-head direction, wrap-aware; a snake whose head
    and neck are stacked (turn 0) or that has fewer than two segments moves up.

    >>> default_move([Point(3, 4), Point(2, 4)])
    'right'
    >>> default_move([Point(0, 4), Point(10, 4)])
    'right'
    """
    if len(body) >= 2:
        (hx, hy), (nx, ny) = body[0], body[1]
        if hx == nx + 1:
            return "right"
        if hx == nx - 1:
            return "left"
        if hy == ny + 1:
            return "up"
        if hy == ny - 1:
            return "down"
        # Across an edge of a wrapped board.
        if hx == 0 and nx > 0:
            return "right"
        if nx == 0 and hx > 0:
            return "left"
        if hy == 0 and ny > 0:
            return "up"
        if ny == 0 and hy > 0:
            return "down"
    return "up"


# -- stages ---------------------------------------------------------------------------


def game_over_standard(board: MutableBoard, settings: Settings, moves: MoveList) -> bool:
    """Over when at most one snake is alive."""
    alive = 0
    for s in board.snakes:
        if not s.eliminated_cause:
            alive += 1
    return alive <= 1


def game_over_solo(board: MutableBoard, settings: Settings, moves: MoveList) -> bool:
    """Over when no snake is alive."""
    return all(s.eliminated_cause for s in board.snakes)


def move_snakes_standard(board: MutableBoard, settings: Settings, moves: MoveList) -> bool:
    """Move every alive snake: new head in front, last segment dropped.

    Every alive snake needs a body and at least one move entry.  Each entry for a
    snake is applied, so a duplicated entry moves it twice (as in the reference);
    entries for eliminated snakes are ignored; invalid move strings become the
    :func:`default_move`.  No bounds check here: heads may leave the board.

    Raises:
        StepError: ``snake is length zero`` or ``move not provided for snake``.
    """
    if not moves:  # includes the initialization call
        return False
    by_id: dict[str, list[str]] = {}
    for sid, move in moves:
        entry = by_id.get(sid)
        if entry is None:
            by_id[sid] = [move]
        else:
            entry.append(move)
    alive = [s for s in board.snakes if not s.eliminated_cause]
    for s in alive:
        if not s.body:
            raise StepError(ERR_ZERO_LENGTH, repr(s.id))
        if s.id not in by_id:
            raise StepError(ERR_NO_MOVE, repr(s.id))
    for s in alive:
        body = s.body
        for move in by_id[s.id]:
            delta = _VALID_MOVES.get(move)
            if delta is None:
                delta = _VALID_MOVES[default_move(body)]
            hx, hy = body[0]
            # Go's coordinates are int64 too: a head at 2**63 - 1 moving on wraps.
            body.insert(0, _new_tuple(Point, (go_int(hx + delta[0]), go_int(hy + delta[1]))))
            body.pop()
    return False


def move_snakes_wrapped(board: MutableBoard, settings: Settings, moves: MoveList) -> bool:
    """Move as standard, then wrap each alive head to the opposite edge.

    Raises:
        StepError: as :func:`move_snakes_standard`.
    """
    if is_initialization(board, moves):
        return False
    move_snakes_standard(board, settings, moves)
    w1, h1 = board.width - 1, board.height - 1
    for s in board.snakes:
        if s.eliminated_cause or not s.body:
            continue
        x, y = s.body[0]
        nx = w1 if x < 0 else 0 if x > w1 else x
        ny = h1 if y < 0 else 0 if y > h1 else y
        if nx != x or ny != y:
            s.body[0] = _new_tuple(Point, (nx, ny))
    return False


def reduce_health_standard(board: MutableBoard, settings: Settings, moves: MoveList) -> bool:
    """Every alive snake loses one health (no clamping; ``-2**63`` wraps to ``2**63 - 1``)."""
    if is_initialization(board, moves):
        return False
    for s in board.snakes:
        if not s.eliminated_cause:
            s.health = go_int(s.health - 1)
    return False


def damage_hazards_standard(board: MutableBoard, settings: Settings, moves: MoveList) -> bool:
    """Damage snakes whose head is on a hazard, once per stacked copy.

    Food on the square cancels the damage.  Health is clamped to 0..100 after each
    copy (negative damage heals); a snake at 0 is eliminated by ``hazard``.  The
    subtraction wraps as Go's 64-bit ``int`` does, so a damage near ``-2**63``
    overflows to a negative health (0 after the clamp) instead of healing.  Every
    stacked copy is applied even after the first eliminates the snake, so a later
    copy can clamp the health back up to 100 (the snake stays eliminated).
    """
    if is_initialization(board, moves) or not board.hazards:
        return False
    damage = settings.get_int(HAZARD_DAMAGE_PER_TURN, 0)
    hazards = board.hazards
    food = board.food
    turn = go_int(board.turn + 1)
    for s in board.snakes:
        if s.eliminated_cause or not s.body:
            continue
        head = s.body[0]
        if head not in hazards or head in food:
            continue
        for p in hazards:
            if p == head:
                health = go_int(s.health - damage)
                s.health = (
                    0 if health < 0 else SNAKE_MAX_HEALTH if health > SNAKE_MAX_HEALTH else health
                )
                if s.health <= 0:
                    s.eliminate("hazard", "", turn)
    return False


def feed_snakes_standard(board: MutableBoard, settings: Settings, moves: MoveList) -> bool:
    """Alive snakes with their head on food eat it: health 100 and one more segment.

    Several snakes can eat the same food.  This stage runs at initialization too.
    """
    if not board.food:
        return False
    heads = [(s, s.body[0]) for s in board.snakes if not s.eliminated_cause and s.body]
    remaining: list[Point] = []
    for food in board.food:
        eaten = False
        for s, head in heads:
            if head == food:
                s.body.append(s.body[-1])
                s.health = SNAKE_MAX_HEALTH
                eaten = True
        if not eaten:
            remaining.append(food)
    board.food = remaining
    return False


def eliminate_snakes_standard(board: MutableBoard, settings: Settings, moves: MoveList) -> bool:
    """Eliminate snakes out of health, off the board, or in a collision.

    Raises:
        StepError: ``snake is length zero`` for an alive snake without a body.
    """
    if is_initialization(board, moves):
        return False
    snakes = board.snakes
    turn = go_int(board.turn + 1)
    w, h = board.width, board.height
    for s in snakes:
        if s.eliminated_cause:
            continue
        if not s.body:
            raise StepError(ERR_ZERO_LENGTH, repr(s.id))
        if s.health <= 0:
            s.eliminate("out-of-health", "", turn)
            continue
        for x, y in s.body:
            if x < 0 or x >= w or y < 0 or y >= h:
                s.eliminate("wall-collision", "", turn)
                break

    alive = [s for s in snakes if not s.eliminated_cause]
    # Fast path: most turns have no collision at all.  A collision needs a head on
    # some alive snake's body (its own included) or two heads on one square.
    occupied: set[Point] = set()
    for s in alive:
        occupied.update(s.body[1:])
    heads = {s.body[0] for s in alive}
    if len(heads) == len(alive) and occupied.isdisjoint(heads):
        return False
    # Longest first, in the order Go's sort.Slice leaves the reference's list of
    # *all* snakes (eliminated ones included): with up to 12 snakes that is a
    # stable sort, above it pdqsort, whose order of ties depends on every element.
    if len(snakes) <= INSERTION_SORT_MAX:
        others = sorted(alive, key=_longest_first)
    else:
        ordered = list(snakes)
        go_sort_slice_by_key(ordered, _longest_first)
        others = [o for o in ordered if not o.eliminated_cause]
    collisions: list[tuple[MutableSnake, str, str]] = []
    for s in alive:
        body = s.body
        head = body[0]
        if head in body[1:]:
            collisions.append((s, "snake-self-collision", s.id))
            continue
        hit: MutableSnake | None = None
        for o in others:
            if o is not s and head in o.body[1:]:
                hit = o
                break
        if hit is not None:
            collisions.append((s, "snake-collision", hit.id))
            continue
        length = len(body)
        for o in others:
            if o is not s and o.body[0] == head and length <= len(o.body):
                collisions.append((s, "head-collision", o.id))
                break
    for s, cause, by in collisions:
        s.eliminate(cause, by, turn)
    return False


def _longest_first(snake: MutableSnake) -> int:
    return -len(snake.body)


def remove_food_constrictor(board: MutableBoard, settings: Settings, moves: MoveList) -> bool:
    """Remove all food (runs at initialization too)."""
    board.food = []
    return False


def grow_snakes_constrictor(board: MutableBoard, settings: Settings, moves: MoveList) -> bool:
    """Every snake, eliminated ones included, gets health 100 and grows one segment.

    A snake whose tail is already stacked does not grow.  The reference panics on
    a one-segment body (index ``-1``); Snakewar grows it to two segments and goes
    on.  A snake without a body, even an eliminated one, is the reference's error.

    Raises:
        StepError: ``snake is length zero`` for any snake without a body.
    """
    for s in board.snakes:
        body = s.body
        if not body:
            raise StepError(ERR_ZERO_LENGTH, repr(s.id))
        s.health = SNAKE_MAX_HEALTH
        if len(body) < 2 or body[-1] != body[-2]:
            body.append(body[-1])
    return False


def royale_hazards(
    settings: Settings, width: int, height: int, turn: int, shrink_every: int
) -> list[Point] | None:
    """The royale hazard zone for ``turn`` (the *current* turn, pre-increment + 1).

    Returns ``None`` before the first shrink (``turn < shrink_every``, which holds
    for the ``-2**63`` that ``Turn + 1`` wraps to); otherwise every square outside
    the safe rectangle, x-major then y.  The rectangle loses one line per
    ``shrink_every`` turns on a side drawn by ``Intn(4)`` from a fresh ``GetRand(0)``
    stream, so the zone only ever shrinks.

    The reference draws all ``turn // shrink_every`` sides, a loop as long as the
    turn (at turn ``2**62`` it never ends).  Snakewar stops once the rectangle is
    empty: after ``width + height - 1`` draws it is (``width`` of them on the x sides
    or ``height`` on the y sides), every square is then outside it, and later draws
    change nothing, so the zone is the reference's at any turn.

    Raises:
        StepError: if ``shrink_every < 1``.
    """
    if shrink_every < 1:
        raise StepError(ERR_ROYALE_SHRINK, f"shrinkEveryNTurns={shrink_every}")
    if turn < shrink_every:
        return None
    rand = settings.get_rand(0)
    min_x, max_x, min_y, max_y = 0, width - 1, 0, height - 1
    for _ in range(min(turn // shrink_every, max(width, 0) + max(height, 0))):
        side = rand.intn(4)
        if side == 0:
            min_x += 1
        elif side == 1:
            max_x -= 1
        elif side == 2:
            min_y += 1
        else:
            max_y -= 1
    return [
        _new_tuple(Point, (x, y))
        for x in range(width)
        for y in range(height)
        if x < min_x or x > max_x or y < min_y or y > max_y
    ]


def populate_hazards_royale(board: MutableBoard, settings: Settings, moves: MoveList) -> bool:
    """Replace the hazards with the royale zone (erasing any map hazards).

    Raises:
        StepError: if ``shrinkEveryNTurns`` is below 1.
    """
    if is_initialization(board, moves):
        return False
    board.hazards = []
    hazards = royale_hazards(
        settings,
        board.width,
        board.height,
        go_int(board.turn + 1),
        settings.get_int(SHRINK_EVERY_N_TURNS, 20),
    )
    if hazards is not None:
        board.hazards = hazards
    return False


STAGES: Mapping[str, Stage] = {
    "game_over.standard": game_over_standard,
    "game_over.solo_snake": game_over_solo,
    "movement.standard": move_snakes_standard,
    "movement.wrap_boundaries": move_snakes_wrapped,
    "starvation.standard": reduce_health_standard,
    "hazard_damage.standard": damage_hazards_standard,
    "feed_snakes.standard": feed_snakes_standard,
    "elimination.standard": eliminate_snakes_standard,
    "spawn_food.no_food": remove_food_constrictor,
    "modify_snakes.always_grow": grow_snakes_constrictor,
    "spawn_hazards.shrink_map": populate_hazards_royale,
    # The 2017/18 game (Snakewar's own stage names; see classic.py).
    "elimination.classic": eliminate_snakes_classic,
    "starvation.classic": reduce_health_classic,
    "spawn_food.classic": restock_food_classic,
}
"""Every stage, by the reference's stage name."""

_STANDARD_TAIL = (
    "starvation.standard",
    "hazard_damage.standard",
    "feed_snakes.standard",
    "elimination.standard",
)
_CONSTRICTOR = ("spawn_food.no_food", "modify_snakes.always_grow")

RULESETS: Mapping[str, tuple[str, ...]] = {
    "standard": ("game_over.standard", "movement.standard", *_STANDARD_TAIL),
    "solo": ("game_over.solo_snake", "movement.standard", *_STANDARD_TAIL),
    "royale": (
        "game_over.standard",
        "movement.standard",
        *_STANDARD_TAIL,
        "spawn_hazards.shrink_map",
    ),
    "constrictor": ("game_over.standard", "movement.standard", *_STANDARD_TAIL, *_CONSTRICTOR),
    "wrapped": ("game_over.standard", "movement.wrap_boundaries", *_STANDARD_TAIL),
    "wrapped_constrictor": (
        "game_over.standard",
        "movement.wrap_boundaries",
        *_STANDARD_TAIL,
        *_CONSTRICTOR,
    ),
    # Not the reference's: the 2017/18 server's game (classic.py), deaths before eating.
    "classic": (
        "game_over.standard",
        "movement.standard",
        "elimination.classic",
        "starvation.classic",
        "feed_snakes.standard",
        "spawn_food.classic",
    ),
}
"""Each ruleset's stage pipeline, by ruleset name."""


def ruleset_names() -> list[str]:
    """The ruleset names, in the reference's documentation order."""
    return list(RULESETS)


def normalize_moves(moves: Moves) -> list[tuple[str, str]]:
    """Turn a ``{id: move}`` mapping or ``(id, move)`` pairs into a pair list.

    Directions may be :class:`~snakewar.games.battlesnake.rules.types.Direction` members
    or any strings; strings that are not exactly ``up``/``down``/``left``/``right``
    are kept and become the default move.

    Raises:
        InvalidStateError: if an entry is not a pair of strings.
    """
    if isinstance(moves, dict):
        pairs = list(moves.items())
        for sid, move in pairs:
            if type(sid) is not str or not isinstance(move, str):
                break
        else:
            return pairs  # the common case: a plain {id: move} dict of strings
    items = moves.items() if isinstance(moves, Mapping) else moves
    out: list[tuple[str, str]] = []
    for item in items:
        try:
            sid, move = item
        except (TypeError, ValueError):
            raise InvalidStateError(f"move entry {item!r} is not an (id, move) pair") from None
        if not isinstance(sid, str) or not isinstance(move, str):
            raise InvalidStateError(f"move entry {item!r}: id and move must be strings")
        out.append((sid, str(move)))
    return out


@dataclass(frozen=True, slots=True)
class Ruleset:
    """A named stage pipeline with its settings (the reference's ``Ruleset``).

    >>> r = named_ruleset("standard", Settings.defaults(seed=1))
    >>> r.stages[0], r.name
    ('game_over.standard', 'standard')
    """

    name: str
    stages: tuple[str, ...]
    settings: Settings
    _fns: tuple[Stage, ...] = field(init=False, repr=False, compare=False)

    def __reduce__(self) -> tuple[type[Any], tuple[Any, ...]]:
        return reduce_dataclass(self)

    def __post_init__(self) -> None:
        try:
            fns = tuple(STAGES[name] for name in self.stages)
        except KeyError as exc:
            raise UnknownRulesetError(
                f"unknown stage {exc.args[0]!r} (expected one of {choices_text(STAGES)})"
            ) from None
        object.__setattr__(self, "_fns", fns)

    def execute(self, state: BoardState, moves: Moves) -> tuple[bool, BoardState]:
        """Apply one turn of rules; returns ``(game_over, new_state)``.

        The turn number is not changed.  On game over nothing is applied and the
        returned state equals ``state``.  As in the reference, entries for
        eliminated or unknown snakes are ignored (:meth:`Game.step
        <snakewar.games.battlesnake.rules.game.Game.step>` rejects unknown ids).

        Raises:
            StepError: the reference's ``Execute`` errors (a missing move, an alive
                snake without a body, royale shrink below 1).
        """
        board = MutableBoard.from_state(state)
        over = self.execute_in_place(board, normalize_moves(moves))
        return over, board.freeze()

    def execute_in_place(self, board: MutableBoard, moves: MoveList) -> bool:
        """Run the pipeline on ``board`` (edited in place); returns game over.

        Raises:
            StepError: as :meth:`execute`.
        """
        settings = self.settings
        # A plain loop, not any(): no generator frame on the hottest path.
        for stage in self._fns:  # noqa: SIM110
            if stage(board, settings, moves):
                return True
        return False


def named_ruleset(name: str, settings: Settings | None = None, solo: bool = False) -> Ruleset:
    """Return the ruleset called ``name``.

    With ``solo=True`` (the official CLI sets it when fewer than two snakes play)
    the game-over stage becomes ``game_over.solo_snake``: the game runs until no
    snake is left.

    Raises:
        UnknownRulesetError: naming ``name`` and listing the valid names (the
            reference silently falls back to standard; Snakewar refuses).
    """
    stages = RULESETS.get(name)
    if stages is None:
        raise UnknownRulesetError(
            f"unknown ruleset {name!r} (expected one of {choices_text(RULESETS)})"
        )
    if solo:
        stages = ("game_over.solo_snake", *stages[1:])
    return Ruleset(name, stages, settings if settings is not None else Settings.defaults())
