"""Jobs for the decoder pool's tests: module functions, so worker processes import them."""

from __future__ import annotations

import os
import time
from pathlib import Path


def wait_for(path: str, timeout: float = 300.0) -> str:
    """Return once ``path`` exists (the test's signal), or after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not Path(path).exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    return "released"


def allocate(mib: int) -> int:
    """Hold ``mib`` MiB at once (past a worker's memory cap: a MemoryError)."""
    return len(bytearray(mib << 20))


def die() -> None:
    """End the worker process at once, as a crash or a kill would."""
    os._exit(3)
