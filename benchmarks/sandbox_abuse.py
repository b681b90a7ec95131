"""Figures for issue 31, H1: the host's memory and CPU under a bot that tries to take them.

Runs the probe's bot in the sandbox with the server's own policy (``SandboxPolicy()``:
1 GiB for the whole sandbox, 16 MiB of ``/dev/shm``, one core, 64 processes) and prints,
for each attack, what the bot managed, the peak of the sandbox's cgroup, the host's
available memory before and at its lowest while it ran, and how the sandbox ended:

* ``children``: five children of 700 MiB each (3.5 GiB in all, each under the 1 GiB
  a process may map), as in the issue;
* ``shm``: 1.5 GiB written to ``/dev/shm`` in 1 MiB files (each under the 16 MiB file
  size cap), as in the issue;
* ``shm-big``: the same with a ``/dev/shm`` as large as 2 GiB, so that only the
  sandbox's memory (its cgroup) can stop it;
* ``both``: the children and the files at once;
* ``spin``: eight processes spinning: the CPU the sandbox takes (cores) and the CPU
  time it used when it was killed (its policy here gives 5 s).

It also prints the cost of starting a sandboxed bot (to its first line), the cgroup
and the seccomp filter included.  Each bot is a real program in a real sandbox; the
host's memory is read from ``/proc/meminfo`` every 10 ms.

    python3 benchmarks/sandbox_abuse.py [--starts 20]
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import statistics
import tempfile
import threading
import time
from pathlib import Path

from snakewar.referee import cgroups
from snakewar.referee.process import LineStatus, ProcessBot, Program
from snakewar.referee.sandbox import SandboxPolicy, sandbox_available

MiB = 1024 * 1024

CHILDREN = """
import os, time
for i in range(5):
    if os.fork() == 0:
        block = b"\\1" * (700 * 1024 * 1024)
        print("child", i, "holds 700 MiB", flush=True)
        time.sleep(600)
        os._exit(0)
"""

SHM = """
import os
written = 0
try:
    for i in range(1536):
        with open(f"/dev/shm/f{i}", "wb") as out:
            out.write(b"\\1" * (1024 * 1024))
        written += 1
        if written % 64 == 0:
            print("shm", written, "MiB", flush=True)
    print("shm", written, "MiB (all)", flush=True)
except OSError as exc:
    print("shm", written, "MiB, then", exc.strerror, flush=True)
"""

SPIN = """
import os, time
for _ in range(8):
    if os.fork() == 0:
        while True:
            pass
print("spinning", flush=True)
"""

WAIT = "\nimport time\ntime.sleep(600)\n"


def available() -> int:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError("no MemAvailable in /proc/meminfo")


def folder_with(code: str) -> str:
    folder = Path(tempfile.mkdtemp())
    folder.chmod(0o755)
    (folder / "bot.py").write_text(code)
    (folder / "bot.py").chmod(0o644)
    return str(folder)


async def settle() -> None:
    """Wait until the last sandbox's cgroup is gone and the host's memory is back."""
    while cgroups.warden().pending():
        await asyncio.sleep(0.05)
    await asyncio.sleep(2.0)


async def attack(name: str, code: str, policy: SandboxPolicy, silence: float = 15.0) -> None:
    await settle()
    program = Program(("python3", "bot.py"), sandbox=policy, files=folder_with(code + WAIT))
    samples = [available()]
    processes = [0]
    stop = threading.Event()
    bot = await ProcessBot.start(program)
    assert bot.sandbox is not None
    group = bot.sandbox.cgroup

    def sample() -> None:
        while not stop.wait(0.01):
            samples.append(available())
            processes.append(len(group.processes()))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    started = time.monotonic()
    last = ""
    try:
        while True:
            # A bot that is refused (not killed) waits forever: silence ends it.
            reply = await bot.read_line(silence)
            if reply.status is not LineStatus.OK:
                break
            last = reply.line
        wall = time.monotonic() - started
        ended = "killed" if reply.status is LineStatus.EOF else "refused, still running"
        peak, cpu = group.memory_peak(), group.cpu_seconds()
        verdict = bot.sandbox.verdict
    finally:
        stop.set()
        sampler.join()
        await bot.kill()
    drop = (samples[0] - min(samples)) / MiB
    print(
        f"{name:8} last line {last!r}; {ended} after {wall:.1f} s: {verdict or 'no verdict'}\n"
        f"         sandbox cgroup peak {peak / MiB if peak is not None else float('nan'):.0f} MiB "
        f"(cap {policy.total_memory_bytes // MiB} MiB); host available "
        f"{samples[0] / MiB:.0f} MiB before, lowest {min(samples) / MiB:.0f} MiB "
        f"(-{drop:.0f} MiB); CPU {cpu:.2f} s ({cpu / wall:.2f} cores on average); "
        f"{max(processes)} processes at most"
    )


async def start_cost(starts: int) -> None:
    folder = folder_with("print('ready', flush=True)\n")

    async def once(program: Program) -> float:
        started = time.perf_counter()
        bot = await ProcessBot.start(program)
        await bot.read_line(30)
        elapsed = (time.perf_counter() - started) * 1000
        await bot.kill()
        return elapsed

    bare = Program(("/usr/bin/python3", "bot.py"), cwd=folder)
    boxed = Program(("python3", "bot.py"), sandbox=SandboxPolicy(), files=folder)
    plain = [await once(bare) for _ in range(starts)]
    sandboxed = [await once(boxed) for _ in range(starts)]
    print(
        f"bot start to first line: bare {statistics.median(plain):.0f} ms, "
        f"sandboxed {statistics.median(sandboxed):.0f} ms (median of {starts})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--starts", type=int, default=20, help="sandbox starts to time")
    args = parser.parse_args()
    problem = sandbox_available()
    if problem is not None:
        raise SystemExit(f"error: no sandbox here: {problem}")
    place = cgroups.hierarchy()
    assert not isinstance(place, str)
    print(f"sandboxes: {place.describe()}")
    policy = SandboxPolicy()
    print(
        f"policy: {policy.total_memory_bytes // MiB} MiB per sandbox, "
        f"{policy.memory_bytes // MiB} MiB per process, /dev/shm {policy.shm_bytes // MiB} MiB, "
        f"{policy.cpus:g} core, {policy.max_processes} processes, {policy.cpu_seconds} s CPU"
    )
    big_shm = dataclasses.replace(policy, shm_bytes=2048 * MiB)
    spin = dataclasses.replace(policy, cpu_seconds=5)

    async def run_all() -> None:
        await attack("children", CHILDREN, policy)
        await attack("shm", SHM, policy)
        await attack("shm-big", SHM, big_shm)
        await attack("both", CHILDREN + SHM, big_shm)
        await attack("spin", SPIN, spin, silence=300)
        await start_cost(args.starts)

    asyncio.run(run_all())


if __name__ == "__main__":
    main()
