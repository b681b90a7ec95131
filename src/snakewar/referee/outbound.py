"""Every outbound HTTP connection under the address policy, checked where it connects.

A URL's host is looked up **once** per request; every address it resolves to is
checked against the :class:`~snakewar.referee.addresses.AddressPolicy`, and the
connection goes to exactly the address that was checked, with the request's own
``Host`` header and (for https) its own server name for SNI and the certificate.  A
name that answers a public address when it is checked and ``127.0.0.1`` when it is
used (DNS rebinding) therefore never reaches ``127.0.0.1``: there is no second lookup.

A refused connection raises :class:`AddressRefusedError`, an ``httpx.ConnectError``,
so the referee records it like any connection failure: a status value with the reason,
never an uncaught exception.

    >>> import asyncio
    >>> from snakewar.referee.addresses import AddressPolicy
    >>> async def demo() -> str:
    ...     async with new_policy_client(AddressPolicy(public_only=True)) as http:
    ...         try:
    ...             await http.get("http://127.0.0.1:9/")
    ...         except AddressRefusedError as exc:
    ...             return str(exc)
    ...     return "connected"
    >>> asyncio.run(demo())
    'refused: 127.0.0.1, a loopback address; a public server only calls public addresses'
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import httpx

from snakewar.engine.protocol import IPAddress, OutboundPolicy
from snakewar.errors import ForbiddenError
from snakewar.referee.http11 import Http11Transport

__all__ = [
    "AddressRefusedError",
    "PolicyTransport",
    "Resolver",
    "check_host",
    "new_policy_client",
    "system_resolver",
]

MAX_TLS_NAMES = 64
"""https names whose connection pools are kept at once (one pool per name)."""

Resolver = Callable[[str, int], Awaitable[Sequence[str]]]
"""Looks a host name up: ``(host, port)`` to its addresses, as text."""


class AddressRefusedError(ForbiddenError, httpx.ConnectError):
    """Raised for a connection to an address the policy refuses, or a name that fails."""

    def __init__(self, message: str) -> None:
        httpx.ConnectError.__init__(self, message)


async def system_resolver(host: str, port: int) -> list[str]:
    """The system's answer for ``host`` (``getaddrinfo``, off the event loop)."""
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [str(info[4][0]) for info in infos]


def _parse(text: str) -> IPAddress:
    return ipaddress.ip_address(text.split("%", 1)[0])  # an IPv6 zone is not the address


async def _lookup(host: str, port: int, resolver: Resolver) -> list[IPAddress]:
    try:
        return [ipaddress.ip_address(host)]  # a literal needs no lookup (but is checked)
    except ValueError:
        pass
    try:
        addresses = [_parse(a) for a in await resolver(host, port)]
    except (OSError, ValueError, UnicodeError) as exc:
        raise AddressRefusedError(f"refused: {host!r} does not resolve ({exc})") from None
    if not addresses:
        raise AddressRefusedError(f"refused: {host!r} resolves to no address")
    return addresses


async def check_host(
    host: str, port: int, policy: OutboundPolicy, resolver: Resolver = system_resolver
) -> list[IPAddress]:
    """The addresses ``host`` resolves to, every one allowed by ``policy``.

    Raises:
        AddressRefusedError: a name that does not resolve, or any address refused
            (one bad address among good ones is enough: which one is used later is
            not ours to choose).
    """
    addresses = await _lookup(host, port, resolver)
    for address in addresses:
        problem = policy.refusal(address)
        if problem is not None:
            shown = "" if str(address) == host else f"{host!r} resolves to "
            raise AddressRefusedError(
                f"refused: {shown}{address}, a {problem} address; "
                "a public server only calls public addresses"
            )
    return addresses


class PolicyTransport(httpx.AsyncBaseTransport):
    """An httpx transport that connects only to addresses the policy allows (see module).

    Args:
        policy: the address policy.
        resolver: how names are looked up (tests pass their own).
        **options: for the inner :class:`httpx.AsyncHTTPTransport` (limits...).
    """

    def __init__(
        self, policy: OutboundPolicy, resolver: Resolver = system_resolver, **options: Any
    ) -> None:
        self.policy = policy
        self.resolver = resolver
        self._options = options
        # Plain HTTP through the lean transport (its cost is counted as the snake's).
        self._inner: httpx.AsyncBaseTransport = Http11Transport(**options)
        # Pools are keyed by address: an https connection made for one name (its SNI
        # and certificate) must never carry another name's requests, so each https
        # name gets a pool of its own (the most recent ones, closed as they age out).
        self._tls: OrderedDict[str, httpx.AsyncHTTPTransport] = OrderedDict()

    async def _transport(self, url: httpx.URL) -> httpx.AsyncBaseTransport:
        if url.scheme != "https":
            return self._inner
        name = url.host
        found = self._tls.pop(name, None)
        if found is None:
            found = httpx.AsyncHTTPTransport(**self._options)
            while len(self._tls) >= MAX_TLS_NAMES:
                _, oldest = self._tls.popitem(last=False)
                await oldest.aclose()
        self._tls[name] = found
        return found

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Resolve once, check, and send ``request`` to the checked address."""
        url = request.url
        port = url.port or (443 if url.scheme == "https" else 80)
        addresses = await check_host(url.host, port, self.policy, self.resolver)
        target = addresses[0]
        extensions = dict(request.extensions)
        if url.scheme == "https":
            # The certificate is checked against the name, not the address.
            extensions.setdefault("sni_hostname", url.host)
        pinned = httpx.Request(
            request.method,
            url.copy_with(host=str(target)),
            headers=request.headers,  # keeps Host: the name the user gave
            stream=request.stream,
            extensions=extensions,
        )
        return await (await self._transport(url)).handle_async_request(pinned)

    async def aclose(self) -> None:
        """Close the connections."""
        await self._inner.aclose()
        for transport in self._tls.values():
            await transport.aclose()
        self._tls.clear()


def new_policy_client(
    policy: OutboundPolicy, resolver: Resolver = system_resolver, **options: Any
) -> httpx.AsyncClient:
    """An ``httpx.AsyncClient`` whose every connection goes through :class:`PolicyTransport`.

    ``options`` go to the client (timeouts, headers...); ``limits`` and ``verify`` (TLS
    certificate checks) go to the transport.
    """
    transport_options = {"limits": options.pop("limits", httpx.Limits())}
    if "verify" in options:
        transport_options["verify"] = options.pop("verify")
    transport = PolicyTransport(policy, resolver, **transport_options)
    return httpx.AsyncClient(transport=transport, **options)
