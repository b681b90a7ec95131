"""``snakewar user invite``: an invitation made on the server's machine signs up over HTTP."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
import sqlalchemy as sa

from snakewar.command import main
from snakewar.server.app import create_app
from snakewar.server.config import ServerConfig
from snakewar.storage import Store
from snakewar.storage.models import InviteModel
from tests.asgi_server import serve
from tests.server.accounts import make_user


def invite(*args: str, database: str) -> subprocess.CompletedProcess[str]:
    """``snakewar user invite`` in a process of its own, as an operator runs it."""
    return subprocess.run(
        [sys.executable, "-m", "snakewar", "user", "invite", "--database", database, *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={
            "PATH": os.environ.get("PATH", ""),
            **{k: os.environ[k] for k in ("PYTHONPATH", "SNAKEWAR_PURE") if k in os.environ},
        },
    )


def test_an_invitation_from_the_cli_signs_up_once_over_http(tmp_path: Path) -> None:
    database = f"sqlite:///{tmp_path / 'server.db'}"
    with Store(database) as store:
        make_user(store, "user-first")  # not an admin: never the inviter
        make_user(store, "boss", admin=True)
    config = ServerConfig(database_url=database, public=True, signup="invite")
    with serve(create_app(config)) as base:
        made = invite("--url", base + "/", database=database)
        assert made.returncode == 0, made.stderr
        code, link = made.stdout.splitlines()
        assert "invitation by 'boss'" in made.stderr
        # The link is the sign-up page with the code in its query.
        parts = urlsplit(link)
        assert f"{parts.scheme}://{parts.netloc}" == base and parts.path == "/login"
        assert parse_qs(parts.query) == {"invite": [code]}
        with httpx.Client(base_url=base, timeout=30) as client:
            body = {"name": "ann", "password": "long enough"}
            refused = client.post("/api/auth/signup", json=body)
            assert refused.status_code == 403, refused.text
            made_user = client.post("/api/auth/signup", json={**body, "invite": code})
            assert made_user.status_code == 201, made_user.text
        with httpx.Client(base_url=base, timeout=30) as other:
            again = {"name": "bob", "password": "long enough", "invite": code}
            twice = other.post("/api/auth/signup", json=again)
            assert twice.status_code == 403 and "not valid" in twice.text
    with Store(database) as store:
        assert [u.name for u in store.accounts.users()] == ["user-first", "boss", "ann"]


def test_by_names_the_admin_who_invites(tmp_path: Path) -> None:
    database = f"sqlite:///{tmp_path / 'server.db'}"
    with Store(database) as store:
        make_user(store, "first", admin=True)
        make_user(store, "second", admin=True)
    made = invite("--by", "second", database=database)
    assert made.returncode == 0, made.stderr
    assert len(made.stdout.split()) == 1  # the code alone without --url
    assert "invitation by 'second'" in made.stderr


@pytest.mark.parametrize(
    ("args", "admin", "needle"),
    [
        ((), False, "no admin in 'sqlite:///"),
        (("--by", "ann"), False, "--by 'ann': user 'ann' is no admin"),
        (("--by", "nobody"), True, "--by 'nobody': no user of that name"),
        (("--url", "ftp://example.org"), True, "--url 'ftp://example.org'"),
        (("--url", "https://example.org/?x=1"), True, "expected the server's address"),
    ],
)
def test_an_invitation_that_cannot_be_made_is_one_error_line(
    args: tuple[str, ...],
    admin: bool,
    needle: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    database = f"sqlite:///{tmp_path / 'server.db'}"
    with Store(database) as store:
        make_user(store, "ann", admin=admin)
    assert main(["user", "invite", "--database", database, *args]) == 2
    out = capsys.readouterr()
    lines = out.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and needle in lines[0], out.err
    assert out.out == ""  # no code printed
    with Store(database) as store, store.db.session() as session:
        stored = session.scalar(sa.select(sa.func.count()).select_from(InviteModel))
        assert stored == 0  # and none stored
