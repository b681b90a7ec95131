"""Battlesnake's shipped checkers: recorded official games and hand-made states.

* :mod:`snakewar.games.battlesnake.testing.conformance`: games recorded from the official Go
  engine, replayed and compared turn by turn.
* :mod:`snakewar.games.battlesnake.testing.states`: single ``Execute`` calls of the official
  engine on hand-made states.
"""
