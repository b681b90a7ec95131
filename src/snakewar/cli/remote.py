"""``snakewar remote``: drive a Snakewar server from the command line with an API token.

Every command takes ``--server URL`` (or ``$SNAKEWAR_SERVER``; default the local server
at ``http://127.0.0.1:8000``) and ``--token`` (or ``$SNAKEWAR_TOKEN``: an API token made
on the server's page, with ``POST /api/tokens``, or with ``snakewar user token NAME`` on
the server's machine).  A local server needs no token.
"""

from __future__ import annotations

import json
from typing import Any

import typer

from snakewar.errors import SnakewarError

__all__ = ["RemoteError", "remote_app"]

remote_app = typer.Typer(
    help="Drive a Snakewar server: your snakes, games and ladders (--server, --token).",
    no_args_is_help=True,
    rich_markup_mode=None,
)

_SERVER = typer.Option(
    "http://127.0.0.1:8000", "--server", envvar="SNAKEWAR_SERVER", help="The server's URL."
)
_TOKEN = typer.Option(
    None, "--token", envvar="SNAKEWAR_TOKEN", help="An API token of your account (sw_...)."
)


class RemoteError(SnakewarError):
    """Raised when the server cannot be reached or refuses a request."""


def _call(server: str, token: str | None, method: str, path: str, body: Any = None) -> Any:
    import httpx

    if not server.startswith(("http://", "https://")):
        raise RemoteError(f"--server {server[:80]!r}: expected an http:// or https:// URL")
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    try:
        response = httpx.request(
            method,
            server.rstrip("/") + path,
            json=body,
            headers=headers,
            timeout=60,
            trust_env=False,
        )
    except httpx.HTTPError as exc:
        raise RemoteError(f"cannot reach {server[:80]}: {exc}") from None
    if response.status_code == 204:
        return None
    try:
        data = response.json()
    except ValueError:
        raise RemoteError(
            f"{method} {path}: the server answered {response.status_code} without JSON"
        ) from None
    if response.is_error:
        detail = data.get("detail") if isinstance(data, dict) else data
        if isinstance(detail, list) and detail and isinstance(detail[0], dict):
            field = ".".join(str(p) for p in detail[0].get("loc", [])[1:])
            detail = f"{field}: {detail[0].get('msg', '')}"
        raise RemoteError(f"{method} {path}: {response.status_code}: {detail}")
    return data


def _echo(data: Any) -> None:
    typer.echo(json.dumps(data, indent=2))


@remote_app.command("whoami")
def whoami(server: str = _SERVER, token: str | None = _TOKEN) -> None:
    """Who the server takes you for."""
    me = _call(server, token, "GET", "/api/auth/me")
    user = me.get("user")
    typer.echo(f"{user['name']} ({user['role']})" if user else "anonymous")


@remote_app.command("snakes")
def snakes(
    mine: bool = typer.Option(False, "--mine", help="Only your snakes."),
    server: str = _SERVER,
    token: str | None = _TOKEN,
) -> None:
    """The registered snakes you can play (public ones and yours)."""
    for snake in _call(server, token, "GET", f"/api/snakes?mine={str(mine).lower()}"):
        paused = " (paused)" if snake["paused"] else ""
        typer.echo(f"{snake['id']}\t{snake['ref']}\t{snake['game']}\t{snake['visibility']}{paused}")


@remote_app.command("register")
def register(
    name: str = typer.Argument(..., help="The snake's name on the server."),
    url: str = typer.Argument(..., help="The snake's URL."),
    game: str | None = typer.Option(None, "--game", help="The game (default: the default game)."),
    private: bool = typer.Option(False, "--private", help="Only you may play it."),
    server: str = _SERVER,
    token: str | None = _TOKEN,
) -> None:
    """Register one of your snakes; games and ladders then name it @you/NAME."""
    body = {
        "name": name,
        "url": url,
        "game": game,
        "visibility": "private" if private else "public",
    }
    snake = _call(server, token, "POST", "/api/snakes", body)
    typer.echo(snake["ref"])


@remote_app.command("unregister")
def unregister(
    snake_id: int = typer.Argument(..., help="The snake's id (see 'snakewar remote snakes')."),
    server: str = _SERVER,
    token: str | None = _TOKEN,
) -> None:
    """Delete one of your snakes (it leaves every ladder)."""
    _call(server, token, "DELETE", f"/api/snakes/{snake_id}")


@remote_app.command("game")
def game(
    snakes: list[str] = typer.Argument(..., help="Built-in bots and @owner/name snakes."),
    game_name: str | None = typer.Option(None, "--game", help="The game."),
    params: list[str] = typer.Option([], "-p", "--param", help="A game parameter KEY=VALUE."),
    server: str = _SERVER,
    token: str | None = _TOKEN,
) -> None:
    """Start a game on the server; prints its id and where to watch it."""
    values: dict[str, Any] = {}
    for item in params:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise RemoteError(f"--param {item[:80]!r}: expected KEY=VALUE")
        values[key] = int(value) if value.lstrip("-").isdigit() else value
    body = {"snakes": snakes, "game": game_name, "params": values}
    started = _call(server, token, "POST", "/api/games", body)
    typer.echo(f"{started['id']}\t{server.rstrip('/')}{started['viewer']}")


@remote_app.command("join")
def join(
    ladder: str = typer.Argument(..., help="The ladder."),
    snake: str = typer.Argument(..., help="Your snake, @you/NAME."),
    server: str = _SERVER,
    token: str | None = _TOKEN,
) -> None:
    """Enter one of your snakes in a ladder."""
    _call(server, token, "POST", f"/api/ladders/{ladder}/snakes", {"snake": snake})
    typer.echo(f"{snake} joined {ladder}")


@remote_app.command("api")
def api(
    method: str = typer.Argument(..., help="GET, POST, PATCH or DELETE."),
    path: str = typer.Argument(..., help="The path, e.g. /api/ladders."),
    body: str | None = typer.Option(None, "--json", help="The JSON body."),
    server: str = _SERVER,
    token: str | None = _TOKEN,
) -> None:
    """Any API call (see the server's /docs); prints the JSON answer."""
    if method.upper() not in ("GET", "POST", "PATCH", "DELETE"):
        raise RemoteError(f"method {method[:10]!r}: expected GET, POST, PATCH or DELETE")
    if not path.startswith("/"):
        raise RemoteError(f"path {path[:80]!r}: expected an absolute path such as /api/games")
    try:
        parsed = json.loads(body) if body is not None else None
    except ValueError as exc:
        raise RemoteError(f"--json: not JSON ({exc})") from None
    _echo(_call(server, token, method.upper(), path, parsed))
