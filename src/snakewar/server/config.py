"""How a server runs: its database and, in public mode, its limits."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from snakewar.referee.addresses import AddressPolicy
from snakewar.storage.accounts import Backoff

__all__ = ["MEMORY_DATABASE", "SIGNUP_MODES", "SMTP_SECURITY", "ServerConfig"]

SMTP_SECURITY: Final = ("none", "starttls", "tls")
"""How the server talks to its SMTP server: plain, upgraded with STARTTLS, or TLS from the start."""

SIGNUP_MODES: Final = ("open", "invite", "closed")
"""Who may make an account on a public server: anyone, holders of an invitation, nobody."""

MEMORY_DATABASE = "memory"
"""``database_url`` for a server that keeps nothing after it stops (SQLite in memory)."""


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """How a server runs.  ``public`` turns on the protections for an open server.

    Attributes:
        database_url: a SQLAlchemy URL, :data:`MEMORY_DATABASE`, or ``None`` for the
            default database (``$SNAKEWAR_DATABASE_URL`` or SQLite in the user's data
            directory).
        public: refuse non-public bot addresses and rate-limit game creation.
        max_board: the largest board or map side a game may have (``None``: each
            game's own bound, its catalogue's ``hosted_maximum``: games' boards and
            maps differ).
        max_snakes: the most entrants a game may have.
        max_concurrent_games: the most games running at once.
        max_timeout_ms: the longest time per turn.
        max_turns: the most turns a game may last.
        games_per_minute: per client, in public mode (a burst of 10 is allowed).
        logins_per_minute: log-in and sign-up attempts per client address (a burst of 10
            is allowed), failed ones included: what slows password guessing down.
        store_workers: threads that run database calls.
        arena_workers: threads that run ladder and tournament runs.
        signup: a public server's sign-up mode, one of :data:`SIGNUP_MODES` (admins
            make accounts with ``snakewar user create`` in every mode).
        allowed_hosts: the names the server answers to (the ``Host`` header); a local
            server always answers to its loopback names, a public one to any name when
            this is empty.
        snakes_per_user: the most snakes one user may register.
        sandbox_programs: run operators' program bots in a sandbox (``None``: on a
            public server); users' uploads always run in one.
        max_tournament_games: the most games one tournament may play (its matches
            times best-of), so that one request cannot queue days of games.
        max_queued_runs: ladder and tournament runs waiting for the arena at once.
        resume_tournaments: play on the ladder and tournament runs a crash or a restart
            interrupted, at start-up and whenever a server sharing the database dies
            (exactly one server plays each run: :mod:`snakewar.server.runs`).
        game_lease_s: how long a server vouches for a running game or run it plays;
            servers sharing a database abort another's game, or take over its run, only
            once its lease ran out.  Uploaded bots' builds are renewed the same way: one
            nobody renewed for a lease is failed (:mod:`snakewar.server.builds`).
        allowed_networks: private networks (CIDR) a public server may still call bots
            on, e.g. a LAN's ``192.168.1.0/24``; none by default.
        max_pause_s: how long a paused game (step mode) waits for its next step or
            resume before it is cancelled; it keeps its slot among the concurrent
            games meanwhile.
        stored_followers_per_game: the most websocket followers one stored game may have
            (``/games/{id}/events``; a live game's followers are not counted).
        stored_followers_per_client: the most stored-game followers one client (its
            address, an IPv6 client its /64) may hold open.
        max_stored_followers: the most stored-game followers the server holds in all.
        stored_frames_bytes: the memory stored games' encoded frames, kept for their
            followers and ``/games/{id}/frames``, may take.
        decode_workers: worker processes that read uploaded replays, so at most this
            many are decompressed and parsed at once (:mod:`snakewar.server.decoding`).
        upload_quota_bytes: the most bytes one user may store of uploads (``.hlt``
            replays and bot archives, :mod:`snakewar.storage.quota`); admins have none.
        builtin_workers: the worker processes that play built-in bots, one per
            built-in seat of a game playing now: a game whose built-in bots would not
            all get one is refused when it is made (429), never failed later.
        games_per_user: a public server's cap on one user's live games (paused ones
            included), so that no user takes every slot; replicas sharing a database
            hold it together (each counts the others' games from their stored rows).
        paused_games_per_user: a public server's cap on one user's paused games (each
            replica caps the games it started: a paused game holds that replica's slot).
        builtin_workers_per_user: a public server's cap on the built-in bot workers
            one user's games hold at once, so that no user takes every worker (each
            replica's own workers).
        tester_runs_per_hour: a public server's budget of snake tester runs per user
            (a run makes several hundred requests to the snake tested); one run at a
            time per user.
        login_backoff: how failed log-ins in a row slow an account's next ones down
            (counted in the database, whatever address they come from).
        ray_address: play every game on this Ray cluster (``auto``, ``HOST:PORT``,
            ``ray://HOST:PORT``; :class:`~snakewar.server.runners.RayRunner`) instead
            of in this process (``None``, the default).  The database must be one every
            node reaches (not ``memory``).
        ray_game_retries: how often a game whose Ray worker died is played again
            from turn 0 before it is marked aborted.
        ray_game_cpus: the CPUs each game's referee holds on its node.
        ray_bot_cpus: the CPUs a game holds besides for each of its program bots (a node
            must have ``ray_game_cpus`` plus that for each bot of a game to play it).
        ray_game_resources: custom Ray resources each game's actor asks for besides
            (name, amount): games go only to nodes that declare them (a pool of nodes
            set aside for one server's games, say).
        ray_start_timeout_s: how long a new game may wait for the cluster to start it
            (a node with room, its actor's process, its bots) before the request that
            asked for it is answered 429.
        ladder_scheduler: take part in scheduling the continuous ladders (one server of
            those sharing the database schedules at a time: :mod:`snakewar.server.scheduler`).
        tournament_scheduler: take part in starting scheduled tournaments and playing
            their rounds (one server at a time: :mod:`snakewar.server.tournament_scheduler`).
        scheduler_lease_s: how long the scheduling server's lease lasts (``None``:
            ``game_lease_s``); another server takes over within that once it dies.
        build_seconds: how long an uploaded bot's build may take (wall clock, in its
            sandbox: :mod:`snakewar.referee.builds`); the official site gave 10 minutes
            to install and compile.
        concurrent_builds: builds this server runs at once (an upload past them waits
            its turn).
        export_max_games: the most games one bulk export holds (the newest).
        export_max_bytes: the largest archive one bulk export may make; an export that
            would pass it fails, saying so.
        export_jobs_per_user: the exports one user may have in progress at once.
        export_workers: the exports one server builds at once (others wait their turn).
        export_keep_s: how long a finished export (its archive) is kept.
        media_workers: the downloads that cost CPU (a game's pictures and videos,
            ``GET /api/games/{id}/media``, and its turns as test scenarios) one server
            makes at once; a request past them is refused (429), since a long game's
            GIF is a minute of CPU and hundreds of megabytes.
        metrics_token: the bearer token a Prometheus scraper sends for ``/metrics``
            (``None``: only admins, and a local server's user, read it).
        site_url: the site's address as its users know it, for the links in
            notifications (``None``: they carry paths only).
        smtp_host: the SMTP server notifications' e-mails go through (``None``: no
            e-mail); like every SMTP setting it is the operator's, never a request's.
        smtp_port: its port.
        smtp_security: one of :data:`SMTP_SECURITY`.
        smtp_sender: the ``From`` address of the e-mails.
        smtp_username: the SMTP login (``None``: none).
        smtp_password: its password.
        notify_per_hour: the most notifications one user gets on one channel in an
            hour; more are recorded as ``capped`` and not sent.
        notify_attempts: how often a notification is tried before it is ``failed``.
    """

    database_url: str | None = None
    public: bool = False
    max_board: int | None = None
    max_snakes: int = 8
    max_concurrent_games: int = 32
    max_timeout_ms: int = 2000
    max_turns: int = 5000
    games_per_minute: float = 30.0
    logins_per_minute: float = 10.0
    store_workers: int = 4
    arena_workers: int = 2
    signup: str = "invite"
    allowed_hosts: tuple[str, ...] = ()
    snakes_per_user: int = 20
    allowed_networks: tuple[str, ...] = ()
    sandbox_programs: bool | None = None
    max_tournament_games: int = 2000
    max_queued_runs: int = 16
    game_lease_s: float = 30.0
    resume_tournaments: bool = True
    max_pause_s: float = 600.0
    stored_followers_per_game: int = 1000
    stored_followers_per_client: int = 16
    max_stored_followers: int = 4000
    stored_frames_bytes: int = 64 * 1024 * 1024
    decode_workers: int = 2
    upload_quota_bytes: int = 64 * 1024 * 1024

    def quota_of(self, is_admin: bool) -> int | None:
        """The storage quota of a user (``None``: none, for an admin)."""
        return None if is_admin else self.upload_quota_bytes

    builtin_workers: int = 16
    games_per_user: int = 8
    paused_games_per_user: int = 2
    builtin_workers_per_user: int = 8
    tester_runs_per_hour: int = 10
    login_backoff: Backoff = field(default_factory=Backoff)
    ray_address: str | None = None
    ray_game_retries: int = 2
    ray_game_cpus: float = 1.0
    ray_bot_cpus: float = 1.0
    ray_game_resources: tuple[tuple[str, float], ...] = ()
    ray_start_timeout_s: float = 120.0
    ladder_scheduler: bool = True
    tournament_scheduler: bool = True
    scheduler_lease_s: float | None = None
    build_seconds: float = 300.0
    concurrent_builds: int = 2
    export_max_games: int = 1000
    export_max_bytes: int = 64 * 1024 * 1024
    export_jobs_per_user: int = 1
    export_workers: int = 1
    export_keep_s: float = 24 * 3600.0
    media_workers: int = 2

    # Operations (issue 25): metrics and notifications.
    metrics_token: str | None = None
    site_url: str | None = None
    smtp_host: str | None = None
    smtp_port: int = 25
    smtp_security: str = "none"
    smtp_sender: str = "snakewar@localhost"
    smtp_username: str | None = None
    smtp_password: str | None = field(default=None, repr=False)
    notify_per_hour: int = 10
    notify_attempts: int = 5

    def outbound(self) -> AddressPolicy:
        """The address policy of every connection the server makes to bots."""
        return AddressPolicy(public_only=self.public, allowed_networks=self.allowed_networks)

    def sandboxes_programs(self) -> bool:
        """Whether operators' program bots run in a sandbox on this server."""
        return self.public if self.sandbox_programs is None else self.sandbox_programs
