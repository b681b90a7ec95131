"""Board planes and action masks: what one snake sees, as numpy arrays.

Everything here is a pure function of a :class:`~snakewar.games.battlesnake.BoardState`
and imports only numpy, so a batched simulator can mirror it plane for plane.

Observation: ``float32`` array ``[C, H, W]`` with ``C = NUM_PLANES`` (13).
Indexing is ``obs[plane, y, x]`` with the board's own coordinates: row 0 is the
*bottom* row (``y = 0``) and ``up`` is row ``+1`` (use ``np.flipud`` for a
picture).  Only snakes that are alive are drawn (as the API shows them).

=====  ==================  ================================================================
index  name                value
=====  ==================  ================================================================
0      ``VALID``           1 on squares of the board, 0 on padding
1      ``OWN_HEAD``        1 on the own head
2      ``OWN_BODY``        1 on every own segment (head included)
3      ``OWN_BODY_TTL``    turns until the square is free if the snake does not eat:
                           ``(length - i) / (width * height)`` for segment ``i``
                           (head ``i = 0``; the largest value where segments stack),
                           clipped to 1
4      ``OWN_HEALTH``      own health / 100 on every board square
5      ``OTHER_HEADS``     1 on each other snake's head
6      ``OTHER_BODIES``    1 on every other snake's segment (heads included)
7      ``OTHER_BODY_TTL``  as ``OWN_BODY_TTL`` for the other snakes
8      ``OTHER_LONGER``    1 on the head of each other snake at least as long as the own
                           snake (a head-to-head with it is fatal)
9      ``OTHER_LENGTH``    on each other head: ``(its length - own length) / (width *
                           height)``, clipped to -1..1
10     ``OTHER_HEALTH``    on each other head: its health / 100
11     ``FOOD``            1 on food
12     ``HAZARDS``         the hazard stack count of the square (a point listed ``k``
                           times deals ``k`` times the damage), clipped to 255
=====  ==================  ================================================================

A dead own snake (or one missing from the board) leaves planes 1-4 at 0.

Framing (:class:`ObservationSpec`): without centring the board sits at the
bottom-left corner of a grid of at least the board's size, and the squares
beyond it are padding (``VALID`` 0), so one network can play several board sizes.
With ``center=True`` the own head is moved to the grid's centre cell
``(grid_height // 2, grid_width // 2)``: on a wrapped board the board is rolled
(a torus has no edge, so every square is still seen once, at its shortest
offset from the head); on a bounded board it is shifted, and the squares beyond
the edges are padding.  The default centred grid of a bounded board is
``(2 * height - 1, 2 * width - 1)``, which always holds the whole board; a
smaller grid is a local view (squares that fall off the grid are not seen).
Moves keep their meaning in every frame (nothing is rotated).

Action mask: ``int8`` array ``[4]`` in :data:`ACTIONS` order (up, down, left,
right): 1 where the move is not certainly fatal this turn, by the rules exactly
(see :func:`action_mask`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum

import numpy as np
import numpy.typing as npt

from snakewar.games.battlesnake.rl._errors import EnvConfigError
from snakewar.games.battlesnake.rules.rulesets import RULESETS
from snakewar.games.battlesnake.rules.settings import HAZARD_DAMAGE_PER_TURN, Settings
from snakewar.games.battlesnake.rules.types import SNAKE_MAX_HEALTH, BoardState, Point, Snake

__all__ = [
    "ACTIONS",
    "HAZARD_CAP",
    "NUM_PLANES",
    "ObservationSpec",
    "Plane",
    "action_mask",
    "encode_board",
    "encode_observation",
    "frame_planes",
    "is_wrapped_ruleset",
    "observation_bounds",
]

ACTIONS: tuple[str, str, str, str] = ("up", "down", "left", "right")
"""The action index of each move: ``ACTIONS[a]`` is the move string of action ``a``."""
_DELTAS: tuple[tuple[int, int], ...] = ((0, 1), (0, -1), (-1, 0), (1, 0))

HAZARD_CAP = 255
"""The largest hazard stack count the ``HAZARDS`` plane shows."""


class Plane(IntEnum):
    """The index of each observation plane (see the module documentation)."""

    VALID = 0
    OWN_HEAD = 1
    OWN_BODY = 2
    OWN_BODY_TTL = 3
    OWN_HEALTH = 4
    OTHER_HEADS = 5
    OTHER_BODIES = 6
    OTHER_BODY_TTL = 7
    OTHER_LONGER = 8
    OTHER_LENGTH = 9
    OTHER_HEALTH = 10
    FOOD = 11
    HAZARDS = 12


NUM_PLANES = len(Plane)

Float32Array = npt.NDArray[np.float32]
Int8Array = npt.NDArray[np.int8]


def is_wrapped_ruleset(ruleset: str) -> bool:
    """Whether ``ruleset`` moves heads across the edges (the wrapped rulesets).

    Raises:
        EnvConfigError: if the ruleset is not registered.
    """
    stages = RULESETS.get(ruleset)
    if stages is None:
        raise EnvConfigError(
            f"unknown ruleset {ruleset!r} (expected one of {', '.join(map(repr, RULESETS))})"
        )
    return "movement.wrap_boundaries" in stages


def hazard_damage_of(ruleset: str, settings: Settings) -> int:
    """The hazard damage per stack and turn that ``ruleset`` applies with ``settings``."""
    stages = RULESETS.get(ruleset, ())
    if "hazard_damage.standard" not in stages:
        return 0
    return settings.get_int(HAZARD_DAMAGE_PER_TURN, 0)


@dataclass(frozen=True, slots=True)
class ObservationSpec:
    """How a board becomes a fixed-size observation (see the module documentation).

    Attributes:
        width: The board's width.
        height: The board's height.
        wrapped: Whether the board wraps (centring rolls instead of shifting).
        center: Put the own head at the grid's centre cell.
        grid_width: The observation's width; ``None`` for the default (the board's
            width, or ``2 * width - 1`` when centring a bounded board).
        grid_height: The observation's height, likewise.
    """

    width: int
    height: int
    wrapped: bool = False
    center: bool = False
    grid_width: int | None = None
    grid_height: int | None = None

    def __post_init__(self) -> None:
        for name in ("width", "height"):
            value = getattr(self, name)
            if type(value) is not int or value < 1:
                raise EnvConfigError(f"{name} {value!r}: expected a positive integer")
        for name, board in (("grid_width", self.width), ("grid_height", self.height)):
            value = getattr(self, name)
            if value is None:
                continue
            if type(value) is not int or value < 1:
                raise EnvConfigError(f"{name} {value!r}: expected a positive integer or None")
            if not self.center and value < board:
                raise EnvConfigError(
                    f"{name} {value!r}: expected at least the board's {board} "
                    "(only a centred view may be smaller than the board)"
                )

    @property
    def shape(self) -> tuple[int, int, int]:
        """The observation's shape ``(NUM_PLANES, grid_height, grid_width)``."""
        return (
            NUM_PLANES,
            self._grid(self.grid_height, self.height),
            self._grid(self.grid_width, self.width),
        )

    def _grid(self, given: int | None, board: int) -> int:
        if given is not None:
            return given
        return 2 * board - 1 if self.center and not self.wrapped else board


def observation_bounds(shape: tuple[int, int, int]) -> tuple[Float32Array, Float32Array]:
    """The per-cell ``(low, high)`` bounds of an observation of ``shape``."""
    low = np.zeros(shape, dtype=np.float32)
    high = np.ones(shape, dtype=np.float32)
    low[Plane.OTHER_LENGTH] = -1.0
    high[Plane.HAZARDS] = float(HAZARD_CAP)
    return low, high


def _find(state: BoardState, snake_id: str) -> Snake | None:
    for snake in state.snakes:
        if snake.id == snake_id:
            return snake
    return None


def _cells(state: BoardState, points: Sequence[Point]) -> tuple[npt.NDArray[np.intp], ...]:
    """The ``(ys, xs, keep)`` index arrays of ``points`` that lie on the board."""
    if not points:
        empty = np.zeros(0, dtype=np.intp)
        return empty, empty, np.zeros(0, dtype=np.intp)
    arr = np.asarray(points, dtype=np.intp).reshape(-1, 2)
    xs, ys = arr[:, 0], arr[:, 1]
    keep = np.flatnonzero((xs >= 0) & (xs < state.width) & (ys >= 0) & (ys < state.height))
    return ys[keep], xs[keep], keep


def _draw_body(
    planes: Float32Array, state: BoardState, body: Sequence[Point], occupied: int, ttl: int
) -> None:
    ys, xs, keep = _cells(state, body)
    planes[occupied, ys, xs] = 1.0
    # Segment i frees after (length - i) moves without eating; where segments stack
    # (the start, just after eating) the one nearest the head decides.
    area = state.width * state.height
    left = np.minimum((len(body) - keep) / area, 1.0).astype(np.float32)
    np.maximum.at(planes[ttl], (ys, xs), left)


def encode_board(state: BoardState, snake_id: str) -> Float32Array:
    """Return the planes of ``state`` seen by ``snake_id``, in the board's frame.

    The result has shape ``(NUM_PLANES, state.height, state.width)``; see the
    module documentation for the planes.  :func:`frame_planes` pads or centres it.
    """
    area = state.width * state.height
    planes = np.zeros((NUM_PLANES, state.height, state.width), dtype=np.float32)
    planes[Plane.VALID] = 1.0
    own = _find(state, snake_id)
    own_alive = own is not None and not own.eliminated_cause and bool(own.body)
    own_length = len(own.body) if own is not None else 0
    if own is not None and own_alive:
        ys, xs, _ = _cells(state, own.body[:1])
        planes[Plane.OWN_HEAD, ys, xs] = 1.0
        _draw_body(planes, state, own.body, Plane.OWN_BODY, Plane.OWN_BODY_TTL)
        planes[Plane.OWN_HEALTH] = max(own.health, 0) / SNAKE_MAX_HEALTH
    for snake in state.snakes:
        if snake.id == snake_id or snake.eliminated_cause or not snake.body:
            continue
        _draw_body(planes, state, snake.body, Plane.OTHER_BODIES, Plane.OTHER_BODY_TTL)
        ys, xs, _ = _cells(state, snake.body[:1])
        if not len(ys):
            continue
        y, x = ys[0], xs[0]
        planes[Plane.OTHER_HEADS, y, x] = 1.0
        length = len(snake.body)
        if length >= own_length:
            planes[Plane.OTHER_LONGER, y, x] = 1.0
        planes[Plane.OTHER_LENGTH, y, x] = min(max((length - own_length) / area, -1.0), 1.0)
        planes[Plane.OTHER_HEALTH, y, x] = min(max(snake.health, 0), SNAKE_MAX_HEALTH) / 100
    ys, xs, _ = _cells(state, state.food)
    planes[Plane.FOOD, ys, xs] = 1.0
    ys, xs, _ = _cells(state, state.hazards)
    np.add.at(planes[Plane.HAZARDS], (ys, xs), 1.0)
    np.minimum(planes[Plane.HAZARDS], HAZARD_CAP, out=planes[Plane.HAZARDS])
    return planes


def frame_planes(planes: Float32Array, spec: ObservationSpec, head: Point | None) -> Float32Array:
    """Pad or centre board-frame ``planes`` into the grid of ``spec``.

    ``head`` is the own head (``None`` when the snake is dead: no centring).
    """
    _, gh, gw = spec.shape
    _, h, w = planes.shape
    if spec.center and head is not None:
        anchor_y, anchor_x = head.y, head.x
        if spec.wrapped:
            # A torus: roll the head to the board's middle so every square keeps
            # its shortest offset from the head, then place that middle at the centre.
            planes = np.roll(planes, (h // 2 - head.y, w // 2 - head.x), axis=(1, 2))
            anchor_y, anchor_x = h // 2, w // 2
        off_y, off_x = gh // 2 - anchor_y, gw // 2 - anchor_x
    elif spec.center:
        off_y, off_x = gh // 2 - h // 2, gw // 2 - w // 2
    else:
        off_y, off_x = 0, 0
    out = np.zeros((NUM_PLANES, gh, gw), dtype=np.float32)
    # Paste the board at the offset, cropping what falls off the grid.
    y0, x0 = max(off_y, 0), max(off_x, 0)
    y1, x1 = min(off_y + h, gh), min(off_x + w, gw)
    if y0 < y1 and x0 < x1:
        out[:, y0:y1, x0:x1] = planes[:, y0 - off_y : y1 - off_y, x0 - off_x : x1 - off_x]
    return out


def encode_observation(state: BoardState, snake_id: str, spec: ObservationSpec) -> Float32Array:
    """Return the observation of ``state`` for ``snake_id``, framed by ``spec``.

    Raises:
        EnvConfigError: if the board's size is not the one ``spec`` was made for.
    """
    if (state.width, state.height) != (spec.width, spec.height):
        raise EnvConfigError(
            f"board size {state.width}x{state.height}: expected the spec's "
            f"{spec.width}x{spec.height}"
        )
    own = _find(state, snake_id)
    head = own.body[0] if own is not None and own.body and not own.eliminated_cause else None
    return frame_planes(encode_board(state, snake_id), spec, head)


def action_mask(
    state: BoardState, snake_id: str, *, wrapped: bool = False, hazard_damage: int = 0
) -> Int8Array:
    """Return the moves of ``snake_id`` that are not certainly fatal this turn.

    ``mask[a]`` is 1 unless move :data:`ACTIONS` ``[a]`` loses whatever the other
    snakes do, by the rules' own order (move, starve, hazard damage, feed,
    eliminate):

    * it leaves a bounded board (``wrapped=False``);
    * it enters a segment that stays occupied: every segment of every alive snake
      except its last one; a stacked tail (the snake just ate, or it is turn 0)
      stays, as eating this turn only re-stacks a square already counted;
    * the health left after the turn's point and the hazard damage (``hazard_damage``
      per stack on the square, unless food lies there) is 0, and no food lies
      there to refill it.

    Head-to-heads are not counted: they depend on the other snakes' moves (the
    ``OTHER_LONGER`` plane shows where they would be fatal).  A body also blocks
    when its snake dies on the same turn (it may: that too depends on its move),
    so a masked move can survive only through another snake's death.  A snake that
    is dead or missing gets all zeros; a snake with no safe move too (the
    environments then allow every move, see their ``mask_fallback``).
    """
    mask = np.zeros(len(ACTIONS), dtype=np.int8)
    own = _find(state, snake_id)
    if own is None or own.eliminated_cause or not own.body:
        return mask
    blocked: set[Point] = set()
    for snake in state.snakes:
        if not snake.eliminated_cause:
            blocked.update(snake.body[:-1])
    food = set(state.food)
    hx, hy = own.body[0]
    w, h = state.width, state.height
    for index, (dx, dy) in enumerate(_DELTAS):
        x, y = hx + dx, hy + dy
        if wrapped:
            x, y = x % w, y % h
        elif not (0 <= x < w and 0 <= y < h):
            continue
        target = Point(x, y)
        if target in blocked or not _survives_health(
            own.health, target, state, food, hazard_damage
        ):
            continue
        mask[index] = 1
    return mask


def _survives_health(
    health: int, target: Point, state: BoardState, food: set[Point], damage: int
) -> bool:
    if target in food:
        return True  # feeding (after starvation and hazards) refills before elimination
    health -= 1
    if damage:
        for point in state.hazards:
            if point == target:
                health = min(max(health - damage, 0), SNAKE_MAX_HEALTH)
                if health <= 0:
                    return False
    return health > 0
