"""``snakewar play``: run a game in the terminal.

The flags follow the official CLI (``battlesnake play``).  Snakes are given in one
list, in the order they are placed; the same seed and snake list always give the
same game (snake ids are ``snake-1`` … ``snake-N`` in that order, and every
built-in bot's randomness derives from the seed).
"""

from __future__ import annotations

import random
import secrets
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

import typer

from snakewar.errors import SnakewarError

__all__ = ["SnakeSpec", "parse_snake", "play"]

BUILTIN_BOTS = ("random",)


class SnakeSpecError(SnakewarError, ValueError):
    """Raised for a snake argument that is neither a built-in name nor a URL."""


@dataclass(frozen=True, slots=True)
class SnakeSpec:
    """One snake of the command line: a built-in bot, for now."""

    kind: str
    target: str


def parse_snake(text: str) -> SnakeSpec:
    """Parse ``builtin:NAME`` (or a bare built-in name).

    Raises:
        SnakeSpecError: for anything else, naming the value and the choices.
    """
    name = text.removeprefix("builtin:")
    if name in BUILTIN_BOTS:
        return SnakeSpec("builtin", name)
    if text.startswith(("http://", "https://")):
        raise SnakeSpecError(
            f"snake {text!r}: HTTP snakes need the referee, which this release does not "
            "include yet (use built-in snakes: "
            + ", ".join(f"'builtin:{b}'" for b in BUILTIN_BOTS)
            + ")"
        )
    raise SnakeSpecError(
        f"unknown snake {text!r} (expected one of "
        + ", ".join(f"'builtin:{b}'" for b in BUILTIN_BOTS)
        + ")"
    )


def play(
    snakes: list[str] = typer.Argument(
        None, metavar="[SNAKE]...", help="Snakes in placement order (default: 4x builtin:random)."
    ),
    names: list[str] = typer.Option([], "-n", "--name", help="Snake names, in order."),
    width: int = typer.Option(11, "-W", "--width", help="Board width."),
    height: int = typer.Option(11, "-H", "--height", help="Board height."),
    gametype: str = typer.Option("standard", "-g", "--gametype", help="Ruleset."),
    map_id: str = typer.Option(
        "standard", "-m", "--map", help="Map id (see 'snakewar maps list')."
    ),
    seed: int | None = typer.Option(None, "-r", "--seed", help="Seed (default: random, printed)."),
    viewmap: bool = typer.Option(False, "-v", "--viewmap", help="Draw the board every turn."),
    color: bool = typer.Option(False, "-c", "--color", help="Draw in colour."),
    delay: int = typer.Option(0, "-d", "--delay", help="Milliseconds to pause after each turn."),
    max_turns: int | None = typer.Option(None, "--max-turns", help="Stop after this many turns."),
    food_spawn_chance: int = typer.Option(15, "--foodSpawnChance"),
    minimum_food: int = typer.Option(1, "--minimumFood"),
    hazard_damage: int = typer.Option(14, "--hazardDamagePerTurn"),
    shrink_every: int = typer.Option(25, "--shrinkEveryNTurns"),
) -> None:
    """Play a game between built-in snakes and show it in the terminal."""
    from rich.console import Console
    from rich.table import Table

    from snakewar.bots.random_safe import RandomSafeBot
    from snakewar.games.battlesnake import Game, GameConfig, Settings, render_board

    specs = [parse_snake(s) for s in (snakes or ["builtin:random"] * 4)]
    if len(names) > len(specs):
        raise SnakeSpecError(f"{len(names)} names given for {len(specs)} snakes")
    ids = [f"snake-{i + 1}" for i in range(len(specs))]
    display = {
        sid: (names[i] if i < len(names) else f"{specs[i].target}-{i + 1}")
        for i, sid in enumerate(ids)
    }
    game_seed = seed if seed is not None else secrets.randbits(62) + 1
    settings = Settings(
        {
            "foodSpawnChance": str(food_spawn_chance),
            "minimumFood": str(minimum_food),
            "damagePerTurn": str(hazard_damage),
            "shrinkEveryNTurns": str(shrink_every),
        },
        game_seed,
    )
    config = GameConfig(ruleset=gametype, map=map_id, width=width, height=height, settings=settings)
    game = Game(config, ids)
    wrapped = "wrapped" in gametype
    # Each bot's randomness comes from the game seed and its seat, for reproducibility.
    bots = {
        sid: RandomSafeBot(random.Random(f"{game_seed}:{i}").getrandbits(64), wrapped)
        for i, sid in enumerate(ids)
    }
    console = Console(highlight=False)
    draw: Callable[[], str] = lambda: render_board(  # noqa: E731
        game.state,
        color=color,
        unicode=sys.stdout.encoding.lower().startswith("utf"),
        names=display,
    )
    if viewmap:
        console.print(draw(), markup=False)
    reason = "game_over"
    while not game.is_over:
        if max_turns is not None and game.state.turn >= max_turns:
            reason = "max_turns"
            break
        moves = {sid: bots[sid].move(game.state, sid) for sid in game.alive_ids()}
        game.step(moves)
        if viewmap:
            console.print(draw(), markup=False)
        if delay > 0:
            time.sleep(delay / 1000)
    result = game.result(reason)
    if not viewmap:
        console.print(draw(), markup=False)
    table = Table(title=f"Game over after {result.turns} turns", title_justify="left")
    for column in ("snake", "name", "length", "health", "result"):
        table.add_column(column)
    for snake in result.final_state.snakes:
        outcome = (
            f"{snake.eliminated_cause}"
            + (
                f" by {snake.eliminated_by}"
                if snake.eliminated_by and snake.eliminated_by != snake.id
                else ""
            )
            + f" on turn {snake.eliminated_on_turn}"
            if snake.eliminated_cause
            else ("winner" if result.winner == snake.id else "alive")
        )
        table.add_row(snake.id, display[snake.id], str(len(snake.body)), str(snake.health), outcome)
    console.print(table)
    if result.winner:
        console.print(f"{display[result.winner]} ({result.winner}) was the winner.")
    elif result.is_draw:
        console.print("It was a draw.")
    elif reason == "max_turns":
        console.print(f"Stopped at the turn limit ({max_turns}).")
    console.print(
        f"ruleset {gametype}, map {map_id}, {width}x{height}, seed {game_seed} "
        f"(replay with: snakewar play -r {game_seed} ...)"
    )
