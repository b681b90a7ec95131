"""404s: an HTML page for a browser's page request, JSON for the API and other clients.

A browser asks for pages with ``Accept: text/html``; ``fetch``, scripts, the official
board and the CLI do not, and every ``/api`` path answers JSON whatever it is asked.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from snakewar.server import ServerConfig, create_app
from tests.server.accounts import public_client

BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,*/*;q=0.8"


@pytest.fixture
def client() -> Iterator[TestClient]:
    with TestClient(
        create_app(ServerConfig(database_url="memory")), base_url="http://localhost"
    ) as test_client:
        yield test_client


def is_page(response: object) -> bool:
    assert hasattr(response, "headers")
    return str(response.headers["content-type"]).startswith("text/html")


@pytest.mark.parametrize(
    ("path", "said"),
    [
        ("/nowhere", "there is no page at /nowhere"),
        ("/view/nope", "no stored game with id &#39;nope&#39;"),
        ("/ladders/nope", "no ladder named &#39;nope&#39;"),
        ("/tournaments/nope", "no tournament with id &#39;nope&#39;"),
        ("/static/viewer/nope.html", "there is no page at /static/viewer/nope.html"),
    ],
)
def test_a_browser_gets_a_page_with_the_site_header(
    client: TestClient, path: str, said: str
) -> None:
    response = client.get(path, headers={"Accept": BROWSER})
    assert response.status_code == 404
    assert is_page(response)
    html = response.text
    assert '<a class="brand" href="/">Snakewar</a>' in html
    assert 'data-testid="nav-ladders"' in html
    assert 'data-testid="not-found"' in html
    assert said in html
    assert '<a class="button" href="/" data-testid="not-found-home">' in html
    assert '<link rel="stylesheet" href="/static/viewer/pages/site.css">' in html
    assert "{" not in html.split("<body", 1)[1], "JSON in the page"


@pytest.mark.parametrize(
    "accept",
    ["*/*", "application/json", "", "text/html;q=0", "text/plain, */*;q=0.1"],
)
def test_other_clients_keep_the_json(client: TestClient, accept: str) -> None:
    for path, detail in (
        ("/nowhere", "Not Found"),
        ("/view/nope", "no stored game with id 'nope'"),
    ):
        response = client.get(path, headers={"Accept": accept})
        assert response.status_code == 404
        assert response.headers["content-type"] == "application/json"
        assert detail in response.json()["detail"]


def test_the_api_answers_json_even_to_a_browser(client: TestClient) -> None:
    for path in ("/api/nowhere", "/api/games/nope", "/api/ladders/nope", "/api"):
        response = client.get(path, headers={"Accept": BROWSER})
        assert response.status_code == 404, path
        assert response.headers["content-type"] == "application/json", path
        assert "detail" in response.json()


def test_only_page_requests_get_the_page(client: TestClient) -> None:
    # Something that is not a GET is not a page request: JSON.
    response = client.post("/nowhere", headers={"Accept": BROWSER})
    assert response.status_code in (404, 405)
    assert response.headers["content-type"] == "application/json"
    head = client.head("/nowhere", headers={"Accept": BROWSER})
    assert head.status_code == 404 and is_page(head)
    # The official board's engine API, read by fetch, keeps its JSON.
    engine = client.get("/games/nope", headers={"Accept": "application/json"})
    assert engine.status_code == 404
    assert engine.headers["content-type"] == "application/json"


def test_what_the_page_says_is_escaped(client: TestClient) -> None:
    response = client.get("/view/%3Cb%3Ex", headers={"Accept": BROWSER})
    assert response.status_code == 404
    assert "<b>x" not in response.text
    assert "&lt;b&gt;x" in response.text


def test_the_page_knows_who_is_looking_and_survives_a_bad_token() -> None:
    with public_client(as_user="ann", admin=False) as client:
        mine = client.get("/nowhere", headers={"Accept": BROWSER})
        assert mine.status_code == 404 and is_page(mine)
        assert 'data-testid="nav-new"' in mine.text  # a user may start games
        # A revoked or made-up token is a 401 for the API, but the page still shows.
        bad = {"Accept": BROWSER, "Authorization": "Bearer sw_not-a-token"}
        page = client.get("/nowhere", headers=bad)
        assert page.status_code == 404 and is_page(page)
        assert 'data-testid="nav-new"' not in page.text
        assert 'data-testid="nav-login"' in page.text
        assert client.get("/api/snakes", headers=bad).status_code == 401
    assert re.search(r"\bNot found\b", page.text)
