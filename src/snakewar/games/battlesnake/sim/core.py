"""The batched simulator: B independent Battlesnake games stepped together.

The numpy backend here runs each stage of a turn over the whole batch; the numba one
(:mod:`snakewar.games.battlesnake.sim._numba`) runs the whole turn game by game, compiled.

Layout (``B`` games, ``S`` snakes, ``P`` cells of the board padded by one square on
each side, ``L`` ring-buffer slots per body):

* ``body[B, S, L]`` (int16): padded cell indices in a ring buffer; the head is at
  ``head_slot``, segment ``i`` at ``(head_slot + i) % L``.  Moving writes one slot.
* ``occ[B, S, P]`` (int8): how many of each snake's ``body[1:]`` segments lie on
  each cell (stacked segments count several times).  Collisions are gathers here.
* ``food[B, P]`` (bool) with ``food_stamp`` (insertion order, so that
  :meth:`BatchSim.to_states` reproduces the reference's food list order) and
  ``hazards[B, P]`` (int8 stack counts).

A padded cell is ``(y + 1) * (W + 2) + (x + 1)``: a head that leaves a standard
board lands on the padding and is eliminated there, keeping its exact coordinates.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, MutableSequence, Sequence
from typing import TypeVar

import numpy as np
import numpy.typing as npt

from snakewar.errors import InvalidStateError, StepError, UnknownMapError, UnknownRulesetError
from snakewar.games.battlesnake.rules.board import (
    MutableBoard,
    create_default_board_state,
    place_snakes_automatically,
)
from snakewar.games.battlesnake.rules.game import setup_board
from snakewar.games.battlesnake.rules.maps.base import check_standard_snake_limit
from snakewar.games.battlesnake.rules.rng import GoRand, wrap_int64
from snakewar.games.battlesnake.rules.settings import (
    FOOD_SPAWN_CHANCE,
    HAZARD_DAMAGE_PER_TURN,
    MINIMUM_FOOD,
    SHRINK_EVERY_N_TURNS,
    Settings,
)
from snakewar.games.battlesnake.rules.types import SNAKE_MAX_HEALTH, BoardState, Point, Snake
from snakewar.games.battlesnake.sim import counter

__all__ = [
    "BACKENDS",
    "CAUSES",
    "MAPS",
    "MOVE_NAMES",
    "RULESETS",
    "BatchSim",
    "NumpyRand",
    "StepResult",
    "next_seed",
]

_T = TypeVar("_T")
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

STATE_ARRAYS = (
    "body",
    "head_slot",
    "head",
    "length",
    "health",
    "cause",
    "by",
    "elim_turn",
    "occ",
    "cell_count",
    "food",
    "food_stamp",
    "food_count",
    "hazards",
    "turn",
    "over",
    "seeds",
    "episode",
    "zone",
)
"""The per-slot arrays that hold every game's state (what two backends must agree on)."""

MOVE_NAMES = ("up", "down", "left", "right")
"""Action codes: 0=up, 1=down, 2=left, 3=right."""
CAUSES = (
    "",
    "snake-collision",
    "snake-self-collision",
    "out-of-health",
    "head-collision",
    "wall-collision",
    "hazard",
)
"""Elimination cause codes (index = code; 0 = alive)."""
_SNAKE, _SELF, _HEALTH, _HEAD, _WALL, _HAZARD = 1, 2, 3, 4, 5, 6
_CAUSE_CODE = {c: i for i, c in enumerate(CAUSES)}

RULESETS = ("standard", "solo", "wrapped", "constrictor", "wrapped_constrictor", "royale")
"""Rulesets the simulator plays."""
MAPS = ("standard", "empty", "royale")
"""Maps the simulator plays."""

_SEED_MUL = 6364136223846793005
_SEED_ADD = 1442695040888963407


def next_seed(seed: int) -> int:
    """The seed of the next episode in a slot: a 64-bit LCG step, kept positive.

    >>> next_seed(1) == next_seed(1) != 1
    True
    """
    return ((seed * _SEED_MUL + _SEED_ADD) & ((1 << 64) - 1)) >> 1


class NumpyRand:
    """The rules engine's ``Rand`` interface on a numpy ``Generator`` (fast randomness).

    Same probabilities as Go's source, a different stream.
    """

    __slots__ = ("gen",)

    def __init__(self, gen: np.random.Generator) -> None:
        self.gen = gen

    def intn(self, n: int) -> int:
        """Uniform integer in ``[0, n)``."""
        return int(self.gen.integers(n))

    def range(self, lo: int, hi: int) -> int:
        """Uniform integer in ``[lo, hi]``."""
        return int(self.gen.integers(lo, hi + 1))

    def shuffle(self, n: int, swap: Callable[[int, int], None]) -> None:
        """Fisher-Yates through ``swap``."""
        for i in range(n - 1, 0, -1):
            swap(i, int(self.gen.integers(i + 1)))

    def shuffle_list(self, items: MutableSequence[_T]) -> None:
        """Shuffle ``items`` in place."""
        perm = self.gen.permutation(len(items)).tolist()
        items[:] = [items[i] for i in perm]


class StepResult:
    """What :meth:`BatchSim.step` reports.

    Attributes:
        done: ``[B]`` bool, the game in the slot ended on this step (before any auto-reset).
        winner: ``[B]`` int, index of the one snake left alive in a finished game, else -1.
        rewards: ``[B, S]`` float32: in finished games +1 for the winner and -1 for every
            other snake; 0 for all snakes of a draw (no snake left) and of unfinished games.
        turns: ``[B]`` int, the finished games' final turn numbers (0 elsewhere).
        final_states: the finished games' final :class:`BoardState`, by slot, when the
            simulator was built with ``keep_final_states=True`` (else empty).
    """

    __slots__ = ("done", "final_states", "rewards", "turns", "winner")

    def __init__(
        self,
        done: BoolArray,
        winner: IntArray,
        rewards: npt.NDArray[np.float32],
        turns: IntArray,
        final_states: dict[int, BoardState],
    ) -> None:
        self.done = done
        self.winner = winner
        self.rewards = rewards
        self.turns = turns
        self.final_states = final_states


BACKENDS = ("auto", "numpy", "numba", "jax")
"""Simulator backends: ``numba`` compiles the turn (``pip install snakewar[sim]``), ``numpy``
vectorises it over the batch, ``auto`` takes numba when it can be imported; ``jax`` keeps
the games on a device (GPU) and plays ``randomness="fast"`` only (``pip install
snakewar[gpu]``; never picked by ``auto``)."""


def numba_available() -> bool:
    """Whether numba can be imported (the ``sim`` extra)."""
    return importlib.util.find_spec("numba") is not None


def jax_available() -> bool:
    """Whether jax can be imported (the ``gpu`` extra)."""
    return importlib.util.find_spec("jax") is not None


def resolve_backend(backend: str) -> str:
    """The backend ``backend`` means here: ``"auto"`` becomes ``"numba"`` or ``"numpy"``.

    Raises:
        InvalidStateError: for a name outside :data:`BACKENDS`, or ``"numba"`` / ``"jax"``
            without numba / jax.
    """
    if backend not in BACKENDS:
        raise InvalidStateError(f"backend {backend!r} (expected one of {BACKENDS})")
    if backend == "auto":
        return "numba" if numba_available() else "numpy"
    if backend == "numba" and not numba_available():
        raise InvalidStateError("backend 'numba' needs numba: pip install 'snakewar[sim]'")
    if backend == "jax" and not jax_available():
        raise InvalidStateError(
            "backend 'jax' needs jax: pip install 'snakewar[gpu]' (or 'jax[cuda12]' for a GPU)"
        )
    return backend


def _chunks(batch: int) -> int:
    # Small batches run in the calling thread: a parallel launch costs more than it
    # saves there (on a busy 2-core machine, OpenMP's launch made B=1024 six times
    # slower than one thread).  Larger ones get a few chunks per thread, for balance.
    if batch < _PARALLEL_FROM:
        return 1
    return min(batch // 64, 8 * _threads())


_PARALLEL_FROM = 2048


def _threads() -> int:
    import numba

    return int(numba.get_num_threads())


_BAD_ACTIONS = "actions must be 0 (up), 1 (down), 2 (left) or 3 (right)"

_NO_FIXED = (np.zeros(8, dtype=np.int64), np.full((8, 4), -1, dtype=np.int64))


def _settings_list(settings: Settings | Sequence[Settings] | None, batch: int) -> list[Settings]:
    if settings is None:
        return [Settings.defaults()] * batch
    if isinstance(settings, Settings):
        return [settings] * batch
    out = list(settings)
    if len(out) != batch:
        raise InvalidStateError(
            f"got {len(out)} settings for a batch of {batch} (expected one each)"
        )
    return out


class BatchSim:
    """``batch`` independent games of one ruleset, map, size and snake count.

    Args:
        batch: number of games (slots).
        width, height: board size.
        snakes: snakes per game (1..8); ids are ``snake-1`` .. ``snake-N`` unless ``ids``.
        ruleset: one of :data:`RULESETS`.
        map: one of :data:`MAPS`.
        settings: one :class:`Settings` for every game or one per game (their seeds are
            ignored: ``seeds`` decides).  Read into the arrays ``food_chance``,
            ``min_food``, ``damage`` and ``shrink``.
        seeds: per-game seeds (default ``0 .. batch-1``).
        randomness: ``"go"`` plays exactly the rules engine's game for each seed (food
            spawns and setup from ``Settings.get_rand``); ``"fast"`` draws each number
            as a hash of (seed, turn, purpose, index)
            (:mod:`snakewar.games.battlesnake.sim.counter`),
            with the same probabilities: a game depends on its seed and moves only.
        auto_reset: a finished game is replaced at once by a new one whose seed is
            :func:`next_seed` of the old one (``episode`` counts them per slot).
        ids: snake ids for :meth:`to_states`.
        keep_final_states: put finished games' final states into :class:`StepResult`.
        backend: ``"numba"`` (a compiled kernel, parallel over games), ``"numpy"``,
            ``"auto"`` (numba when importable) or ``"jax"`` (jit and vmap on a device,
            fast randomness only; see :mod:`snakewar.games.battlesnake.sim._jax`); see
            :data:`BACKENDS`.
            Every backend plays the same games on the same arrays.

    Raises:
        UnknownRulesetError, UnknownMapError: for names outside :data:`RULESETS` / :data:`MAPS`.
        InvalidStateError: for a bad batch, size, snake count or backend, for
            ``backend="jax"`` with ``randomness="go"``, or for ``backend="jax"`` on this
            class (:func:`~snakewar.games.battlesnake.sim.backends.make_sim` builds the
            device class).
        MapSetupError: if the map cannot place the snakes.
    """

    on_device = False
    """Whether the games live on an accelerator (the ``jax`` backend's class)."""

    def __init__(
        self,
        batch: int,
        width: int = 11,
        height: int = 11,
        snakes: int = 4,
        ruleset: str = "standard",
        map: str = "standard",
        settings: Settings | Sequence[Settings] | None = None,
        seeds: Sequence[int] | None = None,
        randomness: str = "go",
        auto_reset: bool = True,
        ids: Sequence[str] | None = None,
        keep_final_states: bool = False,
        backend: str = "auto",
        _setup: bool = True,
    ) -> None:
        if ruleset not in RULESETS:
            raise UnknownRulesetError(
                f"ruleset {ruleset!r} is not simulated (expected one of {RULESETS})"
            )
        if map not in MAPS:
            raise UnknownMapError(f"map {map!r} is not simulated (expected one of {MAPS})")
        if randomness not in ("go", "fast"):
            raise InvalidStateError(f"randomness {randomness!r} (expected 'go' or 'fast')")
        self.backend = resolve_backend(backend)
        if self.backend == "jax":
            if not self.on_device:
                # The device backend is a class of its own, which this module never
                # imports (it imports this one): the factory picks it.
                raise InvalidStateError(
                    "backend 'jax' is its own class: make_sim(..., backend='jax') "
                    "(snakewar.games.battlesnake.sim.make_sim)"
                )
            if randomness != "fast":
                raise InvalidStateError(
                    f"backend 'jax' plays randomness='fast' only (got randomness={randomness!r}): "
                    "the Go stream is sequential per game"
                )
        if batch < 1:
            raise InvalidStateError(f"batch {batch} (expected at least 1)")
        if not (1 <= width <= 25 and 1 <= height <= 25):
            raise InvalidStateError(f"board {width}x{height} (expected sides 1..25)")
        if not 1 <= snakes <= 8:
            raise InvalidStateError(f"{snakes} snakes (expected 1..8)")
        self.batch, self.width, self.height, self.num_snakes = batch, width, height, snakes
        self.ruleset, self.map, self.randomness = ruleset, map, randomness
        self.auto_reset, self.keep_final_states = auto_reset, keep_final_states
        self.ids = list(ids) if ids is not None else [f"snake-{i + 1}" for i in range(snakes)]
        if len(self.ids) != snakes or len(set(self.ids)) != snakes:
            raise InvalidStateError(f"ids {self.ids!r} (expected {snakes} distinct ids)")
        self.settings = _settings_list(settings, batch)
        self.food_chance = np.array([s.get_int(FOOD_SPAWN_CHANCE, 0) for s in self.settings])
        self.min_food = np.array([s.get_int(MINIMUM_FOOD, 0) for s in self.settings])
        self.damage = np.array([s.get_int(HAZARD_DAMAGE_PER_TURN, 0) for s in self.settings])
        self.shrink = np.array([s.get_int(SHRINK_EVERY_N_TURNS, 20) for s in self.settings])
        self.royale = ruleset == "royale" or map == "royale"
        # The royale map under another ruleset keeps a game's hazards until its first
        # shrink; the royale ruleset's stage replaces them every turn from the first.
        self._zone_waits = ruleset != "royale"
        if self.royale and (self.shrink < 1).any():
            raise StepError(f"shrinkEveryNTurns={int(self.shrink.min())} (royale needs at least 1)")
        self.wrapped = ruleset in ("wrapped", "wrapped_constrictor")
        self.constrictor = ruleset in ("constrictor", "wrapped_constrictor")
        self.solo_over = ruleset == "solo" or snakes < 2
        self.spawns = map in ("standard", "royale")
        seed_list = list(seeds) if seeds is not None else list(range(batch))
        if len(seed_list) != batch:
            raise InvalidStateError(f"got {len(seed_list)} seeds for a batch of {batch}")
        self.seeds = np.array([wrap_int64(int(s)) for s in seed_list], dtype=np.int64)
        self.episode = np.zeros(batch, dtype=np.int64)
        self._tables()
        self._fixed = self._fixed_tables()
        b, s, p, ring = batch, snakes, self.cells, self.ring
        self.body = np.zeros((b, s, ring), dtype=np.int16)
        self.head_slot = np.zeros((b, s), dtype=np.int64)
        self.head = np.zeros((b, s), dtype=np.int64)
        self.length = np.zeros((b, s), dtype=np.int64)
        self.health = np.zeros((b, s), dtype=np.int64)
        self.cause = np.zeros((b, s), dtype=np.int8)
        self.by = np.full((b, s), -1, dtype=np.int8)
        self.elim_turn = np.zeros((b, s), dtype=np.int64)
        self.occ = np.zeros((b, s, p), dtype=np.int8)
        # occ summed over the alive snakes: the squares food cannot spawn on and a cheap
        # collision pre-check.
        self.cell_count = np.zeros((b, p), dtype=np.int16)
        self.food_count = np.zeros(b, dtype=np.int64)
        # True while no loaded state had alive snakes sharing a square: then the heads
        # and tails that one step moves are distinct per game and plain fancy-index
        # updates of ``cell_count`` are exact (no np.add.at needed).
        self._regular = True
        # A loaded state had an alive snake with a segment off the board behind its
        # head: the wall check must then look at whole bodies, as the reference does.
        self._offboard_bodies = False
        # Hazards only exist in royale games or when a loaded state had some.
        self._hazards_present = self.royale
        self.food = np.zeros((b, p), dtype=np.bool_)
        self.food_stamp = np.zeros((b, p), dtype=np.int64)
        self.hazards = np.zeros((b, p), dtype=np.int8)
        self.turn = np.zeros(b, dtype=np.int64)
        self.over = np.zeros(b, dtype=np.bool_)
        self._stamp = 1
        # The numba kernel's constant tables, built on its first step.
        self._kernel_tables: tuple[npt.NDArray[np.generic], ...] | None = None
        self._kernel_cfg = np.zeros(0, dtype=np.int64)
        # Royale: the safe rectangle (min_x, max_x, min_y, max_y) after k shrinks.
        self._kmax = width + height
        self.zone = np.zeros((b, self._kmax + 1, 4), dtype=np.int64)
        if _setup:
            self._reset_slots(np.arange(batch))

    # -- tables ---------------------------------------------------------------------

    def _tables(self) -> None:
        w, h = self.width, self.height
        pw = w + 2
        self.pw = pw
        self.cells = pw * (h + 2)
        self.ring = w * h + 8
        cell = np.arange(self.cells)
        x, y = cell % pw - 1, cell // pw - 1
        self.cell_x, self.cell_y = x, y
        self.on_board = (x >= 0) & (x < w) & (y >= 0) & (y < h)
        # Neighbours, up/down/left/right.  Wrapped boards wrap on-board cells.
        dx = np.array([0, 0, -1, 1])
        dy = np.array([1, -1, 0, 0])
        nx, ny = x[:, None] + dx, y[:, None] + dy
        if self.wrapped:
            nx, ny = nx % w, ny % h
        nbr = (ny + 1) * pw + (nx + 1)
        nbr = np.where((nbr >= 0) & (nbr < self.cells), nbr, cell[:, None])
        self.nbr = nbr.astype(np.int64)
        # Unwrapped neighbours of on-board cells (food spawning excludes these).
        self.offsets = np.array([pw, -pw, -1, 1])
        order = sorted(np.flatnonzero(self.on_board).tolist(), key=lambda c: (x[c], y[c]))
        self.xmajor = np.array(order, dtype=np.int64)
        # Every cell, padding included, x-major: hazards one square off the board (which
        # a loaded state may have, and which damage a head there) are listed too.
        every = sorted(range(self.cells), key=lambda c: (x[c], y[c]))
        self._xmajor_all = np.array(every, dtype=np.int64)

    def _cell(self, p: Point) -> int:
        if not (-1 <= p.x <= self.width and -1 <= p.y <= self.height):
            raise InvalidStateError(f"point {tuple(p)} is more than one square off the board")
        return (p.y + 1) * self.pw + p.x + 1

    def _point(self, c: int) -> Point:
        return Point(int(self.cell_x[c]), int(self.cell_y[c]))

    # -- loading states -----------------------------------------------------------------

    def _load(self, g: int, state: BoardState) -> None:
        """Put ``state`` into slot ``g`` (snakes matched to ``self.ids`` by position)."""
        if (state.width, state.height) != (self.width, self.height):
            raise InvalidStateError(
                f"state is {state.width}x{state.height}, the simulator {self.width}x{self.height}"
            )
        if len(state.snakes) != self.num_snakes:
            raise InvalidStateError(
                f"state has {len(state.snakes)} snakes, expected {self.num_snakes}"
            )
        index = {sn.id: i for i, sn in enumerate(state.snakes)}
        self.occ[g] = 0
        for i, sn in enumerate(state.snakes):
            n = len(sn.body)
            if not 1 <= n <= self.ring - 2:
                raise InvalidStateError(
                    f"snake {sn.id!r} has {n} segments (expected 1..{self.ring - 2})"
                )
            cells = [self._cell(p) for p in sn.body]
            if not sn.eliminated_cause and not self.on_board[cells[0]]:
                # Its next head would be two squares off, which the padded grid cannot
                # hold (the reference moves it there, then eliminates it).
                raise InvalidStateError(
                    f"snake {sn.id!r} is alive with its head {tuple(sn.body[0])} off the "
                    f"{self.width}x{self.height} board (the simulator plays alive heads on "
                    "the board only)"
                )
            self.body[g, i, :n] = cells
            self.head_slot[g, i] = 0
            self.head[g, i] = cells[0]
            self.length[g, i] = n
            self.health[g, i] = sn.health
            cause = _CAUSE_CODE.get(sn.eliminated_cause)
            if cause is None:
                raise InvalidStateError(f"unknown elimination cause {sn.eliminated_cause!r}")
            self.cause[g, i] = cause
            self.by[g, i] = index.get(sn.eliminated_by, -1)
            self.elim_turn[g, i] = sn.eliminated_on_turn
            np.add.at(self.occ[g, i], cells[1:], 1)
            if not sn.eliminated_cause and not self.on_board[cells[1:]].all():
                self._offboard_bodies = True
        self.food[g] = False
        self.food_stamp[g] = 0
        for k, p in enumerate(state.food):
            c = self._cell(p)
            if not self.food[g, c]:
                self.food[g, c] = True
                self.food_stamp[g, c] = k
        self.cell_count[g] = self.occ[g][self.cause[g] == 0].sum(axis=0)
        seen: set[Point] = set()
        for sn in state.snakes:
            if not sn.eliminated_cause:
                cells_set = set(sn.body)
                if seen & cells_set:
                    self._regular = False
                seen |= cells_set
        self.food_count[g] = self.food[g].sum()
        self.hazards[g] = 0
        for p in state.hazards:
            self.hazards[g, self._cell(p)] += 1
            self._hazards_present = True
        self.turn[g] = state.turn
        self.over[g] = False

    def _reset_slots(self, slots: npt.NDArray[np.int64]) -> None:
        """New games in ``slots``: map setup, then the vectorised init call."""
        if slots.size == 0:
            return
        if self._fixed is not None:
            self._fast_fixed_setup(slots)
            self._initialization(slots)
            self.over[slots] = self._game_over(slots)
            return
        for g in slots.tolist():
            if self.randomness == "go":
                settings = self.settings[g].with_seed(int(self.seeds[g]))
                state = setup_board(self.map, settings, self.width, self.height, self.ids)
            else:
                state = self._fast_setup(g)
            self._load(g, state)
            self._init_zone(g)
        self._initialization(slots)
        self.over[slots] = self._game_over(slots)

    def _fixed_tables(self) -> tuple[IntArray, IntArray] | None:
        """Start cells and setup-food candidates of the reference's fixed placement.

        Square boards from 7x7 with fast randomness (the vectorised setup); None elsewhere.
        """
        w, h = self.width, self.height
        if self.randomness != "fast" or w != h or w < 7:
            return None
        mn, md, mx = 1, (w - 1) // 2, w - 2
        starts = [(mn, mn), (mn, mx), (mx, mn), (mx, mx), (mn, md), (md, mn), (md, mx), (mx, md)]
        cx, cy = (w - 1) // 2, (h - 1) // 2
        cand = np.full((8, 4), -1, dtype=np.int64)
        for i, (hx, hy) in enumerate(starts):
            k = 0
            for px, py in ((hx - 1, hy - 1), (hx - 1, hy + 1), (hx + 1, hy - 1), (hx + 1, hy + 1)):
                away = (px < hx < cx) or (cx < hx < px) or (py < hy < cy) or (cy < hy < py)
                if (px, py) == (cx, cy) or not away or (px in (0, w - 1) and py in (0, h - 1)):
                    continue
                cand[i, k] = self._cell(Point(px, py))
                k += 1
        cells = np.array([self._cell(Point(x, y)) for x, y in starts], dtype=np.int64)
        return cells, cand

    def _fast_fixed_setup(self, slots: IntArray) -> None:
        """The standard setup with fast randomness, vectorised over ``slots``.

        The same procedure and probabilities as ``create_default_board_state`` with
        fixed starts and fixed setup food.
        """
        assert self._fixed is not None
        start_cells, cand = self._fixed
        m, n = slots.size, self.num_snakes
        seeds = self.seeds[slots]

        # All of a setup's draws at once (counter.py: index 0-6 order, 7+ food).
        draws = counter.draw(seeds[:, None], 0, counter.SETUP, np.arange(7 + n))

        def pick(k: int | IntArray, index: int) -> IntArray:
            kk = np.asarray(k, dtype=np.int64).astype(np.uint64)
            out: IntArray = ((draws[:, index] * kk) >> np.uint64(32)).astype(np.int64)
            return out

        rows = np.arange(m)
        corners = np.tile(np.arange(4), (m, 1))
        cardinals = corners + 4
        for group, first in ((corners, 0), (cardinals, 3)):
            for i in (3, 2, 1):
                j = pick(i + 1, first + 3 - i)
                group[rows, i], group[rows, j] = group[rows, j], group[rows, i].copy()
        flip = (pick(2, 6) == 0)[:, None]
        order = np.concatenate(
            [np.where(flip, corners, cardinals), np.where(flip, cardinals, corners)], axis=1
        )[:, :n]
        cells = start_cells[order]
        sl = slots[:, None]
        self.body[slots] = 0
        self.body[slots, :, :3] = cells[:, :, None]
        self.head_slot[slots] = 0
        self.head[slots] = cells
        self.length[slots] = 3
        self.health[slots] = SNAKE_MAX_HEALTH
        self.cause[slots] = 0
        self.by[slots] = -1
        self.elim_turn[slots] = 0
        self.occ[slots] = 0
        self.occ[sl, np.arange(n)[None, :], cells] = 2
        self.cell_count[slots] = 0
        np.add.at(self.cell_count, (np.repeat(slots, n), cells.ravel()), 2)
        self.food[slots] = False
        self.food_stamp[slots] = 0
        self.food_count[slots] = 0
        self.hazards[slots] = 0
        self.turn[slots] = 0
        self.over[slots] = False
        if self.royale:
            sides = counter.uniform(4, seeds[:, None], 0, counter.ZONE, np.arange(self._kmax))
            z = self.zone[slots]
            z[:, 0] = (0, self.width - 1, 0, self.height - 1)
            for side, sign in enumerate((1, -1, 1, -1)):
                z[:, 1:, side] = z[:, 0:1, side] + sign * np.cumsum(sides == side, axis=1)
            self.zone[slots] = z
        if self.map == "empty":
            return
        small = self.width * self.height < 121
        chosen = np.full((m, n), -1, dtype=np.int64)
        if n <= 4 or not small:
            for i in range(n):
                c = cand[order[:, i]]
                avail = (c >= 0) & ~(c[:, :, None] == chosen[:, None, :i]).any(axis=2)
                k = avail.sum(axis=1)
                r = pick(np.maximum(k, 1), 7 + i)
                hit = (np.cumsum(avail, axis=1) == (r + 1)[:, None]) & avail
                chosen[:, i] = c[rows, hit.argmax(axis=1)]
            self.food[sl, chosen] = True
            self.food_stamp[sl, chosen] = np.arange(n)[None, :]
        center = self._cell(Point((self.width - 1) // 2, (self.height - 1) // 2))
        self.food[slots, center] = True
        self.food_stamp[slots, center] = n
        self.food_count[slots] = self.food[slots].sum(axis=1)

    def _fast_setup(self, g: int) -> BoardState:
        rand = counter.CounterRand(int(self.seeds[g]), 0, counter.SETUP)
        if self.map == "empty":
            board = MutableBoard(0, self.width, self.height)
            check_standard_snake_limit(board)
            place_snakes_automatically(rand, board, self.ids)
            return board.freeze()
        return create_default_board_state(rand, self.width, self.height, self.ids).freeze()

    def _init_zone(self, g: int) -> None:
        if not self.royale:
            return
        k = self._kmax
        if self.randomness == "go":
            rand = self.settings[g].with_seed(int(self.seeds[g])).get_rand(0)
            sides = [rand.intn(4) for _ in range(k)]
        else:
            sides = counter.uniform(4, self.seeds[g], 0, counter.ZONE, np.arange(k)).tolist()
        z = [0, self.width - 1, 0, self.height - 1]
        self.zone[g, 0] = z
        delta = ((0, 1), (1, -1), (2, 1), (3, -1))
        for i, side in enumerate(sides):
            j, d = delta[side]
            z[j] += d
            self.zone[g, i + 1] = z

    def _initialization(self, slots: npt.NDArray[np.int64]) -> None:
        """The ruleset's move-less first call: feeding, then constrictor's stages."""
        self._feed(slots)
        if self.constrictor:
            self._constrict(slots)

    # -- public API -----------------------------------------------------------------------

    def restart(self, slots: Sequence[int]) -> None:
        """Start new games in ``slots`` now (seed :func:`next_seed` of the old one).

        For environments whose episode ends before the game does, e.g. when the
        learning snake is eliminated while others play on.
        """
        chosen = np.asarray(sorted(set(int(g) for g in slots)), dtype=np.int64)
        if chosen.size == 0:
            return
        for g in chosen.tolist():
            self.seeds[g] = next_seed(int(self.seeds[g]))
        self.episode[chosen] += 1
        self._reset_slots(chosen)

    def reset(self, seeds: Sequence[int] | None = None) -> None:
        """Start new games in every slot (with new ``seeds`` if given); episodes restart at 0.

        Raises:
            InvalidStateError: if the number of seeds is not the batch size.
        """
        if seeds is not None:
            if len(seeds) != self.batch:
                raise InvalidStateError(f"got {len(seeds)} seeds for a batch of {self.batch}")
            self.seeds[:] = [wrap_int64(int(s)) for s in seeds]
        self.episode[:] = 0
        self._reset_slots(np.arange(self.batch))

    @classmethod
    def from_states(
        cls,
        states: Sequence[BoardState],
        ruleset: str = "standard",
        map: str = "standard",
        settings: Settings | Sequence[Settings] | None = None,
        seeds: Sequence[int] | None = None,
        randomness: str = "go",
        auto_reset: bool = False,
        solo: bool | None = None,
        backend: str = "auto",
    ) -> BatchSim:
        """A simulator whose games start from ``states`` (one game each, same size and count).

        The states are taken as they are (no initialization call); hazards are kept as
        stack counts and listed x-major by :meth:`to_states`.  ``solo`` overrides the
        game-over rule (default: solo when fewer than two snakes, as the CLI does).

        Ranges: health, turn and ``eliminated_on_turn`` any 64-bit value, wrapped as Go
        wraps them (``backend="jax"``: ``-2**29..2**29``, see
        :mod:`snakewar.games.battlesnake.sim._jax`);
        points on the board or one square off it (bodies, food and hazards; a hazard
        there damages a head as in Go), except an alive snake's head, which must be on
        the board.

        Raises:
            InvalidStateError: for an empty list, states of different shapes, a point two
                or more squares off the board, an alive snake with its head off the
                board, or (jax) a number outside the device's range; each names the
                snake or point.
        """
        if not states:
            raise InvalidStateError("from_states needs at least one state")
        first = states[0]
        sim = cls(
            len(states),
            first.width,
            first.height,
            len(first.snakes),
            ruleset,
            map,
            settings,
            seeds,
            randomness,
            auto_reset,
            [sn.id for sn in first.snakes],
            backend=backend,
            _setup=False,
        )
        if solo is not None:
            sim.solo_over = solo or ruleset == "solo"
        for g, state in enumerate(states):
            sim._load(g, state)
            sim._init_zone(g)
        sim._stamp = max(len(st.food) for st in states) + 1
        sim.over[:] = sim._game_over(np.arange(sim.batch))
        return sim

    def to_states(self, slots: Sequence[int] | None = None) -> list[BoardState]:
        """The games as the rules engine's :class:`BoardState` (all slots by default)."""
        out = []
        for g in range(self.batch) if slots is None else slots:
            snakes = []
            for i, sid in enumerate(self.ids):
                n = int(self.length[g, i])
                idx = (int(self.head_slot[g, i]) + np.arange(n)) % self.ring
                body = tuple(self._point(c) for c in self.body[g, i, idx].tolist())
                by = int(self.by[g, i])
                snakes.append(
                    Snake(
                        sid,
                        body,
                        int(self.health[g, i]),
                        CAUSES[int(self.cause[g, i])],
                        self.ids[by] if by >= 0 else "",
                        int(self.elim_turn[g, i]),
                    )
                )
            fcells = np.flatnonzero(self.food[g])
            fcells = fcells[np.argsort(self.food_stamp[g, fcells], kind="stable")]
            food = tuple(self._point(c) for c in fcells.tolist())
            hz = self.hazards[g, self._xmajor_all]
            hazards = tuple(
                self._point(c) for c in np.repeat(self._xmajor_all, np.maximum(hz, 0)).tolist()
            )
            out.append(
                BoardState(int(self.turn[g]), self.width, self.height, tuple(snakes), food, hazards)
            )
        return out

    def alive(self) -> BoolArray:
        """``[B, S]`` bool: the snake is not eliminated."""
        out: BoolArray = self.cause == 0
        return out

    def safe_action_mask(self) -> BoolArray:
        """``[B, S, 4]`` bool: the moves that are safe for now.

        Safe: on the board and off every body segment that will still be there next
        turn (tails move on unless stacked).  Head-to-heads are not avoided; dead
        snakes have no safe move.
        """
        alive = self.cause == 0
        b, s = self.batch, self.num_snakes
        blocked = self.cell_count.copy()
        gi = np.repeat(np.arange(b), s)
        heads = self.head.ravel()
        tails = self.body.reshape(b * s, self.ring)[
            np.arange(b * s), (self.head_slot.ravel() + self.length.ravel() - 1) % self.ring
        ]
        a = alive.ravel()
        np.add.at(blocked, (gi[a], heads[a]), 1)
        np.add.at(blocked, (gi[a], tails[a]), -1)
        nxt = self.nbr[self.head]  # [B, S, 4]
        free = self.on_board[nxt] & (blocked[np.arange(b)[:, None, None], nxt] <= 0)
        free &= alive[:, :, None]
        out: BoolArray = free
        return out

    def random_safe_actions(
        self, rng: np.random.Generator, reckless: float = 0.0
    ) -> npt.NDArray[np.int64]:
        """``[B, S]`` random moves among the safe ones (any move where none is safe).

        With probability ``reckless`` per snake the move is uniform over all four.
        """
        mask = self.safe_action_mask()
        keys = rng.random(mask.shape) + mask
        act = keys.argmax(axis=2)
        if reckless > 0:
            wild = rng.random(act.shape) < reckless
            act = np.where(wild, rng.integers(0, 4, size=act.shape), act)
        out: IntArray = act.astype(np.int64)
        return out

    # -- the turn -----------------------------------------------------------------------

    def step(self, actions: npt.ArrayLike) -> StepResult:
        """Play one turn in every unfinished game with ``actions`` ``[B, S]`` (0..3).

        Moves of eliminated snakes are ignored.  Finished games (without auto-reset)
        are left as they are.

        Raises:
            InvalidStateError: for actions of the wrong shape or out of 0..3.
        """
        act = np.asarray(actions)
        b, s, ring = self.batch, self.num_snakes, self.ring
        if act.shape != (b, s):
            raise InvalidStateError(f"actions shape {act.shape} (expected {(b, s)})")
        if self.backend == "numba":
            # The kernel checks the actions' range before it changes anything.
            return self._step_numba(np.ascontiguousarray(act, dtype=np.int64))
        act = act.astype(np.int64, copy=False).ravel()
        if act.size and (act.min() < 0 or act.max() > 3):
            raise InvalidStateError(_BAD_ACTIONS)
        active = ~self.over
        games = None if active.all() else np.flatnonzero(active)
        cause = self.cause.ravel()
        moving = cause == 0
        if games is not None:
            moving &= np.repeat(active, s)
        rows = np.flatnonzero(moving)
        gof = rows // s
        # Movement: the new head goes in the slot before the old head; the tail is dropped.
        head = self.head.ravel()
        old_head = head[rows]
        new_head = self.nbr[old_head, act[rows]]
        slot = self.head_slot.ravel()
        hs = (slot[rows] - 1) % ring
        slot[rows] = hs
        ln = self.length.ravel()
        body = self.body.reshape(b * s, ring)
        old_tail = body[rows, (hs + ln[rows]) % ring]
        body[rows, hs] = new_head
        head[rows] = new_head
        occ = self.occ.reshape(b * s, self.cells)
        occ[rows, old_head] += 1
        occ[rows, old_tail] -= 1
        cc = self.cell_count
        if self._regular:
            cc[gof, old_head] += 1
            cc[gof, old_tail] -= 1
        else:
            np.add.at(cc, (gof, old_head), 1)
            np.subtract.at(cc, (gof, old_tail), 1)
        # Starvation.
        health = self.health.ravel()
        health[rows] -= 1
        turn1 = self.turn[gof] + 1
        # Hazard damage (food on the square cancels it).
        if self._hazards_present:
            self._hazard_damage(rows, gof, new_head, turn1)
        # Feeding.
        self._feed_rows(rows, gof, new_head)
        # Elimination.
        self._eliminate(rows, gof, new_head, turn1, active if games is not None else None)
        died = cause[rows] != 0
        if died.any():
            gd, rd = gof[died], rows[died]
            # Rows are sorted, so a game's dead snakes are adjacent: subtract the first
            # of each game's run, then the rest (fancy -= would drop repeated games).
            while gd.size:
                first = np.ones(gd.size, dtype=np.bool_)
                first[1:] = gd[1:] != gd[:-1]
                cc[gd[first]] -= occ[rd[first]]
                gd, rd = gd[~first], rd[~first]
        slots = np.arange(b) if games is None else games
        if self.constrictor:
            self._constrict(slots)
        if self.royale:
            self._royale_zone(slots, self.turn[slots] + 1)
        if self.spawns:
            self._spawn(slots)
        self.turn[slots] += 1
        return self._finish(slots)

    def _step_numba(self, act: IntArray) -> StepResult:
        from snakewar.games.battlesnake.sim import _numba

        if self._kernel_tables is None:
            order = self.xmajor if self.randomness == "go" else np.flatnonzero(self.on_board)
            self._kernel_tables = (
                self.nbr,
                self.on_board,
                self.cell_x.astype(np.int64),
                self.cell_y.astype(np.int64),
                self.offsets.astype(np.int64),
                order.astype(np.int64),
                _numba.GO_POW,
                _numba.GO_COOKED,
            )
            # The settings fixed at construction; those that may change are set per step.
            cfg = np.zeros(_numba.CONFIG_SIZE, dtype=np.int64)
            cfg[_numba.C_CONSTRICTOR] = self.constrictor
            cfg[_numba.C_ROYALE] = 2 if self.royale and self._zone_waits else self.royale
            cfg[_numba.C_SPAWNS] = self.spawns
            cfg[_numba.C_GO] = self.randomness == "go"
            cfg[_numba.C_KMAX] = self._kmax
            cfg[_numba.C_WIDTH], cfg[_numba.C_HEIGHT] = self.width, self.height
            cfg[_numba.C_SETUP_FOOD] = self.num_snakes <= 4 or self.width * self.height >= 121
            center = Point((self.width - 1) // 2, (self.height - 1) // 2)
            cfg[_numba.C_CENTER] = self._cell(center)
            self._kernel_cfg = cfg
        # The kernel only reads cfg during the call, so one array serves every step.
        cfg = self._kernel_cfg
        cfg[_numba.C_SOLO] = self.solo_over
        cfg[_numba.C_OFFBOARD] = self._offboard_bodies
        cfg[_numba.C_HAZARDS] = self._hazards_present
        # Auto-resets of fast games on fixed starts happen in the kernel (the others,
        # and any whose final state is kept, in _results).
        reset = self.auto_reset and not self.keep_final_states and self._fixed is not None
        cfg[_numba.C_RESET] = reset
        start_cells, cand = self._fixed if self._fixed is not None else _NO_FIXED
        if self.spawns:
            cfg[_numba.C_STAMP0] = self._stamp * 1024
            self._stamp += 1
        b = self.batch
        winner = np.empty(b, dtype=np.int64)
        winner.fill(-1)
        done = np.zeros(b, dtype=np.bool_)
        final_turn = np.zeros(b, dtype=np.int64)
        errors = _numba.step_games(
            _chunks(b),
            act,
            self.over,
            self.body,
            self.head_slot,
            self.head,
            self.length,
            self.health,
            self.cause,
            self.by,
            self.elim_turn,
            self.occ,
            self.cell_count,
            self.food,
            self.food_stamp,
            self.food_count,
            self.hazards,
            self.turn,
            self.zone,
            self.seeds,
            self.food_chance,
            self.min_food,
            self.damage,
            self.shrink,
            *self._kernel_tables,
            cfg,
            winner,
            done,
            start_cells,
            cand,
            self.episode,
            final_turn,
        )
        if errors < 0:
            raise InvalidStateError(_BAD_ACTIONS)
        if errors:
            raise StepError(f"a snake outgrew the ring buffer of {self.ring} segments")
        if not reset:
            return self._results(done, winner)
        rewards = np.zeros((b, self.num_snakes), dtype=np.float32)
        if done.any():
            won = np.flatnonzero(winner >= 0)
            rewards[won] = -1.0
            rewards[won, winner[won]] = 1.0
        return StepResult(done, winner, rewards, final_turn, {})

    def _hazard_damage(
        self, rows: IntArray, gof: IntArray, new_head: IntArray, turn1: IntArray
    ) -> None:
        count = self.hazards[gof, new_head]
        hit = (count > 0) & ~self.food[gof, new_head]
        if not hit.any():
            return
        r, g, cnt, t = rows[hit], gof[hit], count[hit], turn1[hit]
        dmg = self.damage[g]
        health = self.health.ravel()
        cause, by, et = self.cause.ravel(), self.by.ravel(), self.elim_turn.ravel()
        for c in range(int(cnt.max())):
            k = cnt > c
            hv = np.clip(health[r[k]] - dmg[k], 0, SNAKE_MAX_HEALTH)
            health[r[k]] = hv
            dead = r[k][hv <= 0]
            cause[dead], by[dead], et[dead] = _HAZARD, -1, t[k][hv <= 0]

    def _feed_rows(self, rows: IntArray, gof: IntArray, heads: IntArray) -> None:
        eat = self.food[gof, heads]
        if not eat.any():
            return
        r, g, h = rows[eat], gof[eat], heads[eat]
        ring = self.ring
        body = self.body.reshape(-1, ring)
        ln = self.length.ravel()
        slot = self.head_slot.ravel()
        n = ln[r]
        if (n + 1 >= ring).any():
            raise StepError(f"a snake outgrew the ring buffer of {ring} segments")
        tail = body[r, (slot[r] + n - 1) % ring]
        body[r, (slot[r] + n) % ring] = tail
        self.occ.reshape(-1, self.cells)[r, tail] += 1
        if self._regular:
            self.cell_count[g, tail] += 1
        else:
            np.add.at(self.cell_count, (g, tail), 1)
        ln[r] = n + 1
        self.health.ravel()[r] = SNAKE_MAX_HEALTH
        self.food[g, h] = False
        ug = np.unique(g)
        self.food_count[ug] = self.food[ug].sum(axis=1)

    def _feed(self, slots: IntArray) -> None:
        """Feeding for the alive snakes of ``slots`` (the init call's feeding stage)."""
        s = self.num_snakes
        rows = (slots[:, None] * s + np.arange(s)).ravel()
        rows = rows[self.cause.ravel()[rows] == 0]
        self._feed_rows(rows, rows // s, self.head.ravel()[rows])

    def _eliminate(
        self,
        rows: IntArray,
        gof: IntArray,
        new_head: IntArray,
        turn1: IntArray,
        active: BoolArray | None,
    ) -> None:
        s = self.num_snakes
        cause, by, et = self.cause.ravel(), self.by.ravel(), self.elim_turn.ravel()
        health = self.health.ravel()
        ok = cause[rows] == 0
        starved = ok & (health[rows] <= 0)
        off = ~self.on_board[new_head]
        if self._offboard_bodies:
            off |= self.occ.reshape(-1, self.cells)[rows][:, ~self.on_board].any(axis=1)
        walled = ok & ~starved & off
        gone = starved | walled
        if gone.any():
            cause[rows[starved]] = _HEALTH
            cause[rows[walled]] = _WALL
            by[rows[gone]] = -1
            et[rows[gone]] = turn1[gone]
        alive = self.cause == 0  # [B, S] after health and wall eliminations
        if active is not None:
            alive &= active[:, None]
        heads = self.head
        # Candidates: a head on some snake's body[1:] (any snake, a superset) or on
        # another alive head.  Most turns have few; only they get the exact test.
        on_body = self.cell_count[np.arange(self.batch)[:, None], heads] > 0
        shared = heads[:, :, None] == heads[:, None, :]
        shared &= alive[:, None, :]
        shared[:, np.arange(s), np.arange(s)] = False
        cand = np.flatnonzero(alive & (on_body | shared.any(axis=2)))
        if cand.size == 0:
            return
        r, g, sidx = cand, cand // s, cand % s
        h = heads.ravel()[r]
        n = np.arange(r.size)
        # hits[i, o]: snake r[i]'s head is on one of o's body[1:] segments.
        hits = (self.occ[g[:, None], np.arange(s)[None, :], h[:, None]] > 0) & alive[g]
        same = shared[g, sidx]
        t = self.turn[g] + 1
        selfhit = hits[n, sidx]
        hits[n, sidx] = False
        lens = self.length[g]
        # Longest first, ties in board order: exact, as the simulator plays at most 8
        # snakes, and Go's sort.Slice is a stable insertion sort up to 12.
        key = lens * 16 + (15 - np.arange(s))[None, :]
        body_by = np.where(hits, key, -1).argmax(axis=1)
        bodyhit = hits.any(axis=1) & ~selfhit
        own = lens[n, sidx]
        same &= own[:, None] <= lens
        head_by = np.where(same, key, -1).argmax(axis=1)
        headhit = same.any(axis=1) & ~selfhit & ~bodyhit
        new_cause = np.where(selfhit, _SELF, np.where(bodyhit, _SNAKE, _HEAD))
        new_by = np.where(selfhit, sidx, np.where(bodyhit, body_by, head_by))
        dead = selfhit | bodyhit | headhit
        cause[r[dead]] = new_cause[dead]
        by[r[dead]] = new_by[dead]
        et[r[dead]] = t[dead]

    def _constrict(self, slots: IntArray) -> None:
        """Constrictor: remove all food; every snake gets health 100 and grows.

        A snake whose tail is already stacked does not grow.
        """
        self.food[slots] = False
        self.food_count[slots] = 0
        s, ring = self.num_snakes, self.ring
        rows = (slots[:, None] * s + np.arange(s)).ravel()
        self.health.ravel()[rows] = SNAKE_MAX_HEALTH
        ln = self.length.ravel()
        slot = self.head_slot.ravel()
        body = self.body.reshape(-1, ring)
        n = ln[rows]
        tail = body[rows, (slot[rows] + n - 1) % ring]
        before = body[rows, (slot[rows] + n - 2) % ring]
        grow = (n < 2) | (tail != before)
        r, n, tail = rows[grow], n[grow], tail[grow]
        if (n + 1 >= ring).any():
            raise StepError(f"a snake outgrew the ring buffer of {ring} segments")
        body[r, (slot[r] + n) % ring] = tail
        self.occ.reshape(-1, self.cells)[r, tail] += 1
        live = self.cause.ravel()[r] == 0
        np.add.at(self.cell_count, (r[live] // s, tail[live]), 1)
        ln[r] = n + 1

    def _royale_zone(self, slots: IntArray, turn: IntArray) -> None:
        shrink = self.shrink[slots]
        started = turn >= shrink
        k = np.minimum(turn // shrink, self._kmax)
        z = self.zone[slots, k]  # [n, 4]
        x, y = self.cell_x[None, :], self.cell_y[None, :]
        inside = (x >= z[:, 0:1]) & (x <= z[:, 1:2]) & (y >= z[:, 2:3]) & (y <= z[:, 3:4])
        zone = self.on_board[None, :] & ~inside & started[:, None]
        if self._zone_waits:
            self.hazards[slots] = np.where(started[:, None], zone, self.hazards[slots])
        else:
            self.hazards[slots] = zone

    def _free_cells(self, slots: IntArray) -> BoolArray:
        """``[n, P]``: the reference's spawn squares (hazards allowed).

        On the board, without food or alive segments, not next to an alive head.
        """
        alive = self.cause[slots] == 0
        taken = (self.cell_count[slots] > 0) | self.food[slots]
        heads = self.head[slots]
        gi = np.broadcast_to(np.arange(slots.size)[:, None], heads.shape)
        gi, hd = gi[alive], heads[alive]
        taken[gi, hd] = True
        for off in self.offsets.tolist():
            taken[gi, hd + off] = True
        return self.on_board[None, :] & ~taken

    def _spawn(self, slots: IntArray) -> None:
        full = slots.size == self.batch
        count = self.food_count if full else self.food_count[slots]
        minf = self.min_food if full else self.min_food[slots]
        chance = self.food_chance if full else self.food_chance[slots]
        stamp0 = self._stamp * 1024
        self._stamp += 1
        if self.randomness == "go":
            need = []
            for i, g in enumerate(slots.tolist()):
                rand = GoRand(wrap_int64(int(self.seeds[g]) + int(self.turn[g])))
                if count[i] < minf[i]:
                    need.append((i, g, int(minf[i] - count[i]), rand))
                elif chance[i] > 0 and (100 - rand.intn(100)) < chance[i]:
                    need.append((i, g, 1, rand))
            if not need:
                return
            sub = np.array([g for _, g, _, _ in need])
            free = self._free_cells(sub)
            for j, (_, g, howmany, rand) in enumerate(need):
                cells = self.xmajor[free[j, self.xmajor]].tolist()
                rand.shuffle_list(cells)
                for k, c in enumerate(cells[:howmany]):
                    self.food[g, c] = True
                    self.food_stamp[g, c] = stamp0 + k
                self.food_count[g] += len(cells[:howmany])
            return
        seeds, turns = self.seeds[slots], self.turn[slots]
        u = counter.uniform(100, seeds, turns, counter.CHANCE, 0)
        need_n: IntArray = np.where(
            count < minf, minf - count, ((chance > 0) & (100 - u < chance)).astype(np.int64)
        )
        pick = np.flatnonzero(need_n > 0)
        if pick.size == 0:
            return
        sub, n = slots[pick], need_n[pick]
        seeds, turns = seeds[pick], turns[pick]
        free = self._free_cells(sub)
        rows = np.arange(sub.size)
        for k in range(int(n.max())):
            # The k-th food goes on the uniform(m)-th free cell (counter.py's spec).
            rank = np.cumsum(free, axis=1)
            m = rank[:, -1]
            want = (n > k) & (m > 0)
            if not want.any():
                break
            nth = counter.uniform(np.maximum(m, 1), seeds, turns, counter.SPAWN, k)
            c = ((rank == (nth + 1)[:, None]) & free).argmax(axis=1)
            rr, cc = rows[want], c[want]
            self.food[sub[rr], cc] = True
            self.food_stamp[sub[rr], cc] = stamp0 + k
            self.food_count[sub[rr]] += 1
            free[rr, cc] = False

    def _game_over(self, slots: IntArray) -> BoolArray:
        alive = (self.cause[slots] == 0).sum(axis=1)
        out: BoolArray = alive == 0 if self.solo_over else alive <= 1
        return out

    def _finish(self, slots: IntArray) -> StepResult:
        b = self.batch
        done = np.zeros(b, dtype=np.bool_)
        done[slots] = self._game_over(slots)
        winner = np.full(b, -1, dtype=np.int64)
        fin = np.flatnonzero(done)
        if fin.size:
            alive = self.cause[fin] == 0
            one = alive.sum(axis=1) == 1
            winner[fin[one]] = alive[one].argmax(axis=1)
        return self._results(done, winner)

    def _results(self, done: BoolArray, winner: IntArray) -> StepResult:
        """Rewards, final turns and states of the games ``done`` on this step; auto-reset."""
        b, s = self.batch, self.num_snakes
        rewards = np.zeros((b, s), dtype=np.float32)
        turns = np.zeros(b, dtype=np.int64)
        finals: dict[int, BoardState] = {}
        fin = np.flatnonzero(done)
        if fin.size:
            won = fin[winner[fin] >= 0]
            rewards[won] = -1.0
            rewards[won, winner[won]] = 1.0
            turns[fin] = self.turn[fin]
            if self.keep_final_states:
                finals = dict(zip(fin.tolist(), self.to_states(fin.tolist()), strict=True))
            self.over[fin] = True
            if self.auto_reset:
                for g in fin.tolist():
                    self.seeds[g] = next_seed(int(self.seeds[g]))
                self.episode[fin] += 1
                self._reset_slots(fin)
        return StepResult(done, winner, rewards, turns, finals)
