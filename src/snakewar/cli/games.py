"""``snakewar games``: the games Snakewar hosts, their parameters and built-in bots."""

from __future__ import annotations

import typer

__all__ = ["games_command"]


def games_command(
    name: str | None = typer.Argument(None, help="A game: show its parameters and bots."),
) -> None:
    """List the games, or show one game's parameters (for --param KEY=VALUE) and bots."""
    from rich.console import Console
    from rich.table import Table

    from snakewar.adapters import games, get_game

    console = Console(highlight=False)
    if name is None:
        table = Table(title="games", title_justify="left")
        for column in ("game", "title", "players", "built-in bots", "entrants"):
            table.add_column(column)
        for adapter in games():
            c = adapter.catalogue()
            table.add_row(
                c.name,
                c.title,
                ", ".join(str(n) for n in c.player_counts),
                ", ".join(b.name for b in c.bots),
                c.entrant_help,
            )
        console.print(table)
        return
    c = get_game(name).catalogue()
    console.print(f"{c.title} ({c.id}): {c.description}", markup=False)
    table = Table(title="parameters (--param KEY=VALUE)", title_justify="left")
    for column in ("parameter", "default", "values", "meaning"):
        table.add_column(column)
    for p in c.params:
        if p.choices:
            values = ", ".join(p.choices)
        elif p.kind == "int":
            low = "" if p.minimum is None else str(p.minimum)
            high = "" if p.maximum is None else str(p.maximum)
            values = f"{low}..{high}"
        else:
            values = p.kind
        table.add_row(p.name, str(p.default), values, p.help)
    console.print(table)
    for bot in c.bots:
        console.print(f"builtin:{bot.name}  {bot.description}", markup=False)
