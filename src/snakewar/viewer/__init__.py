"""Snakewar's board viewer: static HTML, JavaScript and CSS shipped in the package.

The viewer is plain files (ES modules, no build step, no CDN), so it works
offline and any static file server can serve it; ``snakewar``'s web server
mounts :func:`static_dir`.  Open ``board.html`` with:

* ``?engine=URL&game=ID`` to watch a game from an engine that serves the
  official board's API (``GET /games/{id}``, ``GET /games/{id}/frames``, and
  the websocket ``/games/{id}/events``); ``engine`` defaults to the page's origin;
* ``?replay=1`` to open a replay file from disk (a Snakewar replay, plain or
  gzipped, or the official CLI's JSONL), or ``?replay=URL`` to fetch one;
* and optionally ``turn``, ``autoplay``, ``fps``, ``loop``, ``theme``
  (``light``, ``dark``, ``system``), ``showCoords``, ``title``,
  ``showControls``, ``showScoreboard``, ``showScrubber``, and ``fit=true`` in a
  frame of fixed size (the board then fits the frame's height, controls in view).

``halite.html`` is the Halite III viewer (``halite.js``): ``?game=ID`` draws a game
stored on the same server (``/api/halite/games/{id}/replay``), ``?replay=1`` opens a
``.hlt`` or JSON replay from disk; ``turn``, ``autoplay``, ``fps`` and ``theme`` as above.

The site's pages load their scripts from ``static/pages/`` (one ES module per
page, plus ``dom.js``, ``inspect.js``, the game page's step controls and request
inspector, ``board_keys.js``, which forwards a page's shortcut keys to the board in its
frame, and ``site.css``); see :mod:`snakewar.server.routers.pages`.

The modules in ``static/``: ``frames.js`` (data shapes and replay conversion,
pure), ``sprites.js`` (head and tail shapes), ``render.js`` (the board as SVG),
``scoreboard.js``, ``player.js`` (playback), ``controls.js`` (buttons and
keys), ``live.js`` (the engine API) and ``viewer.js`` (the page).
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["ASSETS", "BOARD_PAGE", "static_dir"]

BOARD_PAGE = "board.html"
"""The viewer's page, relative to :func:`static_dir`."""

ASSETS: tuple[str, ...] = (
    BOARD_PAGE,
    "viewer.css",
    "viewer.js",
    "frames.js",
    "sprites.js",
    "render.js",
    "scoreboard.js",
    "player.js",
    "controls.js",
    "live.js",
    "halite.html",
    "halite.js",
    "halite.css",
    *(
        f"pages/{name}"
        for name in (
            "site.css",
            "dom.js",
            "home.js",
            "new_game.js",
            "game.js",
            "entrants.js",
            "halite_game.js",
            "board_keys.js",
            "inspect.js",
            "framed.js",
            "tester.js",
            "ladders.js",
            "ladder.js",
            "tournament.js",
            "halite_games.js",
            "session.js",
            "login.js",
            "account.js",
            "club.js",
            "tournaments.js",
            "admin_users.js",
            "admin_invites.js",
        )
    ),
)
"""Every file the viewer and the site's pages need, relative to :func:`static_dir`."""


def static_dir() -> Path:
    """Return the directory holding the viewer's static files (``board.html`` and its assets)."""
    return Path(__file__).resolve().parent / "static"
