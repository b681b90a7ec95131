"""``greedy``: a solid Halite III miner that returns its cargo and never hits itself.

Each turn:

1. Ships that cannot pay their move cost stay (the engine would ignore the move anyway).
2. At most one ship far from every own structure, on a rich area, becomes a dropoff
   when the bot can pay for it.
3. A ship returns to the nearest own structure once its cargo reaches ``return_at``,
   and every ship with cargo heads home when the end of the game is near; on those
   last turns ships may crash onto an own structure (the cargo of ships wrecked on a
   structure goes to its owner, so nothing is lost).
4. Other ships mine: each picks the best cell within ``radius`` by ``halite / (d + 1)``
   (its own cell at ``d = 0``), cells already picked by another ship excluded.
5. Moves are resolved with reservations: a ship only enters a cell no own ship will be
   on, so the bot never collides with itself; cells that enemy ships stand on are
   avoided.
6. It spawns while the game is young enough, it can pay, the map still holds enough
   halite per ship and no own ship will be on the shipyard.

Every command is legal: one command per own ship at most, at most one ``g``, and the
spawn and dropoff costs never exceed the halite held at the start of the turn.
"""

from __future__ import annotations

from snakewar.games.halite3.bots.kit import GameView, HaliteBot, ShipView

__all__ = ["GreedyMiner"]

_ALL_DIRECTIONS = ("n", "s", "e", "w")


class GreedyMiner(HaliteBot):
    """A greedy miner/returner.

    Args:
        seed: the bot's random seed (used to break ties when wandering).
        return_at: cargo at which a ship heads home.
        spawn_until: spawn only before this percentage of ``MAX_TURNS``.
        radius: how far (Manhattan) a ship looks for a better cell.
        mine_min: cells below this are not worth mining; 0 picks it from the map's mean
            (0..100000).
        dropoffs: the most dropoffs the bot builds, 0..64 (0 turns them off).
        dropoff_distance: the least distance from own structures for a dropoff, 0..128;
            0 picks it from the map size.

    Raises:
        ValueError: an option outside its range, naming it and the range.
    """

    name = "greedy"

    def __init__(
        self,
        seed: int = 0,
        return_at: int = 900,
        spawn_until: int = 60,
        radius: int = 8,
        mine_min: int = 0,
        dropoffs: int = 2,
        dropoff_distance: int = 0,
    ) -> None:
        super().__init__(seed)
        if not 1 <= return_at <= 1000:
            raise ValueError(f"return_at must be 1..1000, got {return_at!r}")
        if not 0 <= spawn_until <= 100:
            raise ValueError(f"spawn_until must be 0..100, got {spawn_until!r}")
        if not 1 <= radius <= 32:
            raise ValueError(f"radius must be 1..32, got {radius!r}")
        # Every option has an upper bound too: option values come from requests.
        if not 0 <= mine_min <= 100_000:
            raise ValueError(f"mine_min must be 0..100000, got {mine_min!r}")
        if not 0 <= dropoffs <= 64:
            raise ValueError(f"dropoffs must be 0..64, got {dropoffs!r}")
        if not 0 <= dropoff_distance <= 128:
            raise ValueError(f"dropoff_distance must be 0..128, got {dropoff_distance!r}")
        self.return_at = return_at
        self.spawn_until = spawn_until
        self.radius = radius
        self.mine_min = mine_min
        self.max_dropoffs = dropoffs
        self.dropoff_distance = dropoff_distance
        self.returning: set[int] = set()
        self._offsets: list[tuple[int, int, int]] = []
        self._span = 0
        self._top = 0
        self._near: list[tuple[int, int]] = []

    def setup(self, view: GameView) -> None:
        """Precompute the search offsets for this map."""
        super().setup(view)
        self.returning = set()
        r = min(self.radius, view.width // 2, view.height // 2)
        # (index into the x list, index into the y list, d + 1), nearest first.
        offsets = [
            (dx + r, dy + r, abs(dx) + abs(dy) + 1)
            for dy in range(-r, r + 1)
            for dx in range(-r, r + 1)
            if 0 < abs(dx) + abs(dy) <= r
        ]
        offsets.sort(key=lambda o: o[2])
        self._offsets = offsets
        self._span = r
        self._near = [
            (dx, dy) for dy in range(-3, 4) for dx in range(-3, 4) if abs(dx) + abs(dy) <= 3
        ]

    def turn(self, view: GameView) -> list[str]:
        """This turn's commands."""
        if not self._offsets:
            self.setup(view)
        c = view.constants
        ship_cost = int(c.get("NEW_ENTITY_ENERGY_COST", 1000))
        dropoff_cost = int(c.get("DROPOFF_COST", 4000))
        move_ratio = int(c.get("MOVE_COST_RATIO", 10))
        w, h = view.width, view.height
        halite = view.halite
        me = view.me
        turns_left = view.max_turns - view.turn
        ships = sorted(me.ships.values(), key=_ship_id)
        self.returning &= set(me.ships)
        budget = me.halite
        commands: list[str] = []

        structures = view.structures_of(me.id)
        struct_idx = {y * w + x for x, y in structures}
        enemy_idx: set[int] = set()
        enemy_near: set[int] = set()
        enemy_count = 0
        for pid, player in view.players.items():
            if pid == me.id:
                continue
            for s in player.ships.values():
                enemy_count += 1
                enemy_idx.add(s.y * w + s.x)
                for _, nx, ny in view.neighbors(s.x, s.y):
                    enemy_near.add(ny * w + nx)
        total_halite = sum(halite)
        self._top = max(halite)
        mean = total_halite / len(halite)
        mine_min = self.mine_min or max(8, int(mean * 0.4))
        final_margin = 3 + len(ships) // 12

        def home_distance(x: int, y: int) -> tuple[int, int, int]:
            best = (1 << 30, x, y)
            for sx, sy in structures:
                dx = abs(x - sx)
                dy = abs(y - sy)
                d = min(dx, w - dx) + min(dy, h - dy)
                if d < best[0]:
                    best = (d, sx, sy)
            return best

        # 1-2: ships that cannot move; at most one dropoff.
        forced: list[ShipView] = []
        free: list[ShipView] = []
        built = False
        dropoff_distance = self.dropoff_distance or max(8, min(w, h) // 4)
        can_build = (
            self.max_dropoffs > len(me.dropoffs)
            and view.turn * 4 < view.max_turns * 3
            and len(ships) >= 6
        )
        for ship in ships:
            here = ship.y * w + ship.x
            if ship.cargo < halite[here] // move_ratio:
                forced.append(ship)
                continue
            if can_build and not built and here not in struct_idx and here not in enemy_idx:
                d_home = home_distance(ship.x, ship.y)[0]
                cost = max(0, dropoff_cost - ship.cargo - halite[here])
                if d_home >= dropoff_distance and cost <= budget:
                    around = 0
                    for dx, dy in self._near:
                        around += halite[((ship.y + dy) % h) * w + (ship.x + dx) % w]
                    if around >= max(4000, mean * len(self._near) * 2):
                        commands.append(f"c {ship.id}")
                        budget -= cost
                        built = True
                        struct_idx.add(here)
                        self.returning.discard(ship.id)
                        continue
            free.append(ship)

        # 3-4: a list of preferred moves for every free ship.
        prefs: dict[int, list[tuple[str, int]]] = {}
        crash_ok: set[int] = set()
        targeted: set[int] = set()
        returners: list[ShipView] = []
        leavers: list[ShipView] = []
        miners: list[ShipView] = []
        for ship in free:
            here = ship.y * w + ship.x
            if here in struct_idx:
                self.returning.discard(ship.id)
            d_home, hx, hy = home_distance(ship.x, ship.y)
            final = ship.cargo > 0 and d_home + final_margin >= turns_left
            if final and d_home + 2 >= turns_left:
                # Out of time: wrecking on an own structure still banks the cargo.
                crash_ok.add(ship.id)
            if final or ship.cargo >= self.return_at:
                self.returning.add(ship.id)
            if ship.id in self.returning and d_home > 0:
                prefs[ship.id] = self._moves(view, ship, hx, hy, enemy_near, stay_first=True)
                returners.append(ship)
            elif here in struct_idx:
                leavers.append(ship)
            else:
                miners.append(ship)

        blocked = enemy_idx | struct_idx
        for ship in leavers + miners:
            here = ship.y * w + ship.x
            target = self._best_cell(view, ship, mine_min, blocked | targeted)
            on_structure = here in struct_idx
            if target is None:
                # Nothing worth mining nearby: wander outwards.
                letters = list(_ALL_DIRECTIONS)
                self.rng.shuffle(letters)
                moves = [(d, _step(view, ship, d)) for d in letters]
                prefs[ship.id] = [m for m in moves if m[1] not in struct_idx] + [("o", here)]
                continue
            targeted.add(target)
            if target == here:
                prefs[ship.id] = [("o", here)]
            else:
                tx, ty = target % w, target // w
                moves = self._moves(view, ship, tx, ty, enemy_near, stay_first=not on_structure)
                # Miners do not cross own structures: they would block the ships coming home.
                prefs[ship.id] = [m for m in moves if m[0] == "o" or m[1] not in struct_idx]

        # 5: resolve moves with reservations (returners first: they carry the halite).
        reserved: set[int] = set()
        undecided: dict[int, int] = {}
        for ship in forced:
            reserved.add(ship.y * w + ship.x)
        order = returners + leavers + miners
        for ship in order:
            undecided[ship.y * w + ship.x] = ship.id
        pending = order
        done: set[int] = set()
        force = False
        while pending:
            waiting: list[ShipView] = []
            for ship in pending:
                if ship.id in done:
                    continue
                here = ship.y * w + ship.x
                choice: tuple[str, int] | None = None
                defer = False
                may_crash = ship.id in crash_ok
                for letter, dest in prefs[ship.id]:
                    if letter == "o":
                        choice = (letter, dest)
                        break
                    if may_crash and dest in struct_idx:
                        choice = (letter, dest)
                        break
                    if dest in reserved or dest in enemy_idx:
                        continue
                    occupant = undecided.get(dest)
                    if occupant is not None and occupant != ship.id:
                        if force:
                            continue
                        other = prefs[occupant][0]
                        if other[0] != "o" and other[1] == here and occupant not in done:
                            # Head-on: the two ships swap cells, which is no collision.
                            done.add(occupant)
                            commands.append(f"m {occupant} {other[0]}")
                            reserved.add(here)
                            del undecided[dest]
                            choice = (letter, dest)
                            break
                        # The ship there may still leave: decide this one later.
                        defer = True
                        break
                    choice = (letter, dest)
                    break
                if defer:
                    waiting.append(ship)
                    continue
                if choice is None:
                    choice = ("o", here)
                letter, dest = choice
                del undecided[here]
                reserved.add(dest)
                if letter != "o":
                    commands.append(f"m {ship.id} {letter}")
            waiting = [ship for ship in waiting if ship.id not in done]
            force = len(waiting) == len(pending)
            pending = waiting

        # 6: spawn.
        yard = me.shipyard[1] * w + me.shipyard[0]
        if (
            budget >= ship_cost
            and yard not in reserved
            and yard not in enemy_idx
            and view.turn * 100 <= self.spawn_until * view.max_turns
            and total_halite >= ship_cost * (len(ships) + enemy_count + 1)
        ):
            commands.append("g")
        return commands

    def _best_cell(
        self, view: GameView, ship: ShipView, mine_min: int, excluded: set[int]
    ) -> int | None:
        """The flat index of the best cell to mine near ``ship``, or None."""
        w, h = view.width, view.height
        halite = view.halite
        r = self._span
        here = ship.y * w + ship.x
        best: int | None = None
        best_score = 0.0
        value = halite[here]
        if value >= mine_min and here not in excluded:
            best, best_score = here, float(value)
        xs = [(ship.x + dx) % w for dx in range(-r, r + 1)]
        rows = [((ship.y + dy) % h) * w for dy in range(-r, r + 1)]
        top = self._top
        for i, j, den in self._offsets:
            if best_score * den >= top:
                # Offsets come nearest first: no farther cell can score higher.
                break
            idx = rows[j] + xs[i]
            value = halite[idx]
            if value >= mine_min and value > best_score * den and idx not in excluded:
                best, best_score = idx, value / den
        return best

    def _moves(
        self,
        view: GameView,
        ship: ShipView,
        tx: int,
        ty: int,
        enemy_near: set[int],
        *,
        stay_first: bool,
    ) -> list[tuple[str, int]]:
        """Moves toward ``(tx, ty)`` in order of preference, staying, then the rest."""
        w, h = view.width, view.height
        dx = (tx - ship.x) % w
        dy = (ty - ship.y) % h
        toward: list[tuple[int, str]] = []
        if dx:
            toward.append((dx, "e") if dx <= w - dx else (w - dx, "w"))
        if dy:
            toward.append((dy, "s") if dy <= h - dy else (h - dy, "n"))
        toward.sort(reverse=True)
        good: list[tuple[str, int]] = []
        risky: list[tuple[str, int]] = []
        for _, letter in toward:
            dest = _step(view, ship, letter)
            # Loaded ships keep away from cells next to enemies (a ram loses the cargo).
            (risky if ship.cargo > 200 and dest in enemy_near else good).append((letter, dest))
        named = {letter for _, letter in toward}
        rest = [(d, _step(view, ship, d)) for d in _ALL_DIRECTIONS if d not in named]
        stay = ("o", ship.y * w + ship.x)
        if stay_first:
            return [*good, *risky, stay, *rest]
        return [*good, *risky, *rest, stay]


def _step(view: GameView, ship: ShipView, letter: str) -> int:
    w, h = view.width, view.height
    if letter == "n":
        return ((ship.y - 1) % h) * w + ship.x
    if letter == "s":
        return ((ship.y + 1) % h) * w + ship.x
    if letter == "e":
        return ship.y * w + (ship.x + 1) % w
    return ship.y * w + (ship.x - 1) % w


def _ship_id(ship: ShipView) -> int:
    return ship.id
