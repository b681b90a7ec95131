"""The tester's scenario suite: hand-built positions with their acceptable moves.

Each :class:`Scenario` is one API v1 position (a :class:`BoardState`, the game's
ruleset, map and settings) seen by the tested snake ``you``, and the set of moves
that are right there.  Two kinds of "right" (:attr:`Scenario.goal`):

* ``"survive"``: the moves after which the snake is alive whatever the other
  snakes do (so a head-to-head with an equal or longer snake is a loss);
* ``"kill"``: the moves after which the snake is alive *and* the target snake is
  eliminated, whatever the other snakes do (a free kill is clearly right).

And two kinds of check (:attr:`Scenario.kind`):

* ``"survival"`` (:data:`SURVIVAL`): every move that is not acceptable loses the
  snake this very turn, whatever the others do (a wall, a body, starving, a deadly
  hazard).  A snake that fails one has a bug: these gate the tester's verdict.
* ``"strategy"`` (:data:`STRATEGY`): a wrong move is a missed chance or a gamble,
  not a certain death (take a free kill, win or avoid a head-to-head that the rival
  may or may not go for).  They are scored, never failed.

The test suite proves the classification with the rules engine.

Most scenarios are ``standard`` games and run for every snake; the ones that need
another ruleset (``royale`` hazards, ``wrapped`` edges) run when that ruleset is
asked for (:func:`select_scenarios`).

Every scenario also runs in the 8 symmetries of its square board (4 rotations,
each mirrored): :meth:`Scenario.variants`.  Points and moves are transformed
together, so a snake that handles ``up`` but not ``left`` is caught.

:func:`rules_acceptable_moves` recomputes the acceptable set of any variant with
the real rules engine (every move of the tested snake against every combination
of the other snakes' moves); the test suite checks that it equals the declared
set for every variant, so the suite itself is proven correct.

This module is pure: no I/O, no clock, no randomness.
"""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from snakewar.errors import SnakewarError, choices_text
from snakewar.games.battlesnake.rules.rulesets import named_ruleset
from snakewar.games.battlesnake.rules.settings import Settings
from snakewar.games.battlesnake.rules.types import BoardState, Point, Snake
from snakewar.games.battlesnake.rules.wire import (
    MOVES,
    GameInfo,
    GameSource,
    SnakeInfo,
    SnakeRequest,
)

__all__ = [
    "CATEGORIES",
    "DEFAULT_RULESETS",
    "KINDS",
    "SCENARIOS",
    "STRATEGY",
    "SURVIVAL",
    "SYMMETRIES",
    "YOU",
    "Scenario",
    "Symmetry",
    "UnknownCategoryError",
    "rules_acceptable_moves",
    "scenarios_in",
    "select_scenarios",
    "special_rulesets",
]

YOU = "you"
"""The tested snake's id in every scenario."""

SURVIVAL = "survival"
"""A check every other move fails by dying this turn: it gates the verdict."""
STRATEGY = "strategy"
"""A check a wrong move merely misses (a kill, a gamble): scored, never failed."""
KINDS = (SURVIVAL, STRATEGY)
"""The kinds of check, in report order."""

CORE_RULESET = "standard"
"""The ruleset of the scenarios every snake meets."""
DEFAULT_RULESETS = (CORE_RULESET,)
"""The rulesets tested when none is asked for."""

_DELTA = {"up": (0, 1), "down": (0, -1), "left": (-1, 0), "right": (1, 0)}
_MOVE_OF = {delta: move for move, delta in _DELTA.items()}


class UnknownCategoryError(SnakewarError, LookupError):
    """Raised for a scenario category that does not exist."""


@dataclass(frozen=True, slots=True)
class Symmetry:
    """One of the 8 symmetries of a square board, as a 2x2 integer matrix.

    A vector ``(dx, dy)`` becomes ``(a*dx + b*dy, c*dx + d*dy)``; points turn about
    the board's centre.
    """

    name: str
    a: int
    b: int
    c: int
    d: int

    def vector(self, dx: int, dy: int) -> tuple[int, int]:
        """Transform a direction vector."""
        return self.a * dx + self.b * dy, self.c * dx + self.d * dy

    @property
    def keeps_axes(self) -> bool:
        """Whether rows stay rows (no quarter turn): the symmetries of a non-square board."""
        return self.b == 0 and self.c == 0

    def point(self, p: Point, size: int, height: int | None = None) -> Point:
        """Transform a point of a ``size`` x ``size`` board (``size`` x ``height``).

        A non-square board is only turned by the symmetries that keep its axes.
        Off-board points (never in a scenario) are transformed too.
        """
        # Doubled coordinates keep the centre ((size-1)/2) integral.
        mx = size - 1
        my = mx if height is None else height - 1
        x2, y2 = self.vector(2 * p.x - mx, 2 * p.y - my)
        return Point((x2 + mx) // 2, (y2 + my) // 2)

    def move(self, move: str) -> str:
        """Transform a move name."""
        return _MOVE_OF[self.vector(*_DELTA[move])]


SYMMETRIES: tuple[Symmetry, ...] = (
    Symmetry("identity", 1, 0, 0, 1),
    Symmetry("rot90", 0, -1, 1, 0),  # a quarter turn anticlockwise: up becomes left
    Symmetry("rot180", -1, 0, 0, -1),
    Symmetry("rot270", 0, 1, -1, 0),
    Symmetry("mirror", -1, 0, 0, 1),  # left and right swapped
    Symmetry("mirror-rot90", 0, -1, -1, 0),
    Symmetry("mirror-rot180", 1, 0, 0, -1),
    Symmetry("mirror-rot270", 0, 1, 1, 0),
)
"""The dihedral group of the square; ``identity`` first."""


@dataclass(frozen=True, slots=True)
class Scenario:
    """A position and the moves that are right in it.

    ``state`` holds every snake (all alive), food and hazards; the tested snake's
    id is :data:`YOU`.  ``acceptable`` is declared by hand and proven by
    :func:`rules_acceptable_moves`.
    """

    id: str
    category: str
    title: str
    state: BoardState
    acceptable: frozenset[str]
    ruleset: str = "standard"
    map: str = "standard"
    settings: Settings = field(default_factory=Settings.defaults)
    goal: str = "survive"
    target: str = ""
    """For ``goal="kill"``: the id of the snake that must die."""
    kind: str = SURVIVAL
    """:data:`SURVIVAL` (gates the verdict) or :data:`STRATEGY` (scored only)."""
    variant: str = "identity"

    @property
    def survival(self) -> bool:
        """Whether a wrong move here is a certain death (the check gates the verdict)."""
        return self.kind == SURVIVAL

    @property
    def you(self) -> Snake:
        """The tested snake."""
        return self.state.snake(YOU)

    def transformed(self, symmetry: Symmetry) -> Scenario:
        """The same scenario turned and/or mirrored by ``symmetry``.

        Raises:
            ValueError: a quarter turn of a board that is not square.
        """
        s = self.state
        if s.width != s.height and not symmetry.keeps_axes:
            raise ValueError(f"scenario {self.id!r}: a quarter turn needs a square board")

        def pts(points: Iterable[Point]) -> tuple[Point, ...]:
            return tuple(symmetry.point(p, s.width, s.height) for p in points)

        state = s.replace(
            snakes=tuple(snake._replace(body=pts(snake.body)) for snake in s.snakes),
            food=pts(s.food),
            hazards=pts(s.hazards),
        )
        return replace(
            self,
            state=state,
            acceptable=frozenset(symmetry.move(m) for m in self.acceptable),
            variant=symmetry.name,
        )

    def variants(self) -> list[Scenario]:
        """The 8 symmetric variants, ``identity`` first (4 for a board that is not square)."""
        square = self.state.width == self.state.height
        return [self.transformed(sym) for sym in SYMMETRIES if square or sym.keeps_axes]

    def request(
        self, timeout_ms: int = 500, game_id: str = "", *, turn: int | None = None
    ) -> SnakeRequest:
        """The ``/move`` (or ``/end``) request the tested snake receives.

        The game id defaults to a UUID derived from the scenario and variant.
        ``turn`` overrides the position's turn (``/start`` is sent with turn 0, as
        every engine does: :meth:`start_request`).
        """
        game = GameInfo(
            # A UUID, as the official engine's ids (some clients and snakes parse them).
            id=game_id
            or str(uuid.uuid5(uuid.NAMESPACE_URL, f"snakewar-test/{self.id}/{self.variant}")),
            ruleset_name=self.ruleset,
            settings=self.settings,
            map=self.map,
            timeout=timeout_ms,
            source=GameSource.CUSTOM,
        )
        infos = {
            snake.id: SnakeInfo(name=snake.id, color=_COLORS[i % len(_COLORS)])
            for i, snake in enumerate(self.state.snakes)
        }
        state = self.state if turn is None else self.state.replace(turn=turn)
        return SnakeRequest(game, state.turn, state, self.you, infos)

    def start_request(self, timeout_ms: int = 500) -> SnakeRequest:
        """The ``/start`` request: the same game and board, at turn 0.

        A snake that keeps what ``/start`` told it (the board's size, the ruleset)
        finds the same game at ``/move``; strict snakes find the turn they expect.
        """
        return self.request(timeout_ms, turn=0)


_COLORS = ("#e91e63", "#3f51b5", "#4caf50", "#ff9800")


def rules_acceptable_moves(scenario: Scenario) -> frozenset[str]:
    """The moves that meet the scenario's goal, by the rules engine.

    Every move of the tested snake is played against every combination of the
    other snakes' four moves (their worst case); a move is acceptable when the
    tested snake survives all of them (and, for ``goal="kill"``, the target is
    eliminated in all of them).

    The rules are applied with ``Ruleset.execute`` on the scenario's state: one
    turn exactly, with no initialization call (which at turn > 0 would already
    cost a point of health).
    """
    ruleset = named_ruleset(scenario.ruleset, scenario.settings, solo=True)
    state = scenario.state
    others = [s.id for s in state.snakes if s.id != YOU and not s.eliminated_cause]
    out: set[str] = set()
    for move in MOVES:
        good = True
        for replies in itertools.product(MOVES, repeat=len(others)):
            moves = {YOU: move, **dict(zip(others, replies, strict=True))}
            _, after = ruleset.execute(state, moves)
            if after.snake(YOU).eliminated_cause or (
                scenario.goal == "kill" and not after.snake(scenario.target).eliminated_cause
            ):
                good = False
                break
        if good:
            out.add(move)
    return frozenset(out)


# -- building positions ---------------------------------------------------------------


def _pts(text: str) -> tuple[Point, ...]:
    """``"5,5 5,4"`` -> points (head first for a body)."""
    out = []
    for item in text.split():
        x, y = item.split(",")
        out.append(Point(int(x), int(y)))
    return tuple(out)


def _snake(sid: str, body: str, health: int = 90) -> Snake:
    return Snake(sid, _pts(body), health)


def _board(
    snakes: Sequence[Snake],
    food: str = "",
    hazards: Iterable[Point] = (),
    turn: int = 40,
    size: int = 11,
) -> BoardState:
    state = BoardState(turn, size, size, tuple(snakes), _pts(food), tuple(hazards))
    state.validate()
    return state


def _column(x: int, size: int = 11) -> list[Point]:
    return [Point(x, y) for y in range(size)]


def _row(y: int, size: int = 11) -> list[Point]:
    return [Point(x, y) for x in range(size)]


def _moves(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Opponents parked far from the action, for scenarios about walls and bodies.
_FAR_TOP_RIGHT = "8,8 8,9 8,10"
_FAR_BOTTOM_RIGHT = "8,2 9,2 10,2"

SCENARIOS: tuple[Scenario, ...] = (
    # -- walls ----------------------------------------------------------------------
    Scenario(
        "walls-corner",
        "walls",
        "Head in the bottom-left corner, moving left: only up stays on the board",
        _board([_snake(YOU, "0,0 1,0 2,0"), _snake("rival", _FAR_TOP_RIGHT)]),
        _moves("up"),
    ),
    Scenario(
        "walls-top-edge",
        "walls",
        "Head on the top edge, moving up: turn left or right",
        _board([_snake(YOU, "5,10 5,9 5,8 5,7"), _snake("rival", _FAR_BOTTOM_RIGHT)]),
        _moves("left right"),
    ),
    Scenario(
        "walls-left-edge",
        "walls",
        "Head on the left edge, moving left: turn up or down",
        _board([_snake(YOU, "0,5 1,5 2,5"), _snake("rival", _FAR_TOP_RIGHT)]),
        _moves("up down"),
    ),
    Scenario(
        "walls-small-board",
        "walls",
        "7x7 board, head on the right edge moving right: the wall is at x = 7",
        _board([_snake(YOU, "6,3 5,3 4,3"), _snake("rival", "1,5 1,6 2,6")], size=7, turn=12),
        _moves("up down"),
    ),
    Scenario(
        "walls-large-board",
        "walls",
        "19x19 board, head on the top edge moving up: the wall is at y = 19",
        _board([_snake(YOU, "9,18 9,17 9,16 9,15"), _snake("rival", "3,3 3,2 3,1")], size=19),
        _moves("left right"),
    ),
    # -- own body -------------------------------------------------------------------
    Scenario(
        "own-body-hook",
        "own-body",
        "Body curls over and beside the head: only left is free",
        _board([_snake(YOU, "5,5 5,4 6,4 6,5 6,6 5,6 4,6"), _snake("rival", _FAR_BOTTOM_RIGHT)]),
        _moves("left"),
    ),
    Scenario(
        "own-body-stacked-tail",
        "own-body",
        "The tail beside the head is stacked (just ate), so it stays: not left",
        _board(
            [_snake(YOU, "5,5 5,4 4,4 4,5 4,5"), _snake("rival", _FAR_TOP_RIGHT)],
            food="1,9",
        ),
        _moves("up right"),
    ),
    Scenario(
        "own-body-pocket",
        "own-body",
        "Body wraps around the head on three sides: only left",
        _board([_snake(YOU, "2,2 2,3 3,3 3,2 3,1 2,1 1,1"), _snake("rival", _FAR_TOP_RIGHT)]),
        _moves("left"),
    ),
    # -- other snakes' bodies ---------------------------------------------------------
    Scenario(
        "other-body-bend",
        "other-snakes",
        "A longer snake's body bends over and beside the head: only left",
        _board(
            [
                _snake(YOU, "5,5 5,4 5,3"),
                _snake("rival", "3,7 4,7 5,7 5,6 6,6 6,5 6,4 6,3"),
            ]
        ),
        _moves("left"),
    ),
    Scenario(
        "other-body-moving-tail",
        "other-snakes",
        "A wall of body on the right; the rival's tail below moves away, so down is safe too",
        _board(
            [
                _snake(YOU, "2,5 1,5 0,5"),
                _snake("rival", "3,9 3,8 3,7 3,6 3,5 3,4 2,4"),
            ]
        ),
        _moves("up down"),
    ),
    Scenario(
        "other-body-stacked-tail",
        "other-snakes",
        "The rival's tail above is stacked (it just ate), so it stays: only down",
        _board(
            [
                _snake(YOU, "8,5 9,5 10,5"),
                _snake("rival", "7,1 7,2 7,3 7,4 7,5 7,6 8,6 8,6"),
            ]
        ),
        _moves("down"),
    ),
    Scenario(
        "other-body-corridor",
        "other-snakes",
        "Between two snakes' bodies: straight on up the corridor",
        _board(
            [
                _snake(YOU, "5,5 5,4 5,3"),
                _snake("rival", "4,9 4,8 4,7 4,6 4,5 4,4 4,3"),
                _snake("third", "6,1 6,2 6,3 6,4 6,5 6,6 6,7"),
            ]
        ),
        _moves("up"),
    ),
    # -- the only safe move -----------------------------------------------------------
    Scenario(
        "only-move-tail-chase",
        "only-safe-move",
        "Boxed in by its own body: the only way out is the tail's square, which moves away",
        _board(
            [
                _snake(YOU, "4,5 5,5 5,6 4,6 3,6 3,5 3,4 4,4"),
                _snake("rival", _FAR_TOP_RIGHT),
            ]
        ),
        _moves("down"),
    ),
    Scenario(
        "only-move-wall-and-body",
        "only-safe-move",
        "Wall on the left, a rival's body above, own neck below: only right",
        _board(
            [
                _snake(YOU, "0,3 0,2 0,1"),
                _snake("rival", "3,4 2,4 1,4 0,4 0,5 0,6"),
            ]
        ),
        _moves("right"),
    ),
    Scenario(
        "only-move-three-snakes",
        "only-safe-move",
        "Two rivals' bodies left and right, own neck above: only down",
        _board(
            [
                _snake(YOU, "5,5 5,6 5,7"),
                _snake("rival", "4,9 4,8 4,7 4,6 4,5 4,4"),
                _snake("third", "8,5 7,5 6,5 6,6 6,7 6,8"),
            ]
        ),
        _moves("down"),
    ),
    # -- head-to-head: win against a shorter snake --------------------------------------
    # Strategy: not taking a free kill costs nothing this turn.
    Scenario(
        "head-to-head-win-edge",
        "head-to-head-win",
        "A shorter rival on the edge can only move down, beside our head: take its square",
        _board([_snake(YOU, "1,4 1,5 1,6 1,7 1,8"), _snake("rival", "0,5 0,6 0,7")]),
        _moves("left"),
        goal="kill",
        target="rival",
        kind=STRATEGY,
    ),
    Scenario(
        "head-to-head-win-open",
        "head-to-head-win",
        "A shorter rival boxed by its own body and our neck has one square left: take it",
        _board(
            [
                _snake(YOU, "5,5 5,4 4,4 3,4 2,4 1,4"),
                _snake("rival", "6,4 7,4 7,3 6,3 5,3"),
            ]
        ),
        _moves("right"),
        goal="kill",
        target="rival",
        kind=STRATEGY,
    ),
    Scenario(
        "head-to-head-win-three-snakes",
        "head-to-head-win",
        "A shorter rival in the corner has one square left, beside our head: take it",
        _board(
            [
                _snake(YOU, "3,3 2,3 1,3 1,2 1,1 1,0"),
                _snake("rival", "2,2 2,1 2,0"),
                _snake("third", "8,8 8,9 8,10 9,10 10,10"),
            ]
        ),
        _moves("down"),
        goal="kill",
        target="rival",
        kind=STRATEGY,
    ),
    # -- head-to-head: avoid equal or longer snakes --------------------------------------
    # Strategy, not survival: the wrong squares kill only if the rival goes there too,
    # and a snake may knowingly take that gamble.
    Scenario(
        "head-to-head-avoid-equal",
        "head-to-head-avoid",
        "A rival of equal length could take the square to the right: both would die",
        _board([_snake(YOU, "5,5 5,4 5,3"), _snake("rival", "7,5 8,5 9,5")]),
        _moves("up left"),
        kind=STRATEGY,
    ),
    Scenario(
        "head-to-head-avoid-longer",
        "head-to-head-avoid",
        "A longer rival's head is diagonal: both squares next to it are deadly, go down",
        _board([_snake(YOU, "3,3 2,3 1,3"), _snake("rival", "4,4 4,5 4,6 4,7 4,8 4,9")]),
        _moves("down"),
        kind=STRATEGY,
    ),
    Scenario(
        "head-to-head-avoid-edge",
        "head-to-head-avoid",
        "On the right edge, an equal rival comes down it: turn left, not up",
        _board([_snake(YOU, "10,5 10,4 10,3 10,2"), _snake("rival", "10,7 10,8 10,9 10,10")]),
        _moves("left"),
        kind=STRATEGY,
    ),
    Scenario(
        "head-to-head-avoid-longer-two-squares",
        "head-to-head-avoid",
        "A longer rival can reach the squares up and left: only right is safe",
        _board([_snake(YOU, "5,5 5,4 5,3"), _snake("rival", "4,6 3,6 2,6 1,6 0,6")]),
        _moves("right"),
        kind=STRATEGY,
    ),
    Scenario(
        "head-to-head-avoid-mixed",
        "head-to-head-avoid",
        "A shorter rival on the left (no danger) and an equal one on the right (deadly)",
        _board(
            [
                _snake(YOU, "5,5 5,4 5,3 5,2"),
                _snake("rival", "3,5 2,5 1,5"),
                _snake("third", "7,5 8,5 9,5 10,5"),
            ]
        ),
        _moves("up left"),
        kind=STRATEGY,
    ),
    # -- starving ------------------------------------------------------------------------
    Scenario(
        "starving-side",
        "starving",
        "Health 1: the food to the left is the only move that does not starve",
        _board(
            [_snake(YOU, "5,5 5,4 5,3", health=1), _snake("rival", _FAR_TOP_RIGHT)],
            food="4,5 5,7",
        ),
        _moves("left"),
    ),
    Scenario(
        "starving-two-foods",
        "starving",
        "Health 1 with food below and ahead: either eats, going up starves",
        _board(
            [_snake(YOU, "6,2 5,2 4,2 3,2", health=1), _snake("rival", _FAR_TOP_RIGHT)],
            food="6,1 7,2",
        ),
        _moves("down right"),
    ),
    Scenario(
        "starving-corner",
        "starving",
        "Health 1, food in the corner ahead: eat it rather than turn up",
        _board(
            [_snake(YOU, "1,0 2,0 3,0", health=1), _snake("rival", _FAR_TOP_RIGHT)],
            food="0,0 1,3",
        ),
        _moves("left"),
    ),
    # -- hazards ---------------------------------------------------------------------------
    Scenario(
        "hazard-edge",
        "hazards",
        "Health 10, hazard damage 14: the hazard column on the left would kill",
        _board(
            [_snake(YOU, "1,5 2,5 3,5", health=10), _snake("rival", _FAR_TOP_RIGHT)],
            hazards=_column(0),
            turn=60,
        ),
        _moves("up down"),
        ruleset="royale",
        map="royale",
    ),
    Scenario(
        "hazard-corner",
        "hazards",
        "Health 10: hazards above and to the right would kill, go down",
        _board(
            [_snake(YOU, "8,8 7,8 6,8", health=10), _snake("rival", _FAR_BOTTOM_RIGHT)],
            hazards=[*_row(9), *_row(10), *_column(9)[:9], *_column(10)[:9]],
            turn=90,
        ),
        _moves("down"),
        ruleset="royale",
        map="royale",
    ),
    Scenario(
        "hazard-leave-zone",
        "hazards",
        "Health 10, already in a two-wide hazard band: only right leaves it",
        _board(
            [_snake(YOU, "1,5 1,4 1,3", health=10), _snake("rival", _FAR_TOP_RIGHT)],
            hazards=[*_column(0), *_column(1)],
            turn=70,
        ),
        _moves("right"),
        ruleset="royale",
        map="royale",
    ),
    # -- wrapped board ------------------------------------------------------------------------
    Scenario(
        "wrapped-through-left-edge",
        "wrapped",
        "Wrapped board: rivals' bodies above and below, the way out is through the left edge",
        _board(
            [
                _snake(YOU, "0,5 1,5 2,5 3,5"),
                _snake("rival", "3,7 2,7 1,7 0,7 0,6 1,6 2,6 3,6"),
                _snake("third", "3,3 2,3 1,3 0,3 0,4 1,4 2,4 3,4"),
            ]
        ),
        _moves("left"),
        ruleset="wrapped",
    ),
    Scenario(
        "wrapped-through-bottom-edge",
        "wrapped",
        "Wrapped board: own body on three sides, the way out is through the bottom edge",
        _board(
            [
                _snake(YOU, "4,0 5,0 5,1 4,1 3,1 3,0 2,0"),
                _snake("rival", _FAR_TOP_RIGHT),
            ]
        ),
        _moves("down"),
        ruleset="wrapped",
    ),
    Scenario(
        "wrapped-corner",
        "wrapped",
        "Wrapped board, top-right corner: up and right both cross an edge safely",
        _board([_snake(YOU, "10,10 10,9 9,9 9,10 8,10"), _snake("rival", _FAR_BOTTOM_RIGHT)]),
        _moves("up right"),
        ruleset="wrapped",
    ),
    Scenario(
        "wrapped-into-body",
        "wrapped",
        "Wrapped board: crossing the right edge lands on a rival's body, turn instead",
        _board(
            [
                _snake(YOU, "10,5 9,5 8,5"),
                _snake("rival", "1,2 0,2 0,3 0,4 0,5 0,6 0,7"),
            ]
        ),
        _moves("up down"),
        ruleset="wrapped",
    ),
)
"""The whole suite, in report order."""

CATEGORIES: tuple[str, ...] = tuple(dict.fromkeys(s.category for s in SCENARIOS))
"""The scenario categories, in report order."""


def scenarios_in(categories: Iterable[str] | None = None) -> list[Scenario]:
    """The scenarios of ``categories`` (all of them for ``None``).

    Raises:
        UnknownCategoryError: naming a category that does not exist.
    """
    if categories is None:
        return list(SCENARIOS)
    wanted = list(categories)
    for name in wanted:
        if name not in CATEGORIES:
            raise UnknownCategoryError(
                f"unknown scenario category {name!r} (expected one of {choices_text(CATEGORIES)})"
            )
    return [s for s in SCENARIOS if s.category in wanted]


def special_rulesets() -> tuple[str, ...]:
    """The rulesets that have scenarios of their own (beyond the standard ones)."""
    return tuple(dict.fromkeys(s.ruleset for s in SCENARIOS if s.ruleset != CORE_RULESET))


def select_scenarios(
    rulesets: Iterable[str] = DEFAULT_RULESETS, categories: Iterable[str] | None = None
) -> list[Scenario]:
    """The scenarios to run for a snake that plays ``rulesets``.

    Without ``categories``: the standard scenarios, and those of any other ruleset
    in ``rulesets`` (hazards for ``royale``, edges for ``wrapped``): a standard snake
    is not failed for not knowing a wrapped board.  Categories named explicitly run
    whatever the rulesets.  Ruleset names are checked by the caller (the rules
    engine knows them).

    Raises:
        UnknownCategoryError: naming a category that does not exist.
    """
    if categories is not None:
        return scenarios_in(categories)
    wanted = {CORE_RULESET, *rulesets}
    return [s for s in SCENARIOS if s.ruleset in wanted]
