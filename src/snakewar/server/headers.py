"""Security headers on every answer: no framing by other sites, a strict CSP, no sniffing.

Every page of the site is a Jinja2 template whose scripts are static ES modules of this
server and whose styles are its stylesheets: nothing inline.  So the pages run under

* ``script-src 'self'`` and ``style-src 'self'``: an injected script element or inline
  handler never runs, even if some text escaped its escaping;
* ``connect-src 'self'``: a page talks to this server only;
* ``frame-ancestors 'self'`` (and ``X-Frame-Options: SAMEORIGIN`` for older browsers):
  no other site can frame a page and trick a click on it (clickjacking); the site
  itself frames its viewers and the API docs under its header.

Two kinds of page get a policy of their own:

* the viewers (the shared ``/static/viewer/*`` and each game's ``/static/<game>/*``)
  also connect to other engines, as a game's official viewer may (a board that watches
  any engine's game from a URL it is given);
* Swagger UI and ReDoc are someone else's pages: their route sets its own policy
  (:mod:`.routers.docs`), which this middleware keeps.

One kind of document other sites may frame: a viewer asked for with ``embed=1`` in
its query (where ``/embed/{id}``, the share panel's embed code, sends them).  A viewer
only plays a game back: it has nothing to click that changes anything, so framing it
tricks nobody into a click (clickjacking); every other page stays framed by the site
only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = [
    "CSP",
    "DOCS_POLICY",
    "EMBED_POLICY",
    "SITE_POLICY",
    "VIEWER_POLICY",
    "SecurityHeadersMiddleware",
    "policy",
]

CSP: Final = "content-security-policy"
"""The header's name (lowercase, as ASGI carries header names)."""


def policy(directives: Mapping[str, str]) -> str:
    """A Content-Security-Policy header's value from its directives."""
    return "; ".join(f"{name} {value}".strip() for name, value in directives.items())


_SITE: Final = {
    "default-src": "'self'",
    "script-src": "'self'",
    "style-src": "'self'",
    # The pages' icon is an empty data: URL (no favicon request).
    "img-src": "'self' data:",
    "font-src": "'self'",
    "connect-src": "'self'",
    "frame-src": "'self'",
    "worker-src": "'self'",
    "object-src": "'none'",
    "base-uri": "'self'",
    "form-action": "'self'",
    "frame-ancestors": "'self'",
}

SITE_POLICY: Final = policy(_SITE)
"""The pages' policy: everything from this server, nothing inline, framed by itself only."""

VIEWER_POLICY: Final = policy({**_SITE, "connect-src": "'self' http: https: ws: wss:"})
"""The viewers': as the pages', but a viewer reads games from any engine it is given."""

EMBED_POLICY: Final = policy(
    {**_SITE, "connect-src": "'self' http: https: ws: wss:", "frame-ancestors": "*"}
)
"""A viewer's asked for with ``embed=1``: as the viewers', framed by any site."""

DOCS_POLICY: Final = {
    **_SITE,
    # Swagger UI and ReDoc draw with styles they make as they run (ReDoc's
    # styled-components inserts <style> elements), and ReDoc searches in a worker.
    "style-src": "'self' 'unsafe-inline'",
    "worker-src": "'self' blob:",
}
"""The API docs' directives; their route adds the hashes of their inline scripts."""

VIEWER_PREFIX: Final = "/static/viewer/"
"""The shared viewer files (the pages' modules and stylesheet live there too: a CSP
header on a script or a stylesheet does nothing)."""

_COMMON: Final = (
    ("x-content-type-options", "nosniff"),
    ("x-frame-options", "SAMEORIGIN"),
    ("referrer-policy", "same-origin"),
)


class SecurityHeadersMiddleware:
    """Add the security headers to every HTTP answer (a route's own CSP is kept).

    Args:
        app: the application inside.
        viewer_prefixes: the paths under which documents get :data:`VIEWER_POLICY`
            (the shared viewer files and each game's viewer folder).
    """

    def __init__(self, app: ASGIApp, viewer_prefixes: Sequence[str] = (VIEWER_PREFIX,)) -> None:
        self.app = app
        self.viewer_prefixes = tuple(viewer_prefixes)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass the request on; add the headers to its answer's start."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path: str = scope["path"]
        viewer = path.startswith(self.viewer_prefixes)
        embedded = viewer and _asks_embed(scope.get("query_string", b""))
        csp = EMBED_POLICY if embedded else VIEWER_POLICY if viewer else SITE_POLICY

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message.setdefault("headers", [])
                headers = MutableHeaders(scope=message)
                for name, value in _COMMON:
                    if embedded and name == "x-frame-options":
                        continue  # other sites may frame it (the CSP says so to new browsers)
                    if name not in headers:
                        headers.append(name, value)
                if CSP not in headers:
                    headers.append(CSP, csp)
            await send(message)

        await self.app(scope, receive, send_with_headers)


def _asks_embed(query: bytes) -> bool:
    """Whether a query string has ``embed=1`` (a viewer to be framed by another site)."""
    return any(part == b"embed=1" for part in query.split(b"&"))
