"""``snakewar`` run as a user runs it: a real subprocess of the package under test."""

from __future__ import annotations

import os
import subprocess
import sys


def run(*args: str) -> subprocess.CompletedProcess[str]:
    """Run ``snakewar ARGS`` through :func:`snakewar.cli.main`; its status and output."""
    return subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from snakewar.cli import main; sys.exit(main())",
            *args,
        ],
        capture_output=True,
        text=True,
        # Generous: some commands compile kernels first (numba, jax), which takes minutes
        # on a busy machine; still under pytest-timeout's 300 s, so a hang says where.
        timeout=280,
        env={
            "PYTHONIOENCODING": "utf-8",
            "COLUMNS": "120",
            "PATH": "",
            # The same package and the same rules engine (compiled or pure) as the tests.
            **{k: os.environ[k] for k in ("PYTHONPATH", "SNAKEWAR_PURE") if k in os.environ},
        },
    )
