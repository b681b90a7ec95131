"""A lean HTTP/1.1 transport for the referee's calls to snakes.

The referee measures each snake's latency around its HTTP call, so whatever the
client spends on a call is counted against the snake.  httpx's default transport
(httpcore on anyio) spends about 0.35 ms of Python per call on a loopback round trip
of 0.1 ms; a snake answering in a fraction of a millisecond was reported several
times slower than it is (``benchmarks/referee_overhead.py`` measures it).

:class:`Http11Transport` is an :class:`httpx.AsyncBaseTransport` that sends plain
``http://`` requests over asyncio streams, with h11 (the HTTP/1.1 state machine
httpcore itself uses) for the protocol: the client above it, the bodies, the
exceptions and the address policy (:class:`~snakewar.referee.outbound.PolicyTransport`
wraps it) are unchanged.  ``https://`` requests go to httpx's own transport, whose
TLS handling is not ours to redo.

Connections are kept alive per host and port, at most ``max_keepalive_connections``
idle in all.  A connection is handed back to the pool only when its exchange ended
cleanly (both sides done, neither asked to close); a call that is cancelled (the
referee's deadline), cut short (a reply too large) or broken closes its connection.
A request that fails on a reused connection before a single byte of reply arrived is
sent once more on a new connection: the server closed an idle connection as the
request went out (what httpcore's pool guards against by polling the socket).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
from collections import OrderedDict
from collections.abc import AsyncIterator
from typing import Any

import h11
import httpx

__all__ = ["Http11Transport"]

_READ_SIZE = 65536


class _Connection:
    """One TCP connection and its HTTP/1.1 state."""

    __slots__ = ("key", "reader", "received", "state", "writer")

    def __init__(
        self, key: tuple[str, int], reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        self.key = key
        self.reader = reader
        self.writer = writer
        self.state = h11.Connection(h11.CLIENT)
        self.received = 0

    @property
    def reusable(self) -> bool:
        """Idle, both sides done, and not closed by the server meanwhile."""
        state = self.state
        return (
            state.our_state is h11.IDLE
            and state.their_state is h11.IDLE
            and not self.reader.at_eof()
            and not self.writer.is_closing()
        )

    async def next_event(self) -> Any:
        """The next h11 event, reading from the socket as needed."""
        while True:
            event = self.state.next_event()
            if event is not h11.NEED_DATA:
                return event
            data = await self.reader.read(_READ_SIZE)
            self.received += len(data)
            self.state.receive_data(data)

    def close(self) -> None:
        self.writer.close()


class _ReplyStream(httpx.AsyncByteStream):
    """A response body read from its connection; the connection goes back when it ends."""

    def __init__(self, connection: _Connection, transport: Http11Transport) -> None:
        self._connection: _Connection | None = connection
        self._transport = transport

    async def __aiter__(self) -> AsyncIterator[bytes]:
        connection = self._connection
        if connection is None:
            return
        try:
            while True:
                event = await connection.next_event()
                if isinstance(event, h11.Data):
                    yield bytes(event.data)
                elif isinstance(event, h11.EndOfMessage):
                    return
                else:  # pragma: no cover - h11 sends only Data then EndOfMessage here
                    raise httpx.RemoteProtocolError(f"unexpected {type(event).__name__}")
        except (OSError, h11.RemoteProtocolError) as exc:
            self._discard()
            raise httpx.ReadError(_reason(exc)) from exc
        except BaseException:
            self._discard()
            raise

    def _discard(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    async def aclose(self) -> None:
        connection, self._connection = self._connection, None
        if connection is None:
            return
        state = connection.state
        if state.our_state is h11.DONE and state.their_state is h11.DONE:
            try:
                state.start_next_cycle()
            except h11.LocalProtocolError:  # either side asked to close
                connection.close()
                return
            self._transport._release(connection)
        else:
            connection.close()


class Http11Transport(httpx.AsyncBaseTransport):
    """Plain-HTTP/1.1 requests over asyncio streams; ``https`` through httpx's transport.

    Args:
        limits: ``max_keepalive_connections`` caps the idle connections kept
            (the other limits apply to ``https`` only).
        **options: for the :class:`httpx.AsyncHTTPTransport` that carries ``https``.
    """

    def __init__(self, limits: httpx.Limits | None = None, **options: Any) -> None:
        limits = limits or httpx.Limits()
        self._max_idle = limits.max_keepalive_connections
        self._idle: OrderedDict[tuple[str, int], list[_Connection]] = OrderedDict()
        self._idle_count = 0
        self._tls_options = {"limits": limits, **options}
        self._tls: httpx.AsyncHTTPTransport | None = None

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Send ``request`` and return its response, its body still to be read."""
        url = request.url
        if url.scheme != "http":
            if self._tls is None:
                self._tls = httpx.AsyncHTTPTransport(**self._tls_options)
            return await self._tls.handle_async_request(request)
        key = (url.host, url.port or 80)
        content = b"".join([part async for part in request.stream])  # type: ignore[union-attr]
        connection = self._take(key)
        if connection is not None:
            try:
                return await self._exchange(connection, request, content)
            except _NothingRead:
                pass  # the server closed this idle connection: once more on a new one
        connection = await self._connect(key, request)
        try:
            return await self._exchange(connection, request, content)
        except _NothingRead as exc:
            raise httpx.RemoteProtocolError(
                "server disconnected without sending a response", request=request
            ) from exc.__cause__

    async def _connect(self, key: tuple[str, int], request: httpx.Request) -> _Connection:
        try:
            reader, writer = await asyncio.open_connection(key[0], key[1], limit=_READ_SIZE)
        except OSError as exc:
            raise httpx.ConnectError(_reason(exc), request=request) from exc
        sock = writer.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return _Connection(key, reader, writer)

    async def _exchange(
        self, connection: _Connection, request: httpx.Request, content: bytes
    ) -> httpx.Response:
        """Write the request, read the response's head; the body is read as it streams."""
        mark = connection.received
        try:
            state = connection.state
            target = request.url.raw_path
            head = h11.Request(
                method=request.method, target=target, headers=list(request.headers.raw)
            )
            data = state.send(head) or b""
            if content:
                data += state.send(h11.Data(data=content)) or b""
            data += state.send(h11.EndOfMessage()) or b""
            connection.writer.write(data)
            event = await self._response_head(connection, mark)
        except _NothingRead:
            connection.close()
            raise
        except (OSError, h11.RemoteProtocolError) as exc:
            connection.close()
            raise httpx.ReadError(_reason(exc), request=request) from exc
        except h11.LocalProtocolError as exc:
            connection.close()
            raise httpx.LocalProtocolError(str(exc), request=request) from exc
        except BaseException:
            connection.close()
            raise
        return httpx.Response(
            event.status_code,
            headers=event.headers.raw_items(),
            stream=_ReplyStream(connection, self),
            extensions={
                "http_version": b"HTTP/" + event.http_version,
                "reason_phrase": event.reason,
            },
        )

    async def _response_head(self, connection: _Connection, mark: int) -> Any:
        """The response's status line and headers (1xx informational replies skipped).

        Raises:
            _NothingRead: the connection ended before a byte of the response.
        """
        while True:
            try:
                event = await connection.next_event()
            except (ConnectionError, h11.RemoteProtocolError) as exc:
                if connection.received == mark:
                    raise _NothingRead from exc
                raise
            if isinstance(event, h11.InformationalResponse):
                continue
            if isinstance(event, h11.Response):
                return event
            if connection.received == mark:
                raise _NothingRead
            raise h11.RemoteProtocolError("server disconnected without sending a response")

    def _take(self, key: tuple[str, int]) -> _Connection | None:
        idle = self._idle.get(key)
        while idle:
            connection = idle.pop()
            self._idle_count -= 1
            if connection.reusable:
                return connection
            connection.close()
        return None

    def _release(self, connection: _Connection) -> None:
        if self._max_idle is not None and self._idle_count >= self._max_idle:
            # Close the connection idle the longest (the front of the oldest host's list).
            oldest_key = next(iter(self._idle))
            oldest = self._idle[oldest_key]
            oldest.pop(0).close()
            self._idle_count -= 1
            if not oldest:
                del self._idle[oldest_key]
        self._idle.setdefault(connection.key, []).append(connection)
        self._idle.move_to_end(connection.key)
        self._idle_count += 1

    async def aclose(self) -> None:
        """Close every connection."""
        for connections in self._idle.values():
            for connection in connections:
                connection.close()
        self._idle.clear()
        self._idle_count = 0
        if self._tls is not None:
            await self._tls.aclose()


def _reason(exc: BaseException) -> str:
    """Why a connection failed, without the address: games show it to everyone.

    asyncio's own texts name the address (``Connect call failed ('10.0.0.5', 8000)``),
    which a public server must not show: the system's text for the error number is
    enough (``[Errno 111] Connection refused``).
    """
    if isinstance(exc, OSError):
        if exc.errno:
            return f"[Errno {exc.errno}] {os.strerror(exc.errno)}"
        return type(exc).__name__
    return str(exc) or type(exc).__name__


class _NothingRead(Exception):
    """A connection ended before any byte of the response."""
