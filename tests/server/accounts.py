"""Accounts for tests of public servers: users made in the store, acting through API tokens."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import argon2
from fastapi.testclient import TestClient

from snakewar.server.app import create_app
from snakewar.server.auth import TOKEN_PREFIX, digest, new_secret
from snakewar.server.config import ServerConfig
from snakewar.storage import Store

BASE_URL = "http://localhost"
_HASHER = argon2.PasswordHasher(time_cost=1, memory_cost=1024)  # fast: tests make many


def password_of(name: str) -> str:
    """The password a test user is made with."""
    return f"password-of-{name}"


def make_user(store: Store, name: str, *, admin: bool = False) -> dict[str, str]:
    """Make an account with an API token; returns the headers that act as it.

    Made as an operator would (``snakewar user create``), but a reserved name such as
    the fixtures' ``admin`` is let through: the tests' accounts are named for their part.
    """
    user = store.accounts.create_user(
        name,
        _HASHER.hash(password_of(name)),
        role="admin" if admin else "user",
        allow_reserved=True,
    )
    token = new_secret(TOKEN_PREFIX)
    store.accounts.create_token(user.id, "tests", digest(token))
    return {"Authorization": f"Bearer {token}"}


@contextmanager
def public_client(
    *, as_user: str | None = "admin", admin: bool = True, **config: Any
) -> Iterator[TestClient]:
    """A public server on a fresh in-memory database, its client acting as ``as_user``.

    ``as_user`` ``None``: an anonymous client.  The client's ``store`` attribute is the
    server's store, to make more users (:func:`make_user`).
    """
    with Store("sqlite://") as store:
        headers = make_user(store, as_user, admin=admin) if as_user is not None else {}
        app = create_app(ServerConfig(database_url="memory", public=True, **config), store=store)
        with TestClient(
            app, base_url=BASE_URL, headers=headers, raise_server_exceptions=False
        ) as client:
            client.store = store
            yield client


@contextmanager
def local_or_public(public: bool) -> Iterator[TestClient]:
    """A local server's client, or a public server's acting as its admin (the refusals
    of a public server must hold for its most trusted user)."""
    if public:
        with public_client() as client:
            yield client
        return
    app = create_app(ServerConfig(database_url="memory"))
    with TestClient(app, base_url=BASE_URL, raise_server_exceptions=False) as client:
        yield client
