"""A clean-room Halite III Python starter kit with the official kit's public API.

``hlt.Game()`` reads the init message, ``game.ready(name)`` answers the name,
``game.update_frame()`` reads a turn and ``game.end_turn(commands)`` sends one line.
"""

from hlt import constants
from hlt.networking import Game

__all__ = ["Game", "constants"]
