"""The simulator over the official engine's recorded turns (rulesets and maps it plays).

Each record's ``before`` state is loaded, the recorded moves applied (an invalid move
string becomes the rules' default move, as in the engine), and the result compared
with the recorded ``after`` (or the recorded game over).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import numpy as np
import pytest

from snakewar.games.battlesnake import Settings
from snakewar.games.battlesnake.rules.rulesets import default_move
from snakewar.games.battlesnake.rules.types import BoardState
from snakewar.games.battlesnake.sim import MAPS, MOVE_NAMES, RULESETS, sim_from_states
from snakewar.games.battlesnake.testing.conformance import data_files, iter_games
from tests.conformance_data import battlesnake_dir, require

FILES = data_files([battlesnake_dir()])

GroupKey = tuple[str, str, int, int, tuple[str, ...], bool]


def _actions(before: BoardState, moves: list[dict[str, str]]) -> list[int] | None:
    """The record's moves as action codes, or None when the simulator cannot express
    them (a missing or repeated entry for an alive snake)."""
    given: dict[str, list[str]] = defaultdict(list)
    for m in moves:
        given[m["id"]].append(m["move"])
    out = []
    for sn in before.snakes:
        if sn.eliminated_cause:
            out.append(0)
            continue
        entries = given.get(sn.id, [])
        if len(entries) != 1 or not sn.body:
            return None
        move = entries[0] if entries[0] in MOVE_NAMES else default_move(sn.body)
        out.append(MOVE_NAMES.index(move))
    return out


def _collect() -> dict[GroupKey, list[tuple[str, dict[str, Any], list[int], Settings, int]]]:
    groups: dict[GroupKey, list[tuple[str, dict[str, Any], list[int], Settings, int]]] = (
        defaultdict(list)
    )
    for path in FILES:
        for header, turns, _end in iter_games(path):
            if header["ruleset"] not in RULESETS or header["map"] not in MAPS:
                continue
            settings = Settings(header["settings"], header["seed"])
            for rec in turns:
                if rec["error"] is not None:
                    continue
                before = BoardState.from_dict(rec["before"])
                acts = _actions(before, rec["moves"])
                if acts is None:
                    continue
                key = (
                    header["ruleset"],
                    header["map"],
                    before.width,
                    before.height,
                    tuple(sn.id for sn in before.snakes),
                    bool(header["solo"]),
                )
                label = f"{header['game_id']} turn {rec['turn']}"
                groups[key].append((label, rec, acts, settings, int(header["seed"])))
    return groups


@pytest.mark.slow
def test_recorded_turns(backend: str) -> None:
    require(FILES, f"Battlesnake game records under {battlesnake_dir().resolve()}")
    groups = _collect()
    checked = 0
    failures: list[str] = []
    for (ruleset, map_id, _w, _h, _n, solo), items in groups.items():
        states = [BoardState.from_dict(rec["before"]) for _, rec, _, _, _ in items]
        sim = sim_from_states(
            states,
            ruleset,
            map_id,
            settings=[s for _, _, _, s, _ in items],
            seeds=[sd for _, _, _, _, sd in items],
            randomness="go",
            solo=solo,
            backend=backend,
        )
        over_before = sim.over.copy()
        sim.step(np.array([a for _, _, a, _, _ in items]))
        ours = sim.to_states()
        for g, (label, rec, _, _, _) in enumerate(items):
            checked += 1
            if bool(over_before[g]) != rec["game_over"]:
                failures.append(f"{label}: game over {bool(over_before[g])}")
                continue
            if rec["after"] is None:
                continue
            theirs = BoardState.from_dict(rec["after"])
            if ours[g] != theirs:
                failures.append(f"{label}: ours {ours[g]}\n  theirs {theirs}")
    assert checked > 5000, f"only {checked} records checked"
    assert not failures, f"{len(failures)} of {checked} differ:\n" + "\n".join(failures[:5])
