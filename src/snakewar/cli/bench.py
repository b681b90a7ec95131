"""``snakewar bench``: throughput figures.

``snakewar bench rules`` measures the rules engine the way the official engine was
measured (conformance README, "Go engine throughput"): standard ruleset, standard
map, 11x11, 4 snakes, CLI default settings, random safe moves.  Only the engine is
timed: the map's pre-update, ``Ruleset.execute``, the map's post-update and the turn
increment, with the state copies they make.  Choosing the moves is timed
separately and excluded.
"""

from __future__ import annotations

import os
import random
import statistics
import subprocess
import time
from collections.abc import Sequence

import typer

__all__ = [
    "bench_app",
    "bench_halite",
    "bench_referee",
    "bench_rules",
    "engine_kind",
    "measure_halite",
    "measure_referee",
    "measure_rules",
    "start_bot_servers",
]

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
    typer.echo(f"engine: {engine_kind()}")
    typer.echo(f"engine + move generation: {statistics.median(move_rates):,.0f} turns/s")
    typer.echo(f"per repetition (engine only): {', '.join(f'{x:,.0f}' for x in rates)}")
    typer.echo(f"{statistics.median(rates):.0f} turns/s")


def engine_kind() -> str:
    """Which rules engine this process runs: compiled (mypyc) or pure Python."""
    from snakewar import compiled_modules

    kinds = compiled_modules()
    if all(kinds.values()):
        return "compiled (mypyc)"
    if not any(kinds.values()):
        why = " (SNAKEWAR_PURE=1)" if os.environ.get("SNAKEWAR_PURE") == "1" else ""
        return f"pure Python{why}"
    return "partly compiled: " + ", ".join(name for name, c in kinds.items() if c)


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def start_bot_servers(names: list[str]) -> tuple[list[str], list[subprocess.Popen[bytes]]]:
    """Start one ``snakewar bot serve`` process per name; return URLs and processes."""
    import sys

    import httpx

    urls: list[str] = []
    procs: list[subprocess.Popen[bytes]] = []
    for name in names:
        port = _free_port()
        procs.append(
            subprocess.Popen(
                [sys.executable, "-m", "snakewar", "bot", "serve", name, "--port", str(port)],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        )
        urls.append(f"http://127.0.0.1:{port}")
    deadline = time.monotonic() + 30
    for url in urls:
        while True:
            try:
                httpx.get(url + "/", timeout=1)
                break
            except httpx.TransportError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
    return urls, procs


def measure_referee(
    specs: list[str], games: int, seed: int, timeout_ms: int = 500
) -> tuple[list[float], list[float]]:
    """Play ``games`` games; per turn return (turn time, time waiting for the slowest snake)."""
    import asyncio

    from snakewar.games.battlesnake import GameConfig, Settings
    from snakewar.games.battlesnake.records import GameRecord, TurnRecord
    from snakewar.referee import connect, new_http_client, play_game

    turn_times: list[float] = []
    waits: list[float] = []

    async def run() -> None:
        async with new_http_client() as http:
            snakes = await connect(specs, [], http, timeout_ms)
            last = [0.0]

            def on_turn(record: GameRecord, turn: TurnRecord) -> None:
                now = time.perf_counter()
                # Turn 0 also holds /start; only later turns are pure move rounds.
                if turn.turn > 0:
                    turn_times.append(now - last[0])
                    waits.append(max(c.latency_ms for c in turn.calls.values()) / 1000)
                last[0] = now

            for g in range(games):
                await play_game(
                    GameConfig(settings=Settings.defaults(seed=seed + g)),
                    snakes,
                    timeout_ms=timeout_ms,
                    on_turn=on_turn,
                )

    asyncio.run(run())
    return turn_times, waits


@bench_app.command("referee")
def bench_referee(
    bot: str = typer.Option("random", "--bot", help="Built-in bot behind each HTTP snake."),
    snakes: int = typer.Option(4, "--snakes"),
    games: int = typer.Option(20, "--games", help="Games for the per-turn figures."),
    batch: int = typer.Option(40, "--batch", help="Games for the games/min figure."),
    workers: int = typer.Option(2, "--workers", help="Worker processes for the batch."),
    seed: int = typer.Option(1, "--seed"),
) -> None:
    """Referee overhead per turn and batch throughput against local HTTP bots.

    Each snake is a ``snakewar bot serve`` process on loopback.  Overhead per turn
    is the turn's wall time minus the slowest snake's round trip: building and
    encoding requests, reading replies, the rules, bookkeeping.
    """
    from snakewar.referee import SnakeMatch, run_batch

    urls, procs = start_bot_servers([bot] * snakes)
    try:
        measure_referee(urls, 2, seed + 10_000)  # warm-up: connections, imports
        turn_times, waits = measure_referee(urls, games, seed)
        overhead = [t - w for t, w in zip(turn_times, waits, strict=True)]
        local_turns, _ = measure_referee([f"builtin:{bot}"] * snakes, games, seed)
        typer.echo(f"{snakes} HTTP snakes (builtin:{bot} servers), {len(turn_times)} turns")
        typer.echo(
            f"turn time: median {statistics.median(turn_times) * 1000:.2f} ms, "
            f"slowest snake's round trip: median {statistics.median(waits) * 1000:.2f} ms"
        )
        typer.echo(
            f"referee overhead per turn: median {statistics.median(overhead) * 1000:.2f} ms, "
            f"mean {statistics.fmean(overhead) * 1000:.2f} ms"
        )
        typer.echo(
            f"same games in-process (builtin:{bot}, no HTTP): "
            f"median {statistics.median(local_turns) * 1000:.2f} ms per turn"
        )
        spec = SnakeMatch(snakes=tuple(urls))
        started = time.perf_counter()
        stats = run_batch(spec, [seed + i for i in range(batch)], workers=workers)
        elapsed = time.perf_counter() - started
        typer.echo(
            f"batch: {stats.games} games, {stats.mean_turns:.0f} turns on average, "
            f"--workers {workers}: {stats.games / elapsed * 60:.0f} games/min"
        )
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            proc.wait(10)


@bench_app.command("sim")
def bench_sim(
    batches: str = typer.Option("1,64,1024,8192", "--batches", help="Batch sizes B."),
    sizes: str = typer.Option("11,19", "--sizes", help="Square board sizes."),
    snakes: int = typer.Option(4, "--snakes"),
    seconds: float = typer.Option(2.0, "--seconds", help="Timed stepping per measurement."),
    workers: str = typer.Option("1,2", "--workers", help="Worker process counts."),
) -> None:
    """The batched simulator's turns/s next to the rules engine's, same run.

    A turn is one step of one game; moves (random safe moves) are chosen outside
    the timed part, as in ``bench rules``.  With 2 workers, two processes each
    step their own batch at the same time and their rates are added.
    """
    from rich.console import Console
    from rich.table import Table

    from snakewar.sim.bench import measure

    measure_rules(5, 99)  # warm-up
    turns, engine, _ = measure_rules(60, 1)
    rules_rate = turns / engine
    table = Table(title="snakewar.sim, standard ruleset, random safe moves", title_justify="left")
    for column in ("board", "B", "workers", "turns/s", "snake-moves/s", "vs rules engine"):
        table.add_column(column, justify="right")
    best = 0.0
    for size in (int(s) for s in sizes.split(",")):
        for batch in (int(b) for b in batches.split(",")):
            for count in (int(w) for w in workers.split(",")):
                result = measure(batch, size, size, snakes, seconds, workers=count)
                rate = float(result["turns_per_second"])
                moves = float(result["snake_moves_per_second"])
                best = max(best, rate)
                table.add_row(
                    f"{size}x{size}",
                    str(batch),
                    str(count),
                    f"{rate:,.0f}",
                    f"{moves:,.0f}",
                    f"{rate / rules_rate:,.1f}x",
                )
    console = Console(highlight=False)
    console.print(table)
    console.print(f"rules engine (same run, 11x11, 4 snakes): {rules_rate:,.0f} turns/s")
    typer.echo(f"{best:.0f} turns/s")


def measure_halite(
    games: int,
    seed: int,
    size: int = 64,
    bots: Sequence[str] = ("random", "random", "random", "random"),
) -> dict[str, float]:
    """Play ``games`` Halite III games of in-process built-in bots; time the engine.

    Only :meth:`~snakewar.games.halite3.HaliteGame.step` is the engine's time (the
    bots' views and decisions are timed apart), which is what the official engine's
    0.3-0.55 ms of turn logic measures.  ``wall_s`` is a whole game, bots included,
    without a replay.
    """
    from snakewar.bots.halite import make_halite_bot
    from snakewar.bots.halite.kit import update_view_from_game, view_from_game
    from snakewar.games.halite3 import HaliteGame

    clock = time.perf_counter
    engine = deciding = wall = 0.0
    turns = ship_turns = 0
    for g in range(games):
        started = clock()
        game = HaliteGame.create(seed + g, len(bots), width=size, height=size)
        players = [make_halite_bot(spec, seed=seed + g) for spec in bots]
        views = [view_from_game(game, pid) for pid in range(len(bots))]
        for bot, view in zip(players, views, strict=True):
            bot.setup(view)
        while not game.over:
            t0 = clock()
            commands: dict[int, str | None] = {}
            for pid in game.live_players():
                view = views[pid]
                update_view_from_game(view, game)
                commands[pid] = " ".join(players[pid].turn(view))
            t1 = clock()
            game.step(commands)
            t2 = clock()
            deciding += t1 - t0
            engine += t2 - t1
            turns += 1
            ship_turns += len(game.ships)
        wall += clock() - started
    return {
        "games": games,
        "turns": turns,
        "engine_ms_per_turn": 1000 * engine / turns,
        "bots_ms_per_turn": 1000 * deciding / turns,
        "wall_s_per_game": wall / games,
        "ships_per_turn": ship_turns / turns,
    }


@bench_app.command("halite")
def bench_halite(
    games: int = typer.Option(3, "--games", help="Games to play (the median is reported)."),
    seed: int = typer.Option(4242, "--seed", help="Map seed of the first game."),
    size: int = typer.Option(64, "--size", help="Square map size."),
    bots: str = typer.Option(
        "random,random,random,random", "--bots", help="Built-in bots, comma-separated."
    ),
) -> None:
    """Halite III engine time per turn: 4 in-process built-in bots on 64x64 by default.

    For comparison, the official C++ engine spends about 0.3-0.55 ms of CPU per turn
    on its turn logic and 0.48 s of wall time for a 500-turn game of 4 Python random
    bots without a replay (conformance README, "Engine speed").
    """
    from rich.console import Console
    from rich.table import Table

    specs = [b.strip() for b in bots.split(",") if b.strip()]
    measure_halite(1, seed, 32, specs)  # warm-up
    runs = [measure_halite(1, seed + g, size, specs) for g in range(games)]
    table = Table(
        title=f"Halite III, {len(specs)} in-process bots ({', '.join(specs)}), {size}x{size}",
        title_justify="left",
    )
    for column in ("seed", "turns", "ships/turn", "engine ms/turn", "bots ms/turn", "game wall s"):
        table.add_column(column, justify="right")
    for g, run in enumerate(runs):
        table.add_row(
            str(seed + g),
            str(int(run["turns"])),
            f"{run['ships_per_turn']:.1f}",
            f"{run['engine_ms_per_turn']:.3f}",
            f"{run['bots_ms_per_turn']:.3f}",
            f"{run['wall_s_per_game']:.3f}",
        )
    Console(highlight=False).print(table)
    engine = statistics.median(r["engine_ms_per_turn"] for r in runs)
    wall = statistics.median(r["wall_s_per_game"] for r in runs)
    typer.echo(f"median engine time: {engine:.3f} ms/turn; median game wall time: {wall:.3f} s")
