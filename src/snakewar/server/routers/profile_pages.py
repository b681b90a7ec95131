"""The profile pages: the snake directory, a snake's page, a user's page, a ladder entry's.

As every page of the site (:mod:`.pages`): a Jinja2 template whose static ES module
reads the REST API (:mod:`.profiles`, ``GET /api/games`` with filters).  Each page
looks its subject up first, so a missing one (or someone else's private snake) is a
404, and tells its module what it needs in ``data-*`` attributes.  Controls that change
anything (challenge, edit) are drawn for those who may use them only.
"""

from __future__ import annotations

from fastapi import Path as PathParam
from fastapi import Request
from fastapi.responses import HTMLResponse

from snakewar.adapters import default_game, games
from snakewar.server.auth import Principal
from snakewar.server.deps import StoreDep, TemplatesDep
from snakewar.server.routers.pages import page_router, render_page
from snakewar.storage import SnakeNotFoundError

__all__ = ["router"]

router = page_router()


def _game_titles() -> dict[str, str]:
    return {game.name: game.catalogue().title for game in games()}


@router.get("/snakes")
def snake_directory(request: Request, templates: TemplatesDep) -> HTMLResponse:
    """The public snake directory: search, each snake's page, and a challenge button."""
    return render_page(
        templates,
        request,
        "snakes.html",
        title="Snakes",
        game_titles=_game_titles(),
        default_game=default_game().name,
    )


@router.get("/snakes/{snake_id}")
async def snake_page(
    request: Request,
    templates: TemplatesDep,
    store: StoreDep,
    snake_id: int = PathParam(ge=1, le=2**31 - 1),
) -> HTMLResponse:
    """A snake's page: ladders, rating history, win rate, latency, health and its games."""
    snake = await store.run(store.store.snakes.get, snake_id)
    principal: Principal = request.state.principal
    if snake.visibility != "public" and not principal.can_change(snake.owner_id):
        raise SnakeNotFoundError(f"no snake with id {snake_id}")
    return render_page(
        templates,
        request,
        "snake.html",
        title=f"Snake {snake.ref}",
        snake=snake,
        default_game=default_game().name,
        ladders=await store.run(store.store.ladders.names),
    )


@router.get("/users/{name}")
async def user_page(
    request: Request,
    templates: TemplatesDep,
    store: StoreDep,
    name: str = PathParam(min_length=1, max_length=32, pattern=r"^[a-z0-9][a-z0-9_-]*$"),
) -> HTMLResponse:
    """A user's page: their snakes, their bots and their recent games."""
    user = await store.run(store.store.accounts.user, name)
    return render_page(templates, request, "user.html", title=f"User {user.name}", user=user)


@router.get("/ladders/{name}/entries/{entrant:path}")
async def ladder_entry_page(
    name: str,
    request: Request,
    templates: TemplatesDep,
    store: StoreDep,
    entrant: str = PathParam(min_length=1, max_length=100),
) -> HTMLResponse:
    """One entrant of a ladder: rank or placement, scorers, rating history with deltas."""
    report = await store.run(store.store.profiles.entry_report, name, entrant)
    return render_page(
        templates,
        request,
        "ladder_entry.html",
        title=f"{report.entrant} on {report.ladder}",
        ladder=report.ladder,
        entrant=report.entrant,
    )
