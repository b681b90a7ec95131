"""Where the Halite III tests find the official engine's recorded games, and the CLI."""

from __future__ import annotations

import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
#: The recorded games: ``$SNAKEWAR_HALITE_CONFORMANCE_DIR`` or the public set beside the repo.
CONFORMANCE_DIR = Path(
    os.environ.get(
        "SNAKEWAR_HALITE_CONFORMANCE_DIR",
        str(REPO.parent / "shared" / "conformance" / "halite3" / "public"),
    )
)
#: ``SNAKEWAR_ALLOW_MISSING_CONFORMANCE=1`` turns a missing set into skips.
ALLOW_MISSING = os.environ.get("SNAKEWAR_ALLOW_MISSING_CONFORMANCE") == "1"
#: ``snakewar`` as a subprocess, with this interpreter: append the arguments.
MAIN = [sys.executable, "-c", "import sys; from snakewar.cli import main; sys.exit(main())"]
