"""The HTML pages and the API docs, over ASGI: templates, modules, 404s, offline assets.

What the pages' modules draw is checked under Node (``tests/viewer/test_pages_static.py``)
and in chromium (``tests/browser``); here: each page is its template, loads only
files the server has, runs no inline script and escapes what it shows.
"""

from __future__ import annotations

import dataclasses
import json
import re
import sys
from collections.abc import Iterator
from html import unescape
from pathlib import Path

import pytest
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient

import snakewar
from snakewar.adapters import default_game, games
from snakewar.arena.ladder import Ladder
from snakewar.games.battlesnake.bots import bot_names
from snakewar.server import ServerConfig, create_app
from snakewar.server.deps import TEMPLATES_DIR
from snakewar.storage import Store
from tests.storage.test_games import played

PAGES = {
    "/": "/static/viewer/pages/home.js",
    "/new": "/static/battlesnake/pages/new_game.js",
    "/view/some-game": "/static/viewer/pages/game.js",
    "/test": "/static/battlesnake/pages/tester.js",
    "/ladders": "/static/viewer/pages/ladders.js",
    "/halite": "/static/halite3/pages/games.js",
    "/replay": "/static/viewer/pages/framed.js",
    "/halite/view": "/static/viewer/pages/framed.js",
    "/docs": "/static/viewer/pages/framed.js",
    "/redoc": "/static/viewer/pages/framed.js",
}
"""Each page and its module: the site's (``/static/viewer/``) or a game's (``/static/<game>/``)."""
NAV = ("nav-new", "nav-replay", "nav-test", "nav-ladders", "nav-halite", "nav-docs")


STORED = ("some-game", "g-1", 'a"><b>x')
"""Ids of Battlesnake games stored for the game pages."""


@pytest.fixture
def client(store: Store) -> Iterator[TestClient]:
    for game_id in STORED:
        store.games.save_played(dataclasses.replace(played(3), id=game_id))
    with TestClient(
        create_app(ServerConfig(), store=store), base_url="http://localhost"
    ) as test_client:
        yield test_client


def local_urls(html: str) -> list[str]:
    """Every ``src``/``href`` of a page (anchors to pages and the API excepted)."""
    return re.findall(r'<(?:script|link|iframe)\b[^>]*\b(?:src|href)="([^"]+)"', html)


@pytest.mark.parametrize("path", list(PAGES))
def test_each_page_is_the_layout_with_its_module(client: TestClient, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    html = response.text
    for test_id in NAV:
        assert f'data-testid="{test_id}"' in html
    assert f'<script type="module" src="{PAGES[path]}"></script>' in html
    assert '<link rel="stylesheet" href="/static/viewer/pages/site.css">' in html
    for url in local_urls(html):
        if url.startswith("/static/"):
            assert client.get(url).status_code == 200, url


def test_pages_run_no_inline_script_or_style(client: TestClient, store: Store) -> None:
    store.ladders.create(Ladder("web"))
    paths = [*PAGES, "/ladders/web", "/static/battlesnake/board.html", "/static/halite3/board.html"]
    for path in paths:
        html = client.get(path).text
        assert not re.search(r"<script(?![^>]*\bsrc=)", html), path
        assert not re.search(r"<style|\sstyle=|\son[a-z]+=", html), path


def test_what_a_page_shows_is_escaped(client: TestClient) -> None:
    html = client.get('/view/a"><b>x').text
    assert "<b>x" not in html
    assert 'data-game-id="a&#34;&gt;&lt;b&gt;x"' in html


def test_the_game_page_embeds_the_viewer_fitted_to_its_frame(client: TestClient) -> None:
    html = client.get("/view/g-1?turn=12").text
    (board,) = re.findall(r'<iframe src="([^"]+)"', html)
    assert board.startswith("/static/battlesnake/board.html?")
    query = board.split("?", 1)[1].replace("&amp;", "&")
    assert query == "engine=http%3A%2F%2Flocalhost&game=g-1&autoplay=true&fit=true&turn=12"
    assert 'data-game-id="g-1"' in html
    # Anything but digits in ?turn= is left out.
    for bad in ("x", "²", "9" * 5000):
        page = client.get("/view/g-1", params={"turn": bad})
        assert page.status_code == 200 and "turn=" not in page.text, bad


def test_the_account_page_names_each_games_trial_bot(client: TestClient) -> None:
    # "Play it" plays an uploaded or registered bot against its game's trial bot: the
    # page has them from the registry (each catalogue's extras), the module reads them.
    html = client.get("/account").text
    (given,) = re.findall(r'data-trial-bots="([^"]*)"', html)
    trial_bots = json.loads(unescape(given))
    assert trial_bots == {"battlesnake": "builtin:random", "halite3": "builtin:greedy"}


def test_a_default_game_without_a_form_has_no_new_game_page(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The form is the default game's template: a game with none leaves /new a 404.
    monkeypatch.setattr(type(default_game()), "templates", lambda self: None)
    with TestClient(create_app(ServerConfig(), store=store), base_url="http://localhost") as c:
        page = c.get("/new", headers={"accept": "text/html"})
        assert page.status_code == 404
        assert "has no new-game page; use POST /api/games" in page.text
        assert c.get("/").status_code == 200  # the rest of the site is there


def test_the_new_game_form_names_the_default_games_builtin_bots(client: TestClient) -> None:
    # The page takes them from the registry (the default game's catalogue), not a game.
    html = client.get("/new").text
    (names,) = re.findall(r"a URL or a built-in \(([^)]*)\)", html)
    assert names.split(", ") == [f"builtin:{name}" for name in bot_names()]
    assert "builtin:hunter" in names.split(", ")


def frame_of(html: str) -> str:
    """The ``src`` of a page's one iframe."""
    (src,) = re.findall(r'<iframe src="([^"]+)"', html)
    return str(src).replace("&amp;", "&")


def test_the_file_pickers_and_api_docs_are_framed_under_the_header(client: TestClient) -> None:
    for path, frame in (
        ("/replay", "/static/battlesnake/board.html?replay=1&fit=true"),
        ("/halite/view", "/static/halite3/board.html?replay=1"),
        ("/docs", "/docs/swagger-ui"),
        ("/redoc", "/redoc/reference"),
    ):
        html = client.get(path).text
        assert frame_of(html) == frame, path
        assert '<a class="brand" href="/">Snakewar</a>' in html, path
        assert client.get(frame).status_code == 200, frame
    # A viewer's shortcut keys are forwarded to it; the docs take no keys from the page.
    assert "data-board" in client.get("/replay").text
    assert "data-board" not in client.get("/docs").text
    for path in ("/docs", "/redoc"):
        links = re.findall(r'<a href="([^"]+)" data-testid="docs-', client.get(path).text)
        assert links == ["/docs", "/redoc", "/openapi.json"]


def test_pages_of_missing_things_are_404(client: TestClient, store: Store) -> None:
    for path, message in (
        ("/ladders/nowhere", "no ladder named 'nowhere'"),
        ("/tournaments/nope", "no tournament with id 'nope'"),
        ("/view/nope", "no stored game with id 'nope'"),
        ("/halite/games/nope", "no stored game with id 'nope'"),
    ):
        response = client.get(path)
        assert response.status_code == 404, path
        assert message in response.json()["detail"]
    store.ladders.create(Ladder("web"))
    page = client.get("/ladders/web")
    assert page.status_code == 200
    assert 'data-name="web"' in page.text and "pages/ladder.js" in page.text


def test_a_server_keeping_nothing_still_has_its_pages() -> None:
    with TestClient(
        create_app(ServerConfig(database_url="memory")), base_url="http://localhost"
    ) as client:
        for path in ("/ladders/x", "/tournaments/x", "/halite/games/x"):
            assert client.get(path).status_code == 404, path
        assert client.get("/ladders").status_code == 200


def test_pages_stay_out_of_the_openapi_description(client: TestClient) -> None:
    paths = set(client.get("/openapi.json").json()["paths"])
    assert "/api/test" in paths
    assert not paths & {*PAGES, "/docs/swagger-ui", "/redoc/reference", "/view/{game_id}"}


def test_the_api_docs_load_their_files_from_this_server(client: TestClient) -> None:
    for path, files in (
        ("/docs/swagger-ui", ("swagger-ui-bundle.js", "swagger-ui.css", "favicon.png")),
        ("/redoc/reference", ("redoc.standalone.js", "favicon.png")),
    ):
        html = client.get(path).text
        assert "/openapi.json" in html
        urls = set(re.findall(r"""(?:src|href)=['"]([^'"]+)['"]""", html))
        assert urls == {f"/static/docs/{name}" for name in files}, path
        assert not re.search(r"https?://", html), path
        for url in urls:
            assert client.get(url).status_code == 200, url
    redirect = client.get("/docs/oauth2-redirect")
    assert redirect.status_code == 200 and "oauth2" in redirect.text


def test_redoc_is_served_without_its_makers_logo_address(client: TestClient) -> None:
    from importlib import resources

    package = (resources.files("fastapi_offline") / "static" / "redoc.standalone.js").read_bytes()
    logo = b"https://cdn.redoc.ly/redoc/logo-mini.svg"
    assert logo in package  # what the served copy leaves out
    served = client.get("/static/docs/redoc.standalone.js")
    assert served.status_code == 200
    assert served.headers["content-type"].startswith("text/javascript")
    assert logo not in served.content
    assert served.content == package.replace(b'"' + logo + b'"', b'""')


def test_no_page_html_is_left_in_python() -> None:
    source = Path(snakewar.__file__).parent
    tags = re.compile(r"<script|<div|<table|<form")
    found = [
        f"{path.relative_to(source)}:{number}"
        for path in source.rglob("*.py")
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if tags.search(line)
    ]
    assert found == []


def test_every_template_is_used_and_extends_the_layout() -> None:
    from snakewar.server.routers import pages, profile_pages, sharing

    # The code of every page route: the site's and each game's own (its routers()).
    site = [pages.router, profile_pages.router, sharing.pages]
    routers = [*site, *(router for adapter in games() for router in adapter.routers())]
    modules = {
        sys.modules[route.endpoint.__module__]
        for router in routers
        for route in router.routes
        if isinstance(route, APIRoute)
    }
    code = "".join(Path(str(module.__file__)).read_text(encoding="utf-8") for module in modules)
    # A game's page is the template its adapter names.
    game_pages = {adapter.viewer_page("x", server="").template for adapter in games()}
    assert game_pages == {"game.html", "halite3/game.html"}
    # The default game's own pages (the new-game form): f"{game.name}/new_game.html".
    default_pages = {
        f"{default_game().name}/{name}" for name in re.findall(r"\{game\.name\}/([\w.]+)", code)
    }
    assert default_pages == {"battlesnake/new_game.html"}
    # The server's templates by name, each game's as <game>/<file>.
    templates = {path.name: path for path in TEMPLATES_DIR.glob("*.html")}
    for adapter in games():
        folder = adapter.templates()
        if folder is not None:
            templates |= {f"{adapter.name}/{p.name}": p for p in Path(folder).glob("*.html")}
    assert {"battlesnake/tester.html", "battlesnake/new_game.html", "halite3/games.html"} <= set(
        templates
    )
    # A game's parts of the site's pages: the header's links, the home page's how-to, its
    # form on the new-game page (the game selector's macros include it).
    parts = {
        "nav.html": ("base.html", '"/nav.html" ignore missing'),
        "how_to_play.html": ("home.html", '"/how_to_play.html" ignore missing'),
        "new_game_form.html": ("new_game_games.html", '"/new_game_form.html" %}'),
    }
    selector = '{% from "new_game_games.html" import game_picker with context %}'
    # The site's own parts of pages: a game page's link preview tags and share panel.
    server_parts = {"og_tags.html": "base.html", "share_panel.html": "game.html"}
    for name, template in templates.items():
        if name == "base.html":
            continue
        if name == "new_game_games.html":
            # The game selector's macros: the default game's new-game page imports them.
            default_form = templates[f"{default_game().name}/new_game.html"]
            assert selector in default_form.read_text(encoding="utf-8")
            continue
        if name in server_parts:
            included = (
                f'{{% include "{name}" %}}' in (TEMPLATES_DIR / server_parts[name]).read_text()
            )
            assert included, f"{name} is included by no page"
            continue
        part = parts.get(template.name) if "/" in name else None
        if part is not None:
            page, include = part
            included = include in (TEMPLATES_DIR / page).read_text()
            assert included, f"{name} is included by no page"
            continue
        used = f'"{name}"' in code or name in game_pages or name in default_pages
        assert used, f"{name} is not rendered by any page"
        text = template.read_text(encoding="utf-8")
        assert text.startswith('{% extends "base.html" %}'), name
