"""A club run from the web alone, in a real browser, on a public invite-only server.

An admin invites people (a link shown once), makes and edits ladders, makes, edits,
starts and follows tournaments, and runs the accounts (roles, disable, reset); members
sign up with an invitation, join and leave ladders with their own snakes, and change
their password.  The header shows Tournaments to everyone, Admin to admins.  Every page
also fits a phone (390 px wide): forms stack and nothing scrolls sideways.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, BrowserContext, Page, ViewportSize, expect

from snakewar.server import ServerConfig, create_app
from snakewar.storage import Store
from tests.asgi_server import serve
from tests.browser.browser_env import shot
from tests.games.battlesnake.referee.snake_servers import SnakeServers
from tests.server.accounts import make_user, password_of

LONG = 120_000
"""Milliseconds to wait for games (generous: the suite may run on a loaded machine)."""

PHONE: ViewportSize = {"width": 390, "height": 844}
DESKTOP: ViewportSize = {"width": 1280, "height": 900}


@dataclass
class Club:
    """A public invite-only server, its store, snake servers, and its admin's API token."""

    url: str
    store: Store
    servers: SnakeServers
    admin: dict[str, str]

    def api(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        """Call the API as the admin (a token: no session, no CSRF)."""
        headers = {**self.admin, **kwargs.pop("headers", {})}
        return httpx.request(method, self.url + path, headers=headers, timeout=60, **kwargs)


@pytest.fixture(scope="module")
def club(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Club]:
    db = tmp_path_factory.mktemp("club") / "club.db"
    config = ServerConfig(
        database_url=f"sqlite:///{db}",
        public=True,
        signup="invite",
        # The test's snakes run on loopback: the operator lets bots live there.
        allowed_networks=("127.0.0.0/8",),
        # Every test of the module logs in from this one address, as fast as chromium goes:
        # at the default ten a minute a quick run was refused half-way.
        logins_per_minute=600.0,
    )
    with Store(f"sqlite:///{db}") as store, SnakeServers() as servers:
        admin = make_user(store, "boss", admin=True)
        with serve(create_app(config, store=store)) as url:
            yield Club(url, store, servers, admin)


def new_context(browser: Browser, **options: Any) -> BrowserContext:
    return browser.new_context(viewport=DESKTOP, **options)


def log_in(page: Page, club: Club, name: str, password: str | None = None) -> None:
    page.goto(club.url + "/login")
    page.get_by_test_id("login-name").fill(name)
    page.get_by_test_id("login-password").fill(password or password_of(name))
    page.get_by_test_id("login-submit").click()
    expect(page).to_have_url(re.compile(r"/account$"))


def member(club: Club, name: str) -> dict[str, str]:
    """A member made in the store (once); their API token's headers."""
    if any(u.name == name for u in club.store.accounts.users()):
        raise AssertionError(f"{name} exists already: each test makes its own members")
    return make_user(club.store, name)


# Every element that reaches past the window's right edge, but for those in tables: a
# wide table scrolls in its own box (site.css, where the pages' tables are styled
# together); everything else must fit.
_PAST_THE_EDGE = """() => [...document.querySelectorAll("body *")]
  .filter((e) => !e.closest("table") && e.getBoundingClientRect().right > innerWidth + 1)
  .map((e) => `${e.tagName.toLowerCase()}${e.id ? "#" + e.id : ""}.${e.className}`)"""


def fits_phone(page: Page) -> None:
    """Nothing on the page but a table is wider than a phone: forms, charts, the header."""
    assert page.viewport_size == PHONE
    page.wait_for_load_state("networkidle")
    assert page.evaluate(_PAST_THE_EDGE) == [], f"{page.url} is wider than a phone"


# -- 1. invitations ----------------------------------------------------------------------


def test_an_invitation_link_is_made_copied_used_and_revoked(club: Club, browser: Browser) -> None:
    admin = new_context(browser, permissions=["clipboard-read", "clipboard-write"])
    page = admin.new_page()
    log_in(page, club, "boss")
    page.get_by_test_id("nav-admin").click()
    expect(page).to_have_url(re.compile(r"/admin/users$"))
    page.get_by_test_id("nav-invites").click()
    expect(page).to_have_url(re.compile(r"/admin/invites$"))
    page.get_by_test_id("make-invite").click()
    link = page.get_by_test_id("invite-link")
    expect(link).to_have_value(re.compile(re.escape(club.url) + r"/login\?invite=[\w-]{40,}$"))
    invitation = link.input_value()
    page.get_by_test_id("copy-invite").click()
    expect(page.get_by_test_id("copied")).to_have_text("copied")
    assert page.evaluate("navigator.clipboard.readText()") == invitation
    rows = page.get_by_test_id("invite-row")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("boss")
    expect(rows.first).to_contain_text("open")
    shot(page, "club-invitation-made")

    # The link opens the sign-up form with the invitation filled in.
    visitor = new_context(browser)
    guest = visitor.new_page()
    guest.goto(invitation)
    expect(guest.get_by_test_id("invited")).to_be_visible()
    expect(guest.get_by_test_id("signup-invite")).to_have_value(invitation.rsplit("=", 1)[1])
    expect(guest.get_by_test_id("signup-name")).to_be_focused()
    guest.get_by_test_id("signup-name").fill("carol")
    guest.get_by_test_id("signup-password").fill("a long password")
    shot(guest, "club-invited-sign-up")
    guest.get_by_test_id("signup-submit").click()
    expect(guest).to_have_url(re.compile(r"/account$"))
    expect(guest.get_by_test_id("nav-account")).to_have_text("carol")
    visitor.close()

    page.reload()
    expect(rows.first).to_contain_text("used by carol")
    expect(rows.first.get_by_test_id("revoke-invite")).to_have_count(0)
    # A second one, revoked: its link signs nobody up.
    page.get_by_test_id("make-invite").click()
    # (The reload emptied the field: wait for the new link itself.)
    expect(link).to_have_value(re.compile(r"/login\?invite=[\w-]{40,}$"))
    revoked = link.input_value()
    assert revoked != invitation
    expect(rows).to_have_count(2)
    rows.first.get_by_test_id("revoke-invite").click()
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("used by carol")
    refused = httpx.post(
        club.url + "/api/auth/signup",
        json={"name": "dave", "password": "a long password", "invite": revoked.rsplit("=", 1)[1]},
        timeout=60,
    )
    assert refused.status_code == 403 and "not valid" in refused.text, refused.text
    page.set_viewport_size(PHONE)
    fits_phone(page)
    shot(page, "club-invitations-phone")
    admin.close()


# -- 2. ladders: make, edit, delete ------------------------------------------------------


def test_an_admin_makes_edits_fills_and_deletes_a_ladder(club: Club, page: Page) -> None:
    log_in(page, club, "boss")
    page.get_by_test_id("nav-ladders").click()
    form = page.get_by_test_id("new-ladder-form")
    expect(form.get_by_test_id("ladder-game")).to_have_value("battlesnake")
    form.get_by_test_id("ladder-name").fill("weekly")
    form.get_by_test_id("ladder-size").select_option("2")
    form.get_by_test_id("param-width").fill("7")
    form.get_by_test_id("param-height").fill("7")
    form.get_by_test_id("ladder-timeout").fill("300")
    # Another game shows its own settings.
    form.get_by_test_id("ladder-game").select_option("halite3")
    expect(form.get_by_test_id("param-ruleset")).to_have_count(0)
    expect(form.get_by_test_id("ladder-size").locator("option")).to_have_text(["2", "4", "8", "16"])
    form.get_by_test_id("ladder-game").select_option("battlesnake")
    form.get_by_test_id("param-width").fill("7")
    form.get_by_test_id("param-height").fill("7")
    form.get_by_test_id("param-width").fill("30")  # past this server's cap: named
    form.get_by_test_id("create-ladder").click()
    expect(form.locator(".error")).to_contain_text("width: 30 is larger than this server's 25")
    form.get_by_test_id("param-width").fill("7")
    shot(page, "club-new-ladder")
    form.get_by_test_id("create-ladder").click()
    expect(page).to_have_url(re.compile(r"/ladders/weekly$"))
    config = club.api("GET", "/api/ladders/weekly").json()["config"]
    assert config["timeout_ms"] == 300 and config["game_size"] == 2
    assert (config["params"]["width"], config["params"]["height"]) == (7, 7)

    # Settings for the next games.
    edit = page.get_by_test_id("ladder-edit-form")
    expect(edit.get_by_test_id("edit-timeout")).to_have_value("300")
    expect(edit.get_by_test_id("param-width")).to_have_value("7")
    edit.get_by_test_id("edit-timeout").fill("450")
    edit.get_by_test_id("edit-max-turns").fill("200")
    edit.get_by_test_id("param-foodSpawnChance").fill("30")
    edit.get_by_test_id("save-ladder").click()
    expect(edit.get_by_test_id("edit-done")).to_contain_text("Saved")
    config = club.api("GET", "/api/ladders/weekly").json()["config"]
    assert (config["timeout_ms"], config["max_turns"]) == (450, 200)
    assert config["params"]["foodSpawnChance"] == 30 and config["params"]["width"] == 7
    # Emptied: back to the game's own time per turn.
    edit.get_by_test_id("edit-timeout").fill("")
    edit.get_by_test_id("save-ladder").click()
    deadline = time.monotonic() + 60
    while club.api("GET", "/api/ladders/weekly").json()["config"]["timeout_ms"] is not None:
        assert time.monotonic() < deadline
        time.sleep(0.1)
    expect(edit.get_by_test_id("edit-done")).to_contain_text("Saved")

    # An admin adds built-ins from the page.
    join = page.get_by_test_id("join-form")
    for bot in ("builtin:random", "builtin:greedy"):
        join.get_by_test_id("join-snake").select_option(bot)
        join.get_by_test_id("join").click()
        expect(page.get_by_test_id("standings")).to_contain_text(bot.split(":")[1])
    expect(page.get_by_test_id("standings").locator("tr")).to_have_count(2)
    shot(page, "club-ladder-made")
    page.set_viewport_size(PHONE)
    fits_phone(page)
    page.set_viewport_size(DESKTOP)

    # Deleting asks first: dismissed, nothing happens; accepted, the ladder is gone.
    page.once("dialog", lambda dialog: dialog.dismiss())
    page.get_by_test_id("ladder-delete").click()
    expect(page).to_have_url(re.compile(r"/ladders/weekly$"))
    assert club.api("GET", "/api/ladders/weekly").status_code == 200
    messages: list[str] = []

    def accept(dialog: Any) -> None:
        messages.append(dialog.message)
        dialog.accept()

    page.once("dialog", accept)
    page.get_by_test_id("ladder-delete").click()
    expect(page).to_have_url(re.compile(r"/ladders$"))
    assert "weekly" in messages[0]
    expect(page.get_by_test_id("ladders")).not_to_contain_text("weekly")
    assert club.api("GET", "/api/ladders/weekly").status_code == 404


# -- 3. members join and leave ladders ----------------------------------------------------


def test_a_member_joins_and_leaves_a_ladder_with_their_own_snake(club: Club, page: Page) -> None:
    member(club, "dan")
    assert club.api("POST", "/api/ladders", json={"name": "open", "width": 7}).status_code == 201
    assert (
        club.api("POST", "/api/ladders/open/snakes", json={"snake": "builtin:random"}).status_code
        == 201
    )
    log_in(page, club, "dan")
    page.goto(club.url + "/ladders/open")
    # No snake yet: the page says where to register one.
    expect(page.get_by_test_id("join-none")).to_be_visible()
    expect(page.get_by_test_id("join")).to_be_disabled()
    expect(page.get_by_test_id("new-ladder-form")).to_have_count(0)
    page.get_by_test_id("join-none").get_by_role("link").click()
    page.get_by_test_id("snake-name").fill("good")
    page.get_by_test_id("snake-url").fill(club.servers.url("good"))
    page.get_by_test_id("register-snake").click()
    expect(page.get_by_test_id("my-snakes")).to_contain_text("@dan/good")
    page.goto(club.url + "/ladders/open")
    select = page.get_by_test_id("join-snake")
    expect(select.locator("option")).to_have_text(["@dan/good"])  # their own, no built-ins
    page.get_by_test_id("join").click()
    standings = page.get_by_test_id("standings")
    expect(standings).to_contain_text("dan/good")
    # Only their own entry has a Leave button; no admin controls.
    expect(page.get_by_test_id("leave-@dan/good")).to_have_text("Leave")
    expect(page.get_by_test_id("leave-random")).to_have_count(0)
    expect(page.get_by_test_id("ladder-run")).to_have_count(0)
    expect(page.get_by_test_id("ladder-delete")).to_have_count(0)
    expect(page.get_by_test_id("join-none")).to_be_visible()  # nothing more to join with
    shot(page, "club-member-joined")
    page.get_by_test_id("leave-@dan/good").click()
    expect(standings).not_to_contain_text("dan/good")
    names = [s["snake"] for s in club.api("GET", "/api/ladders/open").json()["standings"]]
    assert names == ["random"]
    expect(select.locator("option")).to_have_text(["@dan/good"])  # back in the list


# -- 4. tournaments ------------------------------------------------------------------------


def test_a_tournament_is_made_edited_started_and_followed(club: Club, page: Page) -> None:
    log_in(page, club, "boss")
    page.get_by_test_id("nav-tournaments").click()
    expect(page).to_have_url(re.compile(r"/tournaments$"))
    form = page.get_by_test_id("new-tournament-form")
    form.get_by_test_id("tournament-name").fill("Spring cup")
    expect(form.get_by_test_id("tournament-format").locator("option")).to_have_text(
        ["Single elimination", "Double elimination", "Round robin", "Swiss"]
    )
    form.get_by_test_id("tournament-format").select_option(label="Single elimination")
    form.get_by_test_id("entrant-builtin:greedy").check()
    form.get_by_test_id("entrant-builtin:random").check()
    form.get_by_test_id("tournament-more").fill("builtin:random\nbuiltin:greedy")
    form.get_by_test_id("param-width").fill("7")
    form.get_by_test_id("param-height").fill("7")
    expect(form.get_by_test_id("tournament-start-now")).not_to_be_checked()
    shot(page, "club-new-tournament")
    form.get_by_test_id("create-tournament").click()
    expect(page).to_have_url(re.compile(r"/tournaments/spring-cup-[0-9a-f]+$"))
    tid = page.url.rsplit("/", 1)[1]
    expect(page.get_by_test_id("tournament-status")).to_have_text("Not started")
    expect(page.get_by_test_id("tournament-about")).to_have_text(
        "Single elimination · battlesnake · 4 snakes"
    )

    # Before it starts: rename, take one entrant off, add one.
    edit = page.get_by_test_id("tournament-edit")
    edit.get_by_test_id("edit-name").fill("Summer cup")
    edit.get_by_test_id("rename").click()
    expect(page.get_by_test_id("tournament-title")).to_have_text("Summer cup")
    edit.get_by_test_id("remove-greedy-2").click()
    expect(edit.get_by_test_id("edit-entrants").locator("tr")).to_have_count(3)
    edit.get_by_test_id("add-entrant").select_option("builtin:hunter")
    edit.get_by_test_id("add").click()
    expect(edit.get_by_test_id("edit-entrants")).to_contain_text("hunter")
    snakes = [s["name"] for s in club.api("GET", f"/api/tournaments/{tid}").json()["snakes"]]
    assert snakes == ["greedy", "random", "random-2", "hunter"]
    shot(page, "club-tournament-before-start")

    page.get_by_test_id("tournament-start").click()
    expect(page.get_by_test_id("tournament-edit")).to_be_hidden()
    expect(page.get_by_test_id("tournament-status")).to_contain_text("Champion", timeout=LONG)
    expect(page.get_by_test_id("tournament-start")).to_be_hidden()
    expect(page.get_by_test_id("match")).to_have_count(3)
    expect(page.get_by_test_id("bracket").locator("h3")).to_have_text(["Round 1", "Final"])
    expect(page.get_by_test_id("tournament-standings").locator("tr")).to_have_count(4)
    # Every played game links to its viewer.
    first = page.get_by_test_id("match").first.get_by_role("link", name="game 1")
    expect(first).to_have_attribute("href", re.compile(r"^/view/[0-9a-f-]+$"))
    text = page.locator("main").inner_text()
    assert "single_elimination" not in text and "Single elimination" in text
    shot(page, "club-tournament-finished")
    champion = club.api("GET", f"/api/tournaments/{tid}").json()["champion"]

    page.get_by_test_id("nav-tournaments").click()
    row = page.get_by_test_id("tournament-row").filter(has_text="Summer cup")
    expect(row).to_contain_text("Single elimination")
    expect(row).to_contain_text(f"Champion: {champion}")
    assert "single_elimination" not in page.locator("main").inner_text()
    page.set_viewport_size(PHONE)
    fits_phone(page)
    shot(page, "club-tournaments-phone")


def test_a_tournament_page_links_its_game_being_played(club: Club, page: Page) -> None:
    made = club.api(
        "POST", "/api/snakes", json={"name": "slowpoke", "url": club.servers.url("slow")}
    )
    assert made.status_code == 201, made.text
    cup = club.api(
        "POST",
        "/api/tournaments",
        json={
            "name": "Slow cup",
            "snakes": ["@boss/slowpoke", "builtin:random"],
            "timeout": 2000,
            "width": 7,
            "height": 7,
            "start": False,
        },
    )
    assert cup.status_code == 201, cup.text
    log_in(page, club, "boss")
    page.goto(club.url + cup.json()["page"])
    expect(page.get_by_test_id("tournament-start")).to_have_text("Start the tournament")
    page.get_by_test_id("tournament-start").click()
    live = page.get_by_test_id("watch-live")
    expect(live).to_be_visible(timeout=LONG)
    expect(page.get_by_test_id("tournament-status")).to_contain_text("Playing now")
    shot(page, "club-tournament-live")
    live.click()
    expect(page).to_have_url(re.compile(r"/view/[0-9a-f-]+$"))
    game_id = page.url.rsplit("/", 1)[1]
    assert club.api("GET", f"/api/games/{game_id}").json()["status"] == "running"
    board = page.frame_locator("[data-testid=board-frame]")
    expect(board.get_by_test_id("snake-row")).to_have_count(2, timeout=LONG)
    # Stopped (its game cancelled), the page says why and offers to play on.
    assert club.api("POST", f"/api/games/{game_id}/cancel").status_code == 200
    page.go_back()
    expect(page.get_by_test_id("tournament-status")).to_contain_text("Stopped", timeout=LONG)
    expect(page.get_by_test_id("tournament-start")).to_have_text("Play it on")
    expect(live).to_have_count(0)


def test_an_admin_stops_a_tournament_and_a_ladder_from_their_pages(club: Club, page: Page) -> None:
    # Two snakes (a registered snake plays once, under its own name), both slow.
    for name in ("slowstop", "slowstop2"):
        made = club.api("POST", "/api/snakes", json={"name": name, "url": club.servers.url("slow")})
        assert made.status_code == 201, made.text
    board = {"timeout": 2000, "width": 7, "height": 7}
    cup = club.api(
        "POST",
        "/api/tournaments",
        json={"name": "Stop cup", "snakes": ["@boss/slowstop", "@boss/slowstop2"], **board},
    )
    assert cup.status_code == 201, cup.text
    log_in(page, club, "boss")
    page.goto(club.url + cup.json()["page"])
    expect(page.get_by_test_id("watch-live")).to_be_visible(timeout=LONG)
    expect(page.get_by_test_id("tournament-start")).to_be_hidden()
    page.get_by_test_id("tournament-stop").click()
    expect(page.get_by_test_id("tournament-status")).to_have_text(
        "Stopped by an admin", timeout=LONG
    )
    expect(page.get_by_test_id("tournament-stop")).to_be_hidden()
    expect(page.get_by_test_id("tournament-start")).to_have_text("Play it on")
    expect(page.get_by_test_id("watch-live")).to_have_count(0)
    assert (
        club.api("GET", cup.json()["page"].replace("/tournaments", "/api/tournaments")).json()[
            "run"
        ]["state"]
        == "stopped"
    )

    assert club.api("POST", "/api/ladders", json={"name": "stoppable", **board}).status_code == 201
    for snake in ("@boss/slowstop", "@boss/slowstop2"):
        joined = club.api("POST", "/api/ladders/stoppable/snakes", json={"snake": snake})
        assert joined.status_code == 201, joined.text
    page.goto(club.url + "/ladders/stoppable")
    expect(page.get_by_test_id("ladder-stop")).to_be_hidden()
    page.get_by_test_id("ladder-run").click()
    expect(page.get_by_test_id("run-status")).to_contain_text("Playing", timeout=LONG)
    page.get_by_test_id("ladder-stop").click()
    expect(page.get_by_test_id("run-status")).to_have_text(
        "Stopped by an admin after 0 of 10 games", timeout=LONG
    )
    expect(page.get_by_test_id("ladder-stop")).to_be_hidden()
    expect(page.get_by_test_id("ladder-run")).to_be_enabled()


# -- 5. users ------------------------------------------------------------------------------


def test_an_admin_runs_the_accounts_and_a_reset_user_picks_a_password(
    club: Club, browser: Browser
) -> None:
    member(club, "erin")
    admin = new_context(browser)
    page = admin.new_page()
    log_in(page, club, "boss")
    page.get_by_test_id("nav-admin").click()
    users = page.get_by_test_id("users")
    erin = page.get_by_test_id("user-erin")
    expect(erin).to_contain_text("user")
    expect(erin).to_contain_text("active")
    # No action on one's own account.
    expect(page.get_by_test_id("user-boss").locator("button")).to_have_count(0)
    erin.get_by_test_id("make-admin-erin").click()
    expect(erin.locator("td").nth(1)).to_have_text("admin")
    erin.get_by_test_id("make-user-erin").click()
    expect(erin.locator("td").nth(1)).to_have_text("user")

    # erin logs in elsewhere; disabled, her session ends; enabled, she may log in again.
    other = new_context(browser)
    hers = other.new_page()
    log_in(hers, club, "erin")
    erin.get_by_test_id("disable-erin").click()
    expect(erin.locator("td").nth(3)).to_have_text("disabled")
    hers.reload()
    expect(hers).to_have_url(re.compile(r"/login$"))
    erin.get_by_test_id("enable-erin").click()
    expect(erin.locator("td").nth(3)).to_have_text("active")

    # A reset: asked first, then a one-time password shown once.
    page.once("dialog", lambda dialog: dialog.accept())
    erin.get_by_test_id("reset-password-erin").click()
    expect(page.get_by_test_id("reset-result")).to_be_visible()
    expect(page.get_by_test_id("reset-text")).to_contain_text("erin")
    one_time = page.get_by_test_id("reset-password").input_value()
    assert len(one_time) >= 16
    shot(page, "club-users-reset")
    page.set_viewport_size(PHONE)
    fits_phone(page)
    expect(users.locator("tr")).to_have_count(len(club.store.accounts.users()))

    # Her old password no longer works; the one-time one does; she picks her own.
    hers.get_by_test_id("login-name").fill("erin")
    hers.get_by_test_id("login-password").fill(password_of("erin"))
    hers.get_by_test_id("login-submit").click()
    expect(hers.get_by_test_id("login-error")).to_contain_text("wrong user name or password")
    log_in(hers, club, "erin", one_time)
    form = hers.get_by_test_id("password-form")
    form.get_by_test_id("password-current").fill("not the password")
    form.get_by_test_id("password-new").fill("erin's own password")
    form.get_by_test_id("change-password").click()
    expect(form.get_by_test_id("password-error")).to_contain_text("current_password")
    form.get_by_test_id("password-current").fill(one_time)
    form.get_by_test_id("change-password").click()
    expect(form.get_by_test_id("password-done")).to_contain_text("changed")
    shot(hers, "club-password-changed")
    hers.get_by_test_id("logout").click()
    expect(hers.get_by_test_id("nav-login")).to_be_visible()
    log_in(hers, club, "erin", "erin's own password")
    other.close()
    admin.close()


# -- 6. the header ---------------------------------------------------------------------------


def test_the_header_links_tournaments_for_all_and_admin_for_admins(
    club: Club, browser: Browser
) -> None:
    member(club, "finn")
    context = new_context(browser)
    page = context.new_page()
    page.goto(club.url + "/")
    expect(page.get_by_test_id("nav-tournaments")).to_be_visible()
    expect(page.get_by_test_id("nav-admin")).to_have_count(0)
    page.get_by_test_id("nav-tournaments").click()
    expect(page).to_have_url(re.compile(r"/tournaments$"))
    expect(page.get_by_test_id("new-tournament-form")).to_have_count(0)
    # A visitor is sent to log in; a member is told the admin pages are for admins.
    page.goto(club.url + "/admin/users")
    expect(page).to_have_url(re.compile(r"/login$"))
    log_in(page, club, "finn")
    expect(page.get_by_test_id("nav-tournaments")).to_be_visible()
    expect(page.get_by_test_id("nav-admin")).to_have_count(0)
    for path in ("/admin/users", "/admin/invites"):
        response = page.goto(club.url + path)
        assert response is not None and response.status == 403
        expect(page.get_by_test_id("admins-only")).to_be_visible()
    page.goto(club.url + "/ladders")
    expect(page.get_by_test_id("new-ladder-form")).to_have_count(0)
    page.get_by_test_id("logout").click()
    expect(page.get_by_test_id("nav-login")).to_be_visible()
    log_in(page, club, "boss")
    page.get_by_test_id("nav-admin").click()
    expect(page.get_by_test_id("users")).to_contain_text("finn")
    page.get_by_test_id("nav-invites").click()
    expect(page.get_by_test_id("invite-form")).to_be_visible()
    page.set_viewport_size(PHONE)
    for path in ("/", "/tournaments", "/ladders", "/admin/users", "/admin/invites"):
        page.goto(club.url + path)
        expect(page.get_by_test_id("nav-admin")).to_be_visible()
        fits_phone(page)
    shot(page, "club-header-phone")
    context.close()


def test_a_local_servers_one_user_is_its_admin(base_url: str, page: Page) -> None:
    page.goto(base_url + "/")
    page.get_by_test_id("nav-admin").click()
    expect(page.get_by_test_id("user-local")).to_contain_text("admin")
    page.get_by_test_id("nav-invites").click()
    expect(page.get_by_test_id("local-server")).to_be_visible()
    page.get_by_test_id("nav-tournaments").click()
    expect(page.get_by_test_id("new-tournament-form")).to_be_visible()


# -- 7. the ladder page's chart and run progress ----------------------------------------------


def test_the_rating_chart_has_axes_and_a_legend_and_a_run_shows_progress(
    club: Club, page: Page
) -> None:
    # Slow snakes (0.4 s a move) on a big board: the run goes on while the page is looked at.
    club.api("POST", "/api/ladders", json={"name": "slow", "timeout": 2000})
    for name in ("sloth", "snail"):
        made = club.api("POST", "/api/snakes", json={"name": name, "url": club.servers.url("slow")})
        assert made.status_code == 201, made.text
    for snake in ("@boss/sloth", "@boss/snail"):
        joined = club.api("POST", "/api/ladders/slow/snakes", json={"snake": snake})
        assert joined.status_code == 201, joined.text
    log_in(page, club, "boss")
    page.goto(club.url + "/ladders/slow")
    page.get_by_test_id("ladder-run").click()
    status = page.get_by_test_id("run-status")
    expect(status).to_have_text(re.compile(r"^Playing: [0-9] of 10 games played$"))
    bar = page.get_by_test_id("run-progress")
    expect(bar).to_be_visible()
    expect(bar).to_have_attribute("max", "10")
    expect(page.get_by_test_id("ladder-run")).to_be_disabled()
    shot(page, "club-ladder-run-progress")
    # A round whose games are all cancelled stops the run (a round's games start one by
    # one: cancel until it stops).
    deadline = time.monotonic() + 120
    while club.api("GET", "/api/ladders/slow").json()["running"]:
        assert time.monotonic() < deadline
        for game in club.api("GET", "/api/games").json()["live"]:
            club.api("POST", f"/api/games/{game['id']}/cancel")
        time.sleep(0.05)
    expect(status).to_have_text(re.compile(r"^Stopped after [0-9] of 10 games: .*no game of the"))
    expect(page.get_by_test_id("ladder-run")).to_be_enabled()

    # A run that ends: every game counted, then the chart of its ratings.
    club.api("POST", "/api/ladders", json={"name": "quick", "width": 7, "height": 7})
    for snake in ("builtin:random", "builtin:greedy"):
        club.api("POST", "/api/ladders/quick/snakes", json={"snake": snake})
    page.goto(club.url + "/ladders/quick")
    page.get_by_test_id("ladder-run").click()
    expect(status).to_have_text("Played 10 of 10 games", timeout=LONG)
    expect(bar).to_have_attribute("value", "10")
    chart = page.get_by_test_id("rating-chart")
    expect(chart.locator("polyline")).to_have_count(2)
    x_ticks = chart.get_by_test_id("chart-x-tick").all_text_contents()
    y_ticks = chart.get_by_test_id("chart-y-tick").all_text_contents()
    assert x_ticks and all(t.isdigit() for t in x_ticks) and x_ticks[0] == "1"
    assert len(y_ticks) >= 2 and all(re.fullmatch(r"-?[0-9.]+", t) for t in y_ticks)
    assert [float(t) for t in y_ticks] == sorted(float(t) for t in y_ticks)
    expect(chart.get_by_test_id("chart-x-title")).to_have_text("games played")
    expect(chart.get_by_test_id("chart-y-title")).to_have_text("rating (mu - 3 sigma)")
    legend = page.get_by_test_id("legend-item")
    expect(legend).to_have_count(2)
    colours = {
        line.get_attribute("data-snake"): line.get_attribute("stroke")
        for line in chart.locator("polyline").all()
    }
    shown = {item.inner_text().strip(): item.get_attribute("data-color") for item in legend.all()}
    assert shown == colours and set(shown) == {"random", "greedy"}
    assert len(set(shown.values())) == 2
    shot(page, "club-ladder-chart")
    page.set_viewport_size(PHONE)
    fits_phone(page)
    shot(page, "club-ladder-phone")


def test_pages_of_a_club_fit_a_phone_and_forms_stack(club: Club, browser: Browser) -> None:
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    log_in(page, club, "boss")
    club.api("POST", "/api/ladders", json={"name": "phone", "width": 7})
    cup = club.api(
        "POST",
        "/api/tournaments",
        json={"name": "Phone cup", "snakes": ["builtin:random"] * 4, "width": 7, "start": False},
    ).json()
    for path in ("/ladders", "/ladders/phone", "/tournaments", cup["page"], "/account"):
        page.goto(club.url + path)
        page.wait_for_load_state("networkidle")
        fits_phone(page)
        # Each form's fields stack: none is wider than its form.
        for form in page.locator("main form:visible").all():
            box = form.bounding_box()
            assert box is not None and box["width"] <= PHONE["width"], path
            for field in form.locator("input:visible, select:visible").all():
                inner = field.bounding_box()
                assert inner is not None, path
                assert inner["x"] + inner["width"] <= box["x"] + box["width"] + 1, path
    shot(page, "club-tournament-phone")
    context.close()
