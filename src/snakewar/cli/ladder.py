"""``snakewar ladder``: a local ladder on SQLite, a gym where bots keep playing each other."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer

from snakewar.cli.launching import (
    CONFIG_OPTION,
    LAUNCH_DIR_OPTION,
    LAUNCH_LOGS_OPTION,
    LAUNCH_MAX_GAMES_OPTION,
    LAUNCH_TIMEOUT_OPTION,
)

if TYPE_CHECKING:
    from snakewar.arena.config import MatchConfig
    from snakewar.arena.ladder import LadderEntry
    from snakewar.engine.protocol import Entrant, GameAdapter
    from snakewar.storage import Store

__all__ = ["ladder_app"]

ladder_app = typer.Typer(
    help="Ladders: snakes that keep playing each other, rated with OpenSkill (mu - 3 sigma).",
    no_args_is_help=True,
    rich_markup_mode=None,
)

_DB = typer.Option(
    None, "--database", help="SQLAlchemy URL (default: the server's SQLite database)."
)


def _store(database: str | None) -> Store:
    from snakewar.storage import Store

    return Store(database)


# Shortcuts for common parameters (any game parameter: --param KEY=VALUE).
_GAME = typer.Option(
    None, "--game", help="The game (default: the default game); see 'snakewar games'."
)
_PARAMS = typer.Option(
    [], "-p", "--param", help="A game parameter KEY=VALUE (repeat); see 'snakewar games'."
)


@ladder_app.command("create")
def create(
    name: str = typer.Argument(..., help="The ladder's name."),
    game: str | None = _GAME,
    params: list[str] = _PARAMS,
    gametype: str | None = typer.Option(None, "-g", "--gametype", help="Same as -p ruleset=NAME."),
    map_id: str | None = typer.Option(None, "-m", "--map", help="Same as -p map=ID."),
    width: int | None = typer.Option(None, "-W", "--width", help="Same as -p width=N."),
    height: int | None = typer.Option(None, "-H", "--height", help="Same as -p height=N."),
    timeout: int | None = typer.Option(
        None, "-t", "--timeout", help="Ms per turn (default: the game's)."
    ),
    game_size: int = typer.Option(2, "--game-size", help="Entrants per game."),
    max_turns: int | None = typer.Option(None, "--max-turns"),
    seed: int = typer.Option(1, "--seed", help="Seeds the matchmaker and the games."),
    database: str | None = _DB,
) -> None:
    """Create a ladder with one game config."""
    from snakewar.arena.ladder import Ladder

    config = match_config(
        game,
        params,
        {"ruleset": gametype, "map": map_id, "width": width, "height": height},
        timeout=timeout,
        max_turns=max_turns,
        game_size=game_size,
    )
    with _store(database) as store:
        store.ladders.create(Ladder(name, config, seed))
    typer.echo(f"created ladder {name!r}: {describe(config)}")


def match_config(
    game: str | None,
    params: list[str],
    shortcuts: dict[str, object],
    *,
    timeout: int | None,
    max_turns: int | None,
    game_size: int = 2,
) -> MatchConfig:
    """The ladder or tournament config from the command line's options.

    Raises:
        ParamsError: a ``--param`` that is not ``KEY=VALUE``, or any bad parameter.
    """
    from snakewar.arena.config import MatchConfig
    from snakewar.errors import ParamsError

    raw: dict[str, object] = {k: v for k, v in shortcuts.items() if v is not None}
    for item in params:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ParamsError("--param", f"--param {item!r}: expected KEY=VALUE")
        raw[key.strip()] = value
    return MatchConfig.create(
        game, raw, game_size=game_size, timeout_ms=timeout, max_turns=max_turns
    )


def describe(config: MatchConfig) -> str:
    """A config in a few words: the game, the entrants per game, non-default parameters."""
    catalogue = config.adapter.catalogue()
    changed = [
        f"{p.name} {config.params[p.name]}"
        for p in catalogue.params
        if config.params.get(p.name, p.default) != p.default
    ]
    return ", ".join([catalogue.title, f"{config.game_size} per game", *changed])


@ladder_app.command("add")
def add(
    name: str = typer.Argument(..., help="The ladder."),
    snake: str = typer.Argument(
        ...,
        help="An entrant, as the game takes them (a URL, builtin:NAME, a bot command, ...).",
    ),
    as_name: str | None = typer.Option(None, "--name", "-n", help="The entrant's name."),
    check: bool = typer.Option(
        True,
        "--check/--no-check",
        help="Check that it plays first (a snake answers, a bot program starts and "
        "answers its name); --no-check adds one that is down for now.",
    ),
    database: str | None = _DB,
) -> None:
    """Add an entrant (a snake, a bot) to a ladder.

    A bot command (a game whose bots are programs) keeps this folder as its working
    folder, so that ``python3 MyBot.py`` runs from here whatever folder the ladder runs from.
    """
    import os

    from snakewar.arena.ladder import LadderError, load_ladder

    with _store(database) as store:
        ladder = load_ladder(store, name)
        entrant = ladder.entrant(snake, as_name, workdir=os.getcwd())
        if check:
            problem = _health(ladder.config.adapter, entrant)
            if problem is not None:
                raise LadderError(
                    f"{entrant.name!r} ({entrant.source}) cannot play: {problem} "
                    "(--no-check adds it anyway)"
                )
        entry = ladder.add(snake, as_name, workdir=os.getcwd())
        store.ladders.save_entry(name, entry)
    where = f", run in {entry.workdir}" if entry.workdir else ""
    typer.echo(f"added {entry.name!r} ({entry.source}{where}) to {name!r}")


def _health(adapter: GameAdapter, entrant: Entrant) -> str | None:
    """Why ``entrant`` cannot play now (the game's own check), or ``None``."""
    import asyncio

    from snakewar.engine.protocol import PlaySession

    async def check() -> str | None:
        async with PlaySession() as session:
            return await adapter.health(entrant, session)

    return asyncio.run(check())


@ladder_app.command("run")
def run(
    ctx: typer.Context,
    name: str = typer.Argument(..., help="The ladder."),
    games: int = typer.Option(20, "--games", help="Games to play."),
    parallel: int = typer.Option(4, "--parallel", help="Games per round."),
    executor: str = typer.Option("inprocess", "--executor", help="inprocess, pool or ray."),
    workers: int = typer.Option(2, "--workers", help="Processes for the pool executor."),
    ray_address: str | None = typer.Option(None, "--ray-address", help="A Ray cluster."),
    every: float | None = typer.Option(
        None, "--every", help="Keep going: play --games games every this many seconds."
    ),
    database: str | None = _DB,
    launch: list[str] = typer.Option(
        [],
        "--launch",
        metavar="CMD",
        help="Start a bot server for this run, a command with {port} (repeat); it plays as "
        "the entrant named after its program (added to the ladder if new).",
    ),
    launch_dir: str = LAUNCH_DIR_OPTION,
    launch_timeout: float = LAUNCH_TIMEOUT_OPTION,
    launch_logs: str | None = LAUNCH_LOGS_OPTION,
    launch_max_games: int | None = LAUNCH_MAX_GAMES_OPTION,
    config_file: str | None = CONFIG_OPTION,
) -> None:
    """Play games: matchmaking by rating, health checks, rating updates.

    A launched bot (--launch, or a config file's bot with 'launch') plays as the
    entrant of its name, at the address it was started on; its entry keeps that
    address after the run (it is down then: a later run without it pauses it).
    """
    import time

    from rich.progress import Progress

    from snakewar.arena.executors import make_executor
    from snakewar.arena.ladder import LadderError, load_ladder
    from snakewar.cli.botconfig import load_bot_config
    from snakewar.cli.launching import LaunchOptions, launched, limit_notes

    bot_config = load_bot_config(config_file) if config_file is not None else None
    if bot_config is not None:

        def pick(option: str, value: int) -> int:
            # The file's value unless the command line gave the option explicitly.
            source = ctx.get_parameter_source(option)
            explicit = source is not None and source.name != "DEFAULT"
            return int(bot_config.option(option, value, explicit))

        games, parallel, workers = (
            pick("games", games),
            pick("parallel", parallel),
            pick("workers", workers),
        )
    if games < 1:
        raise LadderError(f"--games {games}: expected at least 1")
    if every is not None and every <= 0:
        raise LadderError(f"--every {every}: expected a number of seconds > 0")
    to_launch = LaunchOptions(
        launch, launch_dir, launch_timeout, launch_logs, launch_max_games
    ).specs([], ray_address, bot_config)
    for note in limit_notes(to_launch):
        typer.echo(note, err=True)
    chosen = make_executor(executor, concurrency=parallel, workers=workers, ray_address=ray_address)
    with launched(to_launch) as launcher:
        gate = None
        if launcher is not None:
            from snakewar.cli.launchgate import LaunchGate

            # Each launched bot's limit holds for its own games; its deaths go in their logs.
            gate = LaunchGate(launcher)
        chosen.gate = gate
        while True:
            started = time.monotonic()
            with _store(database) as store:
                ladder = load_ladder(store, name)
                if ladder.settings.continuous:
                    # A server's scheduler plays it: two players of one ladder would collide.
                    raise LadderError(
                        f"ladder {name!r} plays on by itself on a server (continuous); turn "
                        "that off first: snakewar ladder schedule NAME --no-continuous"
                    )
                _enter_config_bots(ladder, store, bot_config)
                if launcher is not None:
                    for bot, wanted in zip(launcher.bots, to_launch, strict=True):
                        _play_launched(ladder, store, wanted.name, bot.url)
                with Progress(transient=True) as progress:
                    task = progress.add_task("games", total=games)

                    def advance(_: object, task: Any = task, progress: Any = progress) -> None:
                        progress.advance(task)

                    ladder.run(games, store, executor=chosen, parallel=parallel, on_game=advance)
            _show(ladder)
            if every is None:
                return
            # On a schedule: the next batch starts `every` seconds after this one started.
            time.sleep(max(0.0, every - (time.monotonic() - started)))


def _enter_config_bots(ladder: Any, store: Store, bot_config: Any) -> None:
    """Add a config file's ``entrant`` bots that the ladder does not have yet."""
    import os

    if bot_config is None:
        return
    for bot in bot_config.bots:
        if bot.entrant and bot.name not in ladder.entries:
            entry = ladder.add(bot.entrant, bot.name, workdir=os.getcwd())
            store.ladders.save_entry(ladder.name, entry)


def _play_launched(ladder: Any, store: Store, name: str, url: str) -> None:
    """Entrant ``name`` plays at ``url`` (a launched bot's address): added or pointed there."""
    import dataclasses

    entry = ladder.entries.get(name)
    if entry is None:
        entry = ladder.add(url, name)
    else:
        entry = dataclasses.replace(entry, source=url)
        entry.paused = False
        entry.failures = 0
        entry.note = "launched for this run"
        ladder.entries[name] = entry
    store.ladders.save_entry(ladder.name, entry)


@ladder_app.command("schedule")
def schedule(
    name: str = typer.Argument(..., help="The ladder."),
    continuous: bool | None = typer.Option(
        None,
        "--continuous/--no-continuous",
        help="Whether a server ('snakewar serve' on this database) plays it on by itself.",
    ),
    games_in_flight: int | None = typer.Option(
        None, "--games-in-flight", help="The most of its games playing at once (1 to 64)."
    ),
    games_per_hour: int | None = typer.Option(
        None, "--games-per-hour", help="The most games it starts an hour (1 to 3600)."
    ),
    daily_cap: int | None = typer.Option(
        None, "--daily-cap", help="The most games a snake starts in 24 hours (1 to 10000)."
    ),
    no_daily_cap: bool = typer.Option(False, "--no-daily-cap", help="No daily cap."),
    database: str | None = _DB,
) -> None:
    """Show or change how a ladder plays on by itself (a server's scheduler plays it)."""
    import dataclasses

    from snakewar.arena.ladder import LadderError, LadderSettings, load_ladder

    if no_daily_cap and daily_cap is not None:
        raise LadderError("--daily-cap and --no-daily-cap: give one, not both")
    with _store(database) as store:
        ladder = load_ladder(store, name)
        changes: dict[str, Any] = {
            key: value
            for key, value in (
                ("continuous", continuous),
                ("games_in_flight", games_in_flight),
                ("games_per_hour", games_per_hour),
                ("daily_cap", daily_cap),
            )
            if value is not None
        }
        if no_daily_cap:
            changes["daily_cap"] = None
        settings: LadderSettings = dataclasses.replace(ladder.settings, **changes)
        if changes:
            store.ladders.save_settings(name, settings)
        typer.echo(f"ladder {name!r}: {describe_settings(settings)}")


def _set_paused(name: str, paused: bool, database: str | None) -> None:
    import dataclasses

    from snakewar.arena.ladder import LadderError, load_ladder

    with _store(database) as store:
        ladder = load_ladder(store, name)
        if not ladder.settings.continuous:
            raise LadderError(
                f"ladder {name!r} does not play on by itself; first: snakewar ladder "
                "schedule NAME --continuous"
            )
        settings = dataclasses.replace(ladder.settings, paused=paused)
        store.ladders.save_settings(name, settings)
        typer.echo(f"ladder {name!r}: {describe_settings(settings)}")


@ladder_app.command("pause")
def pause(name: str = typer.Argument(..., help="The ladder."), database: str | None = _DB) -> None:
    """Pause a continuous ladder: no new game starts (those in flight end and are rated)."""
    _set_paused(name, True, database)


@ladder_app.command("resume")
def resume(name: str = typer.Argument(..., help="The ladder."), database: str | None = _DB) -> None:
    """Resume a paused continuous ladder."""
    _set_paused(name, False, database)


def describe_settings(settings: Any) -> str:
    """How a ladder plays on by itself, in one line."""
    if not settings.continuous:
        return "played in runs (not continuous)"
    cap = "no daily cap" if settings.daily_cap is None else f"{settings.daily_cap} a day per snake"
    state = "paused" if settings.paused else "continuous"
    return (
        f"{state}: {settings.games_in_flight} games in flight at most, "
        f"{settings.games_per_hour} an hour at most, {cap}"
    )


@ladder_app.command("show")
def show(name: str = typer.Argument(..., help="The ladder."), database: str | None = _DB) -> None:
    """Standings: rating (mu - 3 sigma), mu, sigma, games; paused snakes."""
    from snakewar.arena.ladder import load_ladder

    with _store(database) as store:
        _show(load_ladder(store, name))


@ladder_app.command("list")
def list_ladders(database: str | None = _DB) -> None:
    """The ladders in the database."""
    with _store(database) as store:
        for name in store.ladders.names():
            typer.echo(name)


def _show(ladder: Any) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"ladder {ladder.name}: {ladder.games_played} games", title_justify="left")
    for column in ("#", "entrant", "rating", "mu", "sigma", "games", "status"):
        table.add_column(column, justify="left" if column in ("entrant", "status") else "right")
    rated = set()
    for row in ladder.standings():
        rated.add(row.snake)
        entry = ladder.entries.get(row.snake)
        table.add_row(str(row.rank), row.snake, f"{row.display:.2f}", f"{row.rating.mu:.2f}",
                      f"{row.rating.sigma:.2f}", str(row.games), status(entry))  # fmt: skip
    for entry in ladder.entries.values():
        if entry.name not in rated:
            table.add_row("-", entry.name, "-", "-", "-", "0", status(entry))
    Console(highlight=False).print(table)


def status(entry: LadderEntry | None) -> str:
    """An entrant's status in a table: paused or failing with the reason, or active."""
    if entry is None:
        return "active"
    if entry.paused:
        return entry.note or "paused"  # "paused: why"
    if entry.failing:
        return f"failing: {entry.note}" if entry.note else "failing"
    return "active"
