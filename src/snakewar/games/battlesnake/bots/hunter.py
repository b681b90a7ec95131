"""The ``hunter`` built-in bot: alpha-beta search with a Voronoi evaluation.

**Search.**  Moves are simultaneous, so each turn is searched as two levels: the
hunter chooses its move (a max node), then the opponents answer knowing it (one
min node over their joint moves, the *paranoid* assumption), then the turn is
resolved by a fast simulator that follows the real rules (tails, stacked tails,
head-to-heads decided on length after feeding, starvation, hazard damage,
wrapped edges, constrictor growth; no food spawns during the search).  Alpha-beta
with iterative deepening runs until the time budget is spent; the best move of
the deepest finished iteration is played (or a better one found by the unfinished
iteration, once it has re-searched the previous best move).

With more than one opponent only the ``opponents`` nearest ones (by head
distance), and any other whose head is within two squares, move in the search;
the others stay where they are, as obstacles.

**Evaluation** (from the hunter's side; a depth-``d`` leaf is scored once every
snake has moved ``d`` times):

* terminal states: a win (all opponents eliminated) scores about ``+1e6``, a
  loss ``-1e6`` (later is better), a draw ``-5e5``;
* territory: a simultaneous BFS from every head (bodies free up as tails move)
  gives each snake the squares it reaches first; the hunter's share minus the
  largest opponent share, hazard squares counting less;
* trapped snakes: territory smaller than the snake's length is a large penalty
  (the hunter's) or bonus (an opponent's);
* length: being longer than the longest opponent (head-to-heads are won by the
  longer snake) is rewarded, up to a cap;
* health: a snake whose nearest food in its territory is farther than its health
  is treated as starving; when hungry or not longer, a shorter path to food is
  preferred.

**Options** (``builtin:hunter?budget=100&depth=3``):

* ``budget``: thinking time per move in milliseconds, 1 to :data:`MAX_BUDGET_MS`.
  Without it the hunter uses ``max(20, min(timeout / 2, timeout - 150))``: 250 ms
  of a 500 ms game.
* ``depth``: the maximum search depth in turns, 1 to :data:`MAX_DEPTH`.  ``depth``
  without ``budget`` is a fixed-depth search: deterministic whenever it finishes
  within the game's time cap (below), which small depths (1-3) always do.
* ``opponents``: how many nearest opponents move in the search, 1 to
  :data:`MAX_OPPONENTS` (default 2).

**Limits.**  One rule for every option: a value outside its range is refused when
the bot is built (:class:`BotOptionError`, naming the option and the range).
Within its range, a search never runs past :func:`think_cap_ms` of the game's
timeout, whatever the options: a bot never plans to think longer than the referee
waits for it.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Sequence

from snakewar.games.battlesnake.bots._board import (
    FROZEN,
    MOVE_NAMES,
    BotOptionError,
    Sim,
    SimSnake,
    sim_from_request,
    territory,
)
from snakewar.games.battlesnake.bots.base import Bot, SnakeMetadata, request_rng
from snakewar.games.battlesnake.rules.wire import MoveReply, SnakeRequest

__all__ = [
    "MAX_BUDGET_MS",
    "MAX_DEPTH",
    "MAX_OPPONENTS",
    "BotOptionError",
    "HunterBot",
    "SearchResult",
    "default_budget_ms",
    "search",
    "think_cap_ms",
]

WIN = 1_000_000.0
"""Score of a won position (minus the plies it takes)."""
LOSS = -WIN
"""Score of a lost position (plus the plies it takes)."""
DRAW = -WIN / 2
"""Score of a position where every remaining snake is eliminated at once."""
_DECIDED = WIN / 4
"""Scores beyond this (in absolute value) are wins, losses or draws."""

_MAX_DEPTH = 64
"""Iterative deepening stops here even with time left (the game is decided)."""

MAX_DEPTH = 16
"""The largest ``depth`` option: deeper fixed-depth searches cannot finish in any game."""
MAX_BUDGET_MS = 10_000
"""The largest ``budget`` option (ms); a game's own timeout caps it further."""
MAX_OPPONENTS = 7
"""The largest ``opponents`` option: a game has at most 8 snakes."""


class _Timeout(Exception):
    """The budget ran out inside the search."""


def default_budget_ms(timeout_ms: int) -> float:
    """The thinking time used without a ``budget`` option, for a game timeout.

    Half the timeout, but at least 150 ms below it (for the network and the
    server), and never under 20 ms.

    >>> default_budget_ms(500), default_budget_ms(200), default_budget_ms(100)
    (250.0, 50.0, 20.0)
    """
    return float(max(20.0, min(timeout_ms * 0.5, timeout_ms - 150.0)))


def think_cap_ms(timeout_ms: int) -> float:
    """The longest a search may run in a game with this timeout, whatever the options.

    The timeout minus a tenth of it (at least 20 ms) for setting up the search and
    carrying the reply, and never under 1 ms.

    >>> think_cap_ms(500), think_cap_ms(100), think_cap_ms(10)
    (450.0, 80.0, 1.0)
    """
    return float(max(1.0, timeout_ms - max(20.0, timeout_ms * 0.1)))


class SearchResult:
    """What one search found.

    Attributes:
        move: The chosen move index (into ``up, down, left, right``).
        depth: The deepest fully searched depth (turns).
        nodes: Max nodes visited (one per searched position).
        leaves: Positions evaluated.
        scores: The last finished iteration's score per move index (``None`` for
            moves that were not searched, such as suicidal ones).
    """

    __slots__ = ("depth", "leaves", "move", "nodes", "scores")

    def __init__(
        self, move: int, depth: int, nodes: int, leaves: int, scores: list[float | None]
    ) -> None:
        self.move = move
        self.depth = depth
        self.nodes = nodes
        self.leaves = leaves
        self.scores = scores

    def __repr__(self) -> str:
        return (
            f"SearchResult(move={MOVE_NAMES[self.move]!r}, depth={self.depth}, "
            f"nodes={self.nodes}, leaves={self.leaves}, scores={self.scores})"
        )


class _Searcher:
    """One move's search: the simulator, the clock and the counters."""

    def __init__(self, sim: Sim, movers: Sequence[int], n: int, deadline: float | None) -> None:
        self.sim = sim
        self.n = n
        self.movers = tuple(movers)
        self.deadline = deadline
        self.nodes = 0
        self.leaves = 0
        self.killer_me: dict[int, int] = {}
        self.killer_opp: dict[int, tuple[int, ...]] = {}
        self.release = not sim.constrictor
        self.solo = n == 1
        self.hazards = sim.hazard_mask

    # -- evaluation -------------------------------------------------------------------

    def evaluate(self, snakes: Sequence[SimSnake | None], food: int) -> float:
        """Score a position where the hunter (``snakes[0]``) is alive."""
        self.leaves += 1
        geo = self.sim.geo
        sources = [i for i in range(self.n) if snakes[i] is not None]
        areas, food_dists, owned = territory(geo, snakes, sources, food, self.release)
        hazards = self.hazards
        if hazards:
            # A hazard square is worth a quarter of a safe one.
            for k in range(len(areas)):
                areas[k] -= (owned[k] & hazards).bit_count() * 3 // 4
        me = snakes[0]
        assert me is not None
        my_len = len(me[0])
        my_health = me[1]
        my_area = areas[0]
        best_area = 0
        best_len = 0
        score = 0.0
        for k in range(1, len(sources)):
            other = snakes[sources[k]]
            assert other is not None
            olen = len(other[0])
            area = areas[k]
            if area > best_area:
                best_area = area
            if olen > best_len:
                best_len = olen
            if area < olen:
                score += 30.0 * (olen - area) + 200.0
            odist = food_dists[k]
            if (odist < 0 or odist > other[1]) and other[1] < 60 and food:
                score += 150.0 if odist < 0 else 400.0
            score -= 300.0  # every opponent still alive
        score += 10.0 * (my_area - best_area)
        if my_area < my_len:
            score -= 60.0 * (my_len - my_area) + 400.0
        diff = my_len - best_len
        # Lagging far behind still matters; leading by more than a few does not.
        score += 25.0 * (4 if diff > 4 else -10 if diff < -10 else diff)
        if diff >= 1:
            score += 60.0
        elif diff <= -1:
            score -= 60.0
        # Health is a resource where hazards drain it; elsewhere it only makes
        # food matter more as it runs low.
        score += 2.0 * my_health if my_health < 60 else 120.0 + 0.3 * (my_health - 60)
        my_dist = food_dists[0]
        if food:
            if my_dist < 0:
                if my_health < 50:
                    score -= 4.0 * (50 - my_health)
            elif my_dist > my_health:
                score -= 3000.0
            elif my_health < 40 or diff < 2:
                score -= 4.0 * my_dist
        return score

    # -- search -----------------------------------------------------------------------

    def _options(
        self, snakes: Sequence[SimSnake | None], food: int, blocked: int, i: int
    ) -> list[int]:
        snake = snakes[i]
        assert snake is not None
        opts = self.sim.options(snake, blocked, food)
        if not opts:
            # Every move loses: any one will do, the search scores the loss.
            opts = [self.sim.geo.neighbours[snake[0][0]][0]]
        return opts

    def _joint(
        self, snakes: Sequence[SimSnake | None], food: int, blocked: int
    ) -> tuple[list[int], list[tuple[int, ...]]]:
        movers = [i for i in self.movers if snakes[i] is not None]
        if not movers:
            return movers, [()]
        if len(movers) == 1:
            return movers, [(d,) for d in self._options(snakes, food, blocked, movers[0])]
        lists = [self._options(snakes, food, blocked, i) for i in movers]
        return movers, list(itertools.product(*lists))

    def _base_dests(self, snakes: Sequence[SimSnake | None]) -> list[int]:
        return [FROZEN if s is not None else 0 for s in snakes]

    def _child_value(
        self,
        child: list[SimSnake | None],
        food: int,
        depth: int,
        alpha: float,
        beta: float,
        ply: int,
    ) -> float:
        if child[0] is None:
            for s in child[1:]:
                if s is not None:
                    return LOSS + ply
            return DRAW + ply
        if not self.solo:
            for s in child[1:]:
                if s is not None:
                    break
            else:
                return WIN - ply
        if depth <= 0:
            deadline = self.deadline
            if deadline is not None and not self.leaves & 15 and time.perf_counter() > deadline:
                raise _Timeout
            return self.evaluate(child, food)
        return self.max_node(child, food, depth, alpha, beta, ply)

    def max_node(
        self,
        snakes: list[SimSnake | None],
        food: int,
        depth: int,
        alpha: float,
        beta: float,
        ply: int,
    ) -> float:
        """The hunter to move, ``depth`` turns left; both snakes alive."""
        self.nodes += 1
        deadline = self.deadline
        if deadline is not None and time.perf_counter() > deadline:
            raise _Timeout
        sim = self.sim
        blocked = sim.blocked(snakes)
        mine = self._options(snakes, food, blocked, 0)
        movers, joint = self._joint(snakes, food, blocked)
        killer = self.killer_me.get(ply)
        if killer is not None and killer in mine and mine[0] != killer:
            mine.remove(killer)
            mine.insert(0, killer)
        okiller = self.killer_opp.get(ply)
        if okiller is not None and len(joint) > 1 and joint[0] != okiller and okiller in joint:
            joint.remove(okiller)
            joint.insert(0, okiller)
        dests = self._base_dests(snakes)
        step = sim.step
        best = -WIN * 2
        next_depth = depth - 1
        next_ply = ply + 1
        for m in mine:
            dests[0] = m
            value = WIN * 2
            for o in joint:
                for k, idx in enumerate(movers):
                    dests[idx] = o[k]
                child, cfood = step(snakes, food, dests)
                v = self._child_value(
                    child, cfood, next_depth, alpha, value if value < beta else beta, next_ply
                )
                if v < value:
                    value = v
                    if value <= alpha:
                        self.killer_opp[ply] = o
                        break
            if value > best:
                best = value
                if best > alpha:
                    alpha = best
                    if alpha >= beta:
                        self.killer_me[ply] = m
                        break
        return best

    def root(
        self,
        snakes: list[SimSnake | None],
        food: int,
        depth: int,
        order: list[int],
        results: dict[int, float],
    ) -> int:
        """Search each root destination in ``order`` and return the best one.

        ``results`` receives each destination's value once searched: exact for the
        first one and for each one that beat all before it, otherwise an upper
        bound (alpha-beta stops refuting a move once it is known to be no better).
        Ties go to the destination searched first.
        """
        sim = self.sim
        blocked = sim.blocked(snakes)
        movers, joint = self._joint(snakes, food, blocked)
        dests = self._base_dests(snakes)
        alpha = -WIN * 2
        best = order[0]
        for m in order:
            dests[0] = m
            value = WIN * 2
            for o in joint:
                for k, idx in enumerate(movers):
                    dests[idx] = o[k]
                child, cfood = sim.step(snakes, food, dests)
                v = self._child_value(child, cfood, depth - 1, alpha, value, 1)
                if v < value:
                    value = v
                    if value <= alpha:
                        break
            results[m] = value
            if value > alpha:
                alpha = value
                best = m
        return best


def _immediate_deaths(
    sim: Sim,
    snakes: list[SimSnake | None],
    food: int,
    movers: Sequence[int],
    dest: int,
    deadline: float | None = None,
) -> float:
    """The share of the movers' joint replies that kill the hunter after ``dest``.

    Raises:
        _Timeout: past ``deadline`` (many movers make thousands of joint replies).
    """
    search = _Searcher(sim, movers, len(snakes), None)
    blocked = sim.blocked(snakes)
    movers_alive, joint = search._joint(snakes, food, blocked)
    dests = search._base_dests(snakes)
    dests[0] = dest
    deaths = 0
    for n, o in enumerate(joint):
        if deadline is not None and not n & 31 and time.perf_counter() > deadline:
            raise _Timeout
        for k, idx in enumerate(movers_alive):
            dests[idx] = o[k]
        child, _ = sim.step(snakes, food, dests)
        if child[0] is None:
            deaths += 1
    return deaths / len(joint)


def _nearest(sim: Sim, snakes: list[SimSnake | None], count: int) -> list[int]:
    me = snakes[0]
    assert me is not None
    head = me[0][0]
    geo = sim.geo
    others = [(geo.distance(head, s[0][0]), i) for i, s in enumerate(snakes) if i and s is not None]
    others.sort()
    # Beyond the nearest ``count``, any snake whose head can meet ours next turn moves too.
    return [i for k, (dist, i) in enumerate(others) if k < count or dist <= 2]


def search(
    sim: Sim,
    snakes: list[SimSnake | None],
    food: int,
    *,
    budget_ms: float | None,
    max_depth: int | None,
    opponents: int = 2,
    tiebreak: Sequence[int] = (0, 1, 2, 3),
    cap_ms: float | None = None,
) -> SearchResult:
    """Choose a move for ``snakes[0]`` by iterative-deepening alpha-beta.

    Args:
        sim: The rules.
        snakes: The snakes, the hunter first.
        food: Food bitboard.
        budget_ms: Time allowed (``None``: no clock, ``max_depth`` is required).
            An iteration that would not finish within it is not started.
        max_depth: The deepest iteration (``None``: until the budget runs out).
        opponents: How many nearest opponents move in the search.
        tiebreak: Move indices in order of preference for exact ties.
        cap_ms: A hard stop (``None``: none): the search is cut there, with no
            guess about whether the next iteration would finish, so a fixed-depth
            search that finishes in time stays deterministic.

    Returns:
        The chosen move and search statistics.
    """
    start = time.perf_counter()
    deadline = None if budget_ms is None else start + budget_ms / 1000.0
    hard = deadline
    if cap_ms is not None:
        capped = start + cap_ms / 1000.0
        hard = capped if hard is None else min(hard, capped)
    limit = _MAX_DEPTH if max_depth is None else max(1, max_depth)
    me = snakes[0]
    assert me is not None
    geo = sim.geo
    neighbours = geo.neighbours[me[0][0]]
    rank = {m: r for r, m in enumerate(tiebreak)}
    movers = _nearest(sim, snakes, opponents)
    searcher = _Searcher(sim, movers, len(snakes), hard)
    blocked = sim.blocked(snakes)
    options = sim.options(me, blocked, food)
    dest_move = {}
    for m in sorted(range(4), key=lambda m: rank[m]):
        dest = neighbours[m]
        if dest in options and dest not in dest_move:
            dest_move[dest] = m
    scores: list[float | None] = [None] * 4
    if not dest_move:
        # Every move loses at once: take the least likely death.
        return SearchResult(_least_deadly(sim, snakes, food, movers, rank, hard), 0, 0, 0, scores)
    if len(dest_move) == 1:
        return SearchResult(next(iter(dest_move.values())), 0, 0, 0, scores)
    order = list(dest_move)
    try:
        deaths = {d: _immediate_deaths(sim, snakes, food, movers, d, hard) for d in order}
    except _Timeout:
        # Out of time before the search began: the first safe move in tiebreak order.
        return SearchResult(dest_move[order[0]], 0, 0, 0, scores)
    # Safer moves first: they make the best first guess for alpha-beta.
    order.sort(key=lambda d: deaths[d])
    best_dest = order[0]
    fallback: int | None = None
    depth_done = 0
    for depth in range(1, limit + 1):
        results: dict[int, float] = {}
        began = time.perf_counter()
        try:
            found = searcher.root(snakes, food, depth, order, results)
        except _Timeout:
            # A finished move that beats the previous best (searched first) is
            # a real improvement even though the iteration is incomplete.
            if order[0] in results:
                partial = max(results, key=lambda d: results[d])
                if results[partial] > results[order[0]]:
                    best_dest = partial
            break
        depth_done = depth
        took = time.perf_counter() - began
        best_dest = found
        top = results[found]
        for d in order:
            scores[dest_move[d]] = results[d]
        if top <= LOSS + _DECIDED:
            # Lost against perfect play: keep the best move of the last depth that
            # still saw a game, which hopes for a mistake more sensibly.
            if fallback is not None:
                best_dest = fallback
            break
        fallback = best_dest
        if top >= _DECIDED or top <= DRAW + _DECIDED:
            break  # a forced win or draw: deeper search cannot change it
        # The best move first, then the others by their last score.
        order.sort(key=lambda d: (d != best_dest, -results[d], deaths[d]))
        if deadline is not None and deadline - time.perf_counter() < took * 2.0:
            break  # the next iteration would not finish
    return SearchResult(dest_move[best_dest], depth_done, searcher.nodes, searcher.leaves, scores)


def _least_deadly(
    sim: Sim,
    snakes: list[SimSnake | None],
    food: int,
    movers: Sequence[int],
    rank: dict[int, int],
    deadline: float | None = None,
) -> int:
    """With no safe move, the move whose death is least certain (as far as time allows)."""
    me = snakes[0]
    assert me is not None
    best = min(range(4), key=lambda m: rank[m])
    best_key = (2.0, 0)
    blocked = sim.blocked(snakes)
    for m, dest in enumerate(sim.geo.neighbours[me[0][0]]):
        if dest < 0 or (blocked >> dest) & 1:
            continue
        try:
            key = (_immediate_deaths(sim, snakes, food, movers, dest, deadline), rank[m])
        except _Timeout:
            break  # out of time: the least deadly move found so far
        if key < best_key:
            best, best_key = m, key
    return best


class HunterBot(Bot):
    """``hunter``: paranoid alpha-beta search with a Voronoi evaluation.

    See the module docstring for the algorithm.

    Args:
        budget: Thinking time per move in milliseconds, 1 to :data:`MAX_BUDGET_MS`
            (default: from the game's timeout, see :func:`default_budget_ms`).
        depth: Maximum search depth in turns, 1 to :data:`MAX_DEPTH`; without
            ``budget`` the search is a deterministic fixed-depth search.
        opponents: How many nearest opponents move in the search, 1 to
            :data:`MAX_OPPONENTS`.

    Whatever the options, a move's search stops at :func:`think_cap_ms` of the
    game's timeout.

    Raises:
        BotOptionError: for a budget, depth or opponent count outside its range.
    """

    name = "hunter"
    metadata = SnakeMetadata(author="snakewar", color="#c62828", head="evil", tail="sharp")

    def __init__(
        self, budget: int | None = None, depth: int | None = None, opponents: int = 2
    ) -> None:
        for key, value, most in (
            ("budget", budget, MAX_BUDGET_MS),
            ("depth", depth, MAX_DEPTH),
            ("opponents", opponents, MAX_OPPONENTS),
        ):
            if value is not None and (type(value) is not int or not 1 <= value <= most):
                raise BotOptionError(
                    f"{key}={value!r}: expected a positive integer up to {most} (1..{most})"
                )
        self.budget = budget
        self.depth = depth
        self.opponents = opponents
        self.last: SearchResult | None = None
        """The last move's search statistics (for benchmarks and debugging)."""

    def move(self, request: SnakeRequest) -> MoveReply:
        """Search and return the best move."""
        start = time.perf_counter()
        sim, snakes, food, _ = sim_from_request(request)
        if self.budget is not None:
            budget_ms: float | None = float(self.budget)
        elif self.depth is not None:
            budget_ms = None  # a fixed depth plays by depth alone, within the cap
        else:
            budget_ms = default_budget_ms(request.game.timeout)
        # The set-up above counts against the budget and the cap too.
        spent = (time.perf_counter() - start) * 1000.0
        cap_ms = max(think_cap_ms(request.game.timeout) - spent, 1.0)
        if budget_ms is not None:
            budget_ms = min(max(budget_ms - spent, 1.0), cap_ms)
        tiebreak = list(range(4))
        request_rng(request, "hunter").shuffle(tiebreak)
        result = search(
            sim,
            snakes,
            food,
            budget_ms=budget_ms,
            max_depth=self.depth,
            opponents=self.opponents,
            tiebreak=tiebreak,
            cap_ms=cap_ms,
        )
        self.last = result
        return MoveReply(MOVE_NAMES[result.move])
