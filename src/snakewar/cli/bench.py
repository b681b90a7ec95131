"""``snakewar bench``: throughput figures.

``snakewar bench rules`` measures the rules engine the way the official engine was
measured (conformance README, "Go engine throughput"): standard ruleset, standard
map, 11x11, 4 snakes, CLI default settings, random safe moves.  Only the engine is
timed: the map's pre-update, ``Ruleset.execute``, the map's post-update and the turn
increment, with the state copies they make.  Choosing the moves is timed
separately and excluded.
"""

from __future__ import annotations

import itertools
import json
import os
import random
import statistics
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import typer

from snakewar.errors import SnakewarError

if TYPE_CHECKING:
    from snakewar.games.halite3 import Constants, HaliteGame
    from snakewar.games.halite3.bots import GameView, HaliteBot

__all__ = [
    "GO_HARNESS_ENV",
    "GO_RECORDED_TURNS_PER_SECOND",
    "HALITE_ENGINE_ENV",
    "HALITE_RECORDED_MS_PER_TURN",
    "HALITE_RECORDED_US_PER_SHIP",
    "Anchor",
    "AnchorError",
    "GoHarnessResult",
    "bench_app",
    "bench_compare",
    "bench_halite",
    "bench_referee",
    "bench_rules",
    "crowded_constants",
    "engine_kind",
    "measure_halite",
    "measure_halite_crowded",
    "measure_referee",
    "measure_rules",
    "parse_go_harness",
    "run_go_harness",
    "speed_ratio",
    "start_bot_servers",
    "time_halite_engine",
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


@bench_app.command("sim")
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


def _seat_halite_bots(
    game: HaliteGame, specs: Sequence[str], seed: int
) -> tuple[list[HaliteBot], list[GameView]]:
    """Built-in bots for the players of ``game``, set up, and the views they play on."""
    from snakewar.games.halite3.bots import make_halite_bot
    from snakewar.games.halite3.bots.kit import view_from_game

    bots = [make_halite_bot(spec, seed=seed) for spec in specs]
    views = [view_from_game(game, pid) for pid in range(len(specs))]
    for bot, view in zip(bots, views, strict=True):
        bot.setup(view)
    return bots, views


def _halite_commands(
    game: HaliteGame, bots: list[HaliteBot], views: list[GameView]
) -> dict[int, str | None]:
    """This turn's command line of every live player, its view brought up to date first."""
    from snakewar.games.halite3.bots.kit import update_view_from_game

    commands: dict[int, str | None] = {}
    for pid in game.live_players():
        update_view_from_game(views[pid], game)
        commands[pid] = " ".join(bots[pid].turn(views[pid]))
    return commands


def measure_halite(
    games: int,
    seed: int,
    size: int = 64,
    bots: Sequence[str] = ("random", "random", "random", "random"),
    max_turns: int | None = None,
    cpu_time: bool = False,
) -> dict[str, float]:
    """Play ``games`` Halite III games of in-process built-in bots; time the engine.

    Only :meth:`~snakewar.games.halite3.HaliteGame.step` is the engine's time (the
    bots' views and decisions are timed apart), which is what the official engine's
    0.3-0.55 ms of turn logic measures.  ``wall_s`` is a whole game, bots included,
    without a replay.  With ``cpu_time`` the engine and bots are timed in this thread's
    CPU time (the official engine's figure is its CPU time), which neither other
    processes nor this process's idle-spinning worker threads (numba's) inflate.
    """
    from snakewar.games.halite3 import HaliteGame

    clock = time.thread_time if cpu_time else time.perf_counter
    engine = deciding = wall = 0.0
    turns = ship_turns = 0
    for g in range(games):
        started = time.perf_counter()
        game = HaliteGame.create(seed + g, len(bots), width=size, height=size, turn_limit=max_turns)
        players, views = _seat_halite_bots(game, bots, seed + g)
        while not game.over:
            t0 = clock()
            commands = _halite_commands(game, players, views)
            t1 = clock()
            game.step(commands)
            t2 = clock()
            deciding += t1 - t0
            engine += t2 - t1
            turns += 1
            ship_turns += len(game.ships)
        wall += time.perf_counter() - started
    return {
        "games": games,
        "turns": turns,
        "engine_ms_per_turn": 1000 * engine / turns,
        "bots_ms_per_turn": 1000 * deciding / turns,
        "wall_s_per_game": wall / games,
        "ships_per_turn": ship_turns / turns,
    }


def crowded_constants(ships_per_player: int) -> Constants:
    """The crowded profile's constants: enough starting halite for the crowd."""
    from snakewar.games.halite3 import Constants

    return Constants(INITIAL_ENERGY=Constants().NEW_ENTITY_ENERGY_COST * ships_per_player * 20)


def measure_halite_crowded(
    seed: int,
    size: int = 64,
    players: int = 4,
    ships_per_player: int = 150,
    turns: int | None = None,
) -> dict[str, Any]:
    """Time the Halite III engine on crowded turns: ``ships_per_player`` ships per player.

    ``crowd`` bots (:class:`~snakewar.games.halite3.bots.CrowdBot`) spawn every turn until they
    hold ``ships_per_player`` ships and replace the ships they lose.  Players start with
    enough halite for that (:func:`crowded_constants`), which changes nothing the
    engine's time depends on but the number of ships.  Only
    :meth:`~snakewar.games.halite3.HaliteGame.step` is timed, in this thread's CPU time
    (as the official engine's figure is CPU time; on a shared machine the wall time
    also counts other processes' turns); ``ships_per_turn`` counts the ships at the
    start of each turn, ``ship_turns`` their sum over the game, and ``scores`` the
    players' final scores.
    """
    from snakewar.games.halite3 import HaliteGame

    game = HaliteGame.create(
        seed,
        players,
        width=size,
        height=size,
        constants=crowded_constants(ships_per_player),
        turn_limit=turns,
    )
    bots, views = _seat_halite_bots(game, [f"crowd?ships={ships_per_player}"] * players, seed)
    clock = time.thread_time
    timed: list[tuple[int, float]] = []
    while not game.over:
        commands = _halite_commands(game, bots, views)
        ships = len(game.ships)
        t0 = clock()
        game.step(commands)
        timed.append((ships, clock() - t0))
    # Crowded turns: at least 90% of the target (the first ones only fill the map).
    crowded = [(n, s) for n, s in timed if n * 10 >= ships_per_player * players * 9]
    result: dict[str, Any] = {"turns": len(timed), "crowded_turns": len(crowded)}
    for name, turns_ in (("", timed), ("crowded_", crowded)):
        engine = sum(s for _, s in turns_)
        ship_turns = sum(n for n, _ in turns_)
        result[name + "engine_ms_per_turn"] = 1000 * engine / max(len(turns_), 1)
        result[name + "ships_per_turn"] = ship_turns / max(len(turns_), 1)
        result[name + "us_per_ship_turn"] = 1e6 * engine / max(ship_turns, 1)
        result[name + "ship_turns"] = ship_turns
    result["scores"] = list(game.result().scores)
    return result


@bench_app.command("halite")
def bench_halite(
    games: int = typer.Option(3, "--games", help="Games to play (the median is reported)."),
    seed: int = typer.Option(4242, "--seed", help="Map seed of the first game."),
    size: int = typer.Option(64, "--size", help="Square map size."),
    bots: str = typer.Option(
        "random,random,random,random", "--bots", help="Built-in bots, comma-separated."
    ),
    profile: str = typer.Option(
        "bots",
        "--profile",
        help="bots: the built-in bots of --bots; crowded: 4 players keeping --ships ships each.",
    ),
    ships: int = typer.Option(150, "--ships", help="Ships per player (--profile crowded)."),
    turns: int | None = typer.Option(None, "--turns", help="Stop games after this many turns."),
) -> None:
    """Halite III engine time per turn: 4 in-process built-in bots on 64x64 by default.

    For comparison, the official C++ engine spends about 0.3-0.55 ms of CPU per turn
    on its turn logic and 0.48 s of wall time for a 500-turn game of 4 Python random
    bots without a replay (conformance README, "Engine speed"): about 0.54 ms at 97
    ships, some 5.6 us per ship and turn.  ``--profile crowded`` measures the engine
    per ship on turns with about ``--ships`` ships per player (``crowd`` bots);
    ``snakewar bench compare --halite-engine`` plays that game on both engines.
    """
    from rich.console import Console
    from rich.table import Table

    if profile == "crowded":
        _bench_halite_crowded(games, seed, size, ships, turns)
        return
    if profile != "bots":
        raise typer.BadParameter(
            f"expected bots or crowded, got {profile!r}", param_hint="--profile"
        )
    specs = [b.strip() for b in bots.split(",") if b.strip()]
    measure_halite(1, seed, 32, specs)  # warm-up
    runs = [measure_halite(1, seed + g, size, specs, turns) for g in range(games)]
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


# -- bench compare: each figure next to the official engine's ------------------------

GO_HARNESS_ENV = "SNAKEWAR_GO_HARNESS"
"""Environment variable naming the built Go harness (``benchmarks/build_go_harness.sh``)."""
HALITE_ENGINE_ENV = "SNAKEWAR_HALITE_ENGINE"
"""Environment variable naming a built official Halite III ``halite`` binary."""

GO_RECORDED_TURNS_PER_SECOND = 78_196.0
"""The Go engine's recorded median, engine only, one thread (conformance README, "Go engine
throughput": 2 vCPU AMD EPYC, Go 1.19.8, its own biased-random policy)."""
HALITE_RECORDED_MS_PER_TURN = 0.297 / 500 * 1000
"""The C++ engine's recorded CPU per turn with ``--no-replay``: median of 3 runs of 500 turns,
4 "aggressive" Python bots, 97 ships on average, 64x64 (conformance ``engine_speed_runs.json``)."""
HALITE_RECORDED_US_PER_SHIP = HALITE_RECORDED_MS_PER_TURN * 1000 / 97
"""The same recorded figure per ship and turn (97 ships on average)."""


class AnchorError(SnakewarError, RuntimeError):
    """An official engine (an anchor) could not be run, or its output not be read."""


@dataclass(frozen=True)
class Anchor:
    """One figure of an official engine, with where it comes from.

    ``measured`` is true when it was measured in this run; otherwise ``value`` is a
    recorded figure from the conformance data (another machine) or ``None``.
    """

    name: str
    value: float | None
    measured: bool
    note: str = ""


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


def time_halite_engine(
    path: str,
    seed: int,
    size: int,
    bots: Sequence[str],
    workdir: str,
    constants: Constants | None = None,
) -> dict[str, Any]:
    """Run the official ``halite`` binary once on ``bots``; return its CPU and wall time.

    Each bot is ``snakewar halite bot SPEC --seed SEED``, the stdio form of the
    in-process bot :func:`measure_halite` plays with the same seed, so both engines
    play the same map with the same bots.  The engine process's own CPU time
    (user + sys, from ``wait4``) is its figure: it kills its bots without waiting for
    them, so their CPU is not in it.  It does include the engine's start, map
    generation and the frames it writes to the bots.  ``constants`` are passed as a
    constants file (``-c``).  ``scores`` are the players' final scores, which tell that
    both engines played the same game.

    Raises:
        AnchorError: the engine is missing or fails.
    """
    import os
    import shlex
    import sys

    commands = [
        shlex.join([sys.executable, "-m", "snakewar", "halite", "bot", spec, "--seed", str(seed)])
        for spec in bots
    ]
    argv = [path, "--no-replay", "--no-logs", "--results-as-json", "-s", str(seed)]
    argv += ["--width", str(size), "--height", str(size)]
    if constants is not None:
        constants_file = os.path.join(workdir, "constants.json")
        with open(constants_file, "w", encoding="utf-8") as f:
            json.dump(constants.to_json(), f)
        argv += ["-c", constants_file]
    argv += commands
    started = time.perf_counter()
    try:
        proc = subprocess.Popen(
            argv, cwd=workdir, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
    except OSError as exc:
        raise AnchorError(f"cannot run the Halite engine {path!r}: {exc}") from exc
    assert proc.stdout is not None
    out = proc.stdout.read()
    proc.stdout.close()
    # wait4 rather than proc.wait(): it also returns the engine's own resource usage.
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - started
    if proc.returncode != 0:
        raise AnchorError(f"Halite engine {path!r} exited with {proc.returncode}")
    try:
        stats = json.loads(out)["stats"]
        scores = [int(stats[str(pid)]["score"]) for pid in range(len(bots))]
    except (ValueError, KeyError, TypeError) as exc:
        raise AnchorError(f"Halite engine {path!r} printed no results JSON") from exc
    return {"cpu_s": usage.ru_utime + usage.ru_stime, "wall_s": wall, "scores": scores}


def _rules_job(job: tuple[int, int]) -> float:
    turns, engine, _ = measure_rules(*job)
    return turns / engine


def speed_ratio(ours: float, anchor: Anchor, lower_is_better: bool = False) -> float | None:
    """Snakewar's speed over the anchor's: above 1 snakewar is faster.

    For rates it is ``ours / anchor``; for times (``lower_is_better``) ``anchor / ours``.
    ``None`` when the anchor has no figure.
    """
    if anchor.value is None or ours <= 0:
        return None
    return anchor.value / ours if lower_is_better else ours / anchor.value


def _anchor_cell(anchor: Anchor, fmt: str) -> str:
    if anchor.value is None:
        return f"{anchor.name}: not built here"
    text = f"{anchor.name}: {fmt.format(anchor.value)}"
    return (
        text if anchor.measured else f"{text} (recorded{', ' + anchor.note if anchor.note else ''})"
    )


def _ratio_cell(ratio: float | None) -> str:
    return "-" if ratio is None else f"{ratio:.3g}x"


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    import platform

    return platform.processor() or platform.machine() or "unknown CPU"


def _load() -> str:
    import os

    return " ".join(f"{x:.2f}" for x in os.getloadavg())


@bench_app.command("compare")
def bench_compare(
    go_harness: str | None = typer.Option(
        None,
        "--go-harness",
        envvar=GO_HARNESS_ENV,
        help="The built Go harness (benchmarks/build_go_harness.sh RULES_CHECKOUT).",
    ),
    halite_engine: str | None = typer.Option(
        None,
        "--halite-engine",
        envvar=HALITE_ENGINE_ENV,
        help="A built official halite binary (benchmarks/build_halite_engine.sh).",
    ),
    games: int = typer.Option(300, "--games", help="Rules-engine games per run, each side."),
    repeat: int = typer.Option(
        3, "--repeat", min=1, help="Paired rules-engine runs; medians are reported."
    ),
    seed: int = typer.Option(1, "--seed"),
    sim_batches: str = typer.Option(
        "64,1024,4096,8192", "--sim-batches", help="Batch sizes tried; the best is reported."
    ),
    sim_seconds: float = typer.Option(2.0, "--sim-seconds", help="Timed stepping per batch."),
    halite_size: int = typer.Option(64, "--halite-size", help="Square Halite map size."),
    halite_bots: str = typer.Option(
        "greedy,greedy,greedy,greedy",
        "--halite-bots",
        help="Built-in Halite bots (greedy spawns a crowd: ~150 ships on 64x64).",
    ),
    halite_seed: int = typer.Option(4242, "--halite-seed"),
    crowd_ships: int = typer.Option(
        150,
        "--crowd-ships",
        min=0,
        help="Ships per player of the crowded Halite game (crowd bots); 0 leaves it out.",
    ),
) -> None:
    """Snakewar's figures next to the official engines', as ratios, in one run.

    Ratios are "speed vs anchor": above 1x snakewar is faster.  An anchor is measured
    in this run when its binary is given; otherwise the recorded figure from the
    conformance data (another machine) is shown and labelled so, or "not built here".

    Battlesnake: the official Go rules engine, timed by our harness on the
    `bench rules` benchmark (11x11, 4 snakes, standard, random safe moves, engine
    only).  Build it offline from a checkout of BattlesnakeOfficial/rules with Debian's
    Go (apt-get install golang-go):
    `benchmarks/build_go_harness.sh /path/to/rules ./rulesbench`, then
    `--go-harness ./rulesbench`.  "2 threads" runs 2 goroutines with GOMAXPROCS=2
    against 2 snakewar processes.  The batched simulator's best batch is set against
    the same Go figures.

    Halite III: the official C++ engine (HaliteChallenge/Halite-III, game_engine/),
    built with cmake against Debian's libraries:
    `benchmarks/build_halite_engine.sh /path/to/Halite-III ./halite`, then
    `--halite-engine ./halite`.  It plays one --no-replay game of the same map with
    the same bots as stdio processes; its process CPU per turn is set against
    snakewar's HaliteGame.step time per turn.
    """
    import os
    from concurrent.futures import ProcessPoolExecutor

    from rich.console import Console
    from rich.table import Table

    from snakewar.games.battlesnake.sim.bench import measure

    # Fail before minutes of measuring, not after.
    for what, path in (("Go harness", go_harness), ("Halite engine", halite_engine)):
        if path and not os.access(path, os.X_OK):
            raise AnchorError(f"the {what} {path!r} is not an executable file")
    console = Console(highlight=False)
    console.print(f"machine: {_cpu_model()}, {os.cpu_count()} CPUs, load {_load()} (1/5/15 min)")
    table = Table(title="snakewar vs the official engines", title_justify="left")
    for column in ("figure", "snakewar", "anchor", "vs anchor"):
        table.add_column(column, justify="right" if column in ("snakewar", "vs anchor") else "left")

    # Battlesnake rules engine, one core and two.
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
    rows: list[tuple[str, str, str, float | None]] = [
        ("rules engine, 1 process", f"{median_1:,.0f} turns/s", _anchor_cell(anchor_1, "{:,.0f}"),
         ratio_1),
        ("rules engine, 2 processes", f"{median_2:,.0f} turns/s",
         _anchor_cell(anchor_2, "{:,.0f}"), ratio_2),
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
             _anchor_cell(anchor, "{:,.0f}"), speed_ratio(best, anchor))
        )  # fmt: skip

    # Halite III engine CPU time per turn: the same game (map and bots) on both engines,
    # played ``repeat`` times each; medians (one game's figure moved by a third between
    # runs on a shared machine).
    specs = [b.strip() for b in halite_bots.split(",") if b.strip()]
    measure_halite(1, halite_seed, 32, specs)  # warm-up
    ours_runs = [
        measure_halite(1, halite_seed, halite_size, specs, cpu_time=True) for _ in range(repeat)
    ]
    ours_h = ours_runs[0]
    ms = statistics.median(run["engine_ms_per_turn"] for run in ours_runs)
    notes = []
    if halite_engine:
        timings = _time_halite_engine_runs(repeat, halite_engine, halite_seed, halite_size, specs)
        cpu_s = statistics.median(t["cpu_s"] for t in timings)
        wall_s = statistics.median(t["wall_s"] for t in timings)
        # The same seed and bots play the same game, so it lasts as many turns as ours.
        anchor_h = Anchor("C++, process CPU", 1000 * cpu_s / ours_h["turns"], True)
        notes.append(
            f"C++ engine game with {len(specs)} stdio bots (median of {repeat}): {wall_s:.2f} s "
            f"wall, {cpu_s:.3f} s engine CPU for {ours_h['turns']:.0f} turns"
        )
    else:
        anchor_h = Anchor("C++", HALITE_RECORDED_MS_PER_TURN, False, "97 ships, 2 vCPU EPYC")
    rows.append(
        (f"Halite III {halite_size}x{halite_size}, {ours_h['ships_per_turn']:.0f} ships",
         f"{ms:.3f} ms/turn", _anchor_cell(anchor_h, "{:.3f} ms/turn"),
         speed_ratio(ms, anchor_h, lower_is_better=True))
    )  # fmt: skip
    if crowd_ships:
        rows.append(
            _crowded_row(halite_engine, halite_seed, halite_size, crowd_ships, repeat, notes)
        )

    for figure, ours, anchor_text, ratio in rows:
        table.add_row(figure, ours, anchor_text, _ratio_cell(ratio))
    console.print(table)
    console.print(
        "vs anchor: snakewar's speed over the anchor's (above 1x snakewar is faster); rules "
        f"engine: median of {repeat} back-to-back pairs; Halite: engine CPU time, median of "
        f"{repeat} games each; recorded = the conformance data's "
        "figure from another machine, not measured here"
    )
    for note in notes:
        console.print(note)
    console.print(f"load after: {_load()}")


def _time_halite_engine_runs(
    repeat: int,
    path: str,
    seed: int,
    size: int,
    specs: Sequence[str],
    constants: Constants | None = None,
) -> list[dict[str, Any]]:
    """:func:`time_halite_engine` ``repeat`` times, each in a fresh working directory."""
    import tempfile

    timings = []
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as workdir:
            timings.append(time_halite_engine(path, seed, size, specs, workdir, constants))
    return timings


def _crowded_row(
    halite_engine: str | None, seed: int, size: int, ships: int, repeat: int, notes: list[str]
) -> tuple[str, str, str, float | None]:
    """Halite III per ship-turn with ``ships`` crowd ships per player, on both engines.

    The same game (map, constants, crowd bots and seeds) on both: Snakewar's engine in
    this thread's CPU time, the official engine's process CPU time, each over the whole
    game's ship-turns (counted in Snakewar's game), medians of ``repeat`` games.  The
    final scores must agree, or the games differed and the row says so.
    """
    runs = [measure_halite_crowded(seed, size, 4, ships) for _ in range(repeat)]
    ours = statistics.median(run["us_per_ship_turn"] for run in runs)
    ship_turns = runs[0]["ship_turns"]
    label = f"Halite III crowded, {size}x{size}, {runs[0]['crowded_ships_per_turn']:.0f} ships"
    if not halite_engine:
        anchor = Anchor("C++", HALITE_RECORDED_US_PER_SHIP, False, "97 ships, 2 vCPU EPYC")
        return (label, f"{ours:.2f} us/ship-turn", _anchor_cell(anchor, "{:.2f} us/ship-turn"),
                speed_ratio(ours, anchor, lower_is_better=True))  # fmt: skip
    specs = [f"crowd?ships={ships}"] * 4
    timings = _time_halite_engine_runs(
        repeat, halite_engine, seed, size, specs, crowded_constants(ships)
    )
    cpu_s = statistics.median(t["cpu_s"] for t in timings)
    anchor = Anchor("C++, process CPU", 1e6 * cpu_s / ship_turns, True)
    same = all(t["scores"] == runs[0]["scores"] for t in timings)
    notes.append(
        f"crowded game: {runs[0]['turns']} turns, {ship_turns:,} ship-turns, "
        f"{runs[0]['crowded_turns']} turns with 90% of the crowd; C++ engine CPU "
        f"{cpu_s:.3f} s (median of {repeat}); final scores "
        + ("equal on both engines" if same else "DIFFER: not the same game")
    )
    return (label, f"{ours:.2f} us/ship-turn", _anchor_cell(anchor, "{:.2f} us/ship-turn"),
            speed_ratio(ours, anchor, lower_is_better=True) if same else None)  # fmt: skip


def _bench_halite_crowded(games: int, seed: int, size: int, ships: int, turns: int | None) -> None:
    from rich.console import Console
    from rich.table import Table

    measure_halite_crowded(seed + 1000, 32, ships_per_player=ships // 4 + 1, turns=60)  # warm-up
    runs = [measure_halite_crowded(seed + g, size, 4, ships, turns) for g in range(games)]
    table = Table(
        title=f"Halite III, crowded: 4 players keeping {ships} ships each, {size}x{size}"
        " (engine CPU time)",
        title_justify="left",
    )
    # Whole games, then only the crowded turns (at least 90% of the ships).
    columns = ("seed", "turns", "ships", "ms/turn", "us/ship")
    for column in (*columns, "crowded", "ships", "ms/turn", "us/ship"):
        table.add_column(column, justify="right")
    for g, run in enumerate(runs):
        table.add_row(
            str(seed + g),
            str(int(run["turns"])),
            f"{run['ships_per_turn']:.1f}",
            f"{run['engine_ms_per_turn']:.3f}",
            f"{run['us_per_ship_turn']:.2f}",
            str(int(run["crowded_turns"])),
            f"{run['crowded_ships_per_turn']:.1f}",
            f"{run['crowded_engine_ms_per_turn']:.3f}",
            f"{run['crowded_us_per_ship_turn']:.2f}",
        )
    Console(highlight=False).print(table)
    engine = statistics.median(r["crowded_engine_ms_per_turn"] for r in runs)
    per_ship = statistics.median(r["crowded_us_per_ship_turn"] for r in runs)
    typer.echo(
        f"median on crowded turns: {engine:.3f} ms/turn, {per_ship:.2f} us per ship-turn of"
        " engine CPU (official C++ engine: about 5.6 us per ship-turn)"
    )
