"""``snakewar bot``: list the built-in bots and serve one over HTTP."""

from __future__ import annotations

import typer

__all__ = ["bot_app"]

bot_app = typer.Typer(
    help="Built-in bots: list them, or serve one as an API v1 snake.",
    no_args_is_help=True,
    rich_markup_mode=None,
)


@bot_app.command("list")
def list_bots() -> None:
    """List the built-in bots."""
    from snakewar.games.battlesnake.bots import bot_names, make_bot

    for name in bot_names():
        doc = (type(make_bot(name)).__doc__ or "").strip().splitlines()[0]
        typer.echo(f"{name:10} {doc}")


@bot_app.command("serve")
def serve_bot(
    name: str = typer.Argument(..., help="Built-in bot, e.g. hunter or 'hunter?budget=200'."),
    port: int = typer.Option(8000, "--port", "-p", help="TCP port."),
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on."),
) -> None:
    """Serve a built-in bot as a Battlesnake API v1 snake (until Ctrl-C)."""
    from snakewar.games.battlesnake.bots import make_bot
    from snakewar.games.battlesnake.bots.sdk import serve

    if not 0 < port < 65536:
        raise typer.BadParameter(f"{port}: expected 1..65535", param_hint=["-p", "--port"])
    bot = make_bot(name)
    serve(
        bot,
        host,
        port,
        # Said once the port is taken: a port in use is one error line, and no claim.
        on_listening=lambda: typer.echo(
            f"serving builtin:{name} on http://{host}:{port}/", err=True
        ),
    )
