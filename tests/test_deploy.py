"""The deployment files: compose.yaml, the Dockerfile and deploy/Caddyfile agree with the code.

Docker is not at hand where the tests run, so the files are read, not started: the
services docs/deploy.md describes are there and wired to each other, every
``snakewar`` and ``ray`` command line in them goes through the real command line (its
parser and ``snakewar serve``'s own checks, up to where it would listen), and the
proxy sends every path, websockets included, to the replicas and health-checks them on
``/ready``.
"""

from __future__ import annotations

import gc
import ipaddress
import json
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import click
import pytest
import sqlalchemy as sa
import yaml

ROOT = Path(__file__).resolve().parents[1]
ENV = {"SNAKEWAR_DB_PASSWORD": "s3cretpassword", "SNAKEWAR_RAY_TOKEN": "a1" * 32}
"""What an operator sets (the required settings); the rest take their defaults."""

_VARIABLE = re.compile(r"\$\{(\w+)(?:(:?[-?])([^}]*))?\}")


def interpolate(value: Any, env: Mapping[str, str]) -> Any:
    """``${VAR}``, ``${VAR:-default}`` and ``${VAR:?error}`` as docker compose reads them."""
    if isinstance(value, dict):
        return {k: interpolate(v, env) for k, v in value.items()}
    if isinstance(value, list):
        return [interpolate(v, env) for v in value]
    if not isinstance(value, str):
        return value

    def one(match: re.Match[str]) -> str:
        name, kind, rest = match.group(1), match.group(2), match.group(3)
        found = env.get(name)
        if kind in (":-", "-"):
            return found if found else rest
        if kind in (":?", "?"):
            if not found:
                raise AssertionError(f"compose would refuse to start: {name}: {rest}")
            return found
        return found or ""

    return _VARIABLE.sub(one, value)


def compose(env: Mapping[str, str] = ENV) -> dict[str, Any]:
    loaded = yaml.safe_load((ROOT / "compose.yaml").read_text(encoding="utf-8"))
    assert isinstance(loaded, dict)
    made: dict[str, Any] = interpolate(loaded, env)
    return made


def services() -> dict[str, Any]:
    found: dict[str, Any] = compose()["services"]
    return found


def web_services() -> dict[str, Any]:
    return {
        name: service
        for name, service in services().items()
        if service.get("command", [])[:2] == ["snakewar", "serve"]
    }


def test_the_services_of_the_deployment() -> None:
    assert set(services()) == {"postgres", "ray-head", "ray-worker", "web1", "web2", "proxy"}
    assert len(web_services()) == 2
    assert services()["postgres"]["image"].startswith("postgres:")
    assert services()["proxy"]["image"].startswith("caddy:")
    assert services()["ray-worker"]["deploy"]["replicas"] >= 2


def test_the_database_password_and_the_ray_token_are_required() -> None:
    with pytest.raises(AssertionError, match="set SNAKEWAR_DB_PASSWORD"):
        compose({"SNAKEWAR_RAY_TOKEN": ENV["SNAKEWAR_RAY_TOKEN"]})
    with pytest.raises(AssertionError, match="set SNAKEWAR_RAY_TOKEN"):
        compose({"SNAKEWAR_DB_PASSWORD": ENV["SNAKEWAR_DB_PASSWORD"]})


def test_every_ray_node_and_driver_has_the_clusters_token() -> None:
    for name in ("ray-head", "ray-worker", *web_services()):
        env = services()[name]["environment"]
        assert env["RAY_AUTH_MODE"] == "token", name
        assert env["RAY_AUTH_TOKEN"] == ENV["SNAKEWAR_RAY_TOKEN"], name


def test_every_snakewar_process_uses_the_one_postgresql_database() -> None:
    postgres = services()["postgres"]["environment"]
    for name in ("ray-head", "ray-worker", *web_services()):
        url = sa.make_url(services()[name]["environment"]["SNAKEWAR_DATABASE_URL"])
        assert url.drivername == "postgresql+psycopg", name
        assert (url.host, url.port) == ("postgres", 5432)
        assert url.username == postgres["POSTGRES_USER"]
        assert url.password == postgres["POSTGRES_PASSWORD"] == ENV["SNAKEWAR_DB_PASSWORD"]
        assert url.database == postgres["POSTGRES_DB"]


def _serve_argv(service: Mapping[str, Any]) -> list[str]:
    argv = list(service["command"])
    assert argv[:2] == ["snakewar", "serve"]
    return argv[1:]


def _option(argv: list[str], name: str) -> str:
    return argv[argv.index(name) + 1]


def test_the_web_replicas_are_public_on_their_port_with_the_ray_cluster() -> None:
    for name, service in web_services().items():
        argv = _serve_argv(service)
        assert "--public" in argv, name
        assert _option(argv, "--host") == "0.0.0.0"
        assert _option(argv, "--log-format") == "json"
        port = _option(argv, "--port")
        assert service["expose"] == [port]
        assert "ports" not in service  # only the proxy reaches them
        assert f"http://127.0.0.1:{port}/ready" in " ".join(service["healthcheck"]["test"])
        head = services()["ray-head"]["command"]
        assert _option(argv, "--ray-address") == f"ray-head:{_flag(head, '--port')}"
        assert service["depends_on"]["postgres"]["condition"] == "service_healthy"


def test_only_the_proxy_is_trusted_to_name_the_client() -> None:
    proxy = services()["proxy"]["networks"]["snakewar"]["ipv4_address"]
    subnet = compose()["networks"]["snakewar"]["ipam"]["config"][0]["subnet"]
    assert ipaddress.ip_address(proxy) in ipaddress.ip_network(subnet)
    for service in web_services().values():
        assert service["environment"]["FORWARDED_ALLOW_IPS"] == proxy


def _serve_config(argv: list[str], monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any]:
    """Run ``snakewar serve ARGV`` up to where it would listen: (its config, where)."""
    import snakewar.arena.executors
    import snakewar.bots.serving
    import snakewar.server.app
    import snakewar.server.logs
    from snakewar.command import main
    from snakewar.storage import Store

    made: list[Any] = []
    listened: list[tuple[str, int]] = []
    making = snakewar.server.app.create_app

    def recorded(config: Any, **kwargs: Any) -> Any:
        made.append(config)
        return making(config, **kwargs)

    def listen(host: str, port: int) -> list[Any]:
        listened.append((host, port))
        return []

    # The database is the deployment's PostgreSQL, which is not here: one in memory.
    monkeypatch.setattr(snakewar.server.app, "open_store", lambda config: Store("sqlite://"))
    monkeypatch.setattr(snakewar.server.app, "create_app", recorded)
    monkeypatch.setattr(snakewar.bots.serving, "listen_sockets", listen)
    monkeypatch.setattr(snakewar.bots.serving, "serve_app", lambda *args, **kwargs: None)
    monkeypatch.setattr(snakewar.server.logs, "configure_logging", lambda log_format: None)
    monkeypatch.setattr(gc, "set_threshold", lambda *args: None)
    # The deployment's Ray head is not here either: joining it is taken as done.
    monkeypatch.setattr(snakewar.arena.executors, "join_ray", lambda address: None)
    status = main(argv)
    assert status == 0, f"snakewar {' '.join(argv)} exited with {status}"
    assert len(made) == len(listened) == 1
    return made[0], listened[0]


def _serve_knows_ray_address() -> bool:
    import typer.main

    from snakewar.server.command import serve

    app = typer.Typer()
    app.command()(serve)
    return any("--ray-address" in p.opts for p in typer.main.get_command(app).params)


@pytest.mark.skipif(
    not _serve_knows_ray_address(),
    reason="snakewar serve --ray-address comes with the Ray runner (issue 24, ray24's part)",
)
def test_the_web_command_lines_run_through_snakewar_serve(monkeypatch: pytest.MonkeyPatch) -> None:
    for service in web_services().values():
        config, where = _serve_config(_serve_argv(service), monkeypatch)
        assert where == ("0.0.0.0", 8000)
        assert config.public and config.allowed_hosts == ("localhost",)
        assert config.ray_address == "ray-head:6379"


def test_the_web_command_lines_but_the_ray_address_run_through_snakewar_serve(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Everything but --ray-address (the test above checks the whole line where the
    # command has it): each option exists, each value passes serve's own checks.
    for service in web_services().values():
        argv = _serve_argv(service)
        at = argv.index("--ray-address")
        del argv[at : at + 2]
        config, where = _serve_config(argv, monkeypatch)
        assert where == ("0.0.0.0", 8000)
        assert config.public and config.signup == "invite"
        assert config.allowed_hosts == ("localhost",)


OPERATOR_SETTINGS = {
    "SNAKEWAR_METRICS_TOKEN": "scrape-token-1234",
    "SNAKEWAR_SITE_URL": "https://snakes.example.org",
    "SNAKEWAR_SMTP_HOST": "smtp.example.org",
    "SNAKEWAR_SMTP_PORT": "587",
    "SNAKEWAR_SMTP_SECURITY": "starttls",
    "SNAKEWAR_SMTP_SENDER": "arena@example.org",
    "SNAKEWAR_SMTP_USERNAME": "arena",
    "SNAKEWAR_SMTP_PASSWORD": "smtp-s3cret",
}
"""The optional settings the web replicas take from the operator's environment."""


def test_the_web_replicas_are_given_the_operators_metrics_and_smtp_settings() -> None:
    given = compose({**ENV, **OPERATOR_SETTINGS})["services"]
    unset = services()
    for name in web_services():
        for setting, value in OPERATOR_SETTINGS.items():
            assert given[name]["environment"][setting] == value, (name, setting)
            # Unset, the setting is there but empty: serve reads an empty one as none.
            assert unset[name]["environment"][setting] == "", (name, setting)
    for name in ("postgres", "ray-head", "ray-worker", "proxy"):
        # A secret goes only where it is used.
        assert not set(OPERATOR_SETTINGS) & set(given[name].get("environment", {})), name


def _serve_config_in(
    service: Mapping[str, Any], monkeypatch: pytest.MonkeyPatch
) -> tuple[Any, Any]:
    """``snakewar serve`` as the service runs it, in its environment (but --ray-address)."""
    for setting in OPERATOR_SETTINGS:
        monkeypatch.delenv(setting, raising=False)
    for key, value in service["environment"].items():
        monkeypatch.setenv(key, str(value))
    argv = _serve_argv(service)
    at = argv.index("--ray-address")
    del argv[at : at + 2]
    return _serve_config(argv, monkeypatch)


def test_the_replicas_serve_with_the_operators_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    given = compose({**ENV, **OPERATOR_SETTINGS})["services"]
    for name in web_services():
        config, _ = _serve_config_in(given[name], monkeypatch)
        assert config.metrics_token == "scrape-token-1234"
        assert config.site_url == "https://snakes.example.org"
        assert config.smtp_host == "smtp.example.org"
        assert config.smtp_port == 587
        assert config.smtp_security == "starttls"
        assert config.smtp_sender == "arena@example.org"
        assert config.smtp_username == "arena"
        assert config.smtp_password == "smtp-s3cret"


def test_the_replicas_keep_the_servers_defaults_without_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name, service in web_services().items():
        config, _ = _serve_config_in(service, monkeypatch)
        # The defaults of `snakewar serve` with none of these set: no token (only admins
        # read /metrics), no e-mail.
        assert config.metrics_token is None, name
        assert config.site_url is None
        assert config.smtp_host is None
        assert config.smtp_port == 25
        assert config.smtp_security == "none"
        assert config.smtp_sender == "snakewar@localhost"
        assert config.smtp_username is None
        assert config.smtp_password is None


def _flag(argv: list[str], name: str) -> str:
    for item in argv:
        if item.startswith(f"{name}="):
            return str(item.split("=", 1)[1])
    raise AssertionError(f"{name} not in {argv}")


def test_the_ray_command_lines_parse_with_rays_own_command_line() -> None:
    from ray.scripts.scripts import cli

    start = cli.commands["start"]
    head = services()["ray-head"]["command"]
    worker = services()["ray-worker"]["command"]
    for argv in (head, worker):
        assert argv[:2] == ["ray", "start"]
        context = start.make_context("start", list(argv[2:]))
        assert context.params["block"] is True
    head_params = start.make_context("start", list(head[2:])).params
    assert head_params["head"] and head_params["num_cpus"] == 0
    worker_params = start.make_context("start", list(worker[2:])).params
    assert worker_params["address"] == f"ray-head:{head_params['port']}"
    # Program bots are given to nodes that declare the sandbox (and run bubblewrap).
    assert json.loads(worker_params["resources"]) == {"snakewar_sandbox": 1}
    with pytest.raises(click.UsageError):
        start.make_context("start", ["--no-such-option"])


def _caddy_site() -> tuple[str, list[str]]:
    """The Caddyfile's site address and its block's lines (comments left out)."""
    text = (ROOT / "deploy" / "Caddyfile").read_text(encoding="utf-8")
    lines = [line.split("#", 1)[0].strip() for line in text.splitlines()]
    lines = [line for line in lines if line]
    assert lines[0].endswith("{"), lines[0]
    assert lines[-1] == "}"
    return lines[0][:-1].strip(), lines[1:-1]


def test_the_proxy_sends_every_path_and_websocket_to_the_healthy_replicas() -> None:
    site, lines = _caddy_site()
    assert site == "{$SNAKEWAR_SITE::80}"
    # One reverse_proxy, with no matcher: every path goes to the replicas, the live
    # viewer's websockets (/games/{id}/events) too, which Caddy passes through (the
    # Upgrade and Connection headers are not removed anywhere).
    proxies = [line for line in lines if line.startswith("reverse_proxy")]
    assert len(proxies) == 1
    words = proxies[0].rstrip("{").split()
    upstreams = words[1:]
    assert all(not u.startswith(("/", "@", "*")) for u in upstreams)
    expected = {f"{name}:{_option(_serve_argv(s), '--port')}" for name, s in web_services().items()}
    assert set(upstreams) == expected
    assert not [line for line in lines if "header_up" in line or "header_down" in line]
    assert not [line for line in lines if line.startswith(("handle", "route", "respond"))]
    settings = dict(line.split(None, 1) for line in lines[1:] if " " in line)
    assert settings["health_uri"] == "/ready"
    assert settings["health_status"] == "200"
    assert settings["flush_interval"] == "-1"  # NDJSON streams and websockets unbuffered
    proxy = services()["proxy"]
    assert "./deploy/Caddyfile:/etc/caddy/Caddyfile:ro" in proxy["volumes"]
    assert proxy["environment"]["SNAKEWAR_SITE"] == ":80"
    assert "80:80" in proxy["ports"]
    for name in web_services():
        assert proxy["depends_on"][name]["condition"] == "service_healthy"


def test_the_image_installs_extras_the_package_has() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    extras = re.findall(r'pip install [^\n]*"\.\[([a-z,]+)\]"', dockerfile)
    assert extras, "no pip install of the package"
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    known = set(pyproject["project"]["optional-dependencies"])
    assert set(extras[0].split(",")) == {"postgres", "ray"} <= known
    assert "bubblewrap" in dockerfile
    assert re.search(r"^USER snakewar$", dockerfile, re.MULTILINE)
    for name in ("ray-head", "ray-worker", *web_services()):
        assert services()[name]["build"] == "."
