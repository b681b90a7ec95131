"""Every answer carries the security headers; the API docs allow exactly their own scripts.

The browser test (tests/browser/test_security_headers.py) opens every page under these
headers; this one checks the answers themselves, without a browser: pages, API answers,
errors and static files all have them, and each docs page's policy names the SHA-256 of
each inline script it holds, and of nothing else.
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Iterator

import pytest
from fastapi.responses import HTMLResponse
from fastapi.testclient import TestClient

from snakewar.server import ServerConfig, create_app
from snakewar.server.headers import SITE_POLICY, VIEWER_POLICY
from snakewar.server.routers.docs import (
    OAUTH2_REDIRECT_URL,
    REDOC_URL,
    SWAGGER_UI_URL,
    with_policy,
)


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    app = create_app(ServerConfig(database_url="memory"))
    with TestClient(app, base_url="http://localhost") as test_client:
        yield test_client


def sha256(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def script_src(header: str) -> list[str]:
    directives = dict(d.strip().split(" ", 1) for d in header.split(";"))
    return directives["script-src"].split()


@pytest.mark.parametrize(
    ("path", "status", "policy"),
    [
        ("/", 200, SITE_POLICY),
        ("/api/games", 200, SITE_POLICY),
        ("/api/games/nope", 404, SITE_POLICY),
        ("/no-such-page", 404, SITE_POLICY),
        ("/static/battlesnake/board.html", 200, VIEWER_POLICY),
    ],
)
def test_every_answer_has_the_headers(
    client: TestClient, path: str, status: int, policy: str
) -> None:
    answer = client.get(path)
    assert answer.status_code == status, answer.text
    assert answer.headers["content-security-policy"] == policy
    assert "frame-ancestors 'self'" in policy and "script-src 'self';" in policy
    assert answer.headers["x-frame-options"] == "SAMEORIGIN"
    assert answer.headers["x-content-type-options"] == "nosniff"
    assert answer.headers["referrer-policy"] == "same-origin"


@pytest.mark.parametrize(
    ("path", "scripts"), [(SWAGGER_UI_URL, 1), (REDOC_URL, 0), (OAUTH2_REDIRECT_URL, 1)]
)
def test_the_docs_pages_allow_their_own_inline_scripts_only(
    client: TestClient, path: str, scripts: int
) -> None:
    answer = client.get(path)
    assert answer.status_code == 200
    header = answer.headers["content-security-policy"]
    assert "frame-ancestors 'self'" in header and "'unsafe-inline'" not in script_src(header)
    inline = re.findall(r"<script>(.*?)</script>", answer.text, re.DOTALL)
    assert len(inline) == scripts  # (Swagger UI's page starts itself inline, ReDoc's not)
    assert script_src(header) == ["'self'", *map(sha256, inline)]
    assert len(answer.headers.get_list("content-security-policy")) == 1


def test_a_script_with_a_src_is_not_hashed_and_each_inline_one_is() -> None:
    page = HTMLResponse(
        '<html><script src="/static/a.js"></script><script>let a = "</p>";</script>'
        "<p>x</p><script type=module>go(1 < 2 && 3 > 2)</script></html>"
    )
    header = with_policy(page).headers["content-security-policy"]
    assert script_src(header) == ["'self'", sha256('let a = "</p>";'), sha256("go(1 < 2 && 3 > 2)")]
