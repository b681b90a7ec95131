"""The new-game page's game selector: which forms it offers and which one it opens on.

Over HTTP (the app in process): the default game's form, and beside it every other game
whose templates have a ``new_game_form.html`` (Halite III's), each in its own box; the
selector opens on ``?game=NAME`` and ignores anything else.  The browser tests drive it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from snakewar.server import ServerConfig, create_app
from snakewar.server.routers.pages import game_forms
from tests.server.accounts import public_client


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(
        create_app(ServerConfig(database_url="memory")), base_url="http://localhost"
    ) as local:
        yield local


def boxes(html: str) -> dict[str, bool]:
    """Each game's form box on the page: whether it is hidden."""
    return {
        name: bool(hidden)
        for name, hidden in re.findall(r'<div data-game-form="([\w-]+)"( hidden)?>', html)
    }


def test_the_games_with_a_form_are_offered_beside_the_default_one(client: TestClient) -> None:
    assert game_forms() == [{"name": "halite3", "title": "Halite III"}]
    page = client.get("/new")
    assert page.status_code == 200
    assert boxes(page.text) == {"battlesnake": False, "halite3": True}
    options = re.findall(r'<option value="([\w-]+)"( selected)?>([^<]+)</option>', page.text)
    assert ("battlesnake", " selected", "Battlesnake") in options
    assert ("halite3", "", "Halite III") in options
    assert 'data-testid="halite-new-game-form"' in page.text


@pytest.mark.parametrize(
    ("query", "shown"),
    [
        ("?game=halite3", "halite3"),
        ("?game=battlesnake", "battlesnake"),
        ("?game=chess", "battlesnake"),
        ("?game=" + "x" * 5000, "battlesnake"),  # ignored, as any unknown name
        ("?game=%3Cscript%3E", "battlesnake"),
    ],
)
def test_the_page_opens_on_the_game_asked_for_and_ignores_anything_else(
    client: TestClient, query: str, shown: str
) -> None:
    page = client.get("/new" + query)
    assert page.status_code == 200
    assert boxes(page.text) == {name: name != shown for name in ("battlesnake", "halite3")}
    assert "<script>" not in page.text


def test_a_visitor_is_offered_no_form() -> None:
    with public_client(as_user=None) as visitor:
        page = visitor.get("/new?game=halite3")
        assert page.status_code == 200
        assert 'data-testid="log-in-to-play"' in page.text
        for form in ("game-select", "halite-new-game-form", "new-game-form", "data-game-form"):
            assert form not in page.text
