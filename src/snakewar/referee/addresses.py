"""Which network addresses a server may call: the outbound address policy (pure).

The policy is a value of the protocol's :class:`~snakewar.engine.protocol.OutboundPolicy`
kind, which a play session carries to the games; it lives here, next to the outbound
code that applies it.

A public server calls URLs that strangers give it.  Without a policy, a snake URL could
make the server reach its own machine (``127.0.0.1``), its private network, or a cloud
metadata service (``169.254.169.254``): server-side request forgery.  The policy says
which addresses are off limits; :mod:`snakewar.referee.outbound` applies it to every
connection, to the exact address it connects to.

An address is **non-public** when Python's :mod:`ipaddress` says it is not global
(loopback, private, link-local, shared ``100.64/10``, documentation, benchmarking,
reserved, multicast, unspecified, unique-local, site-local...) **or** when it carries an
IPv4 address that is: IPv4-mapped ``::ffff:a.b.c.d``, IPv4-compatible ``::a.b.c.d``,
6to4 ``2002:AABB:CCDD::/48``, Teredo ``2001::/32`` (server and client), and the NAT64
prefix ``64:ff9b::/96``.  Each of these reaches the embedded IPv4 address through a
relay or the host's own stack, so it is judged as that address.

>>> policy = AddressPolicy(public_only=True)
>>> policy.refusal(ipaddress.ip_address("8.8.8.8")) is None
True
>>> policy.refusal(ipaddress.ip_address("2002:7f00:1::1"))
'6to4 of loopback'
>>> AddressPolicy().refusal(ipaddress.ip_address("127.0.0.1")) is None  # local mode
True
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from typing import Final

from snakewar.engine.protocol import IPAddress

__all__ = ["AddressPolicy", "IPAddress", "address_problem"]


_NAT64: Final = ipaddress.IPv6Network("64:ff9b::/96")
_COMPATIBLE: Final = ipaddress.IPv6Network("::/96")


def _kind(address: IPAddress) -> str | None:
    """What makes ``address`` non-public, judged on its own (``None``: it is public)."""
    checks = (
        ("loopback", address.is_loopback),
        ("unspecified", address.is_unspecified),
        ("link-local", address.is_link_local),
        ("multicast", address.is_multicast),
        ("reserved", address.is_reserved),
        ("private", address.is_private),
        ("site-local", isinstance(address, ipaddress.IPv6Address) and address.is_site_local),
        # Shared (100.64/10, some clouds' metadata), documentation, benchmarking...
        ("non-public", not address.is_global),
    )
    for name, bad in checks:
        if bad:
            return name
    return None


def _embedded(address: ipaddress.IPv6Address) -> list[tuple[str, ipaddress.IPv4Address]]:
    """The IPv4 addresses an IPv6 address reaches, with the mechanism's name."""
    found: list[tuple[str, ipaddress.IPv4Address]] = []
    if address.ipv4_mapped is not None:
        found.append(("IPv4-mapped", address.ipv4_mapped))
    if address.sixtofour is not None:
        found.append(("6to4", address.sixtofour))
    if address.teredo is not None:
        server, client = address.teredo
        found += [("Teredo server", server), ("Teredo client", client)]
    if address in _NAT64:
        found.append(("NAT64", ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)))
    if address in _COMPATIBLE and int(address) > 1:  # not :: or ::1 (judged on their own)
        found.append(("IPv4-compatible", ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)))
    return found


def address_problem(address: IPAddress) -> str | None:
    """Why ``address`` is not a public address (``None`` if it is one).

    >>> address_problem(ipaddress.ip_address("::ffff:10.0.0.1"))
    'IPv4-mapped of private'
    >>> address_problem(ipaddress.ip_address("2606:4700:4700::1111")) is None
    True
    """
    if isinstance(address, ipaddress.IPv6Address):
        for mechanism, inner in _embedded(address):
            kind = _kind(inner)
            if kind is not None:
                return f"{mechanism} of {kind}"
    return _kind(address)


@dataclass(frozen=True, slots=True)
class AddressPolicy:
    """Which addresses outbound connections may reach (a small, picklable value).

    Attributes:
        public_only: refuse every non-public address (a public server); ``False``
            allows everything (a bot author's own machine, where snakes run on
            ``localhost``).
        allowed_networks: private networks (CIDR) allowed all the same: an operator's
            LAN or cluster network where bots run.
    """

    public_only: bool = False
    allowed_networks: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for network in self.allowed_networks:
            ipaddress.ip_network(network, strict=False)  # ValueError for a typo, now

    def refusal(self, address: IPAddress) -> str | None:
        """Why a connection to ``address`` is refused (``None``: it is allowed)."""
        if not self.public_only:
            return None
        for text in self.allowed_networks:
            network = ipaddress.ip_network(text, strict=False)
            if address.version == network.version and address in network:
                return None
        return address_problem(address)
