"""Where the Halite III tests find the official engine's recorded games, and the CLI."""

from __future__ import annotations

import sys

from tests.conformance_data import halite_dir

#: The recorded games: ``$SNAKEWAR_HALITE_CONFORMANCE_DIR`` or the set shipped in tests/data.
CONFORMANCE_DIR = halite_dir()
#: ``snakewar`` as a subprocess, with this interpreter: append the arguments.
MAIN = [sys.executable, "-c", "import sys; from snakewar.command import main; sys.exit(main())"]
