"""The API docs, Swagger UI and ReDoc, working offline.

FastAPI's own docs pages load Swagger UI and ReDoc from a CDN, so they are blank
without a network.  These pages load the same files from the ``fastapi-offline``
package instead, mounted at :data:`DOCS_STATIC_URL` by :func:`mount_docs_static`
(the app is created with ``docs_url=None, redoc_url=None``).  They are the bare tools,
at :data:`SWAGGER_UI_URL` and :data:`REDOC_URL`; the site shows each in a frame under
its header at ``/docs`` and ``/redoc`` (:mod:`.pages`).

ReDoc's bundle draws its maker's logo from the maker's CDN in the menu's footer; the
bundle is served with that address taken out (:func:`redoc_bundle`), so the page asks
nothing of any other server; Swagger UI is told not to ask an online validator either.

Their pages are FastAPI's, whose inline scripts the site's Content-Security-Policy
would block: each answer carries the policy of :data:`~snakewar.server.headers.DOCS_POLICY`
with the SHA-256 of exactly the inline scripts it holds (:func:`with_policy`).
"""

from __future__ import annotations

import base64
import functools
import hashlib
from html.parser import HTMLParser
from importlib import resources
from typing import Final

from fastapi import APIRouter, FastAPI, Request
from fastapi.openapi.docs import (
    get_redoc_html,
    get_swagger_ui_html,
    get_swagger_ui_oauth2_redirect_html,
)
from fastapi.responses import HTMLResponse, Response
from fastapi.staticfiles import StaticFiles

from snakewar.server.headers import CSP, DOCS_POLICY, policy

__all__ = [
    "DOCS_STATIC_URL",
    "OAUTH2_REDIRECT_URL",
    "REDOC_URL",
    "SWAGGER_UI_URL",
    "mount_docs_static",
    "redoc_bundle",
    "router",
    "with_policy",
]

DOCS_STATIC_URL: Final = "/static/docs"
"""Where Swagger UI's and ReDoc's files are served."""

SWAGGER_UI_URL: Final = "/docs/swagger-ui"
"""Swagger UI itself (``/docs`` shows it under the site's header)."""

REDOC_URL: Final = "/redoc/reference"
"""ReDoc itself (``/redoc`` shows it under the site's header)."""

OAUTH2_REDIRECT_URL: Final = "/docs/oauth2-redirect"

_REDOC_BUNDLE: Final = "redoc.standalone.js"
_REDOC_LOGO: Final = b'"https://cdn.redoc.ly/redoc/logo-mini.svg"'
"""The logo ReDoc's menu footer loads from its CDN: an empty address loads nothing (the
image's error handler then hides it; the "API docs by Redocly" link stays)."""

router = APIRouter(include_in_schema=False, default_response_class=HTMLResponse)


def _docs_files() -> resources.abc.Traversable:
    return resources.files("fastapi_offline") / "static"


def mount_docs_static(app: FastAPI) -> None:
    """Serve ``fastapi_offline``'s copies of Swagger UI and ReDoc at :data:`DOCS_STATIC_URL`."""
    app.mount(DOCS_STATIC_URL, StaticFiles(directory=str(_docs_files())), name="docs-static")


@functools.cache
def redoc_bundle() -> bytes:
    """ReDoc's standalone bundle without the address of its maker's logo (read once)."""
    return (_docs_files() / _REDOC_BUNDLE).read_bytes().replace(_REDOC_LOGO, b'""')


class _InlineScripts(HTMLParser):
    """Collects the text of each script element that has no ``src``."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)
        self.scripts: list[str] = []
        self._inside = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "script" and not any(name == "src" for name, _ in attrs):
            self._inside = True
            self.scripts.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._inside = False

    def handle_data(self, data: str) -> None:
        # A script's text is raw (CDATA content), but may come in several pieces.
        if self._inside:
            self.scripts[-1] += data


def with_policy(page: HTMLResponse) -> HTMLResponse:
    """``page`` with the docs' CSP, which lets its own inline scripts run and no other.

    Each inline script element of the page is allowed by its SHA-256: a script
    injected into the page would have another hash.
    """
    parser = _InlineScripts()
    parser.feed(bytes(page.body).decode("utf-8"))
    parser.close()
    hashes = [
        "'sha256-" + base64.b64encode(hashlib.sha256(script.encode()).digest()).decode() + "'"
        for script in parser.scripts
    ]
    page.headers[CSP] = policy({**DOCS_POLICY, "script-src": " ".join(["'self'", *hashes])})
    return page


def _openapi_url(request: Request) -> str:
    root = str(request.scope.get("root_path", "")).rstrip("/")
    openapi: str | None = request.app.openapi_url
    return root + (openapi or "/openapi.json")


@router.get(SWAGGER_UI_URL)
def swagger_ui(request: Request) -> HTMLResponse:
    """Swagger UI: try the API from the browser."""
    return with_policy(
        get_swagger_ui_html(
            openapi_url=_openapi_url(request),
            title=f"{request.app.title} API",
            swagger_js_url=f"{DOCS_STATIC_URL}/swagger-ui-bundle.js",
            swagger_css_url=f"{DOCS_STATIC_URL}/swagger-ui.css",
            swagger_favicon_url=f"{DOCS_STATIC_URL}/favicon.png",
            oauth2_redirect_url=OAUTH2_REDIRECT_URL,
            # Its default sends the API's address to an online validator, from every
            # visitor's browser: nothing is asked of any other server.
            swagger_ui_parameters={"validatorUrl": None},
        )
    )


@router.get(OAUTH2_REDIRECT_URL)
def swagger_ui_oauth2_redirect() -> HTMLResponse:
    """Swagger UI's OAuth2 redirect page."""
    return with_policy(get_swagger_ui_oauth2_redirect_html())


@router.get(REDOC_URL)
def redoc(request: Request) -> HTMLResponse:
    """ReDoc: the API reference."""
    return with_policy(
        get_redoc_html(
            openapi_url=_openapi_url(request),
            title=f"{request.app.title} API reference",
            redoc_js_url=f"{DOCS_STATIC_URL}/{_REDOC_BUNDLE}",
            redoc_favicon_url=f"{DOCS_STATIC_URL}/favicon.png",
            with_google_fonts=False,
        )
    )


@router.get(f"{DOCS_STATIC_URL}/{_REDOC_BUNDLE}", response_class=Response)
def redoc_script() -> Response:
    """ReDoc's bundle (:func:`redoc_bundle`), in place of the package's own file."""
    return Response(redoc_bundle(), media_type="text/javascript; charset=utf-8")
