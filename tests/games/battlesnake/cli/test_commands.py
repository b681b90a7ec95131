"""Battlesnake's commands (play, maps, its benchmarks), run as a user runs them."""

from __future__ import annotations

import re

import pytest

from tests.cli_process import run
from tests.games.battlesnake.sim.conftest import require_jax, require_numba


def test_play_seeded_game_is_reproducible() -> None:
    # Deterministic bots: the time-budgeted hunter searches as deep as time allows.
    snakes = ("greedy", "random", "hunter?depth=1", "random")
    first = run("play", "-r", "42", *snakes)
    assert first.returncode == 0, first.stderr
    assert "seed 42" in first.stdout
    assert "was the winner" in first.stdout or "draw" in first.stdout
    second = run("play", "-r", "42", *snakes)

    def game_part(stdout: str) -> list[str]:
        # The board and the outcome; latencies in the summary table vary run to run, and
        # each game has an id of its own.
        return [
            re.sub(r"^Game [0-9a-f-]{36} ", "Game ID ", line)
            for line in stdout.splitlines()
            if not line.startswith(("│", "┃", "┏", "┡", "└"))
        ]

    assert game_part(second.stdout) == game_part(first.stdout)
    assert any(line.startswith("Game ID after ") for line in game_part(first.stdout))


def test_play_viewmap_draws_every_turn() -> None:
    out = run("play", "-r", "3", "-v", "-W", "7", "-H", "7", "builtin:random", "random")
    assert out.returncode == 0, out.stderr
    turns = out.stdout.count("\nturn ")
    assert turns >= 3


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("play", "-m", "nowhere"), "unknown map 'nowhere'"),
        (("play", "-g", "squad"), "unknown ruleset 'squad'"),
        (("play", "builtin:hunter2"), "unknown built-in bot 'hunter2'"),
        (("play", "nothing"), "snake 'nothing': expected a URL"),
        (("play", "-m", "arcade_maze"), "19x21"),
        (("maps", "info", "nowhere"), "unknown map 'nowhere'"),
    ],
)
def test_bad_input_is_one_error_line(args: tuple[str, ...], needle: str) -> None:
    out = run(*args)
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and needle in lines[0], out.stderr
    assert "Traceback" not in out.stderr


def test_maps_list_shows_all_25_maps() -> None:
    out = run("maps", "list")
    assert out.returncode == 0, out.stderr
    for map_id in (
        "standard",
        "hz_castle_wall_xl",
        "hz_rivers_bridges_lg",
        "solo_maze",
        "snail_mode",
    ):
        assert map_id in out.stdout


def test_maps_info() -> None:
    out = run("maps", "info", "royale", "arcade_maze")
    assert out.returncode == 0, out.stderr
    assert "name:        Royale" in out.stdout and "sizes:       19x21" in out.stdout


def test_bench_rules_prints_turns_per_second() -> None:
    out = run("bench", "rules", "--games", "3", "--repeat", "1")
    assert out.returncode == 0, out.stderr
    last = out.stdout.strip().splitlines()[-1]
    assert last.endswith(" turns/s") and int(last.split()[0]) > 0
    # It says which engine it measured: the one this process imports.
    import snakewar

    expected = "compiled (mypyc)" if all(snakewar.compiled_modules().values()) else "pure Python"
    assert f"engine: {expected}" in out.stdout


def test_bench_sim_compares_the_backends() -> None:
    require_numba()
    out = run(
        "bench", "sim", "--batches", "4", "--sizes", "7", "--seconds", "0.1", "--workers", "1",
        "--backends", "numpy,numba",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    rows = [line for line in out.stdout.splitlines() if "7x7" in line]
    assert len(rows) == 2 and "numpy" in rows[0] and "numba" in rows[1]
    assert int(out.stdout.strip().splitlines()[-1].split()[0]) > 0


def test_bench_sim_measures_jax_on_one_worker() -> None:
    require_jax()
    out = run(
        "bench", "sim", "--batch", "4", "--sizes", "7", "--seconds", "0.1", "--workers", "1,2",
        "--backends", "numpy,jax",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    rows = [line for line in out.stdout.splitlines() if "7x7" in line]
    assert len(rows) == 3 and "jax" in rows[2] and "cpu" in rows[2]  # no jax row at 2 workers
