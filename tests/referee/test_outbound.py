"""The outbound address policy on every connection: resolve once, check, pin the address."""

from __future__ import annotations

import asyncio
import datetime as dt
import ipaddress
import ssl
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from fastapi.testclient import TestClient

from snakewar.games.battlesnake.records import CallStatus
from snakewar.games.battlesnake.referee.clients import HttpSnakeClient, new_http_client
from snakewar.referee.addresses import AddressPolicy, address_problem
from snakewar.referee.outbound import AddressRefusedError, check_host, new_policy_client
from snakewar.server.app import create_app
from snakewar.server.config import ServerConfig
from snakewar.storage import Store
from tests.asgi_server import serve
from tests.games.battlesnake.referee.counting_snake import CountingSnake, counting_snake
from tests.server.accounts import make_user

PUBLIC = AddressPolicy(public_only=True)


@pytest.mark.parametrize(
    ("address", "problem"),
    [
        ("8.8.8.8", None),
        ("1.1.1.1", None),
        ("2606:4700:4700::1111", None),
        ("2001:4860:4860::8888", None),
        ("127.0.0.1", "loopback"),
        ("127.255.255.254", "loopback"),
        ("0.0.0.0", "unspecified"),
        ("10.1.2.3", "private"),
        ("172.16.0.1", "private"),
        ("192.168.1.1", "private"),
        ("169.254.169.254", "link-local"),
        ("100.64.0.1", "non-public"),  # shared address space (carrier NAT, cloud metadata)
        ("100.100.100.200", "non-public"),
        ("192.0.2.1", "private"),  # documentation
        ("198.18.0.1", "private"),  # benchmarking
        ("224.0.0.1", "multicast"),
        ("240.0.0.1", "reserved"),
        ("255.255.255.255", "reserved"),
        ("::1", "loopback"),
        ("::", "unspecified"),
        ("fe80::1", "link-local"),
        ("fc00::1", "private"),
        ("fd12:3456::1", "private"),
        ("fec0::1", "site-local"),
        ("ff02::1", "multicast"),
        ("::ffff:127.0.0.1", "IPv4-mapped of loopback"),
        ("::ffff:10.0.0.1", "IPv4-mapped of private"),
        ("::ffff:169.254.169.254", "IPv4-mapped of link-local"),
        ("::127.0.0.1", "IPv4-compatible of loopback"),
        ("::10.0.0.1", "IPv4-compatible of private"),
        ("2002:7f00:1::1", "6to4 of loopback"),
        ("2002:a9fe:a9fe::1", "6to4 of link-local"),
        ("2002:c0a8:0101::1", "6to4 of private"),
        ("2001:0:4136:e378:8000:63bf:80ff:fffe", "Teredo client of loopback"),
        ("64:ff9b::7f00:1", "NAT64 of loopback"),
        ("64:ff9b::a9fe:a9fe", "NAT64 of link-local"),
    ],
)
def test_which_addresses_a_public_server_calls(address: str, problem: str | None) -> None:
    ip = ipaddress.ip_address(address)
    assert address_problem(ip) == problem
    assert (PUBLIC.refusal(ip) is None) == (problem is None)
    assert AddressPolicy().refusal(ip) is None  # a bot author's own machine: anything


def test_allowed_networks_open_named_private_networks_only() -> None:
    lan = AddressPolicy(public_only=True, allowed_networks=("192.168.1.0/24",))
    assert lan.refusal(ipaddress.ip_address("192.168.1.7")) is None
    assert lan.refusal(ipaddress.ip_address("192.168.2.7")) == "private"
    with pytest.raises(ValueError):
        AddressPolicy(allowed_networks=("not-a-network",))


# -- a real server on loopback, and resolvers the test controls --------------------------


class Snake:
    """A plain HTTP server on 127.0.0.1 that records each request's Host header."""

    def __init__(self) -> None:
        hosts: list[str] = []

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                hosts.append(self.headers.get("Host", ""))
                body = b'{"apiversion": "1"}'
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_POST = do_GET

            def log_message(self, *args: Any) -> None:
                pass

        self.hosts = hosts
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]


@contextmanager
def snake() -> Iterator[Snake]:
    running = Snake()
    thread = threading.Thread(target=running.server.serve_forever, daemon=True)
    thread.start()
    try:
        yield running
    finally:
        running.server.shutdown()
        running.server.server_close()


class Rebinding:
    """Answers ``first`` to the first lookup and ``then`` to every later one."""

    def __init__(self, first: Sequence[str], then: Sequence[str]) -> None:
        self.answers = [list(first), list(then)]
        self.calls: list[str] = []

    async def __call__(self, host: str, port: int) -> list[str]:
        self.calls.append(host)
        return self.answers[0 if len(self.calls) == 1 else 1]


def test_the_name_is_resolved_once_and_the_checked_address_is_the_one_connected() -> None:
    # 127.0.0.2 stands for a public address (allowed by the policy); the snake listens
    # on 127.0.0.1 only.  A client that checked the name, then let httpx resolve it
    # again, would reach 127.0.0.1 on the second answer.
    policy = AddressPolicy(public_only=True, allowed_networks=("127.0.0.2/32",))
    resolver = Rebinding(first=["127.0.0.2"], then=["127.0.0.1"])
    with snake() as server:

        async def go() -> tuple[str, str]:
            async with new_http_client(policy, resolver) as http:
                with pytest.raises(httpx.ConnectError) as first:
                    await http.get(f"http://rebind.test:{server.port}/")
                with pytest.raises(AddressRefusedError) as second:
                    await http.get(f"http://rebind.test:{server.port}/")
            return str(first.value), str(second.value)

        first, second = asyncio.run(go())
        assert resolver.calls == ["rebind.test", "rebind.test"]  # once per request
        # 127.0.0.2 was allowed, and nothing listens there: the system's refusal, not
        # the policy's.
        assert first == "[Errno 111] Connection refused"
        assert second == (
            "refused: 'rebind.test' resolves to 127.0.0.1, a loopback address; "
            "a public server only calls public addresses"
        )
        assert server.hosts == []  # the snake on 127.0.0.1 was never reached


def test_the_host_header_is_the_name_and_every_address_is_checked() -> None:
    policy = AddressPolicy(public_only=True, allowed_networks=("127.0.0.1/32",))
    with snake() as server:

        async def fixed(host: str, port: int) -> list[str]:
            return ["127.0.0.1"]

        async def mixed(host: str, port: int) -> list[str]:
            return ["127.0.0.1", "10.0.0.1"]

        async def go() -> str:
            async with new_http_client(policy, fixed) as http:
                reply = await http.get(f"http://snake.test:{server.port}/")
                assert reply.json() == {"apiversion": "1"}
            async with new_http_client(policy, mixed) as http:
                with pytest.raises(AddressRefusedError) as refused:
                    await http.get(f"http://snake.test:{server.port}/")
            return str(refused.value)

        refused = asyncio.run(go())
        assert server.hosts == [f"snake.test:{server.port}"]
        assert "10.0.0.1, a private address" in refused


def test_a_refused_snake_is_a_failed_call_not_an_exception() -> None:
    with snake() as server:

        async def go() -> Any:
            async with new_http_client(PUBLIC) as http:
                client = HttpSnakeClient(f"http://127.0.0.1:{server.port}", http, timeout_ms=500)
                return await client.move(_request())

        outcome = asyncio.run(go())
        assert outcome.status is CallStatus.CONNECTION_ERROR
        assert "loopback address" in (outcome.error or "")
        assert server.hosts == []


def _request() -> Any:
    from snakewar.games.battlesnake.rules.wire import SnakeRequest

    game = {"id": "g", "ruleset": {"name": "standard", "version": "", "settings": {}},
            "map": "standard", "source": "", "timeout": 500}  # fmt: skip
    you = {"id": "a", "name": "a", "latency": "0", "health": 100, "body": [{"x": 1, "y": 1}],
           "head": {"x": 1, "y": 1}, "length": 1, "shout": "", "squad": "",
           "customizations": {"color": "", "head": "", "tail": ""}}  # fmt: skip
    board = {"height": 3, "width": 3, "food": [], "hazards": [], "snakes": [you]}
    return SnakeRequest.from_api({"game": game, "turn": 0, "board": board, "you": you})


def test_a_name_that_does_not_resolve_is_refused() -> None:
    async def nowhere(host: str, port: int) -> list[str]:
        raise OSError("no such host")

    with pytest.raises(AddressRefusedError, match="does not resolve"):
        asyncio.run(check_host("nowhere.test", 80, PUBLIC, nowhere))


def test_a_public_ladder_never_calls_an_entry_that_points_inside() -> None:
    # An entry stored before the policy existed (or written straight into the
    # database) still meets the policy on every connection of a run.
    with snake() as server, Store("sqlite://") as store:
        admin = make_user(store, "boss", admin=True)
        app = create_app(ServerConfig(public=True, database_url="memory"), store=store)
        with TestClient(app, base_url="http://localhost", headers=admin) as client:
            assert client.post("/api/ladders", json={"name": "l"}).status_code == 201
            from snakewar.arena.ladder import LadderEntry

            for name in ("inside", "other"):
                entry = LadderEntry(name, f"http://127.0.0.1:{server.port}/")
                store.ladders.save_entry("l", entry)
            ran = client.post("/api/ladders/l/run", json={"games": 1})
            assert ran.status_code == 202, ran.text
            deadline = time.monotonic() + 30
            while client.get("/api/ladders/l").json()["running"]:
                assert time.monotonic() < deadline
                time.sleep(0.05)
            notes = {e.name: e.note for e in store.ladders.get("l").entries.values()}  # type: ignore[union-attr]
        assert server.hosts == []
        assert all("loopback address" in note for note in notes.values()), notes


# -- TLS: the name, not the address, is what TLS checks -------------------------------


def _certificates(tmp: Path, name: str) -> tuple[ssl.SSLContext, tuple[str, str]]:
    """A CA, a server certificate for DNS name ``name`` signed by it, and a client context."""
    now = dt.datetime.now(dt.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "snakewar test CA")])
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(hours=1))
        .not_valid_after(now + dt.timedelta(hours=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=True,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(
            x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False
        )
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    leaf = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)]))
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(hours=1))
        .not_valid_after(now + dt.timedelta(hours=1))
        # A DNS name only, no IP address: a check against 127.0.0.1 would fail.
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(name)]), critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()),
            critical=False,
        )
        .sign(ca_key, hashes.SHA256())
    )
    certfile, keyfile = tmp / f"{name}.pem", tmp / f"{name}.key"
    certfile.write_bytes(leaf.public_bytes(serialization.Encoding.PEM))
    keyfile.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    context = ssl.create_default_context(
        cadata=ca.public_bytes(serialization.Encoding.PEM).decode()
    )
    return context, (str(certfile), str(keyfile))


@pytest.fixture
def tls_snake(tmp_path: Path) -> Iterator[tuple[CountingSnake, ssl.SSLContext]]:
    context, files = _certificates(tmp_path, "snake.test")
    snake = CountingSnake()
    with serve(snake.app(), lifespan="off", tls=files) as url:
        snake.url = url
        yield snake, context


LOOPBACK_ALLOWED = AddressPolicy(public_only=True, allowed_networks=("127.0.0.1/32",))


async def _to_loopback(host: str, port: int) -> list[str]:
    return ["127.0.0.1"]


def test_https_keeps_the_name_for_sni_and_the_certificate(
    tls_snake: tuple[CountingSnake, ssl.SSLContext],
) -> None:
    snake, context = tls_snake

    async def get(url: str) -> int:
        async with new_policy_client(LOOPBACK_ALLOWED, _to_loopback, verify=context) as http:
            return (await http.get(url)).status_code

    assert asyncio.run(get(f"https://snake.test:{snake.port}/")) == 200
    assert snake.hosts() == [f"snake.test:{snake.port}"]
    # The certificate is still checked: it names snake.test, not other.test or the IP.
    with pytest.raises(httpx.ConnectError, match=r"certificate verify failed|hostname"):
        asyncio.run(get(f"https://other.test:{snake.port}/"))
    with pytest.raises(httpx.ConnectError, match=r"certificate verify failed|IP address"):
        asyncio.run(get(f"https://127.0.0.1:{snake.port}/"))
    assert snake.count == 1


def test_https_connections_are_pooled_per_name(
    tls_snake: tuple[CountingSnake, ssl.SSLContext],
) -> None:
    """A connection made (and verified) for one name never carries another's requests."""
    snake, context = tls_snake

    async def run() -> list[str]:
        results = []
        async with new_policy_client(LOOPBACK_ALLOWED, _to_loopback, verify=context) as http:
            for name in ("snake.test", "other.test", "snake.test"):
                try:
                    await http.get(f"https://{name}:{snake.port}/")
                    results.append("ok")
                except httpx.ConnectError:
                    results.append("refused certificate")
        return results

    # Were other.test's request sent on snake.test's open connection, it would pass.
    assert asyncio.run(run()) == ["ok", "refused certificate", "ok"]
    assert snake.hosts() == [f"snake.test:{snake.port}"] * 2


def test_the_testers_own_get_follows_the_policy() -> None:
    from snakewar.games.battlesnake.tester import run_tester

    with counting_snake() as snake:

        async def go() -> Any:
            async with new_http_client(PUBLIC, _to_loopback) as http:
                client = HttpSnakeClient(f"http://snake.test:{snake.port}", http, timeout_ms=500)
                return await run_tester(client)

        report = asyncio.run(go())
        assert snake.count == 0  # not even its GET /
        first = report.checks[0]
        assert first.name == "GET /" and not first.passed and "loopback" in first.detail
