"""``snakewar tournament``: brackets, round robins and Swiss events played on SQLite."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from snakewar.cli.ladder import _GAME, _PARAMS, match_config

if TYPE_CHECKING:
    from snakewar.storage import Store

__all__ = ["tournament_app"]

tournament_app = typer.Typer(
    help="Tournaments: single or double elimination, round robin or Swiss, with real games.",
    no_args_is_help=True,
    rich_markup_mode=None,
)

_DB = typer.Option(
    None, "--database", help="SQLAlchemy URL (default: the server's SQLite database)."
)


def _store(database: str | None) -> Store:
    from snakewar.storage import Store

    return Store(database)


@tournament_app.command("create")
def create(
    name: str = typer.Argument(..., help="The tournament's name."),
    format: str = typer.Option(
        "single_elimination",
        "--format",
        "-f",
        help="single_elimination, double_elimination, round_robin or swiss.",
    ),
    snakes: list[str] = typer.Option(
        [],
        "--snake",
        "-s",
        help="An entrant, as the game takes them (a URL, builtin:NAME, a bot command, ...), "
        "best seed first.",
    ),
    names: list[str] = typer.Option(
        [], "--name", "-n", help="Names for the entrants, in the order of --snake."
    ),
    heat_size: int = typer.Option(2, "--heat-size", help="Entrants per match."),
    best_of: int = typer.Option(1, "--best-of", help="Games per match at most (odd)."),
    advance: int | None = typer.Option(None, "--advance", help="Entrants going on per heat."),
    rounds: int | None = typer.Option(None, "--rounds", help="Swiss rounds."),
    ladder: str | None = typer.Option(
        None, "--seed-from-ladder", help="Seed entrants by their rating on this ladder."
    ),
    game: str | None = _GAME,
    params: list[str] = _PARAMS,
    gametype: str | None = typer.Option(None, "-g", "--gametype", help="Same as -p ruleset=NAME."),
    map_id: str | None = typer.Option(None, "-m", "--map", help="Same as -p map=ID."),
    width: int | None = typer.Option(None, "-W", "--width", help="Same as -p width=N."),
    height: int | None = typer.Option(None, "-H", "--height", help="Same as -p height=N."),
    timeout: int | None = typer.Option(
        None, "-t", "--timeout", help="Ms per turn (default: the game's)."
    ),
    max_turns: int | None = typer.Option(None, "--max-turns"),
    seed: int = typer.Option(1, "--seed", help="The seed the games' seeds derive from."),
    database: str | None = _DB,
) -> None:
    """Create a tournament; prints its id."""
    from snakewar.arena.ladder import load_ladder
    from snakewar.arena.tournament_runner import TournamentRun, TournamentRunError

    if len(names) > len(snakes):
        raise TournamentRunError(
            f"{len(names)} --name for {len(snakes)} --snake: expected at most one per entrant"
        )
    given: list[str | None] = [*names, *([None] * (len(snakes) - len(names)))]
    config = match_config(
        game,
        params,
        {"ruleset": gametype, "map": map_id, "width": width, "height": height},
        timeout=timeout,
        max_turns=max_turns,
        game_size=heat_size,
    )
    options: dict[str, Any] = {} if rounds is None else {"rounds": rounds}
    with _store(database) as store:
        ratings = load_ladder(store, ladder).board.ratings if ladder is not None else None
        run = TournamentRun.create(name, format, list(zip(snakes, given, strict=True)),
                                   config=config, seed=seed, heat_size=heat_size,
                                   best_of=best_of, advance=advance, ratings=ratings,
                                   workdir=os.getcwd(), **options)  # fmt: skip
        store.tournaments.create(run)
    typer.echo(run.id)


@tournament_app.command("run")
def run(
    tid: str = typer.Argument(..., help="The tournament's id."),
    parallel: int = typer.Option(4, "--parallel", help="Games played at once."),
    executor: str = typer.Option("inprocess", "--executor", help="inprocess, pool or ray."),
    workers: int = typer.Option(2, "--workers", help="Processes for the pool executor."),
    ray_address: str | None = typer.Option(None, "--ray-address", help="A Ray cluster."),
    database: str | None = _DB,
) -> None:
    """Play the tournament to the end (it is saved after every round of games)."""
    from snakewar.arena.executors import make_executor
    from snakewar.arena.tournament_runner import TournamentRunError, load_tournament

    if parallel < 1:
        raise TournamentRunError(f"--parallel {parallel}: expected at least 1")
    with _store(database) as store:
        t = load_tournament(store, tid)
        chosen = make_executor(
            executor, concurrency=parallel, workers=workers, ray_address=ray_address
        )
        t.run(store, chosen,
              on_step=lambda r, n: typer.echo(f"played {n} game(s); "
                                              f"{len(r.tournament.pending_matches())} "
                                              "match(es) pending"))  # fmt: skip
    _show(t)


@tournament_app.command("show")
def show(
    tid: str = typer.Argument(..., help="The tournament's id."), database: str | None = _DB
) -> None:
    """Standings and the bracket's rounds."""
    from snakewar.arena.tournament_runner import load_tournament

    with _store(database) as store:
        _show(load_tournament(store, tid))


@tournament_app.command("export")
def export(
    tid: str = typer.Argument(..., help="The tournament's id."),
    output: Path | None = typer.Option(None, "-o", "--output", help="File (default: stdout)."),
    database: str | None = _DB,
) -> None:
    """Results as JSON: standings, champion, matches with their games' ids and seeds."""
    from snakewar.arena.tournament_runner import load_tournament
    from snakewar.cli.paths import check_writable, write_output

    if output is not None:
        check_writable(output, "output file")
    with _store(database) as store:
        text = json.dumps(load_tournament(store, tid).export(), indent=2)
    if output is None:
        typer.echo(text)
    else:
        write_output(output, text + "\n", "output file")
        typer.echo(f"wrote {output}")


@tournament_app.command("list")
def list_tournaments(database: str | None = _DB) -> None:
    """The tournaments in the database: id and name."""
    with _store(database) as store:
        for tid, name in store.tournaments.list_all():
            typer.echo(f"{tid}\t{name}")


def _show(run: Any) -> None:
    t = run.tournament
    state = "finished" if t.is_finished else "in progress"
    typer.echo(f"tournament {run.name} ({run.id}): {t.format}, {state}")
    if t.champion is not None:
        typer.echo(f"champion: {t.champion}")
    typer.echo("standings:")
    for s in t.standings():
        typer.echo(f"  {s.place:>3}. {s.entrant:<24} seed {s.seed:<3} points {s.points} "
                   f"games {s.game_wins}-{s.game_losses}")  # fmt: skip
    for rnd in t.to_dict()["rounds"]:
        typer.echo(f"{rnd['name']} ({rnd['bracket']}):")
        for m in rnd["matches"]:
            field = " vs ".join(f"{e} ({m['wins'].get(e, 0)})" for e in m["entrants"]) or "?"
            outcome = f" -> {', '.join(m['advanced'])}" if m["status"] in ("done", "bye") else ""
            games = len(run.games.get(m["id"], []))
            typer.echo(f"  {m['id']:<8} {m['status']:<8} {field}{outcome}  [{games} game(s)]")
