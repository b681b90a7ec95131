"""Halite III's benchmark, ``snakewar bench halite``, run as a user runs it."""

from __future__ import annotations

from tests.cli_process import run


def test_bench_halite_crowded_keeps_the_ships_on_the_map() -> None:
    out = run(
        "bench", "halite", "--profile", "crowded", "--games", "1", "--turns", "40", "--size", "32"
    )
    assert out.returncode == 0, out.stderr
    last = out.stdout.strip().splitlines()[-1]
    assert last.startswith("median on crowded turns: ") and "us per ship-turn" in last
    from snakewar.games.halite3.cli.bench import measure_halite_crowded

    run_ = measure_halite_crowded(7, size=32, ships_per_player=12, turns=40)
    assert run_["turns"] == 40
    # Every player spawns a ship a turn until it holds 12, then replaces its losses.
    assert run_["crowded_turns"] >= 20
    assert run_["crowded_ships_per_turn"] >= 0.9 * 4 * 12
    assert run_["crowded_us_per_ship_turn"] > 0


def test_bench_halite_refuses_an_unknown_profile() -> None:
    out = run("bench", "halite", "--profile", "packed")
    assert out.returncode == 2
    assert "expected bots or crowded" in out.stderr
