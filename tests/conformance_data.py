"""Where the tests find the official engines' recorded data, and what happens when it is missing.

The public data ships in ``tests/data`` (a fresh clone has it); the same tests run on
other data laid out the same way (the maintainers keep a set back) through three
environment variables:

* ``SNAKEWAR_CONFORMANCE_DIR``: the Battlesnake folder (``public/``, ``edge/``, the Go
  random-source vectors ``go_math_rand_vectors.json``...);
* ``SNAKEWAR_HALITE_CONFORMANCE_DIR``: the Halite III folder (``games/``, ``replays/``,
  ``transcripts/``, ``manifest.json``).
* ``SNAKEWAR_STATES_DIR``: the Battlesnake hand-made states folder (``*.jsonl.gz`` of
  ``{"spec", "go"}`` records).

Missing data is a failure, never a skip: :func:`require` fails the test that needs it.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parent / "data"
"""The data shipped with the tests."""

SHIPPED_HALITE_REPLAYS = DATA / "halite3" / "public" / "replays"
"""Official ``.hlt`` replays the tests name one by one: always the shipped copies (an
override folder holds other games)."""

BATTLESNAKE_ENV = "SNAKEWAR_CONFORMANCE_DIR"
HALITE_ENV = "SNAKEWAR_HALITE_CONFORMANCE_DIR"
STATES_ENV = "SNAKEWAR_STATES_DIR"

SHIPPED_STATES = DATA / "battlesnake" / "states"
"""The shipped hand-made states folder; its ``repro_*.json`` are named one by one."""


def battlesnake_dir() -> Path:
    """The Battlesnake conformance folder: ``$SNAKEWAR_CONFORMANCE_DIR`` or the shipped one."""
    env = os.environ.get(BATTLESNAKE_ENV, "").strip()
    return Path(env) if env else DATA / "battlesnake"


def halite_dir() -> Path:
    """The Halite III folder: ``$SNAKEWAR_HALITE_CONFORMANCE_DIR`` or the shipped one."""
    env = os.environ.get(HALITE_ENV, "").strip()
    return Path(env) if env else DATA / "halite3" / "public"


def states_dir() -> Path:
    """The Battlesnake hand-made states folder: ``$SNAKEWAR_STATES_DIR`` or the shipped one."""
    env = os.environ.get(STATES_ENV, "").strip()
    return Path(env) if env else SHIPPED_STATES


def require(found: Sequence[Path] | Path, what: str) -> None:
    """Fail the calling test, naming ``what`` and where it was looked for, if nothing was found.

    ``found`` is a list of files (empty: missing) or one path (missing if it does not exist).
    """
    missing = not found if not isinstance(found, Path) else not found.exists()
    if missing:
        pytest.fail(
            f"missing test data: {what} (set {BATTLESNAKE_ENV} / {HALITE_ENV} / {STATES_ENV}, "
            "or restore "
            f"tests/data from the repository)",
            pytrace=False,
        )
