"""The import contracts of ``pyproject.toml`` hold, and each one catches a planted violation.

The contracts are import-linter's (``lint-imports``): games are independent, the game
protocol sits at the bottom, each game's pure rules sit at the bottom of its package
(under the referee's records, replays, bots, referee...), nothing under the front ends
imports them, and the game-agnostic layers reach a game only through the registry (its
ignored imports name what issue 23 still has to move).  ``tests/test_layers.py`` checks
the finer flow.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import snakewar

SRC = Path(snakewar.__file__).resolve().parent
ROOT = SRC.parent.parent
LINT_IMPORTS = "from importlinter.cli import lint_imports_command; lint_imports_command()"
"""``lint-imports``, run by this interpreter (its script may not be on the PATH)."""


def lint_imports(package_parent: Path, *contracts: str) -> subprocess.CompletedProcess[str]:
    """``lint-imports`` on the package ``snakewar`` found in ``package_parent``."""
    options = [arg for contract in contracts for arg in ("--contract", contract)]
    return subprocess.run(
        [sys.executable, "-c", LINT_IMPORTS, "--no-cache", "--no-logo", *options],
        cwd=ROOT,  # where pyproject.toml is
        env={**os.environ, "PYTHONPATH": str(package_parent)},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def test_the_contracts_hold() -> None:
    done = lint_imports(SRC.parent)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Contracts: 5 kept, 0 broken." in done.stdout, done.stdout


@pytest.mark.parametrize(
    ("contract", "name", "file", "line"),
    [
        (
            "games-independent",
            "No game imports another game",
            "games/halite3/rules/constants.py",
            "from snakewar.games.battlesnake.rules import types",
        ),
        (
            "protocol-at-the-bottom",
            "The game protocol (engine) imports no layer above it",
            "engine/protocol.py",
            "import snakewar.storage",
        ),
        (
            "pure-rules-at-the-bottom-of-their-game",
            "A game's pure rules import none of its other parts",
            "games/battlesnake/rules/rulesets.py",
            "from snakewar.games.battlesnake.records import CallStatus",
        ),
        (
            "front-ends-on-top",
            "Nothing under the front ends imports them",
            "arena/ratings.py",
            "import snakewar.server",
        ),
        (
            "registry-only",
            "The game-agnostic layers reach a game only through the registry",
            "storage/quota.py",
            "import snakewar.games.battlesnake.rules.rulesets",
        ),
    ],
)
def test_each_contract_catches_a_planted_violation(
    tmp_path: Path, contract: str, name: str, file: str, line: str
) -> None:
    copy = tmp_path / "snakewar"
    shutil.copytree(SRC, copy, ignore=shutil.ignore_patterns("*.so", "__pycache__"))
    planted = copy / file
    planted.write_text(planted.read_text(encoding="utf-8") + f"\n{line}\n", encoding="utf-8")
    done = lint_imports(tmp_path, contract)
    assert done.returncode != 0, done.stdout
    assert f"{name}" in done.stdout and "BROKEN" in done.stdout, done.stdout
    # The report names the planted import's module.
    assert file.removesuffix(".py").replace("/", ".") in done.stdout, done.stdout
