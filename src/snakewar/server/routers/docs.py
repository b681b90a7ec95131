"""The API docs, Swagger UI at ``/docs`` and ReDoc at ``/redoc``, working offline.

FastAPI's own docs pages load Swagger UI and ReDoc from a CDN, so they are blank
without a network.  These pages load the same files from the ``fastapi-offline``
package instead, mounted at :data:`DOCS_STATIC_URL` by :func:`mount_docs_static`
(the app is created with ``docs_url=None, redoc_url=None``).
"""

from __future__ import annotations

from importlib import resources
from typing import Final

from fastapi import APIRouter, FastAPI, Request
from fastapi.openapi.docs import (
    get_redoc_html,
    get_swagger_ui_html,
    get_swagger_ui_oauth2_redirect_html,
)
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

__all__ = ["DOCS_STATIC_URL", "OAUTH2_REDIRECT_URL", "mount_docs_static", "router"]

DOCS_STATIC_URL: Final = "/static/docs"
"""Where Swagger UI's and ReDoc's files are served."""

OAUTH2_REDIRECT_URL: Final = "/docs/oauth2-redirect"

router = APIRouter(include_in_schema=False, default_response_class=HTMLResponse)


def mount_docs_static(app: FastAPI) -> None:
    """Serve ``fastapi_offline``'s copies of Swagger UI and ReDoc at :data:`DOCS_STATIC_URL`."""
    folder = resources.files("fastapi_offline") / "static"
    app.mount(DOCS_STATIC_URL, StaticFiles(directory=str(folder)), name="docs-static")


def _openapi_url(request: Request) -> str:
    root = str(request.scope.get("root_path", "")).rstrip("/")
    openapi: str | None = request.app.openapi_url
    return root + (openapi or "/openapi.json")


@router.get("/docs")
def swagger_ui(request: Request) -> HTMLResponse:
    """Swagger UI: try the API from the browser."""
    return get_swagger_ui_html(
        openapi_url=_openapi_url(request),
        title=f"{request.app.title} API",
        swagger_js_url=f"{DOCS_STATIC_URL}/swagger-ui-bundle.js",
        swagger_css_url=f"{DOCS_STATIC_URL}/swagger-ui.css",
        swagger_favicon_url=f"{DOCS_STATIC_URL}/favicon.png",
        oauth2_redirect_url=OAUTH2_REDIRECT_URL,
    )


@router.get(OAUTH2_REDIRECT_URL)
def swagger_ui_oauth2_redirect() -> HTMLResponse:
    """Swagger UI's OAuth2 redirect page."""
    return get_swagger_ui_oauth2_redirect_html()


@router.get("/redoc")
def redoc(request: Request) -> HTMLResponse:
    """ReDoc: the API reference."""
    return get_redoc_html(
        openapi_url=_openapi_url(request),
        title=f"{request.app.title} API reference",
        redoc_js_url=f"{DOCS_STATIC_URL}/redoc.standalone.js",
        redoc_favicon_url=f"{DOCS_STATIC_URL}/favicon.png",
        with_google_fonts=False,
    )
