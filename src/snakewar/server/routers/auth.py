"""``/api/auth``: sign up, log in, log out, who am I, your password, and invitations (admins).

An invitation's code is shown once, when it is made; it is listed and revoked by its
``id`` (the code's SHA-256, which signs nobody up).  The sign-up page takes it from
its link, ``/login?invite=CODE``.
"""

from __future__ import annotations

from fastapi import APIRouter, Depends, Path, Request, Response

from snakewar.errors import ConflictError, NotFoundError, UnauthorizedError
from snakewar.server.auth import (
    DEVICE_COOKIE,
    INVITE_LIFETIME,
    SESSION_COOKIE,
    SESSION_LIFETIME,
    AdminDep,
    LoginBackoffError,
    NotAllowedError,
    PrincipalDep,
    SignupClosedError,
    UserDep,
    clear_session_cookie,
    digest,
    get_principal,
    issue_invite,
    new_secret,
    set_device_cookie,
    set_session_cookie,
)
from snakewar.server.deps import ConfigDep, PasswordsDep, StoreDep, client_key
from snakewar.server.patterns import INVITE_ID
from snakewar.server.safety import RateLimitError
from snakewar.server.schemas import (
    NO_CONTENT,
    ChangePassword,
    Credentials,
    InviteInfoOut,
    InviteOut,
    MeOut,
    Signup,
    UserOut,
)
from snakewar.storage import User
from snakewar.storage.accounts import LoginAttempt
from snakewar.storage.database import now
from snakewar.storage.usernames import check_new_user_name

__all__ = ["INVITE_LIFETIME", "router", "user_out"]

# Every route knows its requester first: a log-in or sign-up posted from another site's
# page (login CSRF) is refused by the same Origin check as any change.
router = APIRouter(prefix="/api/auth", tags=["accounts"], dependencies=[Depends(get_principal)])


def user_out(user: User) -> UserOut:
    """An account as the API shows it."""
    return UserOut(
        name=user.name,
        role=user.role,
        disabled=user.disabled,
        created_at=user.created_at.isoformat(),
    )


def _secure(request: Request) -> bool:
    return request.url.scheme == "https"


async def _throttle(request: Request) -> None:
    # Every attempt counts, failed ones too: this is what slows password guessing.
    if not await request.app.state.login_limiter.take(client_key(request)):
        raise RateLimitError("too many log-in or sign-up attempts from this address; wait a minute")


def _device(request: Request) -> str | None:
    """The SHA-256 of the browser's device cookie, if it sent one."""
    cookie = request.cookies.get(DEVICE_COOKIE)
    return digest(cookie) if cookie and len(cookie) <= 100 else None


async def _attempt(request: Request, store: StoreDep, name: str) -> LoginAttempt:
    """Count a password check on account ``name`` (its backoff), before it is made.

    Raises:
        LoginBackoffError: while the account's backoff (or the browser's) lasts.
    """
    backoff = request.app.state.config.login_backoff
    attempt: LoginAttempt = await store.run(
        store.store.accounts.begin_login, name, _device(request), backoff
    )
    if attempt.wait_s > 0:
        raise LoginBackoffError(attempt.wait_s)
    return attempt


async def _log_in(request: Request, response: Response, store: StoreDep, user: User) -> MeOut:
    secret, csrf = new_secret(), new_secret()
    await store.run(
        store.store.accounts.create_session,
        user.id,
        digest(secret),
        csrf,
        now() + SESSION_LIFETIME,
    )
    set_session_cookie(response, secret, secure=_secure(request))
    config = request.app.state.config
    return MeOut(user=user_out(user), via="session", csrf=csrf, signup=config.signup, public=True)


@router.get("/me")
async def me(principal: PrincipalDep, config: ConfigDep) -> MeOut:
    """Who the requester is, and the CSRF token a logged-in page repeats."""
    return MeOut(
        user=user_out(principal.user) if principal.user is not None else None,
        via=principal.via,
        csrf=principal.csrf,
        signup=config.signup,
        public=config.public,
    )


@router.post("/signup", status_code=201)
async def signup(
    body: Signup,
    request: Request,
    response: Response,
    store: StoreDep,
    config: ConfigDep,
    passwords: PasswordsDep,
) -> MeOut:
    """Make an account and log in (open sign-up, or with an invitation)."""
    if not config.public:
        raise SignupClosedError("a local server has one user and needs no account")
    await _throttle(request)
    if config.signup == "closed":
        raise SignupClosedError("sign-up is closed on this server; ask its admin for an account")
    if config.signup == "invite" and body.invite is None:
        raise SignupClosedError("invite: this server signs up by invitation only")
    check_new_user_name(body.name)  # before the slow hash: refused at once
    password_hash = await passwords.hash(body.password)
    # The invitation is spent with the account, in one transaction: a sign-up that
    # fails (a taken or refused name) leaves it usable, and of two sign-ups racing
    # for it exactly one is made.
    invite = digest(body.invite) if config.signup == "invite" and body.invite else None
    user = await store.run(
        store.store.accounts.create_user, body.name, password_hash, invite=invite
    )
    # The admins who asked are told, in the background: the sign-up never waits for it.
    notifier = getattr(request.app.state, "notifier", None)
    if notifier is not None:
        notifier.signed_up(user.name)
    return await _log_in(request, response, store, user)


@router.post("/login")
async def login(
    body: Credentials,
    request: Request,
    response: Response,
    store: StoreDep,
    config: ConfigDep,
    passwords: PasswordsDep,
) -> MeOut:
    """Log in: a session cookie (HttpOnly, SameSite=Strict) and the page's CSRF token.

    Failed log-ins in a row slow the account's next ones down (429 with
    ``Retry-After``: after 5 failures 1 s, doubling, at most 60 s; failures are
    forgotten after an hour without one), whatever address they come from; a browser
    that logged in to the account before counts apart.
    """
    if not config.public:
        raise SignupClosedError("a local server needs no log-in")
    await _throttle(request)
    attempt = await _attempt(request, store, body.name)
    found = await store.run(store.store.accounts.password_hash, body.name)
    stored = found[1] if found is not None else None
    if not await passwords.verify(stored, body.password) or found is None or found[0].disabled:
        raise UnauthorizedError("wrong user name or password")
    # A browser that logs in is trusted for this account's log-ins from now on.
    device = None if attempt.trusted else new_secret()
    await store.run(
        store.store.accounts.end_login,
        attempt,
        found[0].id,
        digest(device) if device is not None else None,
    )
    if device is not None:
        set_device_cookie(response, device, secure=_secure(request))
    return await _log_in(request, response, store, found[0])


@router.post("/logout", status_code=204, responses=NO_CONTENT)
async def logout(request: Request, principal: PrincipalDep, store: StoreDep) -> Response:
    """Log this browser out (its session ends on the server too)."""
    response = Response(status_code=204)
    cookie = request.cookies.get(SESSION_COOKIE)
    if principal.via == "session" and cookie is not None:
        await store.run(store.store.accounts.delete_session, digest(cookie))
    clear_session_cookie(response, secure=_secure(request))
    return response


@router.post("/invites", status_code=201)
async def create_invite(admin: AdminDep, store: StoreDep) -> InviteOut:
    """A one-use sign-up invitation, valid for a week (admins)."""
    code, expires = await store.run(issue_invite, store.store, admin.id)
    return InviteOut(code=code, expires_at=expires.isoformat(), id=digest(code))


@router.get("/invites")
async def list_invites(admin: AdminDep, store: StoreDep) -> list[InviteInfoOut]:
    """Every invitation, newest first: open, used (by whom) or expired (admins)."""
    del admin
    stamp = now()
    return [
        InviteInfoOut(
            id=invite.id,
            created_at=invite.created_at.isoformat(),
            expires_at=invite.expires_at.isoformat(),
            made_by=invite.made_by,
            used_by=invite.used_by,
            status=invite.status(stamp),
        )
        for invite in await store.run(store.store.accounts.invites)
    ]


@router.delete("/invites/{invite_id}", status_code=204, responses=NO_CONTENT)
async def revoke_invite(
    admin: AdminDep,
    store: StoreDep,
    invite_id: str = Path(**INVITE_ID.limits()),
) -> Response:
    """Revoke an unused invitation: its link stops working at once (admins).

    A used invitation stays listed (409): it is the record of who signed up with it.
    """
    del admin
    done = await store.run(store.store.accounts.delete_invite, invite_id)
    if done == "missing":
        raise NotFoundError(f"no invitation with id {invite_id[:12]}...")
    if done == "used":
        raise ConflictError(f"invitation {invite_id[:12]}... is used; it cannot be revoked")
    return Response(status_code=204)


@router.post("/password", status_code=204, responses=NO_CONTENT)
async def change_password(
    body: ChangePassword,
    request: Request,
    principal: UserDep,
    store: StoreDep,
    passwords: PasswordsDep,
) -> Response:
    """Change your own password (your other browser sessions end; this one stays).

    After an admin's reset, this is how the one-time password is replaced.
    """
    user = principal.user
    assert user is not None
    if principal.via == "local":
        raise NotAllowedError("a local server's user has no password")
    # It checks a password: as slow to guess as a log-in, the account's backoff included.
    await _throttle(request)
    attempt = await _attempt(request, store, user.name)
    found = await store.run(store.store.accounts.password_hash, user.name)
    stored = found[1] if found is not None else None
    if not await passwords.verify(stored, body.current_password):
        # 403, not 401: the requester is known, the password typed is wrong.
        raise NotAllowedError("current_password: this is not your password")
    await store.run(store.store.accounts.end_login, attempt)
    cookie = request.cookies.get(SESSION_COOKIE)
    keep = digest(cookie) if principal.via == "session" and cookie is not None else None
    await store.run(
        store.store.accounts.change_password,
        user.id,
        await passwords.hash(body.new_password),
        keep,
    )
    return Response(status_code=204)
