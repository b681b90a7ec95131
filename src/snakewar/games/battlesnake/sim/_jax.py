"""The JAX backend of :class:`~snakewar.games.battlesnake.sim.BatchSim`: one jitted, vmapped turn.

Imported only when ``make_sim(backend="jax")`` is asked for (``pip install snakewar[gpu]``,
or ``jax[cuda12]`` for a GPU).  The games live on the device as fixed-shape arrays (one
pytree, :data:`FIELDS`); :func:`_game_step` plays one turn of one game and ``jax.vmap``
maps it over the batch, so a step is one compiled call that never leaves the device.

Only ``randomness="fast"`` is played: every draw is the counter hash of
:mod:`snakewar.games.battlesnake.sim.counter` (reimplemented here on ``uint32`` words, so no
x64 mode is needed), and a game is draw for draw the numpy backend's game.  The Go stream is
sequential per game and has no such form.

Host and device copies (why the arrays are properties here): after a step the device
holds the games.  Reading ``sim.body`` (or any array of ``STATE``) pulls that one array
and caches it read-only until the next step; a loop that only steps copies nothing but
the actions.  Host code that writes the arrays (setups outside the kernel, loading
states, ``reset``/``restart``) first pulls every array back and drops the device copy;
the next step uploads again.  Auto-resets of games on the fixed start squares (square
boards from 7x7) run on the device, in the step; other boards' resets (the rules
engine's setup) and ``keep_final_states`` go through the host, pulling ``done`` every step.
"""

from __future__ import annotations

from functools import partial
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import numpy.typing as npt

from snakewar.errors import InvalidStateError, StepError
from snakewar.games.battlesnake.sim import counter
from snakewar.games.battlesnake.sim.core import STATE_ARRAYS, BatchSim, StepResult

__all__ = ["FIELDS", "JaxBatchSim", "JaxStepResult", "draw", "uniform"]

_SNAKE, _SELF, _HEALTH, _HEAD, _WALL, _HAZARD = 1, 2, 3, 4, 5, 6
_MAX_HEALTH = 100
_GOLDEN = 0x9E3779B9
_MUL1 = 0x7FEB352D
_MUL2 = 0x846CA68B
_SEED_MUL = 6364136223846793005
_SEED_ADD = 1442695040888963407
_STAMP_SCALE = 1024  # the numpy backend's food stamp: step * 1024 + index
_ERR_RING = 1
_ERR_ACTION = 2

# name: device dtype.  ``food_stamp`` and ``seeds`` are split in two 32-bit halves so
# that the device needs no int64 (see _push/_pull_one).
FIELDS: dict[str, Any] = {
    "body": jnp.int16,
    "head_slot": jnp.int32,
    "head": jnp.int32,
    "length": jnp.int32,
    "health": jnp.int32,
    "cause": jnp.int8,
    "by": jnp.int8,
    "elim_turn": jnp.int32,
    "occ": jnp.int8,
    "cell_count": jnp.int16,
    "food": jnp.bool_,
    "stamp_step": jnp.int32,
    "stamp_k": jnp.int32,
    "food_count": jnp.int32,
    "hazards": jnp.int8,
    "turn": jnp.int32,
    "over": jnp.bool_,
    "seed_lo": jnp.uint32,
    "seed_hi": jnp.uint32,
    "episode": jnp.int32,
    "zone": jnp.int32,
    "error": jnp.int32,
}
"""The per-game device arrays and their dtypes."""

Game = dict[str, jax.Array]
Carry = tuple[jax.Array, jax.Array, jax.Array, jax.Array, jax.Array]


# -- counter hash (snakewar.games.battlesnake.sim.counter's spec, on uint32 words) -----------


def _u32(x: int | jax.Array) -> jax.Array:
    if isinstance(x, int):
        # Python ints go straight to uint32 (as int32 first, those from 2**31 overflow).
        out: jax.Array = jnp.uint32(x & 0xFFFFFFFF)
        return out
    return x.astype(jnp.uint32)


def _mix(x: jax.Array) -> jax.Array:
    x = x ^ (x >> 16)
    x = x * _u32(_MUL1)
    x = x ^ (x >> 15)
    x = x * _u32(_MUL2)
    return x ^ (x >> 16)


def _mul_full(a: jax.Array, b: jax.Array) -> tuple[jax.Array, jax.Array]:
    """The 64-bit product of two uint32 arrays as (high, low) words, in 16-bit halves."""
    mask = _u32(0xFFFF)
    a0, a1, b0, b1 = a & mask, a >> 16, b & mask, b >> 16
    p00, p01, p10, p11 = a0 * b0, a0 * b1, a1 * b0, a1 * b1
    mid = (p00 >> 16) + (p01 & mask) + (p10 & mask)
    hi = p11 + (p01 >> 16) + (p10 >> 16) + (mid >> 16)
    lo = (mid << 16) | (p00 & mask)
    return hi, lo


def draw(
    seed_lo: jax.Array,
    seed_hi: jax.Array,
    turn: jax.Array | int,
    purpose: int,
    index: jax.Array | int,
) -> jax.Array:
    """``draw`` of the spec (uint32), the seed given as its two's-complement 32-bit halves."""
    h = _mix(_u32(seed_lo) + _u32(_GOLDEN))
    h = _mix(h ^ _u32(seed_hi))
    h = _mix(h ^ _u32(turn))
    h = _mix(h ^ _u32(purpose))
    return _mix(h ^ _u32(index))


def uniform(
    n: jax.Array | int,
    seed_lo: jax.Array,
    seed_hi: jax.Array,
    turn: jax.Array | int,
    purpose: int,
    index: jax.Array | int,
) -> jax.Array:
    """``uniform(n, ...)`` of the spec: the high word of ``draw * n``, as int32."""
    hi, _ = _mul_full(draw(seed_lo, seed_hi, turn, purpose, index), _u32(n))
    return hi.astype(jnp.int32)


def _next_seed(lo: jax.Array, hi: jax.Array) -> tuple[jax.Array, jax.Array]:
    """:func:`~snakewar.games.battlesnake.sim.core.next_seed` on the two 32-bit halves."""
    ml, mh = _u32(_SEED_MUL & 0xFFFFFFFF), _u32(_SEED_MUL >> 32)
    al, ah = _u32(_SEED_ADD & 0xFFFFFFFF), _u32(_SEED_ADD >> 32)
    p_hi, p_lo = _mul_full(lo, ml)
    p_hi = p_hi + hi * ml + lo * mh
    s_lo = p_lo + al
    s_hi = p_hi + ah + (s_lo < p_lo).astype(jnp.uint32)
    return (s_lo >> 1) | (s_hi << 31), s_hi >> 1


# -- one game's turn ------------------------------------------------------------------


class Config(NamedTuple):
    """What the compiled step is specialised on (hashable: the jit's static argument)."""

    snakes: int
    ring: int
    cells: int
    width: int
    height: int
    constrictor: bool
    royale: bool
    zone_waits: bool
    spawns: bool
    solo: bool
    offboard: bool
    hazard_stack: int
    kmax: int
    reset: bool
    reset_room: int
    setup_food: bool
    center: int


class Tables(NamedTuple):
    """The board's constant tables, on the device."""

    nbr: jax.Array
    on_board: jax.Array
    cell_x: jax.Array
    cell_y: jax.Array
    offsets: jax.Array
    start_cells: jax.Array
    cand: jax.Array


class Params(NamedTuple):
    """Per-game settings, on the device (int32: see :func:`_device_params`)."""

    food_chance: jax.Array
    min_food: jax.Array
    damage: jax.Array
    shrink: jax.Array
    heal_below: jax.Array
    kill_above: jax.Array


# The device plays in int32 (no x64 mode: it is global to the process, and halves the
# speed of a GPU).  The numbers a game can hold are kept in ranges where int32 is exact:
# loaded health, turns and elimination turns within +-2**29 (a game would need 2**30
# more turns to leave int32; health - damage stays within +-(2**30 + 103)), and the
# settings mapped to int32 values that play the same games as their int64 values
# (_device_params).
STATE_LIMIT = 1 << 29
"""Loaded ``health``, ``turn`` and ``eliminated_on_turn`` must lie in ``-2**29..2**29``."""
_DAMAGE_LIMIT = STATE_LIMIT + _MAX_HEALTH + 2
_INT32_MIN, _INT32_MAX = -(1 << 31), (1 << 31) - 1
_WRAP_FROM = 1 << 62


def _check_int32_range(sim: BatchSim, g: int) -> None:
    """Refuse a loaded game whose numbers the int32 device arrays cannot hold exactly.

    Raises:
        InvalidStateError: naming the snake, the field and the range.
    """
    for name, label in (("health", "health"), ("elim_turn", "eliminated_on_turn")):
        values = getattr(sim, name)[g]
        bad = np.flatnonzero(np.abs(values) > STATE_LIMIT)
        if bad.size:
            i = int(bad[0])
            raise InvalidStateError(
                f"snake {sim.ids[i]!r}: {label} {int(values[i])} is out of the jax backend's "
                f"range -{STATE_LIMIT}..{STATE_LIMIT} (the numpy and numba backends take any "
                "64-bit value)"
            )
    turn = int(sim.turn[g])
    if abs(turn) > STATE_LIMIT:
        raise InvalidStateError(
            f"turn {turn} is out of the jax backend's range -{STATE_LIMIT}..{STATE_LIMIT} "
            "(the numpy and numba backends take any 64-bit value)"
        )


def _device_params(
    food_chance: npt.NDArray[np.int64],
    min_food: npt.NDArray[np.int64],
    damage: npt.NDArray[np.int64],
    shrink: npt.NDArray[np.int64],
    cells: int,
) -> tuple[npt.NDArray[np.int32], ...]:
    """The settings as int32 arrays that play exactly the games of their int64 values.

    With every health within ``+-(2**29 + 1)`` (loaded ones are checked; play keeps them
    in 0..100 or lowers them by one before the snake starves), a hazard sets health to
    ``clip(wrap64(health - damage), 0, 100)``.  A damage beyond ``+-(2**29 + 102)``
    gives the clip's bound, as the bound itself does, except where Go's int64 wraps:
    that needs ``|damage| > 2**62``, and then happens exactly to the healths beyond a
    threshold (below ``damage - 2**63`` for a huge damage: health 100; above
    ``damage + 2**63 - 1`` for a huge healing: health 0).  Those thresholds, clipped to
    int32, are ``heal_below`` and ``kill_above``.  The food chance only compares with
    ``100 - uniform(100)`` (0..101 is every case), the minimum food with counts of at
    most ``cells``, and the shrink period with turns within int32.
    """
    d = damage.astype(np.int64)
    heal_below = np.full(d.shape, _INT32_MIN, dtype=np.int64)
    kill_above = np.full(d.shape, _INT32_MAX, dtype=np.int64)
    hi, lo = d > _WRAP_FROM, d < -_WRAP_FROM
    # d - 2**63 and d + 2**63 - 1 in int64 arithmetic: no overflow for these d.
    heal_below[hi] = np.clip(d[hi] - np.int64(_WRAP_FROM) - np.int64(_WRAP_FROM), _INT32_MIN, 0)
    kill_above[lo] = np.clip(
        d[lo] + np.int64(_WRAP_FROM) + np.int64(_WRAP_FROM - 1), -1, _INT32_MAX
    )
    return tuple(
        a.astype(np.int32)
        for a in (
            np.clip(food_chance, -1, 101),
            np.clip(min_food, -1, cells + 1),
            np.clip(d, -_DAMAGE_LIMIT, _DAMAGE_LIMIT),
            np.clip(shrink, _INT32_MIN, _INT32_MAX),
            heal_below,
            kill_above,
        )
    )


def _feed(g: Game, eat: jax.Array, cfg: Config) -> Game:
    """Each ``eat`` snake grows (its tail doubled), gets full health and eats its food."""
    ar = jnp.arange(cfg.snakes)
    ring = cfg.ring
    n, sl, body = g["length"], g["head_slot"], g["body"]
    err = (eat & (n + 1 >= ring)).any()
    tail = body[ar, (sl + n - 1) % ring]
    at = (sl + n) % ring
    body = body.at[ar, at].set(jnp.where(eat, tail, body[ar, at]).astype(body.dtype))
    occ = g["occ"].at[ar, tail].add(eat.astype(jnp.int8))
    cc = g["cell_count"].at[tail].add(eat.astype(jnp.int16))
    food = g["food"].at[jnp.where(eat, g["head"], cfg.cells)].set(False, mode="drop")
    eaten = (g["food"] & ~food).sum().astype(jnp.int32)
    return {
        **g,
        "body": body,
        "occ": occ,
        "cell_count": cc,
        "length": n + eat,
        "health": jnp.where(eat, _MAX_HEALTH, g["health"]),
        "food": food,
        "food_count": g["food_count"] - eaten,
        "error": g["error"] | jnp.where(err, _ERR_RING, 0),
    }


def _constrict(g: Game, cfg: Config) -> Game:
    """Constrictor's stage: no food; every snake gets full health and grows unless stacked."""
    ar = jnp.arange(cfg.snakes)
    ring = cfg.ring
    n, sl, body = g["length"], g["head_slot"], g["body"]
    tail = body[ar, (sl + n - 1) % ring]
    before = body[ar, (sl + n - 2) % ring]
    grow = (n < 2) | (tail != before)
    err = (grow & (n + 1 >= ring)).any()
    at = (sl + n) % ring
    body = body.at[ar, at].set(jnp.where(grow, tail, body[ar, at]).astype(body.dtype))
    live = grow & (g["cause"] == 0)
    return {
        **g,
        "body": body,
        "occ": g["occ"].at[ar, tail].add(grow.astype(jnp.int8)),
        "cell_count": g["cell_count"].at[tail].add(live.astype(jnp.int16)),
        "length": n + grow,
        "health": jnp.full_like(g["health"], _MAX_HEALTH),
        "food": jnp.zeros_like(g["food"]),
        "food_count": jnp.zeros_like(g["food_count"]),
        "error": g["error"] | jnp.where(err, _ERR_RING, 0),
    }


def _prefix_count(mask: jax.Array) -> jax.Array:
    """``cumsum`` of a bool vector as a parallel scan (XLA's CPU cumsum is quadratic)."""
    out: jax.Array = jax.lax.associative_scan(jnp.add, mask.astype(jnp.int32))
    return out


def _spawn(g: Game, p: Params, tb: Tables, stamp: jax.Array, cfg: Config) -> Game:
    """Fast-mode food spawning: the k-th food on the uniform(m)-th free cell."""
    count, t = g["food_count"], g["turn"]
    lo, hi = g["seed_lo"], g["seed_hi"]
    u = uniform(100, lo, hi, t, counter.CHANCE, 0)
    chance = ((p.food_chance > 0) & (100 - u < p.food_chance)).astype(jnp.int32)
    howmany = jnp.where(count < p.min_food, p.min_food - count, chance)
    alive = g["cause"] == 0
    mark = tb.on_board & (g["cell_count"] <= 0) & ~g["food"]
    near = g["head"][:, None] + jnp.concatenate([jnp.zeros(1, jnp.int32), tb.offsets])[None, :]
    mark = mark.at[jnp.where(alive[:, None], near, cfg.cells)].set(False, mode="drop")

    def more(c: Carry) -> jax.Array:
        k, mk = c[0], c[1]
        return (k < howmany) & mk.any()

    def one(c: Carry) -> Carry:
        k, mk, food, sstep, sk = c
        m = mk.sum()
        j = uniform(jnp.maximum(m, 1), lo, hi, t, counter.SPAWN, k)
        cell = jnp.argmax((_prefix_count(mk) == j + 1) & mk)
        return (
            k + 1,
            mk.at[cell].set(False),
            food.at[cell].set(True),
            sstep.at[cell].set(stamp),
            sk.at[cell].set(k),
        )

    start = (jnp.int32(0), mark, g["food"], g["stamp_step"], g["stamp_k"])
    k, _, food, sstep, sk = jax.lax.while_loop(more, one, start)
    return {**g, "food": food, "stamp_step": sstep, "stamp_k": sk, "food_count": count + k}


def _over(cause: jax.Array, cfg: Config) -> tuple[jax.Array, jax.Array]:
    """(the game is over, the winner or -1)."""
    alive = cause == 0
    left = alive.sum()
    done = (left == 0) | ((left == 1) & (not cfg.solo))
    winner = jnp.where(done & (left == 1), jnp.argmax(alive), -1).astype(jnp.int32)
    return done, winner


def _setup(g: Game, tb: Tables, cfg: Config) -> Game:
    """A new game on the fixed start squares (the numpy ``_fast_fixed_setup``), initialised."""
    lo, hi = g["seed_lo"], g["seed_hi"]
    ns = cfg.snakes
    draws = draw(lo, hi, 0, counter.SETUP, jnp.arange(7 + ns))

    def pick(n: jax.Array | int, index: int) -> jax.Array:
        return _mul_full(draws[index], _u32(n))[0].astype(jnp.int32)

    order = jnp.arange(8)
    for first in (0, 1):
        base = 4 * first
        for i in (3, 2, 1):
            j = base + pick(i + 1, 3 * first + 3 - i)
            a, b = order[base + i], order[j]
            order = order.at[base + i].set(b).at[j].set(a)
    order = jnp.where(pick(2, 6) == 0, order, jnp.roll(order, 4))
    cells = tb.start_cells[order[:ns]]
    ar = jnp.arange(ns)
    body = jnp.zeros_like(g["body"]).at[:, :3].set(cells[:, None].astype(jnp.int16))
    occ = jnp.zeros_like(g["occ"]).at[ar, cells].set(2)
    food = jnp.zeros_like(g["food"])
    sk = jnp.zeros_like(g["stamp_k"])
    zone = g["zone"]
    if cfg.royale:
        sides = uniform(4, lo, hi, 0, counter.ZONE, jnp.arange(cfg.kmax))
        z0 = jnp.array([0, cfg.width - 1, 0, cfg.height - 1], jnp.int32)
        steps = jnp.cumsum(sides[:, None] == jnp.arange(4)[None, :], axis=0)
        sign = jnp.array([1, -1, 1, -1], jnp.int32)
        zone = jnp.concatenate([z0[None, :], z0[None, :] + sign * steps], axis=0)
    if cfg.spawns:
        if cfg.setup_food:
            chosen: list[jax.Array] = []
            for i in range(ns):
                c = tb.cand[order[i]]
                avail = c >= 0
                for prev in chosen:
                    avail &= c != prev
                r = pick(jnp.maximum(avail.sum(), 1), 7 + i)
                hit = (jnp.cumsum(avail) == r + 1) & avail
                cell = c[jnp.argmax(hit)] % cfg.cells  # none free: numpy's c[0], maybe -1
                chosen.append(cell)
                food = food.at[cell].set(True)
                sk = sk.at[cell].set(i)
        food = food.at[cfg.center].set(True)
        sk = sk.at[cfg.center].set(ns)
    new: Game = {
        **g,
        "body": body,
        "head_slot": jnp.zeros_like(g["head_slot"]),
        "head": cells.astype(jnp.int32),
        "length": jnp.full_like(g["length"], 3),
        "health": jnp.full_like(g["health"], _MAX_HEALTH),
        "cause": jnp.zeros_like(g["cause"]),
        "by": jnp.full_like(g["by"], -1),
        "elim_turn": jnp.zeros_like(g["elim_turn"]),
        "occ": occ,
        "cell_count": jnp.zeros_like(g["cell_count"]).at[cells].add(2),
        "food": food,
        "stamp_step": jnp.zeros_like(g["stamp_step"]),
        "stamp_k": sk,
        "food_count": food.sum().astype(jnp.int32),
        "hazards": jnp.zeros_like(g["hazards"]),
        "turn": jnp.zeros_like(g["turn"]),
        "zone": zone,
    }
    new = _feed(new, food[new["head"]], cfg)  # the initialization call's feeding
    if cfg.constrictor:
        new = _constrict(new, cfg)
    return new


def _game_step(
    g: Game, act: jax.Array, p: Params, tb: Tables, stamp: jax.Array, cfg: Config
) -> tuple[Game, jax.Array, jax.Array, jax.Array]:
    """One turn of one game: (the game after it, done, winner, final turn)."""
    ns, ring = cfg.snakes, cfg.ring
    ar = jnp.arange(ns)
    t1 = g["turn"] + 1
    bad = ((act < 0) | (act > 3)).any()
    act = jnp.clip(act, 0, 3)
    # Movement: the new head goes in the slot before the old head; the tail is dropped.
    moved = g["cause"] == 0
    oh = g["head"]
    nh = jnp.where(moved, tb.nbr[oh, act], oh)
    hs = jnp.where(moved, (g["head_slot"] - 1) % ring, g["head_slot"])
    body = g["body"]
    ot = body[ar, (hs + g["length"]) % ring]
    body = body.at[ar, hs].set(jnp.where(moved, nh, body[ar, hs]).astype(body.dtype))
    mv8, mv16 = moved.astype(jnp.int8), moved.astype(jnp.int16)
    occ = g["occ"].at[ar, oh].add(mv8).at[ar, ot].add(-mv8)
    cc = g["cell_count"].at[oh].add(mv16).at[ot].add(-mv16)
    health = g["health"] - moved
    cause, by, et = g["cause"], g["by"], g["elim_turn"]
    # Hazard damage, once per stacked hazard (food on the square cancels it).
    for c in range(cfg.hazard_stack):
        cnt = g["hazards"][nh]
        hit = moved & (cnt > c) & ~g["food"][nh]
        hv = jnp.clip(health - p.damage, 0, _MAX_HEALTH)
        # Go's int64 wrap of health - damage (see _device_params).
        hv = jnp.where(health < p.heal_below, _MAX_HEALTH, hv)
        hv = jnp.where(health > p.kill_above, 0, hv)
        health = jnp.where(hit, hv, health)
        die = hit & (hv <= 0)
        cause = jnp.where(die, _HAZARD, cause).astype(jnp.int8)
        by = jnp.where(die, -1, by).astype(jnp.int8)
        et = jnp.where(die, t1, et)
    g1: Game = {
        **g,
        "body": body,
        "head_slot": hs,
        "head": nh,
        "occ": occ,
        "cell_count": cc,
        "health": health,
        "cause": cause,
        "by": by,
        "elim_turn": et,
        "error": g["error"] | jnp.where(bad, _ERR_ACTION, 0),
    }
    g1 = _feed(g1, moved & g["food"][nh], cfg)
    health, cause, by, et, occ = g1["health"], g1["cause"], g1["by"], g1["elim_turn"], g1["occ"]
    # Elimination: out of health, then off the board.
    ok = moved & (cause == 0)
    starved = ok & (health <= 0)
    off = ~tb.on_board[nh]
    if cfg.offboard:
        off |= ((occ > 0) & ~tb.on_board[None, :]).any(axis=1)
    walled = ok & ~starved & off
    gone = starved | walled
    cause = jnp.where(starved, _HEALTH, jnp.where(walled, _WALL, cause)).astype(jnp.int8)
    by = jnp.where(gone, -1, by).astype(jnp.int8)
    et = jnp.where(gone, t1, et)
    # Collisions, judged on the snakes alive now; longest first, ties in board order.
    alive = cause == 0
    eye = jnp.eye(ns, dtype=jnp.bool_)
    shared = (nh[:, None] == nh[None, :]) & alive[None, :] & ~eye
    cand = alive & ((g1["cell_count"][nh] > 0) | shared.any(axis=1))
    hits = (occ[:, nh].T > 0) & alive[None, :]  # hits[i, o]: i's head on o's body[1:]
    selfhit = hits[ar, ar]
    hits &= ~eye
    key = g1["length"] * 16 + 15 - ar
    body_by = jnp.argmax(jnp.where(hits, key[None, :], -1), axis=1)
    bodyhit = hits.any(axis=1) & ~selfhit
    same = shared & (g1["length"][:, None] <= g1["length"][None, :])
    head_by = jnp.argmax(jnp.where(same, key[None, :], -1), axis=1)
    headhit = same.any(axis=1) & ~selfhit & ~bodyhit
    dead = cand & (selfhit | bodyhit | headhit)
    new_cause = jnp.where(selfhit, _SELF, jnp.where(bodyhit, _SNAKE, _HEAD))
    new_by = jnp.where(selfhit, ar, jnp.where(bodyhit, body_by, head_by))
    cause = jnp.where(dead, new_cause, cause).astype(jnp.int8)
    by = jnp.where(dead, new_by, by).astype(jnp.int8)
    et = jnp.where(dead, t1, et)
    # The snakes eliminated this turn leave the cell counts.
    died = moved & (cause != 0)
    cc = g1["cell_count"] - (occ * died[:, None]).sum(axis=0).astype(jnp.int16)
    g2: Game = {**g1, "cause": cause, "by": by, "elim_turn": et, "cell_count": cc}
    if cfg.constrictor:
        g2 = _constrict(g2, cfg)
    if cfg.royale:
        started = t1 >= p.shrink
        k = jnp.minimum(t1 // jnp.maximum(p.shrink, 1), cfg.kmax)
        z = g2["zone"][k]
        inside = (tb.cell_x >= z[0]) & (tb.cell_x <= z[1]) & (tb.cell_y >= z[2])
        inside &= tb.cell_y <= z[3]
        zone = (started & tb.on_board & ~inside).astype(jnp.int8)
        if cfg.zone_waits:
            zone = jnp.where(started, zone, g2["hazards"])
        g2 = {**g2, "hazards": zone}
    if cfg.spawns:
        g2 = _spawn(g2, p, tb, stamp, cfg)
    g2 = {**g2, "turn": t1}
    done, winner = _over(g2["cause"], cfg)
    final_turn = jnp.where(done, t1, 0)
    if not cfg.reset:
        g2 = {**g2, "over": done}
    # A finished game (without auto-reset) is left as it is.
    was = g["over"]
    g2 = jax.tree.map(lambda a, b: jnp.where(was, a, b), g, g2)
    return g2, done & ~was, jnp.where(was, -1, winner), jnp.where(was, 0, final_turn)


def _reset_game(g: Game, tb: Tables, cfg: Config) -> Game:
    """The next episode in a finished game's slot (auto-reset)."""
    lo, hi = _next_seed(g["seed_lo"], g["seed_hi"])
    fresh = _setup({**g, "seed_lo": lo, "seed_hi": hi}, tb, cfg)
    return {**fresh, "episode": g["episode"] + 1, "over": _over(fresh["cause"], cfg)[0]}


def _reset_done(games: Game, done: jax.Array, tb: Tables, cfg: Config) -> Game:
    """Auto-reset the ``done`` games.

    A step finishes few games (about 1% on 11x11), so up to ``cfg.reset_room`` of them
    are gathered and set up alone; a setup of every game, kept where done, costs as
    much as the turn itself and is the fallback when more finish at once.
    """
    batch = done.shape[0]
    setup = jax.vmap(partial(_reset_game, tb=tb, cfg=cfg))

    def few(gs: Game) -> Game:
        idx = jnp.nonzero(done, size=cfg.reset_room, fill_value=batch)[0]
        fresh = setup(jax.tree.map(lambda a: a[jnp.minimum(idx, batch - 1)], gs))
        out: Game = jax.tree.map(lambda a, f: a.at[idx].set(f, mode="drop"), gs, fresh)
        return out

    def every(gs: Game) -> Game:
        fresh = setup(gs)

        def pick(f: jax.Array, a: jax.Array) -> jax.Array:
            return jnp.where(done.reshape((batch,) + (1,) * (a.ndim - 1)), f, a)

        out: Game = jax.tree.map(pick, fresh, gs)
        return out

    out: Game = jax.lax.cond(done.sum() <= cfg.reset_room, few, every, games)
    return out


# The games are donated: the step updates them in place instead of holding two copies
# of the batch on the device.
@partial(jax.jit, static_argnames=("cfg",), donate_argnums=(0,))
def _step_batch(
    games: Game, act: jax.Array, p: Params, tb: Tables, stamp: jax.Array, cfg: Config
) -> tuple[Game, jax.Array, jax.Array, jax.Array, jax.Array]:
    step = jax.vmap(partial(_game_step, cfg=cfg), in_axes=(0, 0, 0, None, None))
    games, done, winner, final_turn = step(games, act, p, tb, stamp)
    if cfg.reset:
        games = _reset_done(games, done, tb, cfg)
    won = done & (winner >= 0)
    ns = act.shape[1]
    rewards = jnp.where(
        won[:, None], jnp.where(jnp.arange(ns)[None, :] == winner[:, None], 1.0, -1.0), 0.0
    ).astype(jnp.float32)
    return games, done, winner, rewards, final_turn


def _game_safe_actions(g: Game, key: jax.Array, tb: Tables) -> jax.Array:
    """One game's random safe moves (``BatchSim.safe_action_mask``'s safety), any if none."""
    alive = g["cause"] == 0
    ns = g["head"].shape[0]
    ar = jnp.arange(ns)
    ring = g["body"].shape[1]
    tails = g["body"][ar, (g["head_slot"] + g["length"] - 1) % ring].astype(jnp.int32)
    a16 = alive.astype(jnp.int16)
    blocked = g["cell_count"].at[g["head"]].add(a16).at[tails].add(-a16)
    nxt = tb.nbr[g["head"]]
    safe = tb.on_board[nxt] & (blocked[nxt] <= 0) & alive[:, None]
    keys = jax.random.uniform(key, safe.shape) + safe
    return jnp.argmax(keys, axis=1).astype(jnp.int32)


@jax.jit
def _safe_batch(games: Game, key: jax.Array, tb: Tables) -> jax.Array:
    keys = jax.random.split(key, games["head"].shape[0])
    return jax.vmap(_game_safe_actions, in_axes=(0, 0, None))(games, keys, tb)


# -- the simulator --------------------------------------------------------------------


class _Synced:
    """One of the simulator's arrays, as the host sees it (see the module docstring)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, obj: JaxBatchSim | None, objtype: type | None = None) -> Any:
        if obj is None:
            return self
        if obj._dev is None:
            return obj._host[self.name]
        got = obj._cache.get(self.name)
        if got is None:
            if not obj._cache:
                obj._check_errors()  # the first read after a step reports its errors
            got = obj._pull_one(self.name)
            got.flags.writeable = False
            obj._cache[self.name] = got
        return got

    def __set__(self, obj: JaxBatchSim, value: Any) -> None:
        obj._to_host()
        obj._host[self.name] = value


STATE = STATE_ARRAYS
"""The arrays of :class:`BatchSim` that live on the device between steps."""


class _Lazy:
    """A :class:`JaxStepResult` array, pulled from the device on first read."""

    def __init__(self, name: str, dtype: type) -> None:
        self.name, self.dtype = name, dtype

    def __get__(self, obj: JaxStepResult | None, objtype: type | None = None) -> Any:
        if obj is None:
            return self
        return obj._get(self.name, self.dtype)

    def __set__(self, obj: JaxStepResult, value: Any) -> None:
        obj._read[self.name] = value


class JaxStepResult(StepResult):
    """A :class:`StepResult` whose arrays stay on the device until read."""

    __slots__ = ("_dev", "_owner", "_read")

    def __init__(self, owner: JaxBatchSim, dev: dict[str, jax.Array]) -> None:
        self._owner = owner
        self._dev = dev
        self._read: dict[str, Any] = {}
        self.final_states = {}

    def _get(self, name: str, dtype: type) -> Any:
        got = self._read.get(name)
        if got is None:
            self._owner._check_errors()
            got = np.asarray(self._dev[name]).astype(dtype)
            self._read[name] = got
        return got

    def device_arrays(self) -> dict[str, jax.Array]:
        """``done``, ``winner``, ``rewards`` and ``turns`` as device arrays (no copy)."""
        return dict(self._dev)


class JaxBatchSim(BatchSim):
    """:class:`BatchSim` with ``backend="jax"`` (what ``make_sim(..., backend="jax")`` builds).

    Same arguments and arrays; the arrays of :data:`STATE` are read from the device on
    access (read-only until the next step).  :attr:`games` gives the device pytree.

    Raises:
        InvalidStateError: for ``randomness="go"`` (the JAX backend plays ``"fast"`` only).
    """

    _dev: Game | None = None
    _params: Params | None = None
    _tables_dev: Tables | None = None

    on_device = True

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._host: dict[str, Any] = {}
        self._cache: dict[str, Any] = {}
        kwargs.setdefault("backend", "jax")
        super().__init__(*args, **kwargs)

    # -- host and device copies -----------------------------------------------------------

    @property
    def games(self) -> Game:
        """The games as device arrays (uploading them if the host copy is newer).

        Valid until the next step, which updates them in place (jax deletes these).
        """
        return self._push()

    def _push(self) -> Game:
        if self._dev is not None:
            return self._dev
        h = self._host
        stamp = h["food_stamp"]
        seeds = h["seeds"].astype(np.uint64)
        host = {
            "body": h["body"],
            "head_slot": h["head_slot"],
            "head": h["head"],
            "length": h["length"],
            "health": h["health"],
            "cause": h["cause"],
            "by": h["by"],
            "elim_turn": h["elim_turn"],
            "occ": h["occ"],
            "cell_count": h["cell_count"],
            "food": h["food"],
            "stamp_step": stamp // _STAMP_SCALE,
            "stamp_k": stamp % _STAMP_SCALE,
            "food_count": h["food_count"],
            "hazards": h["hazards"],
            "turn": h["turn"],
            "over": h["over"],
            "seed_lo": (seeds & np.uint64(0xFFFFFFFF)).astype(np.uint32),
            "seed_hi": (seeds >> np.uint64(32)).astype(np.uint32),
            "episode": h["episode"],
            "zone": h["zone"],
            "error": np.zeros(self.batch, np.int32),
        }
        if self._params is None:
            self._params = Params(
                *(
                    jnp.asarray(a)
                    for a in _device_params(
                        self.food_chance, self.min_food, self.damage, self.shrink, self.cells
                    )
                )
            )
        self._dev = {k: jnp.asarray(np.asarray(v).astype(FIELDS[k])) for k, v in host.items()}
        self._hazard_stack = max(int(self.royale), int(h["hazards"].max(initial=0)))
        self._cache = {}
        return self._dev

    def _pull_one(self, name: str) -> Any:
        assert self._dev is not None
        d = self._dev
        ref = self._host[name]
        if name == "food_stamp":
            step = np.asarray(d["stamp_step"]).astype(np.int64)
            return step * _STAMP_SCALE + np.asarray(d["stamp_k"])
        if name == "seeds":
            lo = np.asarray(d["seed_lo"]).astype(np.uint64)
            hi = np.asarray(d["seed_hi"]).astype(np.uint64)
            return ((hi << np.uint64(32)) | lo).view(np.int64)
        return np.asarray(d[name]).astype(ref.dtype)

    def _check_errors(self) -> None:
        if self._dev is None:
            return
        err = int(np.bitwise_or.reduce(np.asarray(self._dev["error"])))
        if err:
            # Reported once: the games can then be reset or restarted as on numpy.
            self._dev["error"] = jnp.zeros_like(self._dev["error"])
        if err & _ERR_ACTION:
            raise InvalidStateError("actions must be 0 (up), 1 (down), 2 (left) or 3 (right)")
        if err & _ERR_RING:
            raise StepError(f"a snake outgrew the ring buffer of {self.ring} segments")

    def _to_host(self) -> None:
        """Make the host arrays the games again (pulling them if the device has them)."""
        if self._dev is None:
            return
        self._check_errors()
        pulled = {name: self._pull_one(name) for name in STATE}
        self._host.update(pulled)
        self._dev = None
        self._cache = {}

    # The host-side writers: each works on the host copy.

    def _load(self, g: int, state: Any) -> None:
        self._to_host()
        super()._load(g, state)
        _check_int32_range(self, g)

    def _init_zone(self, g: int) -> None:
        self._to_host()
        super()._init_zone(g)

    def _reset_slots(self, slots: npt.NDArray[np.int64]) -> None:
        self._to_host()
        super()._reset_slots(slots)

    def restart(self, slots: Any) -> None:
        self._to_host()
        super().restart(slots)

    def reset(self, seeds: Any = None) -> None:
        self._to_host()
        super().reset(seeds)

    # -- the turn -------------------------------------------------------------------

    def _config(self) -> Config:
        host_reset = self.keep_final_states or self._fixed is None
        return Config(
            snakes=self.num_snakes,
            ring=self.ring,
            cells=self.cells,
            width=self.width,
            height=self.height,
            constrictor=self.constrictor,
            royale=self.royale,
            zone_waits=self._zone_waits,
            spawns=self.spawns,
            solo=self.solo_over,
            offboard=self._offboard_bodies,
            hazard_stack=self._hazard_stack,
            kmax=self._kmax,
            reset=self.auto_reset and not host_reset,
            # Finished games set up one by one per step (see _reset_done).
            reset_room=self.batch // 16 + 1,
            setup_food=self.num_snakes <= 4 or self.width * self.height >= 121,
            center=(self.height - 1) // 2 * self.pw + (self.width - 1) // 2 + self.pw + 1,
        )

    def _device_tables(self) -> Tables:
        if self._tables_dev is None:
            from snakewar.games.battlesnake.sim.core import _NO_FIXED

            start_cells, cand = self._fixed if self._fixed is not None else _NO_FIXED
            self._tables_dev = Tables(
                jnp.asarray(self.nbr.astype(np.int32)),
                jnp.asarray(self.on_board),
                jnp.asarray(self.cell_x.astype(np.int32)),
                jnp.asarray(self.cell_y.astype(np.int32)),
                jnp.asarray(self.offsets.astype(np.int32)),
                jnp.asarray(start_cells.astype(np.int32)),
                jnp.asarray(cand.astype(np.int32)),
            )
        return self._tables_dev

    def device_random_safe_actions(self, key: jax.Array) -> jax.Array:
        """``[B, S]`` random safe moves chosen on the device from ``jax.random`` ``key``.

        The moves :meth:`random_safe_actions` would choose among (not the same draws),
        without a copy to the host: for stepping loops that stay on the device.
        """
        out: jax.Array = _safe_batch(self._push(), key, self._device_tables())
        return out

    def step(self, actions: Any) -> StepResult:
        """Play one turn (see :meth:`BatchSim.step`); ``actions`` may be a device array.

        Device actions are checked on the device: the step is played with the moves
        clipped to 0..3 and ``InvalidStateError`` is raised when something is next read
        (a result array, a state array, or the next host-side reset).
        """
        b, s = self.batch, self.num_snakes
        if isinstance(actions, jax.Array):
            act = actions
            if act.shape != (b, s):
                raise InvalidStateError(f"actions shape {act.shape} (expected {(b, s)})")
            act = act.astype(jnp.int32)
        else:
            host = np.asarray(actions)
            if host.shape != (b, s):
                raise InvalidStateError(f"actions shape {host.shape} (expected {(b, s)})")
            if host.size and (host.min() < 0 or host.max() > 3):
                raise InvalidStateError("actions must be 0 (up), 1 (down), 2 (left) or 3 (right)")
            act = jnp.asarray(host.astype(np.int32))
        games = self._push()
        cfg = self._config()
        stamp = jnp.int32(self._stamp)
        if self.spawns:
            self._stamp += 1
        assert self._params is not None
        games, done, winner, rewards, turns = _step_batch(
            games, act, self._params, self._device_tables(), stamp, cfg
        )
        self._dev = games
        self._cache = {}
        if cfg.reset or not (self.auto_reset or self.keep_final_states):
            dev = {"done": done, "winner": winner, "rewards": rewards, "turns": turns}
            return JaxStepResult(self, dev)
        # Resets (or final states) outside the kernel: through the host.
        self._check_errors()
        done_h = np.asarray(done).astype(np.bool_)
        winner_h = np.asarray(winner).astype(np.int64)
        if done_h.any():
            self._to_host()
        return self._results(done_h, winner_h)


def _install_descriptors() -> None:
    # Set after the class bodies so that the base classes' attributes of the same names
    # (plain arrays there) are not redeclared with another type.
    for name in STATE:
        setattr(JaxBatchSim, name, _Synced(name))
    results = (("done", np.bool_), ("winner", np.int64), ("rewards", np.float32))
    for name, dtype in (*results, ("turns", np.int64)):
        setattr(JaxStepResult, name, _Lazy(name, dtype))


_install_descriptors()
