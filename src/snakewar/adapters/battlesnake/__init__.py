"""The old home of Battlesnake's adapter, now :mod:`snakewar.games.battlesnake.adapter`.

An install made before the move still names ``snakewar.adapters.battlesnake:GAME`` in its
entry point metadata (until it is reinstalled), so this module keeps re-exporting it.
"""

from snakewar.games.battlesnake.adapter import GAME, BattlesnakeAdapter

__all__ = ["GAME", "BattlesnakeAdapter"]
