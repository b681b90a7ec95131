"""The admin's users page shows what each account stores of uploads, against its quota."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from snakewar.games.halite3.adapter import played_from_hlt
from snakewar.server import ServerConfig, create_app
from snakewar.storage import Store
from tests.asgi_server import serve
from tests.browser.browser_env import shot
from tests.conformance_data import SHIPPED_HALITE_REPLAYS
from tests.server.accounts import make_user, password_of

SMALL = SHIPPED_HALITE_REPLAYS / "public-s100215-32x32-2p.hlt"  # 3854 bytes


@pytest.fixture
def club(tmp_path: Path) -> Iterator[str]:
    db = f"sqlite:///{tmp_path / 'club.db'}"
    config = ServerConfig(database_url=db, public=True, upload_quota_bytes=64 << 20)
    with Store(db) as store:
        make_user(store, "boss", admin=True)
        make_user(store, "ann")
        ann = store.accounts.user("ann").id
        for game_id in ("g1", "g2"):
            played = played_from_hlt(SMALL.read_bytes(), game_id=game_id, source="upload")
            store.games.save_played(played, owner_id=ann)
        with serve(create_app(config, store=store)) as url:
            yield url


def test_the_users_page_shows_stored_uploads_and_quotas(club: str, page: Page) -> None:
    page.goto(club + "/login")
    page.get_by_test_id("login-name").fill("boss")
    page.get_by_test_id("login-password").fill(password_of("boss"))
    page.get_by_test_id("login-submit").click()
    expect(page).to_have_url(re.compile(r"/account$"))
    page.goto(club + "/admin/users")
    expect(page.get_by_role("columnheader", name="Stored uploads")).to_be_visible()
    expect(page.get_by_test_id("user-ann")).to_contain_text("7.5 KiB of 64.0 MiB")
    # An admin has no quota: only what they store.
    boss = page.get_by_test_id("user-boss")
    expect(boss).to_contain_text("0 B")
    expect(boss).not_to_contain_text(" of ")
    shot(page, "admin-users-quota")
