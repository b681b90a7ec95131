"""Issue 30: reserved and look-alike user names, and invitations used only by a sign-up.

Through a public server over real HTTP (SQLite and PostgreSQL): ``local`` (the local
server's own user), ``admin``, ``snakewar``... and names that differ from an existing
account only by look-alike characters are refused at sign-up and at an operator's
``snakewar user create``, with an error naming the field; a sign-up that fails (a bad
password, a taken, reserved or look-alike name) leaves its invitation usable, and of
two sign-ups racing for one invitation exactly one is made.
"""

from __future__ import annotations

import concurrent.futures
import functools
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from snakewar.adapters import games
from snakewar.server.app import create_app
from snakewar.server.auth import LOCAL_USER, digest
from snakewar.server.config import ServerConfig
from snakewar.server.safety import RateLimiter
from snakewar.storage import Store
from snakewar.storage.usernames import (
    RESERVED_USER_NAMES,
    ReservedUserNameError,
    check_new_user_name,
    name_skeleton,
    reserved_user_names,
)
from tests.asgi_server import serve
from tests.server.accounts import make_user

PASSWORD = "long enough"


@pytest.fixture
def server(db_url: str) -> Iterator[tuple[str, Store]]:
    """A public server with open sign-up on ``db_url``, and its store."""
    with Store(db_url) as store:
        make_user(store, "boss", admin=True)
        app = create_app(ServerConfig(database_url=db_url, public=True, signup="open"), store=store)
        with serve(app) as base:
            # Many sign-ups from one address: past the per-address rate, a 429 would
            # hide the answer under test.
            app.state.login_limiter = RateLimiter(per_minute=1e6, burst=10**6)
            yield base, store


@pytest.fixture
def invite_server(db_url: str) -> Iterator[tuple[str, Store]]:
    """A public server signing up by invitation on ``db_url``, and its store."""
    with Store(db_url) as store:
        make_user(store, "boss", admin=True)
        config = ServerConfig(database_url=db_url, public=True, signup="invite")
        app = create_app(config, store=store)
        with serve(app) as base:
            app.state.login_limiter = RateLimiter(per_minute=1e6, burst=10**6)
            yield base, store


def _signup(base: str, name: str, **extra: Any) -> httpx.Response:
    with httpx.Client(base_url=base, timeout=60) as client:
        return client.post("/api/auth/signup", json={"name": name, "password": PASSWORD, **extra})


def _field_error(answer: httpx.Response) -> str:
    """The message of an error about the field ``name``, in either error shape."""
    detail = answer.json()["detail"]
    if isinstance(detail, list):
        (error,) = detail
        assert error["loc"] == ["body", "name"], detail
        return str(error["msg"])
    assert detail.startswith("name: "), detail
    return str(detail)


@pytest.mark.parametrize(
    "name", [LOCAL_USER, "admin", "snakewar", "builtin", "root", "system", "api"]
)
def test_a_reserved_name_is_refused_at_sign_up_naming_the_field(
    server: tuple[str, Store], name: str
) -> None:
    base, store = server
    refused = _signup(base, name)
    assert refused.status_code == 422, refused.text
    assert f"{name!r} is reserved" in _field_error(refused)
    assert name not in {u.name for u in store.accounts.users()}


@pytest.mark.parametrize(
    ("name", "reserved"),
    [
        ("l0cal", "local"),
        ("1ocal", "local"),
        ("adm1n", "admin"),
        ("snakevvar", "snakewar"),
        ("admin_", "admin"),
    ],
)
def test_a_look_alike_of_a_reserved_name_is_refused(
    server: tuple[str, Store], name: str, reserved: str
) -> None:
    base, _ = server
    refused = _signup(base, name)
    assert refused.status_code == 422, refused.text
    assert f"looks like the reserved name {reserved!r}" in _field_error(refused)


@pytest.mark.parametrize("twin", ["al1ce", "aiice", "a1ice", "alice_", "al_ice"])
def test_a_look_alike_of_an_existing_user_is_refused(server: tuple[str, Store], twin: str) -> None:
    base, store = server
    assert _signup(base, "alice").status_code == 201
    refused = _signup(base, twin)
    if twin == "al_ice":
        # A separator inside a name is no look-alike: al_ice reads apart from alice.
        assert refused.status_code == 201, refused.text
        return
    assert refused.status_code == 409, refused.text
    assert "looks like the existing user 'alice'" in _field_error(refused)
    assert twin not in {u.name for u in store.accounts.users()}


def test_look_alikes_go_both_ways_and_others_pass(server: tuple[str, Store]) -> None:
    base, _ = server
    assert _signup(base, "maria").status_code == 201
    assert _signup(base, "rnaria").status_code == 409  # "rn" reads as "m"
    assert _signup(base, "b0b").status_code == 201
    assert _signup(base, "bob").status_code == 409  # the existing one came first
    assert _signup(base, "bobby").status_code == 201
    assert _signup(base, "marta").status_code == 201


def test_the_skeleton_maps_the_alphabets_look_alikes() -> None:
    assert name_skeleton("l0cal") == name_skeleton("local") == name_skeleton("1ocaI")
    assert name_skeleton("rnaria") == name_skeleton("maria")
    assert name_skeleton("a_b") == name_skeleton("a-b") == name_skeleton("a--b")
    assert name_skeleton("ｌｏｃａｌ") == name_skeleton("local")  # NFKC: full-width letters
    assert name_skeleton("ann") != name_skeleton("anne")
    # Every reserved name is refused as it is and through a look-alike.
    assert {name_skeleton(n) for n in RESERVED_USER_NAMES} >= {name_skeleton("adm1n")}


def test_every_registered_games_names_are_reserved() -> None:
    reserved = reserved_user_names()
    assert reserved >= RESERVED_USER_NAMES
    for adapter in games():
        first = adapter.catalogue().title.split()[0].lower()
        assert {adapter.name, first} <= reserved, adapter.name
        for name in (adapter.name, first, first.replace("l", "1")):
            with pytest.raises(ReservedUserNameError, match="reserved"):
                check_new_user_name(name)


def _cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "snakewar", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_an_operators_user_create_refuses_reserved_and_look_alike_names(db_url: str) -> None:
    with Store(db_url) as store:
        make_user(store, "alice")
    for name, words in (
        ("admin", "'admin' is reserved"),
        ("local", "'local' is reserved"),
        ("al1ce", "looks like the existing user 'alice'"),
    ):
        made = _cli(
            "user",
            "create",
            name,
            "--admin",
            "--password-stdin",
            "--database",
            db_url,
            stdin=PASSWORD + "\n",
        )
        assert made.returncode == 2, made.stderr
        assert made.stderr.startswith("error: ") and words in made.stderr, made.stderr
        assert "Traceback" not in made.stderr
    made = _cli(
        "user",
        "create",
        "boss",
        "--admin",
        "--password-stdin",
        "--database",
        db_url,
        stdin=PASSWORD + "\n",
    )
    assert made.returncode == 0, made.stderr
    with Store(db_url) as store:
        assert {u.name for u in store.accounts.users()} == {"alice", "boss"}


def _invite(store: Store) -> str:
    from snakewar.server.auth import issue_invite

    boss = store.accounts.user("boss")
    code, _ = issue_invite(store, boss.id)
    return code


def _status(store: Store, code: str) -> str | None:
    (invite,) = [i for i in store.accounts.invites() if i.id == digest(code)]
    return invite.used_by


def test_a_failed_sign_up_leaves_its_invitation_usable(
    invite_server: tuple[str, Store],
) -> None:
    base, store = invite_server
    make_user(store, "ann")
    code = _invite(store)
    failures = [
        ({"name": "bob", "password": "short"}, 422),  # a bad password
        ({"name": "ann", "password": PASSWORD}, 409),  # a taken name
        ({"name": "admin", "password": PASSWORD}, 422),  # a reserved name
        ({"name": "ann_", "password": PASSWORD}, 409),  # a look-alike of a taken one
    ]
    for body, status in failures:
        with httpx.Client(base_url=base, timeout=60) as client:
            refused = client.post("/api/auth/signup", json={**body, "invite": code})
        assert refused.status_code == status, (body, refused.text)
        assert _status(store, code) is None, body
    made = _signup(base, "bob", invite=code)
    assert made.status_code == 201, made.text
    assert _status(store, code) == "bob"
    again = _signup(base, "carol", invite=code)
    assert again.status_code == 403, again.text
    assert "invitation is not valid" in again.json()["detail"]


def test_a_sign_up_refused_as_a_look_alike_leaves_its_invitation_usable(
    invite_server: tuple[str, Store],
) -> None:
    base, store = invite_server
    make_user(store, "alice")
    code = _invite(store)
    refused = _signup(base, "al1ce", invite=code)
    assert refused.status_code == 409, refused.text
    assert _status(store, code) is None
    made = _signup(base, "carol", invite=code)
    assert made.status_code == 201, made.text
    assert _status(store, code) == "carol"


def test_two_sign_ups_racing_for_one_invitation_make_exactly_one_account(
    invite_server: tuple[str, Store],
) -> None:
    base, store = invite_server
    for round_ in range(3):
        code = _invite(store)
        names = [f"racer-{'abc'[round_]}-{side}" for side in ("west", "east", "north", "south")]
        with concurrent.futures.ThreadPoolExecutor(len(names)) as pool:
            answers = list(pool.map(functools.partial(_signup, base, invite=code), names))
        statuses = sorted(a.status_code for a in answers)
        assert statuses == [201, 403, 403, 403], [a.text for a in answers]
        made = [n for n, a in zip(names, answers, strict=True) if a.status_code == 201]
        users = {u.name for u in store.accounts.users()}
        assert [n for n in names if n in users] == made
        assert _status(store, code) == made[0]
