"""Accounts under attack: log-in backoff per account, and disabled accounts stay locked.

A password guesser spread over many addresses meets the account's own backoff (in the
database, so every server sharing it counts the same failures); the account's owner,
in a browser that logged in before, keeps logging in meanwhile.  Disabling an account
revokes its tokens and ends its sessions for good: enabling it again revives none.
"""

from __future__ import annotations

import concurrent.futures
import datetime as dt
import threading
import time
from typing import Any

import httpx
from fastapi.testclient import TestClient

from snakewar.server.auth import DEVICE_COOKIE, SESSION_COOKIE
from snakewar.storage import Store
from snakewar.storage.accounts import Backoff
from tests.server.accounts import BASE_URL, make_user, password_of, public_client


def detail(response: httpx.Response) -> str:
    return str(response.json()["detail"])


def log_in(client: TestClient, name: str, password: str | None = None) -> httpx.Response:
    body = {"name": name, "password": password if password is not None else password_of(name)}
    response: httpx.Response = client.post("/api/auth/login", json=body)
    return response


# -- disabling ---------------------------------------------------------------------------


def test_enabling_a_disabled_account_again_revives_none_of_its_tokens_or_sessions() -> None:
    # The probe: disabling only hid the tokens behind the flag; enabling brought them back.
    with public_client() as admin:
        ann = make_user(admin.store, "ann")
        made = admin.post("/api/tokens", json={"label": "ci"}, headers=ann)
        assert made.status_code == 201, made.text
        second = {"Authorization": f"Bearer {made.json()['token']}"}
        browser = TestClient(admin.app, base_url=BASE_URL)
        assert log_in(browser, "ann").status_code == 200
        cookie = browser.cookies[SESSION_COOKIE]
        assert browser.get("/api/auth/me").json()["user"]["name"] == "ann"

        assert admin.patch("/api/users/ann", json={"disabled": True}).status_code == 200
        assert admin.get("/api/auth/me", headers=ann).status_code == 401
        assert browser.get("/api/auth/me").json()["user"] is None
        refused = log_in(browser, "ann")
        assert refused.status_code == 401, refused.text

        enabled = admin.patch("/api/users/ann", json={"disabled": False})
        assert enabled.status_code == 200 and enabled.json()["disabled"] is False
        for headers in (ann, second):
            stale = admin.get("/api/auth/me", headers=headers)
            assert stale.status_code == 401 and "not valid" in detail(stale), stale.text
        browser.cookies.set(SESSION_COOKIE, cookie)
        assert browser.get("/api/auth/me").json()["user"] is None
        # Ann logs in again and makes new tokens; the old ones are listed as revoked.
        browser.cookies.clear()
        again = log_in(browser, "ann")
        assert again.status_code == 200, again.text
        csrf = {"X-CSRF-Token": again.json()["csrf"]}
        listed = browser.get("/api/tokens").json()
        assert {t["label"]: t["revoked"] for t in listed} == {"tests": True, "ci": True}
        fresh = browser.post("/api/tokens", json={"label": "new"}, headers=csrf)
        assert fresh.status_code == 201, fresh.text
        bearer = {"Authorization": f"Bearer {fresh.json()['token']}"}
        assert admin.get("/api/auth/me", headers=bearer).json()["user"]["name"] == "ann"


# -- log-in backoff per account ------------------------------------------------------------


def from_address(app: Any, host: str) -> TestClient:
    """A client of ``app`` connecting from ``host`` (each address its own rate)."""
    return TestClient(app, base_url=BASE_URL, client=(host, 50000))


def test_failed_log_ins_back_off_per_account_whatever_the_address() -> None:
    # The probe: guessing was limited per address only, so many addresses guessed on.
    # Waits long enough that no guess in this test outlasts one, however loaded the machine.
    with public_client(as_user="ann", admin=False, login_backoff=Backoff(first_s=60)) as server:
        app = server.app
        # The owner's browser logged in before: it carries a device cookie.
        owner = from_address(app, "192.0.2.10")
        assert log_in(owner, "ann").status_code == 200
        assert owner.cookies.get(DEVICE_COOKIE, path="/api/auth")
        guessers = [from_address(app, f"203.0.113.{n}") for n in range(1, 7)]
        # Each guess from a new address: the per-address limit never bites.
        answers = [log_in(g, "ann", f"guess-number-{n}") for n, g in enumerate(guessers)]
        assert [a.status_code for a in answers[:5]] == [401] * 5, [a.text for a in answers]
        held = answers[5]
        assert held.status_code == 429, held.text
        assert "too many failed log-ins for this account" in detail(held)
        assert held.headers["Retry-After"] == "60"
        # The right password is not even checked while the backoff lasts...
        right = log_in(from_address(app, "198.51.100.1"), "ann")
        assert right.status_code == 429, right.text
        # ...but the owner's browser logs in: a backoff, never a lockout.
        owner.cookies.delete(SESSION_COOKIE)  # its session ended; its device cookie stays
        again = log_in(owner, "ann")
        assert again.status_code == 200, again.text
        # A name with no account is answered alike: nothing tells which names exist.
        nobody = [log_in(g, "zed", "whatever-1") for g in guessers]
        assert [a.status_code for a in nobody] == [401] * 5 + [429]


def test_after_the_wait_one_guess_is_checked_and_the_right_password_forgets_them() -> None:
    with public_client(as_user="ann", admin=False, login_backoff=Backoff(first_s=3)) as server:
        browser = from_address(server.app, "192.0.2.20")
        for n in range(5):
            assert log_in(browser, "ann", f"wrong-password-{n}").status_code == 401
        held = log_in(browser, "ann")
        assert held.status_code == 429 and 1 <= int(held.headers["Retry-After"]) <= 3
        # Once the wait is over one more guess is checked; the next waits twice as long.
        time.sleep(3.2)
        assert log_in(browser, "ann", "wrong-password-5").status_code == 401
        doubled = log_in(browser, "ann")
        assert doubled.status_code == 429 and 1 <= int(doubled.headers["Retry-After"]) <= 6
        time.sleep(6.2)
        assert log_in(browser, "ann").status_code == 200
        # A fresh count: a typo is a 401 again, not a wait.
        browser.cookies.clear()
        assert log_in(browser, "ann", "one-typo-here").status_code == 401


def test_changing_a_password_meets_the_same_backoff() -> None:
    with public_client(as_user="ann", admin=False) as server:
        browser = from_address(server.app, "192.0.2.30")
        csrf = {"X-CSRF-Token": log_in(browser, "ann").json()["csrf"]}
        browser.cookies.delete(DEVICE_COOKIE)  # a stolen session, say: no trusted browser
        body = {"new_password": "a-new-password"}
        codes = [
            browser.post(
                "/api/auth/password", json={**body, "current_password": f"guess-{n}"}, headers=csrf
            ).status_code
            for n in range(6)
        ]
        assert codes == [403] * 5 + [429], codes


# -- the store's count ---------------------------------------------------------------------


def test_backoff_grows_to_its_cap_and_is_forgotten(store: Store) -> None:
    accounts = store.accounts
    policy = Backoff()
    start = dt.datetime(2030, 1, 1, tzinfo=dt.UTC)

    def at(seconds: float) -> dt.datetime:
        return start + dt.timedelta(seconds=seconds)

    for n in range(5):
        assert accounts.begin_login("ann", stamp=at(n)).wait_s == 0
    waits = []
    clock = 4.0
    for _ in range(10):
        refused = accounts.begin_login("ann", stamp=at(clock))
        waits.append(round(refused.wait_s))
        clock += refused.wait_s
        assert accounts.begin_login("ann", stamp=at(clock)).wait_s == 0
    assert waits == [1, 2, 4, 8, 16, 32, 60, 60, 60, 60]
    assert policy.wait_s(100) == policy.most_s == 60
    # An hour without a failure: the count starts again.
    assert accounts.begin_login("ann", stamp=at(clock + 3601)).wait_s == 0
    assert accounts.begin_login("ann", stamp=at(clock + 3602)).wait_s == 0


def test_a_trusted_browser_counts_apart_for_its_own_account_only(store: Store) -> None:
    ann = store.accounts.create_user("ann", "x")
    store.accounts.create_user("bob", "x")
    first = store.accounts.begin_login("ann")
    store.accounts.end_login(first, ann.id, "d" * 64)
    for _ in range(5):
        store.accounts.begin_login("ann")
    assert store.accounts.begin_login("ann").wait_s > 0
    trusted = store.accounts.begin_login("ann", "d" * 64)
    assert trusted.trusted and trusted.wait_s == 0 and trusted.key == "device:" + "d" * 64
    # The same cookie is nobody's device for another account.
    other = store.accounts.begin_login("bob", "d" * 64)
    assert not other.trusted and other.key == "name:bob"
    # Disabling the account (or resetting its password) trusts none of its browsers.
    store.accounts.update_user("ann", disabled=True)
    assert not store.accounts.begin_login("ann", "d" * 64).trusted


def test_concurrent_guesses_are_counted_one_by_one(db_url: str) -> None:
    # Two servers sharing the database, ten guesses at once on each: five get checked.
    with Store(db_url) as first, Store(db_url) as second:
        stamp = dt.datetime(2030, 1, 1, tzinfo=dt.UTC)
        barrier = threading.Barrier(20)

        def guess(store: Store) -> float:
            barrier.wait()
            return store.accounts.begin_login("ann", stamp=stamp).wait_s

        with concurrent.futures.ThreadPoolExecutor(20) as pool:
            waits = list(pool.map(guess, [first, second] * 10))
    assert sorted(w == 0 for w in waits) == [False] * 15 + [True] * 5, waits
