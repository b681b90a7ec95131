"""Halite III's benchmarks: ``snakewar bench halite`` and its part of ``bench compare``.

The engine's time per turn with in-process built-in bots (only
:meth:`~snakewar.games.halite3.HaliteGame.step` is the engine's time), and
:func:`compare_halite`: the same games played by the official C++ engine when its
binary is given (``--halite-engine``), for ``snakewar bench compare``
(:mod:`snakewar.cli.compare`).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import typer

from snakewar.cli.bench import Anchor, AnchorError, Comparison, Row, anchor_cell, speed_ratio

if TYPE_CHECKING:
    from snakewar.games.halite3 import Constants, HaliteGame
    from snakewar.games.halite3.bots import GameView, HaliteBot

__all__ = [
    "HALITE_ENGINE_ENV",
    "HALITE_RECORDED_MS_PER_TURN",
    "HALITE_RECORDED_US_PER_SHIP",
    "bench_halite",
    "compare_halite",
    "crowded_constants",
    "measure_halite",
    "measure_halite_crowded",
    "time_halite_engine",
]

HALITE_ENGINE_ENV = "SNAKEWAR_HALITE_ENGINE"
"""Environment variable naming a built official Halite III ``halite`` binary."""


HALITE_RECORDED_MS_PER_TURN = 0.297 / 500 * 1000
"""The C++ engine's recorded CPU per turn with ``--no-replay``: median of 3 runs of 500 turns,
4 "aggressive" Python bots, 97 ships on average, 64x64 (conformance ``engine_speed_runs.json``)."""
HALITE_RECORDED_US_PER_SHIP = HALITE_RECORDED_MS_PER_TURN * 1000 / 97
"""The same recorded figure per ship and turn (97 ships on average)."""


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


def compare_halite(
    halite_engine: str | None = typer.Option(
        None,
        "--halite-engine",
        envvar=HALITE_ENGINE_ENV,
        help="A built official halite binary (benchmarks/build_halite_engine.sh).",
    ),
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
) -> Callable[[int], Comparison]:
    """Halite III's part of ``bench compare``: its engine's CPU time per turn.

    Halite III: the official C++ engine (HaliteChallenge/Halite-III, game_engine/),
    built with cmake against Debian's libraries:
    `benchmarks/build_halite_engine.sh /path/to/Halite-III ./halite`, then
    `--halite-engine ./halite`.  It plays one --no-replay game of the same map with
    the same bots as stdio processes; its process CPU per turn is set against
    snakewar's HaliteGame.step time per turn.
    """
    if halite_engine and not os.access(halite_engine, os.X_OK):
        raise AnchorError(f"the Halite engine {halite_engine!r} is not an executable file")

    def measure(repeat: int) -> Comparison:
        return _compare_halite(
            halite_engine, halite_size, halite_bots, halite_seed, crowd_ships, repeat
        )

    return measure


def _compare_halite(
    halite_engine: str | None,
    halite_size: int,
    halite_bots: str,
    halite_seed: int,
    crowd_ships: int,
    repeat: int,
) -> Comparison:
    """Engine CPU time per turn: the same game (map and bots) on both engines.

    Played ``repeat`` times each; medians (one game's figure moved by a third between
    runs on a shared machine).
    """
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
    rows: list[Row] = [
        (f"Halite III {halite_size}x{halite_size}, {ours_h['ships_per_turn']:.0f} ships",
         f"{ms:.3f} ms/turn", anchor_cell(anchor_h, "{:.3f} ms/turn"),
         speed_ratio(ms, anchor_h, lower_is_better=True))
    ]  # fmt: skip
    if crowd_ships:
        rows.append(
            _crowded_row(halite_engine, halite_seed, halite_size, crowd_ships, repeat, notes)
        )
    return Comparison(rows, f"Halite: engine CPU time, median of {repeat} games each", notes)


def _crowded_row(
    halite_engine: str | None, seed: int, size: int, ships: int, repeat: int, notes: list[str]
) -> Row:
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
        return (label, f"{ours:.2f} us/ship-turn", anchor_cell(anchor, "{:.2f} us/ship-turn"),
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
    return (label, f"{ours:.2f} us/ship-turn", anchor_cell(anchor, "{:.2f} us/ship-turn"),
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
