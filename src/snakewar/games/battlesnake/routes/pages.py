"""Battlesnake's own pages: the board viewer's file picker, the snake tester, the editor.

Their templates are Battlesnake's (``battlesnake/<file>``, from the package's
``templates/`` folder), the board viewer and the tester's module its static files
(``/static/battlesnake/``); the site's header links to them from ``battlesnake/nav.html``.
"""

from __future__ import annotations

from urllib.parse import urlencode

from fastapi import Request
from fastapi.responses import HTMLResponse

from snakewar.server.deps import TemplatesDep, game_static_url
from snakewar.server.routers.pages import framed_page, page_router, render_page

__all__ = ["router"]

router = page_router()


@router.get("/replay")
def open_replay(request: Request, templates: TemplatesDep) -> HTMLResponse:
    """The board viewer's file picker, under the site's header."""
    query = urlencode({"replay": "1", "fit": "true"})
    return framed_page(
        templates,
        request,
        title="Open a replay",
        frame=game_static_url("battlesnake", "board.html") + "?" + query,
        frame_title="board",
        board=True,
    )


@router.get("/test")
def tester(request: Request, templates: TemplatesDep) -> HTMLResponse:
    """The snake tester (its module posts to ``/api/test/stream``, :mod:`.tester`)."""
    return render_page(templates, request, "battlesnake/tester.html", title="Test a snake")


@router.get("/editor")
def position_editor(request: Request, templates: TemplatesDep) -> HTMLResponse:
    """The position editor: draw or paste a board, check it, save it, play from it.

    Its module checks positions with ``POST /api/battlesnake/position`` and starts games
    with ``POST /api/games`` (``position``).
    """
    return render_page(templates, request, "battlesnake/editor.html", title="Position editor")
