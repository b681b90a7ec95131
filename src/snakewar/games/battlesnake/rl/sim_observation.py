"""Board planes straight from the batched simulator's arrays, every game at once.

:func:`encode_sim` returns, for one snake of every game of a
:class:`~snakewar.games.battlesnake.sim.BatchSim`, the very planes that
:func:`~snakewar.games.battlesnake.rl.observation.encode_observation` makes from that game's
:class:`~snakewar.games.battlesnake.BoardState` (same values, bit for bit, and
the same framing by :class:`~snakewar.games.battlesnake.rl.observation.ObservationSpec`), without
building the states: the cost is a few numpy operations per batch instead of a
state conversion per game.  :func:`encode_sim_all` does it for every snake.

Segments, heads, food and hazards that a loaded state puts just off the board
(the simulator keeps one square of padding around it) are dropped, as the
per-game encoder drops points off the board.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from snakewar.games.battlesnake.rl._errors import EnvConfigError
from snakewar.games.battlesnake.rl.observation import NUM_PLANES, ObservationSpec, Plane
from snakewar.games.battlesnake.rules.types import SNAKE_MAX_HEALTH
from snakewar.games.battlesnake.sim import BatchSim

__all__ = ["encode_sim", "encode_sim_all"]

Float32Array = npt.NDArray[np.float32]
IntArray = npt.NDArray[np.int64]

# Plain ints: an enum member costs a class lookup on every use.
_VALID, _OWN_HEAD, _OWN_BODY, _OWN_BODY_TTL, _OWN_HEALTH = (
    int(Plane.VALID),
    int(Plane.OWN_HEAD),
    int(Plane.OWN_BODY),
    int(Plane.OWN_BODY_TTL),
    int(Plane.OWN_HEALTH),
)
_OTHER_HEADS, _OTHER_BODIES, _OTHER_BODY_TTL, _OTHER_LONGER = (
    int(Plane.OTHER_HEADS),
    int(Plane.OTHER_BODIES),
    int(Plane.OTHER_BODY_TTL),
    int(Plane.OTHER_LONGER),
)
_OTHER_LENGTH, _OTHER_HEALTH, _FOOD, _HAZARDS = (
    int(Plane.OTHER_LENGTH),
    int(Plane.OTHER_HEALTH),
    int(Plane.FOOD),
    int(Plane.HAZARDS),
)


@lru_cache(maxsize=64)
def _ttl_table(area: int, ring: int) -> Float32Array:
    """``table[k]``: the TTL planes' value of a segment that frees in ``k`` moves.

    The same float64 division and clip as the per-game encoder, then float32, so a
    lookup gives its exact values.  Index 0 (no segment) is 0.
    """
    k = np.arange(ring + 1)
    out: Float32Array = np.minimum(k / area, 1.0).astype(np.float32)
    return out


def _check(sim: BatchSim, spec: ObservationSpec) -> None:
    if (sim.width, sim.height) != (spec.width, spec.height):
        raise EnvConfigError(
            f"board size {sim.width}x{sim.height}: expected the spec's {spec.width}x{spec.height}"
        )


@lru_cache(maxsize=64)
def _squares(width: int, height: int) -> tuple[IntArray, IntArray]:
    """``(square, cells)``: the board index of each padded cell, and back.

    ``square[cell]`` is ``y * width + x`` (``width * height``, the dump, on the
    padding); ``cells[y * width + x]`` is the padded cell.
    """
    pw = width + 2
    cell = np.arange(pw * (height + 2))
    x, y = cell % pw - 1, cell // pw - 1
    on = (x >= 0) & (x < width) & (y >= 0) & (y < height)
    square = np.where(on, y * width + x, width * height)
    board = np.arange(width * height)
    cells = (board // width + 1) * pw + board % width + 1
    return square, cells


class _Batch:
    """What every point of view shares, for the games ``games`` (all by default).

    Planes are drawn on board indices ``y * width + x``; the simulator's padding
    squares (where a segment off the board lies) map to one dump index past the
    board, so they drop out as the per-game encoder drops points off the board.
    """

    def __init__(self, sim: BatchSim, games: IntArray | None) -> None:
        self.width, self.height = sim.width, sim.height
        self.area = sim.width * sim.height
        self.num_snakes = sim.num_snakes
        square, cells = _squares(sim.width, sim.height)
        pick = slice(None) if games is None else games
        self.n = sim.batch if games is None else len(games)
        self.alive = sim.cause[pick] == 0
        self.length = sim.length[pick]
        self.health = sim.health[pick]
        head = sim.head[pick]
        self.head = square[head]
        # The head's own coordinates centre the view, even off the board (a loaded state).
        self.head_y, self.head_x = sim.cell_y[head], sim.cell_x[head]
        self.food = sim.food[pick][:, cells]
        self.hazards = sim.hazards[pick][:, cells]
        self.ttl = _ttl_table(self.area, sim.ring)
        self.maps = self._body_maps(sim, pick, square)

    def _body_maps(
        self, sim: BatchSim, pick: slice | IntArray, square: IntArray
    ) -> npt.NDArray[np.int32]:
        """``[n, S, area + 1]``: per square, the largest ``length - i`` of a snake's segments.

        0 where it has none, and everywhere for an eliminated snake.  Segment ``i``
        frees after ``length - i`` moves without eating; a stacked square shows its
        largest, as the per-game encoder's maximum does.
        """
        n, s, size = self.n, self.num_snakes, self.area + 1
        maps = np.zeros(n * s * size, dtype=np.int32)
        live = np.flatnonzero(self.alive.ravel())
        if live.size:
            length = self.length.ravel()[live]
            seg = np.arange(int(length.max()))
            slots = (sim.head_slot[pick].ravel()[live, None] + seg) % sim.ring
            body = sim.body[pick].reshape(n * s, sim.ring)[live[:, None], slots]
            keep = seg < length[:, None]
            flat = (live[:, None] * size + square[body])[keep]
            left = (length[:, None] - seg)[keep]
            np.maximum.at(maps, flat, left.astype(np.int32))
        return maps.reshape(n, s, size)

    def planes(self, snake: int) -> Float32Array:
        """``[n, C, height, width]`` float32: the board planes of ``snake``."""
        n, s, area = self.n, self.num_snakes, self.area
        ttl, alive, maps = self.ttl, self.alive, self.maps
        # One float past the planes takes what lands on the padding.
        dump = n * NUM_PLANES * area
        flat = np.zeros(dump + 1, dtype=np.float32)
        out = flat[:dump].reshape(n, NUM_PLANES, area)
        base = np.arange(n)[:, None] * (NUM_PLANES * area)  # [n, 1]: each game's first float
        out[:, _VALID] = 1.0
        own_alive = alive[:, snake]
        head = self.head[:, snake]
        flat[np.where(own_alive & (head < area), base[:, 0] + _OWN_HEAD * area + head, dump)] = 1
        own = maps[:, snake, :area]
        out[:, _OWN_BODY] = own > 0
        out[:, _OWN_BODY_TTL] = ttl[own]
        health = np.where(own_alive, np.maximum(self.health[:, snake], 0), 0) / SNAKE_MAX_HEALTH
        out[:, _OWN_HEALTH] = health.astype(np.float32)[:, None]
        rest = [o for o in range(s) if o != snake]
        if rest:
            others = maps[:, rest, :area].max(axis=1)
            out[:, _OTHER_BODIES] = others > 0
            out[:, _OTHER_BODY_TTL] = ttl[others]
            self._other_heads(flat, base, dump, snake, rest)
        out[:, _FOOD] = self.food
        # Stack counts are int8: they never reach HAZARD_CAP.
        out[:, _HAZARDS] = np.maximum(self.hazards, 0)
        return out.reshape(n, NUM_PLANES, self.height, self.width)

    def _other_heads(
        self, flat: Float32Array, base: IntArray, dump: int, snake: int, rest: list[int]
    ) -> None:
        """Draw the head planes of the snakes ``rest`` (the others) into ``flat``."""
        area = self.area
        heads = self.head[:, rest]
        shown = self.alive[:, rest] & (heads < area)
        diff = self.length[:, rest] - self.length[:, snake, None]
        values = (
            np.ones(heads.shape),
            np.where(diff >= 0, 1.0, 0.0),
            np.clip(diff / area, -1.0, 1.0),
            np.clip(self.health[:, rest], 0, SNAKE_MAX_HEALTH) / 100,
        )
        planes = (_OTHER_HEADS, _OTHER_LONGER, _OTHER_LENGTH, _OTHER_HEALTH)
        same = (heads[:, :, None] == heads[:, None, :]) & shown[:, :, None] & shown[:, None, :]
        if np.count_nonzero(same) == np.count_nonzero(shown):
            # Every shown head has a square of its own (as in any played game): one
            # write per plane, nothing to order.
            cell = base + heads
            for plane, value in zip(planes, values, strict=True):
                flat[np.where(shown, cell + plane * area, dump)] = value
            return
        # Heads share a square (a loaded state): snake by snake, in board order, so
        # that the last one's values stay, as in the per-game encoder; ``longer``
        # is only ever set.
        for k in range(len(rest)):
            g = np.flatnonzero(shown[:, k])
            cell = base[g, 0] + heads[g, k]
            for plane, value in zip(planes, values, strict=True):
                if plane == _OTHER_LONGER:
                    g_longer = value[g, k] > 0
                    flat[cell[g_longer] + plane * area] = 1.0
                else:
                    flat[cell + plane * area] = value[g, k]

    def frame(self, planes: Float32Array, spec: ObservationSpec, snake: int) -> Float32Array:
        """Place ``[n, C, H, W]`` board planes in the grid of ``spec``: ``[n, C, GH, GW]``.

        The same placement as :func:`~snakewar.games.battlesnake.rl.observation.frame_planes`: the
        board at the bottom-left corner, or centred on the own head (rolled on a
        wrapped board, shifted on a bounded one), or on the board's middle for a
        dead snake.
        """
        n, h, w = self.n, self.height, self.width
        _, gh, gw = spec.shape
        if not spec.center:
            if (gh, gw) == (h, w):
                return planes
            out = np.zeros((n, NUM_PLANES, gh, gw), dtype=np.float32)
            out[:, :, :h, :w] = planes
            return out
        alive = self.alive[:, snake, None]
        hy, hx = self.head_y[:, snake, None], self.head_x[:, snake, None]
        gy, gx = np.arange(gh)[None, :], np.arange(gw)[None, :]
        # The unrolled offset: the board's middle at the grid's centre (a dead snake's view).
        ys, xs = gy - (gh // 2 - h // 2), gx - (gw // 2 - w // 2)
        if spec.wrapped:
            # Rolled so that the head sits at the board's middle; a roll keeps the
            # board's extent, so which squares show the board is the unrolled offset's.
            src_y = np.where(alive, (ys - h // 2 + hy) % h, ys)
            src_x = np.where(alive, (xs - w // 2 + hx) % w, xs)
            in_y, in_x = (ys >= 0) & (ys < h), (xs >= 0) & (xs < w)
        else:
            src_y = np.where(alive, gy - (gh // 2 - hy), ys)
            src_x = np.where(alive, gx - (gw // 2 - hx), xs)
            in_y, in_x = (src_y >= 0) & (src_y < h), (src_x >= 0) & (src_x < w)
        blank = h * w
        at = np.where(
            in_y[:, :, None] & in_x[:, None, :], src_y[:, :, None] * w + src_x[:, None, :], blank
        )
        board = np.zeros((n, NUM_PLANES, blank + 1), dtype=np.float32)
        board[:, :, :blank] = planes.reshape(n, NUM_PLANES, blank)
        idx = np.broadcast_to(at.reshape(n, 1, gh * gw), (n, NUM_PLANES, gh * gw))
        framed: Float32Array = np.take_along_axis(board, idx, axis=2)
        return framed.reshape(n, NUM_PLANES, gh, gw)


def _games(sim: BatchSim, games: Sequence[int] | None) -> IntArray | None:
    if games is None:
        return None
    chosen = np.asarray(games, dtype=np.int64).reshape(-1)
    if chosen.size and (chosen.min() < 0 or chosen.max() >= sim.batch):
        raise EnvConfigError(f"games {list(games)!r}: expected slots in 0..{sim.batch - 1}")
    return chosen


def encode_sim(
    sim: BatchSim, spec: ObservationSpec, snake: int = 0, games: Sequence[int] | None = None
) -> Float32Array:
    """Return the observation of snake ``snake`` (an index) in the games of ``sim``.

    The result has shape ``(len(games), *spec.shape)`` (every game by default);
    ``result[k]`` equals ``encode_observation(sim.to_states([games[k]])[0],
    sim.ids[snake], spec)``.

    Raises:
        EnvConfigError: if ``spec`` is not made for the simulator's board size,
            ``snake`` is not a snake index or ``games`` not slots of ``sim``.
    """
    _check(sim, spec)
    if type(snake) is not int or not 0 <= snake < sim.num_snakes:
        raise EnvConfigError(f"snake {snake!r}: expected an index in 0..{sim.num_snakes - 1}")
    batch = _Batch(sim, _games(sim, games))
    return batch.frame(batch.planes(snake), spec, snake)


def encode_sim_all(
    sim: BatchSim, spec: ObservationSpec, games: Sequence[int] | None = None
) -> Float32Array:
    """Return every snake's observation: ``(len(games), snakes, *spec.shape)``.

    ``result[k, i]`` is ``encode_sim(sim, spec, i, games)[k]``; what the points of
    view share (the body maps) is built once.

    Raises:
        EnvConfigError: if ``spec`` is not made for the simulator's board size or
            ``games`` not slots of ``sim``.
    """
    _check(sim, spec)
    batch = _Batch(sim, _games(sim, games))
    views = [batch.frame(batch.planes(i), spec, i) for i in range(sim.num_snakes)]
    return np.stack(views, axis=1)
