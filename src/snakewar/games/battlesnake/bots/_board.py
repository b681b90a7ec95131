"""Fast board logic shared by the built-in ``greedy`` and ``hunter`` bots.

The rules engine (:mod:`snakewar.games.battlesnake`) is exact but far too slow to
run inside a search, so the bots work on a compact copy of the board:

* a square is an ``int`` cell index ``y * width + x``;
* a set of squares is an ``int`` bitboard (bit ``cell`` set), so that flood fills
  and Voronoi partitions are a few big-integer operations per BFS layer;
* a snake is a :data:`SimSnake` tuple ``(body, health, mask)``: the body as a
  tuple of cells (head first, stacked segments repeated), its health, and the
  bitboard of the squares it covers.

:class:`Sim` applies one turn with the real rules' order (move, starvation,
hazard damage, feeding, eliminations, constrictor growth), except that no food
spawns and the hazards do not change: a bot cannot know future spawns.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import TypeAlias

from snakewar.errors import EntrantError
from snakewar.games.battlesnake.rules.settings import HAZARD_DAMAGE_PER_TURN
from snakewar.games.battlesnake.rules.types import SNAKE_MAX_HEALTH, BoardState, Point
from snakewar.games.battlesnake.rules.wire import SnakeRequest

__all__ = [
    "FROZEN",
    "MOVE_NAMES",
    "OFF_BOARD",
    "BotOptionError",
    "Geometry",
    "Sim",
    "SimSnake",
    "geometry",
    "sim_from_request",
    "territory",
]

MOVE_NAMES: tuple[str, str, str, str] = ("up", "down", "left", "right")
"""Move names in the order of :attr:`Geometry.neighbours` entries."""

OFF_BOARD = -1
"""Destination of a move that leaves a non-wrapped board (the snake dies)."""
FROZEN = -2
"""Destination meaning "this snake does not move" (distant snakes in a reduced search)."""

SimSnake: TypeAlias = tuple[tuple[int, ...], int, int]
"""A snake in the simulator: ``(body cells head first, health, body bitboard)``."""

Expand: TypeAlias = Callable[[int], int]


class BotOptionError(EntrantError):
    """Raised for a built-in bot option with a value the bot cannot use."""


class Geometry:
    """The board's shape: cell numbering, neighbour tables and bitboard masks.

    Attributes:
        width: Board width.
        height: Board height.
        wrapped: Whether moves wrap around the edges.
        size: Number of squares.
        full: Bitboard of every square.
        neighbours: For each cell, the destination of ``up``, ``down``, ``left``
            and ``right`` (:data:`OFF_BOARD` where the move leaves the board).
        expand: ``expand(bits)`` is the bitboard of the squares one step away
            from any square of ``bits`` (it may include ``bits`` themselves).
        not_col0: Every square but the left column.
        not_col_last: Every square but the right column.
    """

    __slots__ = (
        "expand",
        "full",
        "height",
        "neighbours",
        "not_col0",
        "not_col_last",
        "size",
        "width",
        "wrapped",
    )

    def __init__(self, width: int, height: int, wrapped: bool) -> None:
        self.width = width
        self.height = height
        self.wrapped = wrapped
        size = width * height
        self.size = size
        full = (1 << size) - 1
        self.full = full
        neighbours: list[tuple[int, int, int, int]] = []
        for cell in range(size):
            x, y = cell % width, cell // width
            out: list[int] = []
            for dx, dy in ((0, 1), (0, -1), (-1, 0), (1, 0)):
                nx, ny = x + dx, y + dy
                if wrapped:
                    nx, ny = nx % width, ny % height
                elif not (0 <= nx < width and 0 <= ny < height):
                    out.append(OFF_BOARD)
                    continue
                out.append(ny * width + nx)
            neighbours.append((out[0], out[1], out[2], out[3]))
        self.neighbours: tuple[tuple[int, int, int, int], ...] = tuple(neighbours)
        self.expand: Expand = _make_expand(width, height, wrapped)
        col0 = 0
        for y in range(height):
            col0 |= 1 << (y * width)
        self.not_col0 = full & ~col0
        self.not_col_last = full & ~(col0 << (width - 1))

    def cell(self, point: Point) -> int:
        """The cell index of an on-board point."""
        return point.y * self.width + point.x

    def on_board(self, point: Point) -> bool:
        """Whether ``point`` lies on the board."""
        return 0 <= point.x < self.width and 0 <= point.y < self.height

    def distance(self, a: int, b: int) -> int:
        """Manhattan distance between two cells (around the edges when wrapped)."""
        w = self.width
        dx = abs(a % w - b % w)
        dy = abs(a // w - b // w)
        if self.wrapped:
            dx = min(dx, w - dx)
            dy = min(dy, self.height - dy)
        return dx + dy


def _make_expand(width: int, height: int, wrapped: bool) -> Expand:
    size = width * height
    full = (1 << size) - 1
    col0 = 0
    for y in range(height):
        col0 |= 1 << (y * width)
    col_last = col0 << (width - 1)
    not_col0 = full & ~col0
    not_col_last = full & ~col_last
    if not wrapped:

        def expand(bits: int) -> int:
            return (
                ((bits << 1) & not_col0)
                | ((bits >> 1) & not_col_last)
                | ((bits << width) & full)
                | (bits >> width)
            )

        return expand

    row0 = (1 << width) - 1
    row_last = row0 << (size - width)
    not_row_last = full & ~row_last
    shift_x = width - 1
    shift_y = size - width

    def expand_wrapped(bits: int) -> int:
        return (
            ((bits & not_col_last) << 1)
            | ((bits & col_last) >> shift_x)
            | ((bits & not_col0) >> 1)
            | ((bits & col0) << shift_x)
            | ((bits & not_row_last) << width)
            | ((bits & row_last) >> shift_y)
            | (bits >> width)
            | ((bits & row0) << shift_y)
        )

    return expand_wrapped


@functools.lru_cache(maxsize=64)
def geometry(width: int, height: int, wrapped: bool) -> Geometry:
    """The (cached) :class:`Geometry` of a board shape."""
    return Geometry(width, height, wrapped)


def body_mask(body: Sequence[int]) -> int:
    """The bitboard of the squares a body covers."""
    mask = 0
    for cell in body:
        mask |= 1 << cell
    return mask


class Sim:
    """One game's rules on compact states: ``step`` and move generation.

    A state is a list of :data:`SimSnake` (``None`` for an eliminated snake) and a
    food bitboard.  Hazards are fixed for the whole search.

    Args:
        geo: The board's geometry.
        damage: Hazard damage per stacked hazard per turn (negative heals).
        hazard_counts: How many hazards are stacked on each cell.
        constrictor: Whether snakes grow every turn and food is removed.
    """

    __slots__ = ("constrictor", "damage", "geo", "hazard_counts", "hazard_mask")

    def __init__(
        self, geo: Geometry, damage: int, hazard_counts: Sequence[int], constrictor: bool
    ) -> None:
        self.geo = geo
        self.damage = damage
        self.hazard_counts: tuple[int, ...] = tuple(hazard_counts)
        mask = 0
        for cell, count in enumerate(self.hazard_counts):
            if count:
                mask |= 1 << cell
        self.hazard_mask = mask
        self.constrictor = constrictor

    def health_after(self, health: int, dest: int, food: int) -> int:
        """Health after moving onto ``dest`` (before any collision); <= 0 means dead."""
        health -= 1
        count = self.hazard_counts[dest]
        if count and not (food >> dest) & 1:
            damage = self.damage
            for _ in range(count):
                health -= damage
                if health > SNAKE_MAX_HEALTH:
                    health = SNAKE_MAX_HEALTH
                if health <= 0:
                    return 0
        if (food >> dest) & 1:
            return SNAKE_MAX_HEALTH
        return health

    def step(
        self, snakes: Sequence[SimSnake | None], food: int, dests: Sequence[int]
    ) -> tuple[list[SimSnake | None], int]:
        """Apply one turn: ``dests[i]`` is where snake ``i``'s head goes.

        ``dests[i]`` may be :data:`OFF_BOARD` (it dies) or :data:`FROZEN` (it stays
        as it is: a distant snake that a reduced search does not move).  Entries
        for eliminated snakes are ignored.

        Returns:
            The new snake list and food bitboard.
        """
        n = len(snakes)
        moved: list[SimSnake | None] = [None] * n
        eaten = 0
        hazard_counts = self.hazard_counts
        damage = self.damage
        for i in range(n):
            snake = snakes[i]
            if snake is None:
                continue
            dest = dests[i]
            if dest < 0:
                if dest == FROZEN:
                    moved[i] = snake
                continue  # off the board: eliminated before collisions
            body, health, mask = snake
            health -= 1
            bit = 1 << dest
            count = hazard_counts[dest]
            if count and not food & bit:
                for _ in range(count):
                    health -= damage
                    if health > SNAKE_MAX_HEALTH:
                        health = SNAKE_MAX_HEALTH
                    if health <= 0:
                        break
                if health <= 0:
                    continue  # eliminated by the hazard: not an obstacle this turn
            tail = body[-1]
            if len(body) < 2 or body[-2] != tail:
                mask &= ~(1 << tail)
            mask |= bit
            new_body = (dest, *body[:-1])
            if food & bit:
                health = SNAKE_MAX_HEALTH
                new_body = (*new_body, new_body[-1])
                eaten |= bit
            elif health <= 0:
                continue  # starved
            moved[i] = (new_body, health, mask)
        if eaten:
            food &= ~eaten

        # Collisions, all judged on the positions after the move and feeding.
        out = moved
        dead: list[int] | None = None
        for i in range(n):
            snake = moved[i]
            if snake is None or dests[i] == FROZEN:
                continue
            body = snake[0]
            head = body[0]
            hbit = 1 << head
            if body.count(head) > 1:
                dead = [i] if dead is None else [*dead, i]
                continue
            length = len(body)
            for j in range(n):
                other = moved[j]
                if j == i or other is None or not other[2] & hbit:
                    continue
                obody = other[0]
                if obody[0] != head or obody.count(head) > 1 or length <= len(obody):
                    dead = [i] if dead is None else [*dead, i]
                    break
        if dead is not None:
            out = list(moved)
            for i in dead:
                out[i] = None
        if self.constrictor:
            food = 0
            grown: list[SimSnake | None] = []
            for i, snake in enumerate(out):
                if snake is None or dests[i] == FROZEN:
                    grown.append(snake)
                    continue
                body, _, mask = snake
                if len(body) < 2 or body[-1] != body[-2]:
                    body = (*body, body[-1])
                grown.append((body, SNAKE_MAX_HEALTH, mask))
            out = grown
        return out, food

    def blocked(self, snakes: Sequence[SimSnake | None]) -> int:
        """Squares no head can enter next turn: bodies, less tails that move away."""
        occupied = 0
        for snake in snakes:
            if snake is None:
                continue
            body, _, mask = snake
            if len(body) >= 2 and body[-1] != body[-2]:
                mask &= ~(1 << body[-1])
            occupied |= mask
        return occupied

    def options(self, snake: SimSnake, blocked: int, food: int) -> list[int]:
        """Destinations that do not kill the snake by themselves.

        Excludes leaving the board, entering a body (``blocked``), and dying of
        starvation or hazard damage.  Head-to-heads are not considered.
        """
        body, health, _ = snake
        out: list[int] = []
        hazard_counts = self.hazard_counts
        for dest in self.geo.neighbours[body[0]]:
            if dest < 0 or (blocked >> dest) & 1:
                continue
            if (health <= 1 or hazard_counts[dest]) and self.health_after(health, dest, food) <= 0:
                continue
            out.append(dest)
        return out


def territory(
    geo: Geometry,
    snakes: Sequence[SimSnake | None],
    sources: Sequence[int],
    food: int,
    release: bool,
    max_steps: int = 1 << 30,
) -> tuple[list[int], list[int], list[int]]:
    """Voronoi partition by simultaneous BFS from the heads of ``sources``.

    Every alive snake's body is an obstacle.  When ``release`` is true a body
    square becomes free once that snake's tail would have left it: the square
    ``k`` segments from the tail is free from BFS step ``k + 1`` on (assuming no
    one eats).  A square reached first by one snake is its territory; a square
    reached at the same step by several goes to the strictly longest of them, or
    to no one.

    A snake can claim a freed square next to *any* square it owns (not only its
    BFS frontier) as long as it owns enough squares to wander in until then: at
    step ``t``, at least ``t``.  So a small pocket stays small even though the
    walls around it free up later, while a large area grows into freed squares.

    Args:
        geo: The board's geometry.
        snakes: The snakes (``None`` for eliminated ones).
        sources: Indices of the snakes to grow territories from.
        food: Food bitboard (to measure the distance to the nearest food).
        release: Whether tails free their squares as time passes.
        max_steps: Stop after this many BFS layers.

    Returns:
        ``(areas, food_dists, owned)`` indexed like ``sources``: the number of
        squares owned, the BFS step at which the first food was owned (``-1``:
        none), and the owned bitboard (heads excluded).
    """
    occupied = 0
    releases: list[int] = []
    for snake in snakes:
        if snake is None:
            continue
        body, _, mask = snake
        occupied |= mask
        if release:
            length = len(body)
            # Step t frees body[length - t], unless the segment before it is stacked on it.
            limit = length if length < max_steps else max_steps
            if len(releases) < limit - 1:
                releases.extend([0] * (limit - 1 - len(releases)))
            for t in range(1, limit):
                cell = body[length - t]
                if body[length - t - 1] != cell:
                    releases[t - 1] |= 1 << cell
    n_releases = len(releases)
    avail = geo.full & ~occupied
    k = len(sources)
    if k == 2:
        return _territory2(geo, snakes, sources, food, avail, releases, max_steps)
    expand = geo.expand
    fronts: list[int] = []
    lengths: list[int] = []
    reach: list[int] = []  # owned squares plus the head: where a snake can be
    for idx in sources:
        snake = snakes[idx]
        assert snake is not None
        fronts.append(1 << snake[0][0])
        reach.append(1 << snake[0][0])
        lengths.append(len(snake[0]))
    areas = [0] * k
    food_dists = [-1] * k
    step = 0
    while step < max_steps:
        if not any(fronts) and (step >= n_releases or all(area <= step for area in areas)):
            break  # nothing left to reach, and no one can wait for freed squares
        if step < n_releases:
            avail |= releases[step]
        step += 1
        reached = [expand(reach[i] if areas[i] >= step else fronts[i]) & avail for i in range(k)]
        new = reached
        if k > 1:
            new = []
            taken = 0
            for i in range(k):
                ni = reached[i]
                taken |= ni
                if ni:
                    li = lengths[i]
                    for j in range(k):
                        if j != i and li <= lengths[j] and reached[j]:
                            ni &= ~reached[j]
                            if not ni:
                                break
                new.append(ni)
            # Every square reached this step is taken, by a winner or by no one.
            avail &= ~taken
        else:
            avail &= ~reached[0]
        for i in range(k):
            ni = new[i]
            if ni:
                reach[i] |= ni
                areas[i] += ni.bit_count()
                if food_dists[i] < 0 and ni & food:
                    food_dists[i] = step
        fronts = new
    owned = list(reach)
    for i, idx in enumerate(sources):
        snake = snakes[idx]
        assert snake is not None
        owned[i] &= ~(1 << snake[0][0])
    return areas, food_dists, owned


def _territory2(
    geo: Geometry,
    snakes: Sequence[SimSnake | None],
    sources: Sequence[int],
    food: int,
    avail: int,
    releases: list[int],
    max_steps: int,
) -> tuple[list[int], list[int], list[int]]:
    """:func:`territory` for exactly two sources (the hot path of a 1v1 search)."""
    s0 = snakes[sources[0]]
    s1 = snakes[sources[1]]
    assert s0 is not None and s1 is not None
    h0 = 1 << s0[0][0]
    h1 = 1 << s1[0][0]
    f0, f1 = h0, h1
    r0, r1 = h0, h1
    l0, l1 = len(s0[0]), len(s1[0])
    a0 = a1 = 0
    d0 = d1 = -1
    n_releases = len(releases)
    # The non-wrapped expand, inlined: this loop is most of a leaf evaluation.
    wrapped = geo.wrapped
    expand = geo.expand
    width, full, not_col0, not_col_last = geo.width, geo.full, geo.not_col0, geo.not_col_last
    step = 0
    while step < max_steps:
        if not (f0 or f1) and (step >= n_releases or (a0 <= step and a1 <= step)):
            break  # nothing left to reach, and no one can wait for freed squares
        if step < n_releases:
            avail |= releases[step]
        step += 1
        b0 = r0 if a0 >= step else f0
        b1 = r1 if a1 >= step else f1
        if wrapped:
            n0 = expand(b0) & avail
            n1 = expand(b1) & avail
        else:
            n0 = (
                ((b0 << 1) & not_col0)
                | ((b0 >> 1) & not_col_last)
                | ((b0 << width) & full)
                | (b0 >> width)
            ) & avail
            n1 = (
                ((b1 << 1) & not_col0)
                | ((b1 >> 1) & not_col_last)
                | ((b1 << width) & full)
                | (b1 >> width)
            ) & avail
        avail &= ~(n0 | n1)
        both = n0 & n1
        if both:
            if l0 > l1:
                n1 &= ~both
            elif l1 > l0:
                n0 &= ~both
            else:
                n0 &= ~both
                n1 &= ~both
        if n0:
            r0 |= n0
            a0 += n0.bit_count()
            if d0 < 0 and n0 & food:
                d0 = step
        if n1:
            r1 |= n1
            a1 += n1.bit_count()
            if d1 < 0 and n1 & food:
                d1 = step
        f0, f1 = n0, n1
    return [a0, a1], [d0, d1], [r0 & ~h0, r1 & ~h1]


def sim_from_request(request: SnakeRequest) -> tuple[Sim, list[SimSnake | None], int, list[str]]:
    """Build the simulator, the snakes (``you`` first) and the food from a request.

    Returns:
        ``(sim, snakes, food, ids)``: ``ids[i]`` is the id of ``snakes[i]``.
    """
    board: BoardState = request.board
    geo = geometry(board.width, board.height, request.wrapped)
    counts = [0] * geo.size
    for p in board.hazards:
        if geo.on_board(p):
            counts[geo.cell(p)] += 1
    ruleset = request.game.ruleset_name
    sim = Sim(
        geo,
        request.game.settings.get_int(HAZARD_DAMAGE_PER_TURN, 0),
        counts,
        constrictor=ruleset.endswith("constrictor"),
    )
    you = request.you
    ordered = [you]
    ordered.extend(s for s in board.snakes if s.id != you.id and not s.eliminated_cause)
    snakes: list[SimSnake | None] = []
    for s in ordered:
        body = tuple(geo.cell(p) if geo.on_board(p) else 0 for p in s.body)
        if not body:
            snakes.append(None)
            continue
        snakes.append((body, s.health, body_mask(body)))
    food = 0
    for p in board.food:
        if geo.on_board(p):
            food |= 1 << geo.cell(p)
    return sim, snakes, food, [s.id for s in ordered]
