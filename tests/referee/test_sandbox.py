"""The sandbox's walls, each tried by a real bot in a real bubblewrap sandbox.

Every bot here is a small Python program the test writes; it tries to get out and
prints what happened.  The tests that make a sandbox need bubblewrap (the ``bubblewrap``
fixture: skipped without it, failed under CI, which installs it); the refusals (no
sandbox, bad archives) run everywhere.
"""

from __future__ import annotations

import asyncio
import io
import os
import socket
import tarfile
import threading
import time
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from snakewar.games.halite3.referee.runner import HaliteMatch, play_halite_sync
from snakewar.referee.process import LineStatus, ProcessBot, Program
from snakewar.referee.sandbox import SandboxError, SandboxPolicy, prepare
from snakewar.referee.uploads import (
    UploadedBotError,
    program_for_upload,
    unpack_bot_archive,
)

KIT = Path(__file__).resolve().parents[1] / "games" / "halite3" / "starter_kit"
POLICY = SandboxPolicy(cpu_seconds=20)
READ_TIMEOUT_S = 120.0
"""How long a test waits for a bot's next line: ample on a busy machine (no test is
about speed; a bot that is stopped ends its output long before)."""


def bot_dir(tmp_path: Path, code: str, name: str = "bot") -> Path:
    folder = tmp_path / name
    folder.mkdir(mode=0o755)
    (folder / "bot.py").write_text(code)
    (folder / "bot.py").chmod(0o644)
    tmp_path.chmod(0o755)  # the sandbox's own user must reach the bot's folder
    return folder


def program(folder: Path, policy: SandboxPolicy = POLICY) -> Program:
    return Program(("python3", "bot.py"), sandbox=policy, files=str(folder))


def run_bot(prog: Program, timeout: float = READ_TIMEOUT_S) -> tuple[list[str], str]:
    """Start the bot, read every line it prints until it ends, kill it."""

    async def go() -> tuple[list[str], str]:
        bot = await ProcessBot.start(prog)
        lines = []
        try:
            while True:
                reply = await bot.read_line(timeout)
                if reply.status is not LineStatus.OK:
                    break
                lines.append(reply.line)
        finally:
            await bot.kill()
        return lines, bot.stderr_text()

    return asyncio.run(go())


@contextmanager
def listener() -> Iterator[tuple[int, list[str]]]:
    """A TCP server on loopback that records every connection it accepts."""
    accepted: list[str] = []
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.1)
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, peer = server.accept()
            except TimeoutError:
                continue
            accepted.append(str(peer))
            conn.close()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield server.getsockname()[1], accepted
    finally:
        stop.set()
        thread.join(2)
        server.close()


@pytest.mark.usefixtures("bubblewrap")
def test_no_network(tmp_path: Path) -> None:
    with listener() as (port, accepted):
        code = f"""
import socket
for host, port in (("127.0.0.1", {port}), ("1.1.1.1", 53), ("8.8.8.8", 443)):
    try:
        socket.create_connection((host, port), timeout=2)
        print("CONNECTED", host)
    except OSError as exc:
        print("blocked", host, type(exc).__name__)
"""
        lines, _ = run_bot(program(bot_dir(tmp_path, code)))
    assert [line.split()[0] for line in lines] == ["blocked"] * 3, lines
    assert accepted == []


@pytest.mark.usefixtures("bubblewrap")
def test_writes_stay_in_its_own_folder_and_tmp_is_private(tmp_path: Path) -> None:
    secret = tmp_path / "outside.txt"
    host_tmp = Path("/tmp") / f"snakewar-sandbox-test-{os.getpid()}"
    host_tmp.write_text("the host's /tmp")
    code = f"""
import os
for path in ("/usr/pwned", "/etc/pwned", "/pwned", "/src/pwned", {str(secret)!r},
             {str(tmp_path / "bot" / "pwned")!r}):
    try:
        open(path, "w").write("x")
        print("WROTE", path)
    except OSError as exc:
        print("blocked", path, type(exc).__name__)
open("log.txt", "w").write("a bot's own log")  # its folder is its own
print("own", open("log.txt").read() == "a bot's own log", os.getcwd())
print("tmp", sorted(os.listdir("/tmp")), os.path.exists({str(host_tmp)!r}))
"""
    try:
        lines, _ = run_bot(program(bot_dir(tmp_path, code)))
    finally:
        host_tmp.unlink()
    assert [line.split()[0] for line in lines[:6]] == ["blocked"] * 6, lines
    assert lines[6] == "own True /bot"
    assert lines[7] == "tmp [] False"
    assert not secret.exists() and not (tmp_path / "bot" / "pwned").exists()
    assert not (tmp_path / "bot" / "log.txt").exists()  # the copy was the sandbox's


@pytest.mark.usefixtures("bubblewrap")
def test_it_cannot_read_another_bots_files_or_the_servers(tmp_path: Path) -> None:
    other = bot_dir(tmp_path, "print('the other bot')", name="other")
    (other / "secret.txt").write_text("another bot's secret")
    code = f"""
import os
for path in ({str(other / "secret.txt")!r}, {str(Path.cwd() / "pyproject.toml")!r},
             "/root", "/home", "/etc/passwd", "/proc/1/environ"):
    print("seen" if os.path.exists(path) else "hidden", path)
print("pids", sorted(int(p) for p in os.listdir("/proc") if p.isdigit()))
"""
    lines, _ = run_bot(program(bot_dir(tmp_path, code)))
    assert [line.split()[0] for line in lines[:5]] == ["hidden"] * 5, lines
    # Its own processes only: the namespace's init, the bot.
    pids = [int(p) for p in lines[6].removeprefix("pids [").rstrip("]").split(", ")]
    assert max(pids) < 10 and len(pids) <= 3, lines


def _processes_of(uid: int) -> list[int]:
    found = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                if entry.stat().st_uid == uid:
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


@pytest.mark.usefixtures("bubblewrap")
def test_a_fork_bomb_is_contained_and_killed_with_the_sandbox(tmp_path: Path) -> None:
    code = """
import os, time
children = 0
try:
    while True:
        if os.fork() == 0:
            time.sleep(600)
            os._exit(0)
        children += 1
except OSError as exc:
    print("stopped", children, type(exc).__name__, flush=True)
time.sleep(600)
"""
    prog = program(bot_dir(tmp_path, code), SandboxPolicy(max_processes=32, cpu_seconds=20))

    async def go() -> tuple[str, int, list[int]]:
        bot = await ProcessBot.start(prog)
        reply = await bot.read_line(READ_TIMEOUT_S)
        uid = os.stat(f"/proc/{bot.pid}").st_uid
        running = _processes_of(uid) if os.geteuid() == 0 else []
        await bot.kill()
        deadline = time.monotonic() + 60  # polled: ample for reaping on a busy machine
        while os.geteuid() == 0 and _processes_of(uid) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        return reply.line, len(running), _processes_of(uid) if os.geteuid() == 0 else []

    line, running, left = asyncio.run(go())
    word, children, error = line.split()
    assert word == "stopped" and error in ("BlockingIOError", "PermissionError"), line
    assert int(children) < 32
    if os.geteuid() == 0:  # the sandbox's own user: its processes are countable
        assert 0 < running <= 32
        assert left == []  # killing the bot took every process of the sandbox along


@pytest.mark.usefixtures("bubblewrap")
def test_memory_is_capped(tmp_path: Path) -> None:
    code = """
try:
    block = bytearray(2 * 1024 ** 3)
    print("ALLOCATED", len(block))
except MemoryError:
    print("blocked MemoryError")
"""
    lines, _ = run_bot(program(bot_dir(tmp_path, code)))
    assert lines == ["blocked MemoryError"]


@pytest.mark.usefixtures("bubblewrap")
def test_cpu_time_is_capped(tmp_path: Path) -> None:
    code = "print('spinning', flush=True)\nwhile True:\n    pass\n"
    prog = program(bot_dir(tmp_path, code), SandboxPolicy(cpu_seconds=1))

    async def go() -> tuple[str, LineStatus]:
        bot = await ProcessBot.start(prog)
        try:
            first = await bot.read_line(READ_TIMEOUT_S)
            # It never stops by itself: only the CPU limit ends it, long before this
            # generous wait runs out (a second of CPU takes longer on a busy machine).
            end = await bot.read_line(READ_TIMEOUT_S)
        finally:
            await bot.kill()
        return first.line, end.status

    line, end = asyncio.run(go())
    assert line == "spinning"
    assert end is LineStatus.EOF  # ended by the CPU limit, not by the read timeout


@pytest.mark.usefixtures("bubblewrap")
def test_file_size_is_capped(tmp_path: Path) -> None:
    code = """
import signal
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
try:
    open("big", "wb").write(b"x" * (40 * 1024 * 1024))
    print("WROTE")
except OSError as exc:
    print("blocked", type(exc).__name__)
"""
    lines, _ = run_bot(program(bot_dir(tmp_path, code)))
    assert lines == ["blocked OSError"]


def test_no_sandbox_is_an_error_never_a_bare_run(monkeypatch: pytest.MonkeyPatch) -> None:
    import snakewar.referee.sandbox as sandbox

    monkeypatch.setattr(sandbox, "sandbox_available", lambda: "bubblewrap is not installed")
    with pytest.raises(SandboxError, match="bubblewrap is not installed"):
        prepare(Program(("python3", "bot.py"), sandbox=POLICY))


# -- a real game goes on ------------------------------------------------------------------


def play(prog: Program) -> HaliteMatch:
    return play_halite_sync(
        [prog, "builtin:greedy"],
        seed=5,
        width=32,
        height=32,
        turn_limit=20,
        # Ample on a busy machine: these games are about walls, not speed.
        init_timeout=30.0,
        turn_timeout=10.0,
    )


@pytest.mark.usefixtures("bubblewrap")
@pytest.mark.parametrize(
    "attack",
    [
        "import socket; socket.create_connection(('1.1.1.1', 53), timeout=2)",
        "open('/usr/pwned', 'w')",
        "bytearray(2 * 1024 ** 3)",
        "import os\nwhile True: os.fork()",
        # Issue 31, H1: five children of 700 MiB each, each under the 1 GiB a process
        # may map; and /dev/shm filled with 1 MiB files (each under the file size cap).
        "import os, time\nfor _ in range(5):\n    if os.fork() == 0:\n"
        "        block = b'1' * (700 * 1024 ** 2)\n        time.sleep(60)\ntime.sleep(60)",
        "for i in range(2000): open(f'/dev/shm/{i}', 'wb').write(b'1' * 1024 ** 2)",
    ],
    ids=["socket", "write", "memory", "fork-bomb", "forked-memory", "shm"],
)
def test_a_game_goes_on_when_a_sandboxed_bot_misbehaves(tmp_path: Path, attack: str) -> None:
    match = play(program(bot_dir(tmp_path, attack)))
    assert match.game.over
    assert 0 in match.failures and 1 not in match.failures, match.failures
    assert "SandboxError" not in match.failures[0]  # it ran, in a sandbox, and misbehaved
    assert match.names[1] == "greedy"


def kit_archive(kind: str) -> bytes:
    """The Python starter kit packed as users pack it: in one top-level folder."""
    buffer = io.BytesIO()
    files = [p for p in KIT.rglob("*") if p.is_file() and p.suffix == ".py"]
    if kind == "zip":
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            for path in files:
                archive.write(path, f"kit/{path.relative_to(KIT)}")
    else:
        with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
            for path in files:
                archive.add(path, f"kit/{path.relative_to(KIT)}")
    return buffer.getvalue()


@pytest.mark.usefixtures("bubblewrap")
@pytest.mark.parametrize("kind", ["zip", "tar.gz"])
def test_an_uploaded_starter_kit_plays_a_game_in_the_sandbox(tmp_path: Path, kind: str) -> None:
    tmp_path.chmod(0o755)
    folder = tmp_path / "upload"
    files = unpack_bot_archive(kit_archive(kind), folder)
    assert "kit/MyBot.py" in files and (folder / "MyBot.py").is_file()  # folder stripped
    match = play(program_for_upload(folder, "python3", POLICY))
    assert match.game.over and not match.failures, (match.failures, match.stderr)
    assert match.names == ["MyPythonBot", "greedy"]
    assert not list(folder.glob("bot-*.log"))  # its logs stayed in the sandbox


# -- archives -----------------------------------------------------------------------------


def zip_of(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def test_archives_that_leave_their_folder_or_hold_links_are_refused(tmp_path: Path) -> None:
    for name in ("../evil.py", "/etc/evil.py", "a/../../evil.py"):
        with pytest.raises(UploadedBotError, match="leaves the bot's folder"):
            unpack_bot_archive(zip_of({name: b"x"}), tmp_path / "slip")
        assert not (tmp_path / "slip").exists() and not (tmp_path / "evil.py").exists()
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        link = tarfile.TarInfo("MyBot.py")
        link.type = tarfile.SYMTYPE
        link.linkname = "/etc/passwd"
        archive.addfile(link)
    with pytest.raises(UploadedBotError, match="link or device"):
        unpack_bot_archive(buffer.getvalue(), tmp_path / "link")


def test_archive_bombs_and_crowds_are_refused(tmp_path: Path) -> None:
    bomb = zip_of({"MyBot.py": b"\0" * (64 * 1024 * 1024)})
    assert len(bomb) < 200_000
    with pytest.raises(UploadedBotError, match="more than 16777216 bytes"):
        unpack_bot_archive(bomb, tmp_path / "bomb")
    crowd = zip_of({f"f{i}.py": b"" for i in range(600)})
    with pytest.raises(UploadedBotError, match="more than 500 members"):
        unpack_bot_archive(crowd, tmp_path / "crowd")
    with pytest.raises(UploadedBotError, match=r"no \.zip or \.tar\.gz"):
        unpack_bot_archive(b"#!/bin/sh\necho hi\n", tmp_path / "script")
    with pytest.raises(UploadedBotError, match=r"needs MyBot\.py"):
        unpack_bot_archive(zip_of({"bot.py": b""}), tmp_path / "noentry")
        program_for_upload(tmp_path / "noentry", "python3")
    with pytest.raises(UploadedBotError, match="expected one of cmake, cpp"):
        program_for_upload(tmp_path / "noentry", "cobol")


@pytest.mark.usefixtures("bubblewrap")
def test_no_user_namespace_can_be_made_inside(tmp_path: Path) -> None:
    code = """
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
result = libc.unshare(0x10000000)  # CLONE_NEWUSER
print("MADE" if result == 0 else "blocked", os.strerror(ctypes.get_errno()))
"""
    lines, _ = run_bot(program(bot_dir(tmp_path, code)))
    assert lines[0].startswith("blocked"), lines
