"""The layer contract: every import in ``src/snakewar``, function-level ones too, follows the flow.

    engine <- games <- sim / bots / records <- replay <- referee <- adapters <- arena / storage
    <- server / cli

(``records``: what a game's referee records, its calls' outcomes, turns and games.)

``LAYERS`` says which layers each layer may import; a test fails on any other edge,
naming the file, the line and the import.  The game-agnostic layers reach games only
through the registry (:mod:`snakewar.adapters`), never a game's own adapter, and the
pure core (``engine``, ``games``) does no file or network I/O.

A game is one package, ``games/<game>/``: its pure rules at the top, and its other
parts in the sub-packages and modules named in :data:`GAME_PARTS`, each of which
belongs to the layer of its kind (``games/halite3/referee/`` is in ``referee``, its
``routes.py`` in ``server``), so the flow binds a game's parts as it binds the generic
ones.  No game imports another game.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

import snakewar

SRC = Path(snakewar.__file__).resolve().parent

LAYERS: dict[str, frozenset[str]] = {
    # The pure core.
    "engine": frozenset(),
    "games": frozenset({"engine"}),
    # What a game's referee records (its calls' outcomes, turns, games): over the rules,
    # under the replays that store it and the referee that makes it.
    "records": frozenset({"engine", "games"}),
    # Over the rules: simulators, bots, playing, replays, checkers.
    "sim": frozenset({"engine", "games"}),
    "bots": frozenset({"engine", "games"}),
    "replay": frozenset({"engine", "games", "records"}),
    "referee": frozenset({"engine", "games", "records", "bots", "replay"}),
    "testing": frozenset({"engine", "games", "replay"}),
    "checkup": frozenset({"engine", "games", "records", "bots", "referee"}),
    "rl": frozenset({"engine", "games", "sim", "bots"}),
    "viewer": frozenset(),
    # Pictures and videos of a game (the frame's encoders, each game's drawing): over its
    # replays, reading the shared viewer's files for the HTML replay.
    "media": frozenset({"engine", "games", "records", "replay", "viewer"}),
    # Each game bound to the protocol, and the registry of games.
    "adapters": frozenset({"engine", "games", "records", "bots", "referee", "replay", "media"}),
    # Game-agnostic: the arena and persistence.
    "arena": frozenset({"engine", "adapters"}),
    "storage": frozenset({"engine", "adapters", "arena"}),
    # The two front ends, side by side, and the command that joins them.
    "server": frozenset(
        {
            "engine",
            "games",
            "records",
            "bots",
            "referee",
            "replay",
            "adapters",
            "arena",
            "storage",
            "checkup",
            "viewer",
            "media",
        }
    ),
    "cli": frozenset(
        {
            "engine",
            "games",
            "records",
            "bots",
            "referee",
            "replay",
            "sim",
            "adapters",
            "arena",
            "storage",
            "checkup",
            "testing",
            "media",
        }
    ),
    "command": frozenset({"cli", "server"}),
    "__main__": frozenset({"command"}),
    # The package's root names ``snakewar.play`` and ``snakewar.load_replay`` (Battlesnake
    # in notebooks), imported on first use only: ``import snakewar`` imports no layer.
    "": frozenset({"adapters"}),
}
"""Each layer (a package or module of ``snakewar``) and the layers it may import."""

GAME_PARTS: dict[str, str] = {
    "rules": "games",
    "adapter": "adapters",
    "records": "records",
    # Positions to start a game from (a fork's board, the editor's): checked over the rules.
    "position": "records",
    "frames": "replay",
    "terminal": "adapters",
    # Games in Python and notebooks: play one, read a replay, show it inline.
    "notebook": "adapters",
    "map_titles": "adapters",
    "referee": "referee",
    "replay": "replay",
    "bots": "bots",
    "sim": "sim",
    "rl": "rl",
    "tester": "checkup",
    "routes": "server",
    # The jobs a game's routes hand to the server's decoder pool (its worker processes).
    "decoding": "server",
    "cli": "cli",
    "viewer": "viewer",
    "media": "media",
    "testing": "testing",
}
"""A game package's parts (a sub-package or a module of ``games/<game>/``) and their layer.
Every module of a game is in one of them (its ``__init__`` aside): its pure rules are its
``rules/`` package (layer ``games``), the same shape for every game."""

REGISTRY = "snakewar.adapters"
"""The registry itself imports only the protocol: every layer over the pure core may use it
(a bot worker builds a game's bots through it)."""

SHARED = frozenset({"", "errors", "_lazy", "_commands", "_moved"})
"""Everyone may import ``snakewar`` itself (its version), the exception tree, the
lazy-export helper, the declaration of a command (all import nothing of ``snakewar``)
and the table of moved names (which imports what moved only when an old name is used)."""

REGISTRY_ONLY = frozenset({"arena", "storage", "cli", "command", "server", "viewer"})
"""Layers whose game-agnostic modules reach games through the registry only
(``snakewar.adapters``, no game's module): the command line's frame included, which finds
the games' commands through their entry points, and the server, which takes each game's
routes, static files and templates from its adapter.  A game's own part of such a layer
(``games/<game>/cli/``, ``games/<game>/routes/``) is its game's, and may name it."""

PURE = frozenset({"engine", "games"})
"""Layers with no I/O: no clock, no files, no network, no processes, no global randomness."""

IO_MODULES = frozenset(
    {
        "asyncio", "concurrent", "fcntl", "glob", "gzip", "http", "httpx", "io", "multiprocessing",
        "os", "pathlib", "random", "select", "shutil", "signal", "socket", "sqlite3", "subprocess",
        "sys", "tempfile", "threading", "time", "urllib", "zipfile", "zstandard",
        "importlib.resources", "importlib.metadata", "starlette", "fastapi", "uvicorn",
        "sqlalchemy", "typer", "rich", "logging", "datetime", "secrets",
    }
)  # fmt: skip
"""Modules that read or write files, the network, processes, the clock or global randomness."""

IO_CALLS = frozenset({"open", "print", "input", "breakpoint", "exec", "eval", "__import__"})


@dataclass(frozen=True, slots=True)
class Import:
    """One import statement: where it is and what it names."""

    path: Path
    line: int
    module: str
    nested: bool
    """Inside a function (imported when the function runs)."""

    def __str__(self) -> str:
        where = "function-level " if self.nested else ""
        return f"{self.path.relative_to(SRC.parent)}:{self.line}: {where}import of {self.module}"


def _layer_of_parts(parts: list[str]) -> str:
    # ``parts``: a module's dotted name under ``snakewar``, split.
    if not parts:
        return ""
    if parts[0] == "games" and len(parts) > 2:
        return GAME_PARTS.get(parts[2], "games")
    return parts[0]


def layer_of(path: Path) -> str:
    """The layer a source file belongs to: its top package or module under ``snakewar``,
    or, in a game's package, the layer of that part of the game (:data:`GAME_PARTS`)."""
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return _layer_of_parts(parts)


def game_of(module: str) -> str | None:
    """The game a module belongs to (``snakewar.games.<game>...``), else ``None``."""
    parts = module.split(".")
    return parts[2] if parts[:2] == ["snakewar", "games"] and len(parts) > 2 else None


def module_of(path: Path) -> str:
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _resolve(path: Path, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    package = module_of(path).split(".")
    if path.name != "__init__.py":
        package.pop()
    base = package[: len(package) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def imports_in(text: str, path: Path) -> Iterator[Import]:
    """Every import in ``text`` (the source of ``path``), function-level ones too, absolute."""
    tree = ast.parse(text, str(path))
    nested_lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            nested_lines.update(
                sub.lineno for sub in ast.walk(node) if isinstance(sub, ast.Import | ast.ImportFrom)
            )
    for node in ast.walk(tree):
        nested = node.lineno in nested_lines if isinstance(node, ast.stmt) else False
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield Import(path, node.lineno, alias.name, nested)
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(path, node)
            yield Import(path, node.lineno, base, nested)
            if base == "snakewar":  # ``from snakewar import errors`` names a layer
                for alias in node.names:
                    if (SRC / alias.name).is_dir() or (SRC / f"{alias.name}.py").is_file():
                        yield Import(path, node.lineno, f"snakewar.{alias.name}", nested)


MODULE_NAME = re.compile(r"snakewar(\.[A-Za-z_]\w*)+")
"""A string that names a module of Snakewar (an import by name: ``importlib``, lazy tables,
``module:attribute`` entry points), checked as an import."""


def string_imports_in(tree: ast.AST, path: Path) -> Iterator[Import]:
    """The modules that string constants of ``tree`` name (``"snakewar.x.y"``, ``"...:attr"``)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            name = node.value.partition(":")[0]
            if MODULE_NAME.fullmatch(name) and is_module(name) and name not in COMPILED:
                yield Import(path, node.lineno, name, nested=True)


def is_module(name: str) -> bool:
    """Whether ``name`` is a module of this tree (not a logger's or a setting's dotted name)."""
    where = SRC.joinpath(*name.split(".")[1:])
    return where.is_dir() or where.with_suffix(".py").is_file()


COMPILED = frozenset(snakewar.COMPILED_MODULES)
"""The compiled modules, which the package's root names to report which engine runs."""


def imports_of(path: Path) -> Iterator[Import]:
    """Every import in a source file, imports by name (strings) included."""
    text = path.read_text(encoding="utf-8")
    yield from imports_in(text, path)
    if path != MOVED:  # a table of old and new names, checked by tests/test_moved.py
        yield from string_imports_in(ast.parse(text, str(path)), path)


MOVED = SRC / "_moved.py"


def target_layer(module: str) -> str | None:
    """The layer an import reaches (``None``: not Snakewar's)."""
    if module == "snakewar":
        return ""
    if not module.startswith("snakewar."):
        return None
    return _layer_of_parts(module.split(".")[1:])


FILES = sorted(SRC.rglob("*.py"))
ALL_IMPORTS = [item for path in FILES for item in imports_of(path)]


def test_every_file_is_in_a_known_layer() -> None:
    unknown = {layer_of(p) for p in FILES} - set(LAYERS) - SHARED
    assert not unknown, f"layers missing from the table: {sorted(unknown)}"


def test_the_table_has_no_cycle() -> None:
    done: set[str] = set()

    def visit(layer: str, trail: tuple[str, ...]) -> None:
        assert layer not in trail, f"cycle: {' -> '.join((*trail, layer))}"
        if layer in done:
            return
        for below in LAYERS.get(layer, frozenset()):
            visit(below, (*trail, layer))
        done.add(layer)

    for layer in LAYERS:
        visit(layer, ())


def _hook_import(item: Import) -> bool:
    # A game's adapter hands its own routes and commands to the server and the CLI
    # (GameAdapter.routers, commands): imported in the hook, when that front end asks.
    game = game_of(module_of(item.path))
    return game is not None and game_of(item.module) == game


def test_every_import_follows_the_flow() -> None:
    wrong = []
    for item in ALL_IMPORTS:
        own = layer_of(item.path)
        target = target_layer(item.module)
        if target is None or target == own or target in SHARED:
            continue
        if item.module == REGISTRY and own not in PURE:
            continue
        if own == "adapters" and item.nested and _hook_import(item):
            continue
        if target not in LAYERS.get(own, frozenset()):
            wrong.append(f"{item}: {own or 'snakewar'} may not import {target}")
    assert not wrong, "imports against the layer flow:\n" + "\n".join(wrong)


def names_a_game_outside_the_registry(item: Import) -> bool:
    """Whether ``item`` is a game-agnostic module of :data:`REGISTRY_ONLY` naming a game."""
    return (
        layer_of(item.path) in REGISTRY_ONLY
        and game_of(module_of(item.path)) is None
        and (
            item.module.startswith("snakewar.adapters.") or item.module.startswith("snakewar.games")
        )
    )


def test_game_agnostic_layers_reach_games_through_the_registry_only() -> None:
    wrong = [str(item) for item in ALL_IMPORTS if names_a_game_outside_the_registry(item)]
    assert not wrong, "a game named outside the registry:\n" + "\n".join(wrong)


@pytest.mark.parametrize(
    ("source", "line", "caught"),
    [
        ("snakewar/cli/x.py", "from snakewar.games.battlesnake.cli import play", True),
        ("snakewar/cli/x.py", 'importlib.import_module("snakewar.games.halite3.cli.app")', True),
        ("snakewar/command.py", "from snakewar.games.halite3 import cli", True),
        ("snakewar/cli/x.py", "from snakewar.adapters.battlesnake import GAME", True),
        ("snakewar/cli/x.py", "from snakewar.adapters import get_game", False),
        ("snakewar/server/x.py", "from snakewar.games.halite3.decoding import played_upload", True),
        ("snakewar/server/routers/x.py", "import snakewar.games.battlesnake.routes", True),
        ("snakewar/viewer/x.py", 'importlib.import_module("snakewar.games.halite3")', True),
        ("snakewar/server/x.py", "from snakewar.adapters import games", False),
        # A game's own routes are its game's.
        ("snakewar/games/halite3/routes/x.py", "from snakewar.games.halite3 import adapter", False),
        # A game's own commands are its game's: they may name it.
        (
            "snakewar/games/battlesnake/cli/x.py",
            "from snakewar.games.battlesnake import rules",
            False,
        ),
    ],
)
def test_the_registry_check_sees_the_command_lines_frame(
    source: str, line: str, caught: bool
) -> None:
    path = SRC.parent / source
    text = line + "\n"
    found = [*imports_in(text, path), *string_imports_in(ast.parse(text), path)]
    assert found and any(names_a_game_outside_the_registry(i) for i in found) is caught, found


def test_no_game_imports_another_game() -> None:
    wrong = []
    for item in ALL_IMPORTS:
        own = game_of(module_of(item.path))
        target = game_of(item.module)
        if own is not None and target is not None and target != own:
            wrong.append(f"{item}: the game {own} imports the game {target}")
    assert not wrong, "\n".join(wrong)


def unknown_game_parts(files: list[Path], src: Path = SRC) -> list[str]:
    """Modules of a game's package in none of its parts (they would pass as pure rules)."""
    wrong = []
    for path in files:
        parts = path.relative_to(src).with_suffix("").parts
        if parts[0] != "games" or len(parts) < 3 or parts[2:] == ("__init__",):
            continue
        if parts[2] not in GAME_PARTS:
            wrong.append(f"{path.relative_to(src.parent)}: not a part named in GAME_PARTS")
    return wrong


def test_the_game_parts_are_known() -> None:
    assert not unknown_game_parts(FILES), "\n".join(unknown_game_parts(FILES))


def test_a_module_outside_the_parts_of_its_game_is_caught(tmp_path: Path) -> None:
    loose = tmp_path / "snakewar" / "games" / "battlesnake" / "helpers.py"
    rules = tmp_path / "snakewar" / "games" / "battlesnake" / "rules" / "board.py"
    package = tmp_path / "snakewar" / "games" / "battlesnake" / "__init__.py"
    assert unknown_game_parts([loose, rules, package], tmp_path / "snakewar") == [
        "snakewar/games/battlesnake/helpers.py: not a part named in GAME_PARTS"
    ]


def test_the_pure_core_does_no_io() -> None:
    wrong = []
    for item in ALL_IMPORTS:
        if layer_of(item.path) not in PURE:
            continue
        top = item.module.split(".")[0]
        if top in IO_MODULES or item.module in IO_MODULES:
            wrong.append(f"{item}: I/O in the pure core")
    for path in FILES:
        if layer_of(path) not in PURE:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in IO_CALLS
            ):
                wrong.append(
                    f"{path.relative_to(SRC.parent)}:{node.lineno}: calls {node.func.id}()"
                )
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize(
    ("source", "line"),
    [
        ("snakewar/arena/x.py", "from snakewar.server import create_app"),
        ("snakewar/arena/x.py", "def f():\n    from snakewar.storage import Store"),
        ("snakewar/games/x.py", "from ..referee import runner"),
        ("snakewar/games/battlesnake/rules/rulesets.py", "from ..referee import runner"),
        ("snakewar/games/battlesnake/rules/rulesets.py", "import snakewar.games.battlesnake.bots"),
        ("snakewar/games/battlesnake/bots/x.py", "from snakewar.server import app"),
        ("snakewar/games/battlesnake/replay/x.py", "from ..referee import runner"),
        # The referee's records are no pure rules: the rules may not import them.
        ("snakewar/games/battlesnake/rules/rulesets.py", "from ..records import CallStatus"),
        ("snakewar/games/battlesnake/records.py", "from .referee import clients"),
        ("snakewar/cli/x.py", "import snakewar.server.app"),
        ("snakewar/storage/x.py", "from snakewar import server"),
        (
            "snakewar/games/halite3/rules/game.py",
            "from snakewar.games.halite3.referee import runner",
        ),
        ("snakewar/games/halite3/bots/x.py", "from snakewar.games.halite3.cli import app"),
        ("snakewar/games/halite3/referee/x.py", "from snakewar.server import app"),
        # An import by name is an import too.
        ("snakewar/arena/x.py", 'importlib.import_module("snakewar.server.app")'),
        ("snakewar/storage/x.py", '_LAZY = {"Store": "snakewar.cli.ladder"}'),
        (
            "snakewar/games/battlesnake/rules/rulesets.py",
            'ENTRY = "snakewar.referee.process:Program"',
        ),
    ],
)
def test_the_checker_sees_every_kind_of_import(source: str, line: str) -> None:
    # The contract must catch what it is meant to catch: try it on planted sources.
    path = SRC.parent / source
    own = layer_of(path)
    text = line + "\n"
    found = [*imports_in(text, path), *string_imports_in(ast.parse(text), path)]
    assert any(
        (t := target_layer(i.module)) is not None
        and t not in SHARED
        and t != own
        and t not in LAYERS[own]
        for i in found
    ), found


def test_the_checker_sees_one_game_importing_another() -> None:
    path = SRC / "games" / "battlesnake" / "referee" / "x.py"
    found = list(imports_in("from snakewar.games.halite3 import game\n", path))
    assert any(game_of(i.module) not in (None, game_of(module_of(path))) for i in found), found
