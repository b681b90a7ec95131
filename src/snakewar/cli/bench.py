"""``snakewar bench``: throughput figures.

``snakewar bench rules`` measures the rules engine the way the official engine was
measured (conformance README, "Go engine throughput"): standard ruleset, standard
map, 11x11, 4 snakes, CLI default settings, random safe moves.  Only the engine is
timed: the map's pre-update, ``Ruleset.execute``, the map's post-update and the turn
increment, with the state copies they make.  Choosing the moves is timed
separately and excluded.
"""

from __future__ import annotations

import random
import statistics
import time

import typer

__all__ = ["bench_app", "bench_rules", "measure_rules"]

bench_app = typer.Typer(help="Measure throughput.", no_args_is_help=True)


def measure_rules(
    games: int,
    seed: int,
    width: int = 11,
    height: int = 11,
    snakes: int = 4,
    ruleset: str = "standard",
    map_id: str = "standard",
) -> tuple[int, float, float]:
    """Play ``games`` games; return ``(turns, engine_seconds, move_seconds)``."""
    from snakewar.bots.random_safe import random_safe_moves
    from snakewar.games.battlesnake import Game, GameConfig, Settings

    rng = random.Random(seed)
    ids = [f"snake-{i + 1}" for i in range(snakes)]
    wrapped = "wrapped" in ruleset
    engine = moving = 0.0
    turns = 0
    clock = time.perf_counter
    for g in range(games):
        config = GameConfig(
            ruleset=ruleset,
            map=map_id,
            width=width,
            height=height,
            settings=Settings.defaults(seed=seed * 100_003 + g + 1),
        )
        game = Game(config, ids)
        while not game.is_over:
            t0 = clock()
            moves = random_safe_moves(game.state, rng, wrapped)
            t1 = clock()
            game.step(moves)
            t2 = clock()
            moving += t1 - t0
            engine += t2 - t1
            turns += 1
    return turns, engine, moving


@bench_app.command("rules")
def bench_rules(
    games: int = typer.Option(300, "--games", help="Games per repetition."),
    repeat: int = typer.Option(3, "--repeat", help="Repetitions; the median is reported."),
    seed: int = typer.Option(1, "--seed"),
    width: int = typer.Option(11, "-W", "--width"),
    height: int = typer.Option(11, "-H", "--height"),
    snakes: int = typer.Option(4, "--snakes"),
    ruleset: str = typer.Option("standard", "-g", "--gametype"),
    map_id: str = typer.Option("standard", "-m", "--map"),
) -> None:
    """Print the rules engine's turns per second (engine only, moves excluded)."""
    # Warm up first (imports, caches, the allocator), untimed.
    measure_rules(max(games // 10, 5), seed + 1000, width, height, snakes, ruleset, map_id)
    rates, move_rates = [], []
    total_turns = 0
    for r in range(repeat):
        turns, engine, moving = measure_rules(
            games, seed + r, width, height, snakes, ruleset, map_id
        )
        total_turns += turns
        rates.append(turns / engine)
        move_rates.append(turns / (engine + moving))
    typer.echo(
        f"{ruleset} ruleset, {map_id} map, {width}x{height}, {snakes} snakes, "
        f"{repeat} x {games} games, {total_turns} turns"
    )
    typer.echo(f"engine + move generation: {statistics.median(move_rates):,.0f} turns/s")
    typer.echo(f"per repetition (engine only): {', '.join(f'{x:,.0f}' for x in rates)}")
    typer.echo(f"{statistics.median(rates):.0f} turns/s")
