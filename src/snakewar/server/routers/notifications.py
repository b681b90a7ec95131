"""``/api/notifications``: your notification settings, a test message, what was sent.

* ``GET /api/notifications/settings``: where and about what you are told, and the
  events you may choose (an admin also gets the admins' events).
* ``PUT /api/notifications/settings``: replace them; a webhook URL must be http(s) and,
  on a public server, reach a public address (the outbound policy, checked now and at
  each delivery); an e-mail address must look like one; a channel needs its target.
* ``POST /api/notifications/test``: queue a test message on every channel set up
  (counted against the hourly cap like any other).

Saving and testing are rate-limited per client besides (a save looks the webhook's host
up; a test queues rows even when they are capped).
* ``GET /api/notifications``: your latest messages and what became of each.

Every route is the logged-in user's own; nothing here names another user.
"""

from __future__ import annotations

import datetime as dt

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict, Field

from snakewar.server.auth import UserDep
from snakewar.server.deps import ConfigDep, client_key, get_rates
from snakewar.server.notify import CHANNELS, EVENTS, Notifier, check_settings
from snakewar.server.safety import ClientRate, RateLimitError
from snakewar.storage.notifications import Notification, NotifySettings

__all__ = ["router"]

router = APIRouter(prefix="/api/notifications", tags=["notifications"])

MAX_EVENT = 32


class EventOut(BaseModel):
    """An event you may be told about."""

    name: str
    title: str


class SettingsIn(BaseModel):
    """Where and about what you are told (the whole of it: it replaces what was)."""

    model_config = ConfigDict(extra="forbid")

    webhook_url: str | None = Field(
        default=None,
        max_length=2048,
        description="An http(s) webhook (Discord's, or any that takes its JSON body).",
    )
    email: str | None = Field(default=None, max_length=254)
    events: dict[str, list[str]] = Field(
        default_factory=dict,
        max_length=len(EVENTS),
        description=f"Each event's channels ({', '.join(CHANNELS)}).",
    )


class SettingsOut(BaseModel):
    """Your settings, the events you may choose and the channels."""

    webhook_url: str | None
    email: str | None
    events: dict[str, list[str]]
    available_events: list[EventOut]
    channels: list[str]
    email_enabled: bool = Field(description="Whether this server sends e-mail at all.")
    per_hour: int = Field(description="The most messages an hour on each channel.")


class NotificationOut(BaseModel):
    """One message and what became of it."""

    id: int
    channel: str
    event: str
    title: str
    state: str = Field(description="pending, sent, failed or capped.")
    attempts: int
    error: str | None
    created_at: dt.datetime
    sent_at: dt.datetime | None


def _limited(request: Request, name: str, per_minute: float, burst: int) -> ClientRate:
    """The per-client limit ``name`` (made once per app, counted as the server's others)."""
    limiters: dict[str, ClientRate] = request.app.state.__dict__.setdefault("notify_limiters", {})
    if name not in limiters:
        limiters[name] = get_rates(request).rate(name, per_minute=per_minute, burst=burst)
    return limiters[name]


async def _take(request: Request, name: str, per_minute: float, burst: int, what: str) -> None:
    """Refuse (429) past the limit: each test queues messages, each save looks a host up."""
    if not await _limited(request, name, per_minute, burst).take(client_key(request)):
        raise RateLimitError(f"too many {what} from this client; wait a minute")


def _notifier(request: Request) -> Notifier:
    notifier: Notifier = request.app.state.notifier
    return notifier


def _out(settings: NotifySettings, is_admin: bool, config: ConfigDep) -> SettingsOut:
    return SettingsOut(
        webhook_url=settings.webhook_url,
        email=settings.email,
        events={event: list(channels) for event, channels in settings.events.items()},
        available_events=[
            EventOut(name=e.name, title=e.title)
            for e in EVENTS.values()
            if is_admin or not e.admins_only
        ],
        channels=list(CHANNELS),
        email_enabled=bool(config.smtp_host),
        per_hour=config.notify_per_hour,
    )


def _notification_out(item: Notification) -> NotificationOut:
    return NotificationOut(
        id=item.id,
        channel=item.channel,
        event=item.event,
        title=item.title,
        state=item.state,
        attempts=item.attempts,
        error=item.error,
        created_at=item.created_at,
        sent_at=item.sent_at,
    )


@router.get("/settings")
async def get_settings(principal: UserDep, request: Request, config: ConfigDep) -> SettingsOut:
    """Your notification settings."""
    assert principal.user is not None
    notifier = _notifier(request)
    settings = await notifier.store.run(notifier.repo.settings, principal.user.id)
    return _out(settings, principal.is_admin, config)


@router.put("/settings")
async def put_settings(
    body: SettingsIn, principal: UserDep, request: Request, config: ConfigDep
) -> SettingsOut:
    """Replace your notification settings (checked: 422 names the field)."""
    assert principal.user is not None
    await _take(request, "notify-settings", 10.0, 10, "settings saved")
    notifier = _notifier(request)
    given = NotifySettings(
        webhook_url=(body.webhook_url or "").strip() or None,
        email=(body.email or "").strip() or None,
        events={
            name[:MAX_EVENT]: tuple(c[:16] for c in chs[:4]) for name, chs in body.events.items()
        },
    )
    checked = await check_settings(given, config, is_admin=principal.is_admin)
    saved = await notifier.store.run(notifier.repo.save_settings, principal.user.id, checked)
    return _out(saved, principal.is_admin, config)


@router.post("/test", status_code=202)
async def send_test(principal: UserDep, request: Request) -> list[NotificationOut]:
    """Queue a test message on each channel you set up (capped like the others)."""
    assert principal.user is not None
    await _take(request, "notify-tests", 5.0, 5, "test messages")
    made = await _notifier(request).send_test(principal.user.id)
    return [_notification_out(item) for item in made]


@router.get("")
async def list_notifications(principal: UserDep, request: Request) -> list[NotificationOut]:
    """Your latest 20 messages, newest first."""
    assert principal.user is not None
    notifier = _notifier(request)
    items = await notifier.store.run(notifier.repo.recent, principal.user.id, 20)
    return [_notification_out(item) for item in items]
