"""Accounts under attack: log-in backoff per account, and disabled accounts stay locked.

A password guesser spread over many addresses meets the account's own backoff (in the
database, so every server sharing it counts the same failures); the account's owner,
in a browser that logged in before, keeps logging in meanwhile.  Disabling an account
revokes its tokens and ends its sessions for good: enabling it again revives none.
"""

from __future__ import annotations

import httpx
from fastapi.testclient import TestClient

from snakewar.server.auth import SESSION_COOKIE
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
