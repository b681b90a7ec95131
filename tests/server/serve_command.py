"""``snakewar serve`` run in the test's process up to where it would listen.

For the tests of its options: the command line is parsed and checked, and the app is
made, but nothing listens and nothing is served.
"""

from __future__ import annotations

import gc

import pytest

import snakewar.bots.serving
import snakewar.server.app
from snakewar.server.config import ServerConfig


def recorded_configs(monkeypatch: pytest.MonkeyPatch) -> list[ServerConfig]:
    """Make ``snakewar serve`` stop short of listening; returns the configs it made apps of."""
    configs: list[ServerConfig] = []
    making = snakewar.server.app.create_app

    def recorded(config: ServerConfig, **kwargs: object) -> object:
        configs.append(config)
        return making(config, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(snakewar.server.app, "create_app", recorded)
    monkeypatch.setattr(snakewar.bots.serving, "listen_sockets", lambda host, port: [])
    monkeypatch.setattr(snakewar.bots.serving, "serve_app", lambda *args, **kwargs: None)
    monkeypatch.setattr(gc, "set_threshold", lambda *args: None)  # the tests' own stay
    return configs
