"""Talking to snakes: over HTTP (API v1, API v0 and the legacy 2017/2018 APIs) or in-process.

Every client turns whatever a snake does into a :class:`CallOutcome`: a timeout,
a refused or reset connection, a non-200 status, a body that is too large, not
JSON, or holds no valid move.  Nothing a snake does raises, except at
:meth:`SnakeClient.info` time (before a game), where an unreachable snake is an
error the user must hear about (:class:`SnakeUnreachableError`).

Time limits cover the whole call, from connecting to reading the last byte, as in
the official engine; a snake that hangs costs the game at most the timeout.
"""

from __future__ import annotations

import asyncio
import hashlib
import ipaddress
import json
import re
import time
from collections.abc import Mapping
from typing import Any, Protocol
from urllib.parse import urlsplit, urlunsplit

import httpx

from snakewar import __version__
from snakewar.engine.protocol import OutboundPolicy
from snakewar.errors import EntrantError, SnakewarError, WireFormatError
from snakewar.games.battlesnake.bots.base import Bot, SnakeMetadata
from snakewar.games.battlesnake.records import CallOutcome, CallStatus
from snakewar.games.battlesnake.rules.wire import (
    MAX_SHOUT_LENGTH,
    MoveReply,
    SnakeRequest,
    move_reply_from_api,
)
from snakewar.referee.http11 import Http11Transport
from snakewar.referee.outbound import Resolver, new_policy_client, system_resolver
from snakewar.referee.transcript import current_exchange

__all__ = [
    "MAX_REPLY_BYTES",
    "MAX_URL_LENGTH",
    "V0_HEADS",
    "V0_TAILS",
    "HttpSnakeClient",
    "InProcessClient",
    "LegacySnakeClient",
    "SnakeClient",
    "SnakeURLError",
    "SnakeUnreachableError",
    "V0SnakeClient",
    "check_url",
    "new_http_client",
    "v0_start_reply",
]

MAX_REPLY_BYTES = 64 * 1024
"""Largest reply body read from a snake; a move reply is a few dozen bytes."""

MIN_INFO_TIMEOUT_MS = 2000
"""``GET /`` before a game waits at least this long: servers may be cold."""


class SnakeUnreachableError(SnakewarError, ConnectionError):
    """Raised before a game when a snake's URL cannot be reached or answers nonsense."""


class SnakeClient(Protocol):
    """One snake, as the referee sees it.  One client per snake per game."""

    source: str
    """What the user gave: a URL, ``v0:URL``, ``legacy:URL`` or ``builtin:NAME``."""

    async def info(self) -> SnakeMetadata:
        """Fetch the snake's metadata (``GET /``).

        Raises:
            SnakeUnreachableError: if the snake cannot be reached or its reply is invalid.
        """
        ...

    async def start(self, request: SnakeRequest) -> CallOutcome:
        """Send ``/start``; the reply is ignored."""
        ...

    async def move(self, request: SnakeRequest) -> CallOutcome:
        """Ask for a move.  ``outcome.move`` is empty unless the reply was valid."""
        ...

    async def end(self, request: SnakeRequest) -> CallOutcome:
        """Send ``/end``; the reply is ignored."""
        ...


def new_http_client(
    policy: OutboundPolicy | None = None, resolver: Resolver = system_resolver
) -> httpx.AsyncClient:
    """The shared HTTP client: connection reuse, no redirects, our timeouts only.

    With a ``policy`` that limits addresses (a public server), every connection goes
    through :class:`~snakewar.referee.outbound.PolicyTransport`: the name is resolved
    once, every address checked, and the connection made to the checked address.

    Proxy settings from the environment are ignored (``trust_env=False``): a proxy
    between the referee and a snake would add to the snake's measured latency,
    and snakes on loopback must never be sent through one.
    """
    options: dict[str, Any] = {
        "timeout": None,  # every call is bounded by the referee's own deadline
        "follow_redirects": False,
        "trust_env": False,
        "limits": httpx.Limits(max_connections=None, max_keepalive_connections=256),
        "headers": {"User-Agent": f"snakewar/{__version__}", "Content-Type": "application/json"},
    }
    if policy is not None and policy.public_only:
        return new_policy_client(policy, resolver, **options)
    # The lean transport: what httpx's own spends on a call is counted as the snake's.
    return httpx.AsyncClient(transport=Http11Transport(limits=options.pop("limits")), **options)


MAX_URL_LENGTH = 2048
"""The longest snake URL accepted (characters)."""

_HOST_LABEL = re.compile(r"[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?\Z")
_URL_CHARS = re.compile(r"[!-~]+\Z")  # printable ASCII: no space, no control, no DEL


class SnakeURLError(EntrantError):
    """Raised for a snake URL outside the accepted grammar (see :func:`check_url`)."""


def _cut(text: str, most: int) -> str:
    # Error messages name the bad value, never echo a huge one whole.
    return text if len(text) <= most else text[:most] + "..."


def _bad_url(url: str, why: str) -> SnakeURLError:
    return SnakeURLError(
        f"snake URL {_cut(url, 100)!r} {why}; expected http(s)://HOST[:PORT][/PATH]"
    )


def check_url(url: str) -> str:
    """Check ``url`` against the one grammar every snake URL follows; return it.

    ``http`` or ``https``; printable ASCII only (no space or control character);
    at most :data:`MAX_URL_LENGTH` characters; no ``user:password@``; a host that is
    an IP literal or a DNS name (253 characters at most) of labels of 1 to 63 letters,
    digits, inner hyphens and underscores (container names have them); a port from 1
    to 65535 if given.

    Raises:
        SnakeURLError: naming the URL and what is wrong.
    """
    if len(url) > MAX_URL_LENGTH:
        raise _bad_url(url, f"is longer than {MAX_URL_LENGTH} characters")
    if not _URL_CHARS.match(url):
        raise _bad_url(url, "holds a space, a control or a non-ASCII character")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise _bad_url(url, f"is malformed ({exc})") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise _bad_url(url, "is malformed")
    if "@" in parts.netloc:
        raise _bad_url(url, "carries a user name or password")
    if port == 0:
        raise _bad_url(url, "has port 0")
    host = parts.hostname
    if parts.netloc.startswith("["):
        try:
            ipaddress.IPv6Address(host.split("%")[0])
        except ValueError:
            raise _bad_url(url, f"has an IPv6 host {_cut(host, 60)!r} that is no address") from None
    else:
        labels = host.removesuffix(".").split(".")
        if len(host) > 253 or not all(_HOST_LABEL.match(label) for label in labels):
            raise _bad_url(url, f"has a host {_cut(host, 60)!r} that is no DNS name or IP address")
    return url


def _join(url: str, name: str) -> str:
    # The reference joins with path.Join(url.Path, name): "/a/" + "move" -> "/a/move".
    parts = urlsplit(url)
    path = parts.path.rstrip("/") + "/" + name if name else (parts.path or "/")
    return urlunsplit((parts.scheme, parts.netloc, path, parts.query, ""))


class _Reply:
    __slots__ = ("body", "error", "http_status", "latency_ms", "status")

    def __init__(
        self,
        status: CallStatus,
        latency_ms: int,
        http_status: int | None = None,
        body: bytes = b"",
        error: str = "",
    ) -> None:
        self.status = status
        self.latency_ms = latency_ms
        self.http_status = http_status
        self.body = body
        self.error = error

    def outcome(self, move: str = "", shout: str = "") -> CallOutcome:
        return CallOutcome(self.status, self.latency_ms, self.http_status, self.error, move, shout)


async def _call(
    http: httpx.AsyncClient,
    method: str,
    url: str,
    body: Mapping[str, Any] | None,
    timeout_ms: int,
    max_bytes: int = MAX_REPLY_BYTES,
) -> _Reply:
    """One HTTP call under one deadline; every failure becomes a status.

    Inside :func:`~snakewar.referee.transcript.capturing`, the bytes sent and read
    (up to ``max_bytes``, whatever the status) are kept for the request inspector.
    """
    content = None if body is None else json.dumps(body, separators=(",", ":")).encode()
    chunks: list[bytes] = []
    exchange = current_exchange()
    if exchange is not None:
        exchange.request = content
    try:
        return await _timed_call(http, method, url, content, timeout_ms, max_bytes, chunks)
    finally:
        if exchange is not None:
            exchange.reply = b"".join(chunks)


async def _timed_call(
    http: httpx.AsyncClient,
    method: str,
    url: str,
    content: bytes | None,
    timeout_ms: int,
    max_bytes: int,
    chunks: list[bytes],
) -> _Reply:
    started = time.perf_counter()

    def elapsed() -> int:
        return round((time.perf_counter() - started) * 1000)

    http_status: int | None = None
    try:
        async with asyncio.timeout(timeout_ms / 1000):
            async with http.stream(method, url, content=content) as response:
                http_status = response.status_code
                size = 0
                async for chunk in response.aiter_bytes():
                    size += len(chunk)
                    if size > max_bytes:
                        return _Reply(
                            CallStatus.TOO_LARGE,
                            elapsed(),
                            http_status,
                            error=f"reply larger than {max_bytes} bytes",
                        )
                    chunks.append(chunk)
    except TimeoutError:
        return _Reply(
            CallStatus.TIMEOUT,
            timeout_ms,
            http_status,
            error=f"no complete reply within {timeout_ms} ms",
        )
    except httpx.HTTPError as exc:
        return _Reply(
            CallStatus.CONNECTION_ERROR,
            elapsed(),
            http_status,
            error=f"{type(exc).__name__}: {exc}"[:200] or type(exc).__name__,
        )
    latency = elapsed()
    if http_status != 200:
        return _Reply(
            CallStatus.HTTP_STATUS, latency, http_status, error=f"HTTP status {http_status}"
        )
    return _Reply(CallStatus.OK, latency, http_status, b"".join(chunks))


def _parse_json(reply: _Reply) -> Any:
    """Decode a reply body; on failure turn ``reply`` into a BAD_JSON reply."""
    try:
        return json.loads(reply.body)
    except (ValueError, UnicodeDecodeError) as exc:
        reply.status = CallStatus.BAD_JSON
        reply.error = f"reply is not JSON ({exc})"[:200]
        return None


def _move_outcome(reply: _Reply) -> CallOutcome:
    if reply.status is not CallStatus.OK:
        return reply.outcome()
    data = _parse_json(reply)
    if reply.status is not CallStatus.OK:
        return reply.outcome()
    try:
        parsed = move_reply_from_api(data)
    except WireFormatError as exc:
        reply.status = CallStatus.INVALID_MOVE
        reply.error = str(exc)[:200]
        return reply.outcome()
    return reply.outcome(parsed.move, parsed.shout)


class HttpSnakeClient:
    """A snake speaking API v1 over HTTP."""

    def __init__(
        self,
        url: str,
        http: httpx.AsyncClient,
        timeout_ms: int = 500,
        max_reply_bytes: int = MAX_REPLY_BYTES,
    ) -> None:
        self.source = check_url(url)
        self.url = url
        self._http = http
        self.timeout_ms = timeout_ms
        self.max_reply_bytes = max_reply_bytes

    @property
    def http(self) -> httpx.AsyncClient:
        """The HTTP client its calls go through (with its address policy)."""
        return self._http

    async def info(self) -> SnakeMetadata:
        """``GET /``: the snake's metadata.

        Raises:
            SnakeUnreachableError: on any failure, naming the URL and the problem.
        """
        reply = await _call(
            self._http,
            "GET",
            _join(self.url, ""),
            None,
            max(self.timeout_ms, MIN_INFO_TIMEOUT_MS),
            self.max_reply_bytes,
        )
        if reply.status is CallStatus.OK:
            data = _parse_json(reply)
            if reply.status is CallStatus.OK:
                try:
                    return SnakeMetadata.from_api(data)
                except WireFormatError as exc:
                    raise SnakeUnreachableError(
                        f"snake {self.url}: GET / gave an invalid reply ({exc})"
                    ) from None
        raise SnakeUnreachableError(f"snake {self.url}: GET / failed ({reply.error})")

    async def start(self, request: SnakeRequest) -> CallOutcome:
        """``POST /start``."""
        return (await self._post("start", request.to_api())).outcome()

    async def move(self, request: SnakeRequest) -> CallOutcome:
        """``POST /move``."""
        return _move_outcome(await self._post("move", request.to_api()))

    async def end(self, request: SnakeRequest) -> CallOutcome:
        """``POST /end``."""
        return (await self._post("end", request.to_api())).outcome()

    async def _post(self, name: str, body: Mapping[str, Any]) -> _Reply:
        return await _call(
            self._http, "POST", _join(self.url, name), body, self.timeout_ms, self.max_reply_bytes
        )


class LegacySnakeClient:
    """A snake speaking the 2017 or 2018 API, translated from API v1 requests.

    Differences the adapter bridges:

    * 2017 and 2018 put the origin at the top left (``y`` grows downwards), API v1
      at the bottom left: ``y`` is mirrored.  Move names keep their on-screen
      meaning, so ``"up"`` needs no translation.
    * There is no ``GET /``: the snake's name, colour and head/tail types come from
      its ``/start`` reply; ``taunt`` plays the role of ``shout``.
    * 2018 wraps lists and points as ``{"object": "list", "data": [...]}`` and
      ``{"object": "point", "x", "y"}``, and game ids are integers; 2017 uses
      ``[x, y]`` pairs, ``health_points`` and ``you`` as an id.
    """

    def __init__(
        self,
        url: str,
        http: httpx.AsyncClient,
        timeout_ms: int = 500,
        api: int = 2018,
        max_reply_bytes: int = MAX_REPLY_BYTES,
    ) -> None:
        if api not in (2017, 2018):
            raise ValueError(f"legacy API {api!r}: expected 2017 or 2018")
        self.source = f"legacy{api}:{check_url(url)}"
        self.url = url
        self.api = api
        self._http = http
        self.timeout_ms = timeout_ms
        self.max_reply_bytes = max_reply_bytes
        self.metadata = SnakeMetadata(apiversion=str(api))
        self.name = ""

    async def info(self) -> SnakeMetadata:
        """Check that the server answers at all (legacy snakes have no ``GET /``).

        Raises:
            SnakeUnreachableError: if nothing answers at the URL.
        """
        reply = await _call(
            self._http,
            "GET",
            _join(self.url, ""),
            None,
            max(self.timeout_ms, MIN_INFO_TIMEOUT_MS),
            self.max_reply_bytes,
        )
        # Any HTTP answer (404 included) proves a server is there.
        if reply.status in (CallStatus.CONNECTION_ERROR, CallStatus.TIMEOUT):
            raise SnakeUnreachableError(f"snake {self.url}: not reachable ({reply.error})")
        return self.metadata

    def _game_id(self, request: SnakeRequest) -> int | str:
        if self.api == 2017:
            return request.game.id
        # 2018 game ids were integers; derive a stable one from ours.
        digest = hashlib.sha256(request.game.id.encode()).digest()
        return int.from_bytes(digest[:4], "big")

    def _point(self, x: int, y: int, height: int) -> Any:
        if self.api == 2017:
            return [x, height - 1 - y]
        return {"object": "point", "x": x, "y": height - 1 - y}

    def _snake(self, request: SnakeRequest, snake_id: str) -> dict[str, Any]:
        snake = request.you if snake_id == request.you.id else request.board.snake(snake_id)
        info = request.infos.get(snake_id)
        name = info.name if info else snake_id
        taunt = info.shout if info else ""
        h = request.board.height
        points = [self._point(p.x, p.y, h) for p in snake.body]
        if self.api == 2017:
            return {
                "id": snake.id,
                "name": name,
                "health_points": snake.health,
                "coords": points,
                "taunt": taunt,
            }
        return {
            "object": "snake",
            "id": snake.id,
            "name": name,
            "taunt": taunt,
            "health": snake.health,
            "length": len(points),
            "body": {"object": "list", "data": points},
        }

    def world(self, request: SnakeRequest) -> dict[str, Any]:
        """The legacy ``/move`` body for ``request``."""
        board = request.board
        h = board.height
        snakes = [self._snake(request, s.id) for s in board.snakes]
        food = [self._point(p.x, p.y, h) for p in board.food]
        if self.api == 2017:
            return {
                "game_id": self._game_id(request),
                "turn": request.turn,
                "width": board.width,
                "height": board.height,
                "snakes": snakes,
                "food": food,
                "you": request.you.id,
                "dead_snakes": [],
            }
        return {
            "object": "world",
            "id": self._game_id(request),
            "width": board.width,
            "height": board.height,
            "turn": request.turn,
            "snakes": {"object": "list", "data": snakes},
            "food": {"object": "list", "data": food},
            "you": self._snake(request, request.you.id),
        }

    async def start(self, request: SnakeRequest) -> CallOutcome:
        """``POST /start`` with ``{game_id, width, height}``; the reply names the snake."""
        body = {
            "game_id": self._game_id(request),
            "width": request.board.width,
            "height": request.board.height,
        }
        reply = await _call(
            self._http,
            "POST",
            _join(self.url, "start"),
            body,
            self.timeout_ms,
            self.max_reply_bytes,
        )
        if reply.status is CallStatus.OK:
            data = _parse_json(reply)
            if isinstance(data, dict):
                self._read_start(data)
        return reply.outcome()

    def _read_start(self, data: Mapping[str, Any]) -> None:
        def text(key: str) -> str:
            value = data.get(key)
            return value[:256] if isinstance(value, str) else ""

        color = text("color")
        # Accept 2018's "#rrggbb" and the #rgb shorthand some 2017 snakes sent.
        if len(color) == 4 and color.startswith("#"):
            color = "#" + "".join(c * 2 for c in color[1:])
        meta = SnakeMetadata.from_api(
            {
                "apiversion": str(self.api),
                "color": color,
                "head": text("head_type"),
                "tail": text("tail_type"),
            }
        )
        self.metadata = meta
        self.name = text("name")

    async def move(self, request: SnakeRequest) -> CallOutcome:
        """``POST /move`` with the legacy world; ``taunt`` becomes the shout."""
        reply = await _call(
            self._http,
            "POST",
            _join(self.url, "move"),
            self.world(request),
            self.timeout_ms,
            self.max_reply_bytes,
        )
        if reply.status is not CallStatus.OK:
            return reply.outcome()
        data = _parse_json(reply)
        if reply.status is not CallStatus.OK:
            return reply.outcome()
        if isinstance(data, dict) and "shout" not in data and isinstance(data.get("taunt"), str):
            data = {"move": data.get("move"), "shout": data["taunt"]}
        try:
            parsed = move_reply_from_api(data)
        except WireFormatError as exc:
            reply.status = CallStatus.INVALID_MOVE
            reply.error = str(exc)[:200]
            return reply.outcome()
        return reply.outcome(parsed.move, parsed.shout)

    async def end(self, request: SnakeRequest) -> CallOutcome:
        """``POST /end`` (2018 had one; 2017 snakes simply answer 404, which is recorded)."""
        return (
            await _call(
                self._http,
                "POST",
                _join(self.url, "end"),
                self.world(request),
                self.timeout_ms,
                self.max_reply_bytes,
            )
        ).outcome()


V0_HEADS = (
    "beluga",
    "bendr",
    "dead",
    "evil",
    "fang",
    "pixel",
    "regular",
    "safe",
    "sand-worm",
    "shades",
    "silly",
    "smile",
    "tongue",
)
"""The ``headType`` names API v0 offered (``regular`` is API v1's ``default``), as the
typed snakes and SDKs of 2019-2020 list them."""

V0_TAILS = (
    "block-bum",
    "bolt",
    "curled",
    "fat-rattle",
    "freckled",
    "hook",
    "pixel",
    "regular",
    "round-bum",
    "sharp",
    "skinny",
    "small-rattle",
)
"""The ``tailType`` names API v0 offered (``regular`` is API v1's ``default``)."""


_V0_COLOR = re.compile(r"#[0-9a-fA-F]{6}\Z")
_V0_SHORT_COLOR = re.compile(r"#[0-9a-fA-F]{3}\Z")


def _v0_part(value: Any, key: str, names: tuple[str, ...], notes: list[str]) -> str:
    """One ``headType``/``tailType``: our name for it; a problem becomes a note."""
    if value is None or value == "":
        return "default"
    if not isinstance(value, str):
        notes.append(f"{key!r} is {_cut(repr(value), 60)}, expected a string (default used)")
        return "default"
    name = value.strip().lower()[:256]
    if name not in names:
        notes.append(f"{key!r} {_cut(value, 60)!r} is not an API v0 {key} (drawn as default)")
        return name or "default"
    # API v1 renamed v0's "regular" to "default"; every other v0 name kept its name.
    return "default" if name == "regular" else name


def v0_start_reply(data: Any) -> tuple[SnakeMetadata, tuple[str, ...]]:
    """Read an API v0 ``/start`` reply: the snake's looks, and what was wrong with it.

    The reply is ``{"color": "#rrggbb", "headType": NAME, "tailType": NAME}``, every
    field optional.  Nothing in it fails a game: a bad colour becomes ``#888888``,
    ``regular`` becomes ``default`` (its API v1 name), and each problem is a note.
    """
    notes: list[str] = []
    if not isinstance(data, dict):
        notes.append(f"reply is not a JSON object (got {type(data).__name__}): default looks used")
        return SnakeMetadata(apiversion="0"), tuple(notes)
    color = data.get("color")
    shown = "#888888"
    if isinstance(color, str) and color:
        # The #rgb shorthand was accepted by browsers, so some snakes sent it.
        full = "#" + "".join(c * 2 for c in color[1:]) if _V0_SHORT_COLOR.match(color) else color
        if _V0_COLOR.match(full):
            shown = full
        else:
            notes.append(f"'color' {_cut(color, 60)!r} is not #rrggbb (shown as #888888)")
    elif color is not None:
        notes.append(f"'color' is {_cut(repr(color), 60)}, expected a string (shown as #888888)")
    head = _v0_part(data.get("headType"), "headType", V0_HEADS, notes)
    tail = _v0_part(data.get("tailType"), "tailType", V0_TAILS, notes)
    return SnakeMetadata(apiversion="0", color=shown, head=head, tail=tail), tuple(notes)


class V0SnakeClient:
    """A snake speaking API v0 (2019 to mid-2020), translated from API v1 requests.

    What API v0 is, from the public record (the deprecated "Battlesnake API (v0)"
    page and the "Migrating to API Version 1" guide of BattlesnakeOfficial/docs-old,
    the 2019 engine's ``buildSnakeRequest`` in battlesnakeio/engine, and the
    starter snakes of that time, e.g. BattlesnakeOfficial/starter-snake-python
    before May 2020):

    * ``POST /ping``: a keep-alive; any 200 will do, the body is ignored.  There is
      no ``GET /``: the snake's looks come from its ``/start`` reply.
    * ``POST /start``, ``/move`` and ``/end`` all carry
      ``{"game": {"id"}, "turn", "board": {"height", "width", "food", "snakes"},
      "you"}``, each snake ``{"id", "name", "health", "body", "shout"}`` with points
      ``{"x", "y"}``.  There is no ruleset, timeout, hazards, head, length,
      latency or squad: a v0 snake cannot be told about hazards or wrapped boards.
      ``shout`` came with the 2020 engine (the 2019 one had none); it is sent, since
      the snakes of 2020 read it and older ones ignore it.
    * The origin is the top left corner and ``y`` grows downwards (v1 mirrored it),
      so ``y`` is mirrored here; move names keep their on-screen meaning.
    * ``/start`` answers ``{"color", "headType", "tailType"}`` (see
      :func:`v0_start_reply`); ``/move`` answers ``{"move", "shout"}`` as in v1;
      the ``/end`` reply is ignored.
    """

    def __init__(
        self,
        url: str,
        http: httpx.AsyncClient,
        timeout_ms: int = 500,
        max_reply_bytes: int = MAX_REPLY_BYTES,
    ) -> None:
        self.source = f"v0:{check_url(url)}"
        self.url = url
        self._http = http
        self.timeout_ms = timeout_ms
        self.max_reply_bytes = max_reply_bytes
        self.metadata = SnakeMetadata(apiversion="0")
        self.start_notes: tuple[str, ...] = ()
        """What was wrong with the last ``/start`` reply (see :func:`v0_start_reply`)."""

    async def _post(self, name: str, body: Mapping[str, Any] | None, timeout_ms: int) -> _Reply:
        return await _call(
            self._http, "POST", _join(self.url, name), body, timeout_ms, self.max_reply_bytes
        )

    async def ping(self) -> CallOutcome:
        """``POST /ping`` (no body), under the metadata timeout: servers may be cold."""
        return (await self._post("ping", None, max(self.timeout_ms, MIN_INFO_TIMEOUT_MS))).outcome()

    async def info(self) -> SnakeMetadata:
        """Check that the server answers ``POST /ping`` at all (v0 has no ``GET /``).

        Raises:
            SnakeUnreachableError: if nothing answers at the URL.
        """
        outcome = await self.ping()
        # Any HTTP answer proves a server is there: a missing /ping never stopped a game.
        if outcome.status in (CallStatus.CONNECTION_ERROR, CallStatus.TIMEOUT):
            raise SnakeUnreachableError(f"snake {self.url}: POST /ping failed ({outcome.error})")
        return self.metadata

    @staticmethod
    def _snake(snake_id: str, request: SnakeRequest) -> dict[str, Any]:
        snake = request.you if snake_id == request.you.id else request.board.snake(snake_id)
        info = request.infos.get(snake_id)
        h = request.board.height
        return {
            "id": snake.id,
            "name": info.name if info and info.name else snake.id,
            "health": snake.health,
            "body": [{"x": p.x, "y": h - 1 - p.y} for p in snake.body],
            "shout": info.shout[:MAX_SHOUT_LENGTH] if info else "",
        }

    def body(self, request: SnakeRequest) -> dict[str, Any]:
        """The API v0 body of ``request`` (the same for ``/start``, ``/move`` and ``/end``)."""
        board = request.board
        h = board.height
        return {
            "game": {"id": request.game.id},
            "turn": request.turn,
            "board": {
                "height": board.height,
                "width": board.width,
                "food": [{"x": p.x, "y": h - 1 - p.y} for p in board.food],
                "snakes": [
                    self._snake(s.id, request) for s in board.snakes if not s.eliminated_cause
                ],
            },
            "you": self._snake(request.you.id, request),
        }

    async def start(self, request: SnakeRequest) -> CallOutcome:
        """``POST /start``; the reply sets the snake's colour, head and tail."""
        reply = await self._post("start", self.body(request), self.timeout_ms)
        if reply.status is CallStatus.OK:
            # A /start reply that is not JSON still counts as an answer: the looks
            # are a courtesy, and the engine fell back to default ones.
            try:
                data = json.loads(reply.body)
            except (ValueError, UnicodeDecodeError):
                self.metadata = SnakeMetadata(apiversion="0")
                self.start_notes = ("reply is not JSON: default looks used",)
            else:
                self.metadata, self.start_notes = v0_start_reply(data)
        return reply.outcome()

    async def move(self, request: SnakeRequest) -> CallOutcome:
        """``POST /move``: ``{"move", "shout"}`` as in API v1."""
        return _move_outcome(await self._post("move", self.body(request), self.timeout_ms))

    async def end(self, request: SnakeRequest) -> CallOutcome:
        """``POST /end``; the reply is ignored."""
        return (await self._post("end", self.body(request), self.timeout_ms)).outcome()


class InProcessClient:
    """A :class:`~snakewar.games.battlesnake.bots.base.Bot` played in this process, without HTTP.

    Calls run in a worker thread so that a slow bot never blocks the event loop
    (other snakes' replies keep being read on time).  A call that takes longer than
    the game's timeout counts as a timeout, as it would over HTTP; an exception in
    the bot is a ``bot-error`` status.
    """

    def __init__(self, bot: Bot, source: str, timeout_ms: int = 500) -> None:
        self.bot = bot
        self.source = source
        self.timeout_ms = timeout_ms

    async def info(self) -> SnakeMetadata:
        """The bot's metadata."""
        return self.bot.info()

    async def _run(self, fn: Any, request: SnakeRequest) -> tuple[CallOutcome, Any]:
        started = time.perf_counter()
        try:
            async with asyncio.timeout(self.timeout_ms / 1000):
                value = await asyncio.to_thread(fn, request)
        except TimeoutError:
            return CallOutcome(
                CallStatus.TIMEOUT,
                self.timeout_ms,
                error=f"no reply within {self.timeout_ms} ms",
            ), None
        except Exception as exc:  # a bot's bug is data about the bot, not a referee crash
            return CallOutcome(
                CallStatus.BOT_ERROR,
                round((time.perf_counter() - started) * 1000),
                error=f"{type(exc).__name__}: {exc}"[:200],
            ), None
        return CallOutcome(latency_ms=round((time.perf_counter() - started) * 1000)), value

    async def start(self, request: SnakeRequest) -> CallOutcome:
        """Call the bot's ``start``."""
        return (await self._run(self.bot.start, request))[0]

    async def move(self, request: SnakeRequest) -> CallOutcome:
        """Call the bot's ``move`` and validate its answer like an HTTP reply."""
        outcome, value = await self._run(self.bot.move, request)
        if not outcome.ok:
            return outcome
        reply = value if isinstance(value, MoveReply) else MoveReply(value)
        try:
            parsed = move_reply_from_api({"move": reply.move, "shout": reply.shout})
        except WireFormatError as exc:
            return CallOutcome(CallStatus.INVALID_MOVE, outcome.latency_ms, error=str(exc)[:200])
        return CallOutcome(
            latency_ms=outcome.latency_ms,
            move=parsed.move,
            shout=parsed.shout[:MAX_SHOUT_LENGTH],
        )

    async def end(self, request: SnakeRequest) -> CallOutcome:
        """Call the bot's ``end``."""
        return (await self._run(self.bot.end, request))[0]
