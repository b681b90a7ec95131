"""Stored accounts: users, browser sessions, API tokens, invitations and registered snakes.

Log-in backoff is kept here too (:meth:`SqlAccountRepository.begin_login`): failed
log-ins in a row per account, in the database rather than in a server's memory, so
that every server sharing the database counts the same guesses and a restart forgets
none.  A browser that logged in to an account before (its device cookie) has a count
of its own: a guesser can slow the account down for everyone else, never lock its
owner out.

The store keeps no secret in a usable form: passwords arrive here already hashed (the
server hashes them with argon2), and session, token and invitation secrets are kept as
their SHA-256 (they are 256-bit random values, so a fast hash is enough: nothing can be
guessed from it), so a copy of the database logs nobody in.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final, Literal, cast

import sqlalchemy as sa
from sqlalchemy.engine import CursorResult
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from snakewar.errors import ConflictError, ForbiddenError, NotFoundError
from snakewar.storage.database import Database, StoreError, now, utc
from snakewar.storage.models import (
    ApiTokenModel,
    InviteModel,
    LoginDeviceModel,
    LoginFailureModel,
    SessionModel,
    SnakeModel,
    UserModel,
)
from snakewar.storage.quota import hold_quota, stored_by_user, stored_bytes
from snakewar.storage.usernames import check_new_user_name, confusable_with

__all__ = [
    "DEVICE_LIFETIME",
    "MAX_DEVICES_PER_USER",
    "ROLES",
    "USER_NAME",
    "ApiToken",
    "Backoff",
    "ConfusableUserNameError",
    "Invite",
    "InviteNotUsableError",
    "InviteStatus",
    "LoginAttempt",
    "SnakeExistsError",
    "SnakeKind",
    "SnakeNotFoundError",
    "SqlAccountRepository",
    "SqlSnakeRepository",
    "StoredSnake",
    "User",
    "UserExistsError",
    "UserNotFoundError",
]

ROLES: Final = ("user", "admin")
"""The roles of an account (anonymous visitors have none)."""

USER_NAME: Final = re.compile(r"[a-z0-9][a-z0-9_-]{0,31}\Z")
"""A user name: 1 to 32 of lowercase letters, digits, ``_`` and ``-``, not starting with a sign."""

SNAKE_NAME: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,39}\Z")
"""A snake name: 1 to 40 letters, digits, ``_``, ``.`` and ``-``."""

TAG: Final = re.compile(r"[a-z0-9][a-z0-9+#.-]{0,23}")
"""A snake's tag: a short lowercase word (``python``, ``c++``, ``c#``, ``minimax``)."""

MAX_TAGS: Final = 8
"""The most tags a snake has."""

SnakeKind = Literal["url", "program", "upload"]

DEVICE_LIFETIME: Final = dt.timedelta(days=365)
"""How long a browser that logged in stays trusted for its account's log-ins."""

MAX_DEVICES_PER_USER: Final = 20
"""Trusted browsers kept per account (the oldest go first)."""


@dataclass(frozen=True, slots=True)
class Backoff:
    """How failed log-ins in a row slow the next one down (per account, per browser).

    The first ``free`` failures cost nothing; after them each attempt waits
    ``first_s``, doubled with each further failure, at most ``most_s`` after the last
    one.  Failures older than ``forget_s`` (none since) are forgotten; a success forgets
    them at once.  The wait is bounded: a backoff, never a lockout.
    """

    free: int = 5
    first_s: float = 1.0
    most_s: float = 60.0
    forget_s: float = 3600.0

    def wait_s(self, failures: int) -> float:
        """Seconds from the last failure before the next attempt, after ``failures``."""
        if failures < self.free:
            return 0.0
        return float(min(self.first_s * 2 ** min(failures - self.free, 32), self.most_s))


@dataclass(frozen=True, slots=True)
class LoginAttempt:
    """A log-in attempt as :meth:`SqlAccountRepository.begin_login` counted it.

    Attributes:
        key: what it counts against: ``name:NAME``, or ``device:SHA256`` for a browser
            that logged in to that account before (``trusted``).
        wait_s: 0 when the password may be checked now; else how long until it may.
        trusted: whether it comes from a browser trusted for the account.
    """

    key: str
    wait_s: float
    trusted: bool


class UserExistsError(StoreError, ConflictError):
    """Raised for a user name that is taken."""


class ConfusableUserNameError(UserExistsError):
    """Raised for a user name that looks like an existing account's (the same skeleton)."""


class InviteNotUsableError(StoreError, ForbiddenError):
    """Raised for a sign-up whose invitation is unknown, used or expired."""


class UserNotFoundError(StoreError, NotFoundError):
    """Raised for a user that does not exist."""


class SnakeExistsError(StoreError, ConflictError):
    """Raised for a snake name its owner already uses."""


class SnakeNotFoundError(StoreError, NotFoundError):
    """Raised for a registered snake that does not exist (or that the asker may not see)."""


@dataclass(frozen=True, slots=True)
class User:
    """An account.

    Attributes:
        id: the user's number.
        name: the login name (lowercase).
        role: ``user`` or ``admin``.
        disabled: a disabled account cannot log in and its tokens stop working.
        created_at: when it was made.
    """

    id: int
    name: str
    role: str
    disabled: bool
    created_at: dt.datetime

    @property
    def is_admin(self) -> bool:
        """Whether the user may administer the server."""
        return self.role == "admin"


@dataclass(frozen=True, slots=True)
class ApiToken:
    """An API token as listed (its secret is never stored, so never shown again)."""

    id: int
    label: str
    created_at: dt.datetime
    last_used_at: dt.datetime | None
    revoked: bool


class InviteStatus(StrEnum):
    """A sign-up invitation's status; each value is the string the API shows."""

    OPEN = "open"
    USED = "used"
    EXPIRED = "expired"


@dataclass(frozen=True, slots=True)
class Invite:
    """A sign-up invitation as listed (its code is never stored, so never shown again).

    Attributes:
        id: the SHA-256 of its code (hex): what lists and revokes it; it cannot sign
            anyone up.
        created_at: when it was made.
        expires_at: when it stops working.
        made_by: the admin who made it (``None``: made outside the web, or deleted).
        used_by: the account it made, ``None`` while it is unused.
    """

    id: str
    created_at: dt.datetime
    expires_at: dt.datetime
    made_by: str | None
    used_by: str | None

    def status(self, when: dt.datetime | None = None) -> InviteStatus:
        """Whether it was used, has expired (unused, past ``expires_at``) or is open."""
        if self.used_by is not None:
            return InviteStatus.USED
        return InviteStatus.EXPIRED if self.expires_at <= (when or now()) else InviteStatus.OPEN


@dataclass(frozen=True, slots=True)
class StoredSnake:
    """A registered bot.

    Attributes:
        id: its number.
        owner: its owner's user name.
        owner_id: its owner's id.
        name: its name, unique per owner.
        game: the game it plays (a registry key).
        kind: ``url`` (an HTTP snake), ``program`` (an operator's argv) or ``upload``.
        url: the snake's URL (``url`` kind).
        argv: the command, as a list (``program`` kind).
        language: the archive's language (``upload`` kind).
        workdir: the folder of the program's files (``program`` kind).
        archive_size: bytes of the uploaded archive (0 for other kinds).
        visibility: ``public`` (anyone may play it) or ``private`` (its owner only).
        paused: a paused snake is not matched in games.
        archive_sha256: the SHA-256 of its archive (``upload`` kind), hex: what a
            worker fetches it by (:meth:`SqlSnakeRepository.archive_by_hash`).
        build_status: an upload's build: ``ready``, ``failed``, or ``None`` (not built:
            other kinds, uploads stored before builds, which run from their archive).
        build_error: why the build failed, in one line.
        build_sha256: the SHA-256 of the built folder (what runs), hex.
        tags: words its owner gave it (its language, its style), for the directory.
    """

    id: int
    owner: str
    owner_id: int
    name: str
    game: str
    kind: str
    url: str | None
    argv: tuple[str, ...] | None
    language: str | None
    workdir: str | None
    archive_size: int
    visibility: str
    paused: bool
    created_at: dt.datetime
    updated_at: dt.datetime
    archive_sha256: str | None = None
    build_status: str | None = None
    build_error: str | None = None
    build_sha256: str | None = None
    tags: tuple[str, ...] = ()

    @property
    def ref(self) -> str:
        """How games, ladders and tournaments name it: ``@owner/name``."""
        return f"@{self.owner}/{self.name}"


def _user(row: UserModel) -> User:
    return User(row.id, row.name, row.role, row.disabled, utc(row.created_at))


class SqlAccountRepository:
    """Users, sessions, API tokens and invitations of a :class:`Database`."""

    def __init__(self, db: Database) -> None:
        self._db = db

    # -- users --------------------------------------------------------------------------

    def create_user(
        self,
        name: str,
        password_hash: str,
        role: str = "user",
        *,
        invite: str | None = None,
        allow_reserved: bool = False,
    ) -> User:
        """Add an account; with ``invite`` (a code's hash), spend that invitation on it.

        The account and the invitation are one transaction: an invitation is used only
        by an account that is made (a taken or refused name leaves it usable), and of
        two sign-ups racing for one invitation exactly one is made.  A name that looks
        like an existing account's is refused (:mod:`snakewar.storage.usernames`), and
        so is a reserved one unless ``allow_reserved`` (the local server's own user).

        Raises:
            StoreError: a name outside :data:`USER_NAME`, or a role not in :data:`ROLES`.
            ReservedUserNameError: a reserved name, or one that looks like it.
            UserExistsError: if the name is taken (:class:`ConfusableUserNameError`:
                an existing name looks like it).
            InviteNotUsableError: ``invite`` is unknown, used or expired.
        """
        if not USER_NAME.match(name):
            raise StoreError(
                f"user name {name[:40]!r}: expected 1 to 32 lowercase letters, digits, "
                "'_' or '-', starting with a letter or digit"
            )
        if role not in ROLES:
            raise StoreError(f"role {role!r}: expected one of {', '.join(ROLES)}")
        if not allow_reserved:
            check_new_user_name(name)
        try:
            with self._db.session() as session:
                names = session.scalars(sa.select(UserModel.name)).all()
                if name in names:
                    raise UserExistsError(f"user name {name!r} is taken")
                twin = confusable_with(name, names)
                if twin is not None:
                    raise ConfusableUserNameError(
                        f"name: {name!r} looks like the existing user {twin!r}; pick another name"
                    )
                row = UserModel(
                    name=name,
                    password_hash=password_hash,
                    role=role,
                    disabled=False,
                    created_at=now(),
                )
                session.add(row)
                session.flush()
                if invite is not None and not self._spend_invite(session, invite, name):
                    # Raised inside the transaction: the account is rolled back with it.
                    raise InviteNotUsableError(
                        "invite: this invitation is not valid (used or expired?)"
                    )
                return _user(row)
        except IntegrityError:
            raise UserExistsError(f"user name {name!r} is taken") from None

    def user(self, name: str) -> User:
        """The user called ``name``.

        Raises:
            UserNotFoundError: if there is none.
        """
        with self._db.session() as session:
            row = session.scalars(sa.select(UserModel).where(UserModel.name == name)).first()
            if row is None:
                raise UserNotFoundError(f"no user named {name[:40]!r}")
            return _user(row)

    def password_hash(self, name: str) -> tuple[User, str] | None:
        """The user called ``name`` and their password hash, or ``None``."""
        with self._db.session() as session:
            row = session.scalars(sa.select(UserModel).where(UserModel.name == name)).first()
            return None if row is None else (_user(row), row.password_hash)

    def set_password_hash(self, user_id: int, password_hash: str) -> None:
        """Replace a user's password hash (a rehash with newer parameters, a new password)."""
        with self._db.session() as session:
            session.execute(
                sa.update(UserModel)
                .where(UserModel.id == user_id)
                .values(password_hash=password_hash)
            )

    def users(self) -> list[User]:
        """Every account, oldest first."""
        with self._db.session() as session:
            return [_user(r) for r in session.scalars(sa.select(UserModel).order_by(UserModel.id))]

    def count_users(self) -> int:
        """How many accounts there are."""
        with self._db.session() as session:
            return int(session.scalar(sa.select(sa.func.count()).select_from(UserModel)) or 0)

    def stored_bytes(self, user_id: int) -> int:
        """The bytes of ``user_id``'s uploads: replays and bot archives (its quota's use)."""
        with self._db.session() as session:
            return stored_bytes(session, user_id)

    def stored_by_user(self) -> dict[int, int]:
        """Every user's stored upload bytes, by user id (those who store none left out)."""
        with self._db.session() as session:
            return stored_by_user(session)

    def update_user(
        self, name: str, *, role: str | None = None, disabled: bool | None = None
    ) -> User:
        """Change a user's role or disable/enable the account.

        Disabling ends every session of theirs and revokes every API token, for good:
        enabling the account again revives none of them (the user logs in again and
        makes new tokens), so whatever leaked while it was disabled stays useless.

        Raises:
            UserNotFoundError: if there is no such user.
            StoreError: an unknown role.
        """
        if role is not None and role not in ROLES:
            raise StoreError(f"role {role!r}: expected one of {', '.join(ROLES)}")
        with self._db.session() as session:
            row = session.scalars(sa.select(UserModel).where(UserModel.name == name)).first()
            if row is None:
                raise UserNotFoundError(f"no user named {name[:40]!r}")
            if role is not None:
                row.role = role
            if disabled is not None:
                row.disabled = disabled
                if disabled:
                    self._end_logins(session, row.id)
            return _user(row)

    def reset_password(self, name: str, password_hash: str) -> User:
        """Give a user a new password: every session of theirs ends, every token is revoked.

        Raises:
            UserNotFoundError: if there is no such user.
        """
        with self._db.session() as session:
            row = session.scalars(sa.select(UserModel).where(UserModel.name == name)).first()
            if row is None:
                raise UserNotFoundError(f"no user named {name[:40]!r}")
            row.password_hash = password_hash
            self._end_logins(session, row.id)
            return _user(row)

    @staticmethod
    def _end_logins(session: Session, user_id: int) -> None:
        """End a user's sessions, revoke their live API tokens and trust no browser of theirs.

        A browser trusted for log-ins proved it knew a password that is gone now.
        """
        session.execute(sa.delete(SessionModel).where(SessionModel.user_id == user_id))
        session.execute(sa.delete(LoginDeviceModel).where(LoginDeviceModel.user_id == user_id))
        session.execute(
            sa.update(ApiTokenModel)
            .where(ApiTokenModel.user_id == user_id, ApiTokenModel.revoked_at.is_(None))
            .values(revoked_at=now())
        )

    def change_password(
        self, user_id: int, password_hash: str, keep_session: str | None = None
    ) -> None:
        """A user's new password; their other browser sessions end (``keep_session`` stays)."""
        with self._db.session() as session:
            session.execute(
                sa.update(UserModel)
                .where(UserModel.id == user_id)
                .values(password_hash=password_hash)
            )
            others = sa.delete(SessionModel).where(SessionModel.user_id == user_id)
            if keep_session is not None:
                others = others.where(SessionModel.id != keep_session)
            session.execute(others)

    # -- log-in backoff -----------------------------------------------------------------

    def begin_login(
        self,
        name: str,
        device: str | None = None,
        backoff: Backoff | None = None,
        stamp: dt.datetime | None = None,
    ) -> LoginAttempt:
        """Count an attempt to log in to ``name`` before its password is checked.

        It counts as a failure until :meth:`end_login` says it succeeded: concurrent
        guesses (from any number of addresses and servers) are counted one by one, in
        the database, each before its check.  While the count's backoff lasts the
        attempt is refused (``wait_s`` > 0) and not counted.  Names with no account are
        counted alike, so the answers tell nobody which names exist.

        Args:
            name: the account name given.
            device: the SHA-256 of the browser's device cookie, if it sent one: a
                browser that logged in to ``name`` before counts on its own.
            backoff: the policy (default :class:`Backoff`).
            stamp: the time now (default: the clock).
        """
        backoff = backoff or Backoff()
        stamp = stamp or now()
        # Each try reads the count and writes it back only if nobody changed it in
        # between (compare and set: SQLite's reads take no lock); a lost race reads again.
        for _ in range(100):
            try:
                attempt = self._begin_login(name, device, backoff, stamp)
            except IntegrityError:  # another server counted the same key first
                continue
            if attempt is not None:
                return attempt
        raise StoreError(f"log-in attempts on {name[:40]!r} could not be counted; try again")

    def _begin_login(
        self, name: str, device: str | None, backoff: Backoff, stamp: dt.datetime
    ) -> LoginAttempt | None:
        forget = stamp - dt.timedelta(seconds=backoff.forget_s)
        with self._db.session() as session:
            trusted = device is not None and (
                session.scalar(
                    sa.select(LoginDeviceModel.id)
                    .join(UserModel, UserModel.id == LoginDeviceModel.user_id)
                    .where(
                        LoginDeviceModel.id == device,
                        UserModel.name == name,
                        LoginDeviceModel.created_at > stamp - DEVICE_LIFETIME,
                    )
                )
                is not None
            )
            key = f"device:{device}" if trusted else f"name:{name}"
            row = session.execute(
                sa.select(LoginFailureModel.failures, LoginFailureModel.last_failed_at).where(
                    LoginFailureModel.key == key
                )
            ).first()
            if row is None:
                session.add(LoginFailureModel(key=key, failures=1, last_failed_at=stamp))
                session.flush()
                return LoginAttempt(key, 0.0, trusted)
            last = utc(row.last_failed_at)
            failures = row.failures if last > forget else 0
            wait = backoff.wait_s(failures) - (stamp - last).total_seconds()
            if wait > 0:
                return LoginAttempt(key, wait, trusted)
            counted = session.execute(
                sa.update(LoginFailureModel)
                .where(
                    LoginFailureModel.key == key,
                    LoginFailureModel.failures == row.failures,
                    LoginFailureModel.last_failed_at == row.last_failed_at,
                )
                .values(failures=failures + 1, last_failed_at=stamp)
            )
            if not getattr(counted, "rowcount", 0):
                return None
            # Counts nobody added to for a while are forgotten: the table stays small.
            session.execute(
                sa.delete(LoginFailureModel).where(LoginFailureModel.last_failed_at < forget)
            )
            return LoginAttempt(key, 0.0, trusted)

    def end_login(
        self,
        attempt: LoginAttempt,
        user_id: int | None = None,
        device: str | None = None,
        stamp: dt.datetime | None = None,
    ) -> None:
        """An attempt's password was right: its count of failures is forgotten.

        Args:
            attempt: what :meth:`begin_login` answered.
            user_id: the account logged in to (to trust ``device`` for).
            device: the SHA-256 of a new device cookie to trust for ``user_id``'s
                log-ins (a browser that just proved it knows the password).
            stamp: the time now (default: the clock).
        """
        stamp = stamp or now()
        with self._db.session() as session:
            session.execute(
                sa.delete(LoginFailureModel).where(LoginFailureModel.key == attempt.key)
            )
            if user_id is None or device is None:
                return
            session.add(LoginDeviceModel(id=device, user_id=user_id, created_at=stamp))
            session.flush()
            kept = (
                sa.select(LoginDeviceModel.id)
                .where(LoginDeviceModel.user_id == user_id)
                .order_by(LoginDeviceModel.created_at.desc(), LoginDeviceModel.id)
                .limit(MAX_DEVICES_PER_USER)
            )
            session.execute(
                sa.delete(LoginDeviceModel).where(
                    LoginDeviceModel.user_id == user_id,
                    sa.or_(
                        LoginDeviceModel.created_at <= stamp - DEVICE_LIFETIME,
                        LoginDeviceModel.id.not_in(kept.scalar_subquery()),
                    ),
                )
            )

    # -- sessions -----------------------------------------------------------------------

    def create_session(
        self, user_id: int, secret_hash: str, csrf: str, expires_at: dt.datetime
    ) -> None:
        """Store a browser login (keyed by the SHA-256 of its cookie secret)."""
        with self._db.session() as session:
            stamp = now()
            # Expired logins are forgotten as new ones arrive: the table stays small.
            session.execute(sa.delete(SessionModel).where(SessionModel.expires_at < stamp))
            session.add(
                SessionModel(
                    id=secret_hash,
                    user_id=user_id,
                    csrf=csrf,
                    created_at=stamp,
                    expires_at=expires_at,
                )
            )

    def session_user(self, secret_hash: str) -> tuple[User, str] | None:
        """The user of a live, unexpired session and its CSRF token, or ``None``."""
        with self._db.session() as session:
            found = session.execute(
                sa.select(UserModel, SessionModel.csrf, SessionModel.expires_at)
                .join(SessionModel, SessionModel.user_id == UserModel.id)
                .where(SessionModel.id == secret_hash)
            ).first()
            if found is None:
                return None
            user, csrf, expires_at = found
            if utc(expires_at) <= now() or user.disabled:
                return None
            return _user(user), csrf

    def delete_session(self, secret_hash: str) -> None:
        """Log a browser out."""
        with self._db.session() as session:
            session.execute(sa.delete(SessionModel).where(SessionModel.id == secret_hash))

    # -- API tokens ---------------------------------------------------------------------

    def create_token(self, user_id: int, label: str, token_hash: str) -> ApiToken:
        """Store a new API token (its SHA-256)."""
        with self._db.session() as session:
            row = ApiTokenModel(
                user_id=user_id, label=label, token_hash=token_hash, created_at=now()
            )
            session.add(row)
            session.flush()
            return ApiToken(row.id, row.label, utc(row.created_at), None, False)

    def tokens(self, user_id: int) -> list[ApiToken]:
        """A user's tokens, oldest first (revoked ones too)."""
        with self._db.session() as session:
            rows = session.scalars(
                sa.select(ApiTokenModel)
                .where(ApiTokenModel.user_id == user_id)
                .order_by(ApiTokenModel.id)
            )
            return [
                ApiToken(
                    r.id,
                    r.label,
                    utc(r.created_at),
                    utc(r.last_used_at) if r.last_used_at else None,
                    r.revoked_at is not None,
                )
                for r in rows
            ]

    def revoke_token(self, user_id: int, token_id: int) -> bool:
        """Revoke one of a user's tokens; False if the user has no such token."""
        with self._db.session() as session:
            result = session.execute(
                sa.update(ApiTokenModel)
                .where(
                    ApiTokenModel.id == token_id,
                    ApiTokenModel.user_id == user_id,
                    ApiTokenModel.revoked_at.is_(None),
                )
                .values(revoked_at=now())
            )
            return bool(getattr(result, "rowcount", 0))

    def token_user(self, token_hash: str) -> User | None:
        """The user of a live token (and note its use), or ``None``."""
        with self._db.session() as session:
            found = session.execute(
                sa.select(UserModel, ApiTokenModel)
                .join(ApiTokenModel, ApiTokenModel.user_id == UserModel.id)
                .where(ApiTokenModel.token_hash == token_hash)
            ).first()
            if found is None:
                return None
            user, token = found
            if token.revoked_at is not None or user.disabled:
                return None
            token.last_used_at = now()
            return _user(user)

    # -- invitations --------------------------------------------------------------------

    def create_invite(self, code_hash: str, user_id: int | None, expires_at: dt.datetime) -> None:
        """Store a sign-up invitation (its SHA-256)."""
        with self._db.session() as session:
            session.add(
                InviteModel(
                    code_hash=code_hash, user_id=user_id, created_at=now(), expires_at=expires_at
                )
            )

    def invites(self) -> list[Invite]:
        """Every invitation, newest first (used and expired ones too)."""
        query = (
            sa.select(InviteModel, UserModel.name)
            .outerjoin(UserModel, UserModel.id == InviteModel.user_id)
            .order_by(InviteModel.created_at.desc(), InviteModel.code_hash)
            .limit(1000)
        )
        with self._db.session() as session:
            return [
                Invite(row.code_hash, utc(row.created_at), utc(row.expires_at), maker, row.used_by)
                for row, maker in session.execute(query)
            ]

    def delete_invite(self, code_hash: str) -> Literal["deleted", "used", "missing"]:
        """Revoke an unused invitation (it is deleted); a used one stays, as its record."""
        with self._db.session() as session:
            row = session.get(InviteModel, code_hash)
            if row is None:
                return "missing"
            if row.used_by is not None:
                return "used"
            session.delete(row)
            return "deleted"

    def use_invite(self, code_hash: str, name: str) -> bool:
        """Spend an unexpired, unused invitation for ``name``; False if there is none.

        A sign-up spends its invitation with its account instead
        (:meth:`create_user`'s ``invite``), so that a failed one leaves it usable.
        """
        with self._db.session() as session:
            return self._spend_invite(session, code_hash, name)

    @staticmethod
    def _spend_invite(session: Session, code_hash: str, name: str) -> bool:
        # One conditional UPDATE: of two transactions spending one invitation, the
        # second finds it used (PostgreSQL re-reads the row once the first commits).
        result = session.execute(
            sa.update(InviteModel)
            .where(
                InviteModel.code_hash == code_hash,
                InviteModel.used_by.is_(None),
                InviteModel.expires_at > now(),
            )
            .values(used_by=name)
        )
        return bool(getattr(result, "rowcount", 0))


class SqlSnakeRepository:
    """The registered snakes (bots) of a :class:`Database`."""

    def __init__(self, db: Database) -> None:
        self._db = db

    @staticmethod
    def _out(row: SnakeModel, owner: str) -> StoredSnake:
        return StoredSnake(
            id=row.id,
            owner=owner,
            owner_id=row.owner_id,
            name=row.name,
            game=row.game,
            kind=row.kind,
            url=row.url,
            argv=tuple(row.argv) if row.argv is not None else None,
            language=row.language,
            workdir=row.workdir,
            archive_size=len(row.archive or b""),
            visibility=row.visibility,
            paused=row.paused,
            created_at=utc(row.created_at),
            updated_at=utc(row.updated_at),
            archive_sha256=row.archive_sha256,
            build_status=row.build_status,
            build_error=row.build_error,
            build_sha256=row.build_sha256,
            tags=tuple(str(t) for t in row.tags or ()),
        )

    def register(
        self,
        owner_id: int,
        name: str,
        game: str,
        kind: SnakeKind,
        *,
        url: str | None = None,
        argv: Sequence[str] | None = None,
        language: str | None = None,
        archive: bytes | None = None,
        workdir: str | None = None,
        visibility: str = "public",
        quota: int | None = None,
        build_status: str | None = None,
        tags: Sequence[str] = (),
    ) -> StoredSnake:
        """Register a snake for ``owner_id`` (what it is has been checked by the caller).

        ``quota`` (bytes; ``None``: no cap) caps what the owner stores of uploads, this
        snake's ``archive`` included (:mod:`snakewar.storage.quota`).  ``build_status``:
        ``building`` for an upload about to be built (:meth:`set_build` records how).

        Raises:
            StoreError: a name outside :data:`SNAKE_NAME`, an unknown visibility.
            SnakeExistsError: if the owner has a snake of that name.
            UserNotFoundError: if there is no such owner.
            QuotaExceededError: if the archive would take its owner past ``quota``.
        """
        _check_snake_name(name)
        _check_visibility(visibility)
        _check_tags(tags)
        stamp = now()
        try:
            with self._db.session() as session:
                if archive is not None:
                    hold_quota(session, owner_id, len(archive), quota)
                owner = session.get(UserModel, owner_id)
                if owner is None:
                    raise UserNotFoundError(f"no user with id {owner_id}")
                row = SnakeModel(
                    owner_id=owner_id,
                    name=name,
                    game=game,
                    kind=kind,
                    url=url,
                    argv=list(argv) if argv is not None else None,
                    language=language,
                    archive=archive,
                    archive_sha256=None if archive is None else hashlib.sha256(archive).hexdigest(),
                    workdir=workdir,
                    visibility=visibility,
                    tags=list(tags) or None,
                    paused=False,
                    created_at=stamp,
                    updated_at=stamp,
                    build_status=build_status,
                )
                session.add(row)
                session.flush()
                return self._out(row, owner.name)
        except IntegrityError:
            raise SnakeExistsError(f"you already have a snake named {name!r}") from None

    def _select(self) -> Any:
        return sa.select(SnakeModel, UserModel.name).join(
            UserModel, UserModel.id == SnakeModel.owner_id
        )

    def get(self, snake_id: int) -> StoredSnake:
        """The snake ``snake_id``.

        Raises:
            SnakeNotFoundError: if there is none.
        """
        with self._db.session() as session:
            found = session.execute(self._select().where(SnakeModel.id == snake_id)).first()
            if found is None:
                raise SnakeNotFoundError(f"no snake with id {snake_id}")
            return self._out(found[0], found[1])

    def by_ref(self, owner: str, name: str) -> StoredSnake:
        """The snake ``@owner/name``.

        Raises:
            SnakeNotFoundError: if there is none.
        """
        with self._db.session() as session:
            found = session.execute(
                self._select().where(UserModel.name == owner, SnakeModel.name == name)
            ).first()
            if found is None:
                raise SnakeNotFoundError(f"no snake @{owner[:32]}/{name[:40]}")
            return self._out(found[0], found[1])

    def archive(self, snake_id: int) -> bytes:
        """The uploaded archive of an ``upload`` snake (empty for other kinds)."""
        with self._db.session() as session:
            row = session.get(SnakeModel, snake_id)
            if row is None:
                raise SnakeNotFoundError(f"no snake with id {snake_id}")
            return row.archive or b""

    def archive_by_hash(self, sha256: str) -> bytes | None:
        """The uploaded archive whose SHA-256 is ``sha256`` (hex), or ``None``.

        Archives are addressed by content: whichever snake holds these bytes, they are
        the same bytes (the caller checks the hash of what it got).
        """
        if not re.fullmatch(r"[0-9a-f]{64}", sha256):
            return None
        with self._db.session() as session:
            found = session.scalar(
                sa.select(SnakeModel.archive).where(SnakeModel.archive_sha256 == sha256).limit(1)
            )
            if found is None:  # a built bot's folder is addressed the same way
                found = session.scalar(
                    sa.select(SnakeModel.build).where(SnakeModel.build_sha256 == sha256).limit(1)
                )
            return None if found is None else bytes(found)

    def set_build(
        self,
        snake_id: int,
        status: Literal["ready", "failed"],
        *,
        language: str,
        log: str,
        error: str = "",
        build: bytes = b"",
        quota: int | None = None,
    ) -> StoredSnake:
        """Record how the upload ``snake_id`` was built (as ``language``).

        ``build`` is the built folder of a ``ready`` build; ``quota`` caps what its
        owner stores, the built folder included (:mod:`snakewar.storage.quota`).

        Raises:
            SnakeNotFoundError: if there is no such snake.
            QuotaExceededError: if the built folder would take its owner past ``quota``.
        """
        with self._db.session() as session:
            found = session.execute(self._select().where(SnakeModel.id == snake_id)).first()
            if found is None:
                raise SnakeNotFoundError(f"no snake with id {snake_id}")
            row, owner = found
            if build:
                hold_quota(session, row.owner_id, len(build), quota)
            row.language = language
            row.build_status = status
            row.build_error = error[:300] or None
            row.build_log = log
            row.build = build or None
            row.build_sha256 = hashlib.sha256(build).hexdigest() if build else None
            row.updated_at = now()
            return self._out(row, owner)

    def begin_build(self, snake_id: int) -> bool:
        """Mark the upload ``snake_id`` ``building`` unless it is already; whether it was not.

        One statement, so that two servers (or two requests) asking at once start one
        build.  The last build's error and log are cleared (they are not this build's);
        its built folder stays until this build records its own (:meth:`set_build`).

        Raises:
            SnakeNotFoundError: if there is no such snake.
        """
        building = SnakeModel.build_status == "building"
        with self._db.session() as session:
            if session.get(SnakeModel, snake_id) is None:
                raise SnakeNotFoundError(f"no snake with id {snake_id}")
            changed = session.execute(
                sa.update(SnakeModel)
                .where(SnakeModel.id == snake_id)
                .where(sa.or_(SnakeModel.build_status.is_(None), sa.not_(building)))
                .values(build_status="building", build_error=None, build_log=None, updated_at=now())
                .execution_options(synchronize_session=False)
            )
            return bool(cast(CursorResult[Any], changed).rowcount)

    def renew_builds(self, snake_ids: Sequence[int]) -> None:
        """Say the builds of ``snake_ids`` still run (their ``updated_at`` is now).

        A build that stops being renewed (its server died) is failed by any server
        (:meth:`fail_stale_builds`).
        """
        if not snake_ids:
            return
        with self._db.session() as session:
            session.execute(
                sa.update(SnakeModel)
                .where(SnakeModel.id.in_(list(snake_ids)), SnakeModel.build_status == "building")
                .values(updated_at=now())
                .execution_options(synchronize_session=False)
            )

    def fail_build(self, snake_id: int, error: str) -> bool:
        """Fail the build of ``snake_id`` if it is still ``building``; whether it was."""
        with self._db.session() as session:
            changed = session.execute(self._failing(error).where(SnakeModel.id == snake_id))
            return bool(cast(CursorResult[Any], changed).rowcount)

    def fail_stale_builds(self, older_than_s: float, error: str) -> int:
        """Fail the builds no server renewed for ``older_than_s`` seconds; how many.

        Their server stopped before they ended (a crash, a kill): nothing would ever
        end them, and a bot left ``building`` could neither play nor be built again.
        """
        before = now() - dt.timedelta(seconds=older_than_s)
        with self._db.session() as session:
            changed = session.execute(self._failing(error).where(SnakeModel.updated_at < before))
            return int(cast(CursorResult[Any], changed).rowcount)

    @staticmethod
    def _failing(error: str) -> Any:
        # A failed build keeps no built folder, as set_build's failures do.
        return (
            sa.update(SnakeModel)
            .where(SnakeModel.build_status == "building")
            .values(
                build_status="failed",
                build_error=error[:300],
                build_log=f"(the build did not end: {error})",
                build=None,
                build_sha256=None,
                updated_at=now(),
            )
            .execution_options(synchronize_session=False)
        )

    def build_log(self, snake_id: int) -> str:
        """What the build of the upload ``snake_id`` printed ("" if it was not built).

        Raises:
            SnakeNotFoundError: if there is no such snake.
        """
        with self._db.session() as session:
            found = session.execute(
                sa.select(SnakeModel.build_log).where(SnakeModel.id == snake_id)
            ).first()
            if found is None:
                raise SnakeNotFoundError(f"no snake with id {snake_id}")
            return found[0] or ""

    def build(self, snake_id: int) -> bytes:
        """The built folder of the upload ``snake_id`` (empty when it has none)."""
        with self._db.session() as session:
            found = session.scalar(sa.select(SnakeModel.build).where(SnakeModel.id == snake_id))
            return b"" if found is None else bytes(found)

    def visible(
        self, viewer_id: int | None, *, admin: bool = False, game: str | None = None
    ) -> list[StoredSnake]:
        """Public snakes and ``viewer_id``'s own (every snake for an admin), newest first."""
        query = self._select().order_by(SnakeModel.id.desc()).limit(1000)
        if not admin:
            query = query.where(
                sa.or_(SnakeModel.visibility == "public", SnakeModel.owner_id == viewer_id)
            )
        if game is not None:
            query = query.where(SnakeModel.game == game)
        with self._db.session() as session:
            return [self._out(found[0], found[1]) for found in session.execute(query)]

    def directory(
        self,
        viewer_id: int | None,
        *,
        admin: bool = False,
        text: str = "",
        game: str | None = None,
        owner: str | None = None,
        limit: int = 50,
        offset: int = 0,
    ) -> tuple[list[StoredSnake], int]:
        """The snakes ``viewer_id`` may see that match a search, by name; and how many match.

        ``text`` is matched, case-insensitively, within the snake's name, its owner's
        name, its language and its tags (each word of it must match one of them).

        Raises:
            StoreError: a bad limit or offset, or a search too long.
        """
        if type(limit) is not int or not 1 <= limit <= 200:
            raise StoreError(f"limit {limit!r}: expected an integer from 1 to 200")
        if type(offset) is not int or not 0 <= offset <= 2**31:
            raise StoreError(f"offset {offset!r}: expected an integer from 0 to {2**31}")
        if len(text) > 100:
            raise StoreError("q: expected at most 100 characters")
        conditions: list[Any] = []
        if not admin:
            conditions.append(
                sa.or_(SnakeModel.visibility == "public", SnakeModel.owner_id == viewer_id)
            )
        if game is not None:
            conditions.append(SnakeModel.game == game)
        if owner is not None:
            conditions.append(UserModel.name == owner)
        for word in text.lower().split()[:8]:
            pattern = "%" + word.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
            conditions.append(
                sa.or_(
                    sa.func.lower(SnakeModel.name).like(pattern, escape="\\"),
                    UserModel.name.like(pattern, escape="\\"),
                    sa.func.lower(sa.func.coalesce(SnakeModel.language, "")).like(
                        pattern, escape="\\"
                    ),
                    sa.func.lower(sa.cast(SnakeModel.tags, sa.Text)).like(pattern, escape="\\"),
                )
            )
        query = (
            self._select()
            .where(*conditions)
            .order_by(sa.func.lower(SnakeModel.name), UserModel.name, SnakeModel.id)
            .limit(limit)
            .offset(offset)
        )
        count = (
            sa.select(sa.func.count())
            .select_from(SnakeModel)
            .join(UserModel, UserModel.id == SnakeModel.owner_id)
            .where(*conditions)
        )
        with self._db.session() as session:
            found = [self._out(row[0], row[1]) for row in session.execute(query)]
            return found, int(session.scalar(count) or 0)

    def count_owned(self, owner_id: int) -> int:
        """How many snakes ``owner_id`` has registered."""
        with self._db.session() as session:
            return int(
                session.scalar(
                    sa.select(sa.func.count())
                    .select_from(SnakeModel)
                    .where(SnakeModel.owner_id == owner_id)
                )
                or 0
            )

    def update(
        self,
        snake_id: int,
        *,
        url: str | None = None,
        visibility: str | None = None,
        paused: bool | None = None,
        tags: Sequence[str] | None = None,
    ) -> StoredSnake:
        """Change a snake's URL, visibility, paused state or tags.

        Raises:
            SnakeNotFoundError: if there is no such snake.
            StoreError: a bad visibility or tag.
        """
        if visibility is not None:
            _check_visibility(visibility)
        if tags is not None:
            _check_tags(tags)
        with self._db.session() as session:
            found = session.execute(self._select().where(SnakeModel.id == snake_id)).first()
            if found is None:
                raise SnakeNotFoundError(f"no snake with id {snake_id}")
            row, owner = found
            if url is not None:
                row.url = url
            if visibility is not None:
                row.visibility = visibility
            if paused is not None:
                row.paused = paused
            if tags is not None:
                row.tags = list(tags) or None
            row.updated_at = now()
            return self._out(row, owner)

    def delete(self, snake_id: int) -> bool:
        """Delete a snake; False if there was none."""
        with self._db.session() as session:
            result = session.execute(sa.delete(SnakeModel).where(SnakeModel.id == snake_id))
            return bool(getattr(result, "rowcount", 0))


def _check_snake_name(name: str) -> None:
    if not SNAKE_NAME.match(name):
        raise StoreError(
            f"snake name {name[:50]!r}: expected 1 to 40 letters, digits, '_', '.' or '-', "
            "starting with a letter or digit"
        )


def _check_tags(tags: Sequence[object]) -> None:
    if len(tags) > MAX_TAGS or not all(isinstance(t, str) and TAG.fullmatch(t) for t in tags):
        raise StoreError(
            f"tags: expected at most {MAX_TAGS} words of 1 to 24 lowercase letters, digits, "
            "'+', '#', '.' or '-'"
        )


def _check_visibility(visibility: str) -> None:
    if visibility not in ("public", "private"):
        raise StoreError(f"visibility {visibility!r}: expected public or private")
