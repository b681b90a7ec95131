"""Checkers shipped with Snakewar, for its own tests and for anyone re-implementing the rules.

* :mod:`snakewar.games.battlesnake.testing.conformance`: Battlesnake games recorded from the
  official Go engine, replayed and compared turn by turn (:func:`check_battlesnake_game`).
* :mod:`snakewar.games.halite3.testing.conformance`: Halite III games recorded from the official
  C++ engine, replayed and compared field by field (:func:`check_halite_game`).

Both read recorded files (this is the layer that does; the rules themselves do no I/O).
"""

from snakewar.games.battlesnake.testing.conformance import check_battlesnake_game
from snakewar.games.halite3.testing.conformance import check_halite_game

__all__ = ["check_battlesnake_game", "check_halite_game"]
