"""The Snakewar web server: one router per resource, games of every game.

Routes:

* ``/api/games``: create, list, get, cancel, rematch and export games of any game;
  ``/api/catalogue`` (the games, their parameters and bots), ``/api/ladders``,
  ``/api/tournaments``.  OpenAPI at ``/openapi.json``, docs at ``/docs``.
* each registered game's own routes, from its adapter's
  :meth:`~snakewar.engine.protocol.GameAdapter.routers` (a game package's ``routes``);
  CORS is open on the read-only engine routes ``GET /games/{id}...``
  (:class:`~snakewar.server.safety.EngineCorsMiddleware`).
* ``/static/viewer/...``: the shared playback modules and the pages' modules and
  stylesheet; ``/static/<game>/...``: each game's own viewer, from its adapter's
  :meth:`~snakewar.engine.protocol.GameAdapter.static_assets`.  The pages themselves
  (``/``, ``/new``, ``/view/{id}``...) are :mod:`.routers.pages` (Jinja2 templates: the
  server's, then each game's :meth:`~snakewar.engine.protocol.GameAdapter.templates` as
  ``<game>/<file>``), the offline API docs :mod:`.routers.docs`.

Every request body is validated; errors are JSON ``{"detail": ...}`` naming the field
(:mod:`snakewar.server.errors` maps exceptions to statuses).  Every answer carries the
security headers of :mod:`snakewar.server.headers` (a strict Content-Security-Policy,
no framing by other sites).  The store, the live games
and the arena are on ``app.state`` and reach routes as typed dependencies
(:mod:`snakewar.server.deps`).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import ipaddress
from collections.abc import AsyncIterator, Sequence

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from snakewar import __version__
from snakewar.adapters import games as all_games
from snakewar.engine.protocol import GameAdapter
from snakewar.referee.builds import BuildLimits
from snakewar.referee.uploads import MAX_ARCHIVE_BYTES, UploadCache
from snakewar.server.arena import ArenaWorker
from snakewar.server.auth import Passwords, ensure_local_user
from snakewar.server.builds import BotBuilder
from snakewar.server.config import MEMORY_DATABASE, SIGNUP_MODES, ServerConfig
from snakewar.server.decoding import DecoderPool
from snakewar.server.deps import (
    RESERVED_STATIC,
    STATIC_ROOT,
    STATIC_URL,
    make_templates,
)
from snakewar.server.errors import add_error_handlers
from snakewar.server.exports import ExportLimits, ExportWorker
from snakewar.server.followers import (
    FollowerLimits,
    SendTurns,
    StoredFollowing,
    StoredPages,
    encode_stored_frame,
)
from snakewar.server.headers import SecurityHeadersMiddleware
from snakewar.server.limits import RateBook
from snakewar.server.logs import GameIdMiddleware
from snakewar.server.manager import GameManager, UserCaps
from snakewar.server.metrics import Metrics, keep_gauges, refresh_gauges
from snakewar.server.mirror import GameMirrors
from snakewar.server.notify import Notifier, notify_tournament_started
from snakewar.server.routers import (
    admin,
    auth,
    catalogue,
    docs,
    games,
    health,
    ladders,
    metrics,
    notifications,
    pages,
    profile_pages,
    profiles,
    sharing,
    snakes,
    tokens,
    tournaments,
    users,
)
from snakewar.server.runners import GameRunner, RayRunner
from snakewar.server.runs import RunKeeper
from snakewar.server.safety import (
    LOOPBACK_NAMES,
    BodyLimitMiddleware,
    EngineCorsMiddleware,
    HostCheckMiddleware,
)
from snakewar.server.scheduler import LadderScheduler
from snakewar.server.tournament_scheduler import TournamentScheduler, TournamentStarted
from snakewar.storage import AsyncStore, Store
from snakewar.storage.events import GameEvents
from snakewar.viewer import static_dir

__all__ = ["create_app", "export_limits", "open_store", "user_caps"]


def open_store(config: ServerConfig) -> Store:
    """Open the database a server with ``config`` uses (``memory``: SQLite in memory).

    Raises:
        StoreError: if it cannot be opened or migrated (naming the URL, password hidden).
    """
    url = "sqlite://" if config.database_url == MEMORY_DATABASE else config.database_url
    return Store(url)


def _runner(config: ServerConfig, store: Store) -> GameRunner | None:
    """Where the server's games are played: a Ray cluster's, or here (``None``)."""
    if config.ray_address is None:
        return None
    return RayRunner(
        config.ray_address,
        # The workers open the database themselves: the URL with its password.
        store.db.engine.url.render_as_string(hide_password=False),
        max_retries=config.ray_game_retries,
        game_cpus=config.ray_game_cpus,
        bot_cpus=config.ray_bot_cpus,
        resources=dict(config.ray_game_resources),
        start_timeout_s=config.ray_start_timeout_s,
    )


def user_caps(config: ServerConfig) -> UserCaps | None:
    """What one user's games may hold at once: a public server's caps.

    A local server has one user, who may use everything: it has none.
    """
    if not config.public:
        return None
    return UserCaps(
        live_games=config.games_per_user,
        paused_games=config.paused_games_per_user,
        builtin_workers=config.builtin_workers_per_user,
    )


def export_limits(config: ServerConfig) -> ExportLimits:
    """What bulk exports may take on a server with ``config``."""
    return ExportLimits(
        max_games=config.export_max_games,
        max_bytes=config.export_max_bytes,
        jobs_per_user=config.export_jobs_per_user,
        workers=config.export_workers,
        keep_s=config.export_keep_s,
        lease_s=config.game_lease_s,
    )


def _game_assets(registered: Sequence[GameAdapter]) -> dict[str, str]:
    """Each game's static folder by the game's name (games with none are left out).

    Raises:
        ValueError: a game whose name is a folder of the server's own (``viewer``...).
    """
    assets = {}
    for game in registered:
        folder = game.static_assets()
        if folder is None:
            continue
        if game.name in RESERVED_STATIC:
            raise ValueError(f"game {game.name!r}: its static files would hide the server's own")
        assets[game.name] = folder
    return assets


def create_app(config: ServerConfig | None = None, *, store: Store | None = None) -> FastAPI:
    """Build the ASGI application.

    Args:
        config: how the server runs (default: local mode, the default database).
        store: an already-open store to use (it stays open when the app stops);
            otherwise one is opened from ``config.database_url``.
    """
    config = config or ServerConfig()
    for network in config.allowed_networks:
        ipaddress.ip_network(network, strict=False)  # a typo fails at start, not per request
    if config.signup not in SIGNUP_MODES:
        raise ValueError(f"signup {config.signup!r}: expected one of {', '.join(SIGNUP_MODES)}")
    if config.ray_address is not None and config.database_url == MEMORY_DATABASE:
        raise ValueError(
            "a server on a Ray cluster needs a database its workers reach; 'memory' is this "
            "process's own"
        )
    if config.ray_game_retries < 0 or not config.ray_game_cpus > 0:
        raise ValueError(
            f"ray_game_retries {config.ray_game_retries} and ray_game_cpus "
            f"{config.ray_game_cpus}: expected at least 0 and more than 0"
        )
    if not config.ray_bot_cpus >= 0:
        raise ValueError(f"ray_bot_cpus {config.ray_bot_cpus}: expected at least 0")
    if not config.ray_start_timeout_s > 0:
        raise ValueError(f"ray_start_timeout_s {config.ray_start_timeout_s}: expected more than 0")
    bulk = ("export_max_games", "export_max_bytes", "export_jobs_per_user", "export_workers")
    for name in (*bulk, "media_workers"):
        if getattr(config, name) < 1:
            raise ValueError(f"{name} {getattr(config, name)}: expected at least 1")

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        own = store is None
        opened = store if store is not None else open_store(config)
        astore = AsyncStore(opened, workers=config.store_workers)
        passwords = Passwords()
        app.state.local_user = (
            None if config.public else await astore.run(ensure_local_user, opened)
        )
        manager = GameManager(
            astore,
            config.max_concurrent_games,
            config.outbound(),
            config.game_lease_s,
            max_pause_s=config.max_pause_s,
            builtin_workers=config.builtin_workers,
            user_caps=user_caps(config),
            runner=_runner(config, opened),
        )
        await manager.start()
        # Operations (issue 25): the metrics and the notifications watch every game.
        app.state.metrics = app_metrics = Metrics()
        app.state.notifier = notifier = Notifier(astore, config, holder=manager.server_id)
        manager.observers += [app_metrics, notifier]
        await notifier.start()
        # Live games played by other replicas (or workers) are followed here too, woken
        # by the database's notifications (polling on SQLite).
        events = GameEvents.for_engine(opened.db.engine)
        await events.start()
        manager.mirrors = mirrors = GameMirrors(astore, events)
        app.state.events = events
        arena = ArenaWorker(config.arena_workers, config.max_queued_runs)
        runs = RunKeeper(
            astore,
            arena,
            manager.server_id,
            config.game_lease_s,
            resume=config.resume_tournaments,
        )
        app.state.config = config
        app.state.store = astore
        app.state.manager = manager
        app.state.arena = arena
        app.state.runs = runs
        # Counted in the database when it may be shared (another replica, --workers):
        # every server then enforces one limit per client (snakewar.server.limits).
        app.state.rates = rates = RateBook(astore)
        app.state.limiter = rates.rate("games", config.games_per_minute)
        app.state.login_limiter = rates.rate("logins", config.logins_per_minute, burst=10)
        app.state.passwords = passwords
        app.state.uploads = uploads = UploadCache()
        app.state.stored_following = StoredFollowing(
            StoredPages(astore, encode_stored_frame, config.stored_frames_bytes),
            SendTurns(),
            FollowerLimits(
                config.stored_followers_per_game,
                config.stored_followers_per_client,
                config.max_stored_followers,
            ),
        )
        for kind, module in (("tournament", tournaments), ("ladder", ladders)):
            runs.on_resume(kind, module.resumer(astore, runs, config, uploads, manager))
        # Runs a crash or a restart interrupted go on (exactly one server plays each);
        # one that cannot is marked failed and reported: the server starts anyway.
        await runs.start(legacy=lambda: tournaments.record_unrecorded(astore))
        # Continuous ladders: one server of those sharing the database schedules.
        scheduler = LadderScheduler(
            astore,
            manager,
            config,
            uploads,
            lease_s=config.scheduler_lease_s or config.game_lease_s,
        )
        app.state.scheduler = scheduler
        scheduler.on_paused.append(notifier.snake_paused)
        app.state.refresh_gauges = functools.partial(
            refresh_gauges, app_metrics, manager, mirrors, app.state.stored_following, arena
        )
        gauges = asyncio.create_task(keep_gauges(app.state.refresh_gauges), name="gauges")
        if config.ladder_scheduler:
            await scheduler.start()
        # Scheduled tournaments: one server of those sharing the database starts them and
        # plays their rounds; every server announces those its admins start (on_started).
        app.state.tournament_scheduler = tournament_scheduler = TournamentScheduler(
            astore,
            runs,
            manager,
            config,
            uploads,
            lease_s=config.scheduler_lease_s or config.game_lease_s,
        )

        # A tournament that starts tells the owners of its snakes (their settings permitting).
        async def tournament_started(started: TournamentStarted) -> None:
            await notify_tournament_started(notifier, started.id, started.name, started.entrants)

        tournament_scheduler.on_started.append(tournament_started)
        if config.tournament_scheduler:
            await tournament_scheduler.start()
        app.state.decoders = decoders = DecoderPool(config.decode_workers)
        app.state.media_slots = asyncio.Semaphore(config.media_workers)
        # Bulk exports: built in the background, their progress and archives stored.
        app.state.exports = exports = ExportWorker(astore, manager.server_id, export_limits(config))
        await exports.start()
        # Uploaded bots: built in the background, a few at once (snakewar.server.builds).
        app.state.builder = builder = BotBuilder(
            astore,
            BuildLimits(seconds=config.build_seconds),
            slots=config.concurrent_builds,
            lease_s=config.game_lease_s,
        )
        await builder.start()
        try:
            yield
        finally:
            app.state.draining = True  # /ready says so from now on
            await exports.close()
            await builder.close()  # its builds are killed and failed, saying so
            gauges.cancel()
            # The scheduler first: it starts no more games and lets its lease go.
            await scheduler.close()
            await tournament_scheduler.close()
            # The runs next: their games are cancelled and they are let go (still
            # running in the database) for the next server, before the games close.
            await runs.close()
            # Followers of games played elsewhere are told to reconnect (to another).
            await mirrors.close()
            await events.close()
            await notifier.close()  # its unsent messages wait in the database
            app_metrics.close()
            passwords.close()
            arena.close()  # first: its runs' games would start on a closing manager
            await manager.close()
            astore.close()
            uploads.close()
            decoders.close()
            if own:
                opened.close()

    # Each game adds its own parts (engine.protocol.GameAdapter's optional hooks).
    registered = all_games()
    assets = _game_assets(registered)
    app = FastAPI(
        title="Snakewar",
        version=__version__,
        description="Create and watch games of every registered game: "
        + ", ".join(game.catalogue().title for game in registered)
        + "; each game's own routes.",
        lifespan=lifespan,
        # Served from the package by routers.docs: FastAPI's own pages need a CDN.
        docs_url=None,
        redoc_url=None,
    )
    app.add_middleware(EngineCorsMiddleware)
    # A game's uploads stream through their own, larger cap (its streamed_uploads).
    app.add_middleware(
        BodyLimitMiddleware,
        exempt=tuple(path for game in registered for path in game.streamed_uploads()),
        larger={"/api/snakes/upload": MAX_ARCHIVE_BYTES},
    )
    hosts = config.allowed_hosts if config.public else (*LOOPBACK_NAMES, *config.allowed_hosts)
    app.add_middleware(
        HostCheckMiddleware, hosts=hosts, exempt=(*health.HEALTH_PATHS, metrics.METRICS_PATH)
    )
    # Every answer has the headers, refusals of the layers inside included (only the log
    # context below is outside it, and it answers nothing itself).
    app.add_middleware(
        SecurityHeadersMiddleware,
        viewer_prefixes=(f"{STATIC_URL}/", *(f"{STATIC_ROOT}/{name}/" for name in assets)),
    )
    # Around everything: a request on a game carries its id into every log line.
    app.add_middleware(GameIdMiddleware)
    add_error_handlers(app, not_found_page=pages.not_found_page)
    for module in (profiles, profile_pages):  # before snakes': /api/snakes/directory is no id
        app.include_router(module.router)
    for module in (
        health,
        auth,
        tokens,
        users,
        snakes,
        games,
        catalogue,
        ladders,
        tournaments,
        sharing,
    ):
        app.include_router(module.router)
    for module in (metrics, admin, notifications):  # operations (issue 25)
        app.include_router(module.router)
    # Each game's own routes come before the pages (which catch no path of theirs).
    for game in registered:
        for game_router in game.routers():
            app.include_router(game_router)
    for module in (pages, docs):
        app.include_router(module.router)
    app.include_router(sharing.pages)
    app.mount(STATIC_URL, StaticFiles(directory=static_dir()), name="viewer")
    for name, folder in assets.items():
        app.mount(f"{STATIC_ROOT}/{name}", StaticFiles(directory=folder), name=f"static-{name}")
    app.state.templates = make_templates(
        {game.name: templates for game in registered if (templates := game.templates())}
    )
    docs.mount_docs_static(app)
    return app
