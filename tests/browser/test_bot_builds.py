"""Uploading bots in compiled languages from the account page, and their build logs.

A user uploads a Go bot (its language told from its files) and a C++ bot that does not
compile; the account page shows each build, and the build page shows the owner the log
and builds again.  Another user, and a visitor, see no log and no control.  Builds run
in the background: both pages show a bot being built, and ask again until its build
ends (a build held by the test proves they do, without a reload).  Needs chromium, a
sandbox (``bubblewrap`` fixture) and ``go`` and ``g++``.
"""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from snakewar.server import ServerConfig, create_app
from tests.asgi_server import serve
from tests.browser.browser_env import shot
from tests.server.held_builds import HeldBuild
from tests.server.test_bot_languages import KITS, toolchain, zipped

BROKEN_CPP = b"#include <iostream>\nint main() { std::cout << undeclared_name; }\n"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    db = tmp_path_factory.mktemp("db") / "games.db"
    config = ServerConfig(database_url=f"sqlite:///{db}", public=True, signup="open")
    with serve(create_app(config)) as url:
        yield url


def sign_up(page: Page, base: str, name: str) -> None:
    page.goto(base + "/login")
    page.get_by_test_id("signup-name").fill(name)
    page.get_by_test_id("signup-password").fill("a long password")
    page.get_by_test_id("signup-submit").click()
    expect(page).to_have_url(re.compile(r"/account$"))


def upload(page: Page, archive: Path, name: str, language: str = "") -> None:
    page.get_by_test_id("bot-file").set_input_files(str(archive))
    page.get_by_test_id("bot-name").fill(name)
    page.get_by_test_id("bot-language").select_option(language)
    page.get_by_test_id("upload-bot").click()


@pytest.mark.usefixtures("bubblewrap")
def test_upload_compiled_bots_and_read_their_build_logs(
    site: str, page: Page, browser: Browser, tmp_path: Path
) -> None:
    toolchain("/usr/bin/go")
    toolchain("/usr/bin/g++")
    go_kit = tmp_path / "go-kit.zip"
    go_kit.write_bytes(zipped(KITS / "go", top="go-starter"))
    broken = tmp_path / "broken.zip"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as packed:
        packed.writestr("MyBot.cpp", BROKEN_CPP)
    broken.write_bytes(buffer.getvalue())

    sign_up(page, site, "cora")
    # The language list offers every language, and detection by default.
    options = page.get_by_test_id("bot-language").locator("option")
    expect(options.first).to_have_text("told from its files")
    expect(page.get_by_test_id("bot-language")).to_contain_text("Rust")
    upload(page, go_kit, "gopher")
    snakes = page.get_by_test_id("my-snakes")
    expect(snakes).to_contain_text("@cora/gopher", timeout=240_000)
    expect(snakes).to_contain_text("go: built")
    upload(page, broken, "broken", "cpp")
    expect(snakes).to_contain_text(
        "cpp: build failed: g++ failed; the log says why", timeout=240_000
    )
    shot(page, "bot-builds-account")

    # The owner reads the failed build's log, and builds it again.
    page.get_by_test_id("build-broken").click()
    expect(page).to_have_url(re.compile(r"/snakes/\d+/build$"))
    broken_url = page.url
    expect(page.get_by_test_id("build-title")).to_have_text("Build of @cora/broken")
    expect(page.get_by_test_id("build-status")).to_have_text(
        "C++: the build failed: g++ failed; the log says why."
    )
    expect(page.get_by_test_id("build-log")).to_contain_text("undeclared_name")
    expect(page.get_by_test_id("build-log")).to_contain_text("$ /usr/bin/g++")
    shot(page, "bot-build-log")
    page.get_by_test_id("build-again").click()
    # Accepted at once, built in the background: the page asks until the build ends.
    expect(page.get_by_test_id("build-status")).to_have_text(
        "C++: the build failed: g++ failed; the log says why.", timeout=240_000
    )
    expect(page.get_by_test_id("build-log")).to_contain_text("undeclared_name")
    expect(page.get_by_test_id("error")).to_have_text("")
    page.go_back()
    page.get_by_test_id("build-gopher").click()
    expect(page.get_by_test_id("build-status")).to_have_text(
        "Go: built; its games run the built bot."
    )
    expect(page.get_by_test_id("build-log")).to_contain_text("$ /usr/bin/go build")

    # Another user sees neither the log nor a control; a visitor is sent to log in.
    other = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        stranger = other.new_page()
        sign_up(stranger, site, "dan")
        stranger.goto(broken_url)
        expect(stranger.get_by_test_id("error")).to_contain_text("shown to its owner only")
        expect(stranger.get_by_test_id("build-log")).to_be_hidden()
        expect(stranger.get_by_test_id("build-again")).to_be_hidden()
        expect(stranger.locator("body")).not_to_contain_text("undeclared_name")
        shot(stranger, "bot-build-log-stranger")
    finally:
        other.close()
    visitor = browser.new_context()
    try:
        anonymous = visitor.new_page()
        anonymous.goto(broken_url)
        expect(anonymous).to_have_url(re.compile(r"/login$"))
        expect(anonymous.locator("body")).not_to_contain_text("undeclared_name")
    finally:
        visitor.close()


@pytest.mark.usefixtures("bubblewrap")
def test_the_pages_show_a_build_running_then_how_it_ended(
    site: str, page: Page, tmp_path: Path
) -> None:
    # The build waits on this test: the pages show it running, then (asking again by
    # themselves, never reloaded) built once released.
    held = HeldBuild()
    archive = tmp_path / "held.zip"
    archive.write_bytes(held.archive())
    sign_up(page, site, "hana")
    upload(page, archive, "held", "python3")
    snakes = page.get_by_test_id("my-snakes")
    expect(snakes).to_contain_text("python3: being built")
    expect(page.get_by_test_id("error")).to_have_text("")
    expect(page.get_by_test_id("play-held")).to_be_disabled()  # no game before its build
    held.wait_waiting()
    held.release()
    expect(snakes).to_contain_text("python3: built")
    expect(page.get_by_test_id("play-held")).to_be_enabled()
    shot(page, "bot-build-polled-account")

    # The build page, opened while a rebuild runs, shows how it ends.
    page.get_by_test_id("build-held").click()
    expect(page).to_have_url(re.compile(r"/snakes/\d+/build$"))
    expect(page.get_by_test_id("build-status")).to_have_text(
        "Python 3: built; its games run the built bot."
    )
    page.get_by_test_id("build-again").click()
    expect(page.get_by_test_id("build-status")).to_have_text("Python 3: being built.")
    expect(page.get_by_test_id("build-again")).to_be_disabled()
    held.wait_waiting()
    page.reload()  # a page opened while the build runs asks again by itself too
    expect(page.get_by_test_id("build-status")).to_have_text("Python 3: being built.")
    held.release()
    expect(page.get_by_test_id("build-status")).to_have_text(
        "Python 3: built; its games run the built bot."
    )
    expect(page.get_by_test_id("build-log")).to_contain_text("released")
    expect(page.get_by_test_id("build-again")).to_be_enabled()
    shot(page, "bot-build-polled")
