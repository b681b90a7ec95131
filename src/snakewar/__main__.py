"""``python -m snakewar``: the ``snakewar`` command without the console script."""

import sys

from snakewar.cli import main

sys.exit(main())
