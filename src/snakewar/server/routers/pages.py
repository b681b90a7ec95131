"""The HTML pages: each a Jinja2 template whose script is a static ES module.

The pages render no stored data themselves: each page's module (in
``viewer/static/pages/``) reads the REST API and draws from it, and whatever it
needs from the URL comes in ``data-*`` attributes.  Pages about one stored thing (a
game, a ladder, a tournament) look it up first, so a missing one is a 404.

A game's page (``/view/{id}``) is its game's: the adapter's
:meth:`~snakewar.engine.protocol.GameAdapter.viewer_page` names the template and the
static viewer it embeds, so a new game needs no code here.  A game's other pages are its
own routes (its adapter's ``routers()``), made with :func:`page_router` and drawn with
:func:`render_page` and :func:`framed_page` like these, from its templates
(``<game>/<file>``, see :func:`snakewar.server.deps.make_templates`).

Pages that are someone else's (the viewers' file pickers, Swagger UI, ReDoc) are
shown in a frame under the site's header (``framed.html``), so every page has the way
back and their own styles and ours never mix.  :func:`not_found_page` is the HTML 404.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Final

from fastapi import APIRouter, Depends, Query, Request
from fastapi import Path as PathParam
from fastapi.responses import HTMLResponse, RedirectResponse
from fastapi.templating import Jinja2Templates

from snakewar.adapters import default_game, games, get_game
from snakewar.arena.ladder import load_ladder
from snakewar.arena.tournament_runner import load_tournament
from snakewar.arena.tournaments import FORMAT_TITLES
from snakewar.engine.protocol import GameAdapter
from snakewar.errors import NotFoundError, SnakewarError
from snakewar.referee.languages import CUSTOM, LANGUAGES
from snakewar.server.auth import Principal, get_principal
from snakewar.server.deps import (
    ManagerDep,
    StoreDep,
    TemplatesDep,
    game_static_url,
    get_templates,
)
from snakewar.server.preview import RevealQuery, page_preview_tags
from snakewar.server.routers.docs import REDOC_URL, SWAGGER_UI_URL
from snakewar.server.routers.games import can_read_log
from snakewar.storage import GameNotFoundError

__all__ = [
    "NEW_GAME_FORM",
    "TurnQuery",
    "framed_page",
    "game_forms",
    "not_found_page",
    "page_router",
    "parse_turn",
    "render_page",
    "router",
]


def page_router() -> APIRouter:
    """A router of HTML pages, as the site's and each game's pages are made.

    Its pages stay out of the OpenAPI description, answer HTML, and know who is looking
    (they show only the controls that one may use).
    """
    return APIRouter(
        include_in_schema=False,
        default_response_class=HTMLResponse,
        dependencies=[Depends(get_principal)],
    )


router = page_router()

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


def render_page(
    templates: Jinja2Templates,
    request: Request,
    template: str,
    *,
    status_code: int = 200,
    **context: Any,
) -> HTMLResponse:
    """The page ``template`` with ``context``, and ``me``: who is looking, what they may do.

    ``request`` must have passed a :func:`page_router`'s dependencies (its principal).
    """
    response: HTMLResponse = templates.TemplateResponse(
        request, template, {"me": _me(request), **context}, status_code=status_code
    )
    return response


async def not_found_page(request: Request, detail: str) -> HTMLResponse:
    """The HTML 404 page (the site's header, what was not found, the way back).

    :func:`snakewar.server.errors.add_error_handlers` answers a browser's page request
    with it; the API's 404s stay JSON.
    """
    if getattr(request.state, "principal", None) is None:
        try:
            await get_principal(request)
        except SnakewarError:
            # A stale session or token must not turn the 404 into a 401: show it anonymously.
            request.state.principal = Principal(None, "anonymous")
    return render_page(
        get_templates(request),
        request,
        "not_found.html",
        status_code=404,
        title="Not found",
        detail=detail,
    )


def parse_turn(text: str | None) -> int | None:
    """The turn of a ``?turn=`` query: ASCII digits, a few of them, else ``None``."""
    # ASCII digits only (str.isdigit() takes "²", which int() refuses), and few of them.
    if text is not None and 0 < len(text) <= 9 and text.isascii() and text.isdigit():
        return int(text)
    return None


@router.get("/")
def home(request: Request, templates: TemplatesDep) -> HTMLResponse:
    """Live and recent games."""
    return render_page(templates, request, "home.html", title="Home")


NEW_GAME_FORM: Final = "new_game_form.html"
"""The file of a game's templates that makes it a choice of the new-game page: its form."""


def game_forms() -> list[dict[str, str]]:
    """The games besides the default one whose templates have a new-game form, in order.

    ``[{"name", "title"}]``: the new-game page's game selector offers them
    (``new_game_games.html``), each game's form its templates' :data:`NEW_GAME_FORM`.
    """
    default = default_game().name
    forms = []
    for game in games():
        folder = game.templates()
        if game.name != default and folder is not None and (Path(folder) / NEW_GAME_FORM).is_file():
            forms.append({"name": game.name, "title": game.catalogue().title})
    return forms


@router.get("/new")
def new_game(
    request: Request,
    templates: TemplatesDep,
    chosen: Annotated[str | None, Query(alias="game")] = None,
) -> HTMLResponse:
    """The new-game form: the default game's (its templates' ``new_game.html``).

    It gets the game's built-in bots from its catalogue.  The other games with a form
    (:func:`game_forms`) are offered beside it by a game selector; ``?game=NAME`` opens
    the page on that game's form (anything else is ignored: the default game's).  A
    server whose default game has no form answers 404: games are then started through
    the API.
    """
    game = default_game()
    if game.templates() is None:
        raise NotFoundError(f"{game.catalogue().title} has no new-game page; use POST /api/games")
    builtins = [f"builtin:{bot.name}" for bot in game.catalogue().bots]
    forms = game_forms()
    return render_page(
        templates,
        request,
        f"{game.name}/new_game.html",
        title="New game",
        builtins=builtins,
        default_form={"name": game.name, "title": game.catalogue().title},
        game_forms=forms,
        chosen_game=chosen if chosen in {f["name"] for f in forms} else game.name,
    )


@router.get("/view/{game_id}")
async def view_game(
    game_id: str,
    request: Request,
    templates: TemplatesDep,
    store: StoreDep,
    manager: ManagerDep,
    turn: TurnQuery = None,
    reveal: RevealQuery = None,
) -> HTMLResponse:
    """A game (live or stored) in its game's viewer: the adapter names the page and viewer.

    The controls that change the game (rematch, step mode) are shown to its owner and
    the admins only.  404 for a game that is neither running nor stored.  Its link
    preview tags (OpenGraph, Twitter) never name the winner unless ``?reveal=1``
    (:mod:`snakewar.server.preview`); the share panel makes such links.
    """
    live = manager.games.get(game_id)
    if live is not None:
        game, names = live.spec.game, [e.name for e in live.spec.entrants]
        sources = [e.source for e in live.spec.entrants]
        owner_id = live.owner_id
    else:
        row = await store.run(store.store.games.get, game_id)
        if row is None:
            raise GameNotFoundError(game_id)
        game, names = row.game, [str(e.get("name", "")) for e in row.entrants]
        sources = [str(e.get("source", "")) for e in row.entrants]
        owner_id = row.owner_id
    adapter = get_game(game)
    page = adapter.viewer_page(
        game_id,
        server=str(request.base_url).rstrip("/"),
        turn=parse_turn(turn),
    )
    title = f"{adapter.catalogue().title}: " + " vs ".join(names)
    # The viewer is the game's own (its static folder) unless the adapter gives a path.
    board = page.board if page.board.startswith("/") else game_static_url(game, page.board)
    # Rematch, pause, step and resume are the owner's and the admins' (as the API says):
    # nobody else is shown them.  Bot logs (games of programs keep them) are shown to
    # whoever the log route lets read them.
    principal: Principal = request.state.principal
    codec = adapter.media()
    log_seats = (
        [seat for seat, src in enumerate(sources) if can_read_log(principal, owner_id, src)]
        if adapter.catalogue().programs
        else []
    )
    return render_page(
        templates,
        request,
        page.template,
        title=title,
        game_id=game_id,
        board=board,
        can_drive=principal.can_change(owner_id),
        log_seats=log_seats,
        # The Export menu's downloads (GET /api/games/{id}/media), for games that draw,
        # in the themes and palettes their pictures have.
        can_export=codec is not None,
        export_themes=" ".join(codec.themes) if codec else "",
        export_palettes=" ".join(codec.palettes) if codec else "",
        # "Play on from here" (POST /api/games/{id}/fork), for games that start from a board.
        can_fork=type(adapter).position_at is not GameAdapter.position_at,
        # "Save as test scenario" (GET /api/games/{id}/scenario), for games whose turns can.
        can_save_scenario=adapter.scenarios() is not None,
        og=await page_preview_tags(request, store, manager, game_id, parse_turn(turn), reveal),
        share_turn=parse_turn(turn),
    )


def framed_page(
    templates: Jinja2Templates,
    request: Request,
    *,
    title: str,
    frame: str,
    frame_title: str,
    board: bool = False,
    links: tuple[tuple[str, str, str], ...] = (),
) -> HTMLResponse:
    """A page that is the site's header over another page in a frame filling the window.

    ``frame``: the framed page's URL; ``board``: the frame is a game's viewer, whose
    keyboard shortcuts the page forwards;
    ``links``: ``(label, href, testid)`` shown above the frame.
    """
    return render_page(
        templates,
        request,
        "framed.html",
        title=title,
        frame=frame,
        frame_title=frame_title,
        board=board,
        links=links,
    )


_API_LINKS: Final = (
    ("Swagger UI: try the API", "/docs", "docs-swagger-link"),
    ("ReDoc: the reference", "/redoc", "docs-redoc-link"),
    ("openapi.json", "/openapi.json", "docs-openapi-link"),
)


@router.get("/docs")
def api_docs(request: Request, templates: TemplatesDep) -> HTMLResponse:
    """Swagger UI (served offline by :mod:`.docs`) under the site's header."""
    return framed_page(
        templates, request, title="API", frame=SWAGGER_UI_URL, frame_title="Swagger UI",
        links=_API_LINKS,
    )  # fmt: skip


@router.get("/redoc")
def api_reference(request: Request, templates: TemplatesDep) -> HTMLResponse:
    """ReDoc (served offline by :mod:`.docs`) under the site's header."""
    return framed_page(
        templates, request, title="API reference", frame=REDOC_URL, frame_title="ReDoc",
        links=_API_LINKS,
    )  # fmt: skip


@router.get("/login")
def login(request: Request, templates: TemplatesDep) -> HTMLResponse:
    """Log in, or sign up where the server lets visitors make accounts."""
    return render_page(templates, request, "login.html", title="Log in")


@router.get("/account", response_model=None)
def account(request: Request, templates: TemplatesDep) -> HTMLResponse | RedirectResponse:
    """Your snakes and API tokens (a visitor is sent to log in)."""
    if request.state.principal.user is None:
        return RedirectResponse("/login", status_code=303)
    # "Play it" plays a bot against its game's trial bot (the catalogue's extras say which,
    # else its first built-in).
    trial_bots = {}
    for game in games():
        catalogue = game.catalogue()
        bot = catalogue.extras.get("trial_bot") or next((b.name for b in catalogue.bots), None)
        if bot is not None:
            trial_bots[game.name] = f"builtin:{bot}"
    languages = [(lang.name, lang.label) for lang in (*LANGUAGES.values(), CUSTOM)]
    return render_page(
        templates,
        request,
        "account.html",
        title="Your account",
        trial_bots=trial_bots,
        bot_languages=languages,
    )


@router.get("/snakes/{snake_id}/build", response_model=None)
def bot_build(
    request: Request, templates: TemplatesDep, snake_id: int = PathParam(ge=1, le=2**31 - 1)
) -> HTMLResponse | RedirectResponse:
    """An uploaded bot's build log (its page reads the API, which shows it to its owner)."""
    if request.state.principal.user is None:
        return RedirectResponse("/login", status_code=303)
    return render_page(templates, request, "build.html", title="Build", snake_id=snake_id)


@router.get("/ladders")
def ladders(request: Request, templates: TemplatesDep) -> HTMLResponse:
    """Every ladder (the module reads ``/api/ladders``)."""
    return render_page(templates, request, "ladders.html", title="Ladders")


@router.get("/ladders/{name}")
async def ladder(
    name: str, request: Request, templates: TemplatesDep, store: StoreDep
) -> HTMLResponse:
    """A ladder's standings, rating chart and recent games (404 for no such ladder)."""
    await store.run(load_ladder, store.store, name)
    return render_page(templates, request, "ladder.html", title=f"Ladder {name}", name=name)


@router.get("/tournaments")
def tournaments(request: Request, templates: TemplatesDep) -> HTMLResponse:
    """Every tournament (the module reads ``/api/tournaments``) and, for admins, a new one."""
    formats = list(FORMAT_TITLES.items())
    return render_page(templates, request, "tournaments.html", title="Tournaments", formats=formats)


def _admin_page(
    templates: Jinja2Templates, request: Request, template: str, title: str
) -> HTMLResponse | RedirectResponse:
    """An admin's page: a visitor is sent to log in; a user who is no admin is told (403)."""
    principal: Principal = request.state.principal
    if principal.user is None:
        return RedirectResponse("/login", status_code=303)
    response = render_page(templates, request, template, title=title)
    if not principal.is_admin:
        response.status_code = 403
    return response


@router.get("/admin/users", response_model=None)
def admin_users(request: Request, templates: TemplatesDep) -> HTMLResponse | RedirectResponse:
    """The accounts: role, disable, reset a password (admins)."""
    return _admin_page(templates, request, "admin_users.html", "Users")


@router.get("/admin/dashboard", response_model=None)
def admin_dashboard(request: Request, templates: TemplatesDep) -> HTMLResponse | RedirectResponse:
    """Games by status, workers and queues, errors, sign-ups, space used (admins)."""
    return _admin_page(templates, request, "admin_dashboard.html", "Dashboard")


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
    return render_page(templates, request, "tournament.html", title="Tournament", tid=tid)
