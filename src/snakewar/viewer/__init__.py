"""The site's shared static files: playback, controls and the pages' modules (no build step).

The files are plain ES modules and stylesheets (no CDN), so they work offline;
``snakewar``'s web server mounts :func:`static_dir` at ``/static/viewer/``.  Each game's
own viewer (its board page and the modules that draw it) lives in its game's package
and is served at ``/static/<game>/`` (the adapter's
:meth:`~snakewar.engine.protocol.GameAdapter.static_assets`); a game's modules import
these shared ones by relative URL (``../viewer/player.js``).

The modules here: ``player.js`` (playback: which frame is shown, playing, following a
live game; a game's viewer says what an elimination is), ``controls.js`` (buttons and
keys), ``events.js`` (a game's events websocket: following a running game,
resuming where it was after a lost connection) and ``viewer.css`` (the viewers'
frame, controls and themes).

The site's pages load their scripts from ``pages/`` (one ES module per page, plus
``dom.js``, ``inspect.js``, the game page's step controls and request inspector,
``entrants.js``, ``board_keys.js``, which forwards a page's shortcut keys to the viewer
in its frame, ``new_game_games.js``, the new-game page's game selector, and
``site.css``); see :mod:`snakewar.server.routers.pages`.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["ASSETS", "static_dir"]

ASSETS: tuple[str, ...] = (
    "viewer.css",
    "player.js",
    "controls.js",
    "events.js",
    *(
        f"pages/{name}"
        for name in (
            "site.css",
            "dom.js",
            "home.js",
            "game.js",
            "entrants.js",
            "board_keys.js",
            "human_keys.js",
            "inspect.js",
            "latency_chart.js",
            "framed.js",
            "ladders.js",
            "ladder.js",
            "tournament.js",
            "session.js",
            "login.js",
            "account.js",
            "club.js",
            "tournaments.js",
            "admin_users.js",
            "admin_invites.js",
            "new_game_games.js",
            "build.js",
            # sharing and events (server/routers/sharing.py)
            "share.js",
            "export_menu.js",
            "tv.js",
            "saved.js",
            # The profile pages (issue 25): directory, snake, user, ladder entry, picker.
            "profiles.js",
            "snakes.js",
            "snake.js",
            "user.js",
            "ladder_entry.js",
            "picker.js",
            # Operations (issue 25).
            "admin_dashboard.js",
            "notifications.js",
            # Issue 26: "Play on from here" on the game page.
            "fork.js",
            # "Save as test scenario" on the game page (issue 26).
            "scenario_save.js",
        )
    ),
)
"""Every shared file the viewers and the site's pages need, relative to :func:`static_dir`."""


def static_dir() -> Path:
    """Return the directory holding the shared static files (served at ``/static/viewer/``)."""
    return Path(__file__).resolve().parent / "static"
