"""The lean HTTP/1.1 transport against real TCP servers that misbehave in chosen ways.

Each server here is an asyncio TCP server on loopback that speaks just enough HTTP to
play its part, and counts the connections it accepts: keep-alive reuse, closing,
chunked and close-delimited bodies, compressed replies, a connection closed as a
request arrives, cancellation by the referee's deadline, refusal.
"""

from __future__ import annotations

import asyncio
import gzip
from collections.abc import Awaitable, Callable

import httpx
import pytest

from snakewar.referee.http11 import Http11Transport

Handler = Callable[[int, int, bytes], Awaitable[bytes | None]]
"""(connection number, request number on it, request bytes) -> reply bytes, or None: close."""


def reply(body: bytes, *headers: str, status: str = "200 OK") -> bytes:
    head = [f"HTTP/1.1 {status}", f"Content-Length: {len(body)}", *headers]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


class Server:
    """A loopback server answering each request with ``handler``; counts connections."""

    def __init__(self, handler: Handler, close_after_reply: bool = False) -> None:
        self.handler = handler
        self.close_after_reply = close_after_reply
        self.connections = 0
        self.closed = 0
        self.server: asyncio.Server | None = None

    async def __aenter__(self) -> Server:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self.server is not None
        self.server.close()

    @property
    def url(self) -> str:
        assert self.server is not None
        port = self.server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}"

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        number = self.connections
        try:
            for count in range(1, 1000):
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n"):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":")[1])
                body = await reader.readexactly(length)
                answer = await self.handler(number, count, head + body)
                if answer is None:
                    break
                writer.write(answer)
                await writer.drain()
                if self.close_after_reply:
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            self.closed += 1
            writer.close()


def run(test: Callable[[], Awaitable[None]]) -> None:
    asyncio.run(asyncio.wait_for(test(), 60))


def client(**limits: int) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=Http11Transport(httpx.Limits(**limits)), trust_env=False)


def test_calls_reuse_one_kept_alive_connection() -> None:
    async def ok(number: int, count: int, request: bytes) -> bytes:
        assert request.startswith(b"POST /move HTTP/1.1\r\n")
        assert request.endswith(b'{"turn":%d}' % count)
        return reply(b'{"move":"up"}', "Content-Type: application/json")

    async def test() -> None:
        async with Server(ok) as server, client() as http:
            for turn in range(1, 6):
                response = await http.post(server.url + "/move", content=b'{"turn":%d}' % turn)
                assert response.status_code == 200
                assert response.json() == {"move": "up"}
            assert server.connections == 1

    run(test)


def test_a_server_that_asks_to_close_gets_a_new_connection_each_call() -> None:
    async def closing(number: int, count: int, request: bytes) -> bytes:
        return reply(b"{}", "Connection: close")

    async def test() -> None:
        async with Server(closing) as server, client() as http:
            for _ in range(3):
                assert (await http.get(server.url)).status_code == 200
            assert server.connections == 3

    run(test)


def test_chunked_compressed_and_close_delimited_bodies_are_read_whole() -> None:
    body = b'{"move":"left","shout":"' + b"x" * 5000 + b'"}'

    async def varied(number: int, count: int, request: bytes) -> bytes:
        if b"/chunked" in request:
            chunks = b"".join(b"%x\r\n%s\r\n" % (len(part), part) for part in (body[:7], body[7:]))
            return b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + chunks + b"0\r\n\r\n"
        if b"/gzip" in request:
            return reply(gzip.compress(body), "Content-Encoding: gzip")
        return b"HTTP/1.0 200 OK\r\n\r\n" + body  # no length: it ends with the connection

    async def test() -> None:
        async with Server(varied) as server, client() as http:
            for path in ("/chunked", "/gzip", "/chunked"):
                response = await http.get(server.url + path)
                assert response.content == body, path
            assert server.connections == 1

    async def closing_server() -> None:
        async with Server(varied, close_after_reply=True) as server, client() as http:
            for _ in range(2):
                assert (await http.get(server.url + "/old")).content == body
            assert server.connections == 2

    run(test)
    run(closing_server)


def test_a_connection_closed_as_a_request_arrives_is_retried_once_on_a_new_one() -> None:
    async def drops_second(number: int, count: int, request: bytes) -> bytes | None:
        return None if count == 2 else reply(b"ok")

    async def test() -> None:
        async with Server(drops_second) as server, client() as http:
            assert (await http.post(server.url + "/move", content=b"1")).text == "ok"
            # The kept-alive connection is dropped on the second request: sent again.
            assert (await http.post(server.url + "/move", content=b"2")).text == "ok"
            assert server.connections == 2

    run(test)


def test_a_server_that_never_answers_is_a_protocol_error_not_a_retry_loop() -> None:
    async def silent(number: int, count: int, request: bytes) -> bytes | None:
        return None

    async def test() -> None:
        async with Server(silent) as server, client() as http:
            with pytest.raises(httpx.RemoteProtocolError):
                await http.get(server.url)
            assert server.connections == 1

    run(test)


def test_a_call_cut_by_a_deadline_closes_its_connection_and_the_next_one_works() -> None:
    async def slow_first(number: int, count: int, request: bytes) -> bytes:
        if number == 1:
            await asyncio.sleep(5)
        return reply(b"ok")

    async def test() -> None:
        async with Server(slow_first) as server, client() as http:
            with pytest.raises(TimeoutError):
                async with asyncio.timeout(0.2):
                    await http.get(server.url)
            # The late reply must never be read as the next call's: a new connection.
            assert (await http.get(server.url)).text == "ok"
            assert server.connections == 2

    run(test)


def test_a_reply_cut_short_while_streaming_is_not_reused() -> None:
    async def big(number: int, count: int, request: bytes) -> bytes:
        return reply(b"y" * 200_000)

    async def test() -> None:
        async with Server(big) as server, client() as http:
            async with http.stream("GET", server.url) as response:
                async for _ in response.aiter_bytes():
                    break  # the caller stops reading (a reply too large)
            assert (await http.get(server.url)).content == b"y" * 200_000
            assert server.connections == 2

    run(test)


def test_connection_refused_and_a_truncated_reply_are_httpx_errors() -> None:
    async def truncated(number: int, count: int, request: bytes) -> bytes | None:
        return b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nshort"

    async def test() -> None:
        async with Server(truncated, close_after_reply=True) as server, client() as http:
            with pytest.raises(httpx.ReadError):
                await http.get(server.url)
            url = server.url
        async with client() as http:
            with pytest.raises(httpx.ConnectError) as refused:
                await http.get(url)  # the server is gone: nothing listens
            # Games show the reason to everyone: never the address.
            assert "127.0.0.1" not in str(refused.value), str(refused.value)
            assert "refused" in str(refused.value).lower()

    run(test)


def test_idle_connections_are_capped() -> None:
    gate = asyncio.Event()

    async def held(number: int, count: int, request: bytes) -> bytes:
        await gate.wait()
        return reply(b"ok")

    async def test() -> None:
        async with Server(held) as server, client(max_keepalive_connections=1) as http:
            calls = [asyncio.create_task(http.get(server.url)) for _ in range(3)]
            while server.connections < 3:
                await asyncio.sleep(0.01)
            gate.set()
            assert [r.text for r in await asyncio.gather(*calls)] == ["ok"] * 3
            # Two of the three went over the cap of one idle connection: closed.
            while server.closed < 2:
                await asyncio.sleep(0.01)
            assert (await http.get(server.url)).text == "ok"
            assert server.connections == 3

    run(test)
