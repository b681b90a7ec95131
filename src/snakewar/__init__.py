"""Snakewar: an exact Battlesnake rules engine, referee and arena.

The Battlesnake rules engine (:data:`COMPILED_MODULES`) is compiled with mypyc when
the package is built on a machine with a C compiler (hatch_build.py); the same
typed sources are the pure-Python fallback.  ``SNAKEWAR_PURE=1`` in the environment
makes this package import those sources even where compiled modules are installed,
as does a compiled build whose sources were edited since (with a warning).
:func:`compiled_modules` says which engine a process runs.

For notebooks and scripts: :func:`play` plays a Battlesnake game between entrants
written as ``snakewar play`` takes them, :func:`load_replay` reads a replay; both
return a game that Jupyter shows as the offline viewer (docs/notebooks.md)::

    game = snakewar.play(["hunter", "greedy"], seed=7)
    game.result, game.latencies, game.save("game.jsonl")
"""

from __future__ import annotations

import importlib
import importlib.machinery
import os
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

__version__ = "0.1.0"

__all__ = ["COMPILED_MODULES", "compiled_modules", "load_replay", "play", "play_async"]

_NOTEBOOK = "snakewar.games.battlesnake.notebook"
_LAZY = {"load_replay": _NOTEBOOK, "play": _NOTEBOOK, "play_async": _NOTEBOOK}
"""Battlesnake in Python and notebooks (:mod:`snakewar.games.battlesnake.notebook`),
imported on first use: ``import snakewar`` stays as quick as the CLI needs it."""

COMPILED_MODULES: tuple[str, ...] = (
    "snakewar.games.battlesnake.rules.rng",
    "snakewar.games.battlesnake.rules._gosort",
    "snakewar.games.battlesnake.rules.types",
    "snakewar.games.battlesnake.rules.settings",
    "snakewar.games.battlesnake.rules.board",
    "snakewar.games.battlesnake.rules.rulesets",
    "snakewar.games.battlesnake.rules.classic",
    "snakewar.games.battlesnake.rules.game",
    "snakewar.games.battlesnake.rules.maps.base",
    "snakewar.games.battlesnake.rules.maps.standard",
    "snakewar.games.battlesnake.rules.maps.arcade_maze",
    "snakewar.games.battlesnake.rules.maps.castle_wall",
    "snakewar.games.battlesnake.rules.maps.classic",
    "snakewar.games.battlesnake.rules.maps.hazard_pits",
    "snakewar.games.battlesnake.rules.maps.hazards",
    "snakewar.games.battlesnake.rules.maps.healing_pools",
    "snakewar.games.battlesnake.rules.maps.rivers_and_bridges",
    "snakewar.games.battlesnake.rules.maps.sinkholes",
    "snakewar.games.battlesnake.rules.maps.snail_mode",
    "snakewar.games.battlesnake.rules.maps.solo_maze",
)
"""The modules mypyc compiles (hatch_build.py reads this list): the rules engine."""

_PACKAGE = Path(__file__).resolve().parent
_MANIFEST = _PACKAGE / "_compiled_sources.txt"


def _source(module: str) -> Path:
    return _PACKAGE.parent.joinpath(*module.split(".")).with_suffix(".py")


class _EngineFinder:
    """Imports the ``.py`` source of every compiled module when the sources are to be run.

    Which engine a process runs is decided at the first import of one of its modules,
    not at ``import snakewar``: checking the compiled build against its sources hashes
    them all, which commands that run no game (``snakewar --version``) need not pay.
    """

    def __init__(self) -> None:
        self._sources: bool | None = None

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in _COMPILED:
            return None
        if self._sources is None:
            self._sources = _run_sources()
        if not self._sources:
            return None  # the ordinary finders: the extension module where there is one
        import importlib.util

        return importlib.util.spec_from_file_location(fullname, _source(fullname))


_COMPILED = frozenset(COMPILED_MODULES)


def _stale_sources() -> list[str]:
    """The compiled modules whose source changed since compilation (none if not compiled)."""
    try:
        lines = _MANIFEST.read_text(encoding="utf-8").splitlines()
    except OSError:
        return []
    import hashlib  # here: its OpenSSL binding is a tenth of a bare CLI's start-up

    stale = []
    for line in lines:
        module, _, digest = line.partition(" ")
        try:
            if hashlib.sha256(_source(module).read_bytes()).hexdigest() != digest:
                stale.append(module)
        except OSError:
            stale.append(module)
    return stale


def _run_sources() -> bool:
    """Whether this process imports the engine's sources rather than its compiled modules."""
    if os.environ.get("SNAKEWAR_PURE") == "1":
        return True
    stale = _stale_sources()
    if stale:
        # Compiled modules call each other directly, so one edited source means the
        # whole compiled group is out of date: import every source instead.
        warnings.warn(
            f"snakewar: the compiled rules engine is older than its sources ({stale[0]} "
            "changed); running the pure-Python modules. Rebuild it with "
            "`pip install -e .` (or remove the .so files under src/snakewar).",
            RuntimeWarning,
            # Past find_spec (warnings skips the import system's own frames): the
            # module whose import asked for the engine.
            stacklevel=3,
        )
        return True
    return False


def compiled_modules() -> dict[str, bool]:
    """Import every module of :data:`COMPILED_MODULES`; say which are compiled ones.

    >>> set(compiled_modules()) == set(COMPILED_MODULES)
    True
    """
    return {
        name: isinstance(
            getattr(importlib.import_module(name), "__loader__", None),
            importlib.machinery.ExtensionFileLoader,
        )
        for name in COMPILED_MODULES
    }


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        # Asked first by every `from snakewar import submodule`: answered without an import.
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from snakewar._lazy import lazy_attribute

    return lazy_attribute(__name__, _LAZY, name)


def __dir__() -> list[str]:
    from snakewar._lazy import lazy_dir

    return lazy_dir(__name__, _LAZY)


sys.meta_path.insert(0, _EngineFinder())

from snakewar import _moved  # noqa: E402  (after the engine's finder: it is asked first)

_moved.install()
