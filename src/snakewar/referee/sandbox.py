"""A bubblewrap sandbox for bot programs nobody vouches for (users' uploads).

A sandboxed :class:`~snakewar.referee.process.Program` runs under ``bwrap`` (Debian's
``bubblewrap``) behind these walls, each tested by ``tests/referee/test_sandbox.py``:

* **no network**: a network namespace of its own (``--unshare-all``), with no
  interface but a loopback that is down;
* **its own files only**: the root is an empty, read-only tmpfs; ``/usr`` (and the ``/bin``,
  ``/lib`` links into it) is bound **read-only**, with ``/etc/alternatives`` (Debian's
  links to the shared libraries it picked, BLAS and LAPACK among them: Python bots use
  numpy); the bot's files are copied into
  ``/bot``, a size-capped tmpfs that is its working directory (bots write logs there);
  ``/tmp`` is a private, size-capped tmpfs; nothing else of the host is visible (no
  ``/home``, no other ``/etc``, no other bot, no server data), and everything it wrote is
  gone when it ends;
* **its own users and processes**: user, PID, IPC, UTS and cgroup namespaces; inside it
  is ``nobody`` (65534); it sees only its own processes; the sandbox dies with the
  referee (``--die-with-parent``) and when killed the namespace's init dies, taking
  every process in it along;
* **limits** (``setrlimit`` before ``bwrap`` starts, inherited by everything inside):
  address space (memory), CPU seconds, file size, open files, processes, no core
  dumps.  The process limit counts per real user, and root ignores it: a server that
  runs as root therefore starts each sandbox as a user id of its own, from a range
  (:attr:`SandboxPolicy.first_uid`), so that one bot's processes are counted alone.
  A server that is not root runs sandboxes as itself (user namespaces need no
  privilege); the process limit then counts the server user's processes too, so it is
  set that many above what the user already runs.

The launcher that copies the bot's files into ``/bot`` is :mod:`._launch`, run by the
sandbox's Python from a read-only bind; it then ``exec``s the bot's own argument list.
"""

from __future__ import annotations

import functools
import os
import resource
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from snakewar.errors import ForbiddenError

if TYPE_CHECKING:
    from snakewar.referee.process import Program

__all__ = [
    "SANDBOX_PYTHON",
    "SandboxError",
    "SandboxPolicy",
    "bwrap_argv",
    "prepare",
    "sandbox_available",
]

SANDBOX_PYTHON: Final = "/usr/bin/python3"
"""The Python inside the sandbox (Debian's, from the read-only ``/usr``)."""

_LAUNCHER: Final = Path(__file__).with_name("_launch.py")
_MiB: Final = 1024 * 1024


class SandboxError(ForbiddenError):
    """Raised when a program must be sandboxed and no sandbox can be made here."""


@dataclass(frozen=True, slots=True)
class SandboxPolicy:
    """The walls and limits of a sandbox (a small, picklable value).

    Attributes:
        memory_bytes: address space of each process (``RLIMIT_AS``).
        cpu_seconds: CPU time for the whole game (``RLIMIT_CPU``; killed past it).
        max_processes: processes and threads (``RLIMIT_NPROC``).
        max_file_bytes: the largest file it may write (``RLIMIT_FSIZE``).
        max_open_files: open file descriptors (``RLIMIT_NOFILE``).
        bot_dir_bytes: size of ``/bot`` (its files and what it writes there).
        tmp_bytes: size of its private ``/tmp``.
        first_uid: when the server is root, sandboxes run as user ids from here on.
        uid_count: how many such user ids (sandboxes running at once, at most).
    """

    memory_bytes: int = 1024 * _MiB
    cpu_seconds: int = 120
    max_processes: int = 64
    max_file_bytes: int = 16 * _MiB
    max_open_files: int = 256
    bot_dir_bytes: int = 64 * _MiB
    tmp_bytes: int = 16 * _MiB
    first_uid: int = 200_000
    uid_count: int = 10_000


@functools.cache
def _bwrap() -> str | None:
    return shutil.which("bwrap")


def bwrap_argv(
    program: Program,
    policy: SandboxPolicy,
    files: str | None = None,
    launcher: str | None = None,
) -> list[str]:
    """The ``bwrap`` command line that runs ``program`` in a sandbox (see the module).

    ``files`` and ``launcher`` are where the bot's files and the launcher are read
    from (default: the program's own folder, the package's launcher).
    """
    files = files if files is not None else program.files
    launcher = launcher if launcher is not None else str(_LAUNCHER)
    bwrap = _bwrap() or "bwrap"
    argv = [
        bwrap,
        "--unshare-all",
        # No user namespaces inside: a bot cannot make one to reach kernel code that
        # only a namespace's "root" may call.
        "--unshare-user",
        "--disable-userns",
        "--die-with-parent",
        "--ro-bind", "/usr", "/usr",
    ]  # fmt: skip
    for name in ("bin", "lib", "lib64", "sbin"):
        target = os.readlink(f"/{name}") if os.path.islink(f"/{name}") else None
        if target is not None:
            argv += ["--symlink", target, f"/{name}"]
        elif os.path.isdir(f"/{name}"):
            argv += ["--ro-bind", f"/{name}", f"/{name}"]
    # Debian picks shared libraries with symlinks through /etc/alternatives (libblas.so.3
    # and liblapack.so.3, which numpy loads, among them): bound read-only, links only.
    if os.path.isdir("/etc/alternatives"):
        argv += ["--ro-bind", "/etc/alternatives", "/etc/alternatives"]
    argv += [
        "--proc", "/proc",
        "--dev", "/dev",
        "--size", str(policy.tmp_bytes), "--tmpfs", "/tmp",
        "--size", str(policy.bot_dir_bytes), "--tmpfs", "/bot",
        "--ro-bind", launcher, "/launch.py",
    ]  # fmt: skip
    if files is not None:
        argv += ["--ro-bind", str(Path(files).resolve()), "/src"]
    argv += [
        # The root itself (bwrap's tmpfs, unbounded) is read-only: /bot and /tmp,
        # both size-capped, are the only places it can write.
        "--remount-ro", "/",
        "--chdir", "/",
        "--uid", "65534",
        "--gid", "65534",
        "--hostname", "bot",
        "--clearenv",
        "--setenv", "PATH", "/usr/local/bin:/usr/bin:/bin",
        "--setenv", "HOME", "/tmp",
        "--setenv", "LANG", "C.UTF-8",
        "--setenv", "PYTHONDONTWRITEBYTECODE", "1",
        "--",
        SANDBOX_PYTHON, "-I", "-S", "/launch.py",
        "/src" if files is not None else "",
        "/bot",
        *program.argv,
    ]  # fmt: skip
    return argv


class _Uids:
    """The user ids sandboxes run as when the server is root: one per live sandbox."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._taken: set[int] = set()

    def take(self, policy: SandboxPolicy) -> int:
        with self._lock:
            for uid in range(policy.first_uid, policy.first_uid + policy.uid_count):
                if uid not in self._taken:
                    self._taken.add(uid)
                    return uid
        raise SandboxError(f"all {policy.uid_count} sandbox user ids are in use")

    def give(self, uid: int) -> None:
        with self._lock:
            self._taken.discard(uid)


_UIDS: Final = _Uids()


def _user_processes(uid: int) -> int:
    count = 0
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                if entry.stat().st_uid == uid:
                    count += 1
            except OSError:
                continue
    return count


def _limits(policy: SandboxPolicy, processes: int) -> Callable[[], None]:
    limits = (
        (resource.RLIMIT_AS, policy.memory_bytes),
        # The soft limit sends SIGXCPU, the hard one SIGKILL a second later.
        (resource.RLIMIT_CPU, policy.cpu_seconds),
        (resource.RLIMIT_FSIZE, policy.max_file_bytes),
        (resource.RLIMIT_NOFILE, policy.max_open_files),
        (resource.RLIMIT_NPROC, processes),
        (resource.RLIMIT_CORE, 0),
    )

    def apply() -> None:  # runs in the child between fork and exec: syscalls only
        for which, value in limits:
            hard = value + 1 if which == resource.RLIMIT_CPU else value
            resource.setrlimit(which, (value, hard))

    return apply


def prepare(program: Program) -> tuple[list[str], dict[str, Any], Callable[[], None]]:
    """What :meth:`ProcessBot.start` runs for a sandboxed ``program``.

    Returns the argument list, the options of ``create_subprocess_exec`` (limits,
    user) and a function to call once the sandbox has ended.

    Raises:
        SandboxError: no sandbox can be made here (no ``bwrap``, no user namespaces),
            or no user id is free.
    """
    problem = sandbox_available()
    if problem is not None:
        raise SandboxError(f"cannot sandbox bot {program.describe()[:80]!r}: {problem}")
    return prepare_unchecked(program)


def prepare_unchecked(
    program: Program,
) -> tuple[list[str], dict[str, Any], Callable[[], None]]:
    """:func:`prepare` without checking first that sandboxes work here."""
    policy = program.sandbox
    assert policy is not None
    options: dict[str, Any] = {"cwd": "/", "env": {"PATH": "/usr/bin:/bin"}}
    if os.geteuid() != 0:
        running = _user_processes(os.getuid())
        options["preexec_fn"] = _limits(policy, running + policy.max_processes)
        return bwrap_argv(program, policy), options, lambda: None
    uid = _UIDS.take(policy)
    try:
        staging = _stage(program)
    except BaseException:
        _UIDS.give(uid)
        raise
    options.update(user=uid, group=uid, extra_groups=[])
    options["preexec_fn"] = _limits(policy, policy.max_processes)

    def release() -> None:
        shutil.rmtree(staging, ignore_errors=True)
        _UIDS.give(uid)

    files = str(staging / "src") if program.files is not None else None
    return bwrap_argv(program, policy, files, str(staging / "launch.py")), options, release


def _stage(program: Program) -> Path:
    """Copies of the bot's files and the launcher that the sandbox's own user can read.

    ``bwrap`` runs as that user, so it can bind only what that user may reach; the
    server's folders (under ``/root``, say) are not.  The copy is made in a fresh
    folder readable by all, and removed when the sandbox ends.
    """
    staging = Path(tempfile.mkdtemp(prefix="snakewar-sandbox-"))
    try:
        staging.chmod(0o755)
        shutil.copy2(_LAUNCHER, staging / "launch.py")
        if program.files is not None:
            shutil.copytree(program.files, staging / "src", symlinks=False)
        for path in staging.rglob("*"):
            path.chmod(0o755 if path.is_dir() or path.stat().st_mode & 0o111 else 0o644)
        (staging / "launch.py").chmod(0o644)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return staging


@functools.cache
def sandbox_available() -> str | None:
    """``None`` if sandboxes work here, else why not (checked once, by making one)."""
    from snakewar.referee.process import Program

    if _bwrap() is None:
        return "bubblewrap is not installed (Debian package bubblewrap)"
    if not os.path.exists(SANDBOX_PYTHON):
        return f"{SANDBOX_PYTHON} is missing (Debian package python3)"
    probe = Program(("/usr/bin/true",), sandbox=SandboxPolicy())
    try:
        argv, options, release = prepare_unchecked(probe)
    except SandboxError as exc:
        return str(exc)
    try:
        done = subprocess.run(argv, capture_output=True, timeout=30, check=False, **options)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"bubblewrap cannot run: {exc}"
    finally:
        release()
    if done.returncode != 0:
        error = done.stderr.decode(errors="replace").strip().splitlines()
        return f"bubblewrap cannot make a sandbox: {(error or ['no reason given'])[-1]}"
    return None
