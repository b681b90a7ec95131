"""Uploaded bots built in the background, a few at a time (:class:`BotBuilder`).

An upload, or a rebuild, answers at once with ``build_status`` ``building``: its build
runs here afterwards, in the sandbox (:mod:`snakewar.referee.builds`), at most
``concurrent_builds`` at once (the others wait their turn), and records how it went as
the request did before (``ready`` or ``failed``, the error, the log).  Clients poll the
snake (or its build) until it is no longer ``building``.

No build stays ``building`` forever:

* a server that stops kills its builds and fails them, saying so (:meth:`BotBuilder.close`);
* a server that dies cannot: every server renews its builds (their ``updated_at``) every
  third of ``lease_s``, and any server sharing the database fails the builds nobody
  renewed for ``lease_s`` (at its start and at every beat), saying the server building
  it stopped.  Their owners build them again (``POST /api/snakes/{id}/build``).

A bot being built plays no game (:mod:`snakewar.server.programs` says it is still being
built), and it is not built twice at once: a rebuild asked meanwhile is refused
(:class:`BuildRunningError`, 409).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import tempfile
import threading
from pathlib import Path
from typing import Final

from snakewar.errors import ConflictError
from snakewar.referee.builds import BuildLimits, BuildResult, build_bot
from snakewar.referee.languages import Language, language_named
from snakewar.referee.uploads import unpack_bot_archive
from snakewar.server.background import cancel_and_wait
from snakewar.storage import AsyncStore, QuotaExceededError, SnakeNotFoundError, StoredSnake

__all__ = ["INTERRUPTED", "ORPHANED", "BotBuilder", "BuildRunningError"]

log = logging.getLogger(__name__)

INTERRUPTED: Final = "the server stopped before the build ended; build it again"
"""The error of a build its server stopped (it shut down)."""

ORPHANED: Final = "the server building it stopped before the build ended; build it again"
"""The error of a build whose server died (nobody renewed it for a lease)."""


class BuildRunningError(ConflictError):
    """Raised for a rebuild asked while the bot is being built (409)."""


def _build_archive(
    data: bytes, language: Language, limits: BuildLimits, stop: threading.Event
) -> BuildResult:
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch) / "bot"
        unpack_bot_archive(data, folder)
        return build_bot(folder, language, limits, stop=stop)


class BotBuilder:
    """The builds of one server: started by requests, run in the background, bounded.

    Args:
        store: the server's store.
        limits: each build's limits (its time: the server's ``build_seconds``).
        slots: builds run at once.
        lease_s: how long a build may go unrenewed before any server fails it.
    """

    def __init__(
        self, store: AsyncStore, limits: BuildLimits, *, slots: int, lease_s: float
    ) -> None:
        self.store = store
        self.limits = limits
        self.lease_s = lease_s
        self._slots = asyncio.Semaphore(max(1, slots))
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self._renewer: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Fail the builds that servers left behind, and renew this server's from now on."""
        await self._beat()
        self._renewer = asyncio.create_task(self._renew(), name="build-renewer")

    async def _renew(self) -> None:
        while True:
            await asyncio.sleep(self.lease_s / 3)
            await self._beat()

    async def _beat(self) -> None:
        snakes = self.store.store.snakes
        try:
            await self.store.run(snakes.renew_builds, list(self._tasks))
            failed = await self.store.run(snakes.fail_stale_builds, self.lease_s, ORPHANED)
        except Exception:  # the database is away for a moment: try at the next beat
            log.exception("renewing the builds failed")
            return
        if failed:
            log.warning("%d builds left by a stopped server were failed", failed)

    def building(self, snake_id: int) -> bool:
        """Whether this server is building (or about to build) ``snake_id``."""
        return snake_id in self._tasks

    def submit(self, snake: StoredSnake, data: bytes, quota: int | None) -> None:
        """Build the upload ``snake`` (marked ``building``; ``data``: its archive) soon.

        ``quota`` caps what its owner stores, the built folder included.
        """
        language = language_named(snake.language or "")
        self._tasks[snake.id] = asyncio.create_task(
            self._build(snake.id, language, data, quota), name=f"build-{snake.id}"
        )

    async def rebuild(self, snake: StoredSnake, quota: int | None) -> StoredSnake:
        """Build the upload ``snake`` again, in the background; it as it is now (``building``).

        Raises:
            BuildRunningError: it is being built (here or by another server).
        """
        snakes = self.store.store.snakes
        if snake.id in self._tasks or not await self.store.run(snakes.begin_build, snake.id):
            raise BuildRunningError(
                f"snake {snake.ref} is being built already; wait for its build to end"
            )
        try:
            data = await self.store.run(snakes.archive, snake.id)
            began = await self.store.run(snakes.get, snake.id)
        except BaseException:
            with contextlib.suppress(Exception):
                await self.store.run(snakes.fail_build, snake.id, INTERRUPTED)
            raise
        self.submit(began, data, quota)
        return began

    async def _build(
        self, snake_id: int, language: Language, data: bytes, quota: int | None
    ) -> None:
        snakes = self.store.store.snakes
        stop = threading.Event()
        try:
            async with self._slots:
                result = await asyncio.to_thread(_build_archive, data, language, self.limits, stop)
            await self._record(snake_id, language, result, quota)
        except asyncio.CancelledError:
            stop.set()  # the sandbox is killed: the build's thread ends at once
            with contextlib.suppress(Exception):
                await asyncio.shield(self.store.run(snakes.fail_build, snake_id, INTERRUPTED))
            raise
        except SnakeNotFoundError:
            pass  # deleted while it was built: nothing to record
        except Exception as exc:
            log.exception("the build of snake %s could not run", snake_id)
            with contextlib.suppress(Exception):
                await self.store.run(snakes.fail_build, snake_id, f"the build could not run: {exc}")
        finally:
            self._tasks.pop(snake_id, None)

    async def _record(
        self, snake_id: int, language: Language, result: BuildResult, quota: int | None
    ) -> None:
        snakes = self.store.store.snakes
        try:
            await self.store.run(
                snakes.set_build,
                snake_id,
                result.status,
                language=language.name,
                log=result.log,
                error=result.error,
                build=result.archive,
                quota=quota,
            )
        except QuotaExceededError as exc:
            await self.store.run(
                snakes.set_build,
                snake_id,
                "failed",
                language=language.name,
                log=result.log,
                error=f"the built bot is not kept: {exc}",
            )

    async def close(self) -> None:
        """Stop: this server's builds are killed and failed, saying the server stopped."""
        await cancel_and_wait(self._renewer, self._tasks.values())
