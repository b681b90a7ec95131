"""The numba backend of :class:`~snakewar.games.battlesnake.sim.BatchSim`: a compiled pass a step.

Imported only when numba is (``pip install snakewar[sim]``).  :func:`step_games`
plays one turn of every unfinished game on the same arrays the numpy backend keeps,
game by game instead of stage by stage: each game's snakes move, take hazard damage,
eat, are eliminated, then constrictor growth, the royale zone and food spawning
follow, and the game-over test.  The games are split into chunks run in parallel
(``prange``); a chunk owns its scratch arrays, so a game's result never depends on
which thread plays it.

Randomness is the same as the numpy backend's, draw for draw: ``go`` runs Go's
``math/rand`` source (seeded with ``seed + turn``, as the rules engine does) ported
here with its words computed on demand (see :mod:`snakewar.games.battlesnake.rules.rng`); ``fast``
uses the counter hash of :mod:`snakewar.games.battlesnake.sim.counter`.  Auto-resets of fast
games on the fixed start squares (square boards from 7x7) run here too, draw for draw as the
numpy setup; every other setup stays in the shared numpy code.

``cache=True`` keeps the compiled code in ``__pycache__``, so a process after the
first loads it instead of compiling (seconds).
"""

from __future__ import annotations

import numba
import numpy as np
from numba import prange

from snakewar.games.battlesnake.rules._gocooked import RNG_COOKED
from snakewar.games.battlesnake.rules.rng import _PM_POW
from snakewar.games.battlesnake.sim import counter

__all__ = ["GO_COOKED", "GO_POW", "step_games"]

GO_COOKED = np.array(RNG_COOKED, dtype=np.uint64)
"""Go's seeding constants, as an array for the kernel."""
GO_POW = np.array(_PM_POW, dtype=np.int64)
"""``48271**k mod (2**31 - 1)``: Go's seeding multipliers."""

_SNAKE, _SELF, _HEALTH, _HEAD, _WALL, _HAZARD = 1, 2, 3, 4, 5, 6
_MAX_HEALTH = 100
_INT32_MAX = 2147483647
_LEN = 607
_TAP = 273
_M32 = np.uint64(0xFFFFFFFF)
_CHANCE = counter.CHANCE
_SPAWN = counter.SPAWN
_MASK63 = np.uint64((1 << 63) - 1)

# Config vector indices (see BatchSim._step_numba).
(
    C_CONSTRICTOR,
    C_ROYALE,
    C_SPAWNS,
    C_SOLO,
    C_GO,
    C_OFFBOARD,
    C_KMAX,
    C_STAMP0,
    C_RESET,
    C_WIDTH,
    C_HEIGHT,
    C_SETUP_FOOD,
    C_CENTER,
    C_HAZARDS,
) = range(14)
CONFIG_SIZE = 14
_SETUP = counter.SETUP
_ZONE = counter.ZONE
_SEED_MUL = np.uint64(6364136223846793005)
_SEED_ADD = np.uint64(1442695040888963407)

_jit = numba.njit(cache=True, nogil=True)
# Helpers that take arrays are inlined into the chunk loop: a compiled call that passes
# arrays updates each one's reference count, which cost more than the work itself.
_inline = numba.njit(cache=True, nogil=True, inline="always")
# The per-game loop is compiled without numba's reference counting.  Even inlined, each
# helper's array arguments were counted in and out once per game, and the count is an
# atomic add: profiled (perf, cpu-clock), 46% of the kernel's time went to NRT_incref and
# NRT_decref.  Without it these functions may not allocate, so their callers hand them
# scratch arrays.  ``_nrt`` is numba's own switch (its jit options, since 0.2x), absent
# from its type stubs.
_bare = numba.njit(cache=True, nogil=True, _nrt=False)  # type: ignore[call-overload]


# -- counter hash (snakewar.games.battlesnake.sim.counter's spec) ---------------------------


@_jit
def _mix(x: np.uint64) -> np.uint64:
    x = x ^ (x >> np.uint64(16))
    x = (x * np.uint64(0x7FEB352D)) & _M32
    x = x ^ (x >> np.uint64(15))
    x = (x * np.uint64(0x846CA68B)) & _M32
    return x ^ (x >> np.uint64(16))


@_jit
def _uniform(n: int, seed: int, turn: int, purpose: int, index: int) -> int:
    s = np.uint64(seed)
    h = _mix(((s & _M32) + np.uint64(0x9E3779B9)) & _M32)
    h = _mix(h ^ (s >> np.uint64(32)))
    h = _mix(h ^ (np.uint64(turn) & _M32))
    h = _mix(h ^ np.uint64(purpose))
    h = _mix(h ^ (np.uint64(index) & _M32))
    return int((h * np.uint64(n)) >> np.uint64(32))


# -- Go's math/rand, seeded with seed + turn -----------------------------------------
# State: vec[607] words, stamp[607] (a word is written by this source when its stamp is
# the current generation, so a new source costs no clearing) and st = (tap, feed, gen,
# reduced seed).


@_inline
def _go_word(s: int, i: int, pw: np.ndarray, cooked: np.ndarray) -> np.uint64:
    k = 21 + 3 * i
    u = np.uint64((s * pw[k]) % _INT32_MAX) << np.uint64(40)
    u ^= np.uint64((s * pw[k + 1]) % _INT32_MAX) << np.uint64(20)
    u ^= np.uint64((s * pw[k + 2]) % _INT32_MAX)
    out: np.uint64 = u ^ cooked[i]
    return out


@_inline
def _go_seed(seed: int, st: np.ndarray) -> None:
    s = seed % _INT32_MAX  # floor modulo: Go's remainder folded into [0, 2**31 - 1)
    if s == 0:
        s = 89482311
    st[0] = 0
    st[1] = _LEN - _TAP
    st[2] += 1
    st[3] = s


@_inline
def _go_uint64(
    st: np.ndarray, vec: np.ndarray, stamp: np.ndarray, pw: np.ndarray, cooked: np.ndarray
) -> np.uint64:
    tap = st[0] - 1
    if tap < 0:
        tap += _LEN
    feed = st[1] - 1
    if feed < 0:
        feed += _LEN
    st[0] = tap
    st[1] = feed
    gen = st[2]
    s = st[3]
    a = vec[feed] if stamp[feed] == gen else _go_word(s, feed, pw, cooked)
    b = vec[tap] if stamp[tap] == gen else _go_word(s, tap, pw, cooked)
    x = a + b
    vec[feed] = x
    stamp[feed] = gen
    return x


@_inline
def _go_int31n(
    n: int,
    st: np.ndarray,
    vec: np.ndarray,
    stamp: np.ndarray,
    pw: np.ndarray,
    cooked: np.ndarray,
) -> int:
    if n & (n - 1) == 0:
        return int((_go_uint64(st, vec, stamp, pw, cooked) & _MASK63) >> np.uint64(32)) & (n - 1)
    limit = _INT32_MAX - (1 << 31) % n
    v = int((_go_uint64(st, vec, stamp, pw, cooked) & _MASK63) >> np.uint64(32))
    while v > limit:
        v = int((_go_uint64(st, vec, stamp, pw, cooked) & _MASK63) >> np.uint64(32))
    return v % n


@_inline
def _go_fast_int31n(
    n: int,
    st: np.ndarray,
    vec: np.ndarray,
    stamp: np.ndarray,
    pw: np.ndarray,
    cooked: np.ndarray,
) -> int:
    # Go's unexported int31n (Lemire), which Shuffle uses.
    nn = np.uint64(n)
    prod = ((_go_uint64(st, vec, stamp, pw, cooked) & _MASK63) >> np.uint64(31)) * nn
    low = prod & _M32
    if low < nn:
        thresh = (np.uint64(1 << 32) - nn) % nn
        while low < thresh:
            prod = ((_go_uint64(st, vec, stamp, pw, cooked) & _MASK63) >> np.uint64(31)) * nn
            low = prod & _M32
    return int(prod >> np.uint64(32))


# -- one game's turn ------------------------------------------------------------------


@_jit
def _wrap(x: int, ring: int) -> int:
    # A ring-buffer index from -ring .. 2 * ring - 1: cheaper than a division.
    if x >= ring:
        return x - ring
    if x < 0:
        return x + ring
    return x


@_inline
def _feed(
    g: int,
    moved: np.ndarray,
    eat: np.ndarray,
    body: np.ndarray,
    head_slot: np.ndarray,
    head: np.ndarray,
    length: np.ndarray,
    health: np.ndarray,
    occ: np.ndarray,
    cc: np.ndarray,
    food: np.ndarray,
    food_count: np.ndarray,
) -> int:
    """Feeding of the ``moved`` snakes; 1 (changing nothing) if one would outgrow its ring.

    Each snake whose head is on food eats it (two heads may share one).
    """
    ns, ring = body.shape[1], body.shape[2]
    for i in range(ns):
        eat[i] = moved[i] and food[g, head[g, i]]
        if eat[i] and length[g, i] + 1 >= ring:
            return 1
    for i in range(ns):
        if not eat[i]:
            continue
        n = length[g, i]
        sl = head_slot[g, i]
        tail = body[g, i, _wrap(sl + n - 1, ring)]
        body[g, i, _wrap(sl + n, ring)] = tail
        occ[g, i, tail] += 1
        cc[g, tail] += 1
        length[g, i] = n + 1
        health[g, i] = _MAX_HEALTH
    for i in range(ns):
        if eat[i] and food[g, head[g, i]]:
            food[g, head[g, i]] = False
            food_count[g] -= 1
    return 0


@_inline
def _constrict(
    g: int,
    body: np.ndarray,
    head_slot: np.ndarray,
    length: np.ndarray,
    health: np.ndarray,
    cause: np.ndarray,
    occ: np.ndarray,
    cc: np.ndarray,
    food: np.ndarray,
    food_count: np.ndarray,
) -> int:
    """Constrictor's stage; 1 (changing nothing) if a snake would outgrow its ring.

    No food; every snake gets full health and grows unless its tail is stacked.
    """
    ns, ring = body.shape[1], body.shape[2]
    for i in range(ns):
        n = length[g, i]
        sl = head_slot[g, i]
        stacked = (
            n >= 2 and body[g, i, _wrap(sl + n - 1, ring)] == body[g, i, _wrap(sl + n - 2, ring)]
        )
        if not stacked and n + 1 >= ring:
            return 1
    food[g, :] = False
    food_count[g] = 0
    for i in range(ns):
        health[g, i] = _MAX_HEALTH
        n = length[g, i]
        sl = head_slot[g, i]
        tail = body[g, i, _wrap(sl + n - 1, ring)]
        if n >= 2 and tail == body[g, i, _wrap(sl + n - 2, ring)]:
            continue
        body[g, i, _wrap(sl + n, ring)] = tail
        occ[g, i, tail] += 1
        if cause[g, i] == 0:
            cc[g, tail] += 1
        length[g, i] = n + 1
    return 0


@_bare
def _fixed_setup(
    g: int,
    body: np.ndarray,
    head_slot: np.ndarray,
    head: np.ndarray,
    length: np.ndarray,
    health: np.ndarray,
    cause: np.ndarray,
    by: np.ndarray,
    elim_turn: np.ndarray,
    occ: np.ndarray,
    cc: np.ndarray,
    food: np.ndarray,
    food_stamp: np.ndarray,
    food_count: np.ndarray,
    hazards: np.ndarray,
    turn: np.ndarray,
    zone: np.ndarray,
    seeds: np.ndarray,
    start_cells: np.ndarray,
    cand: np.ndarray,
    cfg: np.ndarray,
    moved: np.ndarray,
    eat: np.ndarray,
    order: np.ndarray,
    chosen: np.ndarray,
) -> int:
    """A new fast-mode game in slot ``g`` on a square board from 7x7.

    The numpy backend's ``_fast_fixed_setup`` and initialization call, draw for draw.
    ``moved``, ``eat``, ``order`` (8) and ``chosen`` (one per snake) are scratch.
    """
    ns = body.shape[1]
    seed = seeds[g]
    for i in range(8):
        order[i] = i
    # Fisher-Yates of the corners (draws 0-2) and the edge midpoints (draws 3-5).
    for first in range(2):
        base = 4 * first
        for i in range(3, 0, -1):
            j = _uniform(i + 1, seed, 0, _SETUP, 3 * first + 3 - i)
            order[base + i], order[base + j] = order[base + j], order[base + i]
    if _uniform(2, seed, 0, _SETUP, 6) != 0:  # edge midpoints first
        for i in range(4):
            order[i], order[i + 4] = order[i + 4], order[i]
    body[g, :, :] = 0
    occ[g, :, :] = 0
    cc[g, :] = 0
    food[g, :] = False
    food_stamp[g, :] = 0
    hazards[g, :] = 0
    for i in range(ns):
        c = start_cells[order[i]]
        body[g, i, 0] = c
        body[g, i, 1] = c
        body[g, i, 2] = c
        head_slot[g, i] = 0
        head[g, i] = c
        length[g, i] = 3
        health[g, i] = _MAX_HEALTH
        cause[g, i] = 0
        by[g, i] = -1
        elim_turn[g, i] = 0
        occ[g, i, c] = 2
        cc[g, c] += 2
    turn[g] = 0
    if cfg[C_ROYALE]:
        x0, x1, y0, y1 = 0, cfg[C_WIDTH] - 1, 0, cfg[C_HEIGHT] - 1
        zone[g, 0, 0], zone[g, 0, 1], zone[g, 0, 2], zone[g, 0, 3] = x0, x1, y0, y1
        for r in range(cfg[C_KMAX]):
            side = _uniform(4, seed, 0, _ZONE, r)
            if side == 0:
                x0 += 1
            elif side == 1:
                x1 -= 1
            elif side == 2:
                y0 += 1
            else:
                y1 -= 1
            zone[g, r + 1, 0], zone[g, r + 1, 1] = x0, x1
            zone[g, r + 1, 2], zone[g, r + 1, 3] = y0, y1
    if cfg[C_SPAWNS]:
        if cfg[C_SETUP_FOOD]:
            for i in range(ns):
                k = 0
                for q in range(4):
                    c = cand[order[i], q]
                    if c >= 0 and not _among(c, chosen, i):
                        k += 1
                r = _uniform(max(k, 1), seed, 0, _SETUP, 7 + i)
                pick = cand[order[i], 0]  # none available: as numpy's argmax of nothing
                for q in range(4):
                    c = cand[order[i], q]
                    if c >= 0 and not _among(c, chosen, i):
                        if r == 0:
                            pick = c
                            break
                        r -= 1
                chosen[i] = pick
            for i in range(ns):
                food[g, chosen[i]] = True
                food_stamp[g, chosen[i]] = i
        food[g, cfg[C_CENTER]] = True
        food_stamp[g, cfg[C_CENTER]] = ns
    count = 0
    for c in range(food.shape[1]):
        if food[g, c]:
            count += 1
    food_count[g] = count
    # The ruleset's initialization call: feeding, then constrictor's stages.
    for i in range(ns):
        moved[i] = True
    if _feed(g, moved, eat, body, head_slot, head, length, health, occ, cc, food, food_count):
        return 1
    if cfg[C_CONSTRICTOR] and _constrict(
        g, body, head_slot, length, health, cause, occ, cc, food, food_count
    ):
        return 1
    return 0


@_jit
def _among(c: int, chosen: np.ndarray, n: int) -> bool:
    for k in range(n):  # noqa: SIM110 (a plain loop compiles; a generator does not)
        if chosen[k] == c:
            return True
    return False


@_inline
def _mark_heads(
    g: int, head: np.ndarray, cause: np.ndarray, offsets: np.ndarray, mark: np.ndarray, value: bool
) -> None:
    """Set ``mark`` to ``value`` at and next to every alive head of game ``g``."""
    for i in range(head.shape[1]):
        if cause[g, i] == 0:
            h = head[g, i]
            mark[h] = value
            for d in range(4):
                mark[h + offsets[d]] = value


@_inline
def _free(
    g: int, c: int, on_board: np.ndarray, cc: np.ndarray, food: np.ndarray, mark: np.ndarray
) -> int:
    """1 if square ``c`` of game ``g`` can get food: on the board, empty, not ``mark``-ed."""
    free: int = on_board[c] & (cc[g, c] <= 0) & (not food[g, c]) & (not mark[c])
    return free


@_inline
def _spawn(
    g: int,
    head: np.ndarray,
    cause: np.ndarray,
    cc: np.ndarray,
    food: np.ndarray,
    food_stamp: np.ndarray,
    food_count: np.ndarray,
    turn: np.ndarray,
    seeds: np.ndarray,
    food_chance: np.ndarray,
    min_food: np.ndarray,
    on_board: np.ndarray,
    offsets: np.ndarray,
    order: np.ndarray,
    pw: np.ndarray,
    cooked: np.ndarray,
    cfg: np.ndarray,
    mark: np.ndarray,
    cells: np.ndarray,
    vec: np.ndarray,
    stamp: np.ndarray,
    st: np.ndarray,
) -> None:
    go = cfg[C_GO] != 0
    count, minf, chance = food_count[g], min_food[g], food_chance[g]
    t = turn[g]
    if go:
        _go_seed(seeds[g] + t, st)  # int64 addition wraps, as wrap_int64 does
    howmany = 0
    if count < minf:
        howmany = minf - count
    elif chance > 0:
        if go:
            u = _go_int31n(100, st, vec, stamp, pw, cooked)
        else:
            u = _uniform(100, seeds[g], t, _CHANCE, 0)
        if 100 - u < chance:
            howmany = 1
    if howmany <= 0:
        return
    # Free squares: on the board, no food, no alive segment, not next to an alive head.
    ncell = cc.shape[1]
    stamp0 = cfg[C_STAMP0]
    if not go:
        # ``mark`` flags the squares at and next to the alive heads; it is cleared after.
        _mark_heads(g, head, cause, offsets, mark, True)
        # Count the free squares (a loop without stores, which the compiler vectorizes),
        # then find the uniform(m)-th one in cell order (counter.py).  A square given food
        # stops being free, so the next draw's scan skips it as the list would.
        m = 0
        for c in range(ncell):
            m += _free(g, c, on_board, cc, food, mark)
        for k in range(howmany):
            if m == 0:
                break
            j = _uniform(m, seeds[g], t, _SPAWN, k)
            c = 0
            while True:
                j -= _free(g, c, on_board, cc, food, mark)
                if j < 0:
                    break
                c += 1
            m -= 1
            food[g, c] = True
            food_stamp[g, c] = stamp0 + k
            food_count[g] += 1
        _mark_heads(g, head, cause, offsets, mark, False)
        return
    # Go mode: ``mark`` is rewritten whole (a simulator's mode is fixed).
    for c in range(ncell):
        mark[c] = on_board[c] & (cc[g, c] <= 0) & (not food[g, c])
    _mark_heads(g, head, cause, offsets, mark, False)
    m = 0
    for c in order:
        if mark[c]:
            cells[m] = c
            m += 1
    # Go's Shuffle of the x-major list; the first howmany squares get food.
    for i in range(m - 1, 0, -1):
        j = _go_fast_int31n(i + 1, st, vec, stamp, pw, cooked)
        cells[i], cells[j] = cells[j], cells[i]
    placed = min(howmany, m)
    for k in range(placed):
        food[g, cells[k]] = True
        food_stamp[g, cells[k]] = stamp0 + k
    food_count[g] += placed


@_inline
def _head_shared(g: int, i: int, h: int, head: np.ndarray, alive: np.ndarray) -> bool:
    for o in range(head.shape[1]):  # noqa: SIM110 (a plain loop compiles)
        if o != i and alive[o] and head[g, o] == h:
            return True
    return False


@_inline
def _game_over(g: int, cause: np.ndarray, cfg: np.ndarray) -> int:
    """-2 if game ``g`` goes on, else the winner's index (-1 for none)."""
    left = 0
    last = -1
    for i in range(cause.shape[1]):
        if cause[g, i] == 0:
            left += 1
            last = i
    if left == 0 or (left == 1 and not cfg[C_SOLO]):
        return last if left == 1 else -1
    return -2


@_bare
def _run_chunk(
    ci: int,
    chunks: int,
    act: np.ndarray,
    over: np.ndarray,
    body: np.ndarray,
    head_slot: np.ndarray,
    head: np.ndarray,
    length: np.ndarray,
    health: np.ndarray,
    cause: np.ndarray,
    by: np.ndarray,
    elim_turn: np.ndarray,
    occ: np.ndarray,
    cc: np.ndarray,
    food: np.ndarray,
    food_stamp: np.ndarray,
    food_count: np.ndarray,
    hazards: np.ndarray,
    turn: np.ndarray,
    zone: np.ndarray,
    seeds: np.ndarray,
    food_chance: np.ndarray,
    min_food: np.ndarray,
    damage: np.ndarray,
    shrink: np.ndarray,
    nbr: np.ndarray,
    on_board: np.ndarray,
    cell_x: np.ndarray,
    cell_y: np.ndarray,
    offsets: np.ndarray,
    order: np.ndarray,
    pw: np.ndarray,
    cooked: np.ndarray,
    cfg: np.ndarray,
    winner: np.ndarray,
    done: np.ndarray,
    start_cells: np.ndarray,
    cand: np.ndarray,
    episode: np.ndarray,
    final_turn: np.ndarray,
    flags: np.ndarray,
    scratch: np.ndarray,
    mark: np.ndarray,
    vec: np.ndarray,
    stamp: np.ndarray,
) -> int:
    """Step the games of chunk ``ci`` of ``chunks``; returns the number of errors.

    The last five arrays are the chunk's own scratch, allocated by its caller:
    ``flags`` (3, snakes) bool, ``scratch`` (6, max(cells, 8)) int64, ``mark`` (cells)
    bool and all False, and Go's source state ``vec`` and ``stamp`` (607), stamps zero.
    """
    nb = act.shape[0]
    ns = act.shape[1]
    ncell = cc.shape[1]
    ring = body.shape[2]
    lo = ci * nb // chunks
    hi = (ci + 1) * nb // chunks
    moved = flags[0]
    alive = flags[1]
    eat = flags[2]
    ncause = scratch[0]
    nby = scratch[1]
    cells = scratch[2]
    st = scratch[3]
    order8 = scratch[4]
    chosen = scratch[5]
    # Read once: cfg is an int64 array like the state, so the compiler, unable to rule
    # out that a store to the state changes it, would otherwise load it again per game.
    constrictor = cfg[C_CONSTRICTOR] != 0
    royale = cfg[C_ROYALE] != 0
    # 2: the royale map under another ruleset, which keeps the hazards until the first
    # shrink (the royale ruleset's stage replaces them every turn).
    zone_waits = cfg[C_ROYALE] == 2
    spawns = cfg[C_SPAWNS] != 0
    offboard = cfg[C_OFFBOARD] != 0
    reset = cfg[C_RESET] != 0
    any_hazards = cfg[C_HAZARDS] != 0
    kmax = cfg[C_KMAX]
    errors = 0
    for g in range(lo, hi):
        if over[g]:
            continue
        t1 = turn[g] + 1
        # Movement: the new head goes in the slot before the old head; the tail is dropped.
        for i in range(ns):
            moved[i] = cause[g, i] == 0
            if not moved[i]:
                continue
            oh = head[g, i]
            nh = nbr[oh, act[g, i]]
            hs = _wrap(head_slot[g, i] - 1, ring)
            head_slot[g, i] = hs
            ot = body[g, i, _wrap(hs + length[g, i], ring)]
            body[g, i, hs] = nh
            head[g, i] = nh
            occ[g, i, oh] += 1
            occ[g, i, ot] -= 1
            cc[g, oh] += 1
            cc[g, ot] -= 1
            health[g, i] = np.int64(np.uint64(health[g, i]) - np.uint64(1))  # wraps at -2**63
        # Hazard damage, once per stacked hazard (food on the square cancels it); skipped,
        # as by the numpy backend, while no game has had hazards (a cache line a snake).
        dmg = damage[g]
        for i in range(ns):
            if not any_hazards or not moved[i]:
                continue
            h = head[g, i]
            if hazards[g, h] > 0 and not food[g, h]:
                for _ in range(hazards[g, h]):
                    # Wraps as Go's int64 does, in uint64: a signed overflow may be
                    # optimised as impossible.
                    hv = int(np.int64(np.uint64(health[g, i]) - np.uint64(dmg)))
                    hv = min(max(hv, 0), _MAX_HEALTH)
                    health[g, i] = hv
                    if hv <= 0:
                        cause[g, i] = _HAZARD
                        by[g, i] = -1
                        elim_turn[g, i] = t1
        if _feed(g, moved, eat, body, head_slot, head, length, health, occ, cc, food, food_count):
            errors += 1
            continue
        # Elimination: out of health, then off the board.
        for i in range(ns):
            if not moved[i] or cause[g, i] != 0:
                continue
            if health[g, i] <= 0:
                cause[g, i] = _HEALTH
            else:
                off = not on_board[head[g, i]]
                if not off and offboard:
                    for c in range(ncell):
                        if occ[g, i, c] > 0 and not on_board[c]:
                            off = True
                            break
                if not off:
                    continue
                cause[g, i] = _WALL
            by[g, i] = -1
            elim_turn[g, i] = t1
        # Collisions, all judged on the snakes alive now.  Longest first, ties in board
        # order (Go's stable sort of at most 8 snakes).
        for i in range(ns):
            alive[i] = cause[g, i] == 0
        for i in range(ns):
            ncause[i] = 0
            if not alive[i]:
                continue
            h = head[g, i]
            if cc[g, h] <= 0 and not _head_shared(g, i, h, head, alive):
                continue  # on no body and no other head: the common case, decided fast
            if occ[g, i, h] > 0:
                ncause[i] = _SELF
                nby[i] = i
                continue
            best = -1
            best_key = -1
            for o in range(ns):
                if o != i and alive[o] and occ[g, o, h] > 0:
                    key = length[g, o] * 16 + 15 - o
                    if key > best_key:
                        best, best_key = o, key
            if best >= 0:
                ncause[i] = _SNAKE
                nby[i] = best
                continue
            for o in range(ns):
                if o != i and alive[o] and head[g, o] == h and length[g, i] <= length[g, o]:
                    key = length[g, o] * 16 + 15 - o
                    if key > best_key:
                        best, best_key = o, key
            if best >= 0:
                ncause[i] = _HEAD
                nby[i] = best
        for i in range(ns):
            if ncause[i] != 0:
                cause[g, i] = ncause[i]
                by[g, i] = nby[i]
                elim_turn[g, i] = t1
        # The snakes eliminated this turn leave the cell counts: occ counts the segments
        # after the head, so walking those costs a snake's length, not the board's size.
        for i in range(ns):
            if moved[i] and cause[g, i] != 0:
                sl = head_slot[g, i]
                for k in range(1, length[g, i]):
                    cc[g, body[g, i, _wrap(sl + k, ring)]] -= 1
        if constrictor and _constrict(
            g, body, head_slot, length, health, cause, occ, cc, food, food_count
        ):
            errors += 1
            continue
        if royale and (t1 >= shrink[g] or not zone_waits):
            started = t1 >= shrink[g]
            k = min(t1 // shrink[g], kmax)
            x0, x1, y0, y1 = zone[g, k, 0], zone[g, k, 1], zone[g, k, 2], zone[g, k, 3]
            for c in range(ncell):
                x, y = cell_x[c], cell_y[c]
                inside = x0 <= x <= x1 and y0 <= y <= y1
                hazards[g, c] = 1 if started and on_board[c] and not inside else 0
        if spawns:
            _spawn(
                g,
                head,
                cause,
                cc,
                food,
                food_stamp,
                food_count,
                turn,
                seeds,
                food_chance,
                min_food,
                on_board,
                offsets,
                order,
                pw,
                cooked,
                cfg,
                mark,
                cells,
                vec,
                stamp,
                st,
            )
        turn[g] = t1
        w = _game_over(g, cause, cfg)
        if w == -2:
            continue
        done[g] = True
        winner[g] = w
        final_turn[g] = turn[g]
        if not reset:
            over[g] = True
            continue
        # Auto-reset here: the next episode's seed, then a new game in the slot.
        seeds[g] = np.int64((np.uint64(seeds[g]) * _SEED_MUL + _SEED_ADD) >> np.uint64(1))
        episode[g] += 1
        if _fixed_setup(
            g,
            body,
            head_slot,
            head,
            length,
            health,
            cause,
            by,
            elim_turn,
            occ,
            cc,
            food,
            food_stamp,
            food_count,
            hazards,
            turn,
            zone,
            seeds,
            start_cells,
            cand,
            cfg,
            moved,
            eat,
            order8,
            chosen,
        ):
            errors += 1
        over[g] = _game_over(g, cause, cfg) != -2
    return errors


@_jit
def _bad_actions(act: np.ndarray) -> bool:
    # Checked here rather than with numpy's min and max: two passes and their calls
    # cost more than the whole step of a small batch.
    for g in range(act.shape[0]):
        for i in range(act.shape[1]):
            if act[g, i] < 0 or act[g, i] > 3:
                return True
    return False


# step_serial and step_parallel are the same loop (range / prange) written out twice on
# purpose: one function jitted with and without parallel=True would share one on-disk cache
# entry (numba's cache index is keyed by the function, its signature and the bytecode, not by
# the parallel flag), so one build could load the other's machine code.
@numba.njit(cache=True, nogil=True)
def step_serial(
    chunks: int,
    act: np.ndarray,
    over: np.ndarray,
    body: np.ndarray,
    head_slot: np.ndarray,
    head: np.ndarray,
    length: np.ndarray,
    health: np.ndarray,
    cause: np.ndarray,
    by: np.ndarray,
    elim_turn: np.ndarray,
    occ: np.ndarray,
    cc: np.ndarray,
    food: np.ndarray,
    food_stamp: np.ndarray,
    food_count: np.ndarray,
    hazards: np.ndarray,
    turn: np.ndarray,
    zone: np.ndarray,
    seeds: np.ndarray,
    food_chance: np.ndarray,
    min_food: np.ndarray,
    damage: np.ndarray,
    shrink: np.ndarray,
    nbr: np.ndarray,
    on_board: np.ndarray,
    cell_x: np.ndarray,
    cell_y: np.ndarray,
    offsets: np.ndarray,
    order: np.ndarray,
    pw: np.ndarray,
    cooked: np.ndarray,
    cfg: np.ndarray,
    winner: np.ndarray,
    done: np.ndarray,
    start_cells: np.ndarray,
    cand: np.ndarray,
    episode: np.ndarray,
    final_turn: np.ndarray,
) -> int:
    """Step every game in this thread (small batches: no thread launch); see step_games."""
    if _bad_actions(act):
        return -1
    errors = 0
    for ci in range(chunks):
        errors += _run_chunk(
            ci,
            chunks,
            act,
            over,
            body,
            head_slot,
            head,
            length,
            health,
            cause,
            by,
            elim_turn,
            occ,
            cc,
            food,
            food_stamp,
            food_count,
            hazards,
            turn,
            zone,
            seeds,
            food_chance,
            min_food,
            damage,
            shrink,
            nbr,
            on_board,
            cell_x,
            cell_y,
            offsets,
            order,
            pw,
            cooked,
            cfg,
            winner,
            done,
            start_cells,
            cand,
            episode,
            final_turn,
            np.empty((3, act.shape[1]), np.bool_),
            np.zeros((6, max(cc.shape[1], 8)), np.int64),
            np.zeros(cc.shape[1], np.bool_),
            np.empty(_LEN, np.uint64),
            np.zeros(_LEN, np.int64),
        )
    return errors


@numba.njit(cache=True, nogil=True, parallel=True)
def step_parallel(
    chunks: int,
    act: np.ndarray,
    over: np.ndarray,
    body: np.ndarray,
    head_slot: np.ndarray,
    head: np.ndarray,
    length: np.ndarray,
    health: np.ndarray,
    cause: np.ndarray,
    by: np.ndarray,
    elim_turn: np.ndarray,
    occ: np.ndarray,
    cc: np.ndarray,
    food: np.ndarray,
    food_stamp: np.ndarray,
    food_count: np.ndarray,
    hazards: np.ndarray,
    turn: np.ndarray,
    zone: np.ndarray,
    seeds: np.ndarray,
    food_chance: np.ndarray,
    min_food: np.ndarray,
    damage: np.ndarray,
    shrink: np.ndarray,
    nbr: np.ndarray,
    on_board: np.ndarray,
    cell_x: np.ndarray,
    cell_y: np.ndarray,
    offsets: np.ndarray,
    order: np.ndarray,
    pw: np.ndarray,
    cooked: np.ndarray,
    cfg: np.ndarray,
    winner: np.ndarray,
    done: np.ndarray,
    start_cells: np.ndarray,
    cand: np.ndarray,
    episode: np.ndarray,
    final_turn: np.ndarray,
) -> int:
    """Step the games in ``chunks`` chunks over numba's threads; see step_games."""
    if _bad_actions(act):
        return -1
    errors = 0
    for ci in prange(chunks):
        errors += _run_chunk(
            ci,
            chunks,
            act,
            over,
            body,
            head_slot,
            head,
            length,
            health,
            cause,
            by,
            elim_turn,
            occ,
            cc,
            food,
            food_stamp,
            food_count,
            hazards,
            turn,
            zone,
            seeds,
            food_chance,
            min_food,
            damage,
            shrink,
            nbr,
            on_board,
            cell_x,
            cell_y,
            offsets,
            order,
            pw,
            cooked,
            cfg,
            winner,
            done,
            start_cells,
            cand,
            episode,
            final_turn,
            np.empty((3, act.shape[1]), np.bool_),
            np.zeros((6, max(cc.shape[1], 8)), np.int64),
            np.zeros(cc.shape[1], np.bool_),
            np.empty(_LEN, np.uint64),
            np.zeros(_LEN, np.int64),
        )
    return errors


def step_games(chunks: int, *arrays: object) -> int:
    """Run the kernel over ``chunks`` chunks (1: serial, no thread launch).

    Returns the number of games whose snake outgrew its ring buffer, or -1 (having
    changed nothing) if an action is out of 0..3.
    """
    kernel = step_serial if chunks <= 1 else step_parallel
    errors: int = kernel(max(chunks, 1), *arrays)  # type: ignore[arg-type]
    return errors
