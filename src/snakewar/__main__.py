"""``python -m snakewar``: the ``snakewar`` command without the console script."""

import sys

from snakewar.command import main

sys.exit(main())
