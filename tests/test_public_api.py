"""The public API is explicit; the base install does not need the optional extras.

The layer contract (what may import what) is ``tests/test_layers.py``.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
import tomllib
import warnings
from pathlib import Path
from typing import Any

import pytest

from tests.test_layers import GAME_PARTS

LAZY_HELPERS = frozenset({"Any", "TYPE_CHECKING", "annotations", "lazy_attribute", "lazy_dir"})
"""What a lazy package (PEP 562) imports for itself: not part of its API."""


def public_names(package: Any, modules: set[str]) -> set[str]:
    """A lazy package's public names (its own and those it imports on use), each resolved."""
    public = {name for name in dir(package) if not name.startswith("_")}
    names = public - modules - LAZY_HELPERS
    for name in names:
        getattr(package, name)  # every name it lists imports from its home
    return names


def test_battlesnake_all_is_exact() -> None:
    import snakewar.games.battlesnake as bs

    modules = {
        "ascii",
        "rng",
        "board",
        "game",
        "maps",
        "rules",
        "settings",
        "types",
        "wire",
        "records",
        "frames",
        "api_schema",
        "classic",
        # The game's parts, attributes once imported (the game is one package).
        *GAME_PARTS,
    }
    assert set(bs.__all__) == public_names(bs, modules)


def test_base_install_does_not_import_the_rl_extra() -> None:
    code = (
        "import sys; import snakewar.cli, snakewar.referee, snakewar.server;"
        "print(','.join(m for m in ('pettingzoo', 'gymnasium') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_halite3_all_is_exact() -> None:
    import snakewar.games.halite3 as h3

    modules = {
        "commands",
        "constants",
        "game",
        "hashorder",
        "mapgen",
        "mt19937",
        "protocol",
        "conformance",
        # The game's parts, attributes once imported (another test may have imported them).
        *GAME_PARTS,
    }
    assert set(h3.__all__) == public_names(h3, modules)


def test_battlesnake_adapter_loads_from_its_new_and_old_homes() -> None:
    # An install made before the move names the old module in its entry point metadata.
    from snakewar.games.battlesnake.adapter import GAME

    assert importlib.import_module("snakewar.adapters.battlesnake").GAME is GAME
    pyproject = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())
    points = pyproject["project"]["entry-points"]["snakewar.games"]
    assert points["battlesnake"] == "snakewar.games.battlesnake.adapter:GAME"


def test_battlesnake_bots_and_sdk_still_import_from_their_old_homes() -> None:
    import snakewar.bots
    from snakewar.games.battlesnake import bots
    from snakewar.games.battlesnake.bots import sdk

    sys.modules.pop("snakewar.bots.sdk", None)
    with pytest.warns(DeprecationWarning, match=r"snakewar\.games\.battlesnake\.bots\.sdk"):
        old_sdk = importlib.import_module("snakewar.bots.sdk")
    assert old_sdk.snake is sdk.snake and set(old_sdk.__all__) == set(sdk.__all__)
    vars(snakewar.bots).pop("make_bot", None)
    with pytest.warns(DeprecationWarning, match=r"snakewar\.bots\.make_bot moved"):
        assert snakewar.bots.make_bot is bots.make_bot
    with pytest.raises(AttributeError):
        _ = snakewar.bots.no_such_name


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (
            "snakewar.testing.battlesnake_conformance",
            "snakewar.games.battlesnake.testing.conformance",
        ),
        ("snakewar.testing.battlesnake_states", "snakewar.games.battlesnake.testing.states"),
    ],
)
def test_the_battlesnake_checkers_still_import_from_their_old_homes(old: str, new: str) -> None:
    moved = importlib.import_module(new)
    sys.modules.pop(old, None)
    with pytest.warns(DeprecationWarning, match=new.replace(".", r"\.")):
        shim = importlib.import_module(old)
    assert shim.main is moved.main and set(shim.__all__) == set(moved.__all__)


@pytest.mark.parametrize(
    ("old", "new", "submodule"),
    [
        ("snakewar.sim", "snakewar.games.battlesnake.sim", "core"),
        ("snakewar.rl", "snakewar.games.battlesnake.rl", "observation"),
        ("snakewar.checkup", "snakewar.games.battlesnake.tester", "scenarios"),
    ],
)
def test_the_simulator_rl_and_tester_still_import_from_their_old_homes(
    old: str, new: str, submodule: str
) -> None:
    moved = importlib.import_module(new)
    for name in [name for name in sys.modules if name == old or name.startswith(old + ".")]:
        del sys.modules[name]
    with pytest.warns(DeprecationWarning, match=new.replace(".", r"\.")):
        shim = importlib.import_module(old)
    assert set(shim.__all__) == set(moved.__all__)
    assert all(getattr(shim, name) is getattr(moved, name) for name in moved.__all__)
    # A module of the old package is the moved module itself, not a second copy of it.
    assert importlib.import_module(f"{old}.{submodule}") is importlib.import_module(
        f"{new}.{submodule}"
    )
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module(f"{old}.no_such_module")


def test_the_generic_names_of_the_replay_and_referee_packages_do_not_warn() -> None:
    import snakewar.referee
    import snakewar.replay
    from snakewar.referee.intervals import wilson_interval
    from snakewar.replay._lines import ReplayError

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert snakewar.replay.ReplayError is ReplayError
        assert snakewar.referee.wilson_interval is wilson_interval
