"""Battlesnake, with the official rules engine's behaviour exactly.

The pure rules: state types, settings, stage pipelines, the 25 maps, the game
driver, the API v1 wire format and a terminal renderer.  Nothing here does I/O.

>>> from snakewar.games.battlesnake import GameConfig, Settings, run_game
>>> run_game(GameConfig(settings=Settings.defaults(seed=1)), ["a"], lambda s: {"a": "up"}).turns
6

The names below are imported on first use (PEP 562), not with the package: importing
one part of the game (its command table, ``cli``) imports none of the others.

Its exceptions, under the classes of :mod:`snakewar.errors` they derive from (names
relative to this package; the rules' own, :class:`~snakewar.errors.RulesError` and
:class:`~snakewar.errors.WireFormatError`, are drawn there)::

    SnakewarError
    ├── MatchSetupError
    │   └── EntrantError
    │       ├── bots.BotOptionError                   a built-in bot option value out of range
    │       ├── referee.runner.SnakeSpecError         a snake argument that is no URL or bot
    │       └── referee.clients.SnakeURLError         a snake URL outside the one URL grammar
    ├── NotFoundError
    │   └── routes.human.NoHumanError                 a game with no person playing in it now
    ├── referee.clients.SnakeUnreachableError (ConnectionError)  a snake that does not answer
    ├── sim.bench.BenchError                          a benchmark that cannot be run as asked
    ├── rl.EnvConfigError (ValueError)                an environment option that cannot be used
    ├── rl.EnvStepError (ValueError)                  a step an environment cannot take
    ├── tester.UnknownCategoryError (LookupError)     an unknown tester category
    ├── tester.files.ScenarioFileError (ValueError)   a scenario file that cannot be used
    └── tester.files.TurnScenarioError (ValueError)   a replay turn no scenario can be made of
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from snakewar._lazy import lazy_attribute, lazy_dir

if TYPE_CHECKING:
    from snakewar.games.battlesnake.rules.ascii import render_board
    from snakewar.games.battlesnake.rules.board import MutableBoard, MutableSnake
    from snakewar.games.battlesnake.rules.game import (
        Game,
        GameConfig,
        GameResult,
        TurnResult,
        run_game,
        setup_board,
    )
    from snakewar.games.battlesnake.rules.maps import (
        BoardSizes,
        GameMap,
        MapMeta,
        get_map,
        list_maps,
        map_ids,
        register_map,
    )
    from snakewar.games.battlesnake.rules.rulesets import (
        RULESETS,
        STAGES,
        Ruleset,
        default_move,
        named_ruleset,
        ruleset_names,
    )
    from snakewar.games.battlesnake.rules.settings import CLI_DEFAULTS, Settings
    from snakewar.games.battlesnake.rules.types import (
        BoardState,
        Direction,
        EliminationCause,
        Point,
        Snake,
    )

__all__ = [
    "CLI_DEFAULTS",
    "NAME",
    "RULESETS",
    "STAGES",
    "BoardSizes",
    "BoardState",
    "Direction",
    "EliminationCause",
    "Game",
    "GameConfig",
    "GameMap",
    "GameResult",
    "MapMeta",
    "MutableBoard",
    "MutableSnake",
    "Point",
    "Ruleset",
    "Settings",
    "Snake",
    "TurnResult",
    "default_move",
    "get_map",
    "list_maps",
    "map_ids",
    "named_ruleset",
    "register_map",
    "render_board",
    "ruleset_names",
    "run_game",
    "setup_board",
]

NAME = "battlesnake"
"""The game's registered name (replays, storage and the API carry it)."""

_HOMES = {
    "render_board": "ascii",
    "MutableBoard": "board",
    "MutableSnake": "board",
    "Game": "game",
    "GameConfig": "game",
    "GameResult": "game",
    "TurnResult": "game",
    "run_game": "game",
    "setup_board": "game",
    "BoardSizes": "maps",
    "GameMap": "maps",
    "MapMeta": "maps",
    "get_map": "maps",
    "list_maps": "maps",
    "map_ids": "maps",
    "register_map": "maps",
    "RULESETS": "rulesets",
    "STAGES": "rulesets",
    "Ruleset": "rulesets",
    "default_move": "rulesets",
    "named_ruleset": "rulesets",
    "ruleset_names": "rulesets",
    "CLI_DEFAULTS": "settings",
    "Settings": "settings",
    "BoardState": "types",
    "Direction": "types",
    "EliminationCause": "types",
    "Point": "types",
    "Snake": "types",
}
"""Each public name and the module of this package that defines it."""

_MODULES = {name: f"{__name__}.rules.{home}" for name, home in _HOMES.items()}


def __getattr__(name: str) -> Any:
    return lazy_attribute(__name__, _MODULES, name)


def __dir__() -> list[str]:
    return lazy_dir(__name__, _MODULES)
