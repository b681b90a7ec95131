"""The pages that run a club, over ASGI: who sees them, their modules, the header's links.

What the modules draw is checked under Node (``tests/viewer/test_club_static.py``) and
in chromium (``tests/browser/test_club.py``); here: each page is its template and its
module, runs no inline script, and shows each requester only what they may use.
"""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from snakewar.server import ServerConfig, create_app
from tests.server.accounts import BASE_URL, make_user, password_of, public_client

CLUB_PAGES = {
    "/tournaments": "pages/tournaments.js",
    "/admin/users": "pages/admin_users.js",
    "/admin/invites": "pages/admin_invites.js",
    "/ladders": "pages/ladders.js",
}


def log_in(client: TestClient, name: str) -> None:
    client.headers.pop("Authorization", None)
    answer = client.post("/api/auth/login", json={"name": name, "password": password_of(name)})
    assert answer.status_code == 200, answer.text


@pytest.mark.parametrize("path", list(CLUB_PAGES))
def test_each_club_page_is_the_layout_with_its_module(path: str) -> None:
    with public_client(signup="invite") as client:
        log_in(client, "admin")
        response = client.get(path)
        assert response.status_code == 200
        html = response.text
        assert f'<script type="module" src="/static/viewer/{CLUB_PAGES[path]}"></script>' in html
        assert client.get(f"/static/viewer/{CLUB_PAGES[path]}").status_code == 200
        assert client.get("/static/viewer/pages/club.js").status_code == 200
        assert not re.search(r"<script(?![^>]*\bsrc=)", html), path
        assert not re.search(r"<style|\sstyle=|\son[a-z]+=", html), path


def test_the_header_links_tournaments_for_everyone_and_admin_for_admins() -> None:
    with public_client(signup="invite") as client:
        make_user(client.store, "ann")
        client.headers.pop("Authorization")
        anonymous = client.get("/").text
        assert 'href="/tournaments" data-testid="nav-tournaments"' in anonymous
        assert "nav-admin" not in anonymous
        log_in(client, "ann")
        member = client.get("/ladders").text
        assert "nav-tournaments" in member and "nav-admin" not in member
        client.cookies.clear()
        log_in(client, "admin")
        admin = client.get("/tournaments").text
        assert 'href="/admin/users" data-testid="nav-admin"' in admin
    with TestClient(create_app(ServerConfig(database_url="memory")), base_url=BASE_URL) as local:
        # The local server's one user is its admin.
        assert "nav-admin" in local.get("/").text


def test_admin_pages_send_visitors_to_log_in_and_tell_members_they_are_for_admins() -> None:
    with public_client(signup="invite") as client:
        make_user(client.store, "ann")
        client.headers.pop("Authorization")
        for path in ("/admin/users", "/admin/invites"):
            visitor = client.get(path, follow_redirects=False)
            assert visitor.status_code == 303 and visitor.headers["location"] == "/login"
        log_in(client, "ann")
        for path in ("/admin/users", "/admin/invites"):
            member = client.get(path)
            assert member.status_code == 403, path
            assert 'data-testid="admins-only"' in member.text
            assert 'data-testid="users"' not in member.text
            assert 'data-testid="invite-form"' not in member.text


def test_the_new_forms_are_for_admins_and_formats_show_their_names() -> None:
    with public_client(signup="invite") as client:
        make_user(client.store, "ann")
        log_in(client, "ann")
        assert "new-tournament-form" not in client.get("/tournaments").text
        assert "new-ladder-form" not in client.get("/ladders").text
        client.cookies.clear()
        log_in(client, "admin")
        html = client.get("/tournaments").text
        assert "new-tournament-form" in html and "new-ladder-form" in client.get("/ladders").text

        def options(testid: str) -> list[tuple[str, str]]:
            select = re.search(rf'data-testid="{testid}">(.*?)</select>', html, re.S)
            assert select is not None, testid
            return re.findall(r'<option value="([a-z_]+)">([^<]+)</option>', select[1])

        assert options("tournament-format") == [
            ("single_elimination", "Single elimination"),
            ("double_elimination", "Double elimination"),
            ("round_robin", "Round robin"),
            ("swiss", "Swiss"),
        ]
        assert [value for value, _ in options("tournament-registration")] == [
            "closed",
            "open",
            "owner",
        ]


def test_the_invitations_page_of_a_local_server_says_it_needs_none() -> None:
    with TestClient(create_app(ServerConfig(database_url="memory")), base_url=BASE_URL) as local:
        html = local.get("/admin/invites").text
        assert 'data-testid="local-server"' in html and "invite-form" not in html
        users = local.get("/admin/users").text
        assert 'data-testid="users"' in users and 'data-me="local"' in users


def test_the_sign_up_form_is_ready_for_an_invitation_link() -> None:
    with public_client(as_user=None, signup="invite") as client:
        html = client.get("/login?invite=abc").text
        # The module fills the code in; the page has the notice and the field.
        assert 'data-testid="invited"' in html and 'data-testid="signup-invite"' in html
        assert "abc" not in html  # the code is read by the module, never echoed by the server
    with public_client(as_user=None, signup="closed") as client:
        assert 'data-testid="signup-form"' not in client.get("/login?invite=abc").text


def test_the_account_page_changes_a_password_on_public_servers_only() -> None:
    with public_client(as_user="ann", admin=False) as client:
        log_in(client, "ann")
        assert 'data-testid="password-form"' in client.get("/account").text
    with TestClient(create_app(ServerConfig(database_url="memory")), base_url=BASE_URL) as local:
        assert 'data-testid="password-form"' not in local.get("/account").text
