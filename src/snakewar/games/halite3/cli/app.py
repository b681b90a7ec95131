"""``snakewar halite``: Halite III games like the official ``halite`` engine binary plays them.

``snakewar halite play`` is the engine's command line (:mod:`snakewar.games.halite3.cli.play`,
read by the engine's rules in :mod:`snakewar.games.halite3.cli.args`): its flags, its log on
stderr, its replay and error log files.  ``snakewar halite play`` usually runs without
this module (:func:`snakewar.cli.main` goes straight to it); the ``play`` command here is
the same command for the typer app.  ``bot``, ``conformance`` and ``eval`` are Snakewar's.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import typer
from typer.core import TyperCommand

from snakewar.games.halite3.cli.play import final_snapshot, results_object

__all__ = ["final_snapshot", "halite_app", "results_object"]

halite_app = typer.Typer(
    help="Halite III: play games between bots with the official engine's rules and flags.",
    no_args_is_help=True,
    rich_markup_mode=None,
)

_CONFORMANCE_ENV = "SNAKEWAR_HALITE_CONFORMANCE_DIR"
_ARGV = "snakewar.halite.argv"


def _fail(message: str) -> typer.Exit:
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(2)


class _EngineCommand(TyperCommand):
    """A command whose words are all its own: click reads none of them.

    ``halite play`` reads its command line as the official engine does (TCLAP's rules,
    :mod:`snakewar.games.halite3.cli.args`), ``--help`` and ``--`` included, which click's
    parser would change.  The words are handed over as they came.
    """

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        ctx.meta[_ARGV] = list(args)
        ctx.args = []
        return []


@halite_app.command(
    "play",
    cls=_EngineCommand,
    add_help_option=False,
    help="Play one game, like the official engine: halite [flags] BOT_COMMAND... "
    "(its flags, read its way; --help lists them).",
)
def play(ctx: typer.Context) -> None:
    """Play one game, as ``halite [flags] "<bot>" "<bot>"``."""
    from snakewar.games.halite3.cli.play import main

    code = main(ctx.meta.get(_ARGV, []))
    if code:
        raise typer.Exit(code)


@halite_app.command("bot")
def bot(
    name: str = typer.Argument(..., help="A built-in bot, with options: greedy?return_at=800."),
    seed: int = typer.Option(0, "--seed", help="The bot's random seed."),
) -> None:
    """Run a built-in bot on stdin/stdout (the official protocol)."""
    from snakewar.games.halite3.bots.__main__ import main

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

    from snakewar.games.halite3.testing.conformance import check_halite_game, iter_oracle_games

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
    bot_logs: Path | None = typer.Option(
        None,
        "--bot-logs",
        help="Keep each bot's log of each game (its stderr, the engine's lines on it) in "
        "DIR/eval-N-seatS-NAME.log (made if missing).",
    ),
) -> None:
    """Evaluate bots over many games, like ``hlt play -i N``: win ratios and scores.

    Seats rotate from game to game so no bot keeps the same shipyard.  A bot killed in
    a game is reported on stderr with why and the last lines it wrote.
    """
    import json
    import statistics

    from rich.console import Console
    from rich.progress import Progress
    from rich.table import Table

    from snakewar.arena.botlogs import failure_lines, write_bot_logs
    from snakewar.arena.executors import GameJob, GameOutcome, make_executor
    from snakewar.engine.protocol import MatchSpec, entrants_from_texts
    from snakewar.errors import SnakewarError
    from snakewar.games.halite3.adapter import GAME
    from snakewar.referee.intervals import wilson_interval

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
        if bot_logs is not None:
            from snakewar.cli.paths import make_directory

            make_directory(bot_logs, "bot log folder")
        problems: list[str] = []

        def ended(outcome: GameOutcome) -> None:
            progress.advance(task)
            if outcome.played is None:
                return
            label = f"{outcome.job_id} (seed {outcome.seed})"
            paths = None
            if bot_logs is not None:
                paths = write_bot_logs(bot_logs, outcome.job_id, outcome.played.results)
            problems.extend(failure_lines(label, outcome.played.results, paths))

        with Progress(transient=True, disable=as_json) as progress:
            task = progress.add_task("games", total=games)
            outcomes = runner.run(jobs, on_result=ended)
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
    for line in problems:
        typer.echo(line, err=True)
    if bot_logs is not None:
        typer.echo(f"bot logs: {bot_logs}", err=True)
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
