"""A root server's sandbox user ids are each one sandbox's across the whole host.

Two processes (a server's workers, two servers) taking ids at once get different
ones; an id comes free when its holder gives it back or dies; an id that still has
processes is passed over.  No sandbox is started: the ids' locks are what is tested.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from snakewar.referee.sandbox import SandboxError, SandboxPolicy, _Uids

# Ids far above any real user's, so no process of this host runs as one of them.
FIRST = 3_900_000


def policy(first: int = FIRST, count: int = 3) -> SandboxPolicy:
    return SandboxPolicy(first_uid=first, uid_count=count)


HOLDER = """
import sys
from pathlib import Path
from snakewar.referee.sandbox import SandboxPolicy, _Uids
uids = _Uids(Path(sys.argv[1]))
print(uids.take(SandboxPolicy(first_uid=int(sys.argv[2]), uid_count=3)), flush=True)
sys.stdin.read()
"""


def holder(folder: Path) -> tuple[subprocess.Popen[str], int]:
    """Another process that takes an id and holds it until its stdin closes."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    process = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(folder), str(FIRST)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert process.stdout is not None
    return process, int(process.stdout.readline())


def test_another_process_never_gets_an_id_in_use_until_it_is_given_back(tmp_path: Path) -> None:
    folder = tmp_path / "uids"
    here = _Uids(folder)
    mine = here.take(policy())
    assert mine == FIRST
    other, theirs = holder(folder)
    try:
        assert theirs == FIRST + 1
        assert here.take(policy()) == FIRST + 2
        with pytest.raises(SandboxError, match="all 3 sandbox user ids are in use"):
            here.take(policy())
        # Given back, the id is free for the other processes again.
        here.give(mine)
        assert here.take(policy()) == FIRST
    finally:
        other.kill()
        other.communicate()  # reaped, its pipes closed
    # A holder that died (killed, no clean-up) left its id free.
    assert here.take(policy()) == FIRST + 1
    assert (folder.stat().st_mode & 0o777) == 0o700
    for uid in range(FIRST, FIRST + 3):
        here.give(uid)


def test_an_id_that_still_has_processes_is_passed_over(tmp_path: Path) -> None:
    # This process runs as its own uid: no sandbox may be given it, though its lock is free.
    uids = _Uids(tmp_path / "uids")
    with pytest.raises(SandboxError, match="all 1 sandbox user ids are in use"):
        uids.take(policy(first=os.getuid(), count=1))
    assert uids.take(policy()) == FIRST


def test_a_lock_folder_others_may_write_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "open"
    folder.mkdir(mode=0o777)
    folder.chmod(0o777)
    with pytest.raises(SandboxError, match="only it may write"):
        _Uids(folder).take(policy())
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    (tmp_path / "elsewhere").mkdir(mode=0o700)
    with pytest.raises(SandboxError, match="only it may write"):
        _Uids(link).take(policy())
