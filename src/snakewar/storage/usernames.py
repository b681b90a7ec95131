"""Which user names a new account may take: none reserved, none that looks like another.

A user's name is how everyone else tells them apart: it is in their snakes' references
(``@ann/s61``), their ladder entries and games.  So a new account may not take

* a reserved name (:func:`reserved_user_names`): the local server's own user
  (``local``), names a visitor would read as the server's or its staff's
  (``admin``, ``snakewar``, ``builtin``, ``root``...: :data:`RESERVED_USER_NAMES`), and
  each registered game's names (its registry key and the first word of its title), read
  as the game's own;
* a name that differs from an existing account's, or from a reserved one, only by
  look-alike characters: both have the same :func:`name_skeleton`.

The skeleton is NFKC, case-folded, then every look-alike of the allowed alphabet
(lowercase letters, digits, ``_`` and ``-``) written as one representative: ``0`` as
``o``, ``1``, ``i`` and ``l`` as ``l``, ``rn`` as ``m``, ``vv`` as ``w``, ``_`` as ``-``,
and so on (:data:`CONFUSABLES`).  Two names with one skeleton are one name to a reader.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable
from typing import Final

from snakewar.errors import ParamsError
from snakewar.storage.database import StoreError

__all__ = [
    "CONFUSABLES",
    "RESERVED_USER_NAMES",
    "ReservedUserNameError",
    "check_new_user_name",
    "confusable_with",
    "name_skeleton",
    "reserved_user_names",
]

RESERVED_USER_NAMES: Final = frozenset(
    {
        "local",  # the local server's one user (snakewar.server.auth.LOCAL_USER)
        "admin",
        "admins",
        "administrator",
        "root",
        "system",
        "snakewar",
        "builtin",
        "builtins",
        "bot",
        "bots",
        "api",
        "server",
        "staff",
        "support",
        "moderator",
        "official",
        "owner",
        "operator",
        "security",
        "anonymous",
        "guest",
        "nobody",
        "null",
        "none",
        "everyone",
        "all",
        "me",
        "login",
        "logout",
        "signup",
        "static",
        "docs",
        "www",
    }
)
"""Names no account may take (nor any name with one of their skeletons)."""

CONFUSABLES: Final = (
    # Sequences first: "rn" is read as "m" before "r" and "n" are looked at alone.
    ("rn", "m"),
    ("vv", "w"),
    ("cl", "d"),
    ("0", "o"),
    ("1", "l"),
    ("i", "l"),
    ("5", "s"),
    ("_", "-"),
)
"""Look-alikes of the user-name alphabet, each written as one representative."""


class ReservedUserNameError(StoreError, ParamsError):
    """Raised for a new account's name that is reserved (a 422 naming the field ``name``)."""

    def __init__(self, message: str) -> None:
        super().__init__("name", message)


def name_skeleton(name: str) -> str:
    """What ``name`` looks like: two names with one skeleton are confusable.

    >>> name_skeleton("Al1ce") == name_skeleton("alice") == name_skeleton("aIice")
    True
    >>> name_skeleton("rnaria") == name_skeleton("maria")
    True
    """
    text = unicodedata.normalize("NFKC", name).casefold()
    for look, representative in CONFUSABLES:
        text = text.replace(look, representative)
    # Repeated separators read as one ("a--b" and "a_b" look alike), as do any at the end.
    while "--" in text:
        text = text.replace("--", "-")
    return text.strip("-") or text


def confusable_with(name: str, existing: Iterable[str]) -> str | None:
    """The first of ``existing`` that ``name`` could be mistaken for (not ``name`` itself)."""
    skeleton = name_skeleton(name)
    for other in existing:
        if other != name and name_skeleton(other) == skeleton:
            return other
    return None


def reserved_user_names() -> frozenset[str]:
    """:data:`RESERVED_USER_NAMES` and every registered game's names.

    A game's names are its registry key and the first word of its catalogue title,
    lowercased, when that is a user name (``Some Game II`` reserves ``some``).
    """
    from snakewar.adapters import games  # the registry loads the games: only when asked

    names = set(RESERVED_USER_NAMES)
    for adapter in games():
        names.add(adapter.name.lower())
        first = adapter.catalogue().title.split(maxsplit=1)[:1]
        if first and re.fullmatch(r"[a-z0-9_-]{1,40}", word := first[0].lower()):
            names.add(word)
    return frozenset(names)


@functools.cache
def _reserved_skeletons() -> dict[str, str]:
    return {name_skeleton(n): n for n in sorted(reserved_user_names())}


def check_new_user_name(name: str) -> None:
    """Refuse a reserved name, or one that looks like a reserved name.

    Raises:
        ReservedUserNameError: naming the field and the reserved name it is, or looks like.
    """
    reserved = _reserved_skeletons().get(name_skeleton(name))
    if reserved is None:
        return
    if reserved == name:
        raise ReservedUserNameError(f"name: {name!r} is reserved; pick another name")
    raise ReservedUserNameError(
        f"name: {name[:40]!r} looks like the reserved name {reserved!r}; pick another name"
    )
