"""``random``: a Halite III bot that moves at random and spawns now and then.

Like the simple random bots used to test engines: every ship gets a random direction
(or stays), and the bot spawns with some probability while it is early in the game.
It never sends an illegal command: one command per own ship, at most one ``g``, and
never a spawn it cannot pay for.
"""

from __future__ import annotations

from snakewar.games.halite3.bots.kit import GameView, HaliteBot

__all__ = ["RandomBot"]

_CHOICES = ("n", "s", "e", "w", "o")


class RandomBot(HaliteBot):
    """Random moves, and a spawn with some probability early in the game.

    Args:
        seed: the bot's random seed.
        spawn_percent: chance (in percent) of spawning on a turn when it can pay.
        spawn_until: spawn only while the turn is below this percentage of ``MAX_TURNS``.
    """

    name = "random"

    def __init__(self, seed: int = 0, spawn_percent: int = 25, spawn_until: int = 50) -> None:
        super().__init__(seed)
        if not 0 <= spawn_percent <= 100:
            raise ValueError(f"spawn_percent must be 0..100, got {spawn_percent!r}")
        if not 0 <= spawn_until <= 100:
            raise ValueError(f"spawn_until must be 0..100, got {spawn_until!r}")
        self.spawn_percent = spawn_percent
        self.spawn_until = spawn_until

    def turn(self, view: GameView) -> list[str]:
        """A random move (or stay) for every ship, and maybe a spawn."""
        rng = self.rng
        me = view.me
        commands = [f"m {sid} {rng.choice(_CHOICES)}" for sid in sorted(me.ships)]
        cost = int(view.constants.get("NEW_ENTITY_ENERGY_COST", 1000))
        if (
            me.halite >= cost
            and view.turn * 100 < self.spawn_until * view.max_turns
            and rng.random() * 100 < self.spawn_percent
        ):
            commands.append("g")
        return commands
