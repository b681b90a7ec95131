"""Building an uploaded bot in a sandbox: its compile log, and what then runs.

An uploaded bot is built once, when it is uploaded, as the official competition site did
(:mod:`.languages` tells its language): its files are copied into a bubblewrap sandbox
(:mod:`.sandbox`: no network, its own files only) and the language's steps run there
(``install.sh`` first, when the bot has one), under a build's own limits
(:class:`BuildLimits`): wall-clock time, CPU time, memory, processes, the size of its
folder and of what it sends back.  The build log is everything the steps printed, cut
to :attr:`BuildLimits.log_bytes` (its start and its end are kept).

What the sandbox sends back is the built folder as a ``.tar.gz`` (at most
:attr:`BuildLimits.output_bytes`); it is what the bot's games then run, in the game
sandbox, with the language's run command.  A build that fails says why in one line
(:attr:`BuildResult.error`), and the log says the rest.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Final, Literal

from snakewar.referee import _build
from snakewar.referee.languages import Language
from snakewar.referee.process import Program
from snakewar.referee.sandbox import SandboxPolicy, prepare

__all__ = ["BuildLimits", "BuildResult", "build_bot"]

_BUILD_LAUNCHER: Final = Path(_build.__file__)
_MiB: Final = 1024 * 1024

STOPPED: Final = "the build was stopped before it ended"
"""The error of a build its caller stopped (``build_bot``'s ``stop``)."""


@dataclass(frozen=True, slots=True)
class BuildLimits:
    """The limits of one build (its whole sandbox, every process in it together).

    Attributes:
        seconds: wall-clock time; past it the build is stopped.
        cpu_seconds: CPU time of all its processes together.
        memory_bytes: memory of all its processes and its files (``/bot``, ``/tmp``).
        address_space_bytes: address space of each process (compilers reserve much
            more than they use: the real bound is ``memory_bytes``).
        max_processes: processes and threads at once.
        folder_bytes: size of its ``/bot`` (the sources and what the build writes).
        tmp_bytes: size of its ``/tmp`` (the Go and Cargo caches).
        output_bytes: the most the built folder may weigh, compressed.
        log_bytes: the most of the log that is kept (its start and its end).
        cpus: cores it may use at once.
    """

    seconds: float = 300.0
    cpu_seconds: int = 600
    memory_bytes: int = 1536 * _MiB
    address_space_bytes: int = 8192 * _MiB
    max_processes: int = 256
    folder_bytes: int = 256 * _MiB
    tmp_bytes: int = 512 * _MiB
    output_bytes: int = 32 * _MiB
    log_bytes: int = 64 * 1024
    cpus: float = 2.0

    def policy(self) -> SandboxPolicy:
        """The sandbox policy of a build under these limits."""
        return SandboxPolicy(
            memory_bytes=self.address_space_bytes,
            total_memory_bytes=self.memory_bytes,
            cpu_seconds=self.cpu_seconds,
            cpus=self.cpus,
            max_processes=self.max_processes,
            max_file_bytes=self.folder_bytes,
            max_open_files=1024,
            bot_dir_bytes=self.folder_bytes,
            tmp_bytes=self.tmp_bytes,
        )


@dataclass(frozen=True, slots=True)
class BuildResult:
    """How a build ended.

    Attributes:
        status: ``ready`` (built: ``archive`` is what runs) or ``failed``.
        language: the language it was built as.
        log: what the build printed (cut to the limit, the cut marked).
        error: why it failed, in one line ("" when ready).
        archive: the built folder as a ``.tar.gz`` (empty when failed).
        seconds: how long it took.
    """

    status: Literal["ready", "failed"]
    language: str
    log: str
    error: str = ""
    archive: bytes = b""
    seconds: float = 0.0


class _Capped:
    """Reads a stream to its end in a thread, keeping at most ``limit`` bytes."""

    def __init__(self, stream: IO[bytes], limit: int, *, keep_tail: bool) -> None:
        self.limit = limit
        self.keep_tail = keep_tail
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0
        self._stream = stream
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        half = self.limit // 2 if self.keep_tail else self.limit
        while chunk := self._stream.read(64 * 1024):
            self.total += len(chunk)
            room = half - len(self.head) if self.keep_tail else self.limit + 1 - len(self.head)
            if room > 0:
                self.head += chunk[:room]
                chunk = chunk[room:]
            if self.keep_tail and chunk:
                self.tail = (self.tail + chunk)[-half:]

    def join(self, timeout: float) -> None:
        self._thread.join(timeout)

    @property
    def over(self) -> bool:
        return self.total > self.limit

    def text(self) -> str:
        if not self.over:
            return bytes(self.head + self.tail).decode("utf-8", "replace")
        cut = self.total - len(self.head) - len(self.tail)
        middle = f"\n... ({cut} bytes of the log left out) ...\n"
        return (bytes(self.head) + middle.encode() + bytes(self.tail)).decode("utf-8", "replace")


def _plan(language: Language) -> str:
    steps = [
        {"argv": list(step.argv), "sources": list(step.sources), "optional": step.optional}
        for step in language.steps
    ]
    environment = {
        # The sandbox's own PATH, and the caches the compilers want, in /tmp.
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": "/tmp",
        "TMPDIR": "/tmp",
        **dict(language.environment),
    }
    return json.dumps(
        {
            "steps": steps,
            "produces": language.produces,
            "cargo_binary": language.cargo_binary,
            "discard": list(language.discard),
            "environment": environment,
        }
    )


def _kill(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)


def build_bot(
    folder: Path,
    language: Language,
    limits: BuildLimits | None = None,
    *,
    stop: threading.Event | None = None,
) -> BuildResult:
    """Build the unpacked bot in ``folder`` as ``language``, in a sandbox.

    Blocking (run it off an event loop).  ``folder`` is only read.  Setting ``stop``
    (from another thread) kills the build at once: it fails, saying it was stopped.

    Raises:
        SandboxError: no sandbox can be made here.
    """
    limits = limits or BuildLimits()
    # The launcher's arguments after the folders: the plan (a JSON document of ours).
    program = Program((_plan(language),), sandbox=limits.policy(), files=str(folder))
    argv, options, release = prepare(program, _BUILD_LAUNCHER)
    started = time.monotonic()
    timed_out = stopped = False
    try:
        process = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            **options,
        )
        assert process.stdout is not None and process.stderr is not None
        output = _Capped(process.stdout, limits.output_bytes, keep_tail=False)
        log = _Capped(process.stderr, limits.log_bytes, keep_tail=True)
        deadline = started + limits.seconds
        while process.poll() is None:
            if output.over:
                break
            if time.monotonic() >= deadline:
                timed_out = True
                break
            if stop is not None and stop.is_set():
                stopped = True
                break
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=0.2)
        if process.poll() is None:
            _kill(process)
        process.wait()
        output.join(30.0)
        log.join(30.0)
        process.stdout.close()
        process.stderr.close()
        verdict = release.verdict
    finally:
        release()
    seconds = time.monotonic() - started
    text = log.text()
    if stopped:
        return BuildResult("failed", language.name, text, STOPPED, seconds=seconds)
    result = _outcome(process.returncode, timed_out, output.over, verdict, language, limits, text)
    if result is not None:
        return BuildResult("failed", language.name, text, result, seconds=seconds)
    return BuildResult("ready", language.name, text, archive=bytes(output.head), seconds=seconds)


def _outcome(
    code: int,
    timed_out: bool,
    too_big: bool,
    verdict: str | None,
    language: Language,
    limits: BuildLimits,
    log: str,
) -> str | None:
    """Why the build failed, in one line (``None``: it did not)."""
    if timed_out:
        return f"the build ran past its time limit of {limits.seconds:g} s and was stopped"
    if too_big:
        return (
            f"the built bot is larger than {limits.output_bytes // _MiB} MiB compressed "
            "(remove what it does not need to run)"
        )
    if verdict is not None:
        return f"the build was stopped: {verdict.removeprefix('killed: ')}"
    if code == 0:
        return None
    last = _last_step(log)
    if code == _build.STEP_FAILED:
        hint = ""
        # Cargo's own words when a dependency is missing offline (its command line in the
        # log says --offline too: the hint needs this sentence).
        if language.name == "rust" and "you're using offline mode" in log:
            hint = " (builds have no network: a crate's dependencies cannot be fetched)"
        return f"{last} failed{hint}; the log says why"
    if code == _build.NO_OUTPUT:
        return (
            f"the {language.label} build did not make "
            f"{language.produces or 'the file the bot runs'}; the log says why"
        )
    if code == _build.COPY_FAILED:
        return f"the bot's files do not fit its build folder ({limits.folder_bytes // _MiB} MiB)"
    if code < 0:
        return f"the build was killed by signal {-code}"
    return f"the build failed (status {code}); the log says why"


def _last_step(log: str) -> str:
    """The last command the log shows (``$ g++ ...``), shortened for one line."""
    for line in reversed(log.splitlines()):
        if line.startswith("$ "):
            words = line[2:].split()
            name = os.path.basename(words[0]) if words else "a step"
            if name == "bash" and len(words) > 1:
                name = words[1].removeprefix("./")
            return name
    return "the build"
