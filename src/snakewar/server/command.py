"""``snakewar serve``: the web server (create and watch games in the browser).

The server's own command: :mod:`snakewar.command` adds it to the ``snakewar`` command
line (which itself knows nothing of the server).
"""

from __future__ import annotations

import gc
import os
import re
import sys
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode, urlsplit

import typer

from snakewar.errors import SnakewarError

__all__ = [
    "MAX_UPLOAD_QUOTA_MIB",
    "RAY_ADDRESS_ENV",
    "SERVE_GC_THRESHOLDS",
    "check_ray_address",
    "cluster_app",
    "program_app",
    "serve",
    "user_app",
    "worker_argv",
    "worker_env",
]

RAY_ADDRESS_ENV = "SNAKEWAR_RAY_ADDRESS"
"""The environment variable that names the Ray cluster when ``--ray-address`` is not given."""

_RAY_ADDRESS = re.compile(
    r"(auto|(ray://)?(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9]([A-Za-z0-9.-]{0,252}[A-Za-z0-9])?):\d{1,5})\Z"
)


def check_ray_address(text: str, option: str = "--ray-address") -> str:
    """``text`` if it is a Ray cluster's address: ``auto``, ``HOST:PORT``, ``ray://HOST:PORT``.

    Raises:
        SnakewarError: anything else (one line, naming the option).
    """
    match = _RAY_ADDRESS.match(text)
    port = text.rsplit(":", 1)[-1]
    if match is None or (text != "auto" and not 0 < int(port) < 65536):
        raise SnakewarError(f"{option} {text[:80]!r}: expected auto, HOST:PORT or ray://HOST:PORT")
    return text


SERVE_GC_THRESHOLDS = (50_000, 20, 100)
"""The garbage collector's thresholds in ``snakewar serve`` (Python's are 700, 10, 10)."""


MAX_UPLOAD_QUOTA_MIB = 1024 * 1024
"""The largest ``--upload-quota`` (1 TiB): past that, a quota is none at all."""

MAX_RAY_GAME_CPUS = 64
"""The most ``--ray-game-cpus`` a game's referee may hold (no referee uses more)."""


def serve(
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on."),
    port: int = typer.Option(8000, "--port", "-p", help="TCP port."),
    database: str | None = typer.Option(
        None,
        "--database",
        help="SQLAlchemy URL (default: SQLite in the user data directory, "
        "or $SNAKEWAR_DATABASE_URL); 'memory' keeps nothing.",
    ),
    public: bool = typer.Option(
        False, "--public", help="Refuse private snake addresses, rate-limit game creation."
    ),
    max_games: int = typer.Option(32, "--max-games", help="Most games running at once."),
    builtin_workers: int = typer.Option(
        16,
        "--builtin-workers",
        help="Worker processes for built-in bots: the most built-in seats playing at once "
        "(a game whose built-ins would not all get one is refused with 429).",
    ),
    games_per_user: int = typer.Option(
        8, "--games-per-user", help="Public server: most live games one user may have."
    ),
    paused_games_per_user: int = typer.Option(
        2, "--paused-games-per-user", help="Public server: most paused games one user may have."
    ),
    builtin_workers_per_user: int = typer.Option(
        8,
        "--builtin-workers-per-user",
        help="Public server: most built-in bot workers one user's games may hold at once.",
    ),
    tester_runs_per_hour: int = typer.Option(
        10,
        "--tester-runs-per-hour",
        help="Public server: snake tester runs per user per hour (one at a time).",
    ),
    export_max_games: int = typer.Option(
        1000,
        "--export-max-games",
        help="The most games one bulk export holds (the newest).",
    ),
    export_max_mib: int = typer.Option(
        64,
        "--export-max-mib",
        help="The largest bulk export archive, in MiB (an export past it fails, saying so).",
    ),
    game_lease: float = typer.Option(
        30.0,
        "--game-lease",
        help="Seconds this server vouches for a running game or ladder or tournament run; "
        "servers sharing a database abort another's game, or play on its run, only once its "
        "lease ran out (it died).",
    ),
    resume: bool = typer.Option(
        True,
        "--resume/--no-resume",
        help="Play on the ladder and tournament runs a crash or a restart interrupted, at "
        "start and whenever a server sharing the database dies (exactly one server plays "
        "each run).",
    ),
    signup: str = typer.Option(
        "invite",
        "--signup",
        help="Who may make an account on a public server: open, invite or closed "
        "(admins are made with 'snakewar user create NAME --admin').",
    ),
    allow_network: list[str] = typer.Option(
        [],
        "--allow-network",
        help="A private network (CIDR, e.g. 192.168.1.0/24) a public server may call bots "
        "on; repeat for more. By default a public server calls public addresses only.",
    ),
    allowed_host: list[str] = typer.Option(
        [],
        "--allowed-host",
        help="A name the server answers to (the Host header); repeat for more. A local "
        "server always answers to localhost, 127.0.0.1 and ::1.",
    ),
    upload_quota: int = typer.Option(
        64,
        "--upload-quota",
        metavar="MIB",
        help="The most MiB one user may store of uploads (replays and bot archives); "
        "admins have no quota.",
    ),
    workers: int = typer.Option(
        1,
        "--workers",
        envvar="SNAKEWAR_WORKERS",
        help="Web processes on the one port, each a full server on the shared database "
        "(a SQLite file or PostgreSQL; not 'memory').",
    ),
    log_format: str = typer.Option(
        "text",
        "--log-format",
        envvar="SNAKEWAR_LOG_FORMAT",
        help="text, or json: one JSON object a line (time, level, logger, message, "
        "game_id) and a line per request.",
    ),
    ray_address: str | None = typer.Option(
        None,
        "--ray-address",
        envvar=RAY_ADDRESS_ENV,
        metavar="ADDR",
        help="Play every game on this Ray cluster (auto, HOST:PORT or ray://HOST:PORT), "
        f"one actor per game, instead of in this process (also ${RAY_ADDRESS_ENV}). The "
        "database must be one the cluster's nodes reach.",
    ),
    ray_game_cpus: float = typer.Option(
        1.0,
        "--ray-game-cpus",
        envvar="SNAKEWAR_RAY_GAME_CPUS",
        metavar="CPUS",
        help="With --ray-address: the CPUs each game's referee holds on its node (a "
        "fraction plays several games of HTTP snakes on one CPU); each program bot holds "
        "--ray-bot-cpus more.",
    ),
    ray_bot_cpus: float = typer.Option(
        1.0,
        "--ray-bot-cpus",
        envvar="SNAKEWAR_RAY_BOT_CPUS",
        metavar="CPUS",
        help="With --ray-address: the CPUs a game holds besides for each of its program "
        "bots (each may use a core while it thinks); a node needs --ray-game-cpus plus "
        "this for each bot of a game to play it.",
    ),
    build_time: int = typer.Option(
        300,
        "--build-time",
        metavar="SECONDS",
        help="How long an uploaded bot's build may take (in its sandbox, without network); "
        "past it the build is stopped and its owner told why.",
    ),
    concurrent_builds: int = typer.Option(
        2,
        "--concurrent-builds",
        help="Uploaded bots built at once on this server (each build may use two cores); "
        "an upload past them waits its turn.",
    ),
    metrics_token: str | None = typer.Option(
        None,
        "--metrics-token",
        envvar="SNAKEWAR_METRICS_TOKEN",
        help="The bearer token a Prometheus scraper sends for /metrics (without it, only "
        "admins read them; prefer the environment variable: a command line is visible).",
        show_default=False,
    ),
    site_url: str | None = typer.Option(
        None,
        "--site-url",
        envvar="SNAKEWAR_SITE_URL",
        help="The site's public address, for the links in notifications.",
    ),
    smtp_host: str | None = typer.Option(
        None,
        "--smtp-host",
        envvar="SNAKEWAR_SMTP_HOST",
        help="The SMTP server notification e-mails go through (none: no e-mail).",
    ),
    smtp_port: int = typer.Option(25, "--smtp-port", envvar="SNAKEWAR_SMTP_PORT"),
    smtp_security: str = typer.Option(
        "none", "--smtp-security", envvar="SNAKEWAR_SMTP_SECURITY", help="none, starttls or tls."
    ),
    smtp_sender: str = typer.Option(
        "snakewar@localhost", "--smtp-sender", envvar="SNAKEWAR_SMTP_SENDER"
    ),
    smtp_username: str | None = typer.Option(
        None, "--smtp-username", envvar="SNAKEWAR_SMTP_USERNAME"
    ),
    notify_per_hour: int = typer.Option(
        10,
        "--notify-per-hour",
        envvar="SNAKEWAR_NOTIFY_PER_HOUR",
        help="The most notifications one user gets an hour on each channel.",
    ),
) -> None:
    """Serve the web app: new games, live viewer, replays, the snake tester, the API."""
    from snakewar.bots.serving import listen_sockets, serve_app
    from snakewar.server.app import create_app, open_store
    from snakewar.server.config import (
        MEMORY_DATABASE,
        SIGNUP_MODES,
        SMTP_SECURITY,
        ServerConfig,
    )
    from snakewar.server.logs import LOG_FORMATS, configure_logging
    from snakewar.server.workers import MAX_WORKERS, run_workers

    if not 0 < port < 65536:
        raise SnakewarError(f"port {port}: expected 1..65535")
    for flag, value, most in (
        ("--max-games", max_games, 100_000),
        ("--builtin-workers", builtin_workers, 1024),
        ("--games-per-user", games_per_user, 100_000),
        ("--paused-games-per-user", paused_games_per_user, 100_000),
        ("--builtin-workers-per-user", builtin_workers_per_user, 1024),
        ("--tester-runs-per-hour", tester_runs_per_hour, 100_000),
        ("--build-time", build_time, 3600),
        ("--concurrent-builds", concurrent_builds, 64),
        ("--export-max-games", export_max_games, 100_000),
        ("--export-max-mib", export_max_mib, 1024),
    ):
        if not 1 <= value <= most:
            raise SnakewarError(f"{flag} {value}: expected 1 to {most}")
    if not 1 <= game_lease <= 3600:
        raise SnakewarError(f"--game-lease {game_lease}: expected 1 to 3600 seconds")
    if not 1 <= upload_quota <= MAX_UPLOAD_QUOTA_MIB:
        raise SnakewarError(
            f"--upload-quota {upload_quota}: expected 1 to {MAX_UPLOAD_QUOTA_MIB} MiB"
        )
    if ray_address is not None:
        ray_address = check_ray_address(ray_address)
        if database == "memory":
            raise SnakewarError(
                "--ray-address: the cluster's workers write games to the database; "
                "'memory' is this process's own (give --database)"
            )
    if not 0 < ray_game_cpus <= MAX_RAY_GAME_CPUS:
        raise SnakewarError(
            f"--ray-game-cpus {ray_game_cpus:g}: expected more than 0, at most {MAX_RAY_GAME_CPUS}"
        )
    if not 0 <= ray_bot_cpus <= MAX_RAY_GAME_CPUS:
        raise SnakewarError(f"--ray-bot-cpus {ray_bot_cpus:g}: expected 0 to {MAX_RAY_GAME_CPUS}")
    if signup not in SIGNUP_MODES:
        raise SnakewarError(f"--signup {signup!r}: expected one of {', '.join(SIGNUP_MODES)}")
    if smtp_security not in SMTP_SECURITY:
        raise SnakewarError(
            f"--smtp-security {smtp_security!r}: expected one of {', '.join(SMTP_SECURITY)}"
        )
    if not 1 <= smtp_port <= 65535:
        raise SnakewarError(f"--smtp-port {smtp_port}: expected 1 to 65535")
    if not 0 <= notify_per_hour <= 10_000:
        raise SnakewarError(f"--notify-per-hour {notify_per_hour}: expected 0 to 10000")
    if site_url is not None and not site_url.startswith(("http://", "https://")):
        raise SnakewarError(f"--site-url {site_url!r}: expected an http:// or https:// URL")
    if not 1 <= workers <= MAX_WORKERS:
        raise SnakewarError(f"--workers {workers}: expected 1 to {MAX_WORKERS}")
    if workers > 1 and database == MEMORY_DATABASE:
        raise SnakewarError(
            f"--workers {workers}: each worker is a full server on the shared database, and "
            "'memory' is one process's own; give a SQLite file or a PostgreSQL URL"
        )
    if log_format not in LOG_FORMATS:
        raise SnakewarError(
            f"--log-format {log_format[:40]!r}: expected one of {', '.join(LOG_FORMATS)}"
        )
    if not public and host not in ("127.0.0.1", "localhost", "::1"):
        # A local server has no login: on any other address, anyone on the network
        # could drive it.
        raise SnakewarError(
            f"--host {host!r}: a local server listens on loopback only; add --public "
            "(accounts and limits) to serve other machines"
        )
    config = ServerConfig(
        database_url=database,
        public=public,
        max_concurrent_games=max_games,
        signup=signup,
        allowed_hosts=tuple(allowed_host),
        allowed_networks=tuple(_networks(allow_network)),
        game_lease_s=game_lease,
        resume_tournaments=resume,
        upload_quota_bytes=upload_quota * 1024 * 1024,
        build_seconds=float(build_time),
        concurrent_builds=concurrent_builds,
        builtin_workers=builtin_workers,
        games_per_user=games_per_user,
        paused_games_per_user=paused_games_per_user,
        builtin_workers_per_user=builtin_workers_per_user,
        tester_runs_per_hour=tester_runs_per_hour,
        export_max_games=export_max_games,
        export_max_bytes=export_max_mib * 1024 * 1024,
        ray_address=ray_address,
        ray_game_cpus=ray_game_cpus,
        ray_bot_cpus=ray_bot_cpus,
        metrics_token=metrics_token or None,
        site_url=site_url,
        smtp_host=smtp_host or None,
        smtp_port=smtp_port,
        smtp_security=smtp_security,
        smtp_sender=smtp_sender,
        smtp_username=smtp_username,
        # The password only from the environment: a command line is visible to all.
        smtp_password=os.environ.get("SNAKEWAR_SMTP_PASSWORD") or None,
        notify_per_hour=notify_per_hour,
    )
    json_logs = log_format == "json"
    configure_logging("json" if json_logs else "text")
    # Frames go out uncompressed (gorilla/websocket's default, so most likely the
    # official engine's too): compression is per connection, so it would cost every
    # frame once per spectator, not once per game.  JSON logs: uvicorn's loggers go
    # through the JSON handler (no config of its own).
    options: dict[str, Any] = {
        "log_level": "warning",
        "access_log": False,
        "ws_per_message_deflate": False,
        **({"log_config": None} if json_logs else {}),
    }
    if ray_address is not None:
        # Joined before the server starts: a cluster that cannot be joined is one error
        # line, not a traceback from the server's start.
        from snakewar.arena.executors import join_ray

        join_ray(ray_address)
    # Opened here, not when the app starts: a database that cannot be opened is one
    # error line (the URL, password hidden), not a traceback from the server's start.
    # With workers it is opened (and migrated) once here, before they start.
    with open_store(config) as store:
        if workers > 1 and store.memory:
            raise SnakewarError(
                f"--workers {workers}: the database {store.url!r} is in memory, one process's "
                "own; give a SQLite file or a PostgreSQL URL"
            )
        if workers > 1:
            store.close()
        else:
            app = create_app(config, store=store)
        # The port is taken before the server says where it runs: a port in use is
        # one error line, and no announcement of an address it does not serve.
        sockets = listen_sockets(host, port)
        shown = "localhost" if host in ("127.0.0.1", "0.0.0.0") else host
        _announce(f"Snakewar is running at http://{shown}:{port}/ (Ctrl-C to stop)", json_logs)
        if workers > 1:
            try:
                run_workers(
                    config,
                    sockets,
                    workers,
                    log_format="json" if json_logs else "text",
                    options=options,
                    gc_thresholds=SERVE_GC_THRESHOLDS,
                )
            finally:
                for sock in sockets:
                    sock.close()
            return
        # A server holding 1,000 spectators' connections has many objects; Python's
        # default collector thresholds then ran a full collection every few seconds,
        # each stopping every live frame for 0.2-0.4 s (on 2 busy cores).  Younger
        # collections ten times rarer, and full ones rarer still, keep those stops out
        # of a game.
        gc.set_threshold(*SERVE_GC_THRESHOLDS)
        serve_app(app, sockets, **options)


def _announce(line: str, json_logs: bool) -> None:
    """Say where the server runs: a line on stderr, or a log record (JSON logs)."""
    if json_logs:
        import logging

        logging.getLogger("snakewar.server").info(line)
    else:
        typer.echo(line, err=True)


def _networks(texts: list[str]) -> list[str]:
    import ipaddress

    for text in texts:
        try:
            ipaddress.ip_network(text, strict=False)
        except ValueError:
            raise SnakewarError(f"--allow-network {text[:60]!r}: expected a CIDR block") from None
    return texts


user_app = typer.Typer(help="Accounts of a server's database (run on the server's machine).")


def _store(database: str | None) -> Any:
    from snakewar.storage import Store

    return Store(database)


DatabaseOption = typer.Option(
    None, "--database", help="SQLAlchemy URL (default: the server's default database)."
)


@user_app.command("create")
def create_user(
    name: str = typer.Argument(..., help="The user name (lowercase letters, digits, _ and -)."),
    admin: bool = typer.Option(False, "--admin", help="Make an admin (the first one, say)."),
    password_stdin: bool = typer.Option(
        False, "--password-stdin", help="Read the password from the first line of stdin."
    ),
    database: str | None = DatabaseOption,
) -> None:
    """Make an account (no sign-up needed): how a server gets its first admin."""
    import argon2

    if password_stdin:
        password = sys.stdin.readline().rstrip("\r\n")
    else:
        password = typer.prompt("Password", hide_input=True, confirmation_prompt=True)
    if not 8 <= len(password) <= 256:
        raise SnakewarError("password: expected 8 to 256 characters")
    with _store(database) as store:
        user = store.accounts.create_user(
            name, argon2.PasswordHasher().hash(password), role="admin" if admin else "user"
        )
    typer.echo(f"made {user.role} {user.name!r}")


@user_app.command("token")
def create_token(
    name: str = typer.Argument(..., help="The user."),
    label: str = typer.Option("cli", "--label", help="What the token is for."),
    database: str | None = DatabaseOption,
) -> None:
    """Print a new API token for a user (shown once; the server keeps its hash only)."""
    from snakewar.server.auth import TOKEN_PREFIX, digest, new_secret

    if not 0 < len(label) <= 64:
        raise SnakewarError("--label: expected 1 to 64 characters")
    with _store(database) as store:
        user = store.accounts.user(name)
        secret = new_secret(TOKEN_PREFIX)
        store.accounts.create_token(user.id, label, digest(secret))
    typer.echo(secret)


@user_app.command("invite")
def create_invite(
    by: str | None = typer.Option(
        None, "--by", help="The admin who invites (default: the first admin)."
    ),
    url: str | None = typer.Option(
        None,
        "--url",
        help="The server's address (e.g. https://snakes.example.org): print the sign-up link too.",
    ),
    database: str | None = DatabaseOption,
) -> None:
    """Print a one-use sign-up invitation (valid a week) for a server with --signup invite.

    The same invitation an admin makes with POST /api/auth/invites.  With --url the
    sign-up link (BASE_URL/login?invite=CODE) follows the code.
    """
    from snakewar.server.auth import issue_invite

    link_base = None if url is None else _base_url(url)
    with _store(database) as store:
        admin = _inviter(store, by)
        code, expires = issue_invite(store, admin.id)
    typer.echo(code)
    if link_base is not None:
        typer.echo(f"{link_base}/login?{urlencode({'invite': code})}")
    when = expires.strftime("%Y-%m-%d %H:%M UTC")
    typer.echo(f"invitation by {admin.name!r}, one use, valid until {when}", err=True)


def _base_url(text: str) -> str:
    """A server's address for links: http(s), a host, a path at most; no trailing ``/``."""
    parts = urlsplit(text)
    if (
        len(text) > 2000
        or parts.scheme not in ("http", "https")
        or not parts.netloc
        or parts.query
        or parts.fragment
        or any(c.isspace() or not c.isprintable() for c in text)
    ):
        raise SnakewarError(
            f"--url {text[:80]!r}: expected the server's address, e.g. https://snakes.example.org"
        )
    return text.rstrip("/")


def _inviter(store: Any, name: str | None) -> Any:
    """The admin who invites: ``name``, or the first enabled admin (a real one first)."""
    from snakewar.server.auth import LOCAL_USER
    from snakewar.storage import UserNotFoundError

    if name is not None:
        try:
            user = store.accounts.user(name)
        except UserNotFoundError:
            raise SnakewarError(f"--by {name[:40]!r}: no user of that name") from None
        if not user.is_admin:
            raise SnakewarError(f"--by {name!r}: {user.role} {user.name!r} is no admin")
        if user.disabled:
            raise SnakewarError(f"--by {name!r}: the account is disabled")
        return user
    admins = [u for u in store.accounts.users() if u.is_admin and not u.disabled]
    # A local server's own "local" admin never logs in: an operator's admin goes first.
    admins.sort(key=lambda u: u.name == LOCAL_USER)
    if not admins:
        raise SnakewarError(
            f"no admin in {store.url!r} to invite: make one with "
            "'snakewar user create NAME --admin'"
        )
    return admins[0]


@user_app.command("list")
def list_users(database: str | None = DatabaseOption) -> None:
    """The accounts: name, role, and whether disabled."""
    with _store(database) as store:
        for user in store.accounts.users():
            flag = " (disabled)" if user.disabled else ""
            typer.echo(f"{user.name}\t{user.role}{flag}")


program_app = typer.Typer(
    help="Program bots the operator registers on the server (argument lists, no shell)."
)


@program_app.command(
    "add", context_settings={"allow_extra_args": True, "ignore_unknown_options": True}
)
def add_program(
    ctx: typer.Context,
    name: str = typer.Argument(..., help="The bot's name (games name it @OWNER/NAME)."),
    owner: str = typer.Option(..., "--owner", help="The user who owns it (an admin, say)."),
    game: str | None = typer.Option(
        None,
        "--game",
        help="The game it plays (default: the first registered game whose bots are programs).",
    ),
    workdir: str = typer.Option(
        ..., "--workdir", help="The folder of its files (its working directory)."
    ),
    private: bool = typer.Option(False, "--private", help="Only its owner may play it."),
    database: str | None = DatabaseOption,
) -> None:
    """Register a program bot: the command after ``--`` is run as is, never by a shell.

    Example: ``snakewar program add mybot --owner admin --workdir /srv/bots/mybot --
    python3 MyBot.py``.  On a public server it runs in a sandbox, with its folder's files.
    """
    import os

    argv = list(ctx.args)
    if not argv:
        raise SnakewarError("no command: put the bot's command after --, e.g. -- python3 MyBot.py")
    if not os.path.isdir(workdir):
        raise SnakewarError(f"--workdir {workdir!r} is no folder")
    from snakewar.adapters import default_program_game, get_game

    adapter = get_game(game) if game else default_program_game()
    if not adapter.catalogue().programs:
        raise SnakewarError(f"--game {adapter.name}: its bots are not programs")
    with _store(database) as store:
        user = store.accounts.user(owner)
        snake = store.snakes.register(
            user.id,
            name,
            adapter.name,
            "program",
            argv=argv,
            workdir=os.path.abspath(workdir),
            visibility="private" if private else "public",
        )
    typer.echo(snake.ref)


cluster_app = typer.Typer(help="Machines of a Ray cluster that plays a server's games.")


def worker_argv(address: str, sandbox: bool, *, num_cpus: int | None = None) -> list[str]:
    """The ``ray start`` argument list that joins this machine to the cluster at ``address``.

    ``sandbox``: the machine can run program bots in a sandbox, so it declares the
    resource :data:`~snakewar.arena.remote.SANDBOX_RESOURCE` (games with program bots
    are placed on such nodes only).
    """
    import json
    import shutil

    from snakewar.arena.remote import SANDBOX_RESOURCE

    ray = shutil.which("ray")
    if ray is None:
        raise SnakewarError('no "ray" command here: pip install "snakewar[ray]"')
    argv = [ray, "start", "--address", address]
    if num_cpus is not None:
        argv += ["--num-cpus", str(num_cpus)]
    if sandbox:
        argv += ["--resources", json.dumps({SANDBOX_RESOURCE: 1})]
    return argv


def worker_env(environ: Mapping[str, str]) -> dict[str, str]:
    """The environment of ``ray start`` for a worker: ``environ``, and its games' niceness.

    Their processes run at :data:`~snakewar.arena.executors.RAY_WORKER_NICENESS` unless
    ``environ`` says otherwise.
    """
    from snakewar.arena.executors import RAY_NICENESS_ENV, RAY_WORKER_NICENESS

    return {RAY_NICENESS_ENV: str(RAY_WORKER_NICENESS), **environ}


@cluster_app.command("worker")
def cluster_worker(
    address: str = typer.Option(
        ..., "--address", help="The cluster's head, HOST:PORT (what 'ray start --head' printed)."
    ),
    num_cpus: int | None = typer.Option(
        None, "--num-cpus", help="CPUs this machine gives the cluster (default: all)."
    ),
) -> None:
    """Join this machine to a server's Ray cluster as a worker (runs 'ray start').

    A machine that can run bots in a bubblewrap sandbox declares the resource
    snakewar_sandbox, so that games with program bots are played on it; one that
    cannot still plays the other games, and says why it takes no program bots.
    """
    import subprocess

    from snakewar.referee.sandbox import sandbox_available

    address = check_ray_address(address, "--address")
    if address == "auto" or address.startswith("ray://"):
        raise SnakewarError(f"--address {address!r}: expected the head's HOST:PORT")
    problem = sandbox_available()
    if problem is not None:
        typer.echo(f"no sandbox here, so no program bots on this machine: {problem}", err=True)
    # An argument list, never a shell: the address was checked, and is one argument.
    argv = worker_argv(address, problem is None, num_cpus=num_cpus)
    status = subprocess.call(argv, env=worker_env(os.environ))
    if status != 0:
        raise typer.Exit(status)
