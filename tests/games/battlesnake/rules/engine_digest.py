"""Print a digest of every state the rules engine computes, for pure vs compiled runs.

Run as ``python -m tests.games.battlesnake.rules.engine_digest DATA_DIR`` (with or without
``SNAKEWAR_PURE=1``).  It replays every recorded game of the Battlesnake conformance
data (setup, initialization call, and each turn record's rules and map update from
the recorded ``before``) and plays a few whole games per ruleset and map with random
safe moves, hashing every resulting state, game-over flag and error.  The first
output line is JSON: ``{"compiled": {...module: bool}, "digest": ..., "states": n}``.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

import snakewar
from snakewar.errors import RulesError
from snakewar.games.battlesnake import Game, GameConfig
from snakewar.games.battlesnake.bots.random_safe import random_safe_moves
from snakewar.games.battlesnake.rules.board import MutableBoard
from snakewar.games.battlesnake.rules.game import setup_board
from snakewar.games.battlesnake.rules.maps import get_map
from snakewar.games.battlesnake.rules.rulesets import named_ruleset, normalize_moves
from snakewar.games.battlesnake.rules.settings import Settings
from snakewar.games.battlesnake.rules.types import BoardState
from snakewar.games.battlesnake.testing.conformance import data_files, iter_games


class Digest:
    """A running hash of everything the engine produced."""

    def __init__(self) -> None:
        self.hash = hashlib.sha256()
        self.count = 0

    def add(self, *items: Any) -> None:
        self.hash.update(json.dumps(items, separators=(",", ":")).encode())
        self.hash.update(b"\n")
        self.count += 1

    def add_state(self, label: str, state: BoardState) -> None:
        self.add(label, state.to_dict())


def replay_recorded(path: Path, digest: Digest, pairs: set[tuple[str, str, bool]]) -> None:
    """Recompute every recorded game of ``path`` from its records."""
    for header, turns, _ in iter_games(path):
        settings = Settings(header["settings"], header["seed"])
        pairs.add((header["ruleset"], header["map"], header["solo"]))
        ruleset = named_ruleset(header["ruleset"], settings, solo=header["solo"])
        game_map = get_map(header["map"])
        if header.get("setup") is not None:
            try:
                setup = setup_board(
                    game_map, settings, header["width"], header["height"], header["snake_ids"]
                )
                digest.add_state("setup", setup)
            except RulesError as exc:
                digest.add("setup error", repr(exc))
            try:
                over, init = ruleset.execute(BoardState.from_dict(header["setup"]), ())
                digest.add("init", over, init.to_dict())
            except RulesError as exc:
                digest.add("init error", repr(exc))
        memory = game_map.new_memory()
        for rec in turns:
            before = BoardState.from_dict(rec["before"])
            moves = normalize_moves([(m["id"], m["move"]) for m in rec["moves"]])
            try:
                over, after_rules = ruleset.execute(before, moves)
            except RulesError as exc:
                digest.add("rules error", repr(exc))
                continue
            digest.add("after_rules", over, after_rules.to_dict())
            edit = MutableBoard.from_state(after_rules)
            try:
                game_map.update_board(after_rules, settings, edit, memory)
            except RulesError as exc:
                digest.add("map error", repr(exc))
                continue
            edit.turn += 1
            digest.add_state("after", edit.freeze())


def play_games(pairs: set[tuple[str, str, bool]], digest: Digest, seeds: int) -> None:
    """Play whole games (random safe moves) on every ruleset and map of the data."""
    for ruleset, map_id, solo in sorted(pairs):
        for seed in range(1, seeds + 1):
            rng = random.Random(seed)
            sizes = get_map(map_id).meta.sizes.sizes
            width, height = sizes[0] if sizes else (11, 11)
            config = GameConfig(
                ruleset=ruleset,
                map=map_id,
                width=width,
                height=height,
                settings=Settings.defaults(seed=seed),
                solo=solo,
            )
            ids = ["a"] if solo else ["a", "b", "c", "d"]
            try:
                game = Game(config, ids)
            except RulesError as exc:
                digest.add("game error", ruleset, map_id, repr(exc))
                continue
            while not game.is_over and game.state.turn < 300:
                moves = random_safe_moves(game.state, rng, "wrapped" in ruleset)
                try:
                    turn = game.step(moves)
                except RulesError as exc:
                    digest.add("step error", repr(exc))
                    break
                digest.add("turn", turn.game_over, turn.after_rules.to_dict())
            digest.add_state("final", game.state)


def main(argv: list[str]) -> int:
    digest = Digest()
    pairs: set[tuple[str, str, bool]] = set()
    for path in data_files([Path(argv[0])]):
        replay_recorded(path, digest, pairs)
    play_games(pairs, digest, seeds=2)
    out = {
        "compiled": snakewar.compiled_modules(),
        "digest": digest.hash.hexdigest(),
        "states": digest.count,
    }
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
