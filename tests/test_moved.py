"""The old import paths of what moved into a game's package (:mod:`snakewar._moved`).

Every old module name and every old exported name still gives the very object it moved
to, with one :class:`DeprecationWarning` naming the new home; each old name sits in a
game-agnostic layer and each new one in a game's package; and nothing in the
game-agnostic layers names a game any more (the table is the one place that does).
"""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import snakewar
from snakewar import _moved

SRC = Path(snakewar.__file__).resolve().parent

GAME_NAME = re.compile(r"battlesnake|halite", re.IGNORECASE)

NOT_GENERIC = ("games", "__init__.py", "_moved.py", "_compiled_sources.txt")
"""All of the package is game-agnostic but the games, the package's root (it lists the
compiled modules of the rules engine for the build; the build's manifest too) and the table
of moved names."""

FROZEN = SRC / "storage" / "migrations"
"""Migrations are frozen: written once, they keep the words they were written with."""


def _forget(name: str) -> None:
    for loaded in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
        del sys.modules[loaded]


@pytest.mark.parametrize(("old", "new"), sorted(_moved.MOVED_MODULES.items()))
def test_an_old_module_name_is_the_moved_module(old: str, new: str) -> None:
    moved = importlib.import_module(new)
    _forget(old)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        # An import statement of this file (importlib.import_module would be the frame named).
        exec(compile(f"import {old}", __file__, "exec"), {})
    assert sys.modules[old] is moved
    messages = [str(w.message) for w in caught if w.category is DeprecationWarning]
    if old in _moved.SILENT:
        assert messages == []
    else:
        assert messages == [f"{old} moved to {new}"]
        assert caught[0].filename == __file__  # it names the import that used the old name


def test_an_old_package_gives_its_moved_submodules_once() -> None:
    # One module object under two names: a second copy would have its own classes.
    from snakewar.games.battlesnake.sim import core

    _forget("snakewar.sim")
    with pytest.warns(DeprecationWarning):
        old = importlib.import_module("snakewar.sim.core")
    assert old is core
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("snakewar.sim.no_such_module")


@pytest.mark.parametrize(
    ("package", "name", "home"),
    sorted((p, n, h) for p, names in _moved.MOVED_NAMES.items() for n, h in names.items()),
)
def test_an_old_exported_name_is_the_moved_object(package: str, name: str, home: str) -> None:
    module = importlib.import_module(package)
    vars(module).pop(name, None)
    with pytest.warns(DeprecationWarning, match=re.escape(f"{package}.{name} moved to {home}.")):
        value = getattr(module, name)
    assert value is getattr(importlib.import_module(home), name)
    with pytest.raises(AttributeError):
        _ = module.no_such_name


def test_old_names_are_generic_and_new_ones_a_games() -> None:
    olds = [*_moved.MOVED_MODULES, *_moved.MOVED_NAMES]
    assert all(old.startswith("snakewar.") for old in olds)  # the finder looks at no other
    news = [*_moved.MOVED_MODULES.values()] + [
        home for names in _moved.MOVED_NAMES.values() for home in names.values()
    ]
    # Within a game, only its pure rules moved: into the game's rules/ package.
    within = {
        old: new for old, new in _moved.MOVED_MODULES.items() if old.startswith("snakewar.games.")
    }
    assert within and all(
        new == f"{game}.rules.{old.removeprefix(game + '.')}"
        for old, new in within.items()
        for game in [".".join(old.split(".")[:3])]
    ), within
    renamed = [old for old in _moved.MOVED_NAMES if old.startswith("snakewar.games.")]
    assert renamed == ["snakewar.games.battlesnake.rules"]  # the rulesets' module, now a package
    assert not [
        old for old in olds if old.startswith("snakewar.games.") and old not in {*within, *renamed}
    ]
    # One move is between generic layers: the address policy, from the protocol's package
    # to the outbound code's.
    generic = {"snakewar.referee.addresses"}
    assert not [new for new in news if not new.startswith("snakewar.games.") and new not in generic]
    assert _moved.MOVED_MODULES["snakewar.engine.addresses"] == "snakewar.referee.addresses"
    # An old module has no file of its own any more: the table is its one trace.
    for old in _moved.MOVED_MODULES:
        where = SRC.joinpath(*old.split(".")[1:])
        assert not where.exists() and not where.with_suffix(".py").exists(), old


def test_running_an_old_module_runs_the_moved_one() -> None:
    done = subprocess.run(
        [sys.executable, "-W", "default", "-m", "snakewar.testing.battlesnake_states", "--help"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "usage:" in done.stdout.lower()
    assert "moved to snakewar.games.battlesnake.testing.states" in done.stderr


def _game_names_in(path: Path, root: Path = SRC) -> list[str]:
    text = path.read_text(encoding="utf-8", errors="replace")
    return [
        f"{path.relative_to(root)}:{n}: {line.strip()}"
        for n, line in enumerate(text.splitlines(), 1)
        if GAME_NAME.search(line)
    ]


def test_no_game_is_named_in_the_game_agnostic_layers() -> None:
    found = []
    scanned = 0
    for path in sorted(SRC.rglob("*")):
        top = path.relative_to(SRC).parts[0]
        if not path.is_file() or top in NOT_GENERIC or FROZEN in path.parents:
            continue
        if "__pycache__" in path.parts or path.suffix == ".so":
            continue
        scanned += 1
        found += _game_names_in(path)
    assert not found, "game names in the game-agnostic layers:\n" + "\n".join(found)
    assert scanned > 100  # Python, templates, modules and stylesheets


def test_the_scan_sees_a_game_name(tmp_path: Path) -> None:
    planted = tmp_path / "x.py"
    planted.write_text('"""Plays Halite."""\n', encoding="utf-8")
    assert _game_names_in(planted, tmp_path) == ['x.py:1: """Plays Halite."""']
