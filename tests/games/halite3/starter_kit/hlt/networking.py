"""The game loop's side of the protocol: init, frames and commands."""

from __future__ import annotations

import json
import logging
import sys

from hlt import constants
from hlt.common import read_input, read_ints
from hlt.game_map import GameMap, Player
from hlt.positionals import _set_size


class Game:
    """Reads the init message on creation; then ``ready``, and each turn ``update_frame``."""

    def __init__(self) -> None:
        self.turn_number = 0
        constants.load_constants(json.loads(read_input()))
        num_players, self.my_id = read_ints()
        logging.basicConfig(
            filename=f"bot-{self.my_id}.log", filemode="w", level=logging.DEBUG, force=True
        )
        self.players: dict[int, Player] = {}
        for _ in range(num_players):
            player = Player._generate()
            self.players[player.id] = player
        self.me = self.players[self.my_id]
        self.game_map = GameMap._generate()
        _set_size(self.game_map.width, self.game_map.height)

    def ready(self, name: str) -> None:
        """Send the bot's name: the engine then starts the game."""
        _send(name)

    def update_frame(self) -> None:
        """Read the next turn: players, ships, dropoffs and changed cells."""
        self.turn_number = read_ints()[0]
        logging.info(f"=============== TURN {self.turn_number:03} ================")
        for _ in range(len(self.players)):
            pid, num_ships, num_dropoffs, halite = read_ints()
            self.players[pid]._update(num_ships, num_dropoffs, halite)
        self.game_map._update()
        for player in self.players.values():
            for ship in player.get_ships():
                self.game_map[ship.position].mark_unsafe(ship)
            self.game_map[player.shipyard.position].structure = player.shipyard
            for dropoff in player.get_dropoffs():
                self.game_map[dropoff.position].structure = dropoff

    @staticmethod
    def end_turn(commands: list[str]) -> None:
        """Send this turn's commands as one line."""
        _send(" ".join(commands))


def _send(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()
