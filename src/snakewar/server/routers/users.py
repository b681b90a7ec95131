"""``/api/users``: the accounts of a server (admins): list, role, disable, reset a password.

The list shows what each account stores of uploads (``.hlt`` replays and bot archives)
against its storage quota (:mod:`snakewar.storage.quota`).

A reset gives the account a new random password, shown once to the admin, who passes
it on; the user's sessions end and their API tokens are revoked, so whoever held the
account before is out.  The user then picks their own password on their account page
(``POST /api/auth/password``).
"""

from __future__ import annotations

import secrets

from fastapi import APIRouter, Path

from snakewar.server.auth import LOCAL_USER, AdminDep, NotAllowedError
from snakewar.server.deps import ConfigDep, PasswordsDep, StoreDep
from snakewar.server.routers.auth import user_out
from snakewar.server.schemas import AccountOut, PasswordResetOut, UpdateUser, UserOut

__all__ = ["router"]

router = APIRouter(prefix="/api/users", tags=["accounts"])

NamePath = Path(min_length=1, max_length=32, pattern=r"^[a-z0-9][a-z0-9_-]*$")

RESET_PASSWORD_BYTES = 12
"""Randomness of a reset password: 96 bits, 16 URL-safe characters (easy to pass on)."""


@router.get("")
async def list_users(admin: AdminDep, store: StoreDep, config: ConfigDep) -> list[AccountOut]:
    """Every account, with what it stores of uploads and its quota (admins)."""
    del admin
    users = await store.run(store.store.accounts.users)
    stored = await store.run(store.store.accounts.stored_by_user)
    return [
        AccountOut(
            **user_out(user).model_dump(),
            stored_bytes=stored.get(user.id, 0),
            quota_bytes=config.quota_of(user.is_admin),
        )
        for user in users
    ]


@router.patch("/{name}")
async def update_user(
    body: UpdateUser, admin: AdminDep, store: StoreDep, name: str = NamePath
) -> UserOut:
    """Change an account's role, or disable or enable it (admins).

    Disabling ends the account's browser sessions and revokes its API tokens for good:
    enabling it again revives none of them (the user logs in again, makes new tokens).
    """
    assert admin.user is not None
    if name == admin.user.name and (body.role == "user" or body.disabled):
        raise NotAllowedError("an admin cannot demote or disable themself")
    user = await store.run(
        store.store.accounts.update_user, name, role=body.role, disabled=body.disabled
    )
    return user_out(user)


@router.post("/{name}/reset-password")
async def reset_password(
    admin: AdminDep, store: StoreDep, passwords: PasswordsDep, name: str = NamePath
) -> PasswordResetOut:
    """Give an account a new one-time password, shown in this answer only (admins).

    The account's browser sessions end and its API tokens are revoked; the user logs in
    with the new password and changes it on their account page.
    """
    assert admin.user is not None
    if name == admin.user.name:
        raise NotAllowedError("change your own password on your account page, not by a reset")
    if name == LOCAL_USER:
        raise NotAllowedError(f"{LOCAL_USER!r} is a local server's user; it has no password")
    await store.run(store.store.accounts.user, name)  # 404 before any hashing
    password = secrets.token_urlsafe(RESET_PASSWORD_BYTES)
    user = await store.run(
        store.store.accounts.reset_password, name, await passwords.hash(password)
    )
    return PasswordResetOut(name=user.name, password=password)
