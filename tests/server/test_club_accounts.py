"""A club's accounts from the API: invitations (list, revoke), users (reset), own password.

Every route is for admins except the change of one's own password: a member is refused
(403), an anonymous visitor asked to log in (401), and bad input is a 4xx naming the
field.
"""

from __future__ import annotations

import datetime as dt

import httpx
import pytest
from fastapi.testclient import TestClient

from snakewar.server.auth import SESSION_COOKIE, digest
from snakewar.storage.database import now
from tests.server.accounts import BASE_URL, make_user, password_of, public_client

ANONYMOUS = {"Authorization": ""}


def detail(response: httpx.Response) -> str:
    return str(response.json()["detail"])


def field(response: httpx.Response) -> str:
    """The field a 422 names (its last ``loc`` part)."""
    return str(response.json()["detail"][0]["loc"][-1])


def sign_up(client: TestClient, name: str, code: str) -> httpx.Response:
    response: httpx.Response = client.post(
        "/api/auth/signup",
        json={"name": name, "password": "a long password", "invite": code},
        headers=ANONYMOUS,
    )
    return response


# -- invitations ------------------------------------------------------------------------


def test_invitations_are_listed_without_their_codes_and_revocable() -> None:
    with public_client(signup="invite") as admin:
        first = admin.post("/api/auth/invites")
        second = admin.post("/api/auth/invites")
        assert first.status_code == second.status_code == 201
        made = first.json()
        # The id is the code's digest: it lists and revokes, and signs nobody up.
        assert made["id"] == digest(made["code"]) and made["id"] != made["code"]
        listed = admin.get("/api/auth/invites")
        assert listed.status_code == 200
        rows = {row["id"]: row for row in listed.json()}
        assert set(rows) == {made["id"], second.json()["id"]}
        assert made["code"] not in listed.text and second.json()["code"] not in listed.text
        row = rows[made["id"]]
        assert row["made_by"] == "admin" and row["used_by"] is None and row["status"] == "open"
        assert row["expires_at"] == made["expires_at"]
        created = dt.datetime.fromisoformat(row["created_at"])
        expires = dt.datetime.fromisoformat(row["expires_at"])
        assert dt.timedelta(days=6) < expires - created <= dt.timedelta(days=7)

        # Used: listed with who signed up, and no longer revocable (it is the record).
        visitor = TestClient(admin.app, base_url=BASE_URL)
        assert sign_up(visitor, "ann", made["code"]).status_code == 201
        rows = {row["id"]: row for row in admin.get("/api/auth/invites").json()}
        assert rows[made["id"]]["status"] == "used" and rows[made["id"]]["used_by"] == "ann"
        used = admin.delete(f"/api/auth/invites/{made['id']}")
        assert used.status_code == 409 and "used" in detail(used)

        # Revoked: gone from the list, and its link signs nobody up any more.
        gone = admin.delete(f"/api/auth/invites/{second.json()['id']}")
        assert gone.status_code == 204
        assert second.json()["id"] not in admin.get("/api/auth/invites").text
        visitor.cookies.clear()
        refused = sign_up(visitor, "bob", second.json()["code"])
        assert refused.status_code == 403 and "not valid" in detail(refused)
        again = admin.delete(f"/api/auth/invites/{second.json()['id']}")
        assert again.status_code == 404


def test_an_expired_invitation_is_listed_as_expired() -> None:
    with public_client(signup="invite") as admin:
        admin.store.accounts.create_invite(digest("old"), None, now() - dt.timedelta(hours=1))
        (row,) = admin.get("/api/auth/invites").json()
        assert row["status"] == "expired" and row["made_by"] is None
        assert row["id"] == digest("old")


def test_only_admins_list_and_revoke_invitations() -> None:
    with public_client(signup="invite") as admin:
        made = admin.post("/api/auth/invites").json()
        ann = make_user(admin.store, "ann")
        path = f"/api/auth/invites/{made['id']}"
        for method, url in (("GET", "/api/auth/invites"), ("DELETE", path)):
            assert admin.request(method, url, headers=ann).status_code == 403, url
            assert admin.request(method, url, headers=ANONYMOUS).status_code == 401, url
        assert admin.post("/api/auth/invites", headers=ann).status_code == 403
        assert admin.post("/api/auth/invites", headers=ANONYMOUS).status_code == 401
        assert admin.get("/api/auth/invites").json()[0]["status"] == "open"


@pytest.mark.parametrize("bad", ["x", "G" * 64, "a" * 65, "%00" * 64])
def test_a_bad_invitation_id_is_a_422_naming_it(bad: str) -> None:
    with public_client(signup="invite") as admin:
        response = admin.delete(f"/api/auth/invites/{bad}")
        assert response.status_code == 422, response.text
        assert field(response) == "invite_id"


# -- users: role, disable, reset ---------------------------------------------------------


def test_an_admin_resets_a_password_and_the_old_access_ends() -> None:
    with public_client() as admin:
        ann_token = make_user(admin.store, "ann")
        ann = TestClient(admin.app, base_url=BASE_URL)
        logged = ann.post("/api/auth/login", json={"name": "ann", "password": password_of("ann")})
        assert logged.status_code == 200
        assert ann.get("/api/auth/me").json()["user"]["name"] == "ann"

        reset = admin.post("/api/users/ann/reset-password")
        assert reset.status_code == 200, reset.text
        new = reset.json()
        assert new["name"] == "ann" and len(new["password"]) >= 16
        # The session and the token are over; the old password is refused, the new works.
        assert ann.get("/api/auth/me").json()["user"] is None
        assert admin.get("/api/auth/me", headers=ann_token).status_code == 401
        old = ann.post("/api/auth/login", json={"name": "ann", "password": password_of("ann")})
        assert old.status_code == 401
        fresh = ann.post("/api/auth/login", json={"name": "ann", "password": new["password"]})
        assert fresh.status_code == 200
        # Each reset is a new password.
        assert admin.post("/api/users/ann/reset-password").json()["password"] != new["password"]


def test_resets_are_for_admins_and_not_of_oneself() -> None:
    with public_client() as admin:
        ann = make_user(admin.store, "ann")
        make_user(admin.store, "bob")
        refused = admin.post("/api/users/bob/reset-password", headers=ann)
        assert refused.status_code == 403 and "admin" in detail(refused)
        anonymous = admin.post("/api/users/bob/reset-password", headers=ANONYMOUS)
        assert anonymous.status_code == 401
        own = admin.post("/api/users/admin/reset-password")
        assert own.status_code == 403 and "account page" in detail(own)
        missing = admin.post("/api/users/nobody/reset-password")
        assert missing.status_code == 404 and "nobody" in detail(missing)
        bad = admin.post("/api/users/Not%20A%20Name/reset-password")
        assert bad.status_code == 422 and field(bad) == "name"
        # bob's password still works: nothing was reset.
        logged = admin.post(
            "/api/auth/login",
            json={"name": "bob", "password": password_of("bob")},
            headers=ANONYMOUS,
        )
        assert logged.status_code == 200


def test_the_users_list_and_role_changes_are_for_admins() -> None:
    with public_client() as admin:
        ann = make_user(admin.store, "ann")
        listed = admin.get("/api/users").json()
        assert [(u["name"], u["role"], u["disabled"]) for u in listed] == [
            ("admin", "admin", False),
            ("ann", "user", False),
        ]
        assert all(dt.datetime.fromisoformat(u["created_at"]) for u in listed)
        assert admin.get("/api/users", headers=ann).status_code == 403
        assert admin.get("/api/users", headers=ANONYMOUS).status_code == 401
        assert admin.patch("/api/users/ann", json={"role": "admin"}, headers=ann).status_code == 403
        promoted = admin.patch("/api/users/ann", json={"role": "admin"})
        assert promoted.status_code == 200 and promoted.json()["role"] == "admin"
        assert admin.get("/api/users", headers=ann).status_code == 200
        bad = admin.patch("/api/users/ann", json={"role": "king"})
        assert bad.status_code == 422 and field(bad) == "role"
        extra = admin.patch("/api/users/ann", json={"password": "x"})
        assert extra.status_code == 422 and field(extra) == "password"
        disabled = admin.patch("/api/users/ann", json={"disabled": True})
        assert disabled.json()["disabled"] is True
        assert admin.get("/api/auth/me", headers=ann).status_code == 401
        # Enabled again, the account's old tokens stay revoked: disabling ended them for good.
        assert admin.patch("/api/users/ann", json={"disabled": False}).json()["disabled"] is False
        assert admin.get("/api/auth/me", headers=ann).status_code == 401


# -- one's own password ------------------------------------------------------------------


def test_a_user_changes_their_password_and_their_other_sessions_end() -> None:
    with public_client(as_user="ann", admin=False) as client:
        client.headers.pop("Authorization")
        body = {"name": "ann", "password": password_of("ann")}
        here = client.post("/api/auth/login", json=body).json()["csrf"]
        elsewhere = TestClient(client.app, base_url=BASE_URL)
        assert elsewhere.post("/api/auth/login", json=body).status_code == 200
        csrf = {"X-CSRF-Token": here}

        wrong = client.post(
            "/api/auth/password",
            json={"current_password": "not it at all", "new_password": "a new password"},
            headers=csrf,
        )
        assert wrong.status_code == 403 and "current_password" in detail(wrong)
        short = client.post(
            "/api/auth/password",
            json={"current_password": password_of("ann"), "new_password": "short"},
            headers=csrf,
        )
        assert short.status_code == 422 and field(short) == "new_password"
        no_csrf = client.post(
            "/api/auth/password",
            json={"current_password": password_of("ann"), "new_password": "a new password"},
        )
        assert no_csrf.status_code == 403

        changed = client.post(
            "/api/auth/password",
            json={"current_password": password_of("ann"), "new_password": "a new password"},
            headers=csrf,
        )
        assert changed.status_code == 204, changed.text
        # This browser stays logged in; the other one is logged out.
        assert client.get("/api/auth/me").json()["user"]["name"] == "ann"
        assert elsewhere.get("/api/auth/me").json()["user"] is None
        assert SESSION_COOKIE in client.cookies
        old = elsewhere.post("/api/auth/login", json=body)
        assert old.status_code == 401
        new = elsewhere.post("/api/auth/login", json={"name": "ann", "password": "a new password"})
        assert new.status_code == 200


def test_changing_a_password_needs_a_login() -> None:
    with public_client(as_user=None) as client:
        response = client.post(
            "/api/auth/password",
            json={"current_password": "whatever1", "new_password": "a new password"},
        )
        assert response.status_code == 401
