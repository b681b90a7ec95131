"""Operations pages in a real browser: the admin dashboard and the notification settings.

A public server (SQLite file) with a real webhook receiver and a real SMTP server on
loopback: an admin watches the dashboard fill in (games by status, workers, sign-ups,
space); a member is told the page is not theirs (403) and a visitor is sent to log in;
a member sets their notifications on the account page, has a private address refused,
sends themself a test and sees it delivered.  A visitor sees no control that changes
anything.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from snakewar.server import ServerConfig, create_app
from snakewar.storage import Store
from tests.asgi_server import serve
from tests.browser.browser_env import shot
from tests.server.accounts import make_user, password_of
from tests.server.receivers import SmtpSink, WebhookReceiver, wait_for


@dataclass
class Ops:
    """The server, its store, the receivers and the admin's API token."""

    url: str
    store: Store
    hook: WebhookReceiver
    smtp: SmtpSink
    admin: dict[str, str]


@pytest.fixture(scope="module")
def ops(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Ops]:
    db = tmp_path_factory.mktemp("ops") / "ops.db"
    with WebhookReceiver() as hook, SmtpSink() as smtp, Store(f"sqlite:///{db}") as store:
        config = ServerConfig(
            database_url=f"sqlite:///{db}",
            public=True,
            signup="invite",
            # The receivers run on loopback (10/8 stays refused: the policy's test).
            allowed_networks=("127.0.0.0/8",),
            smtp_host="127.0.0.1",
            smtp_port=smtp.port,
            logins_per_minute=600.0,
        )
        admin = make_user(store, "boss", admin=True)
        make_user(store, "ann")
        with serve(create_app(config, store=store)) as url:
            yield Ops(url, store, hook, smtp, admin)


def log_in(page: Page, ops: Ops, name: str) -> None:
    page.goto(ops.url + "/login")
    page.get_by_test_id("login-name").fill(name)
    page.get_by_test_id("login-password").fill(password_of(name))
    page.get_by_test_id("login-submit").click()
    expect(page).to_have_url(re.compile(r"/account$"))


def test_an_admin_watches_the_dashboard(ops: Ops, page: Page) -> None:
    game = httpx.post(
        ops.url + "/api/games",
        json={"snakes": ["builtin:random"] * 2, "seed": 9},
        headers=ops.admin,
        timeout=60,
    )
    assert game.status_code == 201, game.text

    def complete() -> bool:
        answer = httpx.get(f"{ops.url}/api/games/{game.json()['id']}", timeout=60)
        return bool(answer.json()["status"] == "complete")

    wait_for(complete, "the game to end", 120)
    log_in(page, ops, "boss")
    page.get_by_test_id("nav-admin").click()
    page.get_by_test_id("nav-dashboard").click()
    expect(page).to_have_url(re.compile(r"/admin/dashboard$"))
    expect(page.get_by_test_id("dashboard")).to_have_attribute("data-loaded", "true")
    expect(page.get_by_test_id("status-complete")).to_contain_text("1")
    expect(page.get_by_test_id("runner")).to_contain_text("local")
    expect(page.get_by_test_id("running")).to_contain_text("of 32")
    expect(page.get_by_test_id("signup-ann")).to_contain_text("user")
    expect(page.get_by_test_id("signup-boss")).to_contain_text("admin")
    expect(page.get_by_test_id("database-size")).to_contain_text(
        re.compile(r"\d+(\.\d)? (B|KiB|MiB)")
    )
    expect(page.get_by_test_id("outbox")).to_contain_text("pending")
    expect(page.get_by_test_id("error")).to_have_text("")
    # It only shows: not one button or field on it.
    expect(page.locator("main button, main input, main select, main form")).to_have_count(0)
    shot(page, "ops-dashboard")


def test_a_member_is_refused_and_a_visitor_sent_to_log_in(ops: Ops, browser: Browser) -> None:
    context = browser.new_context()
    page = context.new_page()
    log_in(page, ops, "ann")
    expect(page.get_by_test_id("nav-admin")).to_have_count(0)
    answer = page.goto(ops.url + "/admin/dashboard")
    assert answer is not None and answer.status == 403
    expect(page.get_by_test_id("admins-only")).to_be_visible()
    expect(page.get_by_test_id("dashboard")).to_have_count(0)
    context.close()

    visitor = browser.new_context()
    guest = visitor.new_page()
    for path in ("/admin/dashboard", "/account"):
        guest.goto(ops.url + path)
        expect(guest).to_have_url(re.compile(r"/login$"))
    guest.goto(ops.url + "/")
    expect(guest.get_by_test_id("nav-admin")).to_have_count(0)
    # A visitor's only controls are the log-in and sign-up forms: nothing that changes
    # the server's games, settings or notifications.
    guest.goto(ops.url + "/login")
    expect(guest.get_by_test_id("notify-form")).to_have_count(0)
    expect(guest.get_by_test_id("notify-test")).to_have_count(0)
    visitor.close()


def test_a_member_sets_notifications_and_gets_a_test(ops: Ops, page: Page) -> None:
    log_in(page, ops, "ann")
    form = page.get_by_test_id("notify-form")
    expect(form).to_have_attribute("data-loaded", "true")
    expect(page.get_by_test_id("notify-cap")).to_contain_text("At most 10 messages an hour")
    expect(page.get_by_test_id("notify-no-email")).to_be_hidden()  # the server sends e-mail
    # The admins' event is not offered to a member.
    expect(page.get_by_test_id("notify-signup-webhook")).to_have_count(0)

    # A private address is refused by the outbound policy, naming the field.
    page.get_by_test_id("notify-webhook").fill("http://10.1.2.3/hook")
    page.get_by_test_id("notify-game_finished-webhook").check()
    page.get_by_test_id("notify-save").click()
    expect(page.get_by_test_id("notify-error")).to_contain_text("webhook_url: refused: 10.1.2.3")

    page.get_by_test_id("notify-webhook").fill(ops.hook.url("/ann"))
    page.get_by_test_id("notify-email").fill("ann@example.org")
    page.get_by_test_id("notify-snake_paused-email").check()
    page.get_by_test_id("notify-save").click()
    expect(page.get_by_test_id("notify-done")).to_have_text("Saved.")
    expect(page.get_by_test_id("notify-error")).to_have_text("")
    shot(page, "ops-notification-settings")

    page.reload()
    expect(page.get_by_test_id("notify-form")).to_have_attribute("data-loaded", "true")
    expect(page.get_by_test_id("notify-webhook")).to_have_value(ops.hook.url("/ann"))
    expect(page.get_by_test_id("notify-email")).to_have_value("ann@example.org")
    expect(page.get_by_test_id("notify-game_finished-webhook")).to_be_checked()
    expect(page.get_by_test_id("notify-snake_paused-email")).to_be_checked()
    expect(page.get_by_test_id("notify-snake_paused-webhook")).not_to_be_checked()

    page.get_by_test_id("notify-test").click()
    expect(page.get_by_test_id("notify-done")).to_contain_text("on its way")
    wait_for(lambda: any(p.path == "/ann" for p in ops.hook.posted), "the test's webhook")
    wait_for(lambda: bool(ops.smtp.messages()), "the test's e-mail")
    sent = page.get_by_test_id("notify-sent").locator("tr")
    expect(sent).to_have_count(2)
    expect(sent.filter(has_text="webhook")).to_contain_text("sent")
    expect(sent.filter(has_text="email")).to_contain_text("sent")
    [(envelope, _)] = ops.smtp.messages()
    assert envelope.rcpt_tos == ["ann@example.org"]
