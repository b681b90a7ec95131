"""Inside a build sandbox: copy the bot's files, build them, send the result back.

Run by the sandbox's own Python (``python3 -I -S /launch.py SRC DEST PLAN``), so it
imports nothing of Snakewar.  ``SRC`` is the bot's files, bound read-only; ``DEST`` the
sandbox's writable ``/bot``; ``PLAN`` a JSON document (written by
:mod:`snakewar.referee.builds`): the steps, what the build must produce, what to discard.

Everything the steps print, their standard output included, goes to this process's
standard error: that is the build log.  Its standard output carries one thing only, the
built folder as a ``.tar.gz`` stream, written once every step has passed.  The exit
status says how it ended (:data:`STEP_FAILED`, :data:`NO_OUTPUT`...).
"""

import fnmatch
import json
import os
import shutil
import stat
import subprocess
import sys
import tarfile
from typing import Any

STEP_FAILED = 3
"""A step exited with a status other than 0 (or could not start)."""
NO_OUTPUT = 4
"""Every step passed and the file the bot runs is not there."""
BAD_PLAN = 5
"""The plan could not be read (a bug of the server, not of the bot)."""
COPY_FAILED = 6
"""The bot's files did not fit its folder."""


def log(text: str) -> None:
    """One line of the build log."""
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def sources(root: str, patterns: list[str]) -> list[str]:
    """The files under ``root`` matching ``patterns``, as sorted paths relative to it."""
    found: list[str] = []
    for folder, folders, files in os.walk(root):
        folders.sort()
        for name in files:
            if any(fnmatch.fnmatch(name, pattern) for pattern in patterns):
                found.append(os.path.relpath(os.path.join(folder, name), root))
    return sorted(found)


def run_step(step: dict[str, Any], root: str, environment: dict[str, str]) -> bool:
    """Run one step with its output in the log; whether it passed."""
    optional = step.get("optional")
    if optional and not os.path.isfile(os.path.join(root, optional)):
        return True
    argv = list(step["argv"])
    patterns = step.get("sources") or []
    if patterns:
        matched = sources(root, patterns)
        if not matched:
            return True
        argv += matched
    log("$ " + " ".join(argv))
    try:
        done = subprocess.run(
            argv,
            cwd=root,
            env=environment,
            stdin=subprocess.DEVNULL,
            stdout=sys.stderr.fileno(),
            stderr=sys.stderr.fileno(),
            check=False,
        )
    except OSError as exc:
        log(f"cannot run {argv[0]}: {exc.strerror or exc}")
        return False
    if done.returncode != 0:
        code = done.returncode
        how = f"was killed by signal {-code}" if code < 0 else f"exited with status {code}"
        log(f"{argv[0]} {how}")
        return False
    return True


def cargo_binary(root: str, target: str) -> bool:
    """Copy the one executable Cargo built in release mode to ``target``; whether it did."""
    release = os.path.join(root, "target", "release")
    found: list[str] = []
    if os.path.isdir(release):
        for name in sorted(os.listdir(release)):
            path = os.path.join(release, name)
            mode = os.lstat(path).st_mode
            if stat.S_ISREG(mode) and mode & 0o111 and "." not in name:
                found.append(path)
    if len(found) != 1:
        names = ", ".join(os.path.basename(path) for path in found) or "none"
        log(f"cargo built {len(found)} executables in target/release ({names}); expected one")
        return False
    shutil.copyfile(found[0], os.path.join(root, target))
    os.chmod(os.path.join(root, target), 0o755)
    return True


def send(root: str) -> None:
    """Write ``root`` as a .tar.gz stream to standard output (files and folders only)."""
    with tarfile.open(fileobj=sys.stdout.buffer, mode="w|gz") as archive:
        for folder, folders, files in os.walk(root):
            folders.sort()
            for name in [*folders, *sorted(files)]:
                path = os.path.join(folder, name)
                mode = os.lstat(path).st_mode
                if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                    continue  # links and the like are not kept (the unpacker refuses them)
                archive.add(path, os.path.relpath(path, root), recursive=False)
    sys.stdout.buffer.flush()


def main(args: list[str]) -> int:
    """Copy, build, check, send."""
    source, destination, plan_text = args
    try:
        plan = json.loads(plan_text)
    except ValueError as exc:
        log(f"build launcher: bad plan: {exc}")
        return BAD_PLAN
    try:
        shutil.copytree(source, destination, symlinks=False, dirs_exist_ok=True)
    except OSError as exc:
        log(f"the bot's files do not fit its build folder: {exc}")
        return COPY_FAILED
    environment = dict(os.environ)
    environment.update(plan.get("environment") or {})
    for step in plan["steps"]:
        if not run_step(step, destination, environment):
            return STEP_FAILED
    produces = plan.get("produces")
    if produces and plan.get("cargo_binary") and not cargo_binary(destination, produces):
        return NO_OUTPUT
    if produces and not os.path.isfile(os.path.join(destination, produces)):
        log(f"the build did not make {produces}, the file the bot runs")
        return NO_OUTPUT
    for name in plan.get("discard") or []:
        shutil.rmtree(os.path.join(destination, name), ignore_errors=True)
    send(destination)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
