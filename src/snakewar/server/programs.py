"""Registered program bots, made runnable: uploads in their sandbox, operators' commands.

A user's upload always runs in a sandbox; an operator's command (registered with
``snakewar program add`` on the server's machine, an argument list, never a shell)
runs in one too on a public server, or when ``sandbox_programs`` says so.  A server
that must sandbox a bot and cannot (no bubblewrap) refuses the bot, naming why.
"""

from __future__ import annotations

import asyncio
import hashlib

from snakewar.referee.process import Program
from snakewar.referee.sandbox import SandboxError, SandboxPolicy, sandbox_available
from snakewar.referee.uploads import UploadCache, UploadedBotError, program_for_upload
from snakewar.server.config import ServerConfig
from snakewar.storage import AsyncStore, StoredSnake

__all__ = ["program_of"]


async def program_of(
    snake: StoredSnake, store: AsyncStore, cache: UploadCache, config: ServerConfig
) -> Program:
    """What runs the program bot ``snake`` on this server.

    Raises:
        SandboxError: it must run in a sandbox and none can be made here.
        UploadedBotError: an upload that cannot be unpacked or has no entry file, is
            still being built or did not build.
    """
    policy = SandboxPolicy()
    sandboxed = snake.kind == "upload" or config.sandboxes_programs()
    # On a Ray cluster the bot runs on a worker that can sandbox (the runner checks
    # that the cluster has one): this machine need not.
    if sandboxed and config.ray_address is None:
        problem = await asyncio.to_thread(sandbox_available)
        if problem is not None:
            raise SandboxError(
                f"snake {snake.ref} must run in a sandbox and this server cannot make one: "
                f"{problem}"
            )
    if snake.kind == "upload":
        if snake.build_status == "building":
            raise UploadedBotError(f"snake {snake.ref} is still being built; try again soon")
        if snake.build_status == "failed":
            raise UploadedBotError(
                f"snake {snake.ref} did not build ({snake.build_error or 'no reason given'}); "
                "its owner reads the log on its build page"
            )
        # A built bot runs as built; an upload stored before builds, from its archive.
        built = snake.build_status == "ready"
        reader = store.store.snakes.build if built else store.store.snakes.archive
        archive = await store.run(reader, snake.id)
        folder = await asyncio.to_thread(cache.folder, archive)
        # The hash of the bytes read, not the stored one: it names exactly these files.
        sha256 = hashlib.sha256(archive).hexdigest()
        return program_for_upload(folder, snake.language or "", policy, sha256=sha256)
    if snake.argv is None:
        raise UploadedBotError(f"snake {snake.ref} has no command")
    if sandboxed:
        return Program(snake.argv, sandbox=policy, files=snake.workdir)
    return Program(snake.argv, cwd=snake.workdir)
