"""The public API is explicit; the base install does not need the optional extras.

The layer contract (what may import what) is ``tests/test_layers.py``.
"""

from __future__ import annotations

import subprocess
import sys


def test_battlesnake_all_is_exact() -> None:
    import snakewar.games.battlesnake as bs

    public = {name for name in vars(bs) if not name.startswith("_")}
    modules = {
        "ascii",
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
    }
    assert set(bs.__all__) == public - modules


def test_base_install_does_not_import_the_rl_extra() -> None:
    code = (
        "import sys; import snakewar.cli, snakewar.referee, snakewar.server;"
        "print(','.join(m for m in ('pettingzoo', 'gymnasium') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_halite3_all_is_exact() -> None:
    import snakewar.games.halite3 as h3

    public = {name for name in vars(h3) if not name.startswith("_")}
    modules = {
        "commands",
        "constants",
        "game",
        "hashorder",
        "mapgen",
        "mt19937",
        "protocol",
        "conformance",
    }
    assert set(h3.__all__) == public - modules
