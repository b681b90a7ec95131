"""One cgroup per sandbox: a bot's memory, processes and CPU counted for all its processes.

``setrlimit`` limits are per process (and the process limit per user): a bot that forks
five children of 700 MiB each holds 3.5 GiB under a 1 GiB ``RLIMIT_AS``.  A control
group counts every process of the sandbox together, and the memory its tmpfs files take
(``/bot``, ``/tmp``, ``/dev/shm``: a page of shared memory is charged to the cgroup that
wrote it).  Each sandbox gets one, made by :meth:`Hierarchy.create`:

* **memory**: ``memory.max`` (v1: ``memory.limit_in_bytes``), no swap; a sandbox that
  runs out is killed whole (the kernel kills one process, the :class:`Warden` the rest);
* **processes**: ``pids.max`` (every process and thread of the sandbox);
* **CPU**: ``cpu.max`` (v1: ``cpu.cfs_quota_us``), the cores it may use at once, where
  the ``cpu`` controller is there; and its CPU time, all processes together (``cpu.stat``;
  v1: ``cpuacct.usage``), which the :class:`Warden` reads to kill a sandbox past its
  seconds.

The sandboxed process joins its cgroup between ``fork`` and ``exec`` (the paths in
:attr:`Cgroup.join`), before ``bwrap`` starts, so that everything it starts is in it.
When the sandbox ends, the cgroup's processes are killed (``cgroup.kill``; v1: frozen,
killed, thawed) and the cgroup removed.

Where the cgroups are made is found once (:func:`hierarchy`): cgroup v2 where a writable
``cgroup2`` hierarchy has the ``memory`` and ``pids`` controllers for this process's
cgroup (a systemd unit with ``Delegate=yes``, a container with a writable cgroup), else
the cgroup v1 ``memory``, ``pids`` and ``cpuacct`` hierarchies (hosts with a hybrid
setup).  The sandboxes' cgroups are children of a ``snakewar`` cgroup under this
process's own.  On cgroup v2 a cgroup with processes cannot hand its controllers to
children, so this process first moves itself (and the workers it started) into a leaf
``snakewar-server`` beside them, as systemd's delegation rules ask.
"""

from __future__ import annotations

import abc
import atexit
import contextlib
import errno
import functools
import itertools
import os
import signal
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from snakewar.errors import SnakewarError

__all__ = [
    "Cgroup",
    "CgroupError",
    "Hierarchy",
    "Limits",
    "Warden",
    "detect",
    "hierarchy",
    "warden",
]

PARENT: Final = "snakewar"
"""The cgroup, under this process's own, that holds the sandboxes' cgroups."""

SERVER_LEAF: Final = "snakewar-server"
"""On cgroup v2: the leaf this process moves into so its cgroup can delegate."""

_PERIOD_US: Final = 100_000
_REQUIRED: Final = ("memory", "pids")


class CgroupError(SnakewarError, OSError):
    """A sandbox's cgroup cannot be made here (the reason is the message)."""


@dataclass(frozen=True, slots=True)
class Limits:
    """What one sandbox's cgroup allows, all its processes together.

    Attributes:
        memory_bytes: memory, tmpfs files included (``memory.max``).
        max_processes: processes and threads (``pids.max``).
        cpus: cores it may use at once (``cpu.max``; where the controller is there).
        cpu_seconds: CPU time before the :class:`Warden` kills it.
    """

    memory_bytes: int
    max_processes: int
    cpus: float
    cpu_seconds: float


def _read(path: Path) -> str:
    return path.read_text(encoding="ascii", errors="replace")


def _write(path: Path, value: str) -> None:
    # One write(2) per value: the kernel reads a cgroup file's value from a single write.
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, value.encode())
    finally:
        os.close(fd)


def _pids(procs: Path) -> list[int]:
    try:
        return [int(line) for line in _read(procs).split()]
    except (OSError, ValueError):
        return []


def _signal_members(procs: Path) -> int:
    """``SIGKILL`` every process listed in ``procs``; how many were listed.

    A pid read from the file could end and be reused by a process elsewhere before the
    signal: each is pinned with a pidfd first and signalled only if it is still listed.
    """
    members = _pids(procs)
    for pid in members:
        try:
            fd = os.pidfd_open(pid)
        except OSError:
            continue
        try:
            if pid in _pids(procs):
                with contextlib.suppress(OSError):
                    signal.pidfd_send_signal(fd, signal.SIGKILL)
        finally:
            os.close(fd)
    return len(members)


class Cgroup(abc.ABC):
    """The cgroup of one sandbox (one directory per hierarchy on cgroup v1)."""

    def __init__(self, name: str, limits: Limits) -> None:
        self.name = name
        self.limits = limits
        self.verdict: str | None = None
        """Why the :class:`Warden` killed it (memory, CPU time), if it did."""

    @property
    @abc.abstractmethod
    def join(self) -> tuple[bytes, ...]:
        """The ``cgroup.procs`` files a process writes ``0`` into to join."""
        raise NotImplementedError

    def judge(self) -> str | None:
        """Why it must be killed (past its memory or CPU time), or ``None``; sets :attr:`verdict`.

        Once set, the verdict stays (it is read again after the cgroup is gone).
        """
        if self.verdict is not None:
            return self.verdict
        try:
            if self.oom_kills() > 0:
                self.verdict = (
                    f"killed: the sandbox ran out of memory "
                    f"({self.limits.memory_bytes // (1024 * 1024)} MiB for all its "
                    "processes and files)"
                )
            elif self.cpu_seconds() > self.limits.cpu_seconds:
                self.verdict = (
                    f"killed: the sandbox used more than {self.limits.cpu_seconds:g} s "
                    "of CPU time (all its processes together)"
                )
        except (OSError, ValueError):
            return None  # removed meanwhile
        return self.verdict

    @property
    @abc.abstractmethod
    def directories(self) -> tuple[Path, ...]:
        """Its directories (one on cgroup v2)."""
        raise NotImplementedError

    @abc.abstractmethod
    def processes(self) -> list[int]:
        """The processes in it now (pids as the host sees them)."""
        raise NotImplementedError

    @abc.abstractmethod
    def memory_bytes(self) -> int:
        """Its memory now: its processes' and its tmpfs files'."""
        raise NotImplementedError

    @abc.abstractmethod
    def memory_peak(self) -> int | None:
        """The most memory it ever held (``None``: the kernel does not say)."""
        raise NotImplementedError

    @abc.abstractmethod
    def cpu_seconds(self) -> float:
        """CPU time its processes have used, all of them together."""
        raise NotImplementedError

    @abc.abstractmethod
    def oom_kills(self) -> int:
        """How many of its processes the kernel killed for memory."""
        raise NotImplementedError

    @abc.abstractmethod
    def kill(self) -> None:
        """``SIGKILL`` every process in it, those they start meanwhile too."""
        raise NotImplementedError

    def remove(self) -> bool:
        """Remove it; ``False`` while a process is still in it (try again later)."""
        for directory in self.directories:
            try:
                directory.rmdir()
            except FileNotFoundError:
                continue
            except OSError as exc:
                if exc.errno in (errno.EBUSY, errno.ENOTEMPTY):
                    return False
                raise
        return True


class _CgroupV2(Cgroup):
    def __init__(self, name: str, limits: Limits, directory: Path) -> None:
        super().__init__(name, limits)
        self.directory = directory

    @property
    def join(self) -> tuple[bytes, ...]:
        return (os.fsencode(self.directory / "cgroup.procs"),)

    @property
    def directories(self) -> tuple[Path, ...]:
        return (self.directory,)

    def processes(self) -> list[int]:
        return _pids(self.directory / "cgroup.procs")

    def memory_bytes(self) -> int:
        return int(_read(self.directory / "memory.current"))

    def memory_peak(self) -> int | None:
        try:
            return int(_read(self.directory / "memory.peak"))
        except (OSError, ValueError):  # memory.peak is Linux 5.19 and later
            return None

    def cpu_seconds(self) -> float:
        for line in _read(self.directory / "cpu.stat").splitlines():
            key, _, value = line.partition(" ")
            if key == "usage_usec":
                return int(value) / 1e6
        return 0.0

    def oom_kills(self) -> int:
        for line in _read(self.directory / "memory.events").splitlines():
            key, _, value = line.partition(" ")
            if key == "oom_kill":
                return int(value)
        return 0

    def kill(self) -> None:
        try:
            _write(self.directory / "cgroup.kill", "1")  # Linux 5.14 and later
            return
        except FileNotFoundError:
            pass
        except OSError as exc:
            if exc.errno != errno.ENOENT:
                raise
        # No cgroup.kill: kill what is listed until nothing is; pids.max bounds the forks.
        for _ in range(100):
            if not _signal_members(self.directory / "cgroup.procs"):
                return
            time.sleep(0.01)


class _CgroupV1(Cgroup):
    def __init__(self, name: str, limits: Limits, directories: dict[str, Path]) -> None:
        super().__init__(name, limits)
        self.by_controller = directories

    @property
    def join(self) -> tuple[bytes, ...]:
        return tuple(os.fsencode(d / "cgroup.procs") for d in self.directories)

    @property
    def directories(self) -> tuple[Path, ...]:
        return tuple(dict.fromkeys(self.by_controller.values()))

    def processes(self) -> list[int]:
        return _pids(self.by_controller["pids"] / "cgroup.procs")

    def memory_bytes(self) -> int:
        return int(_read(self.by_controller["memory"] / "memory.usage_in_bytes"))

    def memory_peak(self) -> int | None:
        return int(_read(self.by_controller["memory"] / "memory.max_usage_in_bytes"))

    def cpu_seconds(self) -> float:
        return int(_read(self.by_controller["cpuacct"] / "cpuacct.usage")) / 1e9

    def oom_kills(self) -> int:
        for line in _read(self.by_controller["memory"] / "memory.oom_control").splitlines():
            key, _, value = line.partition(" ")
            if key == "oom_kill":
                return int(value)
        return 0

    def kill(self) -> None:
        procs = self.by_controller["pids"] / "cgroup.procs"
        freezer = self.by_controller.get("freezer")
        if freezer is not None:
            # Frozen, no process can fork or exit between the list and the signals; the
            # signals take effect at the thaw.
            with contextlib.suppress(OSError):
                _write(freezer / "freezer.state", "FROZEN")
                deadline = time.monotonic() + 1.0
                while _read(freezer / "freezer.state").strip() != "FROZEN":
                    if time.monotonic() > deadline:
                        break
                    time.sleep(0.005)
                _signal_members(procs)
            with contextlib.suppress(OSError):
                _write(freezer / "freezer.state", "THAWED")
        for _ in range(100):
            if not _signal_members(procs):
                return
            time.sleep(0.01)


_NAMES: Final = itertools.count(1)


def _fresh_name() -> str:
    return f"{os.getpid()}-{next(_NAMES)}"


def _remove_stale(parent: Path) -> None:
    """Remove the empty cgroups that servers now gone left behind (``PID-N``)."""
    try:
        entries = list(os.scandir(parent))
    except OSError:
        return
    for entry in entries:
        pid, dash, number = entry.name.partition("-")
        if not (entry.is_dir() and dash and pid.isdigit() and number.isdigit()):
            continue
        if int(pid) == os.getpid() or Path(f"/proc/{pid}").exists():
            continue
        # A server in another PID namespace is not in our /proc: leave the fresh ones.
        with contextlib.suppress(OSError):
            if time.time() - entry.stat().st_mtime < 600:
                continue
        with contextlib.suppress(OSError):  # busy: something still runs there, leave it
            os.rmdir(entry.path)


class Hierarchy(abc.ABC):
    """Where the sandboxes' cgroups are made, and how (cgroup v2 or v1)."""

    version: int = 0
    controllers: tuple[str, ...] = ()

    @abc.abstractmethod
    def describe(self) -> str:
        """One line: the version, where, and the controllers in use."""
        raise NotImplementedError

    @abc.abstractmethod
    def create(self, limits: Limits) -> Cgroup:
        """A fresh cgroup with ``limits`` (nothing in it yet).

        Raises:
            CgroupError: it cannot be made (the reason is the message).
        """
        raise NotImplementedError


class _HierarchyV2(Hierarchy):
    version = 2

    def __init__(self, parent: Path, controllers: tuple[str, ...]) -> None:
        self.parent = parent
        self.controllers = controllers

    def describe(self) -> str:
        return f"cgroup v2 under {self.parent} ({', '.join(self.controllers)})"

    def create(self, limits: Limits) -> Cgroup:
        directory = self.parent / _fresh_name()
        try:
            directory.mkdir()
            group = _CgroupV2(directory.name, limits, directory)
            # No swap first: the memory limit must not spill into it.
            if (directory / "memory.swap.max").exists():
                _write(directory / "memory.swap.max", "0")
            _write(directory / "memory.max", str(limits.memory_bytes))
            # Out of memory, the whole sandbox is killed at once, not its largest process.
            if (directory / "memory.oom.group").exists():
                _write(directory / "memory.oom.group", "1")
            _write(directory / "pids.max", str(limits.max_processes))
            if "cpu" in self.controllers:
                quota = max(1000, round(limits.cpus * _PERIOD_US))
                _write(directory / "cpu.max", f"{quota} {_PERIOD_US}")
        except OSError as exc:
            with contextlib.suppress(OSError):
                directory.rmdir()
            raise CgroupError(f"cannot make a cgroup in {self.parent}: {exc}") from exc
        return group


class _HierarchyV1(Hierarchy):
    version = 1

    def __init__(self, parents: dict[str, Path]) -> None:
        self.parents = parents
        self.controllers = tuple(parents)

    def describe(self) -> str:
        places = sorted({str(p) for p in self.parents.values()})
        return f"cgroup v1 under {', '.join(places)} ({', '.join(self.controllers)})"

    def create(self, limits: Limits) -> Cgroup:
        name = _fresh_name()
        directories = {c: parent / name for c, parent in self.parents.items()}
        made: list[Path] = []
        try:
            for directory in dict.fromkeys(directories.values()):
                directory.mkdir()
                made.append(directory)
            group = _CgroupV1(name, limits, directories)
            memory = directories["memory"]
            _write(memory / "memory.limit_in_bytes", str(limits.memory_bytes))
            # memory + swap at the same value: no swap (the file exists with swap accounting).
            if (memory / "memory.memsw.limit_in_bytes").exists():
                _write(memory / "memory.memsw.limit_in_bytes", str(limits.memory_bytes))
            _write(directories["pids"] / "pids.max", str(limits.max_processes))
            if "cpu" in directories:
                quota = max(1000, round(limits.cpus * _PERIOD_US))
                _write(directories["cpu"] / "cpu.cfs_period_us", str(_PERIOD_US))
                _write(directories["cpu"] / "cpu.cfs_quota_us", str(quota))
        except OSError as exc:
            for directory in made:
                with contextlib.suppress(OSError):
                    directory.rmdir()
            where = self.parents["memory"]
            raise CgroupError(f"cannot make a cgroup in {where}: {exc}") from exc
        return group


@dataclass(frozen=True, slots=True)
class _Mount:
    root: str
    point: Path
    kind: str  # "cgroup" (v1) or "cgroup2"
    options: frozenset[str] = field(default_factory=frozenset)


def _unescape(text: str) -> str:
    # mountinfo escapes space, tab, newline and backslash as octal (\040...).
    out, i = [], 0
    while i < len(text):
        if text[i] == "\\" and text[i + 1 : i + 4].isdigit() and i + 4 <= len(text):
            out.append(chr(int(text[i + 1 : i + 4], 8)))
            i += 4
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def _mounts(mountinfo: str) -> list[_Mount]:
    found = []
    for line in mountinfo.splitlines():
        fields = line.split()
        if "-" not in fields:
            continue
        dash = fields.index("-")
        kind = fields[dash + 1] if len(fields) > dash + 1 else ""
        if kind not in ("cgroup", "cgroup2") or len(fields) < dash + 4:
            continue
        options = frozenset(fields[dash + 3].split(","))
        found.append(_Mount(_unescape(fields[3]), Path(_unescape(fields[4])), kind, options))
    return found


def _own_cgroups(text: str) -> dict[str, str]:
    """This process's cgroup in each hierarchy: ``""`` is the v2 one, else a controller."""
    own: dict[str, str] = {}
    for line in text.splitlines():
        _, _, rest = line.partition(":")
        controllers, _, path = rest.partition(":")
        if not controllers:
            own[""] = path
        for controller in controllers.split(","):
            if controller:
                own[controller] = path
    return own


def _place(mount: _Mount, path: str) -> Path | None:
    """The directory of cgroup ``path`` in ``mount`` (``None``: not visible there)."""
    if mount.root != "/":
        if path == mount.root or path.startswith(mount.root.rstrip("/") + "/"):
            path = path[len(mount.root.rstrip("/")) :]
        else:
            return None
    directory = mount.point / path.lstrip("/")
    return directory if directory.is_dir() else None


def _children_of(pid: int) -> set[int]:
    children: set[int] = set()
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return children
    for task in tasks:
        with contextlib.suppress(OSError, ValueError):
            listed = _read(Path(f"/proc/{pid}/task/{task}/children"))
            children.update(int(child) for child in listed.split())
    return children


def _setup_v2(base: Path, wanted: tuple[str, ...]) -> Path:
    """Hand ``wanted`` controllers from ``base`` down to ``base/snakewar``'s children."""
    enable = " ".join(f"+{c}" for c in wanted)
    enabled = set(_read(base / "cgroup.subtree_control").split())
    if not set(wanted) <= enabled:
        try:
            _write(base / "cgroup.subtree_control", enable)
        except OSError as exc:
            if exc.errno != errno.EBUSY:
                raise CgroupError(f"cannot enable {enable} in {base}: {exc}") from exc
            # A cgroup with processes cannot delegate: move this server (and the workers
            # it started) into a leaf of its own, then enable.  Others' processes there
            # are not ours to move.
            ours = {os.getpid(), *_children_of(os.getpid())}
            others = sorted(set(_pids(base / "cgroup.procs")) - ours)
            if others:
                raise CgroupError(
                    f"{base} holds other processes ({', '.join(map(str, others[:5]))}), so "
                    "it cannot hand its memory and pids controllers to sandboxes; run the "
                    "server in a cgroup of its own (systemd: Delegate=yes)"
                ) from exc
            leaf = base / SERVER_LEAF
            leaf.mkdir(exist_ok=True)
            for pid in sorted(ours):
                with contextlib.suppress(ProcessLookupError):
                    _write(leaf / "cgroup.procs", str(pid))
            try:
                _write(base / "cgroup.subtree_control", enable)
            except OSError as again:
                raise CgroupError(f"cannot enable {enable} in {base}: {again}") from again
    parent = base / PARENT
    parent.mkdir(exist_ok=True)
    if not set(wanted) <= set(_read(parent / "cgroup.subtree_control").split()):
        _write(parent / "cgroup.subtree_control", enable)
    return parent


def _try_v2(mounts: Sequence[_Mount], own: dict[str, str]) -> Hierarchy | str:
    if "" not in own:
        return "this process has no cgroup v2"
    problems = []
    for mount in (m for m in mounts if m.kind == "cgroup2"):
        base = _place(mount, own[""])
        if base is None:
            continue
        try:
            available = set(_read(base / "cgroup.controllers").split())
        except OSError as exc:
            problems.append(f"{base}: {exc}")
            continue
        missing = [c for c in _REQUIRED if c not in available]
        if missing:
            problems.append(f"{base} has no {' or '.join(missing)} controller")
            continue
        wanted = tuple(c for c in (*_REQUIRED, "cpu") if c in available)
        try:
            parent = _setup_v2(base, wanted)
        except OSError as exc:
            problems.append(str(exc) if isinstance(exc, CgroupError) else f"{base}: {exc}")
            continue
        return _HierarchyV2(parent, wanted)
    return "; ".join(problems) or "no cgroup2 hierarchy is mounted"


def _try_v1(mounts: Sequence[_Mount], own: dict[str, str]) -> Hierarchy | str:
    parents: dict[str, Path] = {}
    problems = []
    for controller in ("memory", "pids", "cpuacct", "cpu", "freezer"):
        mount = next((m for m in mounts if m.kind == "cgroup" and controller in m.options), None)
        if mount is None or controller not in own:
            if controller in (*_REQUIRED, "cpuacct"):
                problems.append(f"no cgroup v1 {controller} hierarchy")
            continue
        needed = controller in (*_REQUIRED, "cpuacct")
        base = _place(mount, own[controller])
        if base is None:
            if needed:
                problems.append(f"this process's {controller} cgroup is not under {mount.point}")
            continue
        parent = base / PARENT
        try:
            parent.mkdir(exist_ok=True)
            probe = parent / f"{os.getpid()}-probe"
            probe.mkdir(exist_ok=True)
            probe.rmdir()
        except OSError as exc:
            if needed:
                problems.append(f"cannot make cgroups in {parent}: {exc.strerror or exc}")
            continue
        if controller == "cpu" and not (parent / "cpu.cfs_quota_us").exists():
            continue  # a kernel without CFS bandwidth control: no cores cap, CPU time still
        parents[controller] = parent
    if problems:
        return "; ".join(problems)
    for parent in set(parents.values()):
        _remove_stale(parent)
    return _HierarchyV1(parents)


def detect(mountinfo: str, own_cgroups: str) -> Hierarchy | str:
    """Where sandboxes' cgroups can be made here, or why they cannot.

    Args:
        mountinfo: the text of ``/proc/self/mountinfo``.
        own_cgroups: the text of ``/proc/self/cgroup``.
    """
    mounts = _mounts(mountinfo)
    own = _own_cgroups(own_cgroups)
    v2 = _try_v2(mounts, own)
    if isinstance(v2, _HierarchyV2):
        _remove_stale(v2.parent)
        return v2
    v1 = _try_v1(mounts, own)
    if isinstance(v1, Hierarchy):
        return v1
    return f"no cgroup to confine a sandbox in: cgroup v2: {v2}; cgroup v1: {v1}"


@functools.cache
def hierarchy() -> Hierarchy | str:
    """This host's :class:`Hierarchy` for sandboxes, or why there is none (found once)."""
    try:
        mountinfo = _read(Path("/proc/self/mountinfo"))
        own = _read(Path("/proc/self/cgroup"))
    except OSError as exc:
        return f"no cgroup to confine a sandbox in: {exc}"
    return detect(mountinfo, own)


@dataclass(eq=False, slots=True)
class _Ending:
    group: Cgroup
    then: Callable[[], None]
    since: float = field(default_factory=time.monotonic)


class Warden:
    """A thread that watches the live sandboxes' cgroups and removes the ended ones.

    Every :attr:`period` seconds it kills a sandbox past its CPU seconds, or one whose
    process the kernel killed for memory (the rest of it would run on, crippled); a
    sandbox that ended is killed (whatever is left of it) and its cgroup removed once
    empty, then its ``then`` is called (the user id goes back to the pool).  The event
    loop never waits for any of it.
    """

    period: float = 0.2

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._live: dict[str, Cgroup] = {}
        self._ending: list[_Ending] = []
        self._thread: threading.Thread | None = None

    def watch(self, group: Cgroup) -> None:
        """Watch ``group`` until :meth:`end`."""
        with self._lock:
            self._live[group.name] = group
            self._start()

    def end(self, group: Cgroup, then: Callable[[], None] = lambda: None) -> None:
        """Kill what is left in ``group``, remove it, then call ``then`` (not here: soon)."""
        with self._lock:
            self._live.pop(group.name, None)
            self._ending.append(_Ending(group, then))
            self._start()
        self._wake.set()

    def flush(self, timeout: float = 2.0) -> None:
        """Kill and remove every cgroup still here, waiting at most ``timeout`` seconds.

        Run at exit: a process that ends leaves no cgroup behind (nor the sandbox's
        processes, which ``--die-with-parent`` ends too).
        """
        with self._lock:
            entries = [*self._ending, *(_Ending(g, lambda: None) for g in self._live.values())]
            self._live.clear()
        deadline = time.monotonic() + timeout
        while entries and time.monotonic() < deadline:
            entries = [e for e in entries if not self._finish(e)]
            if entries:
                time.sleep(0.02)

    def pending(self) -> int:
        """How many ended cgroups are not removed yet."""
        with self._lock:
            return len(self._ending)

    def _start(self) -> None:
        if self._thread is None or not self._thread.is_alive():
            self._thread = threading.Thread(target=self._run, name="sandbox-warden", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        while True:
            self._wake.wait(self.period)
            self._wake.clear()
            with self._lock:
                live = list(self._live.values())
                ending = list(self._ending)
            for group in live:
                self._check(group)
            done = [e for e in ending if self._finish(e)]
            if done:
                with self._lock:
                    self._ending = [e for e in self._ending if e not in done]
                for entry in done:
                    with contextlib.suppress(Exception):
                        entry.then()

    @staticmethod
    def _check(group: Cgroup) -> None:
        if group.verdict is None and group.judge() is not None:
            with contextlib.suppress(OSError):
                group.kill()

    @staticmethod
    def _finish(entry: _Ending) -> bool:
        try:
            entry.group.kill()
            return entry.group.remove()
        except OSError:
            # Something is wrong with this cgroup (removed by hand, say): stop after a
            # while rather than retry forever.
            return time.monotonic() - entry.since > 600


_WARDEN: Final = Warden()
atexit.register(_WARDEN.flush)


def warden() -> Warden:
    """The process's one :class:`Warden`."""
    return _WARDEN
