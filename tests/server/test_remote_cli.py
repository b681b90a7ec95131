"""``snakewar remote`` against a real public server over HTTP, with an API token."""

from __future__ import annotations

import pytest

from snakewar.command import main
from snakewar.server.app import create_app
from snakewar.server.config import ServerConfig
from snakewar.storage import Store
from tests.asgi_server import serve
from tests.server.accounts import make_user


def test_the_cli_registers_a_snake_and_starts_a_game_with_a_token(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with Store("sqlite://") as store:
        headers = make_user(store, "ann")
        token = headers["Authorization"].removeprefix("Bearer ")
        with serve(create_app(ServerConfig(public=True), store=store)) as base:
            monkeypatch.setenv("SNAKEWAR_SERVER", base)
            assert main(["remote", "whoami"]) == 0
            assert capsys.readouterr().out.strip() == "anonymous"
            monkeypatch.setenv("SNAKEWAR_TOKEN", token)
            assert main(["remote", "whoami"]) == 0
            assert capsys.readouterr().out.strip() == "ann (user)"
            assert main(["remote", "register", "viper", "http://8.8.8.8/"]) == 0
            assert capsys.readouterr().out.strip() == "@ann/viper"
            # A refusal is one line naming why, exit status 2.
            assert main(["remote", "register", "inside", "http://127.0.0.1:9/"]) == 2
            err = capsys.readouterr().err
            assert err.startswith("error: POST /api/snakes: 403:") and "public server" in err
            assert err.count("\n") == 1
            assert main(["remote", "game", "random", "-p", "width=7", "-p", "height=7"]) == 0
            game_id, viewer = capsys.readouterr().out.strip().split("\t")
            assert viewer == f"{base}/view/{game_id}"
            assert main(["remote", "snakes", "--mine"]) == 0
            assert "@ann/viper" in capsys.readouterr().out
            assert main(["--version"]) == 0
            capsys.readouterr()
            bad = main(["remote", "whoami", "--token", "sw_revoked"])
            assert bad == 2 and "401" in capsys.readouterr().err
