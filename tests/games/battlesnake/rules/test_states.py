"""Every hand-made state run through the official engine must give the engine's result.

The folder comes from $SNAKEWAR_STATES_DIR (default: the public set shipped in
tests/data/battlesnake/states); every ``*.jsonl.gz`` under it is checked, one test per
file.  Where the engine panicked, Snakewar's documented behaviour is checked instead
(see :mod:`snakewar.games.battlesnake.testing.states`).  The three ``repro_*.json`` states,
where Snakewar once differed, are checked one by one from the shipped copies.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from snakewar.errors import StepError
from snakewar.games.battlesnake.rules.rulesets import named_ruleset
from snakewar.games.battlesnake.rules.settings import Settings
from snakewar.games.battlesnake.rules.types import BoardState
from snakewar.games.battlesnake.testing.states import StatesReport, iter_states, state_files
from tests.conformance_data import SHIPPED_STATES, require, states_dir

DATA_DIR = states_dir()
FILES = state_files([DATA_DIR])


def test_states_data_is_present() -> None:
    require(FILES, f"Battlesnake hand-made states (*.jsonl.gz) under {DATA_DIR.resolve()}")


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(DATA_DIR)) for p in FILES])
def test_states_file(path: Path) -> None:
    report = StatesReport()
    for rec in iter_states(path):
        report.add(rec)
    assert report.total > 0, f"{path}: no states"
    assert not report.failures, (
        f"{len(report.failures)} mismatches in {path.name} ({report.summary()}):\n"
        + "\n".join(report.failures[:30])
    )


def _repro(name: str) -> tuple[dict[str, Any], BoardState]:
    spec = json.loads((SHIPPED_STATES / name).read_text(encoding="utf-8"))
    ruleset = named_ruleset(spec["ruleset"], Settings(spec["settings"], spec["seed"]), spec["solo"])
    moves = [(m["id"], m["move"]) for m in spec["moves"]]
    _, after = ruleset.execute(BoardState.from_dict(spec["state"]), moves)
    return spec, after


def test_repro_hazard_damage_wraps_like_int64() -> None:
    # 50 - (-(2**63 - 1)) overflows Go's int64 to a negative health: 0, hazard.
    _, after = _repro("repro_overflow.json")
    (snake,) = after.snakes
    assert (snake.health, snake.eliminated_cause, snake.eliminated_on_turn) == (0, "hazard", 6)


def test_repro_13_snakes_head_to_head_follows_go_sort_slice() -> None:
    # snake-2 and snake-3 (length 4) and snake-1 (length 3) meet at (5, 5).  Go's
    # pdqsort puts snake-3 before snake-2 among the 13 snakes (a stable sort would
    # not), so snake-1 is credited to snake-3.
    _, after = _repro("repro_13snakes_h2h.json")
    lost = {s.id: (s.eliminated_cause, s.eliminated_by) for s in after.snakes if s.eliminated_cause}
    assert lost == {
        "snake-1": ("head-collision", "snake-3"),
        "snake-2": ("head-collision", "snake-3"),
        "snake-3": ("head-collision", "snake-2"),
    }


def test_repro_constrictor_zero_length_snake_is_the_engine_error() -> None:
    with pytest.raises(StepError) as info:
        _repro("repro_constrictor_empty.json")
    assert info.value.reason == "snake is length zero"
