"""Snake addresses are their owners' secrets: shown to the owner and admins only.

A bot author treats their snake's URL as a secret (whoever has it can flood the bot or
copy its answers), so every answer that names entrants shows an entrant's address
(its ``source``, when it is a network address: it holds ``://``) only to

* the entrant's owner: the user of a registered snake's entry, ``@owner/name`` (names
  are bound to their owner's namespace, :func:`snakewar.server.matches.check_free_name`,
  so no entry can pass for someone else's);
* an admin (a local server's one user is its admin).

Anyone else reads :data:`HIDDEN` in its place.  Built-ins (``builtin:NAME``) and
program bots (their reference, ``@owner/name``) are no secret and are shown as they are.
What is hidden: games' entrants (``/api/games``...), a game's header in its frames
(``offset=0``) and its replay file, ladders' standings, tournaments' entrants.  The
official board's engine API (``/games/{id}``, its frames and websocket) never carried
an address.  An entry made before names were namespaced (``owner/name``) is shown to
admins only.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, Final, TypeVar

from pydantic import BaseModel

from snakewar.server.auth import Principal
from snakewar.server.patterns import snake_ref_owner

__all__ = [
    "HIDDEN",
    "hidden_in",
    "hide_in_bytes",
    "hide_in_json",
    "hide_sources",
    "is_secret",
    "may_see",
]

HIDDEN: Final = "hidden"
"""What others read in place of an entrant's address."""

M = TypeVar("M")


def is_secret(source: str) -> bool:
    """Whether ``source`` is a network address (``https://...``, ``v0:http://...``)."""
    return "://" in source


def may_see(principal: Principal, name: str) -> bool:
    """Whether ``principal`` may see the address of the entrant called ``name``."""
    if principal.is_admin:
        return True
    user = principal.user
    return user is not None and snake_ref_owner(name) == user.name


def hidden_in(principal: Principal, entrants: Iterable[tuple[str, str]]) -> set[str]:
    """The addresses among ``(name, source)`` pairs that ``principal`` may not see."""
    return {
        source for name, source in entrants if is_secret(source) and not may_see(principal, name)
    }


def _entrant_name(model: BaseModel) -> str | None:
    for field in ("name", "snake", "entrant"):
        value = getattr(model, field, None)
        if isinstance(value, str):
            return value
    return None


def hide_sources(out: M, principal: Principal) -> M:
    """``out`` with the addresses ``principal`` may not see as :data:`HIDDEN`.

    ``out`` is a response model, a list of them or JSON data: wherever an entrant's
    ``source`` is, its ``name`` (``snake``, ``entrant``) says whose it is.
    """
    if principal.is_admin:
        return out
    if isinstance(out, list | tuple):
        for item in out:
            hide_sources(item, principal)
        return out
    if isinstance(out, dict):
        name = out.get("name")
        source = out.get("source")
        mine = isinstance(name, str) and may_see(principal, name)
        if isinstance(source, str) and is_secret(source) and not mine:
            out["source"] = HIDDEN
        for value in out.values():
            if isinstance(value, list | tuple | dict | BaseModel):
                hide_sources(value, principal)
        return out
    if isinstance(out, BaseModel):
        source = getattr(out, "source", None)
        if isinstance(source, str) and is_secret(source):
            name = _entrant_name(out)
            if name is None or not may_see(principal, name):
                out.source = HIDDEN  # type: ignore[attr-defined]
        for field in type(out).model_fields:
            value = getattr(out, field)
            if isinstance(value, list | tuple | dict | BaseModel):
                hide_sources(value, principal)
    return out


def hide_in_json(value: Any, secrets: set[str]) -> Any:
    """``value`` (JSON: a game's header) with every string in ``secrets`` as :data:`HIDDEN`."""
    if not secrets:
        return value
    if isinstance(value, str):
        return HIDDEN if value in secrets else value
    if isinstance(value, Mapping):
        return {key: hide_in_json(item, secrets) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [hide_in_json(item, secrets) for item in value]
    return value


def hide_in_bytes(payload: bytes, secrets: set[str]) -> bytes:
    """A JSON-based replay file with each address of ``secrets`` written as :data:`HIDDEN`.

    Each address is replaced where it is a whole JSON string (``"https://..."``, in
    the encodings a JSON writer may use), so the file stays valid JSON line by line.
    """
    for secret in secrets:
        for ascii_only in (True, False):
            quoted = json.dumps(secret, ensure_ascii=ascii_only).encode()
            payload = payload.replace(quoted, json.dumps(HIDDEN).encode())
    return payload
