"""``snakewar maps``: the map catalogue."""

from __future__ import annotations

import inspect

import typer
from rich.console import Console
from rich.table import Table

__all__ = ["maps_app"]

maps_app = typer.Typer(help="List the maps and show their details.", no_args_is_help=True)


def _players(min_players: int, max_players: int) -> str:
    return str(min_players) if min_players == max_players else f"{min_players}-{max_players}"


@maps_app.command("list")
def list_command() -> None:
    """List every map with its players, sizes and tags."""
    from snakewar.games.battlesnake.rules.maps import list_maps

    table = Table(title="Battlesnake maps", title_justify="left")
    for column in ("id", "name", "version", "players", "sizes", "tags"):
        table.add_column(column, no_wrap=column in ("id", "sizes"))
    for game_map in list_maps():
        m = game_map.meta
        table.add_row(
            m.id,
            m.name,
            f"v{m.version}",
            _players(m.min_players, m.max_players),
            m.sizes.describe(),
            ", ".join(m.tags),
        )
    Console(width=140).print(table)


@maps_app.command("info")
def info_command(
    map_ids: list[str] = typer.Argument(..., metavar="ID...", help="Map ids, see 'maps list'."),
) -> None:
    """Show the full metadata of one or more maps."""
    from snakewar.games.battlesnake.rules.maps import get_map

    maps = [get_map(map_id) for map_id in map_ids]  # fail before printing anything
    for i, game_map in enumerate(maps):
        m = game_map.meta
        if i:
            typer.echo("")
        typer.echo(f"id:          {m.id}")
        typer.echo(f"name:        {m.name}")
        typer.echo(f"description: {m.description}")
        typer.echo(f"author:      {m.author or '-'}")
        typer.echo(f"version:     v{m.version}")
        typer.echo(f"players:     {_players(m.min_players, m.max_players)}")
        typer.echo(f"sizes:       {m.sizes.describe()}")
        typer.echo(f"tags:        {', '.join(m.tags) or '-'}")
        doc = inspect.cleandoc(type(game_map).__doc__ or "")
        if doc:
            typer.echo("")
            typer.echo(doc)
