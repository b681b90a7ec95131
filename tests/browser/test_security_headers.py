"""Every page works under its Content-Security-Policy, and no other site can frame it.

The probe: pages sent no X-Frame-Options or Content-Security-Policy.  Now every answer
has them (``snakewar.server.headers``), and each page of the site, the viewers in their
frames (a stored game's, and a live one's over its websocket) and the API docs are
opened here in chromium with the headers on: each draws
what it draws, and the browser reports no violation of the policy (every frame listens
for ``securitypolicyviolation`` from its first script on).  A script injected into a
page does not run, and a page of another origin cannot frame the site.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import httpx
import pytest
from playwright.sync_api import Browser, expect
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route

from snakewar.server import ServerConfig, create_app
from snakewar.server.headers import SITE_POLICY, VIEWER_POLICY
from tests.asgi_server import serve
from tests.browser.conftest import PATIENCE_MS
from tests.waiting import wait_finished

if TYPE_CHECKING:
    from playwright.sync_api import ConsoleMessage, Frame, Page

LISTEN = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__cspViolations.push(`${event.violatedDirective} ${event.blockedURI}`);
});
"""


class Watched:
    """A page whose every frame reports violations of its policy."""

    def __init__(self, browser: Browser) -> None:
        self.context = browser.new_context(viewport={"width": 1280, "height": 900})
        self.context.set_default_timeout(PATIENCE_MS)
        self.context.add_init_script(LISTEN)
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.console: list[str] = []
        self.page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        self.page.on("console", self._console)

    def _console(self, message: ConsoleMessage) -> None:
        if "Content Security Policy" in message.text:
            self.console.append(message.text)

    def violations(self) -> list[str]:
        found: list[str] = []
        for frame in self.page.frames:
            try:
                found += frame.evaluate("window.__cspViolations || []")
            except Exception as exc:  # a frame that went away meanwhile
                found.append(f"(frame {frame.url} unreadable: {exc})")
        return found + self.console

    def check(self) -> None:
        assert self.violations() == [], self.page.url
        assert self.errors == [], self.errors


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """A local server with a game of each game, a ladder and a tournament (its local user
    is an admin, so every page, admin pages included, is shown)."""
    db = tmp_path_factory.mktemp("csp") / "games.db"
    with serve(create_app(ServerConfig(database_url=f"sqlite:///{db}"))) as base:
        api = httpx.Client(base_url=base, timeout=60)
        snake = api.post(
            "/api/games",
            json={"snakes": ["random", "greedy"], "width": 7, "height": 7, "maxTurns": 30},
        )
        halite = api.post(
            "/api/games",
            json={
                "game": "halite3",
                "snakes": ["builtin:random", "builtin:random"],
                "width": 32,
                "height": 32,
                "maxTurns": 10,
            },
        )
        ladder = api.post("/api/ladders", json={"name": "lad", "width": 7, "height": 7})
        cup = api.post(
            "/api/tournaments",
            json={"name": "Cup", "snakes": ["random", "greedy"], "start": False},
        )
        for made in (snake, halite, ladder, cup):
            assert made.status_code == 201, made.text
        for game in (snake, halite):
            wait_finished(api, game.json()["id"])
        yield {
            "base": base,
            "snake": snake.json()["id"],
            "halite": halite.json()["id"],
            "cup": cup.json()["id"],
        }
        api.close()


@pytest.fixture
def watched(browser: Browser) -> Iterator[Watched]:
    opened = Watched(browser)
    yield opened
    opened.context.close()


def frame_of(page: Page) -> Frame:
    handle = page.locator("iframe").first.element_handle()
    assert handle is not None
    frame = handle.content_frame()
    assert frame is not None
    return frame


# Each page, and what its module draws from the API (a text), or shows in its frame.
PAGES: list[tuple[str, str, str]] = [
    ("/", "[data-testid=recent-games]", "greedy"),
    ("/new", "[data-testid=map]", "Standard"),
    ("/test", "[data-testid=tester-form]", ""),
    ("/ladders", "[data-testid=ladders]", "lad"),
    ("/ladders/lad", "[data-testid=ladder-summary]", "0 games"),
    ("/tournaments", "[data-testid=tournaments]", "Cup"),
    ("/tournaments/{cup}", "[data-testid=tournament-status]", "Not started"),
    ("/halite", "[data-testid=halite-games]", "random"),
    ("/login", "[data-testid=local-server]", ""),
    ("/account", "[data-testid=my-snakes]", ""),
    ("/admin/users", "[data-testid=users]", "local"),
    ("/admin/invites", "[data-testid=local-server]", ""),
    ("/no-such-page", "body > header", ""),
    ("/replay", "frame [data-testid=replay-picker]", ""),
    ("/halite/view", "frame body", ""),
    ("/docs", "frame .swagger-ui .info .title", "Snakewar"),
    ("/redoc", "frame h1", "Snakewar"),
]


@pytest.mark.parametrize(("path", "drawn", "text"), PAGES, ids=[p[0] for p in PAGES])
def test_every_page_works_under_its_policy(
    site: dict[str, str], watched: Watched, path: str, drawn: str, text: str
) -> None:
    page = watched.page
    response = page.goto(site["base"] + path.format(**site))
    assert response is not None
    headers = response.headers
    assert headers["content-security-policy"] == SITE_POLICY
    assert headers["x-frame-options"] == "SAMEORIGIN"
    assert headers["x-content-type-options"] == "nosniff"
    where: Page | Frame = page
    if drawn.startswith("frame "):
        expect(page.locator("iframe")).to_be_attached()
        where, drawn = frame_of(page), drawn.removeprefix("frame ")
    shown = where.locator(drawn).first
    expect(shown).to_be_attached()
    if text:
        expect(shown).to_contain_text(text)
    page.wait_for_load_state("networkidle")
    watched.check()


def test_the_game_pages_draw_their_games_under_the_viewers_policy(
    site: dict[str, str], watched: Watched
) -> None:
    page = watched.page
    page.goto(f"{site['base']}/view/{site['snake']}")
    board = frame_of(page)
    rows = board.locator("[data-testid=snake-row]")
    expect(rows).to_have_count(2)
    # The health bars are painted through the CSSOM (no inline style is allowed).
    fill = board.locator(".health-fill").first
    expect(fill).to_have_attribute("style", re.compile(r"width: \d+%"))
    assert fill.evaluate("e => e.getBoundingClientRect().width") >= 0
    with page.expect_response(re.compile(r"/static/battlesnake/board\.html")) as viewer:
        page.reload()
    assert viewer.value.headers["content-security-policy"] == VIEWER_POLICY
    expect(frame_of(page).locator("[data-testid=snake-row]")).to_have_count(2)
    page.goto(f"{site['base']}/view/{site['halite']}")
    halite = frame_of(page)
    expect(halite.locator("canvas").first).to_be_visible()
    page.wait_for_load_state("networkidle")
    watched.check()


def test_a_live_game_streams_and_steps_under_the_policy(
    site: dict[str, str], watched: Watched
) -> None:
    # A live game's page follows it over a websocket of this server (connect-src
    # 'self') and steps it through the API: both work under the header.
    made = httpx.post(
        site["base"] + "/api/games",
        json={"snakes": ["random", "greedy"], "width": 7, "height": 7, "step": True},
        timeout=60,
    )
    assert made.status_code == 201, made.text
    page = watched.page
    with page.expect_websocket() as socket:
        page.goto(site["base"] + made.json()["viewer"])
    assert socket.value.url.startswith(site["base"].replace("http", "ws", 1))
    state = page.get_by_test_id("step-state")
    turn = page.frame_locator("[data-testid=board-frame]").get_by_test_id("turn")
    expect(state).to_have_text("Paused at turn 0")
    for expected in (1, 2):
        page.get_by_test_id("step").click()
        expect(turn).to_have_text(f"Turn {expected}")
    watched.check()
    cancelled = httpx.post(f"{site['base']}/api/games/{made.json()['id']}/cancel", timeout=60)
    assert cancelled.status_code == 200, cancelled.text


def test_an_injected_inline_script_does_not_run(site: dict[str, str], watched: Watched) -> None:
    page = watched.page
    page.goto(site["base"] + "/")
    ran = page.evaluate(
        """() => {
          const script = document.createElement("script");
          script.textContent = "window.__injected = true;";
          document.body.append(script);
          const div = document.createElement("div");
          div.innerHTML = '<img src="x" onerror="window.__injected = true">';
          document.body.append(div);
          return new Promise((done) => setTimeout(() => done(window.__injected === true), 300));
        }"""
    )
    assert ran is False
    blocked = page.evaluate("window.__cspViolations")
    assert any(v.startswith("script-src") for v in blocked), blocked
    watched.console.clear()  # the violations were the point here


def test_another_site_cannot_frame_a_page(site: dict[str, str], browser: Browser) -> None:
    target = site["base"] + "/"

    async def framing(request: Request) -> HTMLResponse:
        del request
        return HTMLResponse(f'<!doctype html><title>other</title><iframe src="{target}"></iframe>')

    other = Starlette(routes=[Route("/", framing)])
    with serve(other, lifespan="off") as elsewhere:
        context = browser.new_context()
        context.set_default_timeout(PATIENCE_MS)
        page = context.new_page()
        refused: list[str] = []
        page.on(
            "console", lambda m: refused.append(m.text) if "frame-ancestors" in m.text else None
        )
        page.goto(elsewhere + "/")
        page.wait_for_load_state("networkidle")
        drawn = [f.url for f in page.frames if f != page.main_frame and _has_brand(f)]
        context.close()
    assert drawn == [], "the site was drawn inside another site's frame"
    assert refused, "the browser did not report the refused frame"


def _has_brand(frame: Frame) -> bool:
    try:
        count: Any = frame.locator("a.brand").count()
    except Exception:  # an error page
        return False
    return bool(count)
