"""Stopping a server's background work: a renewing loop and the jobs it looks after."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable
from typing import Any

__all__ = ["cancel_and_wait"]


async def cancel_and_wait(
    renewer: asyncio.Task[Any] | None, tasks: Iterable[asyncio.Task[Any]]
) -> None:
    """Cancel ``renewer`` first (so it renews nothing more), then ``tasks``; wait for all.

    A task's own failure is its business (each job records how it ended): it is not
    raised here, so that one failed job does not keep the others from being waited for.
    """
    if renewer is not None:
        renewer.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await renewer
    jobs = list(tasks)
    for task in jobs:
        task.cancel()
    for task in jobs:
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task
