"""``snakewar halite``: play Halite III games like the official ``halite`` engine binary.

``snakewar halite play`` takes the engine's flags and writes its outputs: the ``.hlt``
replay named ``replay-YYYYMMDD-HHMMSS±ZZZZ-<seed>-<w>-<h>.hlt`` in ``-i`` (default: the
current directory), ``errorlog-…-<pid>.log`` files for players with log output, and with
``--results-as-json`` the engine's results object on stdout.  Entrants are bot commands
(split into words and run directly, never by a shell) or ``builtin:NAME`` bots played
in-process.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

if TYPE_CHECKING:
    from snakewar.games.halite3 import HaliteGame
    from snakewar.referee.halite import HaliteMatch

__all__ = ["final_snapshot", "halite_app", "results_object"]

halite_app = typer.Typer(
    help="Halite III: play games between bots with the official engine's rules and flags.",
    no_args_is_help=True,
    rich_markup_mode=None,
)

#: The version string the official engine puts in snapshots and replays.
ENGINE_VERSION = "1.2.2.finals"
_CONFORMANCE_ENV = "SNAKEWAR_HALITE_CONFORMANCE_DIR"


def _fail(message: str) -> typer.Exit:
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(2)


def final_snapshot(game: HaliteGame, map_players: int) -> str:
    """The engine's ``final_snapshot`` string (what ``--from-snapshot`` reads).

    ``version;fractal,w,h,n,seed;cells,…;`` then per player
    ``pid;energy;fx-fy,dropoff-x-y,…;ship-x-y-cargo,…;``.  Ships come in the engine's
    hash-table order, as in the frames bots receive.
    """
    parts = [f"{ENGINE_VERSION};fractal,{game.width},{game.height},{map_players},{game.seed};"]
    parts.append("".join(f"{v}," for v in game.halite) + ";")
    for player in game.players:
        fx, fy = player.shipyard
        dropoffs = "".join(f"{d.id}-{d.x}-{d.y}," for d in player.dropoffs)
        ships = "".join(f"{s.id}-{s.x}-{s.y}-{s.cargo}," for s in player.ships_in_order())
        parts.append(f"{player.id};{player.energy};{fx}-{fy},{dropoffs};{ships};")
    return "".join(parts)


def results_object(
    match: HaliteMatch,
    *,
    replay: str | None,
    error_logs: dict[int, str],
    map_players: int,
) -> dict[str, Any]:
    """The engine's ``--results-as-json`` object for a finished match.

    Args:
        match: the finished match.
        replay: the replay path, or ``None`` with ``--no-replay`` (the key is left out).
        error_logs: the error log paths written, by player id.
        map_players: the players the map was made for (``-n``).
    """
    game = match.game
    result = game.result()
    results: dict[str, Any] = {
        "error_logs": {str(pid): path for pid, path in error_logs.items()},
        "terminated": {
            str(pid): game.players[pid].terminated for pid, text in match.error_logs.items() if text
        },
        "map_width": game.width,
        "map_height": game.height,
        "map_seed": game.seed,
        "map_generator": "fractal",
        # The engine's is the halite of the map it generated, before any turn.
        "map_total_halite": sum(sum(row) for row in game.initial_halite),
        "execution_time": match.execution_time_ms,
        "final_snapshot": final_snapshot(game, map_players),
        "stats": {
            str(pid): {"rank": result.ranks[pid], "score": result.scores[pid]}
            for pid in range(game.num_players)
        },
    }
    if replay is not None:
        results["replay"] = replay
    return results


@halite_app.command("play")
def play(
    bot_commands: list[str] = typer.Argument(
        None,
        help="Bot commands (split into words and run directly: no shell, so no && ; | > "
        "$VAR; use a script for those), or builtin:NAME[?opts].",
    ),
    seed: int | None = typer.Option(
        None, "-s", "--seed", help="Map seed (default: the clock).", min=0, max=0xFFFFFFFF
    ),
    width: int | None = typer.Option(
        None, "--width", help="Map width (default: the size the seed picks).", min=1
    ),
    height: int | None = typer.Option(
        None, "--height", help="Map height (default: the size the seed picks).", min=1
    ),
    players: int | None = typer.Option(
        None, "-n", "--players", help="Make the map for this many players.", min=1
    ),
    turn_limit: int | None = typer.Option(None, "--turn-limit", help="Maximum turns.", min=1),
    no_timeout: bool = typer.Option(False, "--no-timeout", help="Ignore bot timeouts."),
    replay_directory: Path = typer.Option(
        Path("."), "-i", "--replay-directory", help="Folder for the replay and error logs."
    ),
    no_replay: bool = typer.Option(False, "--no-replay", help="Write no replay."),
    no_compression: bool = typer.Option(
        False, "--no-compression", help="Write the replay as plain JSON."
    ),
    no_logs: bool = typer.Option(
        False, "--no-logs", help="Write no error logs (except for killed players, as the engine)."
    ),
    results_as_json: bool = typer.Option(
        False, "--results-as-json", help="Print the engine's results JSON at the end."
    ),
    constants_file: Path | None = typer.Option(
        None, "-c", "--constants", "--constants-file", help="JSON file of constants to use."
    ),
    print_constants: bool = typer.Option(
        False, "--print-constants", help="Print the constants JSON and exit."
    ),
    strict: bool = typer.Option(
        False, "--strict", help="Warnings (unaffordable moves, own collisions) end the game."
    ),
    map_type: str = typer.Option(
        "fractal", "-m", "--map-type", help="Map generator: fractal (the official default)."
    ),
    override_names: list[str] = typer.Option(
        None, "-o", "--override-names", help="Override the players' names, in order."
    ),
) -> None:
    """Play one game, like the official engine: ``halite [flags] "<bot>" "<bot>"``."""
    from snakewar.cli.paths import make_directory
    from snakewar.errors import SnakewarError
    from snakewar.games.halite3 import Constants

    try:
        constants = Constants()
        if constants_file is not None:
            try:
                text = constants_file.read_text()
            except OSError as exc:
                why = f"cannot read constants file {str(constants_file)!r}: {exc.strerror}"
                raise _fail(why) from None
            constants = Constants.loads(text)
        if strict:
            constants = dataclasses.replace(constants, STRICT_ERRORS=True)
        if map_type != "fractal":
            raise _fail(
                f"map type {map_type!r}: only 'fractal' is supported (the official default; "
                "basic and blur_tile were never used in official play)"
            )
        if print_constants:
            typer.echo(constants.dumps())
            return
        bots = list(bot_commands or [])
        if not bots:
            raise _fail("a game needs at least 1 bot command, got none")
        if len(bots) > constants.MAX_PLAYERS:
            raise _fail(f"too many bots: {len(bots)} (max is {constants.MAX_PLAYERS})")
        map_players = max(players or 1, len(bots))
        if not (no_replay and no_logs):
            # Made if missing, as the official engine makes it (and as play --replay-dir).
            make_directory(replay_directory, "replay directory")
        _play(
            bots,
            seed=seed,
            width=width,
            height=height,
            map_players=map_players,
            constants=constants,
            turn_limit=turn_limit,
            timeouts=not no_timeout,
            replay_directory=replay_directory,
            replay=not no_replay,
            compress=not no_compression,
            logs=not no_logs,
            results_as_json=results_as_json,
            names=list(override_names or []),
        )
    except SnakewarError as exc:
        raise _fail(str(exc)) from None
    except OSError as exc:
        raise _fail(f"cannot start the game: {exc}") from None


def _play(
    bots: list[str],
    *,
    seed: int | None,
    width: int | None,
    height: int | None,
    map_players: int,
    constants: Any,
    turn_limit: int | None,
    timeouts: bool,
    replay_directory: Path,
    replay: bool,
    compress: bool,
    logs: bool,
    results_as_json: bool,
    names: list[str],
) -> None:
    from snakewar.referee.halite import play_halite_sync
    from snakewar.replay.hlt import replay_document, replay_filename, write_hlt

    match = play_halite_sync(
        bots,
        seed=seed,
        width=width,
        height=height,
        map_players=map_players,
        constants=constants,
        turn_limit=turn_limit,
        timeouts=timeouts,
        names=names,
    )
    game = match.game
    when = datetime.now().astimezone()
    stamp = when.strftime("%Y%m%d-%H%M%S%z")
    # The engine joins the folder and the name as text: keep its spelling of the folder.
    folder = str(replay_directory)
    if not folder.endswith(os.sep):
        folder += os.sep
    replay_path: str | None = None
    if replay:
        document = replay_document(
            game,
            match.names,
            execution_time_ms=match.execution_time_ms,
            map_players=map_players,
            failed_to_initialize=match.failed_to_initialize,
        )
        replay_path = folder + replay_filename(game.seed, game.width, game.height, when)
        write_hlt(document, replay_path, compress=compress)
    log_paths: dict[int, str] = {}
    for pid, text in match.error_logs.items():
        # As the engine: --no-logs still writes the log of a killed player.
        if text and (logs or game.players[pid].terminated):
            path = f"{folder}errorlog-{stamp}-{game.seed}-{game.width}-{game.height}-{pid}.log"
            try:
                Path(path).write_text(text)
            except OSError as exc:
                raise _fail(f"cannot write error log {path!r}: {exc.strerror}") from None
            log_paths[pid] = path
    if results_as_json:
        results = results_object(
            match, replay=replay_path, error_logs=log_paths, map_players=map_players
        )
        typer.echo(json.dumps(results, indent=4, sort_keys=True))
        return
    _print_summary(match, replay_path, log_paths)


def _print_summary(match: HaliteMatch, replay: str | None, logs: dict[int, str]) -> None:
    from rich.console import Console
    from rich.table import Table

    game = match.game
    result = game.result()
    table = Table(
        title=f"Halite III, seed {game.seed}, {game.width}x{game.height}, "
        f"{game.turn} turns, {match.execution_time_ms} ms"
    )
    for column in ("rank", "player", "name", "score", "ships spawned", "deposited", "killed"):
        table.add_column(column, justify="right" if column not in ("name", "killed") else "left")
    for pid in sorted(range(game.num_players), key=lambda p: result.ranks[p]):
        stats = result.statistics[pid]
        killed = ""
        if game.players[pid].terminated:
            why = match.failures.get(pid) or _last_error(match.error_logs.get(pid, ""))
            killed = why or "yes"
        table.add_row(
            str(result.ranks[pid]),
            str(pid),
            match.names[pid],
            str(result.scores[pid]),
            str(stats.get("ships_spawned", "")),
            str(stats.get("total_production", "")),
            killed,
        )
    console = Console()
    console.print(table)
    if replay is not None:
        console.print(f"replay: {replay}")
    for pid, path in sorted(logs.items()):
        console.print(f"error log for player {pid}: {path}")


def _last_error(log: str) -> str:
    errors = [line[len("error: ") :] for line in log.splitlines() if line.startswith("error: ")]
    return errors[-1] if errors else ""


@halite_app.command("bot")
def bot(
    name: str = typer.Argument(..., help="A built-in bot, with options: greedy?return_at=800."),
    seed: int = typer.Option(0, "--seed", help="The bot's random seed."),
) -> None:
    """Run a built-in bot on stdin/stdout (the official protocol)."""
    from snakewar.bots.halite.__main__ import main

    code = main([name, "--seed", str(seed)])
    if code:
        raise typer.Exit(code)


@halite_app.command("conformance")
def conformance(
    directory: Path | None = typer.Argument(
        None,
        help=f"Oracle folder (default: ${_CONFORMANCE_ENV}).",
    ),
) -> None:
    """Replay the official engine's recorded games and report every mismatch."""
    from rich.console import Console
    from rich.progress import Progress

    from snakewar.testing.halite3_conformance import check_halite_game, iter_oracle_games

    if directory is None:
        env = os.environ.get(_CONFORMANCE_ENV)
        if not env:
            raise _fail(f"no conformance folder given; expected a folder or ${_CONFORMANCE_ENV}")
        directory = Path(env)
    if not directory.is_dir():
        raise _fail(f"conformance folder {str(directory)!r} does not exist")
    paths = list(iter_oracle_games(directory))
    if not paths:
        raise _fail(f"no oracle games (*.jsonl.gz) under {str(directory)!r}")
    console = Console(stderr=True)
    failed = 0
    turns = 0
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task("checking", total=len(paths))
        for path in paths:
            check = check_halite_game(path)
            turns += check.turns
            if not check.ok:
                failed += 1
                for mismatch in check.mismatches[:20]:
                    typer.echo(str(mismatch))
                if len(check.mismatches) > 20:
                    typer.echo(f"{check.game_id}: ... {len(check.mismatches) - 20} more")
            progress.advance(task)
    typer.echo(f"{len(paths) - failed}/{len(paths)} games match ({turns} turns)")
    if failed:
        raise typer.Exit(1)


@halite_app.command("eval")
def evaluate(
    bot_commands: list[str] = typer.Argument(
        ..., help="2, 4 or 8 bots: commands or builtin:NAME[?opts] (e.g. two versions of yours)."
    ),
    games: int = typer.Option(20, "--games", "-i", help="Games to play.", min=1),
    seed: int = typer.Option(1, "-s", "--seed", help="Seed of the first game (then +1 each)."),
    width: int | None = typer.Option(None, "--width", help="Map width (default: by seed).", min=1),
    height: int | None = typer.Option(None, "--height", help="Map height.", min=1),
    turn_limit: int | None = typer.Option(None, "--turn-limit", help="Maximum turns.", min=1),
    timeout: int = typer.Option(2000, "--timeout", help="Ms per turn for each bot.", min=1),
    workers: int = typer.Option(1, "--workers", help="Games played at once.", min=1),
    executor: str = typer.Option(
        "auto", "--executor", help="auto, inprocess, pool or ray (auto: pool when --workers > 1)."
    ),
    ray_address: str | None = typer.Option(None, "--ray-address", help="A Ray cluster."),
    as_json: bool = typer.Option(False, "--json", help="Print the figures as JSON."),
) -> None:
    """Evaluate bots over many games, like ``hlt play -i N``: win ratios and scores.

    Seats rotate from game to game so no bot keeps the same shipyard.
    """
    import json
    import statistics

    from rich.console import Console
    from rich.progress import Progress
    from rich.table import Table

    from snakewar.adapters.halite3 import GAME
    from snakewar.arena.executors import GameJob, make_executor
    from snakewar.engine.protocol import MatchSpec, entrants_from_texts
    from snakewar.errors import SnakewarError
    from snakewar.referee.stats import wilson_interval

    try:
        bots = list(bot_commands)
        if len(bots) not in (2, 4, 8):
            raise _fail(f"{len(bots)} bots: expected 2, 4 or 8 (one Halite map per game)")
        entrants = list(entrants_from_texts(GAME, bots))
        names = [e.name for e in entrants]
        params = GAME.params_for(width, height)
        jobs = []
        for g in range(games):
            shift = g % len(bots)
            spec = MatchSpec(
                GAME.name,
                tuple(entrants[shift:] + entrants[:shift]),
                params,
                timeout_ms=timeout,
                max_turns=turn_limit,
                source="eval",
            )
            GAME.check(spec)
            jobs.append(GameJob(f"eval-{g}", spec, seed + g))
        kind = executor if executor != "auto" else "pool" if workers > 1 else "inprocess"
        runner = make_executor(kind, concurrency=workers, workers=workers, ray_address=ray_address)
        with Progress(transient=True, disable=as_json) as progress:
            task = progress.add_task("games", total=games)
            outcomes = runner.run(jobs, on_result=lambda _: progress.advance(task))
    except SnakewarError as exc:
        raise _fail(str(exc)) from None
    per: dict[str, dict[str, Any]] = {
        n: {"wins": 0, "games": 0, "ranks": [], "scores": [], "killed": 0} for n in names
    }
    failed = [o for o in outcomes if o.played is None]
    for outcome in outcomes:
        if outcome.played is None:
            continue
        for result in outcome.played.results:
            row = per[result.name]
            row["games"] += 1
            row["wins"] += result.rank == 1
            row["ranks"].append(result.rank)
            row["scores"].append(result.score)
            row["killed"] += bool(result.failure)
    labels = _declared_labels(names, outcomes)
    figures = []
    for name, label, command in zip(names, labels, bots, strict=True):
        row = per[name]
        n = row["games"]
        low, high = wilson_interval(row["wins"], n) if n else (0.0, 0.0)
        figures.append(
            {
                "name": label,
                "bot": command,
                "games": n,
                "wins": row["wins"],
                "win_ratio": row["wins"] / n if n else 0.0,
                "win_ratio_95": [low, high],
                "mean_rank": statistics.fmean(row["ranks"]) if n else None,
                "mean_score": statistics.fmean(row["scores"]) if n else None,
                "killed": row["killed"],
            }
        )
    if as_json:
        typer.echo(json.dumps({"games": games, "failed": len(failed), "bots": figures}, indent=2))
    else:
        table = Table(title=f"{games} Halite III games, seeds {seed}..{seed + games - 1}")
        for column in ("bot", "wins", "win ratio (95%)", "mean rank", "mean score", "killed"):
            table.add_column(column, justify="left" if column == "bot" else "right")
        for f in figures:
            low, high = f["win_ratio_95"]
            table.add_row(
                f["name"],
                f"{f['wins']}/{f['games']}",
                f"{f['win_ratio']:.0%} ({low:.0%}-{high:.0%})",
                f"{f['mean_rank']:.2f}" if f["mean_rank"] is not None else "-",
                f"{f['mean_score']:.0f}" if f["mean_score"] is not None else "-",
                str(f["killed"]),
            )
        Console(highlight=False).print(table)
    for outcome in failed:
        typer.echo(f"game with seed {outcome.seed} could not be played: {outcome.error}", err=True)
    if failed:
        raise typer.Exit(1)


def _declared_labels(names: list[str], outcomes: Sequence[Any]) -> list[str]:
    """Each bot's label: the name it declared in its games, else its entrant name.

    Entrant names come from file names (``MyBot``, ``MyBot-2`` for two ``MyBot.py``);
    the name a bot answers at its init is what tells them apart.  Only bots that
    declare the same name get ``-2``, ``-3`` suffixes.
    """
    declared: dict[str, str] = {}
    for outcome in outcomes:
        if outcome.played is None:
            continue
        for result in outcome.played.results:
            if result.declared_name:
                declared.setdefault(result.name, result.declared_name)
    labels: list[str] = []
    for entrant in names:
        base = label = declared.get(entrant) or entrant
        count = 1
        while label in labels:
            count += 1
            label = f"{base}-{count}"
        labels.append(label)
    return labels
