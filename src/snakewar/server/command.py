"""``snakewar serve``: the web server (create and watch games in the browser).

The server's own command: :mod:`snakewar.command` adds it to the ``snakewar`` command
line (which itself knows nothing of the server).
"""

from __future__ import annotations

import typer

from snakewar.errors import SnakewarError

__all__ = ["serve"]


def serve(
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on."),
    port: int = typer.Option(8000, "--port", "-p", help="TCP port."),
    database: str | None = typer.Option(
        None,
        "--database",
        help="SQLAlchemy URL (default: SQLite in the user data directory, "
        "or $SNAKEWAR_DATABASE_URL); 'memory' keeps nothing.",
    ),
    public: bool = typer.Option(
        False, "--public", help="Refuse private snake addresses, rate-limit game creation."
    ),
    max_games: int = typer.Option(32, "--max-games", help="Most games running at once."),
) -> None:
    """Serve the web app: new games, live viewer, replays, the snake tester, the API."""
    import uvicorn

    from snakewar.server.app import create_app
    from snakewar.server.config import ServerConfig

    if not 0 < port < 65536:
        raise SnakewarError(f"port {port}: expected 1..65535")
    if max_games < 1:
        raise SnakewarError(f"--max-games {max_games}: expected at least 1")
    app = create_app(
        ServerConfig(database_url=database, public=public, max_concurrent_games=max_games)
    )
    shown = "localhost" if host in ("127.0.0.1", "0.0.0.0") else host
    typer.echo(f"Snakewar is running at http://{shown}:{port}/ (Ctrl-C to stop)", err=True)
    uvicorn.run(app, host=host, port=port, log_level="warning", access_log=False)
