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
* **limits for the whole sandbox**, all its processes together, in a cgroup of its own
  (:mod:`.cgroups`, joined before ``bwrap`` starts, so everything inside inherits it):
  memory (its tmpfs files ``/bot``, ``/tmp`` and ``/dev/shm`` included: shared memory is
  charged to the cgroup that writes it), processes, the cores it may use at once and its
  CPU time; past its memory or CPU time the whole sandbox is killed, and it is killed
  and its cgroup removed when it ends.  A host where no cgroup can be made has no
  sandbox (:func:`sandbox_available` says why);
* **limits per process** as well (``setrlimit`` before ``bwrap`` starts, inherited by
  everything inside): address space, CPU seconds, file size, open files, processes, no
  core dumps.  The process limit counts per real user, and root ignores it: a server that
  runs as root therefore starts each sandbox as a user id of its own, from a range
  (:attr:`SandboxPolicy.first_uid`), each held host-wide (a lock file under
  :data:`UID_LOCKS`), so that one bot's processes are counted alone.
  A server that is not root runs sandboxes as itself (user namespaces need no
  privilege); the process limit then counts the server user's processes too, so it is
  set that many above what the user already runs;
* **no reaching into another process**: a seccomp filter refuses ``ptrace``,
  ``process_vm_readv``, ``process_vm_writev`` and ``pidfd_getfd`` (``EPERM``), so a bot
  cannot trace or read the sandbox's init (pid 1) or anything else; ``/dev`` is
  read-only and ``/dev/shm`` a private, size-capped tmpfs.

The launcher that copies the bot's files into ``/bot`` is :mod:`._launch`, run by the
sandbox's Python from a read-only bind; it then ``exec``s the bot's own argument list.
"""

from __future__ import annotations

import fcntl
import functools
import os
import resource
import shutil
import stat
import struct
import subprocess
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from snakewar.errors import ForbiddenError
from snakewar.referee import cgroups

if TYPE_CHECKING:
    from snakewar.referee.process import Program

__all__ = [
    "SANDBOX_PYTHON",
    "SandboxError",
    "SandboxPolicy",
    "SandboxRun",
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
        total_memory_bytes: memory of the whole sandbox, all its processes and its tmpfs
            files together (its cgroup's ``memory.max``; killed past it).
        cpu_seconds: CPU time for the whole game, of each process (``RLIMIT_CPU``) and of
            all of them together (its cgroup's); killed past it.
        cpus: cores the whole sandbox may use at once (its cgroup's ``cpu.max``).
        max_processes: processes and threads, all of the sandbox's together (its
            cgroup's ``pids.max``) and per user (``RLIMIT_NPROC``).
        max_file_bytes: the largest file it may write (``RLIMIT_FSIZE``).
        max_open_files: open file descriptors (``RLIMIT_NOFILE``).
        bot_dir_bytes: size of ``/bot`` (its files and what it writes there).
        tmp_bytes: size of its private ``/tmp``.
        shm_bytes: size of its private ``/dev/shm``.
        first_uid: when the server is root, sandboxes run as user ids from here on.
        uid_count: how many such user ids (sandboxes running at once, at most).
    """

    memory_bytes: int = 1024 * _MiB
    total_memory_bytes: int = 1024 * _MiB
    cpu_seconds: int = 120
    cpus: float = 1.0
    max_processes: int = 64
    max_file_bytes: int = 16 * _MiB
    max_open_files: int = 256
    bot_dir_bytes: int = 64 * _MiB
    tmp_bytes: int = 16 * _MiB
    shm_bytes: int = 16 * _MiB
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
    seccomp_fd: int | None = None,
) -> list[str]:
    """The ``bwrap`` command line that runs ``program`` in a sandbox (see the module).

    ``files`` and ``launcher`` are where the bot's files and the launcher are read
    from (default: the program's own folder, the package's launcher); ``seccomp_fd``
    an inherited descriptor to read the seccomp filter from (:func:`seccomp_filter`).
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
    # Debian's JDK keeps its settings (jvm.cfg, security) in /etc/java-N-openjdk, linked
    # from /usr/lib/jvm: without them no java starts.  Read-only; no secret lives there.
    for folder in sorted(Path("/etc").glob("java-*")):
        if folder.is_dir() and not folder.is_symlink():
            argv += ["--ro-bind", str(folder), str(folder)]
    argv += [
        "--proc", "/proc",
        "--dev", "/dev",
        # bwrap's /dev is a tmpfs without a size, its shm a folder in it: a capped tmpfs
        # of its own instead, and the rest of /dev read-only.
        "--size", str(policy.shm_bytes), "--tmpfs", "/dev/shm",
        "--remount-ro", "/dev",
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
    ]  # fmt: skip
    if seccomp_fd is not None:
        argv += ["--seccomp", str(seccomp_fd)]
    argv += [
        "--",
        SANDBOX_PYTHON, "-I", "-S", "/launch.py",
        "/src" if files is not None else "",
        "/bot",
        *program.argv,
    ]  # fmt: skip
    return argv


UID_LOCKS: Final = Path("/run/snakewar/sandbox-uids")
"""Where a root server's sandboxes hold their user ids: one lock file per id in use."""


class _Uids:
    """The user ids sandboxes run as when the server is root: one per live sandbox.

    An id is held by an exclusive ``flock`` on its file under :data:`UID_LOCKS`, so it is
    one sandbox's across every process of the host (a server's ``--workers``, its bot
    and decode workers, Ray workers, several servers), not just within this one: two
    sandboxes under one id would share its process limit, and one bot's fork bomb would
    starve the other.  The lock goes with its process, so a server that dies leaves no
    id taken; an id that still has processes (a dead server's sandbox still running) is
    passed over too.
    """

    def __init__(self, directory: Path = UID_LOCKS) -> None:
        self.directory = directory
        self._lock = threading.Lock()
        self._held: dict[int, int] = {}  # uid -> the open lock file's descriptor

    def take(self, policy: SandboxPolicy) -> int:
        with self._lock:
            folder = self._folder()
            for uid in range(policy.first_uid, policy.first_uid + policy.uid_count):
                if uid in self._held:
                    continue
                fd = os.open(folder / f"{uid}.lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    os.close(fd)
                    continue
                if _user_processes(uid):
                    os.close(fd)
                    continue
                self._held[uid] = fd
                return uid
        raise SandboxError(f"all {policy.uid_count} sandbox user ids are in use")

    def give(self, uid: int) -> None:
        with self._lock:
            fd = self._held.pop(uid, None)
        if fd is not None:
            os.close(fd)  # closing it drops the lock

    def _folder(self) -> Path:
        # Root's own folder: nobody else may plant a file (a link, say) in it.
        try:
            self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
            state = self.directory.lstat()
        except OSError as exc:
            raise SandboxError(f"cannot use {self.directory} for sandbox user ids: {exc}") from exc
        if not stat.S_ISDIR(state.st_mode) or state.st_uid != os.geteuid() or state.st_mode & 0o022:
            raise SandboxError(
                f"{self.directory} must be a folder of the server's user that only it may write"
            )
        return self.directory


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


# The seccomp filter: classic BPF over struct seccomp_data (nr at 0, arch at 4).
_BPF_LD_W_ABS: Final = 0x20
_BPF_JEQ_K: Final = 0x15
_BPF_JGE_K: Final = 0x35
_BPF_RET_K: Final = 0x06
_SECCOMP_RET_ALLOW: Final = 0x7FFF0000
_SECCOMP_RET_EPERM: Final = 0x00050000 | 1
_X32_SYSCALL_BIT: Final = 0x40000000

# Each machine's audit architecture and the numbers of the calls that reach into another
# process: ptrace, process_vm_readv, process_vm_writev, pidfd_getfd.
_DENIED: Final = {
    "x86_64": (0xC000003E, (101, 310, 311, 438)),
    "aarch64": (0xC00000B7, (117, 270, 271, 438)),
}


def _instruction(code: int, jt: int, jf: int, k: int) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


@functools.cache
def seccomp_filter(machine: str | None = None) -> bytes:
    """The seccomp program the sandbox loads (``bwrap --seccomp``): no ``ptrace``.

    It refuses (``EPERM``) the calls that read, write or trace another process, and
    every call of another architecture's numbering (32-bit calls, x32), which would
    otherwise slip past the numbers it checks.

    Raises:
        SandboxError: no filter is written for this machine's architecture.
    """
    machine = machine or os.uname().machine
    if machine not in _DENIED:
        raise SandboxError(f"no seccomp filter for this machine ({machine}): no sandbox")
    arch, denied = _DENIED[machine]
    deny_at = 4 + len(denied) + 1  # the index of the final "refuse"
    program = [
        _instruction(_BPF_LD_W_ABS, 0, 0, 4),
        _instruction(_BPF_JEQ_K, 0, deny_at - 2, arch),
        _instruction(_BPF_LD_W_ABS, 0, 0, 0),
        # x32 numbers (x86_64 only; no aarch64 call is that high either).
        _instruction(_BPF_JGE_K, deny_at - 4, 0, _X32_SYSCALL_BIT),
    ]
    for index, number in enumerate(denied):
        program.append(_instruction(_BPF_JEQ_K, deny_at - (4 + index) - 1, 0, number))
    program.append(_instruction(_BPF_RET_K, 0, 0, _SECCOMP_RET_ALLOW))
    program.append(_instruction(_BPF_RET_K, 0, 0, _SECCOMP_RET_EPERM))
    assert len(program) == deny_at + 1
    return b"".join(program)


def _enter(
    policy: SandboxPolicy, processes: int, join: tuple[bytes, ...], uid: int | None
) -> Callable[[], None]:
    limits = (
        (resource.RLIMIT_AS, policy.memory_bytes),
        # The soft limit sends SIGXCPU, the hard one SIGKILL a second later.
        (resource.RLIMIT_CPU, policy.cpu_seconds),
        (resource.RLIMIT_FSIZE, policy.max_file_bytes),
        (resource.RLIMIT_NOFILE, policy.max_open_files),
        (resource.RLIMIT_NPROC, processes),
        (resource.RLIMIT_CORE, 0),
    )

    def apply() -> None:  # runs in the child between fork and exec: system calls only
        # Into the sandbox's cgroup first, while still the server's user (moving a
        # process needs write access to the cgroup): bwrap and all it starts inherit it.
        for path in join:
            fd = os.open(path, os.O_WRONLY)
            try:
                os.write(fd, b"0")
            finally:
                os.close(fd)
        for which, value in limits:
            hard = value + 1 if which == resource.RLIMIT_CPU else value
            resource.setrlimit(which, (value, hard))
        # Then the sandbox's own user: here, not with subprocess's user=, which would
        # switch before this function runs, when the move above needs the server's.
        if uid is not None:
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)

    return apply


class SandboxRun:
    """A started sandbox: its cgroup, and what is undone when it ends (call it, once).

    Calling it closes what the sandbox held open here and hands its cgroup to the
    :class:`~snakewar.referee.cgroups.Warden`, which kills what is left in it, removes
    it and then gives the sandbox's user id back.
    """

    def __init__(self, cgroup: cgroups.Cgroup, undo: Callable[[], None]) -> None:
        self.cgroup = cgroup
        self._undo: Callable[[], None] | None = undo

    @property
    def verdict(self) -> str | None:
        """Why the sandbox was killed (its memory, its CPU time), if it was.

        Read from its cgroup while the sandbox lasts: a bot the kernel killed for memory
        is known at once, not at the warden's next look.
        """
        if self._undo is not None:
            return self.cgroup.judge()
        return self.cgroup.verdict

    def __call__(self) -> None:
        """Undo what the sandbox held (idempotent)."""
        undo, self._undo = self._undo, None
        if undo is not None:
            self.cgroup.judge()  # the last look before the cgroup goes
            undo()


def prepare(
    program: Program, launcher: Path | None = None
) -> tuple[list[str], dict[str, Any], SandboxRun]:
    """What :meth:`ProcessBot.start` runs for a sandboxed ``program``.

    Returns the argument list, the options of ``create_subprocess_exec`` (limits,
    user, cgroup) and the :class:`SandboxRun` to call once the sandbox has ended.
    ``launcher``: the script the sandbox's Python runs first (default :mod:`._launch`;
    a build runs :mod:`._build`), with the bot's files, ``/bot`` and the program's
    arguments.

    Raises:
        SandboxError: no sandbox can be made here (no ``bwrap``, no user namespaces,
            no cgroup), or no user id is free.
    """
    problem = sandbox_available()
    if problem is not None:
        raise SandboxError(f"cannot sandbox bot {program.describe()[:80]!r}: {problem}")
    return prepare_unchecked(program, launcher)


def prepare_unchecked(
    program: Program, launcher: Path | None = None
) -> tuple[list[str], dict[str, Any], SandboxRun]:
    """:func:`prepare` without checking first that sandboxes work here."""
    launcher = launcher or _LAUNCHER
    policy = program.sandbox
    assert policy is not None
    place = cgroups.hierarchy()
    if isinstance(place, str):
        raise SandboxError(place)
    bpf = seccomp_filter()
    root = os.geteuid() == 0
    uid = _UIDS.take(policy) if root else None
    limits = cgroups.Limits(
        memory_bytes=policy.total_memory_bytes,
        max_processes=policy.max_processes,
        cpus=policy.cpus,
        cpu_seconds=policy.cpu_seconds,
    )
    group: cgroups.Cgroup | None = None
    staging: Path | None = None
    seccomp_fd: int | None = None
    try:
        try:
            group = place.create(limits)
        except cgroups.CgroupError as exc:
            raise SandboxError(str(exc)) from exc
        if root:
            staging = _stage(program, launcher)
        # A pipe holds the filter (a few hundred bytes: never blocks); bwrap reads it.
        seccomp_fd, write_end = os.pipe()
        try:
            os.write(write_end, bpf)
        finally:
            os.close(write_end)
    except BaseException:
        _undo(group, staging, seccomp_fd, uid)
        raise
    processes = policy.max_processes
    if not root:
        processes += _user_processes(os.getuid())
    options: dict[str, Any] = {
        "cwd": "/",
        "env": {"PATH": "/usr/bin:/bin"},
        "pass_fds": (seccomp_fd,),
        "preexec_fn": _enter(policy, processes, group.join, uid),
    }
    cgroups.warden().watch(group)
    run = SandboxRun(group, lambda: _undo(group, staging, seccomp_fd, uid))
    if staging is None:
        return bwrap_argv(program, policy, None, str(launcher), seccomp_fd), options, run
    files = str(staging / "src") if program.files is not None else None
    staged = str(staging / "launch.py")
    return bwrap_argv(program, policy, files, staged, seccomp_fd), options, run


def _undo(
    group: cgroups.Cgroup | None, staging: Path | None, seccomp_fd: int | None, uid: int | None
) -> None:
    if seccomp_fd is not None:
        os.close(seccomp_fd)
    if staging is not None:
        shutil.rmtree(staging, ignore_errors=True)

    def give_back() -> None:
        if uid is not None:
            _UIDS.give(uid)

    if group is None:
        give_back()
    else:
        # The uid goes back only once nothing of this sandbox runs as it any more.
        cgroups.warden().end(group, give_back)


def _stage(program: Program, launcher: Path = _LAUNCHER) -> Path:
    """Copies of the bot's files and the launcher that the sandbox's own user can read.

    ``bwrap`` runs as that user, so it can bind only what that user may reach; the
    server's folders (under ``/root``, say) are not.  The copy is made in a fresh
    folder readable by all, and removed when the sandbox ends.
    """
    staging = Path(tempfile.mkdtemp(prefix="snakewar-sandbox-"))
    try:
        staging.chmod(0o755)
        shutil.copy2(launcher, staging / "launch.py")
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
    """``None`` if sandboxes work here, else why not (checked once, by making one).

    A sandbox needs ``bwrap``, user namespaces, a cgroup for each sandbox
    (:func:`~snakewar.referee.cgroups.hierarchy`) and a seccomp filter for this machine.
    """
    from snakewar.referee.process import Program

    if _bwrap() is None:
        return "bubblewrap is not installed (Debian package bubblewrap)"
    if not os.path.exists(SANDBOX_PYTHON):
        return f"{SANDBOX_PYTHON} is missing (Debian package python3)"
    place = cgroups.hierarchy()
    if isinstance(place, str):
        return place
    try:
        seccomp_filter()
    except SandboxError as exc:
        return str(exc)
    probe = Program(("/usr/bin/true",), sandbox=SandboxPolicy())
    try:
        argv, options, release = prepare_unchecked(probe)
    except SandboxError as exc:
        return str(exc)
    try:
        done = subprocess.run(argv, capture_output=True, timeout=30, check=False, **options)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bubblewrap cannot run: {exc}"
    except subprocess.SubprocessError as exc:
        # An error between fork and exec comes back without its message.
        where = ", ".join(map(str, release.cgroup.directories))
        return (
            f"a sandbox cannot be started in its cgroup ({where}) under its limits and user: {exc}"
        )
    finally:
        release()
    if done.returncode != 0:
        error = done.stderr.decode(errors="replace").strip().splitlines()
        return f"bubblewrap cannot make a sandbox: {(error or ['no reason given'])[-1]}"
    return None
