"""The simulator against the rules engine: the same seeds and moves, every state compared."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from snakewar.games.battlesnake import Game, GameConfig, Settings
from snakewar.games.battlesnake.rules.types import BoardState
from snakewar.games.battlesnake.sim import MOVE_NAMES, BatchSim, make_sim

SCALE = 10
"""Games per case are multiplied by this (2,400 games in all)."""

CASES = [
    # ruleset, map, size, snakes, games
    ("standard", "standard", 11, 4, 24),
    ("standard", "standard", 7, 2, 24),
    ("standard", "empty", 11, 3, 16),
    ("standard", "standard", 19, 8, 8),
    ("solo", "standard", 7, 1, 16),
    ("standard", "standard", 11, 1, 8),
    ("wrapped", "standard", 11, 4, 16),
    ("wrapped", "empty", 7, 5, 16),
    ("constrictor", "standard", 11, 4, 16),
    ("constrictor", "empty", 7, 2, 16),
    ("wrapped_constrictor", "standard", 7, 3, 16),
    ("royale", "standard", 11, 4, 16),
    ("standard", "royale", 7, 3, 16),
    ("royale", "royale", 11, 2, 8),
    ("solo", "empty", 7, 1, 8),
]


def _settings(rng: np.random.Generator, n: int) -> list[Settings]:
    out = []
    for _ in range(n):
        out.append(
            Settings.defaults(
                foodSpawnChance=int(rng.choice([0, 1, 15, 50, 100])),
                minimumFood=int(rng.choice([0, 1, 3])),
                damagePerTurn=int(rng.choice([0, 14, 50, -5])),
                shrinkEveryNTurns=int(rng.choice([1, 3, 10])),
            )
        )
    return out


def _play(
    ruleset: str, map_id: str, size: int, snakes: int, games: int, seed: int, backend: str
) -> tuple[int, Counter[str]]:
    """Play ``games`` games in both engines; return the turns played and the causes."""
    rng = np.random.default_rng(seed)
    settings = _settings(rng, games)
    seeds = [int(x) for x in rng.integers(1, 2**62, size=games)]
    sim = make_sim(
        games,
        size,
        size,
        snakes,
        ruleset,
        map_id,
        settings,
        seeds,
        randomness="go",
        auto_reset=False,
        backend=backend,
    )
    refs = [
        Game(GameConfig(ruleset, map_id, size, size, st.with_seed(sd)), sim.ids)
        for st, sd in zip(settings, seeds, strict=True)
    ]
    _compare(sim, refs)
    turns = 0
    for _ in range(300):
        if sim.over.all():
            break
        actions = sim.random_safe_actions(rng, reckless=0.05)
        for g, game in enumerate(refs):
            if game.is_over:
                continue
            moves = {
                sid: MOVE_NAMES[int(actions[g, i])]
                for i, sid in enumerate(sim.ids)
                if not game.state.snakes[i].eliminated_cause
            }
            game.step(moves)
            turns += 1
        sim.step(actions)
        _compare(sim, refs)
    causes = Counter(s.eliminated_cause for game in refs for s in game.state.snakes)
    return turns, causes


def _compare(sim: BatchSim, refs: list[Game]) -> None:
    ours: list[BoardState] = sim.to_states()
    for g, game in enumerate(refs):
        assert ours[g] == game.state, f"game {g}: ours {ours[g]} != ref {game.state}"
        assert bool(sim.over[g]) == game.is_over, f"game {g} over flag"


@pytest.mark.parametrize(("ruleset", "map_id", "size", "snakes", "games"), CASES)
def test_matches_rules_engine(
    ruleset: str, map_id: str, size: int, snakes: int, games: int, backend: str
) -> None:
    turns, _ = _play(
        ruleset, map_id, size, snakes, games * SCALE, seed=size * 100 + snakes, backend=backend
    )
    assert turns > games * SCALE * 5


def test_every_elimination_cause_happens(backend: str) -> None:
    causes: Counter[str] = Counter()
    for case in [CASES[0], CASES[11], CASES[12], CASES[14]]:
        causes += _play(*case, seed=7, backend=backend)[1]
    assert set(causes) == {
        "",
        "snake-collision",
        "snake-self-collision",
        "out-of-health",
        "head-collision",
        "wall-collision",
        "hazard",
    }
