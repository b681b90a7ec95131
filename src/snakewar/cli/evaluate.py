"""``snakewar eval A B [C...]``: fair A/B evaluation with paired seeds and an SPRT."""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

if TYPE_CHECKING:
    from snakewar.arena.evaluation import EvalResult
    from snakewar.arena.executors import GameOutcome
    from snakewar.arena.ratingsbook import RatingsBook
    from snakewar.engine.protocol import Entrant

__all__ = ["eval_command", "render"]

_MAX_GET_BYTES = 65_536


def _get(url: str) -> bytes:
    # GET / of a bot on the network, for its version string: small and quick, or nothing.
    import httpx

    try:
        with httpx.stream("GET", url, timeout=5.0) as response:
            body = b""
            for chunk in response.iter_bytes():
                body += chunk
                if len(body) > _MAX_GET_BYTES:
                    break
            return body[:_MAX_GET_BYTES]
    except httpx.HTTPError as exc:
        raise OSError(str(exc)) from exc


def eval_command(
    ctx: typer.Context,
    bots: list[str] = typer.Argument(
        None,
        help="The bots, A then B (then others): built-in names, URLs, bot commands; "
        "then the config file's bots, then the --launch bots.",
    ),
    games: int = typer.Option(400, "--games", help="Most games to play (the SPRT may stop first)."),
    game: str | None = typer.Option(None, "--game", help="The game (default: the default game)."),
    params: list[str] = typer.Option([], "-p", "--param", help="A game parameter KEY=VALUE."),
    gametype: str | None = typer.Option(None, "-g", "--gametype", help="Same as -p ruleset=NAME."),
    width: int | None = typer.Option(None, "-W", "--width", help="Same as -p width=N."),
    height: int | None = typer.Option(None, "-H", "--height", help="Same as -p height=N."),
    timeout: int | None = typer.Option(None, "-t", "--timeout", help="Ms per turn."),
    max_turns: int | None = typer.Option(None, "--max-turns", help="Stop games at this turn."),
    seed: int = typer.Option(1, "--seed", help="The first seed; seeds follow it."),
    elo0: float = typer.Option(0.0, "--elo0", help="H0: B is at most this many Elo better."),
    elo1: float = typer.Option(30.0, "--elo1", help="H1: B is at least this many Elo better."),
    alpha: float = typer.Option(0.05, "--alpha", help="False positive rate (accept H1 wrongly)."),
    beta: float = typer.Option(0.05, "--beta", help="False negative rate (accept H0 wrongly)."),
    batch: int = typer.Option(4, "--batch", help="Seeds per batch (each with every seating)."),
    executor: str = typer.Option("inprocess", "--executor", help="inprocess, pool or ray."),
    parallel: int = typer.Option(4, "--parallel", help="Games at once (inprocess)."),
    workers: int = typer.Option(2, "--workers", help="Processes for the pool executor."),
    ray_address: str | None = typer.Option(None, "--ray-address", help="A Ray cluster."),
    json_file: Path | None = typer.Option(None, "--json", help="Write the JSON report here."),
    launch: list[str] = typer.Option(
        [],
        "--launch",
        metavar="CMD",
        help="Start a bot server: a command with {port} (repeat; run without a shell).",
    ),
    launch_dir: str = typer.Option(".", "--launch-dir", help="The launched bots' folder."),
    launch_timeout: float = typer.Option(
        30.0, "--launch-timeout", help="Seconds a launched bot has to answer GET / with 200."
    ),
    launch_logs: str | None = typer.Option(
        None, "--launch-logs", help="Keep each launched bot's output in DIR/NAME.log."
    ),
    launch_max_games: int | None = typer.Option(
        None,
        "--launch-max-games",
        help="The most games a --launch bot plays at once (games wait: see the docs).",
    ),
    bot_logs: Path | None = typer.Option(
        None,
        "--bot-logs",
        help="Keep each bot's log of each game (program bots: their stderr) in "
        "DIR/eval-SEED-K-seatS-NAME.log; a failed bot's last lines are shown.",
    ),
    config_file: Path | None = typer.Option(
        None, "--config", help="A bot config file (TOML): bots to launch, default options."
    ),
    anchors: list[str] = typer.Option(
        [],
        "--anchor",
        metavar="NAME=RATING",
        help="Hold this bot's version at this rating in --ratings (repeat).",
    ),
    ratings_file: Path | None = typer.Option(
        None,
        "--ratings",
        help="A ratings file (JSON) by bot version: this run's results are added and "
        "every version rated again with the anchors fixed.",
    ),
) -> None:
    """Fair A/B evaluation: every seed with every seating, a crosstable, Elo and an SPRT.

    The test is "B (the second bot) is better than A (the first) by --elo1 Elo"
    against "by at most --elo0"; it stops as soon as either is accepted at the error
    rates --alpha and --beta, or at --games.
    """
    import json

    from rich.console import Console

    from snakewar.arena.evalstats import Sprt
    from snakewar.arena.evaluation import (
        MAX_BOTS,
        EvalError,
        launch_version_key,
        run_eval,
        version_key,
    )
    from snakewar.arena.executors import make_executor
    from snakewar.cli.botconfig import load_bot_config
    from snakewar.cli.ladder import match_config
    from snakewar.cli.launching import LaunchOptions, cap_games_at_once, launched

    config_file_data = load_bot_config(config_file) if config_file is not None else None

    def option(name: str, value: Any) -> Any:
        # The file's value unless the command line gave the option explicitly.
        if config_file_data is None:
            return value
        source = ctx.get_parameter_source(name)
        explicit = source is not None and source.name != "DEFAULT"
        return config_file_data.option(name, value, explicit)

    games = int(option("games", games))
    seed = int(option("seed", seed))
    parallel = int(option("parallel", parallel))
    workers = int(option("workers", workers))
    game = option("game", game)
    width = option("width", width)
    height = option("height", height)
    timeout = option("timeout", timeout)
    max_turns = option("max_turns", max_turns)
    if config_file_data is not None:
        params = [*config_file_data.params, *params]
    given = list(bots or ()) + [
        b.entrant for b in (config_file_data.bots if config_file_data else ()) if b.entrant
    ]
    given_names = [b.name for b in (config_file_data.bots if config_file_data else ()) if b.entrant]
    to_launch = LaunchOptions(
        launch, launch_dir, launch_timeout, launch_logs, launch_max_games
    ).specs([], ray_address, config_file_data)
    count = len(given) + len(to_launch)
    if not 2 <= count <= MAX_BOTS:
        raise EvalError(f"{count} bots: expected 2 to {MAX_BOTS}")
    if games < 1:
        raise EvalError(f"--games {games}: expected at least 1")
    try:
        sprt = Sprt(elo0, elo1, alpha, beta)
    except ValueError as exc:
        raise EvalError(f"--elo0/--elo1/--alpha/--beta: {exc}") from None
    if json_file is not None and not json_file.parent.is_dir():
        raise EvalError(f"--json {json_file}: folder {json_file.parent} does not exist")
    fixed = _anchors(anchors, ratings_file)
    config = match_config(
        game,
        params,
        {"ruleset": gametype, "width": width, "height": height},
        timeout=timeout,
        max_turns=max_turns,
        game_size=count,
    )
    adapter = config.adapter
    entrants: list[Entrant] = []
    for n, text in enumerate(given):
        # A config file's entrant keeps its name; one on the command line gets the game's.
        name = given_names[n - len(bots or ())] if n >= len(bots or ()) else None
        entrant = adapter.entrant(text, name)
        if any(e.name == entrant.name for e in entrants) or any(
            b.name == entrant.name for b in to_launch
        ):
            entrant = adapter.entrant(text, f"{entrant.name}#{n + 1}")
        entrants.append(entrant)
    versions = [version_key(e, adapter.reach(e).kind, _get) for e in entrants]
    # What this command writes is no part of a bot, even when written in its folder.
    own_files = [str(p) for p in (json_file, ratings_file, launch_logs, bot_logs) if p is not None]
    versions += [
        launch_version_key(b.spec.command, b.spec.cwd, exclude=own_files) for b in to_launch
    ]
    all_names = [e.name for e in entrants] + [b.name for b in to_launch]
    book = None
    if ratings_file is not None:
        # Read and checked before any game: a bad file or a moved anchor costs no games.
        book = _ratings_book(ratings_file, config.to_dict(), fixed, all_names, versions)
    parallel, workers, why = cap_games_at_once(to_launch, parallel, workers)
    console = Console(highlight=False)
    if why:
        console.print(why)
    chosen = make_executor(executor, concurrency=parallel, workers=workers, ray_address=ray_address)

    def progress(result: EvalResult) -> None:
        state = result.state
        console.print(
            f"{result.games_used} games: LLR {state.llr if state else 0.0:.2f} "
            f"({state.lower if state else 0.0:.2f}, {state.upper if state else 0.0:.2f})"
        )

    problems: list[str] = []
    if bot_logs is not None:
        from snakewar.cli.paths import make_directory

        make_directory(bot_logs, "bot log folder")

    def ended(outcome: GameOutcome) -> None:
        from snakewar.arena.botlogs import failure_lines, write_bot_logs

        if outcome.played is None:
            return
        results = outcome.played.results
        paths = write_bot_logs(bot_logs, outcome.job_id, results) if bot_logs else None
        problems.extend(failure_lines(f"{outcome.job_id} (seed {outcome.seed})", results, paths))

    gate = None
    with launched(to_launch) as launcher:
        if launcher is not None:
            from snakewar.cli.launchgate import LaunchGate

            for bot, wanted in zip(launcher.bots, to_launch, strict=True):
                entrants.append(adapter.entrant(bot.url, wanted.name))
            # Each death of a launched bot is kept with the games it died in.
            gate = LaunchGate(launcher)
        chosen.gate = gate
        result = run_eval(
            config,
            entrants,
            versions,
            chosen,
            sprt=sprt,
            max_games=games,
            first_seed=seed,
            batch_seeds=batch,
            on_progress=progress,
            on_game=ended,
        )
    if launcher is not None:
        # A launched bot's source is an address of this run only: its command says more.
        result.sources[len(given) :] = [b.spec.command for b in to_launch]
    report = result.to_dict()
    if gate is not None:
        # Which launched bot died, was restarted or given up on, in which game.
        report["launch"] = gate.report()
    ratings = None
    if ratings_file is not None and book is not None:
        ratings = _update_ratings(ratings_file, book, result)
        report["ratings"] = ratings
    render(result, console, ratings)
    for line in problems[:50]:
        typer.echo(f"warning: {line}", err=True)
    if len(problems) > 50:
        typer.echo(f"warning: {len(problems) - 50} more failures", err=True)
    if json_file is not None:
        json_file.write_text(json.dumps(report, indent=2) + "\n")
        console.print(f"report: {json_file}")
    if ratings_file is not None:
        console.print(f"ratings: {ratings_file}")


_MAX_ANCHORS = 16


def _anchors(texts: list[str], ratings_file: Path | None) -> dict[str, float]:
    """``--anchor NAME=RATING`` options by name.

    Raises:
        EvalError: a malformed one, a name twice, or anchors without ``--ratings``.
    """
    import math

    from snakewar.arena.evaluation import EvalError

    if texts and ratings_file is None:
        raise EvalError("--anchor: anchors hold ratings in a ratings file; add --ratings FILE")
    if ratings_file is not None and not ratings_file.parent.is_dir():
        raise EvalError(f"--ratings {ratings_file}: folder {ratings_file.parent} does not exist")
    if len(texts) > _MAX_ANCHORS:
        raise EvalError(f"--anchor: {len(texts)} anchors, at most {_MAX_ANCHORS}")
    out: dict[str, float] = {}
    for text in texts:
        name, sep, value = text.partition("=")
        try:
            rating = float(value)
        except ValueError:
            rating = math.nan
        if not sep or not name or not math.isfinite(rating) or abs(rating) > 1e6:
            raise EvalError(f"--anchor {text[:100]!r}: expected NAME=RATING (a number)")
        if name in out:
            raise EvalError(f"--anchor {name}: given twice")
        out[name] = rating
    return out


def _ratings_book(
    path: Path,
    config: dict[str, object],
    anchors: dict[str, float],
    names: list[str],
    versions: list[str],
) -> RatingsBook:
    """The ratings file ``path`` read, its config and anchors checked against this run's.

    Raises:
        EvalError: an anchor that names no bot of the run.
        RatingsFileError: a file that cannot be read, of another game config, an anchor
            moved, or no anchor at all.
    """
    from snakewar.arena.evaluation import EvalError
    from snakewar.arena.ratingsbook import RatingsBook, RatingsFileError

    where = f"--ratings {path}"
    book = RatingsBook.load(path)
    book.check_config(config, where)
    for name, rating in anchors.items():
        if name not in names:
            raise EvalError(f"--anchor {name}=...: no bot of this run is called {name!r}")
        book.fix_anchor(versions[names.index(name)], rating, where)
    if not book.anchors:
        raise RatingsFileError(
            f"{where}: a ratings file needs an anchor, a reference bot held at a fixed "
            "rating: --anchor NAME=RATING"
        )
    return book


def _update_ratings(
    path: Path, book: RatingsBook, result: EvalResult
) -> dict[str, dict[str, object]]:
    """Add the run's results to ``book`` and save it in ``path``; each bot's rating by name."""
    from snakewar.arena.ratingsbook import rating_json

    for n, key in enumerate(result.versions):
        book.versions[key] = {"name": result.names[n], "source": result.sources[n][:4096]}
    for i in range(len(result.names)):
        for j in range(i + 1, len(result.names)):
            if result.versions[i] != result.versions[j]:
                book.add(result.versions[i], result.versions[j], result.head_to_head(i, j))
    rated = book.ratings()
    book.save(path)
    return {
        result.names[n]: {"version": key, **rating_json(rated[key])}
        for n, key in enumerate(result.versions)
    }


def render(
    result: EvalResult,
    console: object,
    ratings: dict[str, dict[str, object]] | None = None,
) -> None:
    """The crosstable and the test's decision as rich tables on ``console``.

    With ``ratings`` (by bot name: ``rating``, ``plus_minus``, ``anchor``), a column of
    each bot's rating on the anchors' scale.
    """
    from rich.console import Console
    from rich.table import Table

    from snakewar.arena.evalstats import elo_from_score, elo_interval

    assert isinstance(console, Console)
    report = result.to_dict()
    table = Table(title="crosstable (row vs column: W-D-L, score, Elo [95% CI])")
    table.add_column("bot")
    table.add_column("version")
    if ratings is not None:
        table.add_column("rating", justify="right")
    for name in result.names:
        table.add_column(name, justify="right")
    for bot in report["bots"]:
        cells = []
        for other in result.names:
            cell = report["crosstable"][bot["name"]].get(other)
            if cell is None:
                cells.append("-")
                continue
            # From the counts, not the JSON: JSON writes both infinities as null.
            t = result.head_to_head(result.names.index(bot["name"]), result.names.index(other))
            lo, hi = elo_interval(t)
            cells.append(
                f"{t.wins}-{t.draws}-{t.losses} {t.score:.3f}\n"
                f"{_elo(elo_from_score(t.score))} [{_elo(lo)}, {_elo(hi)}]"
            )
        if ratings is not None:
            cells.insert(0, _rating(ratings[bot["name"]]))
        table.add_row(bot["name"], bot["version"], *cells)
    console.print(table)
    sprt = report["sprt"]
    console.print(
        f"SPRT {sprt['hypothesis']} (elo0 {sprt['elo0']:g}, elo1 {sprt['elo1']:g}, "
        f"alpha {sprt['alpha']:g}, beta {sprt['beta']:g}): LLR {sprt['llr']:.2f} in "
        f"({sprt['lower']:.2f}, {sprt['upper']:.2f}) -> {sprt['decision']} after "
        f"{sprt['games']} games ({report['games_played']} played, "
        f"{report['error_count']} failed)"
    )


def _elo(x: float) -> str:
    if math.isinf(x):
        return "+inf" if x > 0 else "-inf"
    return f"{round(x) + 0:+d}"


def _rating(rating: dict[str, object]) -> str:
    value = rating["rating"]
    assert isinstance(value, float | int)
    if rating["anchor"]:
        return f"{value:.0f} (anchor)"
    half = rating["plus_minus"]
    return f"{value:.0f} ± {half:.0f}" if isinstance(half, float | int) else f"{value:.0f} ± ?"
