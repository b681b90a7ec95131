"""``snakewar eval A B [C...]``: fair A/B evaluation with paired seeds and an SPRT."""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from snakewar.arena.evaluation import EvalResult
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
    bots: list[str] = typer.Argument(
        ..., help="The bots, A then B (then others): built-in names, URLs, bot commands."
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
) -> None:
    """Fair A/B evaluation: every seed with every seating, a crosstable, Elo and an SPRT.

    The test is "B (the second bot) is better than A (the first) by --elo1 Elo"
    against "by at most --elo0"; it stops as soon as either is accepted at the error
    rates --alpha and --beta, or at --games.
    """
    import json

    from rich.console import Console

    from snakewar.arena.evalstats import Sprt
    from snakewar.arena.evaluation import MAX_BOTS, EvalError, run_eval, version_key
    from snakewar.arena.executors import make_executor
    from snakewar.cli.ladder import match_config

    if not 2 <= len(bots) <= MAX_BOTS:
        raise EvalError(f"{len(bots)} bots: expected 2 to {MAX_BOTS}")
    if games < 1:
        raise EvalError(f"--games {games}: expected at least 1")
    try:
        sprt = Sprt(elo0, elo1, alpha, beta)
    except ValueError as exc:
        raise EvalError(f"--elo0/--elo1/--alpha/--beta: {exc}") from None
    if json_file is not None and not json_file.parent.is_dir():
        raise EvalError(f"--json {json_file}: folder {json_file.parent} does not exist")
    config = match_config(
        game,
        params,
        {"ruleset": gametype, "width": width, "height": height},
        timeout=timeout,
        max_turns=max_turns,
        game_size=len(bots),
    )
    adapter = config.adapter
    entrants: list[Entrant] = []
    for n, text in enumerate(bots):
        entrant = adapter.entrant(text)
        if any(e.name == entrant.name for e in entrants):
            entrant = adapter.entrant(text, f"{entrant.name}#{n + 1}")
        entrants.append(entrant)
    versions = [version_key(e, adapter.reach(e).kind, _get) for e in entrants]
    chosen = make_executor(executor, concurrency=parallel, workers=workers, ray_address=ray_address)
    console = Console(highlight=False)

    def progress(result: EvalResult) -> None:
        state = result.state
        console.print(
            f"{result.games_used} games: LLR {state.llr if state else 0.0:.2f} "
            f"({state.lower if state else 0.0:.2f}, {state.upper if state else 0.0:.2f})"
        )

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
    )
    render(result, console)
    if json_file is not None:
        json_file.write_text(json.dumps(result.to_dict(), indent=2) + "\n")
        console.print(f"report: {json_file}")


def render(result: EvalResult, console: object) -> None:
    """The crosstable and the test's decision as rich tables on ``console``."""
    from rich.console import Console
    from rich.table import Table

    from snakewar.arena.evalstats import elo_from_score, elo_interval

    assert isinstance(console, Console)
    report = result.to_dict()
    table = Table(title="crosstable (row vs column: W-D-L, score, Elo [95% CI])")
    table.add_column("bot")
    table.add_column("version")
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
