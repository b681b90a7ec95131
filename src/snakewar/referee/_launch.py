"""Inside a sandbox: copy the bot's files into its working directory, then become the bot.

Run by the sandbox's own Python (``python3 -I -S /launch.py SRC DEST ARGV...``), so it
imports nothing of Snakewar.  ``SRC`` is the bot's files, bound read-only (empty: none);
``DEST`` the sandbox's writable ``/bot``.  It ``exec``s ``ARGV`` in ``DEST``: the bot
replaces this process and keeps its stdin, stdout and stderr.
"""

import os
import shutil
import sys


def main(args: list[str]) -> None:
    """Copy, change directory, ``exec``."""
    source, destination, *command = args
    if not command:
        sys.exit("sandbox launcher: no command to run")
    if source:
        try:
            shutil.copytree(source, destination, symlinks=True, dirs_exist_ok=True)
        except OSError as exc:  # the bot's files do not fit its directory
            sys.exit(f"sandbox launcher: cannot copy the bot's files: {exc}")
    os.chdir(destination)
    try:
        os.execvp(command[0], command)
    except OSError as exc:
        sys.exit(f"sandbox launcher: cannot run {command[0]!r}: {exc}")


if __name__ == "__main__":
    main(sys.argv[1:])
