"""``crowd``: keeps a crowd of ships on the map, to load an engine (benchmarks).

It spawns whenever it holds fewer than ``ships`` ships and the shipyard will be empty,
and moves its ships the way a competent bot would, so that the engine meets every kind
of turn work with many ships: ships that cannot pay their move stay and mine, ships
with 60% of a full cargo head home, ships next to home leave to clear the way for the
next spawn, ships on rich cells mine and the others wander.  No two of its ships are
sent to one cell.  Played with ``INITIAL_ENERGY`` raised, it reaches ``ships`` ships
per player on a big map; ``snakewar bench halite --profile crowded`` and ``snakewar
bench compare`` play it on both engines.

It reads only its :class:`~snakewar.games.halite3.bots.kit.GameView`, so it plays the same
game in-process and over the official protocol for the same seed.
"""

from __future__ import annotations

from snakewar.games.halite3.bots.kit import GameView, HaliteBot

__all__ = ["CrowdBot"]

_OFFSETS = {"n": (0, -1), "s": (0, 1), "e": (1, 0), "w": (-1, 0), "o": (0, 0)}
_AWAY = {"e": "w", "w": "e", "n": "s", "s": "n"}


class CrowdBot(HaliteBot):
    """A bot that keeps ``ships`` ships on the map.

    Args:
        seed: the bot's random seed (wandering directions).
        ships: the ships it keeps, 1..10000.

    Raises:
        ValueError: ``ships`` out of range.
    """

    name = "crowd"

    def __init__(self, seed: int = 0, ships: int = 150) -> None:
        super().__init__(seed)
        if not 1 <= ships <= 10_000:
            raise ValueError(f"ships={ships} (expected 1..10000)")
        self.target = ships

    def turn(self, view: GameView) -> list[str]:
        """Moves for every ship that can pay, and a spawn below the target."""
        c = view.constants
        move_ratio = int(c.get("MOVE_COST_RATIO", 10))
        full = int(c.get("MAX_ENERGY", 1000)) * 3 // 5
        cost = int(c.get("NEW_ENTITY_ENERGY_COST", 1000))
        w, h = view.width, view.height
        halite = view.halite
        me = view.me
        hx, hy = me.shipyard
        rng = self.rng
        out: list[str] = []
        ships = list(me.ships.values())
        claimed: set[int] = set()
        movable = []
        for ship in ships:
            here = ship.y * w + ship.x
            if ship.cargo < halite[here] // move_ratio:
                claimed.add(here)  # it cannot pay: it stays and mines
            else:
                movable.append(ship)
        for ship in movable:
            dx = (hx - ship.x) % w
            dy = (hy - ship.y) % h
            toward = ("e" if dx <= w // 2 else "w") if dx else ("s" if dy <= h // 2 else "n")
            near_home = min(dx, w - dx) + min(dy, h - dy) < 4
            if ship.cargo >= full and (dx or dy):
                wanted = [toward, *rng.sample("nsew", 4), "o"]
            elif near_home:
                away = _AWAY[toward] if dx or dy else "n"
                wanted = [away, *rng.sample("nsew", 4), "o"]
            elif halite[ship.y * w + ship.x] >= 60:
                wanted = ["o", *rng.sample("nsew", 4)]
            else:
                wanted = [*rng.sample("nsew", 4), "o"]
            for direction in wanted:
                ox, oy = _OFFSETS[direction]
                dest = (ship.y + oy) % h * w + (ship.x + ox) % w
                if dest not in claimed:
                    break
            claimed.add(dest)
            out.append(f"m {ship.id} {direction}")
        if len(ships) < self.target and me.halite >= cost and hy * w + hx not in claimed:
            out.append("g")
        return out
