"""The generic front end names no game: the server and the shared viewer files.

README's claim that the server reaches games only through the registry, checked on every
file of ``server/`` and ``viewer/`` (Python, templates, ES modules, stylesheets): no
import of a game's package and no game's name or title, in code, docstrings or comments.
The only exceptions are the deprecated re-exports (:data:`DEPRECATED_RE_EXPORTS`), which
name the new home of what moved into a game's package, for one release.
"""

from __future__ import annotations

import re
from pathlib import Path

import snakewar
from snakewar.adapters import games
from tests.test_layers import ALL_IMPORTS

SRC = Path(snakewar.__file__).resolve().parent

GENERIC = ("server", "viewer")
"""The folders of ``snakewar`` checked here (other layers have their own checks)."""

DEPRECATED_RE_EXPORTS: dict[str, str] = {
    "server/decoding.py": "snakewar.games.halite3.decoding",
    "server/schemas.py": "snakewar.games.halite3.routes.schemas",
}
"""A generic module that still re-exports moved names, and the game module they moved to."""


def generic_files() -> list[Path]:
    return sorted(
        path
        for folder in GENERIC
        for path in (SRC / folder).rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".so"
    )


def game_words() -> re.Pattern[str]:
    """Each registered game's name and the first word of its title, as whole words."""
    words = set()
    for game in games():
        words.add(game.name)
        words.add(game.catalogue().title.split()[0])
    return re.compile(r"\b(" + "|".join(sorted(map(re.escape, words))) + r")\b", re.IGNORECASE)


def test_the_check_finds_the_games_words() -> None:
    # The pattern would catch what was there before the games moved out.
    pattern = game_words()
    for line in ('import "./halite.js"', "Battlesnake's board", "game == 'halite3'"):
        assert pattern.search(line), line
    assert not pattern.search("a game's board, the game's adapter")


def test_no_generic_file_names_a_game() -> None:
    pattern = game_words()
    found = []
    for path in generic_files():
        where = path.relative_to(SRC).as_posix()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not pattern.search(line):
                continue
            if where in DEPRECATED_RE_EXPORTS and "_MOVED" in line:
                continue  # the shim's table of moved names and their home
            found.append(f"{where}:{number}: {line.strip()}")
    assert not found, "a game named in the generic front end:\n" + "\n".join(found)


def test_no_generic_module_imports_a_game() -> None:
    wrong = []
    for item in ALL_IMPORTS:
        where = item.path.relative_to(SRC).as_posix()
        if where.split("/")[0] not in GENERIC or not item.module.startswith("snakewar.games"):
            continue
        if DEPRECATED_RE_EXPORTS.get(where) == item.module and item.nested:
            continue  # named as a string, imported on first use of a moved name
        wrong.append(str(item))
    assert not wrong, "a game imported by the generic front end:\n" + "\n".join(wrong)
