"""``snakewar ladder``: a local ladder on SQLite, like Halite's ``hlt gym``."""

from __future__ import annotations

from typing import Any

import typer

__all__ = ["ladder_app"]

ladder_app = typer.Typer(
    help="Ladders: snakes that keep playing each other, rated with OpenSkill (mu - 3 sigma).",
    no_args_is_help=True,
    rich_markup_mode=None,
)

_DB = typer.Option(
    None, "--database", help="SQLAlchemy URL (default: the server's SQLite database)."
)


def _store(database: str | None) -> Any:
    from snakewar.server.store import Store

    return Store(database)


@ladder_app.command("create")
def create(
    name: str = typer.Argument(..., help="The ladder's name."),
    gametype: str = typer.Option("standard", "-g", "--gametype"),
    map_id: str = typer.Option("standard", "-m", "--map"),
    width: int | None = typer.Option(
        None, "-W", "--width", help="Board width (11; Halite: the seed picks, 32-64)."
    ),
    height: int | None = typer.Option(None, "-H", "--height", help="Board height."),
    timeout: int | None = typer.Option(
        None, "-t", "--timeout", help="Ms per move (500; Halite: 2000)."
    ),
    game_size: int = typer.Option(2, "--game-size", help="Players per game (2-8)."),
    max_turns: int | None = typer.Option(None, "--max-turns"),
    seed: int = typer.Option(1, "--seed", help="Seeds the matchmaker and the games."),
    game: str = typer.Option("battlesnake", "--game", help="battlesnake or halite3."),
    database: str | None = _DB,
) -> None:
    """Create a ladder with one game config."""
    from snakewar.arena.ladder import Ladder, LadderError

    config = _config(game, gametype, map_id, width, height, timeout, max_turns, game_size)
    config.check()
    with _store(database) as store:
        if store.load_ladder(name) is not None:
            raise LadderError(f"a ladder named {name!r} already exists")
        store.save_ladder(name, Ladder(name, config, seed).to_dict())
    if config.game == "halite3":
        size = f"{config.width}x{config.height or config.width}" if config.width else "seed-sized"
        typer.echo(f"created ladder {name!r}: halite3, {size} maps, {game_size} players per game")
    else:
        typer.echo(f"created ladder {name!r}: {gametype}, {map_id}, "
                   f"{config.width}x{config.height}, {game_size} snakes per game")  # fmt: skip


def _config(
    game: str,
    gametype: str,
    map_id: str,
    width: int | None,
    height: int | None,
    timeout: int | None,
    max_turns: int | None,
    game_size: int = 2,
) -> Any:
    """The ladder/tournament game config from the command line's options."""
    from snakewar.arena.ladder import LadderConfig

    halite = game == "halite3"
    return LadderConfig(
        gametype,
        map_id,
        width if width is not None else 0 if halite else 11,
        height if height is not None else 0 if halite else 11,
        timeout_ms=timeout if timeout is not None else 2000 if halite else 500,
        game_size=game_size,
        max_turns=max_turns,
        game=game,
    )


@ladder_app.command("add")
def add(
    name: str = typer.Argument(..., help="The ladder."),
    snake: str = typer.Argument(
        ..., help="A URL, builtin:NAME or legacy:URL (Halite: a bot command or builtin:NAME)."
    ),
    as_name: str | None = typer.Option(None, "--name", "-n", help="The snake's name."),
    database: str | None = _DB,
) -> None:
    """Add a snake to a ladder."""
    from snakewar.arena.ladder import load_ladder

    with _store(database) as store:
        ladder = load_ladder(store, name)
        entry = ladder.add(snake, as_name)
        store.save_ladder(name, ladder.to_dict())
    typer.echo(f"added {entry.name!r} ({entry.source}) to {name!r}")


@ladder_app.command("run")
def run(
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
) -> None:
    """Play games: matchmaking by rating, health checks, rating updates."""
    import time

    from rich.progress import Progress

    from snakewar.arena.executors import make_executor
    from snakewar.arena.ladder import LadderError, load_ladder

    if games < 1:
        raise LadderError(f"--games {games}: expected at least 1")
    if every is not None and every <= 0:
        raise LadderError(f"--every {every}: expected a number of seconds > 0")
    chosen = make_executor(executor, concurrency=parallel, workers=workers, ray_address=ray_address)
    while True:
        started = time.monotonic()
        with _store(database) as store:
            ladder = load_ladder(store, name)
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
        for name in store.list_ladders():
            typer.echo(name)


def _show(ladder: Any) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"ladder {ladder.name}: {len(ladder.games)} games", title_justify="left")
    for column in ("#", "snake", "rating", "mu", "sigma", "games", "status"):
        table.add_column(column, justify="left" if column in ("snake", "status") else "right")
    rated = set()
    for row in ladder.standings():
        rated.add(row.snake)
        entry = ladder.entries.get(row.snake)
        table.add_row(str(row.rank), row.snake, f"{row.display:.2f}", f"{row.rating.mu:.2f}",
                      f"{row.rating.sigma:.2f}", str(row.games),
                      entry.note if entry and entry.paused else "active")  # fmt: skip
    for entry in ladder.entries.values():
        if entry.name not in rated:
            table.add_row("-", entry.name, "-", "-", "-", "0",
                          entry.note if entry.paused else "active")  # fmt: skip
    Console(highlight=False).print(table)
