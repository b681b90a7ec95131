"""Who is asking: accounts, browser sessions, API tokens, roles and CSRF.

Three kinds of requester (a :class:`Principal`):

* **anonymous**: may watch (every ``GET``), never change anything;
* **user**: registers snakes and program bots, starts games with built-ins, its own
  snakes and public ones, joins open ladders, cancels, rematches and deletes its own
  games;
* **admin**: everything, including ladders, tournaments, users and removing anything.

A public server (``--public``) knows requesters by a **session cookie** (a browser that
logged in: ``HttpOnly``, ``SameSite=Strict``, ``Secure`` behind HTTPS) or an **API token**
(``Authorization: Bearer sw_...``, for the CLI and scripts).  Every state-changing request
made with a cookie must carry the session's CSRF token in the ``X-CSRF-Token`` header (the
pages read it from their ``<meta name="csrf-token">``), and a state-changing request whose
``Origin`` is another site is refused whatever it carries.  A local server (no
``--public``) has one user, ``local``, an admin, and needs no login: it listens on loopback
only and checks the ``Host`` header (:mod:`snakewar.server.app`).

Passwords are hashed with argon2 (``argon2-cffi``) on the hashing threads, never on the
event loop; session, token and invitation secrets are stored as SHA-256 digests
(:mod:`snakewar.storage.accounts`).

Password guessing meets two limits: attempts per address (in memory, per server: a
cheap first wall) and a backoff per account, kept in the database so that every
server sharing it counts the same failures whichever address each guess comes from
(:meth:`~snakewar.storage.accounts.SqlAccountRepository.begin_login`).  A browser that
logged in to an account before carries a **device cookie** (``HttpOnly``,
``SameSite=Strict``, for ``/api/auth`` only) and has a backoff of its own there, so a
guesser slows the account down for everyone else but cannot lock its owner out.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import datetime as dt
import hashlib
import hmac
import math
import secrets
from dataclasses import dataclass
from typing import Annotated, Final, Literal

import argon2
from fastapi import Depends, Request, Response

from snakewar.errors import BusyError, ForbiddenError, UnauthorizedError
from snakewar.server.config import ServerConfig
from snakewar.storage import AsyncStore, Store, User, UserExistsError
from snakewar.storage.accounts import DEVICE_LIFETIME
from snakewar.storage.database import now

__all__ = [
    "CSRF_HEADER",
    "DEVICE_COOKIE",
    "INVITE_LIFETIME",
    "LOCAL_USER",
    "SESSION_COOKIE",
    "SESSION_LIFETIME",
    "TOKEN_PREFIX",
    "AdminDep",
    "CsrfError",
    "LoginBackoffError",
    "NotAllowedError",
    "Passwords",
    "Principal",
    "PrincipalDep",
    "SignupClosedError",
    "UserDep",
    "clear_session_cookie",
    "digest",
    "ensure_local_user",
    "get_principal",
    "issue_invite",
    "new_secret",
    "require_admin",
    "require_owner",
    "require_user",
    "set_device_cookie",
    "set_session_cookie",
]

SESSION_COOKIE: Final = "snakewar_session"
"""The browser session's cookie."""

DEVICE_COOKIE: Final = "snakewar_device"
"""A browser that logged in before: its log-ins have a backoff apart from everyone else's."""

CSRF_HEADER: Final = "X-CSRF-Token"
"""The header a browser's state-changing request repeats its session's CSRF token in."""

SESSION_LIFETIME: Final = dt.timedelta(days=14)
INVITE_LIFETIME: Final = dt.timedelta(days=7)
"""How long a sign-up invitation stays valid."""
TOKEN_PREFIX: Final = "sw_"
LOCAL_USER: Final = "local"
"""The one user of a local server (an admin that never logs in)."""

MIN_PASSWORD: Final = 8
MAX_PASSWORD: Final = 256
_SAFE_METHODS: Final = frozenset({"GET", "HEAD", "OPTIONS"})


class NotAllowedError(ForbiddenError):
    """Raised for an action the requester's role or ownership does not allow."""


class CsrfError(ForbiddenError):
    """Raised for a browser's state-changing request without its session's CSRF token."""


class SignupClosedError(ForbiddenError):
    """Raised for a sign-up that this server's sign-up mode does not accept."""


class LoginBackoffError(BusyError):
    """Raised for a log-in attempt while its account's backoff lasts (429, Retry-After).

    Args:
        wait_s: seconds until the account takes an attempt again.
    """

    def __init__(self, wait_s: float) -> None:
        seconds = max(1, math.ceil(wait_s))
        super().__init__(
            f"too many failed log-ins for this account; try again in {seconds} s "
            "(a browser that logged in to it before is not held back)"
        )
        self.retry_after_s = float(seconds)


def new_secret(prefix: str = "") -> str:
    """A fresh 256-bit secret, URL-safe text."""
    return prefix + secrets.token_urlsafe(32)


def digest(secret: str) -> str:
    """The SHA-256 (hex) a secret is stored and looked up as."""
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


def issue_invite(store: Store, admin_id: int | None) -> tuple[str, dt.datetime]:
    """Make a one-use sign-up invitation, valid :data:`INVITE_LIFETIME`, by an admin.

    How both ``POST /api/auth/invites`` and ``snakewar user invite`` make one: only the
    code's digest is stored, so the code is shown once, here.

    Args:
        store: The server's store.
        admin_id: The id of the admin who invites (``None``: not recorded).

    Returns:
        The code and when it expires.
    """
    code = new_secret()
    expires = now() + INVITE_LIFETIME
    store.accounts.create_invite(digest(code), admin_id, expires)
    return code, expires


class Passwords:
    """Argon2 password hashing, on its own threads (a hash takes tens of milliseconds)."""

    def __init__(self, workers: int = 2) -> None:
        self._hasher = argon2.PasswordHasher()
        self._pool = concurrent.futures.ThreadPoolExecutor(workers, thread_name_prefix="argon2")
        # Verifying against this when the user does not exist takes as long as a real
        # check, so response times do not tell which names exist.
        self._dummy = self._hasher.hash(new_secret())

    def hash_now(self, password: str) -> str:
        """Hash ``password`` on this thread (the CLI)."""
        return self._hasher.hash(password)

    async def hash(self, password: str) -> str:
        """Hash ``password`` off the event loop."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, self._hasher.hash, password)

    async def verify(self, stored: str | None, password: str) -> bool:
        """Whether ``password`` matches the ``stored`` hash (``None``: no such user)."""

        def check() -> bool:
            try:
                # verify() returns True or raises.
                self._hasher.verify(stored or self._dummy, password)
            except (argon2.exceptions.VerificationError, argon2.exceptions.InvalidHashError):
                return False
            return stored is not None

        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, check)

    def close(self) -> None:
        """Stop the hashing threads."""
        self._pool.shutdown(wait=True)


@dataclass(frozen=True, slots=True)
class Principal:
    """The requester: an account (or none) and how it was recognised.

    Attributes:
        user: the account, ``None`` for an anonymous visitor.
        via: ``local`` (a local server's one user), ``session``, ``token`` or ``anonymous``.
        csrf: the session's CSRF token (sessions only), for the pages to repeat.
    """

    user: User | None
    via: Literal["local", "session", "token", "anonymous"]
    csrf: str | None = None

    @property
    def is_admin(self) -> bool:
        """Whether the requester is an admin."""
        return self.user is not None and self.user.is_admin

    @property
    def id(self) -> int | None:
        """The requester's user id (``None`` when anonymous)."""
        return self.user.id if self.user is not None else None

    def can_change(self, owner_id: int | None) -> bool:
        """Whether the requester may change something owned by ``owner_id``."""
        return self.is_admin or (self.user is not None and owner_id == self.user.id)


def ensure_local_user(store: Store) -> User:
    """The local server's one user, made on first use (it has no usable password)."""
    found = store.accounts.password_hash(LOCAL_USER)
    if found is not None:
        return found[0]
    try:
        # "!" is no argon2 hash: nobody can ever log in as the local user.
        return store.accounts.create_user(LOCAL_USER, "!", role="admin", allow_reserved=True)
    except UserExistsError:  # another server made it at the same moment
        return store.accounts.user(LOCAL_USER)


def _same_origin(request: Request) -> bool:
    origin = request.headers.get("origin")
    if origin is None:
        return True
    host = request.headers.get("host", "")
    return origin in (f"http://{host}", f"https://{host}")


async def get_principal(request: Request) -> Principal:
    """Who sent ``request`` (computed once per request).

    Raises:
        UnauthorizedError: a token or session that is given but not valid (so a
            script with a revoked token fails loudly instead of acting anonymously).
        CsrfError: a cookie-authenticated state-changing request without the
            session's CSRF token, or any state-changing request from another origin.
    """
    cached: Principal | None = getattr(request.state, "principal", None)
    if cached is not None:
        return cached
    config: ServerConfig = request.app.state.config
    store: AsyncStore = request.app.state.store
    unsafe = request.method not in _SAFE_METHODS
    if unsafe and not _same_origin(request):
        raise CsrfError("request from another site refused (its Origin is not this server)")
    principal: Principal
    if not config.public:
        principal = Principal(request.app.state.local_user, "local")
    else:
        principal = await _public_principal(request, store, unsafe)
    request.state.principal = principal
    return principal


async def _public_principal(request: Request, store: AsyncStore, unsafe: bool) -> Principal:
    authorization = request.headers.get("authorization")
    if authorization:  # an empty header is no credential (some clients send one)
        scheme, _, token = authorization.partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token.startswith(TOKEN_PREFIX) or len(token) > 100:
            raise UnauthorizedError("authorization: expected 'Bearer sw_...' (an API token)")
        user = await store.run(store.store.accounts.token_user, digest(token))
        if user is None:
            raise UnauthorizedError("authorization: this API token is not valid (revoked?)")
        return Principal(user, "token")
    cookie = request.cookies.get(SESSION_COOKIE)
    if cookie is None or len(cookie) > 100:
        return Principal(None, "anonymous")
    found = await store.run(store.store.accounts.session_user, digest(cookie))
    if found is None:
        # An expired login is a visitor again (the page offers to log in).
        return Principal(None, "anonymous")
    user, csrf = found
    if unsafe:
        sent = request.headers.get(CSRF_HEADER, "")
        if not hmac.compare_digest(sent.encode("utf-8", "replace"), csrf.encode()):
            raise CsrfError(f"missing or wrong {CSRF_HEADER} header for this session")
    return Principal(user, "session", csrf)


PrincipalDep = Annotated[Principal, Depends(get_principal)]
"""The requester, anonymous or not."""


async def require_user(principal: PrincipalDep) -> Principal:
    """The requester, who must have an account.

    Raises:
        UnauthorizedError: an anonymous requester.
    """
    if principal.user is None:
        raise UnauthorizedError("log in (or send an API token) to do this")
    return principal


UserDep = Annotated[Principal, Depends(require_user)]
"""The requester, logged in."""


async def require_admin(principal: UserDep) -> Principal:
    """The requester, who must be an admin.

    Raises:
        NotAllowedError: a user who is no admin.
    """
    if not principal.is_admin:
        raise NotAllowedError("only an admin of this server may do this")
    return principal


AdminDep = Annotated[Principal, Depends(require_admin)]
"""The requester, an admin."""


def require_owner(principal: Principal, owner_id: int | None, what: str) -> None:
    """Refuse unless the requester owns ``what`` (``owner_id``) or is an admin.

    Raises:
        NotAllowedError: naming ``what``.
    """
    if not principal.can_change(owner_id):
        raise NotAllowedError(f"{what} is not yours; only its owner or an admin may change it")


def set_session_cookie(response: Response, secret: str, *, secure: bool) -> None:
    """Log a browser in: the session cookie (HttpOnly, SameSite=Strict)."""
    response.set_cookie(
        SESSION_COOKIE,
        secret,
        max_age=int(SESSION_LIFETIME.total_seconds()),
        httponly=True,
        samesite="strict",
        secure=secure,
        path="/",
    )


def set_device_cookie(response: Response, secret: str, *, secure: bool) -> None:
    """Mark a browser that logged in: its device cookie, sent to ``/api/auth`` only."""
    response.set_cookie(
        DEVICE_COOKIE,
        secret,
        max_age=int(DEVICE_LIFETIME.total_seconds()),
        httponly=True,
        samesite="strict",
        secure=secure,
        path="/api/auth",
    )


def clear_session_cookie(response: Response, *, secure: bool) -> None:
    """Log a browser out (the cookie is removed)."""
    response.delete_cookie(SESSION_COOKIE, httponly=True, samesite="strict", secure=secure)
