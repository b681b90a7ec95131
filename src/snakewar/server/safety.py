"""Limits for a public server: forbidden snake addresses and per-client rate limits.

In ``--public`` mode anyone may ask the server to call a URL, so a snake URL that
resolves to a loopback, private, link-local, multicast, reserved or cloud-metadata
address is refused: otherwise the server could be used to reach its own internal
network (server-side request forgery).  Every address a name resolves to is
checked, not only the first.
"""

from __future__ import annotations

import abc
import collections
import contextlib
import ipaddress
import math
import re
import time
from collections.abc import AsyncIterator, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Final
from urllib.parse import urlsplit

from starlette.middleware.cors import CORSMiddleware
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from snakewar.errors import BusyError, ForbiddenError
from snakewar.referee.addresses import AddressPolicy
from snakewar.referee.outbound import AddressRefusedError, check_host

__all__ = [
    "LOOPBACK_NAMES",
    "MAX_BODY_BYTES",
    "BodyLimitMiddleware",
    "ClientBudget",
    "ClientRate",
    "EngineCorsMiddleware",
    "ForbiddenSnakeError",
    "HostCheckMiddleware",
    "RateLimitError",
    "RateLimiter",
    "UsageBudget",
    "Use",
    "address_key",
    "check_public_url",
]


class ForbiddenSnakeError(ForbiddenError):
    """Raised in public mode for a snake URL that points at a non-public address."""


async def check_public_url(url: str, allowed_networks: tuple[str, ...] = ()) -> None:
    """Refuse ``url`` if its host is, or resolves to, a non-public address.

    ``allowed_networks`` (CIDR blocks such as ``10.1.0.0/16``) are private networks the
    operator lets bots live on (a classroom's LAN, a cluster's own network).  This is
    the check when a snake is registered or a game created; the referee's transport
    checks again on every connection (:mod:`snakewar.referee.outbound`).

    Raises:
        ForbiddenSnakeError: naming the URL and the kind of address.
    """
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    policy = AddressPolicy(public_only=True, allowed_networks=allowed_networks)
    try:
        await check_host(parts.hostname or "", port, policy)
    except AddressRefusedError as exc:
        raise ForbiddenSnakeError(f"snake URL {url[:200]!r}: {exc}") from None


def address_key(host: str) -> str:
    """The key a client's address counts under: the address, an IPv6 one's /64.

    One host usually holds a whole IPv6 /64, so counting single addresses would let it
    be 2**64 clients.  An IPv4 address mapped into IPv6 counts as that IPv4 address.
    """
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return f"host:{host}"
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return f"ip:{address.ipv4_mapped}"
        return f"net:{ipaddress.IPv6Network((address, 64), strict=False)}"
    return f"ip:{address}"


class RateLimitError(BusyError):
    """Raised when a client asks for more than its rate allows.

    Args:
        message: what was refused and the limit it met.
        retry_after_s: when asking again may succeed (the answer's ``Retry-After``).
    """

    def __init__(self, message: str, retry_after_s: float | None = None) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


class ClientRate(abc.ABC):
    """A rate per client, ``burst`` requests at once and ``per_minute`` sustained.

    Counted in this process (:class:`RateLimiter`) or in a database that several
    servers share (:class:`snakewar.server.limits.SharedRateLimiter`): routes use this
    interface and get whichever the server has.
    """

    per_minute: float
    burst: int

    @abc.abstractmethod
    async def take(self, client: str) -> bool:
        """Take a token for ``client``; False if it has none left."""

    @abc.abstractmethod
    async def give_back(self, client: str) -> None:
        """Give back the token ``client`` took for a request refused after all."""

    @contextlib.asynccontextmanager
    async def counting(self, client: str, refusal: str) -> AsyncIterator[None]:
        """Take a token for ``client`` for the block; given back if the block fails.

        Raises:
            RateLimitError: with the message ``refusal``, if ``client`` has no token.
        """
        if not await self.take(client):
            raise RateLimitError(refusal)
        try:
            yield
        except BaseException:
            await self.give_back(client)
            raise


@dataclass
class RateLimiter(ClientRate):
    """A token bucket per client, in this process: ``burst`` at once, ``per_minute`` sustained.

    The limiter of a server whose database is its own (in memory): no other server
    can count with it.
    """

    per_minute: float = 30.0
    burst: int = 10
    _buckets: dict[str, tuple[float, float]] = field(default_factory=dict)

    async def take(self, client: str) -> bool:
        """:meth:`allow` (for :class:`ClientRate`)."""
        return self.allow(client)

    async def give_back(self, client: str) -> None:
        """:meth:`refund` (for :class:`ClientRate`)."""
        self.refund(client)

    def allow(self, client: str, now: float | None = None) -> bool:
        """Take a token for ``client``; False if it has none left."""
        now = time.monotonic() if now is None else now
        tokens, last = self._buckets.get(client, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - last) * self.per_minute / 60)
        if tokens < 1:
            self._buckets[client] = (tokens, now)
            return False
        self._buckets[client] = (tokens - 1, now)
        if len(self._buckets) > 10_000:  # forget idle clients; bounded memory
            cutoff = now - 3600
            self._buckets = {k: v for k, v in self._buckets.items() if v[1] > cutoff}
        return True

    @contextlib.contextmanager
    def counted(self, client: str, refusal: str) -> Iterator[None]:
        """Take a token for ``client`` for the block; given back if the block fails.

        Raises:
            RateLimitError: with the message ``refusal``, if ``client`` has no token.
        """
        if not self.allow(client):
            raise RateLimitError(refusal)
        try:
            yield
        except BaseException:
            self.refund(client)
            raise

    def refund(self, client: str) -> None:
        """Give back the token ``client`` took for a request that was refused after all.

        Only accepted requests count against a rate: a client whose requests fail
        (a bad snake, a full server) is not locked out by its own mistakes.
        """
        found = self._buckets.get(client)
        if found is not None:
            self._buckets[client] = (min(float(self.burst), found[0] + 1), found[1])


@dataclass(frozen=True, slots=True)
class Use:
    """One use a :class:`ClientBudget` counts: whose, and its row where it has one."""

    client: str
    row: int | None = None


class ClientBudget(abc.ABC):
    """A budget of uses per client over a sliding window, and uses at once per client.

    Counted in this process (:class:`UsageBudget`) or in a shared database
    (:class:`snakewar.server.limits.SharedUsageBudget`).
    """

    name: str
    per_window: int
    window_s: float
    at_once: int | None

    @abc.abstractmethod
    async def begin(self, client: str, what: str) -> Use:
        """Count one use by ``client`` that starts now (``what``: the use, in refusals).

        Raises:
            RateLimitError: past the window's budget or the uses at once.
        """

    @abc.abstractmethod
    async def end(self, use: Use) -> None:
        """The use ended (it stays counted in its window)."""

    @abc.abstractmethod
    async def cancel(self, use: Use) -> None:
        """The use was refused after all: it counts for nothing."""

    @contextlib.asynccontextmanager
    async def in_use(self, client: str, what: str) -> AsyncIterator[Use]:
        """:meth:`begin` for the block, :meth:`end` after it; cancelled if the block fails.

        Raises:
            RateLimitError: as :meth:`begin`.
        """
        use = await self.begin(client, what)
        try:
            yield use
        except BaseException:
            await self.cancel(use)
            raise
        await self.end(use)

    def refusal(
        self, what: str, going_on: int, recent: int, oldest: float | None, now: float
    ) -> RateLimitError | None:
        """The refusal of a use by a client with ``going_on`` and ``recent`` uses, or None."""
        if self.at_once is not None and going_on >= self.at_once:
            return RateLimitError(
                f"{what}: you have {going_on} going on, the most one user may have at once; "
                "wait for it to end",
                retry_after_s=10.0,
            )
        if recent >= self.per_window:
            wait = (now if oldest is None else oldest) + self.window_s - now
            minutes = max(1, math.ceil(wait / 60))
            return RateLimitError(
                f"{what}: you made {recent} in the last {_span(self.window_s)}, the most "
                f"one user may ({self.name}={self.per_window}); try again in {minutes} min",
                retry_after_s=wait,
            )
        return None


class UsageBudget(ClientBudget):
    """A budget of uses per client over a sliding window, and uses at once, in this process.

    What a rate per minute does not bound: an expensive use (a tester run makes
    hundreds of requests to a snake) a few times a minute, all hour long.  A client
    gets at most ``per_window`` uses in any ``window_s`` seconds and, with
    ``at_once``, at most that many going on together.

    Args:
        per_window: uses per window per client.
        window_s: the window, in seconds.
        at_once: uses going on at once per client (``None``: no bound).
        name: the limit's name in refusals (a setting an operator can change).
    """

    def __init__(
        self,
        per_window: int,
        window_s: float = 3600.0,
        *,
        at_once: int | None = None,
        name: str = "",
    ) -> None:
        self.per_window = per_window
        self.window_s = window_s
        self.at_once = at_once
        self.name = name
        self._uses: dict[str, collections.deque[float]] = {}
        self._active: dict[str, int] = {}

    def _recent(self, client: str, now: float) -> collections.deque[float]:
        uses = self._uses.setdefault(client, collections.deque())
        while uses and uses[0] <= now - self.window_s:
            uses.popleft()
        return uses

    def take(self, client: str, what: str, now: float | None = None) -> None:
        """Count one use by ``client`` that starts now (``what``: the use, in refusals).

        Call :meth:`done` when it ends (with ``at_once``).

        Raises:
            RateLimitError: past the window's budget or the uses at once, naming the
                limit and when to try again.
        """
        now = time.monotonic() if now is None else now
        active = self._active.get(client, 0)
        uses = self._recent(client, now)
        refused = self.refusal(what, active, len(uses), uses[0] if uses else None, now)
        if refused is not None:
            raise refused
        uses.append(now)
        self._active[client] = active + 1
        if len(self._uses) > 10_000:  # forget clients with no recent use: bounded memory
            self._uses = {k: v for k, v in self._uses.items() if v and v[-1] > now - self.window_s}

    def going_on(self, client: str) -> int:
        """How many uses of ``client``'s are going on now."""
        return self._active.get(client, 0)

    def done(self, client: str) -> None:
        """A use of ``client``'s ended (it stays counted in its window)."""
        left = self._active.get(client, 0) - 1
        if left > 0:
            self._active[client] = left
        else:
            self._active.pop(client, None)

    def refund(self, client: str) -> None:
        """Give back ``client``'s latest use: it was refused after all (and has ended)."""
        uses = self._uses.get(client)
        if uses:
            uses.pop()
        self.done(client)

    async def begin(self, client: str, what: str) -> Use:
        """:meth:`take` (for :class:`ClientBudget`)."""
        self.take(client, what)
        return Use(client)

    async def end(self, use: Use) -> None:
        """:meth:`done` (for :class:`ClientBudget`)."""
        self.done(use.client)

    async def cancel(self, use: Use) -> None:
        """:meth:`refund` (for :class:`ClientBudget`)."""
        self.refund(use.client)

    @contextlib.contextmanager
    def using(self, client: str, what: str) -> Iterator[None]:
        """:meth:`take` for the block, :meth:`done` after it; refunded if the block fails.

        Raises:
            RateLimitError: as :meth:`take`.
        """
        self.take(client, what)
        try:
            yield
        except BaseException:
            self.refund(client)
            raise
        self.done(client)


def _span(seconds: float) -> str:
    if seconds % 3600 == 0:
        hours = int(seconds // 3600)
        return "hour" if hours == 1 else f"{hours} hours"
    return f"{seconds:g} s"


MAX_BODY_BYTES = 1024 * 1024
"""The largest request body accepted, uploads excepted (they have their own caps)."""


class BodyLimitMiddleware:
    """Refuse (413) a request body past ``limit`` bytes, declared or streamed.

    ``larger`` gives some paths (uploads of bots) caps of their own.  Every route but
    the upload ones reads small JSON: without a cap, one request could
    make the server hold gigabytes before validation sees a byte.  A declared
    ``Content-Length`` past the cap is refused at once; a body that streams past it
    is cut off: the app reads a disconnect, and the client gets the 413.
    """

    def __init__(
        self,
        app: ASGIApp,
        limit: int = MAX_BODY_BYTES,
        exempt: tuple[str, ...] = (),
        larger: Mapping[str, int] | None = None,
    ) -> None:
        self.app = app
        self.limit = limit
        self.exempt = exempt
        self.larger = dict(larger or {})

    @staticmethod
    def _refusal(limit: int) -> JSONResponse:
        return JSONResponse(
            {"detail": f"request body is larger than {limit} bytes; expected at most that"},
            status_code=413,
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass the request on, counting its body's bytes."""
        if scope["type"] != "http" or scope["path"].startswith(self.exempt):
            await self.app(scope, receive, send)
            return
        limit = self.larger.get(scope["path"], self.limit)
        headers = dict(scope["headers"])
        declared = headers.get(b"content-length", b"").decode("latin-1")
        if declared.isdecimal() and int(declared) > limit:
            await self._refusal(limit)(scope, receive, send)
            return
        seen = 0
        refused = False
        responding = False

        async def counted_receive() -> Message:
            nonlocal seen, refused
            if refused:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    refused = True
                    if not responding:
                        await self._refusal(limit)(scope, receive, send)
                    return {"type": "http.disconnect"}
            return message

        async def app_send(message: Message) -> None:
            nonlocal responding
            if refused:  # the 413 went out: whatever the app answers is dropped
                return
            responding = True
            await send(message)

        await self.app(scope, counted_receive, app_send)


LOOPBACK_NAMES: Final = ("localhost", "127.0.0.1", "::1", "[::1]")
"""The names a local server answers to."""


class HostCheckMiddleware:
    """Answer 400 to a request whose ``Host`` is not one of the server's names.

    A local server listens on loopback, but a web page the user visits can still reach
    it through DNS rebinding (a name of the attacker's that now resolves to 127.0.0.1):
    the browser then sends the attacker's name as ``Host``, which this refuses.

    ``exempt`` paths (exactly those) are answered whatever the ``Host``: the health
    probes, which a proxy asks by the replica's address and which show a rebinding
    page nothing (a status, a replica id, the version) and change nothing.
    """

    def __init__(self, app: ASGIApp, hosts: tuple[str, ...], exempt: tuple[str, ...] = ()) -> None:
        self.app = app
        self.hosts = frozenset(h.lower() for h in hosts)
        self.exempt = frozenset(exempt)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass the request on, or answer 400 (close a websocket) for a foreign host."""
        if (
            scope["type"] not in ("http", "websocket")
            or not self.hosts
            or (scope["type"] == "http" and scope["path"] in self.exempt)
        ):
            await self.app(scope, receive, send)
            return
        host = ""
        for key, value in scope["headers"]:
            if key == b"host":
                host = value.decode("latin-1").lower()
                break
        name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
        if name not in self.hosts:
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1008})
                return
            response = JSONResponse(
                {"detail": f"host {host[:100]!r} is not a name of this server"}, status_code=400
            )
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)


_ENGINE_PATH: Final = re.compile(r"/games/[^/]+(/frames)?\Z")
_SLASHED_ENGINE_PATH: Final = re.compile(r"//+(games/[^/]+(/frames|/events)?)\Z")


class EngineCorsMiddleware:
    """CORS for the official board's read-only engine routes only (``GET /games/{id}...``).

    The official board (another origin) reads games through them; nothing else of the
    server is readable or writable from another site's pages.  Given an engine URL
    with a trailing slash (``engine=http://host:port/``) the board asks for
    ``//games/{id}...``: those paths are read as ``/games/{id}...``.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.cors = CORSMiddleware(app, allow_origins=["*"], allow_methods=["GET"])

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass the request on, through CORS on the engine routes."""
        if scope["type"] in ("http", "websocket"):
            slashed = _SLASHED_ENGINE_PATH.match(scope["path"])
            if slashed is not None:
                scope = {**scope, "path": "/" + slashed.group(1)}
                raw = scope.get("raw_path")
                if isinstance(raw, bytes):
                    scope["raw_path"] = b"/" + raw.lstrip(b"/")
        if scope["type"] == "http" and _ENGINE_PATH.match(scope["path"]):
            await self.cors(scope, receive, send)
        else:
            await self.app(scope, receive, send)
