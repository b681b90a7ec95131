"""Tournaments people enter, from the web alone, in a real browser (chromium).

A member enters their own snake from a tournament's page and withdraws it; an admin
makes a tournament that takes entries from the new-tournament form, qualifies its
entrants from a ladder's top N with a per-owner cap, and runs it round by round; the
list page shows tournaments taking entries, upcoming, running and finished; an
anonymous visitor sees every page and no control that changes anything.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, expect

from snakewar.server import ServerConfig, create_app
from snakewar.storage import Store
from tests.asgi_server import serve
from tests.browser.browser_env import shot
from tests.games.battlesnake.referee.snake_servers import SnakeServers
from tests.server.accounts import make_user, password_of
from tests.server.multi_server import wait_until

LONG = 120_000
"""Milliseconds to wait for games (generous: the suite may run on a loaded machine)."""

BOARD = {"width": 7, "height": 7}

CONTROLS = "main button, main form, main input, main select, main textarea"
"""Whatever on a page could change something (the header's own links aside)."""


@dataclass
class Site:
    """A public server, its store and snake servers, and API tokens by user."""

    url: str
    store: Store
    servers: SnakeServers
    tokens: dict[str, dict[str, str]]

    def api(self, who: str, method: str, path: str, **kwargs: Any) -> httpx.Response:
        return httpx.request(
            method, self.url + path, headers=self.tokens[who], timeout=60, **kwargs
        )

    def user(self, name: str, *, admin: bool = False) -> str:
        self.tokens[name] = make_user(self.store, name, admin=admin)
        return name

    def snake(self, owner: str, name: str) -> str:
        made = self.api(
            owner, "POST", "/api/snakes", json={"name": name, "url": self.servers.url("good")}
        )
        assert made.status_code == 201, made.text
        return f"@{owner}/{name}"

    def tournament(self, name: str, **body: Any) -> str:
        made = self.api(
            "boss",
            "POST",
            "/api/tournaments",
            json={"name": name, "start": False, **BOARD, **body},
        )
        assert made.status_code == 201, made.text
        tid: str = made.json()["id"]
        return tid

    def get(self, tid: str) -> dict[str, Any]:
        data: dict[str, Any] = self.api("boss", "GET", f"/api/tournaments/{tid}").json()
        return data


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    db = tmp_path_factory.mktemp("entry") / "site.db"
    config = ServerConfig(
        database_url=f"sqlite:///{db}",
        public=True,
        signup="invite",
        allowed_networks=("127.0.0.0/8",),  # the test's snakes run on loopback
        logins_per_minute=600.0,  # every test logs in from this one address
    )
    with (
        Store(f"sqlite:///{db}") as store,
        SnakeServers() as servers,
        serve(create_app(config, store=store)) as url,
    ):
        found = Site(url, store, servers, {})
        found.user("boss", admin=True)
        yield found


def log_in(page: Page, site: Site, name: str) -> None:
    page.goto(site.url + "/login")
    page.get_by_test_id("login-name").fill(name)
    page.get_by_test_id("login-password").fill(password_of(name))
    page.get_by_test_id("login-submit").click()
    expect(page).to_have_url(re.compile(r"/account$"))


def test_a_member_enters_their_snake_and_withdraws_it(site: Site, page: Page) -> None:
    kim = site.user("kim")
    mine = site.snake(kim, "kite")
    site.snake(site.user("lou"), "lark")  # someone else's: never offered to kim
    tid = site.tournament("Open cup", registration="open", per_owner=2)
    log_in(page, site, kim)
    page.goto(f"{site.url}/tournaments/{tid}")
    expect(page.get_by_test_id("tournament-entry-info")).to_contain_text("Taking entries now")
    expect(page.get_by_test_id("tournament-entry-info")).to_contain_text("at most 2 per owner")
    select = page.get_by_test_id("register-snake")
    expect(select.locator("option")).to_have_text([mine])  # their own, no built-ins
    # No admin controls for a member.
    for control in ("tournament-start", "tournament-round", "tournament-edit", "qualify-form"):
        expect(page.get_by_test_id(control)).to_have_count(0)
    page.get_by_test_id("register").click()
    entrants = page.get_by_test_id("tournament-entrants")
    expect(entrants).to_contain_text(mine)
    expect(page.get_by_test_id("register")).to_be_disabled()  # nothing more to enter
    expect(page.get_by_test_id("register-none")).to_be_visible()
    shot(page, "tournament-entered")
    assert [s["name"] for s in site.get(tid)["snakes"]] == [mine]
    page.get_by_test_id(f"withdraw-{mine}").click()
    expect(entrants).not_to_contain_text(mine)
    expect(entrants).to_contain_text("No entrants yet.")
    assert site.get(tid)["snakes"] == []
    expect(select.locator("option")).to_have_text([mine])  # offered again


def test_closed_registration_offers_members_nothing(site: Site, page: Page) -> None:
    mo = site.user("mo")
    site.snake(mo, "moth")
    tid = site.tournament("Invitational", snakes=["builtin:random", "builtin:greedy"])
    log_in(page, site, mo)
    page.goto(f"{site.url}/tournaments/{tid}")
    expect(page.get_by_test_id("tournament-entry-info")).to_contain_text("by its admins")
    expect(page.get_by_test_id("tournament-entrants")).to_contain_text("greedy")
    expect(page.get_by_test_id("register-form")).to_be_hidden()
    expect(page.get_by_test_id("withdraw-greedy")).to_have_count(0)


def test_an_admin_qualifies_entrants_from_a_ladder(site: Site, page: Page) -> None:
    ned, ola = site.user("ned"), site.user("ola")
    snakes = [site.snake(ned, "n1"), site.snake(ned, "n2"), site.snake(ola, "o1")]
    assert site.api("boss", "POST", "/api/ladders", json={"name": "main", **BOARD}).is_success
    for entrant in [*snakes, "builtin:random"]:
        joined = site.api("boss", "POST", "/api/ladders/main/snakes", json={"snake": entrant})
        assert joined.status_code == 201, joined.text
    assert site.api("boss", "POST", "/api/ladders/main/run", json={"games": 12}).is_success
    wait_until(
        "the ladder's games",
        lambda: not site.api("boss", "GET", "/api/ladders/main").json()["running"],
    )
    standings = site.api("boss", "GET", "/api/ladders/main").json()["standings"]
    expected: list[str] = []
    for row in standings:  # best first, at most one of each user's snakes, three in all
        name = row["snake"]
        if row["games"] == 0 or (name.startswith("@ned/") and any("@ned/" in e for e in expected)):
            continue
        expected.append(name)
    expected = expected[:3]
    tid = site.tournament("Masters", format="round_robin")
    log_in(page, site, "boss")
    page.goto(f"{site.url}/tournaments/{tid}")
    form = page.get_by_test_id("qualify-form")
    expect(form.get_by_test_id("qualify-ladder").locator("option")).to_have_text(["main"])
    form.get_by_test_id("qualify-top").fill("3")
    form.get_by_test_id("qualify-per-owner").fill("1")
    form.get_by_test_id("qualify").click()
    rows = page.get_by_test_id("entrant-row")
    expect(rows).to_have_count(len(expected))
    for i, name in enumerate(expected):
        expect(rows.nth(i)).to_contain_text(name)
    expect(page.get_by_test_id("tournament-entry-info")).to_contain_text(
        "qualified: top 3 of ladder main, at most 1 per owner"
    )
    shot(page, "tournament-qualified")
    assert [s["name"] for s in site.get(tid)["snakes"]] == expected


def test_an_admin_runs_the_next_round_until_the_champion(site: Site, page: Page) -> None:
    tid = site.tournament(
        "Rounds",
        format="single_elimination",
        snakes=["builtin:random", "builtin:greedy", "builtin:hunter?depth=1", "builtin:random"],
    )
    log_in(page, site, "boss")
    page.goto(f"{site.url}/tournaments/{tid}")
    button = page.get_by_test_id("tournament-round")
    expect(button).to_have_text("Run the next round: Round 1")
    button.click()
    expect(button).to_have_text("Run the next round: Final", timeout=LONG)
    expect(page.get_by_test_id("tournament-edit")).to_be_hidden()
    statuses = {m["id"]: m["status"] for m in site.get(tid)["matches"]}
    assert statuses == {"R1-1": "done", "R1-2": "done", "R2-1": "pending"}, statuses
    shot(page, "tournament-after-a-round")
    button.click()
    expect(page.get_by_test_id("tournament-status")).to_contain_text("Champion", timeout=LONG)
    expect(button).to_be_hidden()
    assert site.get(tid)["finished"] is True


def test_the_list_shows_each_phase_and_an_admin_makes_one_taking_entries(
    site: Site, page: Page
) -> None:
    upcoming = site.tournament("Later cup")
    registering = site.tournament(
        "Entry cup", registration="open", registration_closes_at="2099-01-01T00:00:00Z"
    )
    running = site.tournament(
        "Busy cup",
        snakes=["builtin:random", "builtin:greedy", "builtin:hunter?depth=1", "builtin:random"],
    )
    assert site.api("boss", "POST", f"/api/tournaments/{running}/round").status_code == 202
    finished = site.tournament("Done cup", snakes=["builtin:random", "builtin:greedy"])
    assert site.api("boss", "POST", f"/api/tournaments/{finished}/run").status_code == 202
    wait_until("the finished cup", lambda: site.get(finished)["finished"])
    wait_until("the first round", lambda: not site.get(running)["running"])
    page.goto(site.url + "/tournaments")
    for phase, tid, name in (
        ("registering", registering, "Entry cup"),
        ("upcoming", upcoming, "Later cup"),
        ("running", running, "Busy cup"),
        ("finished", finished, "Done cup"),
    ):
        section = page.get_by_test_id(f"tournaments-{phase}")
        row = section.get_by_test_id("tournament-row").filter(has_text=name)
        expect(row).to_have_count(1)
        expect(row.get_by_role("link", name=name)).to_have_attribute("href", f"/tournaments/{tid}")
    expect(
        page.get_by_test_id("tournaments-registering").get_by_test_id("tournament-row")
    ).to_contain_text(["entries close 2099-01-01 00:00"])
    expect(
        page.get_by_test_id("tournaments-finished").get_by_test_id("tournament-row")
    ).to_contain_text(["Champion"])
    shot(page, "tournaments-by-phase")
    # An admin makes one that takes entries, from the form.
    log_in(page, site, "boss")
    page.goto(site.url + "/tournaments")
    form = page.get_by_test_id("new-tournament-form")
    form.get_by_test_id("tournament-name").fill("Form cup")
    form.get_by_test_id("tournament-registration").select_option("open")
    form.get_by_test_id("tournament-per-owner").fill("1")
    form.get_by_test_id("tournament-max-entrants").fill("8")
    form.get_by_test_id("create-tournament").click()
    expect(page).to_have_url(re.compile(r"/tournaments/form-cup-[0-9a-f]+$"))
    info = page.get_by_test_id("tournament-entry-info")
    expect(info).to_contain_text("Taking entries now")
    expect(info).to_contain_text("at most 8 snakes · at most 1 per owner")
    page.goto(site.url + "/tournaments")
    expect(
        page.get_by_test_id("tournaments-registering").get_by_test_id("tournament-row")
    ).to_contain_text(["Entry cup", "Form cup"])


def test_an_anonymous_visitor_sees_no_control_that_changes_anything(site: Site, page: Page) -> None:
    tid = site.tournament(
        "Public cup", registration="open", snakes=["builtin:random", "builtin:greedy"]
    )
    page.goto(site.url + "/tournaments")
    expect(page.get_by_test_id("tournament-row").filter(has_text="Public cup")).to_have_count(1)
    expect(page.locator(CONTROLS)).to_have_count(0)
    page.goto(f"{site.url}/tournaments/{tid}")
    expect(page.get_by_test_id("tournament-entrants")).to_contain_text("greedy")
    expect(page.get_by_test_id("tournament-entry-info")).to_contain_text("Taking entries now")
    expect(page.locator(CONTROLS)).to_have_count(0)
    expect(page.get_by_test_id("logout")).to_have_count(0)
    shot(page, "tournament-anonymous")
