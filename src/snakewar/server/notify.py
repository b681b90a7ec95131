"""Notifications to users and admins: webhooks (Discord-compatible) and e-mail (SMTP).

Events (:data:`EVENTS`): a snake of yours was paused for failing its health checks (the
ladder scheduler), a tournament with a snake of yours started, a game of a snake of
yours finished, and, to admins, someone signed up.  Each user picks on their account
page (``/api/notifications/settings``) which events reach them on which channel, and
where: a webhook URL, an e-mail address.

**Never in a game's way.**  An event is only *queued* (:meth:`Notifier.publish`, or
:meth:`Notifier.publish_soon` from code that must not wait): one row per user and channel
in the database's outbox (:mod:`snakewar.storage.notifications`), where the rate cap is
counted (``notify_per_hour`` per user and channel; more are kept as ``capped``, not
sent).  A background worker per server claims due rows and delivers them, at most
:data:`PARALLEL_SENDS` at once, each attempt bounded in time; a failed one is tried again
after an exponential back-off until ``notify_attempts`` are spent (``failed``).

**Webhooks** are POSTed through the server's outbound address policy
(:func:`~snakewar.referee.outbound.new_policy_client` with ``config.outbound()``): a
public server never posts to a loopback, private or link-local address, whatever the
name resolves to when it is used; a URL whose host is such an address is refused when
the settings are saved already.  The body is Discord's (``content``, ``username`` and
one embed), which Slack-compatible and most chat webhooks take too.  Redirects are not
followed (a redirect could lead anywhere).

**E-mail** goes through the SMTP server of the server's config (``smtp_host``...; set
by the operator, never by a request), with the standard library's :mod:`smtplib` on a
thread (it blocks), STARTTLS or TLS as configured.  Addresses are checked when saved,
and :mod:`email`'s SMTP policy refuses line breaks in headers besides.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import functools
import ipaddress
import logging
import re
import smtplib
import ssl
import time
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from email.message import EmailMessage
from email.policy import SMTP as SMTP_POLICY
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import urlsplit

import httpx

from snakewar.errors import ParamsError
from snakewar.referee.outbound import AddressRefusedError, check_host, new_policy_client
from snakewar.server.config import ServerConfig
from snakewar.server.patterns import snake_ref_owner
from snakewar.storage import AsyncStore, GameStatus
from snakewar.storage.notifications import (
    CHANNELS,
    Notification,
    NotifySettings,
    SqlNotificationRepository,
)

if TYPE_CHECKING:
    from snakewar.arena.ladder import LadderEntry
    from snakewar.engine.protocol import JSON, Frame
    from snakewar.server.manager import LiveGame

__all__ = [
    "CHANNELS",
    "EVENTS",
    "PARALLEL_SENDS",
    "Event",
    "Notifier",
    "check_settings",
    "discord_body",
    "notify_tournament_started",
]

log = logging.getLogger("snakewar.server")


@dataclass(frozen=True, slots=True)
class Event:
    """An event users may be told about.

    Attributes:
        name: its key (in settings and the API).
        title: what the account page calls it.
        admins_only: only admins may be told (a sign-up).
    """

    name: str
    title: str
    admins_only: bool = False


EVENTS: Final = {
    event.name: event
    for event in (
        Event("snake_paused", "A snake of mine is paused: it failed its health checks"),
        Event("tournament_started", "A tournament with a snake of mine starts"),
        Event("game_finished", "A game of a snake of mine finished"),
        Event("signup", "Someone signed up (admins)", admins_only=True),
    )
}
"""Every event, by name."""

TEST_EVENT: Final = "test"
"""A message a user sends themself (``POST /api/notifications/test``), on every channel set up."""

PARALLEL_SENDS: Final = 4
"""Deliveries one server makes at once."""

SEND_TIMEOUT_S: Final = 15.0
"""The longest one attempt (a webhook's request, an SMTP conversation) may take."""

CLAIM_S: Final = 120.0
"""How long a server's claim on a message lasts (longer than an attempt takes)."""

MAX_BACKOFF_S: Final = 600.0
"""The longest wait between two attempts."""

KEEP_DAYS: Final = 30
"""How long delivered, failed and capped messages are kept (the caps need one hour)."""

PRUNE_EVERY_S: Final = 3600.0
"""How often a server forgets the old messages."""

MAX_URL = 2048
MAX_EMAIL = 254
_EMAIL: Final = re.compile(
    r"[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?\Z"
)
_DISCORD_CONTENT: Final = 2000
_DISCORD_TITLE: Final = 256
_DISCORD_DESCRIPTION: Final = 4096


def _check_url(url: str) -> str:
    if len(url) > MAX_URL:
        raise ParamsError("webhook_url", f"webhook_url: at most {MAX_URL} characters")
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - a bad port raises here
    except ValueError as exc:
        raise ParamsError("webhook_url", f"webhook_url: not a URL ({exc})") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ParamsError("webhook_url", "webhook_url: expected an http:// or https:// URL")
    if parts.username is not None or parts.password is not None:
        raise ParamsError("webhook_url", "webhook_url: no user or password in the URL")
    if any(ord(c) < 33 or ord(c) == 127 for c in url):
        raise ParamsError("webhook_url", "webhook_url: no spaces or control characters")
    return url


def _check_email(address: str) -> str:
    if len(address) > MAX_EMAIL or not _EMAIL.match(address):
        raise ParamsError("email", "email: expected an e-mail address like name@example.org")
    return address


async def check_settings(
    settings: NotifySettings, config: ServerConfig, *, is_admin: bool
) -> NotifySettings:
    """``settings`` checked, as they may be saved.

    Raises:
        ParamsError: naming the field: an unknown event or channel, an admins' event
            for a user who is none, a bad URL or address, a webhook whose host the
            outbound policy refuses, a channel chosen with nowhere to send.
    """
    url = _check_url(settings.webhook_url) if settings.webhook_url else None
    email = _check_email(settings.email) if settings.email else None
    if url is not None:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = parts.port or (443 if parts.scheme == "https" else 80)
        try:
            # The policy again at each delivery: this only tells the user at once.
            await check_host(host, port, config.outbound())
        except AddressRefusedError as exc:
            raise ParamsError("webhook_url", f"webhook_url: {exc}") from None
    events: dict[str, tuple[str, ...]] = {}
    for name, channels in settings.events.items():
        event = EVENTS.get(name)
        if event is None:
            raise ParamsError("events", f"events: no event {name[:40]!r}")
        if event.admins_only and not is_admin:
            raise ParamsError("events", f"events: {name} is for admins only")
        chosen = []
        for channel in channels:
            if channel not in CHANNELS:
                raise ParamsError("events", f"events: no channel {channel[:20]!r}")
            if channel == "webhook" and url is None:
                raise ParamsError("webhook_url", "webhook_url: needed for webhook messages")
            if channel == "email" and email is None:
                raise ParamsError("email", "email: needed for e-mail messages")
            if channel not in chosen:
                chosen.append(channel)
        if chosen:
            events[name] = tuple(chosen)
    return NotifySettings(url, email, events)


def discord_body(item: Notification, when: dt.datetime | None = None) -> dict[str, Any]:
    """A message as Discord's webhooks take it (``content``, ``username``, one embed)."""
    embed: dict[str, Any] = {
        "title": item.title[:_DISCORD_TITLE],
        "description": item.body[:_DISCORD_DESCRIPTION],
        "timestamp": (when or item.created_at).isoformat(),
        "footer": {"text": f"Snakewar · {item.event}"},
    }
    if item.link is not None and item.link.startswith(("http://", "https://")):
        embed["url"] = item.link
    return {
        "username": "Snakewar",
        "content": item.title[:_DISCORD_CONTENT],
        "embeds": [embed],
        "allowed_mentions": {"parse": []},  # a snake's name never pings anyone
    }


class _Permanent(Exception):
    """An attempt that failed for good (trying again would fail the same)."""


def _owners(names: Iterable[str]) -> set[str]:
    return {owner for owner in map(snake_ref_owner, names) if owner is not None}


class Notifier:
    """Queues notifications and delivers them (see the module docstring).

    Args:
        store: the database (its outbox and settings).
        config: the server's settings (its address policy, SMTP server, caps).
        holder: this server's name in claims (default: a new random one).
        tick_s: the most time between two looks at the outbox (sooner when queued here).
    """

    def __init__(
        self,
        store: AsyncStore,
        config: ServerConfig,
        *,
        holder: str | None = None,
        tick_s: float = 2.0,
    ) -> None:
        self.store = store
        self.config = config
        self.repo = SqlNotificationRepository(store.store.db)
        self.holder = holder or uuid.uuid4().hex
        self.tick_s = tick_s
        self.backoff_s = 5.0
        """The wait after a first failed attempt (doubled after each)."""
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._pending: set[asyncio.Task[Any]] = set()
        self._http: httpx.AsyncClient | None = None
        self._closed = False

    # -- life -------------------------------------------------------------------------

    async def start(self) -> None:
        """Start delivering (call from the running loop)."""
        self._http = new_policy_client(
            self.config.outbound(),
            timeout=httpx.Timeout(SEND_TIMEOUT_S),
            follow_redirects=False,
            headers={"User-Agent": "Snakewar notifications"},
        )
        self._task = asyncio.create_task(self._run(), name="notifications")

    async def close(self) -> None:
        """Stop delivering; messages not sent yet wait in the outbox for the next server."""
        self._closed = True  # events from now on (games ended by the stop) are not queued
        for task in list(self._pending):
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(asyncio.shield(task), 5.0)
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        if self._http is not None:
            await self._http.aclose()

    def wake(self) -> None:
        """Look at the outbox now."""
        self._wake.set()

    # -- queueing ---------------------------------------------------------------------

    async def publish(
        self,
        event: str,
        title: str,
        body: str,
        path: str | None = None,
        *,
        users: Sequence[int] | None = None,
        admins: bool = False,
    ) -> list[Notification]:
        """Queue ``event`` for its subscribers among ``users`` (or the admins).

        Returns the rows made (pending or capped).  Never raises: a notification that
        cannot be queued is logged, and whatever called carries on.
        """
        if users is not None and not users:
            return []
        link = self._link(path)
        try:
            subscribers = await self.store.run(self.repo.subscribers, event, users, admins=admins)
            made: list[Notification] = []
            for user_id in subscribers:
                made += await self.store.run(
                    self.repo.enqueue,
                    user_id,
                    event,
                    title,
                    body,
                    link,
                    per_hour=self.config.notify_per_hour,
                )
        except Exception as exc:
            log.warning("snakewar: notification %r not queued (%s)", event, exc)
            return []
        if made:
            self.wake()
        return made

    def publish_soon(
        self, event: str, title: str, body: str, path: str | None = None, **who: Any
    ) -> None:
        """:meth:`publish` in the background: the caller does not wait for the database."""
        if self._closed:
            return
        task = asyncio.get_running_loop().create_task(
            self.publish(event, title, body, path, **who), name=f"notify {event}"
        )
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def send_test(self, user_id: int) -> list[Notification]:
        """Queue a test message to ``user_id`` on every channel they set up (capped too)."""
        settings: NotifySettings = await self.store.run(self.repo.settings, user_id)
        channels = [c for c in CHANNELS if settings.target(c)]
        made: list[Notification] = await self.store.run(
            functools.partial(
                self.repo.enqueue,
                user_id,
                TEST_EVENT,
                "Snakewar test message",
                "Notifications reach you here.",
                self._link("/account"),
                per_hour=self.config.notify_per_hour,
                channels=channels,
            )
        )
        if made:
            self.wake()
        return made

    def _link(self, path: str | None) -> str | None:
        if path is None:
            return None
        base = self.config.site_url
        return f"{base.rstrip('/')}{path}" if base else path

    async def _user_ids(self, names: Iterable[str]) -> list[int]:
        accounts = self.store.store.accounts
        ids = []
        for name in sorted(set(names)):
            with contextlib.suppress(Exception):  # gone: nobody to tell
                ids.append((await self.store.run(accounts.user, name)).id)
        return ids

    # -- the events -------------------------------------------------------------------

    async def snake_paused(self, ladder: str, entry: LadderEntry) -> None:
        """A ladder's scheduler paused ``entry``: it failed its health check."""
        users = await self._user_ids(_owners([entry.name, entry.source]))
        await self.publish(
            "snake_paused",
            f"{entry.name} is paused on ladder {ladder}",
            f"It failed its health check and plays no ladder games until it answers "
            f"again (checked every minute). {entry.note}",
            f"/ladders/{ladder}",
            users=users,
        )

    async def tournament_started(
        self, tournament_id: str, title: str, entrants: Sequence[str]
    ) -> None:
        """A tournament started: the owners of its registered snakes are told."""
        users = await self._user_ids(_owners(entrants))
        await self.publish(
            "tournament_started",
            f"Tournament {title} started",
            f"{len(entrants)} entrants: {', '.join(entrants)[:1500]}",
            f"/tournaments/{tournament_id}",
            users=users,
        )

    def signed_up(self, name: str) -> None:
        """Someone made an account: the admins who asked are told (in the background)."""
        self.publish_soon(
            "signup", f"New account: {name}", f"{name} signed up.", "/admin/users", admins=True
        )

    # The game manager's observer: a finished game of a registered snake.

    def game_started(self, live: LiveGame) -> None:
        """Nothing to tell."""

    def game_turn(self, live: LiveGame, frame: Frame) -> None:
        """Nothing to tell."""

    def game_calls(self, live: LiveGame, records: Sequence[Mapping[str, JSON]]) -> None:
        """Nothing to tell."""

    def game_played_elsewhere(
        self, live: LiveGame, turns: int, latencies_ms: Sequence[float]
    ) -> None:
        """Nothing to tell."""

    def game_ended(self, live: LiveGame) -> None:
        """A game played to its end: its registered snakes' owners may be told."""
        if self._closed or live.status is not GameStatus.COMPLETE:
            return
        names = [e.name for e in live.spec.entrants if e.name]
        owners = _owners(names)
        if not owners:
            return
        played = live.played
        outcome = f"{played.title}, {played.turns} turns." if played is not None else ""
        task = asyncio.get_running_loop().create_task(
            self._game_finished(live.id, names, owners, outcome), name="notify game_finished"
        )
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def _game_finished(
        self, game_id: str, names: list[str], owners: set[str], outcome: str
    ) -> None:
        users = await self._user_ids(owners)
        await self.publish(
            "game_finished",
            f"Game finished: {' vs '.join(names)[:200]}",
            f"{outcome} Watch the replay.".strip(),
            f"/view/{game_id}",
            users=users,
        )

    # -- delivering -------------------------------------------------------------------

    async def _run(self) -> None:
        pruned = -PRUNE_EVERY_S
        while True:
            try:
                if time.monotonic() - pruned >= PRUNE_EVERY_S:
                    pruned = time.monotonic()
                    await self.store.run(self.repo.prune, dt.timedelta(days=KEEP_DAYS))
                while await self._round():
                    pass
            except Exception as exc:  # a database hiccup: the next look tries again
                log.warning("snakewar: notifications not delivered now (%s)", exc)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self.tick_s)
            self._wake.clear()

    async def _round(self) -> bool:
        """Deliver one batch of due messages; whether there was any."""
        batch: list[Notification] = await self.store.run(
            self.repo.claim, self.holder, PARALLEL_SENDS, CLAIM_S
        )
        if batch:
            await asyncio.gather(*(self._deliver(item) for item in batch))
        return bool(batch)

    async def _deliver(self, item: Notification) -> None:
        try:
            if item.channel == "webhook":
                await self._post(item)
            else:
                await asyncio.wait_for(asyncio.to_thread(self._mail, item), SEND_TIMEOUT_S + 5)
        except _Permanent as exc:
            await self.store.run(self.repo.failed, item.id, self.holder, str(exc))
            return
        except Exception as exc:
            text = str(exc) or type(exc).__name__
            if item.attempts + 1 >= self.config.notify_attempts:
                await self.store.run(self.repo.failed, item.id, self.holder, text)
            else:
                wait = min(self.backoff_s * 2**item.attempts, MAX_BACKOFF_S)
                await self.store.run(self.repo.retry, item.id, self.holder, text, wait)
            return
        await self.store.run(self.repo.sent, item.id, self.holder)

    async def _post(self, item: Notification) -> None:
        assert self._http is not None
        try:
            answer = await self._http.post(item.target, json=discord_body(item))
        except AddressRefusedError as exc:
            raise _Permanent(str(exc)) from None
        except httpx.HTTPError as exc:
            raise ConnectionError(f"webhook: {type(exc).__name__}: {exc}") from None
        if answer.is_success:
            return
        reason = f"webhook: HTTP status {answer.status_code}"
        if answer.status_code == 429 or answer.status_code >= 500:
            raise ConnectionError(reason)  # busy or broken for now: tried again
        raise _Permanent(reason)

    def _mail(self, item: Notification) -> None:
        """Send one e-mail (blocking: runs on a thread)."""
        config = self.config
        if not config.smtp_host:
            raise _Permanent("e-mail: this server sends no e-mail (no SMTP server set)")
        message = EmailMessage(policy=SMTP_POLICY)
        message["Subject"] = f"[Snakewar] {item.title}"[:200]
        message["From"] = config.smtp_sender
        message["To"] = item.target
        message["Date"] = dt.datetime.now(dt.UTC)
        message["Message-ID"] = f"<snakewar-{item.id}-{self.holder[:12]}@{_domain(config)}>"
        text = item.body
        if item.link:
            text += f"\n\n{item.link}"
        text += (
            "\n\n-- \nYou get this because you asked for it on your Snakewar account page;"
            " change what you get there."
        )
        message.set_content(text)
        try:
            smtp: smtplib.SMTP
            if config.smtp_security == "tls":
                smtp = smtplib.SMTP_SSL(
                    config.smtp_host,
                    config.smtp_port,
                    timeout=SEND_TIMEOUT_S,
                    context=ssl.create_default_context(),
                )
            else:
                smtp = smtplib.SMTP(config.smtp_host, config.smtp_port, timeout=SEND_TIMEOUT_S)
            with smtp:
                if config.smtp_security == "starttls":
                    smtp.starttls(context=ssl.create_default_context())
                if config.smtp_username:
                    smtp.login(config.smtp_username, config.smtp_password or "")
                smtp.send_message(message)
        except (smtplib.SMTPRecipientsRefused, smtplib.SMTPSenderRefused) as exc:
            raise _Permanent(f"e-mail: refused ({exc})") from None
        except smtplib.SMTPAuthenticationError as exc:
            raise _Permanent(f"e-mail: the SMTP login failed ({exc.smtp_code})") from None
        except (smtplib.SMTPException, OSError) as exc:
            raise ConnectionError(f"e-mail: {type(exc).__name__}: {exc}") from None


def _domain(config: ServerConfig) -> str:
    sender = config.smtp_sender
    domain = sender.rsplit("@", 1)[-1].strip(">") if "@" in sender else "localhost"
    with contextlib.suppress(ValueError):
        ipaddress.ip_address(domain)
        return "localhost"
    return domain or "localhost"


async def notify_tournament_started(
    notifier: Notifier | None, tournament_id: str, title: str, entrants: Sequence[str]
) -> None:
    """Tell the owners of a tournament's registered snakes that it started.

    For the tournaments' "started" hook: ``notifier`` is ``app.state.notifier``
    (``None``: nothing is told).  Never raises; it only queues the messages.
    """
    if notifier is None:
        return
    try:
        await notifier.tournament_started(tournament_id, title, entrants)
    except Exception as exc:
        log.warning("snakewar: tournament %s: owners not told (%s)", tournament_id, exc)
