"""A bot whose build waits until the test lets it go: builds' order of events, not times.

Its ``install.sh`` sleeps for a day on a duration no other process uses (the token), then
ends well.  The sandbox's processes are the host's too, seen in its ``/proc``:
:meth:`HeldBuild.release` finds that one ``sleep`` (the token in its command line) and
ends it, so the build goes on and ends, built.  Until then the build cannot end (before
its day), whatever the machine's load: a test that sees ``building`` first and
``ready`` after a release proves the order, not a speed.
"""

from __future__ import annotations

import io
import os
import secrets
import signal
import time
import zipfile
from pathlib import Path

PATIENCE_S = 120.0
"""How long the build may take to reach its wait (a loaded machine starts sandboxes slowly)."""


class HeldBuild:
    """A Python bot whose build waits in its ``install.sh`` until :meth:`release`."""

    def __init__(self) -> None:
        # A day and a fraction no other sleep on this machine asks for.
        self.token = f"86400.{secrets.randbelow(10**9):09d}"

    def archive(self) -> bytes:
        """The bot's archive (``MyBot.py``, and the ``install.sh`` that waits)."""
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as packed:
            packed.writestr("MyBot.py", "print('held')\n")
            packed.writestr(
                "install.sh", f"#!/bin/bash\nsleep {self.token} || true\necho released\n"
            )
        return buffer.getvalue()

    def waiting(self) -> int | None:
        """The host's id of the build's waiting ``sleep`` (``None``: not waiting now)."""
        wanted = b"sleep\0" + self.token.encode() + b"\0"
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                if (entry / "cmdline").read_bytes() == wanted:
                    return int(entry.name)
            except OSError:  # it ended meanwhile, or is not ours to read
                continue
        return None

    def wait_waiting(self, timeout: float = PATIENCE_S) -> int:
        """Wait until the build waits (its ``sleep`` runs); its process id."""
        deadline = time.monotonic() + timeout
        while (pid := self.waiting()) is None:
            assert time.monotonic() < deadline, f"the build did not reach its wait in {timeout} s"
            time.sleep(0.1)
        return pid

    def release(self, timeout: float = PATIENCE_S) -> None:
        """Let the build go on (once it waits): it then ends, built."""
        os.kill(self.wait_waiting(timeout), signal.SIGTERM)
