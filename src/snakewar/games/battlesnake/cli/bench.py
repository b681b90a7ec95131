"""Battlesnake's benchmarks: ``snakewar bench rules``, ``bench referee``, ``bench sim``.

``snakewar bench rules`` measures the rules engine the way the official engine was
measured (conformance README, "Go engine throughput"): standard ruleset, standard
map, 11x11, 4 snakes, CLI default settings, random safe moves.  Only the engine is
timed: the map's pre-update, ``Ruleset.execute``, the map's post-update and the turn
increment, with the state copies they make.  Choosing the moves is timed
separately and excluded.  :func:`compare_rules` is the game's part of
``snakewar bench compare`` (:mod:`snakewar.cli.compare`).
"""

from __future__ import annotations

import itertools
import json
import os
import random
import statistics
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import typer

from snakewar.cli.bench import (
    Anchor,
    AnchorError,
    Comparison,
    Row,
    anchor_cell,
    free_port,
    speed_ratio,
)

__all__ = [
    "GO_HARNESS_ENV",
    "GO_RECORDED_TURNS_PER_SECOND",
    "GoHarnessResult",
    "bench_referee",
    "bench_rules",
    "bench_sim",
    "compare_rules",
    "engine_kind",
    "measure_referee",
    "measure_rules",
    "parse_go_harness",
    "run_go_harness",
    "start_bot_servers",
]

GO_HARNESS_ENV = "SNAKEWAR_GO_HARNESS"
"""Environment variable naming the built Go harness (``benchmarks/build_go_harness.sh``)."""


GO_RECORDED_TURNS_PER_SECOND = 78_196.0
"""The Go engine's recorded median, engine only, one thread (conformance README, "Go engine
throughput": 2 vCPU AMD EPYC, Go 1.19.8, its own biased-random policy)."""


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
    from snakewar.games.battlesnake import Game, GameConfig, Settings
    from snakewar.games.battlesnake.bots.random_safe import random_safe_moves

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


def start_bot_servers(names: list[str]) -> tuple[list[str], list[subprocess.Popen[bytes]]]:
    """Start one ``snakewar bot serve`` process per name; return URLs and processes."""
    import sys

    import httpx

    urls: list[str] = []
    procs: list[subprocess.Popen[bytes]] = []
    for name in names:
        port = free_port()
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
    from snakewar.games.battlesnake.referee.clients import new_http_client
    from snakewar.games.battlesnake.referee.runner import connect, play_game

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
    from snakewar.games.battlesnake.referee.batch import SnakeMatch, run_batch

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


def bench_sim(
    batches: str = typer.Option("1,64,1024,8192", "--batches", "--batch", help="Batch sizes B."),
    sizes: str = typer.Option("11,19", "--sizes", help="Square board sizes."),
    snakes: int = typer.Option(4, "--snakes"),
    seconds: float = typer.Option(2.0, "--seconds", help="Timed stepping per measurement."),
    workers: str = typer.Option("1,2", "--workers", help="Worker process counts."),
    backends: str = typer.Option(
        "auto", "--backends", help="Simulator backends side by side: numpy, numba, jax, auto."
    ),
) -> None:
    """The batched simulator's turns/s next to the rules engine's, same run.

    A turn is one step of one game; moves (random safe moves) are chosen outside
    the timed part, as in ``bench rules``.  With 2 workers, two processes each
    step their own batch at the same time and their rates are added (a numba
    kernel then runs on one thread per worker; with one worker, on all of numba's).

    jax runs one worker (its rows at other worker counts are left out) on jax's
    default device, choosing moves there too; on a GPU (pip install 'jax[cuda12]'):
    snakewar bench sim --backends jax --workers 1 --sizes 11 --batch 65536,262144,1048576
    The device column gives the device and its peak memory (jax's
    jax.devices()[0].memory_stats()["peak_bytes_in_use"]; CPUs report none).  The
    target is 1000x the Go engine's 78,196 turns/s (one core): 78 M turns/s.
    """
    from rich.console import Console
    from rich.table import Table

    from snakewar.games.battlesnake.sim.bench import measure

    measure_rules(5, 99)  # warm-up
    turns, engine, _ = measure_rules(60, 1)
    rules_rate = turns / engine
    table = Table(title="BatchSim, standard ruleset, random safe moves", title_justify="left")
    columns = (
        "board",
        "B",
        "backend",
        "workers",
        "turns/s",
        "snake-moves/s",
        "vs rules engine",
        "device",
    )
    for column in columns:
        table.add_column(column, justify="right")
    best = 0.0
    for size in (int(s) for s in sizes.split(",")):
        for batch in (int(b) for b in batches.split(",")):
            for backend, count in itertools.product(
                backends.split(","), (int(w) for w in workers.split(","))
            ):
                if backend == "jax" and count > 1:
                    continue  # one process drives the device
                result = measure(batch, size, size, snakes, seconds, count, backend=backend)
                rate = float(result["turns_per_second"])
                moves = float(result["snake_moves_per_second"])
                best = max(best, rate)
                table.add_row(
                    f"{size}x{size}",
                    str(batch),
                    str(result["backend"]),
                    str(count),
                    f"{rate:,.0f}",
                    f"{moves:,.0f}",
                    f"{rate / rules_rate:,.1f}x",
                    _device_cell(result),
                )
    console = Console(highlight=False)
    console.print(table)
    console.print(f"rules engine (same run, 11x11, 4 snakes): {rules_rate:,.0f} turns/s")
    typer.echo(f"{best:.0f} turns/s")


def _device_cell(result: dict[str, Any]) -> str:
    device = result.get("device")
    if device is None:
        return "host"
    peak = result.get("device_peak_bytes")
    return str(device) if peak is None else f"{device}, peak {peak / 2**20:,.0f} MiB"


@dataclass(frozen=True)
class GoHarnessResult:
    """What the Go harness (``benchmarks/go``) prints: engine-only turns/s."""

    turns: int
    turns_per_second: float
    workers: int
    go_version: str


def parse_go_harness(text: str) -> GoHarnessResult:
    """Read the Go harness's JSON line.

    Raises:
        AnchorError: the text is not the harness's JSON object.
    """
    try:
        data = json.loads(text)
        result = GoHarnessResult(
            turns=int(data["turns"]),
            turns_per_second=float(data["turns_per_second"]),
            workers=int(data["workers"]),
            go_version=str(data["go_version"]),
        )
    except (ValueError, KeyError, TypeError) as exc:
        raise AnchorError(f"unreadable Go harness output: {text.strip()[:200]!r} ({exc})") from exc
    if result.turns <= 0 or result.turns_per_second <= 0:
        raise AnchorError(f"Go harness played no turns: {text.strip()[:200]!r}")
    return result


def run_go_harness(path: str, games: int, seed: int, workers: int = 1) -> GoHarnessResult:
    """Run the built Go harness on ``bench rules``'s benchmark; ``workers`` goroutines.

    Raises:
        AnchorError: the harness is missing, fails or prints something else.
    """
    argv = [path, "-games", str(games), "-seed", str(seed), "-workers", str(workers)]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=600, check=False)
    except OSError as exc:
        raise AnchorError(f"cannot run the Go harness {path!r}: {exc}") from exc
    if done.returncode != 0:
        raise AnchorError(f"Go harness {path!r} failed: {done.stderr.strip()[-500:]}")
    return parse_go_harness(done.stdout)


def _rules_job(job: tuple[int, int]) -> float:
    turns, engine, _ = measure_rules(*job)
    return turns / engine


def compare_rules(
    go_harness: str | None = typer.Option(
        None,
        "--go-harness",
        envvar=GO_HARNESS_ENV,
        help="The built Go harness (benchmarks/build_go_harness.sh RULES_CHECKOUT).",
    ),
    games: int = typer.Option(300, "--games", help="Rules-engine games per run, each side."),
    seed: int = typer.Option(1, "--seed"),
    sim_batches: str = typer.Option(
        "64,1024,4096,8192", "--sim-batches", help="Batch sizes tried; the best is reported."
    ),
    sim_seconds: float = typer.Option(2.0, "--sim-seconds", help="Timed stepping per batch."),
) -> Callable[[int], Comparison]:
    """Battlesnake's part of ``bench compare``: its rules engine and batched simulator.

    Battlesnake: the official Go rules engine, timed by our harness on the
    `bench rules` benchmark (11x11, 4 snakes, standard, random safe moves, engine
    only).  Build it offline from a checkout of BattlesnakeOfficial/rules with Debian's
    Go (apt-get install golang-go):
    `benchmarks/build_go_harness.sh /path/to/rules ./rulesbench`, then
    `--go-harness ./rulesbench`.  "2 threads" runs 2 goroutines with GOMAXPROCS=2
    against 2 snakewar processes.  The batched simulator's best batch is set against
    the same Go figures.
    """
    if go_harness and not os.access(go_harness, os.X_OK):
        raise AnchorError(f"the Go harness {go_harness!r} is not an executable file")

    def measure(repeat: int) -> Comparison:
        return _compare_rules(go_harness, games, seed, sim_batches, sim_seconds, repeat)

    return measure


def _compare_rules(
    go_harness: str | None,
    games: int,
    seed: int,
    sim_batches: str,
    sim_seconds: float,
    repeat: int,
) -> Comparison:
    """The rules engine, one core and two, and the batched simulator, against Go."""
    from concurrent.futures import ProcessPoolExecutor

    from snakewar.games.battlesnake.sim.bench import measure

    measure_rules(max(games // 10, 2), seed + 1000)  # warm-up, untimed
    # Each repetition measures both sides back to back and the ratio is the median of
    # those pairs: on a shared machine the load drifts, and a ratio of two figures
    # taken a minute apart would carry that drift.
    ours_1: list[float] = []
    ours_2: list[float] = []
    go_1: list[float] = []
    go_2: list[float] = []
    go_version = ""
    with ProcessPoolExecutor(2) as pool:
        for _ in range(repeat):
            turns, engine, _ = measure_rules(games, seed)
            ours_1.append(turns / engine)
            # The second process plays the Go harness's second worker's games.
            ours_2.append(sum(pool.map(_rules_job, [(games, seed), (games, seed + 7_919)])))
            if go_harness:
                one = run_go_harness(go_harness, games, seed, workers=1)
                two = run_go_harness(go_harness, games, seed, workers=2)
                go_1.append(one.turns_per_second)
                go_2.append(two.turns_per_second)
                go_version = one.go_version
    median_1, median_2 = statistics.median(ours_1), statistics.median(ours_2)
    if go_harness:
        anchor_1 = Anchor("Go, 1 thread", statistics.median(go_1), True, go_version)
        anchor_2 = Anchor("Go, 2 threads", statistics.median(go_2), True, go_version)
        ratio_1: float | None = statistics.median(a / b for a, b in zip(ours_1, go_1, strict=True))
        ratio_2: float | None = statistics.median(a / b for a, b in zip(ours_2, go_2, strict=True))
    else:
        anchor_1 = Anchor("Go, 1 thread", GO_RECORDED_TURNS_PER_SECOND, False, "2 vCPU EPYC")
        anchor_2 = Anchor("Go, 2 threads", None, False)
        ratio_1, ratio_2 = speed_ratio(median_1, anchor_1), None
    rows: list[Row] = [
        ("rules engine, 1 process", f"{median_1:,.0f} turns/s", anchor_cell(anchor_1, "{:,.0f}"),
         ratio_1),
        ("rules engine, 2 processes", f"{median_2:,.0f} turns/s",
         anchor_cell(anchor_2, "{:,.0f}"), ratio_2),
    ]  # fmt: skip

    # Batched simulator at its best batch, 11x11, 4 snakes, against the same Go figures.
    for workers, anchor in ((1, anchor_1), (2, anchor_2)):
        rates = {
            batch: float(
                measure(batch, 11, 11, 4, sim_seconds, workers=workers)["turns_per_second"]
            )
            for batch in (int(b) for b in sim_batches.split(","))
        }
        best_batch = max(rates, key=rates.__getitem__)
        best = rates[best_batch]
        processes = "1 process" if workers == 1 else f"{workers} processes"
        rows.append(
            (f"batched sim, best B={best_batch}, {processes}", f"{best:,.0f} turns/s",
             anchor_cell(anchor, "{:,.0f}"), speed_ratio(best, anchor))
        )  # fmt: skip
    return Comparison(rows, f"rules engine: median of {repeat} back-to-back pairs")
