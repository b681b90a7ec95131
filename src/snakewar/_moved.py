"""The old import paths of what moved into a game's package, kept for one release.

Each game's parts live in its own package (:mod:`snakewar.games`); before that, many sat in
the game-agnostic layers.  This table is the one place that still names them there:

* :data:`MOVED_MODULES`: an old module (or package: its submodules follow) and its new
  home.  Importing the old name gives the new module itself (one object under two names,
  so classes and ``isinstance`` agree) and warns once with a :class:`DeprecationWarning`;
  ``python -m OLD`` runs the new module.
* :data:`MOVED_NAMES`: names a game-agnostic package exported before they moved; the
  package's ``__getattr__`` hands them out through :func:`moved_attribute`, with a warning.

The generic layers hold no file for a moved module, so nothing under them names a game
(``tests/test_layers.py`` checks it).  :func:`install` runs once, on ``import snakewar``.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import warnings
from collections.abc import Sequence
from types import CodeType, ModuleType
from typing import Any

__all__ = ["MOVED_MODULES", "MOVED_NAMES", "SILENT", "install", "moved_attribute"]

_BS = "snakewar.games.battlesnake"
_H3 = "snakewar.games.halite3"

_BS_RULES = "types board settings classic game maps _gosort wire ascii api_schema rng _gocooked"

MOVED_MODULES: dict[str, str] = {
    # Packages: ``old.x`` is the module ``new.x``.
    "snakewar.sim": f"{_BS}.sim",
    "snakewar.rl": f"{_BS}.rl",
    "snakewar.checkup": f"{_BS}.tester",
    "snakewar.bots.halite": f"{_H3}.bots",
    "snakewar.adapters.battlesnake": f"{_BS}.adapter",
    "snakewar.adapters.halite3": f"{_H3}.adapter",
    # The pure rules, each game's in its rules/ package.
    **{f"{_BS}.{name}": f"{_BS}.rules.{name}" for name in _BS_RULES.split()},
    **{
        f"{_H3}.{name}": f"{_H3}.rules.{name}"
        for name in ("game", "mapgen", "commands", "constants", "hashorder", "protocol", "mt19937")
    },
    # Modules.
    "snakewar.engine.rng": f"{_BS}.rules.rng",
    "snakewar.engine._gocooked": f"{_BS}.rules._gocooked",
    # Not a game's: the outbound address policy went next to the outbound code.
    "snakewar.engine.addresses": "snakewar.referee.addresses",
    "snakewar.bots.sdk": f"{_BS}.bots.sdk",
    "snakewar.referee.halite": f"{_H3}.referee.runner",
    "snakewar.replay.hlt": f"{_H3}.replay.hlt",
    "snakewar.replay.hlt_verify": f"{_H3}.replay.verify",
    "snakewar.testing.battlesnake_conformance": f"{_BS}.testing.conformance",
    "snakewar.testing.battlesnake_states": f"{_BS}.testing.states",
    "snakewar.testing.halite3_conformance": f"{_H3}.testing.conformance",
}
"""Old module name -> the module it now is."""

SILENT = frozenset({"snakewar.adapters.battlesnake", "snakewar.adapters.halite3"})
"""Old names imported without a warning: an install made before the move names them in
its entry-point metadata until it is reinstalled, and users did not write those imports."""


def _names(home: str, *names: str) -> dict[str, str]:
    return dict.fromkeys(names, home)


MOVED_NAMES: dict[str, dict[str, str]] = {
    # ``rules`` was the rulesets' module before it was the package of the pure rules.
    f"{_BS}.rules": _names(
        f"{_BS}.rules.rulesets",
        "RULESETS",
        "STAGES",
        "MoveList",
        "Moves",
        "Ruleset",
        "Stage",
        "default_move",
        "named_ruleset",
        "normalize_moves",
        "royale_hazards",
        "ruleset_names",
    ),
    "snakewar.server.decoding": _names(
        f"{_H3}.decoding",
        "MAX_DOCUMENT_BYTES",
        "MAX_DOCUMENT_ELEMENTS",
        "MAX_UPLOAD_BYTES",
        "decode_document",
        "gzipped_document",
        "played_upload",
    ),
    "snakewar.server.schemas": _names(
        f"{_H3}.routes.schemas", "HaliteReplayDocumentOut", "ProgramGameOut"
    ),
    "snakewar.engine": _names(
        f"{_BS}.rules.rng",
        "MAX_RAND",
        "MIN_RAND",
        "GoRand",
        "MaxRand",
        "MinRand",
        "Rand",
        "go_int",
        "wrap_int64",
    ),
    "snakewar.referee.workers": {"WorkerClient": f"{_BS}.referee.workers"},
    "snakewar.bots": _names(
        f"{_BS}.bots",
        "Bot",
        "BotOptionError",
        "RandomSafeBot",
        "SnakeMetadata",
        "UnknownBotError",
        "bot_descriptions",
        "bot_names",
        "make_bot",
        "random_safe_moves",
        "register_bot",
        "request_rng",
        "safe_moves",
    ),
    "snakewar.referee": {
        **_names(
            f"{_BS}.records",
            "CallOutcome",
            "CallStatus",
            "GameRecord",
            "SnakeEntry",
            "TurnRecord",
            "derive_ids",
        ),
        **_names(f"{_BS}.referee.batch", "SnakeMatch", "play_match", "run_batch"),
        **_names(
            f"{_BS}.referee.clients",
            "MAX_REPLY_BYTES",
            "HttpSnakeClient",
            "InProcessClient",
            "LegacySnakeClient",
            "SnakeClient",
            "SnakeUnreachableError",
            "SnakeURLError",
            "V0SnakeClient",
            "new_http_client",
        ),
        **_names(
            f"{_BS}.referee.runner", "ConnectedSnake", "SnakeSpecError", "connect", "play_game"
        ),
        **_names(f"{_BS}.referee.stats", "BatchStats", "GameSummary", "summarize"),
    },
    "snakewar.replay": {
        **_names(
            f"{_BS}.replay.format",
            "FORMAT_NAME",
            "FORMAT_VERSION",
            "Replay",
            "config_to_dict",
            "header_dict",
            "load_replay",
            "read_replay",
            "replay_digest",
            "replay_lines",
            "result_dict",
            "turn_dict",
            "write_replay",
        ),
        **_names(
            f"{_BS}.replay.official",
            "OfficialFrame",
            "OfficialReplay",
            "OfficialResult",
            "official_game_info",
            "official_jsonl_lines",
            "read_official_jsonl",
            "sniff_replay",
            "write_official_jsonl",
        ),
        **_names(f"{_BS}.replay.verify", "VerifyReport", "state_differences", "verify_replay"),
        **_names(
            f"{_H3}.replay.hlt",
            "HltReplay",
            "HltReplayError",
            "HltTooLargeError",
            "read_hlt",
            "replay_document",
            "write_hlt",
        ),
        **_names(f"{_H3}.replay.verify", "HltVerifyReport", "verify_hlt"),
    },
    "snakewar.testing": {
        "check_battlesnake_game": f"{_BS}.testing.conformance",
        "check_halite_game": f"{_H3}.testing.conformance",
    },
}
"""Game-agnostic package -> {name it exported before the move: the module defining it now}."""


def _warn(old: str, new: str, stacklevel: int) -> None:
    warnings.warn(f"{old} moved to {new}", DeprecationWarning, stacklevel=stacklevel)


def moved_attribute(package: str, name: str) -> Any:
    """``name`` of the game-agnostic ``package``, from where it moved (warns once).

    A package's module ``__getattr__`` delegates here.

    Raises:
        AttributeError: ``package`` never exported ``name``.
    """
    home = MOVED_NAMES.get(package, {}).get(name)
    if home is None:
        raise AttributeError(f"module {package!r} has no attribute {name!r}")
    # Past this function and the package's __getattr__: the line that used the old name.
    _warn(f"{package}.{name}", f"{home}.{name}", stacklevel=4)
    value = getattr(importlib.import_module(home), name)
    setattr(sys.modules[package], name, value)  # asked once: the warning is not repeated
    return value


def _moved_home(fullname: str) -> str | None:
    """The new name of the old module ``fullname`` (``None``: it did not move)."""
    # Asked of every import of the process (the finder is first): a lookup per enclosing
    # package of ``fullname``, none for other packages' modules.
    if not fullname.startswith("snakewar."):
        return None
    old = fullname
    while "." in old:
        new = MOVED_MODULES.get(old)
        if new is not None:
            return new + fullname.removeprefix(old)
        old = old.rpartition(".")[0]
    return None


class _MovedFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports an old module name as the very module it moved to."""

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None = None,
        target: ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        new = _moved_home(fullname)
        found = None if new is None else importlib.util.find_spec(new)
        if found is None:
            return None  # no such module under either name: the usual ModuleNotFoundError
        # Its file as origin: ``python -m OLD`` gives it to the program as sys.argv[0].
        spec = importlib.machinery.ModuleSpec(fullname, self, origin=found.origin)
        spec.loader_state = new
        return spec

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        new = str(spec.loader_state)
        if spec.name in MOVED_MODULES and spec.name not in SILENT:
            # Past _warn and this method (warnings skips the import system's own
            # frames): the import statement that used the old name.
            _warn(spec.name, new, stacklevel=3)
        # The moved module itself: its __name__ and __spec__ stay the new ones.
        return importlib.import_module(new)

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run: :meth:`create_module` returned a module that ran already."""

    def get_code(self, fullname: str) -> CodeType | None:
        """The new module's code, for ``python -m OLD`` (runpy asks the loader for it)."""
        new = _moved_home(fullname)
        spec = importlib.util.find_spec(new) if new else None
        loader = spec.loader if spec else None
        if new is None or not isinstance(loader, importlib.abc.InspectLoader):
            raise ImportError(f"no code for {fullname}", name=fullname)
        _warn(fullname, new, stacklevel=3)
        return loader.get_code(new)


def install() -> None:
    """Put the finder of old module names on :data:`sys.meta_path` (once)."""
    if not any(isinstance(finder, _MovedFinder) for finder in sys.meta_path):
        # First: an old package name is the new package, whose __path__ would otherwise
        # let the path finder load its submodules a second time under their old names.
        sys.meta_path.insert(0, _MovedFinder())
