"""The HTML pages: each a Jinja2 template whose script is a static ES module.

The pages render no stored data themselves: each page's module (in
``viewer/static/pages/``) reads the REST API and draws from it, and whatever it
needs from the URL comes in ``data-*`` attributes.  Pages about one stored thing (a
ladder, a tournament, a Halite game) look it up first, so a missing one is a 404.
"""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse
from fastapi.templating import Jinja2Templates

from snakewar.adapters.halite3 import GAME as HALITE
from snakewar.arena.ladder import load_ladder
from snakewar.arena.tournament_runner import load_tournament
from snakewar.bots import bot_names
from snakewar.server.deps import StoreDep, TemplatesDep, static_url
from snakewar.server.routers.halite import MAX_UPLOAD_BYTES
from snakewar.storage import GameNotFoundError

__all__ = ["router"]

router = APIRouter(include_in_schema=False, default_response_class=HTMLResponse)

TurnQuery = Annotated[str | None, Query()]
"""``?turn=N`` opens a game at turn N (anything but digits is ignored)."""


def _render(
    templates: Jinja2Templates, request: Request, template: str, **context: Any
) -> HTMLResponse:
    response: HTMLResponse = templates.TemplateResponse(request, template, context)
    return response


def _with_turn(params: dict[str, str], turn: str | None) -> dict[str, str]:
    if turn is not None and turn.isdigit():
        params["turn"] = turn
    return params


@router.get("/")
def home(request: Request, templates: TemplatesDep) -> HTMLResponse:
    """Live and recent games."""
    return _render(templates, request, "home.html", title="Home")


@router.get("/new")
def new_game(request: Request, templates: TemplatesDep) -> HTMLResponse:
    """The new-game form."""
    builtins = [f"builtin:{name}" for name in bot_names()]
    return _render(templates, request, "new_game.html", title="New game", builtins=builtins)


@router.get("/view/{game_id}")
def view_game(
    game_id: str, request: Request, templates: TemplatesDep, turn: TurnQuery = None
) -> HTMLResponse:
    """A game in the board viewer (live or stored), with rematch and download."""
    engine = str(request.base_url).rstrip("/")
    params = {"engine": engine, "game": game_id, "autoplay": "true", "fit": "true"}
    board = static_url("board.html") + "?" + urlencode(_with_turn(params, turn))
    return _render(
        templates, request, "game.html", title=f"Game {game_id}", game_id=game_id, board=board
    )


@router.get("/replay", response_class=RedirectResponse)
def open_replay() -> RedirectResponse:
    """The board viewer's file picker."""
    return RedirectResponse(static_url("board.html") + "?replay=1")


@router.get("/test")
def tester(request: Request, templates: TemplatesDep) -> HTMLResponse:
    """The snake tester."""
    return _render(templates, request, "tester.html", title="Test a snake")


@router.get("/ladders")
def ladders(request: Request, templates: TemplatesDep) -> HTMLResponse:
    """Every ladder (the module reads ``/api/ladders``)."""
    return _render(templates, request, "ladders.html", title="Ladders")


@router.get("/ladders/{name}")
async def ladder(
    name: str, request: Request, templates: TemplatesDep, store: StoreDep
) -> HTMLResponse:
    """A ladder's standings, rating chart and recent games (404 for no such ladder)."""
    await store.run(load_ladder, store.store, name)
    return _render(templates, request, "ladder.html", title=f"Ladder {name}", name=name)


@router.get("/tournaments/{tid}")
async def tournament(
    tid: str, request: Request, templates: TemplatesDep, store: StoreDep
) -> HTMLResponse:
    """A tournament's bracket and standings (404 for no such tournament)."""
    await store.run(load_tournament, store.store, tid)
    return _render(templates, request, "tournament.html", title="Tournament", tid=tid)


@router.get("/halite")
def halite_games(request: Request, templates: TemplatesDep) -> HTMLResponse:
    """Stored Halite games (the module reads ``/api/halite/games``) and the upload form."""
    return _render(
        templates,
        request,
        "halite_games.html",
        title="Halite",
        max_upload_mib=MAX_UPLOAD_BYTES // (1024 * 1024),
    )


@router.get("/halite/games/{game_id}")
async def halite_game(
    game_id: str,
    request: Request,
    templates: TemplatesDep,
    store: StoreDep,
    turn: TurnQuery = None,
) -> HTMLResponse:
    """A stored Halite game in the Halite viewer."""
    row = await store.run(store.store.games.get, game_id)
    if row is None or row.game != HALITE.name:
        raise GameNotFoundError(game_id)
    board = "/halite/board?" + urlencode(_with_turn({"game": row.id}, turn))
    return _render(
        templates,
        request,
        "halite_game.html",
        title="Halite: " + " vs ".join(str(e.get("name", "")) for e in row.entrants),
        game_id=row.id,
        board=board,
    )


@router.get("/halite/view", response_class=RedirectResponse)
def halite_open_replay() -> RedirectResponse:
    """The Halite viewer's file picker."""
    return RedirectResponse("/halite/board?replay=1")


@router.get("/halite/board")
def halite_board(request: Request, templates: TemplatesDep) -> HTMLResponse:
    """The Halite viewer itself (``halite.js``), which the Halite pages embed."""
    return _render(templates, request, "halite_board.html")
