"""The HTML pages: each a Jinja2 template whose script is a static ES module.

The pages render no stored data themselves: each page's module (in
``viewer/static/pages/``) reads the REST API and draws from it, and whatever it
needs from the URL comes in ``data-*`` attributes.  Pages about one stored thing (a
game, a ladder, a tournament) look it up first, so a missing one is a 404.

A game's page (``/view/{id}``) is its game's: the adapter's
:meth:`~snakewar.engine.protocol.GameAdapter.viewer_page` names the template and the
static viewer it embeds, so a new game needs no code here.
"""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import quote, urlencode

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse
from fastapi.templating import Jinja2Templates

from snakewar.adapters import get_game
from snakewar.arena.ladder import load_ladder
from snakewar.arena.tournament_runner import load_tournament
from snakewar.arena.tournaments import FORMAT_TITLES
from snakewar.bots import bot_names
from snakewar.server.auth import Principal, get_principal
from snakewar.server.deps import ManagerDep, StoreDep, TemplatesDep, static_url
from snakewar.server.routers.halite import MAX_UPLOAD_BYTES
from snakewar.storage import GameNotFoundError

__all__ = ["router"]

# Every page knows who is looking: it shows only the controls they may use.
router = APIRouter(
    include_in_schema=False,
    default_response_class=HTMLResponse,
    dependencies=[Depends(get_principal)],
)

TurnQuery = Annotated[str | None, Query()]
"""``?turn=N`` opens a game at turn N (anything but digits is ignored)."""


def _me(request: Request) -> dict[str, Any]:
    principal: Principal = request.state.principal
    user = principal.user
    return {
        "name": user.name if user is not None else None,
        "can_play": user is not None,
        "admin": principal.is_admin,
        "csrf": principal.csrf,
        "public": request.app.state.config.public,
        "signup": request.app.state.config.signup,
    }


def _render(
    templates: Jinja2Templates, request: Request, template: str, **context: Any
) -> HTMLResponse:
    response: HTMLResponse = templates.TemplateResponse(
        request, template, {"me": _me(request), **context}
    )
    return response


def _turn(text: str | None) -> int | None:
    # ASCII digits only (str.isdigit() takes "²", which int() refuses), and few of them.
    if text is not None and 0 < len(text) <= 9 and text.isascii() and text.isdigit():
        return int(text)
    return None


def _with_turn(params: dict[str, str], turn: str | None) -> dict[str, str]:
    if turn is not None and _turn(turn) is not None:
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
async def view_game(
    game_id: str,
    request: Request,
    templates: TemplatesDep,
    store: StoreDep,
    manager: ManagerDep,
    turn: TurnQuery = None,
) -> HTMLResponse:
    """A game (live or stored) in its game's viewer: the adapter names the page and viewer.

    404 for a game that is neither running nor stored.
    """
    live = manager.games.get(game_id)
    if live is not None:
        game, names = live.spec.game, [e.name for e in live.spec.entrants]
    else:
        row = await store.run(store.store.games.get, game_id)
        if row is None:
            raise GameNotFoundError(game_id)
        game, names = row.game, [str(e.get("name", "")) for e in row.entrants]
    adapter = get_game(game)
    page = adapter.viewer_page(
        game_id,
        server=str(request.base_url).rstrip("/"),
        turn=_turn(turn),
    )
    title = f"{adapter.catalogue().title}: " + " vs ".join(names)
    board = static_url(page.board)
    return _render(templates, request, page.template, title=title, game_id=game_id, board=board)


@router.get("/replay", response_class=RedirectResponse)
def open_replay() -> RedirectResponse:
    """The board viewer's file picker."""
    return RedirectResponse(static_url("board.html") + "?replay=1")


@router.get("/login")
def login(request: Request, templates: TemplatesDep) -> HTMLResponse:
    """Log in, or sign up where the server lets visitors make accounts."""
    return _render(templates, request, "login.html", title="Log in")


@router.get("/account", response_model=None)
def account(request: Request, templates: TemplatesDep) -> HTMLResponse | RedirectResponse:
    """Your snakes and API tokens (a visitor is sent to log in)."""
    if request.state.principal.user is None:
        return RedirectResponse("/login", status_code=303)
    return _render(templates, request, "account.html", title="Your account")


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


@router.get("/tournaments")
def tournaments(request: Request, templates: TemplatesDep) -> HTMLResponse:
    """Every tournament (the module reads ``/api/tournaments``) and, for admins, a new one."""
    formats = list(FORMAT_TITLES.items())
    return _render(templates, request, "tournaments.html", title="Tournaments", formats=formats)


def _admin_page(
    templates: Jinja2Templates, request: Request, template: str, title: str
) -> HTMLResponse | RedirectResponse:
    """An admin's page: a visitor is sent to log in; a user who is no admin is told (403)."""
    principal: Principal = request.state.principal
    if principal.user is None:
        return RedirectResponse("/login", status_code=303)
    response = _render(templates, request, template, title=title)
    if not principal.is_admin:
        response.status_code = 403
    return response


@router.get("/admin/users", response_model=None)
def admin_users(request: Request, templates: TemplatesDep) -> HTMLResponse | RedirectResponse:
    """The accounts: role, disable, reset a password (admins)."""
    return _admin_page(templates, request, "admin_users.html", "Users")


@router.get("/admin/invites", response_model=None)
def admin_invites(request: Request, templates: TemplatesDep) -> HTMLResponse | RedirectResponse:
    """Sign-up invitations: make one (its link is shown once), list and revoke (admins)."""
    return _admin_page(templates, request, "admin_invites.html", "Invitations")


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


@router.get("/halite/games/{game_id}", response_class=RedirectResponse)
def halite_game(game_id: str, turn: TurnQuery = None) -> RedirectResponse:
    """Where Halite games used to be shown: now the game page, like every game's."""
    query = urlencode(_with_turn({}, turn))
    return RedirectResponse(f"/view/{quote(game_id, safe='')}" + (f"?{query}" if query else ""))


@router.get("/halite/view", response_class=RedirectResponse)
def halite_open_replay() -> RedirectResponse:
    """The Halite viewer's file picker."""
    return RedirectResponse(static_url("halite.html") + "?replay=1")
