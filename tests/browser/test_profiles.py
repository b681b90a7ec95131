"""Profiles in a real browser: the snake directory and its challenge, the new-game picker,
a snake's page, a user's page, a ladder's placement and scorers, and a ladder entry's page.

A public server on loopback whose snakes are real snake servers on loopback (the operator
allows them); its ladders are played into its database by the arena, as a run plays
them.  An anonymous visitor sees every page and no control that changes anything.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from snakewar.arena.config import MatchConfig
from snakewar.arena.ladder import Ladder, LadderSettings
from snakewar.server import ServerConfig, create_app
from snakewar.storage import Store
from tests.asgi_server import serve
from tests.browser.browser_env import shot
from tests.games.battlesnake.referee.snake_servers import SnakeServers
from tests.server.accounts import make_user, password_of
from tests.storage.test_profiles import game

SMALL = MatchConfig.create("battlesnake", {"width": 7, "height": 7}, max_turns=60)
T0 = dt.datetime(2026, 3, 1, tzinfo=dt.UTC)


@dataclass
class Site:
    url: str
    store: Store
    tokens: dict[str, dict[str, str]]
    ids: dict[str, int]

    def api(self, method: str, path: str, as_user: str, **kwargs: Any) -> httpx.Response:
        return httpx.request(
            method, self.url + path, headers=self.tokens[as_user], timeout=60, **kwargs
        )


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    db: Path = tmp_path_factory.mktemp("profiles") / "site.db"
    config = ServerConfig(
        database_url=f"sqlite:///{db}",
        public=True,
        allowed_networks=("127.0.0.0/8",),
        logins_per_minute=600.0,
    )
    with Store(f"sqlite:///{db}") as store, SnakeServers() as servers:
        tokens = {
            name: make_user(store, name, admin=name == "boss") for name in ("boss", "alice", "bob")
        }
        with serve(create_app(config, store=store)) as url:
            made = Site(url, store, tokens, {})
            for owner, name, tags in (
                ("alice", "fang", ["python"]),
                ("bob", "coil", ["go", "bfs"]),
            ):
                answer = made.api(
                    "POST",
                    "/api/snakes",
                    owner,
                    json={"name": name, "url": servers.url("good"), "tags": tags},
                )
                assert answer.status_code == 201, answer.text
                made.ids[name] = answer.json()["id"]
            for i in range(6):
                names = ("@bob/coil", "builtin:random") if i % 2 else ("@alice/fang", "@bob/coil")
                source = "tournament:cup" if i == 5 else "custom"
                played = game(20 + i, f"old-{i}", names, source)
                store.games.save_played(played, created_at=T0 + dt.timedelta(days=i))
            store.games.add_calls(
                "old-0",
                1,
                [{"kind": "move", "name": "@bob/coil", "latency_ms": 12, "status": "ok"}],
            )
            # "club": ranked after 3 games; "fresh": after 10, played twice (all in placement).
            for ladder_name, placement, games in (("club", 3, 4), ("fresh", 10, 2)):
                ladder = Ladder(ladder_name, SMALL, seed=7)
                ladder.add("builtin:random", "random")
                ladder.add("builtin:greedy", "greedy")
                ladder.settings = LadderSettings(placement_games=placement)
                store.ladders.create(ladder)
                assert ladder.run(games, store) == games
            yield made


def log_in(page: Page, site: Site, name: str) -> None:
    page.goto(site.url + "/login")
    page.get_by_test_id("login-name").fill(name)
    page.get_by_test_id("login-password").fill(password_of(name))
    page.get_by_test_id("login-submit").click()
    expect(page).to_have_url(re.compile(r"/account$"))


def no_changing_controls(page: Page, allowed: set[str]) -> None:
    """The page shows no button and no form control but those ``allowed`` (by testid)."""
    page.wait_for_load_state("networkidle")
    selector = ", ".join(
        f"main {part}"
        for part in (
            "button",
            "a.button",
            "textarea",
            "input:not([type=search]):not([type=date])",
            "select",
        )
    )
    shown = page.evaluate(
        """(selector) => [...document.querySelectorAll(selector)]
          .filter((e) => e.offsetParent !== null)
          .map((e) => e.dataset.testid || e.name || e.tagName)""",
        selector,
    )
    assert set(shown) <= allowed, f"{page.url} shows {shown}"


def test_the_directory_searches_and_a_member_challenges_a_snake(site: Site, page: Page) -> None:
    log_in(page, site, "alice")
    page.get_by_test_id("nav-snakes").click()
    expect(page).to_have_url(re.compile(r"/snakes$"))
    rows = page.get_by_test_id("directory-row")
    expect(rows).to_have_count(2)
    page.get_by_test_id("directory-search").fill("bfs")  # one of coil's tags
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("coil")
    expect(rows.first).to_contain_text("go, bfs")
    page.get_by_test_id("directory-search").fill("no such snake")
    expect(rows).to_have_count(0)
    expect(page.get_by_test_id("directory-count")).to_have_text("No snake found.")
    page.get_by_test_id("directory-search").fill("coil")
    expect(rows).to_have_count(1)
    shot(page, "profiles-directory")
    rows.first.get_by_test_id("challenge").click()
    expect(page).to_have_url(re.compile(r"/new\?challenge=%40bob%2Fcoil$"))
    # The challenged snake and the challenger's own, picked for her.
    chosen = page.get_by_test_id("picker-chosen-item")
    expect(chosen).to_have_count(2)
    expect(chosen.nth(0)).to_contain_text("@bob/coil")
    expect(chosen.nth(1)).to_contain_text("@alice/fang")
    # A third from the searchable list: a built-in.
    page.get_by_test_id("picker-search").fill("greedy")
    result = page.get_by_test_id("picker-result").filter(has_text="builtin:greedy")
    expect(result).to_have_count(1)
    result.get_by_test_id("picker-add").click()
    expect(chosen).to_have_count(3)
    shot(page, "profiles-challenge")
    page.get_by_test_id("create").click()
    expect(page).to_have_url(re.compile(r"/view/[\w-]+$"))
    game_id = page.url.rsplit("/", 1)[1]
    entrants = httpx.get(f"{site.url}/api/games/{game_id}", timeout=60).json()["entrants"]
    assert [e["name"] for e in entrants] == ["@bob/coil", "@alice/fang", "greedy"]


def test_a_member_tags_a_snake_on_the_account_page_and_the_directory_finds_it(
    site: Site, page: Page
) -> None:
    coil = site.api("GET", f"/api/snakes/{site.ids['coil']}", "bob").json()
    log_in(page, site, "bob")
    page.get_by_test_id("snake-name").fill("tagged")
    page.get_by_test_id("snake-url").fill(coil["url"])
    page.get_by_test_id("snake-tags-input").fill("Rust, Minimax rust")
    page.get_by_test_id("register-snake").click()
    expect(page.get_by_test_id("my-snakes")).to_contain_text("tagged")
    page.goto(site.url + "/snakes")
    page.get_by_test_id("directory-search").fill("rust")
    rows = page.get_by_test_id("directory-row")
    expect(rows).to_have_count(1)
    expect(rows.first).to_have_attribute("data-ref", "@bob/tagged")
    expect(rows.first).to_contain_text("rust, minimax")
    # Gone again: the module's other tests count the directory's snakes.
    mine = site.api("GET", "/api/snakes?mine=true", "bob").json()
    tagged = next(s["id"] for s in mine if s["name"] == "tagged")
    assert site.api("DELETE", f"/api/snakes/{tagged}", "bob").status_code == 204


def test_the_new_game_picker_adds_and_removes_entrants(site: Site, page: Page) -> None:
    log_in(page, site, "bob")
    page.goto(site.url + "/new")
    chosen = page.get_by_test_id("picker-chosen-item")
    expect(chosen).to_have_count(2)  # the form's two built-ins
    chosen.nth(0).get_by_test_id("picker-remove").click()
    chosen.nth(0).get_by_test_id("picker-remove").click()
    expect(chosen).to_have_count(0)
    expect(page.get_by_test_id("snakes")).to_have_value("")
    page.get_by_test_id("picker-search").fill("python")  # fang's tag
    results = page.get_by_test_id("picker-result")
    expect(results).to_have_count(1)
    expect(results.first).to_contain_text("@alice/fang")
    results.first.get_by_test_id("picker-add").click()
    page.get_by_test_id("picker-search").fill("")
    expect(results.filter(has_text="@bob/coil")).to_have_count(1)
    results.filter(has_text="@bob/coil").get_by_test_id("picker-add").click()
    expect(page.get_by_test_id("snakes")).to_have_value("@alice/fang\n@bob/coil")
    shot(page, "profiles-picker")


def test_a_snakes_page_shows_its_ladders_latency_health_and_filtered_games(
    site: Site, page: Page
) -> None:
    page.goto(f"{site.url}/snakes/{site.ids['coil']}")
    expect(page.get_by_test_id("snake-title")).to_have_text("@bob/coil")
    expect(page.get_by_test_id("snake-owner")).to_have_text("bob")
    expect(page.get_by_test_id("snake-tags")).to_have_text("go, bfs")
    expect(page.get_by_test_id("snake-latency")).to_contain_text("p50 12 ms, p95 12 ms")
    expect(page.get_by_test_id("snake-health")).to_contain_text("Health: unchecked")
    # Its games: the six stored in March, and any a challenge (another test) added since.
    total = httpx.get(f"{site.url}/api/games?snake=%40bob%2Fcoil", timeout=60).json()["total"]
    assert total >= 6
    games = page.get_by_test_id("game-row")
    expect(page.get_by_test_id("games-count")).to_have_text(f"{total} games")
    expect(games).to_have_count(total)
    page.get_by_test_id("filter-to").fill("2026-03-31")
    page.get_by_test_id("filter-to").dispatch_event("change")
    expect(page.get_by_test_id("games-count")).to_have_text("6 games")
    expect(games).to_have_count(6)
    page.get_by_test_id("filter-from").fill("2026-03-04")
    page.get_by_test_id("filter-from").dispatch_event("change")
    expect(page.get_by_test_id("games-count")).to_have_text("3 games")
    page.get_by_test_id("filter-to").fill("2026-03-04")
    page.get_by_test_id("filter-to").dispatch_event("change")
    expect(page.get_by_test_id("games-count")).to_have_text("1 game")
    page.get_by_test_id("filter-from").fill("")
    page.get_by_test_id("filter-to").fill("")
    page.get_by_test_id("filter-status").select_option("aborted")
    expect(page.get_by_test_id("games-count")).to_have_text("0 games")
    expect(games).to_have_count(0)
    shot(page, "profiles-snake")
    # A visitor may look, not act: no challenge, no edit.
    no_changing_controls(page, {"filter-status", "filter-ladder"})
    expect(page.get_by_test_id("challenge")).to_have_count(0)
    # The owner's user page lists it and links to it.
    page.get_by_test_id("snake-owner").click()
    expect(page).to_have_url(re.compile(r"/users/bob$"))
    expect(page.get_by_test_id("user-snakes").get_by_test_id("owned-row")).to_have_count(1)
    expect(page.get_by_test_id("user-bots")).to_contain_text("No bot.")
    expect(page.get_by_test_id("games-count")).to_have_text(f"{total} games")
    expect(page.get_by_test_id("game-row")).to_have_count(total)
    no_changing_controls(page, set())
    shot(page, "profiles-user")
    page.get_by_test_id("user-snakes").get_by_role("link", name="coil").click()
    expect(page).to_have_url(re.compile(rf"/snakes/{site.ids['coil']}$"))


def test_a_ladder_shows_placement_and_scorers_and_its_admin_sets_placement(
    site: Site, browser: Browser
) -> None:
    visitor = browser.new_context(viewport={"width": 1280, "height": 900})
    page = visitor.new_page()
    page.goto(site.url + "/ladders/fresh")
    placing = page.get_by_test_id("standing-placement")
    expect(placing).to_have_count(2)
    expect(placing.first).to_contain_text("in placement (8 left)")
    expect(page.get_by_test_id("standing-ranked")).to_have_count(0)
    expect(page.get_by_test_id("ladder-placement")).to_have_text(
        "Entrants are ranked after 10 placement games."
    )
    head = page.get_by_test_id("standings-head")
    for label in ("win rate", "food eaten", "final length", "turns alive"):
        expect(head).to_contain_text(label)
    expect(page.get_by_test_id("standing-placement").first).to_contain_text("%")
    no_changing_controls(page, set())
    visitor.close()

    admin = browser.new_context(viewport={"width": 1280, "height": 900})
    page = admin.new_page()
    log_in(page, site, "boss")
    page.goto(site.url + "/ladders/fresh")
    field = page.get_by_test_id("edit-placement-games")
    expect(field).to_have_value("10")
    field.fill("2")
    page.get_by_test_id("save-ladder").click()
    expect(page.get_by_test_id("edit-done")).to_contain_text("Saved")
    expect(page.get_by_test_id("standing-ranked")).to_have_count(2)
    expect(page.get_by_test_id("standing-placement")).to_have_count(0)
    shot(page, "profiles-ladder-ranked")
    assert site.store.ladders.get("fresh").settings.placement_games == 2  # type: ignore[union-attr]
    field.fill("10")
    page.get_by_test_id("save-ladder").click()
    expect(page.get_by_test_id("standing-placement")).to_have_count(2)
    admin.close()


def test_a_ladder_entry_page_has_its_rating_history_with_deltas(site: Site, page: Page) -> None:
    page.goto(site.url + "/ladders/club")
    expect(page.get_by_test_id("standing-ranked")).to_have_count(2)
    page.get_by_test_id("standings").get_by_role("link", name="random").click()
    expect(page).to_have_url(re.compile(r"/ladders/club/entries/random$"))
    expect(page.get_by_test_id("entry-title")).to_have_text("random")
    expect(page.get_by_test_id("entry-standing")).to_contain_text(re.compile(r"rank [12] of 2"))
    expect(page.get_by_test_id("entry-scores")).to_contain_text("win rate")
    expect(page.get_by_test_id("entry-scores")).to_contain_text("food eaten")
    rows = page.get_by_test_id("history-row")
    expect(rows).to_have_count(4)
    expect(page.get_by_test_id("chart-point")).to_have_count(4)
    # Latest first: its first game (the last row) changed nothing yet; the others did.
    expect(rows.last.locator("td").nth(3)).to_have_text("-")
    expect(rows.first.locator("td").nth(3)).to_have_text(re.compile(r"^[+-]\d+\.\d\d$"))
    shot(page, "profiles-entry")
    no_changing_controls(page, set())
    page.get_by_test_id("entry-ladder").click()
    expect(page).to_have_url(re.compile(r"/ladders/club$"))


def test_an_anonymous_visitor_sees_no_control_that_changes_anything(site: Site, page: Page) -> None:
    page.goto(site.url + "/snakes")
    expect(page.get_by_test_id("directory-row")).to_have_count(2)
    expect(page.get_by_test_id("challenge")).to_have_count(0)
    expect(page.get_by_test_id("log-in-to-challenge")).to_be_visible()
    no_changing_controls(page, {"directory-game"})
    page.goto(site.url + "/new?challenge=%40bob%2Fcoil")
    expect(page.get_by_test_id("log-in-to-play")).to_be_visible()
    expect(page.get_by_test_id("picker")).to_have_count(0)
    no_changing_controls(page, set())
    assert page.goto(site.url + "/snakes/999999").status == 404  # type: ignore[union-attr]
    assert page.goto(site.url + "/users/nobody").status == 404  # type: ignore[union-attr]
    assert page.goto(site.url + "/ladders/club/entries/nobody").status == 404  # type: ignore[union-attr]
