"""``/api/users``: the accounts of a server (admins)."""

from __future__ import annotations

from fastapi import APIRouter, Path

from snakewar.server.auth import AdminDep, NotAllowedError
from snakewar.server.deps import StoreDep
from snakewar.server.routers.auth import user_out
from snakewar.server.schemas import UpdateUser, UserOut

__all__ = ["router"]

router = APIRouter(prefix="/api/users", tags=["accounts"])

NamePath = Path(min_length=1, max_length=32, pattern=r"^[a-z0-9][a-z0-9_-]*$")


@router.get("")
async def list_users(admin: AdminDep, store: StoreDep) -> list[UserOut]:
    """Every account (admins)."""
    del admin
    return [user_out(u) for u in await store.run(store.store.accounts.users)]


@router.patch("/{name}")
async def update_user(
    body: UpdateUser, admin: AdminDep, store: StoreDep, name: str = NamePath
) -> UserOut:
    """Change an account's role, or disable it (its sessions end; its tokens stop working)."""
    assert admin.user is not None
    if name == admin.user.name and (body.role == "user" or body.disabled):
        raise NotAllowedError("an admin cannot demote or disable themself")
    user = await store.run(
        store.store.accounts.update_user, name, role=body.role, disabled=body.disabled
    )
    return user_out(user)
