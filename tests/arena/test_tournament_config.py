"""TournamentConfig: checked when made, frozen, and the stored JSON shape kept."""

from __future__ import annotations

import dataclasses
import json

import pytest

from snakewar.arena.tournaments import (
    DoubleElimination,
    RoundRobin,
    SingleElimination,
    Swiss,
    Tournament,
    TournamentConfig,
    TournamentError,
    TournamentFormat,
)

# What a tournament stored before the config was a class looked like (to_dict's keys).
STORED = {
    "format": "swiss",
    "entrants": ["a", "b", "c", "d", "e"],
    "heat_size": 2,
    "best_of": 3,
    "advance": 1,
    "grand_final_reset": True,
    "swiss_rounds": 3,
    "seed": 9,
}


def test_the_stored_shape_reads_and_writes_back_unchanged() -> None:
    config = TournamentConfig.from_mapping(STORED)
    assert config.format is TournamentFormat.SWISS
    assert config.entrants == ("a", "b", "c", "d", "e")
    assert config.to_mapping() == STORED
    assert list(config.to_mapping()) == list(STORED)
    t = Tournament.from_config(config)
    assert list(t.to_dict())[: len(STORED)] == list(STORED)
    assert json.loads(json.dumps(t.to_dict()))["format"] == "swiss"


def test_create_fills_in_the_defaults() -> None:
    config = TournamentConfig.create("swiss", [f"s{i}" for i in range(9)], heat_size=4)
    assert (config.advance, config.swiss_rounds, config.best_of) == (2, 4, 1)
    # Rounds belong to Swiss alone: other formats store none, as they always did.
    assert TournamentConfig.create("round_robin", ["a", "b"], rounds=5).swiss_rounds is None


def test_a_config_is_frozen_and_checked_when_made() -> None:
    config = TournamentConfig.create("single_elimination", ["a", "b"])
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.best_of = 3  # type: ignore[misc]
    with pytest.raises(TournamentError, match="best of must be a positive odd number, not 2"):
        TournamentConfig(TournamentFormat.ROUND_ROBIN, ("a", "b"), best_of=2)
    with pytest.raises(TournamentError, match="only a Swiss tournament has them"):
        TournamentConfig(TournamentFormat.ROUND_ROBIN, ("a", "b"), swiss_rounds=1)
    with pytest.raises(TournamentError, match="swiss rounds must be 1 to 1 for 2 entrants"):
        TournamentConfig(TournamentFormat.SWISS, ("a", "b"))
    with pytest.raises(TournamentError, match="missing or mistypes 'best_of'"):
        TournamentConfig.from_mapping({k: v for k, v in STORED.items() if k != "best_of"})


@pytest.mark.parametrize(
    ("fmt", "cls"),
    [
        ("single_elimination", SingleElimination),
        ("double_elimination", DoubleElimination),
        ("round_robin", RoundRobin),
        ("swiss", Swiss),
    ],
)
def test_each_format_is_its_own_class(fmt: str, cls: type[Tournament]) -> None:
    t = Tournament.create(fmt, ["a", "b", "c", "d"])
    assert type(t) is cls and t.format == fmt
    assert type(cls(t.config)) is cls
    other = next(c for c in (SingleElimination, Swiss) if c is not cls)
    with pytest.raises(TournamentError, match="cannot run"):
        other(t.config)


def test_format_values_are_the_wire_ids() -> None:
    assert [f.value for f in TournamentFormat] == [
        "single_elimination",
        "double_elimination",
        "round_robin",
        "swiss",
    ]
