"""``snakewar tournament``: brackets, round robins and Swiss events played on SQLite."""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from snakewar.cli.ladder import _GAME, _PARAMS, match_config
from snakewar.cli.launching import (
    CONFIG_OPTION,
    LAUNCH_DIR_OPTION,
    LAUNCH_LOGS_OPTION,
    LAUNCH_MAX_GAMES_OPTION,
    LAUNCH_TIMEOUT_OPTION,
)

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
    later: bool = typer.Option(
        False,
        "--later",
        help="Make it to start later: until it plays (round, run, or a server's scheduler "
        "at --starts-at) its entrants may change (enter, withdraw, qualify).",
    ),
    registration: str = typer.Option(
        "closed",
        "--registration",
        help="Who enters snakes on a server: closed (its admins), open (every user, their "
        "own) or owner (its creator's and admins' snakes).",
    ),
    closes_at: str | None = typer.Option(
        None, "--closes-at", help="When registration closes (ISO time with its zone)."
    ),
    max_entrants: int | None = typer.Option(None, "--max-entrants", help="The most entrants."),
    per_owner: int | None = typer.Option(
        None, "--per-owner", help="The most entrants of one user's snakes."
    ),
    starts_at: str | None = typer.Option(
        None,
        "--starts-at",
        help="When a server's tournament scheduler starts it (ISO time with its zone).",
    ),
    round_gap: int = typer.Option(
        0, "--round-gap", help="Seconds the scheduler waits between rounds."
    ),
    database: str | None = _DB,
) -> None:
    """Create a tournament; prints its id."""
    from snakewar.arena.ladder import load_ladder
    from snakewar.arena.tournament_runner import TournamentRun, TournamentRunError
    from snakewar.storage.tournaments import TournamentSettings

    if (starts_at is not None or len(snakes) < 2) and not later:
        raise TournamentRunError(
            "--starts-at, or fewer than 2 --snake: give --later (it starts later)"
        )
    settings = TournamentSettings(
        registration=registration,
        closes_at=_when(closes_at, "--closes-at"),
        max_entrants=max_entrants,
        per_owner=per_owner,
        starts_at=_when(starts_at, "--starts-at"),
        round_gap_s=round_gap,
    )
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
        run.started = not later
        store.tournaments.create(run, settings)
    typer.echo(run.id)


def _when(text: str | None, option: str) -> dt.datetime | None:
    """An ISO time given on the command line, with its time zone."""
    from snakewar.arena.tournament_runner import TournamentRunError

    if text is None:
        return None
    try:
        when = dt.datetime.fromisoformat(text)
    except ValueError:
        raise TournamentRunError(
            f"{option} {text[:64]!r}: expected an ISO time, e.g. 2030-01-02T18:00:00+00:00"
        ) from None
    if when.tzinfo is None:
        raise TournamentRunError(f"{option} {text[:64]!r}: give its time zone (+00:00, Z)")
    return when.astimezone(dt.UTC)


@tournament_app.command("enter")
def enter(
    tid: str = typer.Argument(..., help="The tournament's id."),
    snake: str = typer.Argument(..., help="The entrant, as the game takes it."),
    name: str | None = typer.Option(None, "--name", "-n", help="Its name."),
    database: str | None = _DB,
) -> None:
    """Enter one more entrant (as an admin: whatever the registration; the caps hold)."""
    from snakewar.arena.tournament_runner import entry_owner, load_tournament
    from snakewar.engine.protocol import entrants_from_texts

    with _store(database) as store:
        run = load_tournament(store, tid)
        adapter = run.config.adapter
        (entrant,) = entrants_from_texts(adapter, [snake], [name])
        workdir = os.getcwd() if adapter.reach(entrant).kind == "program" else None
        count = store.tournaments.register(
            tid,
            entrant.name,
            entrant.source,
            owner=entry_owner(entrant.name),
            anytime=True,
            workdir=workdir,
        )
    typer.echo(f"entered {entrant.name}: {count} entrant(s)")


@tournament_app.command("withdraw")
def withdraw(
    tid: str = typer.Argument(..., help="The tournament's id."),
    name: str = typer.Argument(..., help="The entrant's name."),
    database: str | None = _DB,
) -> None:
    """Take an entrant out of a tournament that has not started."""
    from snakewar.arena.tournament_runner import TournamentRunError

    with _store(database) as store:
        if not store.tournaments.withdraw(tid, name):
            raise TournamentRunError(f"tournament {tid!r} has no entrant {name[:100]!r}")
    typer.echo(f"withdrew {name}")


@tournament_app.command("qualify")
def qualify(
    tid: str = typer.Argument(..., help="The tournament's id."),
    ladder: str = typer.Option(..., "--ladder", "-l", help="The ladder they qualify from."),
    top: int = typer.Option(..., "--top", help="How many qualify (2 to 64)."),
    per_owner: int | None = typer.Option(
        None, "--per-owner", help="The most entrants of one user's snakes."
    ),
    database: str | None = _DB,
) -> None:
    """Take the entrants from a ladder's top N (at most K per owner), seeded in its order."""
    import dataclasses

    from snakewar.arena.ladder import load_ladder
    from snakewar.arena.tournament_runner import (
        TournamentRun,
        TournamentRunError,
        load_tournament,
        qualifiers,
    )
    from snakewar.storage.tournaments import Qualifier

    if not 2 <= top <= 64:
        raise TournamentRunError(f"--top {top}: expected 2 to 64")
    if per_owner is not None and per_owner < 1:
        raise TournamentRunError(f"--per-owner {per_owner}: expected at least 1")
    with _store(database) as store:
        run = load_tournament(store, tid)
        board = load_ladder(store, ladder)
        if board.config.game != run.config.game:
            raise TournamentRunError(
                f"--ladder {ladder!r} plays {board.config.game}, this tournament {run.config.game}"
            )
        chosen = qualifiers(board, top, per_owner)
        if len(chosen) < 2:
            raise TournamentRunError(
                f"--ladder {ladder!r}: {len(chosen)} rated entrant(s) qualify; 2 are needed"
            )
        t = run.tournament.config
        changed = TournamentRun.create(
            run.name, t.format, [(e.source, e.name) for e in chosen], config=run.config,
            seed=run.seed, heat_size=t.heat_size, best_of=t.best_of, advance=t.advance,
            grand_final_reset=t.grand_final_reset, tid=run.id,
        )  # fmt: skip
        changed.workdirs.update({e.name: e.workdir for e in chosen if e.workdir is not None})
        changed.started = False
        settings = store.tournaments.settings(tid)
        store.tournaments.replace_unstarted(
            changed, dataclasses.replace(settings, qualifier=Qualifier(ladder, top, per_owner))
        )
    for i, entry in enumerate(chosen, start=1):
        typer.echo(f"{i:>3}. {entry.name}")


@tournament_app.command("round")
def next_round(
    tid: str = typer.Argument(..., help="The tournament's id."),
    parallel: int = typer.Option(4, "--parallel", help="Games played at once."),
    database: str | None = _DB,
) -> None:
    """Play the next round (starting the tournament if it waits), then stop."""
    from snakewar.arena.executors import make_executor
    from snakewar.arena.tournament_runner import TournamentRunError, load_tournament

    if parallel < 1:
        raise TournamentRunError(f"--parallel {parallel}: expected at least 1")
    with _store(database) as store:
        t = load_tournament(store, tid)
        found = t.next_round()
        if found is None:
            raise TournamentRunError(f"tournament {tid!r} is finished; nothing to play")
        t.check_playable()
        if not t.started:
            store.tournaments.mark_started(tid)
            t.started = True
        played = t.run_round(store, make_executor("inprocess", concurrency=parallel))
        typer.echo(f"{found[1]}: played {played} game(s)")
    _show(t)


@tournament_app.command("run")
def run(
    ctx: typer.Context,
    tid: str = typer.Argument(..., help="The tournament's id."),
    parallel: int = typer.Option(4, "--parallel", help="Games played at once."),
    executor: str = typer.Option("inprocess", "--executor", help="inprocess, pool or ray."),
    workers: int = typer.Option(2, "--workers", help="Processes for the pool executor."),
    ray_address: str | None = typer.Option(None, "--ray-address", help="A Ray cluster."),
    database: str | None = _DB,
    launch: list[str] = typer.Option(
        [],
        "--launch",
        metavar="CMD",
        help="Start a bot server for this run, a command with {port} (repeat); it plays as "
        "the entrant named after its program (entered now if the tournament has not started).",
    ),
    launch_dir: str = LAUNCH_DIR_OPTION,
    launch_timeout: float = LAUNCH_TIMEOUT_OPTION,
    launch_logs: str | None = LAUNCH_LOGS_OPTION,
    launch_max_games: int | None = LAUNCH_MAX_GAMES_OPTION,
    config_file: str | None = CONFIG_OPTION,
) -> None:
    """Play the tournament to the end (it is saved after every round of games).

    A launched bot (--launch, or a config file's bot with 'launch') plays as the
    entrant of its name, at the address it was started on for this run.
    """
    from snakewar.arena.executors import make_executor
    from snakewar.arena.tournament_runner import TournamentRunError, entry_owner, load_tournament
    from snakewar.cli.botconfig import load_bot_config
    from snakewar.cli.launching import LaunchOptions, launched, limit_notes

    bot_config = load_bot_config(config_file) if config_file is not None else None
    if bot_config is not None:

        def pick(option: str, value: int) -> int:
            # The file's value unless the command line gave the option explicitly.
            source = ctx.get_parameter_source(option)
            explicit = source is not None and source.name != "DEFAULT"
            return int(bot_config.option(option, value, explicit))

        parallel, workers = pick("parallel", parallel), pick("workers", workers)
    if parallel < 1:
        raise TournamentRunError(f"--parallel {parallel}: expected at least 1")
    to_launch = LaunchOptions(
        launch, launch_dir, launch_timeout, launch_logs, launch_max_games
    ).specs([], ray_address, bot_config)
    for note in limit_notes(to_launch):
        typer.echo(note, err=True)
    chosen = make_executor(executor, concurrency=parallel, workers=workers, ray_address=ray_address)
    with _store(database) as store, launched(to_launch) as launcher:
        if launcher is not None:
            from snakewar.cli.launchgate import LaunchGate

            # Each launched bot's limit holds for its own games; its deaths go in their logs.
            chosen.gate = LaunchGate(launcher)
        t = load_tournament(store, tid)
        if launcher is not None:
            for bot, wanted in zip(launcher.bots, to_launch, strict=True):
                if wanted.name not in t.snakes:
                    if t.started:
                        raise TournamentRunError(
                            f"tournament {tid!r} has started and has no entrant "
                            f"{wanted.name!r} for the launched bot"
                        )
                    store.tournaments.register(
                        tid, wanted.name, bot.url, owner=entry_owner(wanted.name), anytime=True
                    )
            t = load_tournament(store, tid)
            for bot, wanted in zip(launcher.bots, to_launch, strict=True):
                # For this run only: the stored entrant keeps the source it was entered with.
                t.snakes[wanted.name] = bot.url
        t.check_playable()
        if not t.started:
            store.tournaments.mark_started(tid)
            t.started = True
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
    state = "finished" if t.is_finished else "in progress" if run.started else "not started"
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
