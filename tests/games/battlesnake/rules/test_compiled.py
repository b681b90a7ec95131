"""The mypyc-compiled rules engine: imported when built, identical to the pure one.

An install on a machine with a C compiler compiles :data:`snakewar.COMPILED_MODULES`
(hatch_build.py); CI installs that way, so there (``CI=1``) a pure import means a
broken build and fails.  ``SNAKEWAR_PURE=1`` must give the pure modules, and both
must compute the same states on the conformance data.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import snakewar
from tests.conformance_data import battlesnake_dir

ROOT = Path(__file__).resolve().parents[4]
PURE = os.environ.get("SNAKEWAR_PURE") == "1"


def _is_compiled() -> bool:
    """True if every module of the engine is compiled; fails on a half-compiled one."""
    kinds = snakewar.compiled_modules()
    assert len(set(kinds.values())) == 1, f"partly compiled: {kinds}"
    return next(iter(kinds.values()))


def _require_compiled() -> None:
    if not _is_compiled():
        message = "the rules engine is not compiled (no C compiler at install, or mypyc failed)"
        if os.environ.get("CI"):
            pytest.fail(f"{message}: CI installs it compiled (hatch_build.py)")
        pytest.skip(message)


def _run(code_or_module: list[str], pure: bool) -> str:
    env = {k: v for k, v in os.environ.items() if k != "SNAKEWAR_PURE"}
    if pure:
        env["SNAKEWAR_PURE"] = "1"
    # The tests' own copy of the package, wherever it was imported from.
    env["PYTHONPATH"] = os.pathsep.join([str(Path(snakewar.__file__).parents[1]), str(ROOT)])
    done = subprocess.run(
        [sys.executable, *code_or_module],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        check=False,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_the_engine_imported_is_the_one_asked_for() -> None:
    if PURE:
        assert not any(snakewar.compiled_modules().values())
    else:
        _require_compiled()


def test_snakewar_pure_imports_the_sources() -> None:
    out = _run(
        ["-c", "import json, snakewar; print(json.dumps(snakewar.compiled_modules()))"], True
    )
    kinds = json.loads(out)
    assert set(kinds) == set(snakewar.COMPILED_MODULES)
    assert not any(kinds.values()), kinds


@pytest.mark.slow
def test_compiled_and_pure_compute_the_same_states() -> None:
    if not PURE:
        _require_compiled()
    data = str(battlesnake_dir())
    results: dict[bool, dict[str, Any]] = {}
    for pure in (False, True):
        out = _run(["-m", "tests.games.battlesnake.rules.engine_digest", data], pure)
        results[pure] = json.loads(out.splitlines()[0])
    if not PURE:
        assert all(results[False]["compiled"].values()), results[False]["compiled"]
    assert not any(results[True]["compiled"].values()), results[True]["compiled"]
    assert results[False]["states"] > 20_000, results[False]["states"]
    assert results[False]["states"] == results[True]["states"]
    assert results[False]["digest"] == results[True]["digest"]


def test_an_edited_source_turns_the_compiled_engine_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = snakewar._source("snakewar.games.battlesnake.rules.rulesets")
    digest = hashlib.sha256(source.read_bytes()).hexdigest()
    manifest = tmp_path / "manifest.txt"
    monkeypatch.setattr(snakewar, "_MANIFEST", manifest)
    assert snakewar._stale_sources() == []  # no manifest: nothing compiled
    manifest.write_text(f"snakewar.games.battlesnake.rules.rulesets {digest}\n", encoding="utf-8")
    assert snakewar._stale_sources() == []
    manifest.write_text(f"snakewar.games.battlesnake.rules.rulesets {'0' * 64}\n", encoding="utf-8")
    assert snakewar._stale_sources() == ["snakewar.games.battlesnake.rules.rulesets"]


def test_the_engine_is_chosen_at_its_first_import(tmp_path: Path) -> None:
    # `import snakewar` hashes nothing (the bare CLI's start-up); the first import of the
    # engine checks the build against its sources and, with one edited, runs them all.
    if not snakewar._MANIFEST.is_file():
        pytest.skip("no compiled engine (no manifest of its sources)")
    copy = tmp_path / "snakewar"
    shutil.copytree(
        Path(snakewar.__file__).parent, copy, ignore=shutil.ignore_patterns("__pycache__")
    )
    with (copy / "games/battlesnake/rules/rulesets.py").open("a", encoding="utf-8") as source:
        source.write("# edited\n")
    script = tmp_path / "first_import.py"
    script.write_text(
        "import json, sys, snakewar; print('hashlib' in sys.modules, flush=True)\n"
        "import snakewar.games.battlesnake.rules.rulesets\n"
        "print(json.dumps(snakewar.compiled_modules()))\n",
        encoding="utf-8",
    )
    env = {k: v for k, v in os.environ.items() if k != "SNAKEWAR_PURE"}
    env["PYTHONPATH"] = str(tmp_path)
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    hashed_at_import, kinds = done.stdout.splitlines()
    assert hashed_at_import == "False"
    assert not any(json.loads(kinds).values())
    # One warning, at the line that imported the engine (not inside the import system).
    where, _, message = done.stderr.partition(": RuntimeWarning: ")
    assert where == f"{script}:2", done.stderr
    assert message.startswith(
        "snakewar: the compiled rules engine is older than its sources "
        "(snakewar.games.battlesnake.rules.rulesets changed)"
    ), done.stderr
    assert done.stderr.count("RuntimeWarning") == 1


def _engine_objects() -> dict[str, object]:
    from snakewar.games.battlesnake import Game, GameConfig, Settings
    from snakewar.games.battlesnake.rules.board import MutableBoard
    from snakewar.games.battlesnake.rules.classic import ClassicSettings
    from snakewar.games.battlesnake.rules.maps import list_maps
    from snakewar.games.battlesnake.rules.maps.castle_wall import CastleWallFoodMemory
    from snakewar.games.battlesnake.rules.rng import GoRand
    from snakewar.games.battlesnake.rules.rulesets import named_ruleset

    game = Game(GameConfig(settings=Settings.defaults(seed=3)), ["a", "b"])
    turn = game.step({"a": "up", "b": "down"})
    rand = GoRand(7)
    rand.intn(10)
    objects: dict[str, object] = {
        "Settings": Settings.defaults(seed=3, minimumFood=2),
        "GameConfig": game.config,
        "BoardState": game.state,
        "TurnResult": turn,
        "GameResult": game.result(),
        "Ruleset": named_ruleset("royale"),
        "MutableBoard": MutableBoard.from_state(game.state),
        "GoRand": rand,
        "ClassicSettings": ClassicSettings.of(Settings.defaults()),
        "CastleWallFoodMemory": CastleWallFoodMemory(),
        "Game": game,
    }
    objects.update({f"map {m.id}": m for m in list_maps()})
    return objects


@pytest.mark.parametrize("how", ["pickle", "copy", "deepcopy"])
def test_engine_objects_pickle_and_copy(how: str) -> None:
    # Compiled classes cannot be restored field by field (frozen dataclasses, or
    # classes whose __init__ must run): each one rebuilds itself through __init__.
    import copy
    import pickle

    from snakewar.games.battlesnake import Game
    from snakewar.games.battlesnake.rules.board import MutableBoard
    from snakewar.games.battlesnake.rules.rng import GoRand

    clone = {
        "pickle": lambda o: pickle.loads(pickle.dumps(o)),
        "copy": copy.copy,
        "deepcopy": copy.deepcopy,
    }[how]
    for name, obj in _engine_objects().items():
        twin = clone(obj)
        assert type(twin) is type(obj), name
        if isinstance(obj, GoRand):
            assert isinstance(twin, GoRand)
            assert [twin.intn(1000) for _ in range(50)] == [obj.intn(1000) for _ in range(50)]
        elif isinstance(obj, MutableBoard):
            assert isinstance(twin, MutableBoard)
            assert twin.freeze() == obj.freeze()
        elif isinstance(obj, Game):
            assert isinstance(twin, Game)
            assert (twin.state, twin.is_over) == (obj.state, obj.is_over)
            moves = {"a": "left", "b": "right"}
            assert twin.step(moves) == obj.step(moves)
        elif type(obj).__eq__ is not object.__eq__:
            assert twin == obj, name


# -- the build hook ---------------------------------------------------------------------


def _hook_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("snakewar_hatch_build", ROOT / "hatch_build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class _App:
    def __init__(self) -> None:
        self.messages: list[str] = []

    def display_info(self, message: str) -> None:
        self.messages.append(message)

    def display_warning(self, message: str) -> None:
        self.messages.append(message)


def _hook(root: Path) -> tuple[Any, _App]:
    """The build hook on a copy of the project's ``__init__.py`` under ``root``."""
    package = root / "src" / "snakewar"
    package.mkdir(parents=True)
    (package / "__init__.py").write_bytes((ROOT / "src/snakewar/__init__.py").read_bytes())
    app = _App()
    hook = _hook_module().MypycBuildHook(
        str(root), {}, None, None, str(root / "dist"), "wheel", app=app
    )
    return hook, app


def _build_data() -> dict[str, Any]:
    return {"artifacts": [], "force_include": {}, "pure_python": True}


def test_the_build_hook_reads_the_module_list() -> None:
    assert _hook_module().compiled_modules(ROOT / "src") == snakewar.COMPILED_MODULES


def test_without_a_compiler_the_build_goes_on_pure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CC", str(tmp_path / "no-such-cc"))
    monkeypatch.delenv("SNAKEWAR_REQUIRE_COMPILED", raising=False)
    monkeypatch.delenv("SNAKEWAR_NO_COMPILE", raising=False)
    hook, app = _hook(tmp_path)
    stale = tmp_path / "src/snakewar/games/rules.cpython-311-x86_64-linux-gnu.so"
    stale.parent.mkdir(parents=True)
    stale.write_bytes(b"")
    data = _build_data()
    hook.initialize("standard", data)
    assert data == _build_data()
    assert "no C compiler" in app.messages[-1]
    assert not stale.exists(), "an extension module of an earlier build was left behind"


def test_a_build_that_must_be_compiled_fails_without_a_compiler(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CC", str(tmp_path / "no-such-cc"))
    monkeypatch.setenv("SNAKEWAR_REQUIRE_COMPILED", "1")
    monkeypatch.delenv("SNAKEWAR_NO_COMPILE", raising=False)
    hook, _ = _hook(tmp_path)
    with pytest.raises(RuntimeError, match="no C compiler"):
        hook.initialize("editable", _build_data())


def test_snakewar_no_compile_skips_compilation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SNAKEWAR_NO_COMPILE", "1")
    hook, app = _hook(tmp_path)
    data = _build_data()
    hook.initialize("editable", data)
    assert data == _build_data()
    assert "SNAKEWAR_NO_COMPILE" in app.messages[-1]
