"""``/api/tokens``: a user's API tokens for the CLI and scripts (shown once, revocable)."""

from __future__ import annotations

from fastapi import APIRouter, Path, Response

from snakewar.errors import NotFoundError, OverLimitError
from snakewar.server.auth import TOKEN_PREFIX, UserDep, digest, new_secret
from snakewar.server.deps import StoreDep
from snakewar.server.schemas import NO_CONTENT, CreateToken, NewTokenOut, TokenOut
from snakewar.storage import ApiToken

__all__ = ["router"]

router = APIRouter(prefix="/api/tokens", tags=["accounts"])

MAX_TOKENS = 50


def _out(token: ApiToken) -> TokenOut:
    return TokenOut(
        id=token.id,
        label=token.label,
        created_at=token.created_at.isoformat(),
        last_used_at=token.last_used_at.isoformat() if token.last_used_at else None,
        revoked=token.revoked,
    )


@router.post("", status_code=201)
async def create_token(body: CreateToken, principal: UserDep, store: StoreDep) -> NewTokenOut:
    """A new API token; its secret is in this answer only (the server keeps a hash)."""
    assert principal.user is not None
    tokens = await store.run(store.store.accounts.tokens, principal.user.id)
    if sum(not t.revoked for t in tokens) >= MAX_TOKENS:
        raise OverLimitError(f"you have {MAX_TOKENS} live tokens; revoke one first")
    secret = new_secret(TOKEN_PREFIX)
    token = await store.run(
        store.store.accounts.create_token, principal.user.id, body.label, digest(secret)
    )
    return NewTokenOut(**_out(token).model_dump(), token=secret)


@router.get("")
async def list_tokens(principal: UserDep, store: StoreDep) -> list[TokenOut]:
    """The requester's tokens (never their secrets)."""
    assert principal.user is not None
    return [_out(t) for t in await store.run(store.store.accounts.tokens, principal.user.id)]


@router.delete("/{token_id}", status_code=204, responses=NO_CONTENT)
async def revoke_token(
    principal: UserDep, store: StoreDep, token_id: int = Path(ge=1, le=2**31 - 1)
) -> Response:
    """Revoke one of the requester's tokens: it stops working at once."""
    assert principal.user is not None
    if not await store.run(store.store.accounts.revoke_token, principal.user.id, token_id):
        raise NotFoundError(f"you have no live token with id {token_id}")
    return Response(status_code=204)
