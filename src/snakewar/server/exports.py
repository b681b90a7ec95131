"""Bulk exports of games: a zip of replay files and a flat CSV of results, in the background.

The progress is in the database.

An export (:class:`ExportWorker`) is a job row (:mod:`snakewar.storage.sharing`) built by
the server that was asked for it: at most ``export_workers`` at once per server (others
wait their turn, ``queued``), one game at a time on the store's threads, recording its
progress after each game, so that the status API (and the page polling it) shows it move
and another server sharing the database can answer for it.  The server renews the
lease of every job it holds; a job whose server stopped is failed once its lease runs
out (anyone reading it sees why), never left ``running`` for ever.

The archive (``<kind>-<target>.zip``) holds

* ``replays/<game id>.<ext>``: each game's replay file in its game's own format, as
  ``GET /api/games/{id}/replay`` gives it to the one who asked (the adapter's
  :meth:`~snakewar.engine.protocol.GameAdapter.export`; an entrant's address is
  ``"hidden"`` unless they may see it: :mod:`snakewar.server.privacy`);
* ``results.csv``: one row per game and seat (:data:`CSV_COLUMNS`), the newest game first.

Work is bounded: at most ``export_max_games`` games (the newest), an archive of at most
``export_max_bytes`` (a job that would pass it fails, saying so), and
``export_jobs_per_user`` jobs in progress per user.
"""

from __future__ import annotations

import asyncio
import contextlib
import csv
import io
import logging
import zipfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Final

from snakewar.adapters import get_game
from snakewar.errors import NotFoundError, TooLargeError
from snakewar.server.auth import Principal
from snakewar.server.background import cancel_and_wait
from snakewar.server.privacy import HIDDEN, hidden_in, hide_in_bytes
from snakewar.storage import AsyncStore, User
from snakewar.storage.sharing import ExportJob

__all__ = ["CSV_COLUMNS", "ExportLimits", "ExportTooLargeError", "ExportWorker", "archive_name"]

log = logging.getLogger(__name__)

CSV_COLUMNS: Final = (
    "game_id",
    "game",
    "source",
    "status",
    "created_at",
    "turns",
    "width",
    "height",
    "seed",
    "seat",
    "name",
    "entrant",
    "rank",
    "won",
    "draw",
    "failure",
    "replay_file",
)
"""``results.csv``'s columns: one row per game and seat.

``rank`` is the seat's place (1 the best; empty for a game without a result), ``won``
``1`` for the single winner, ``draw`` ``1`` when every seat shares first place,
``entrant`` the seat's bot (its address ``hidden`` unless the exporter may see it),
``replay_file`` the replay's path in the archive (empty if it could not be written:
``failure`` then says why)."""

_FORMULA_STARTS: Final = ("=", "+", "-", "@", "\t", "\r")


def _cell(value: object) -> str:
    """A CSV cell; text a spreadsheet would run as a formula is quoted with ``'``."""
    text = "" if value is None else str(value)
    if text.startswith(_FORMULA_STARTS) and not _is_number(text):
        return "'" + text
    return text


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def archive_name(kind: str, target: str) -> str:
    """The download's file name: ``<kind>-<target>.zip``, ASCII letters, digits, ``-_.``."""
    safe = "".join(c if c.isascii() and (c.isalnum() or c in "-_.") else "_" for c in target)
    return f"{kind}-{safe.strip('.') or 'export'}.zip"


class ExportTooLargeError(TooLargeError):
    """Raised inside a build when the archive passes the size cap (the job then fails)."""


@dataclass(frozen=True, slots=True)
class ExportLimits:
    """What one export, and one server's exports, may take (see the module docstring)."""

    max_games: int = 1000
    max_bytes: int = 64 * 1024 * 1024
    jobs_per_user: int = 1
    workers: int = 1
    keep_s: float = 24 * 3600.0
    lease_s: float = 30.0


@dataclass
class _Build:
    """One archive being written: the zip, its CSV, and how far it got."""

    kind: str
    target: str
    max_bytes: int
    buffer: io.BytesIO = field(default_factory=io.BytesIO)
    rows: io.StringIO = field(default_factory=io.StringIO)
    done: int = 0

    def __post_init__(self) -> None:
        self.zip = zipfile.ZipFile(self.buffer, "w", compression=zipfile.ZIP_DEFLATED)
        self.csv = csv.writer(self.rows, lineterminator="\n")
        self.csv.writerow(CSV_COLUMNS)

    def check_size(self) -> None:
        # The zip's bytes so far plus the CSV still to be written (compressed, it is
        # smaller: this errs on the side of the cap).
        size = self.buffer.tell() + self.rows.tell()
        if size > self.max_bytes:
            raise ExportTooLargeError(
                f"the archive passed the cap of {self.max_bytes} bytes after {self.done} "
                "games: export fewer games (a smaller ladder, tournament or user)"
            )

    def close(self) -> bytes:
        self.zip.writestr("results.csv", self.rows.getvalue().encode("utf-8"))
        self.zip.close()
        self.check_size()
        return self.buffer.getvalue()


def _add_game(store: AsyncStore, build: _Build, game_id: str, principal: Principal) -> None:
    """Write one game's replay and CSV rows (on a store thread)."""
    games = store.store.games
    row = games.get(game_id)
    if row is None:  # deleted since the job was made
        return
    secrets = hidden_in(
        principal, ((str(e.get("name", "")), str(e.get("source", ""))) for e in row.entrants)
    )
    path, failure = "", ""
    try:
        adapter = get_game(row.game)
        payload = hide_in_bytes(adapter.export(games.data(game_id)), secrets)
        path = f"replays/{adapter.replay_filename(game_id)}"
        build.zip.writestr(path, payload)
    except Exception as exc:  # one bad game must not sink the export: the CSV says why
        failure = f"no replay: {exc}"
    ranks = row.ranks or []
    draw = row.finished and len(ranks) > 1 and len(set(ranks)) == 1
    best = min(ranks) if ranks else None  # 1 is the best
    for seat, entrant in enumerate(row.entrants):
        rank = ranks[seat] if seat < len(ranks) else None
        source = str(entrant.get("source", ""))
        won = rank is not None and rank == best and ranks.count(best) == 1
        build.csv.writerow(
            [
                _cell(v)
                for v in (
                    row.id,
                    row.game,
                    row.source,
                    row.status,
                    row.created_at.isoformat(),
                    row.turns,
                    row.width,
                    row.height,
                    row.seed,
                    seat,
                    entrant.get("name", ""),
                    HIDDEN if source in secrets else source,
                    "" if rank is None else rank,
                    int(won),
                    int(draw),
                    failure or entrant.get("failure", ""),
                    path,
                )
            ]
        )
    build.done += 1
    build.check_size()


class ExportWorker:
    """Builds this server's export jobs in the background (see the module docstring).

    Args:
        store: the store.
        server_id: this server's id (the jobs' holder).
        limits: the caps.
    """

    def __init__(self, store: AsyncStore, server_id: str, limits: ExportLimits) -> None:
        self.store = store
        self.server_id = server_id
        self.limits = limits
        self._slots = asyncio.Semaphore(limits.workers)
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._renewer: asyncio.Task[None] | None = None
        self.before_game: Callable[[str, int], Awaitable[None]] | None = None
        """Awaited before each game is written (job id, games done so far): a seam for
        whatever must pace the builds (tests step a build game by game with it)."""

    async def start(self) -> None:
        """Fail the jobs whose server stopped, drop expired ones, renew leases from now."""
        sharing = self.store.store.sharing
        await self.store.run(sharing.fail_expired)
        await self.store.run(sharing.delete_expired)
        self._renewer = asyncio.create_task(self._renew_loop(), name="export-leases")

    async def _renew_loop(self) -> None:
        sharing = self.store.store.sharing
        while True:
            await asyncio.sleep(self.limits.lease_s / 3)
            try:
                await self.store.run(
                    sharing.renew, self.server_id, list(self._tasks), self.limits.lease_s
                )
                await self.store.run(sharing.fail_expired)
                await self.store.run(sharing.delete_expired)
            except Exception:  # the database is away for a moment: try at the next beat
                log.exception("renewing the export jobs' leases failed")

    async def submit(self, user: User, kind: str, target: str) -> ExportJob:
        """Make a job of ``kind`` ``target``'s games for ``user`` and start building it.

        Raises:
            NotFoundError: no such ladder, tournament or user.
            JobsInFlightError: the user has their jobs in progress already (409).
        """
        sharing = self.store.store.sharing
        ids = await self.store.run(sharing.game_ids, kind, target, self.limits.max_games)
        if ids is None:
            raise NotFoundError(f"target: no {kind} {target!r}")
        job = await self.store.run(
            sharing.create_job,
            user.id,
            kind,
            target,
            len(ids),
            server_id=self.server_id,
            lease_s=self.limits.lease_s,
            in_flight=self.limits.jobs_per_user,
            keep_s=self.limits.keep_s,
        )
        principal = Principal(user, "session")
        self._tasks[job.id] = asyncio.create_task(
            self._build(job, ids, principal), name=f"export-{job.id}"
        )
        return job

    async def _build(self, job: ExportJob, ids: list[str], principal: Principal) -> None:
        sharing = self.store.store.sharing
        try:
            async with self._slots:
                if not await self.store.run(sharing.claim, job.id, self.limits.lease_s):
                    return  # failed meanwhile (its lease ran out while it waited)
                build = _Build(job.kind, job.target, self.limits.max_bytes)
                for game_id in ids:
                    if self.before_game is not None:
                        await self.before_game(job.id, build.done)
                    await self.store.run(_add_game, self.store, build, game_id, principal)
                    await self.store.run(
                        sharing.progress,
                        job.id,
                        build.done,
                        build.buffer.tell(),
                        self.limits.lease_s,
                    )
                archive = await self.store.run(build.close)
                await self.store.run(sharing.finish, job.id, archive, build.done)
        except asyncio.CancelledError:
            with contextlib.suppress(Exception):
                await asyncio.shield(
                    self.store.run(sharing.fail, job.id, "the server stopped; ask again")
                )
            raise
        except ExportTooLargeError as exc:
            await self.store.run(sharing.fail, job.id, str(exc))
        except Exception as exc:
            log.exception("export %s failed", job.id)
            with contextlib.suppress(Exception):
                await self.store.run(sharing.fail, job.id, f"the export failed: {exc}")
        finally:
            self._tasks.pop(job.id, None)

    async def close(self) -> None:
        """Stop building: unfinished jobs are failed (asked again, they start over)."""
        await cancel_and_wait(self._renewer, self._tasks.values())
