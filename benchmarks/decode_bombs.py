"""Peak memory of a server sent replay bombs: 8 at once to ``POST /api/halite/decode``.

The bomb is issue 31's H3: 2.8 KB of zstd that decompress to 31 MiB of ``{},`` (a JSON
list of ten million empty objects, which ``json.loads`` would make ~900 MiB of).
``--shape tuned`` sends instead the costliest file the caps let through: 3 million
elements of ``{"a":0}`` (10 MiB of JSON, ~250 MiB once parsed), which is parsed and
then refused as no replay.  The script starts ``snakewar serve --database memory`` (a
local server: no rate limit, so every bomb reaches the decoder; ``--public`` to go
through the public limits too), sends ``--bombs`` of them in parallel while a probe
asks ``GET /api/catalogue`` every 10 ms, and prints, per server: the answers'
statuses, the resident memory of the server process at rest and at its peak during
the attack (``VmHWM``, reset first), the peak of the server and all its child
processes together (sampled every 10 ms: the decoder workers are children), the worst
probe latency, and whether a real replay still decodes afterwards.
``--compare-src DIR`` runs the same against the server code in ``DIR`` (a ``src``
folder of another checkout, e.g. ``main``'s) first:

    git archive main src | tar -x -C /tmp/base
    python3 benchmarks/decode_bombs.py --compare-src /tmp/base/src
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import httpx
import zstandard

from snakewar.cli.bench import free_port as _free_port

SNAKEWAR = [sys.executable, "-c", "import sys; from snakewar.command import main; sys.exit(main())"]
REPLAYS = Path(__file__).resolve().parents[1] / "tests" / "data" / "halite3" / "public" / "replays"
OWN_SRC = Path(__file__).resolve().parents[1] / "src"


def bomb(mib: int = 31) -> bytes:
    """H3's bomb: ``[{},{},...]``, ``mib`` MiB of it, zstd level 19 (about 2.8 KB)."""
    count = (mib << 20) // 3
    text = b"[" + b"{}," * count + b"{}]"
    return bytes(zstandard.ZstdCompressor(level=19).compress(text))


def tuned_bomb(elements: int = 3_000_000) -> bytes:
    """Just within the caps: ``elements`` keys and values of one-key objects."""
    text = b"[" + b",".join([b'{"a":0}'] * (elements // 3 - 1)) + b"]"
    return bytes(zstandard.ZstdCompressor(level=19).compress(text))


def family_rss(pid: int) -> int:
    """VmRSS of ``pid`` and every descendant, in KiB (0 for a process that just ended)."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(stat.parent.name)] = int(fields[1])
    family, todo = {pid}, [pid]
    while todo:
        parent = todo.pop()
        for child, its_parent in parents.items():
            if its_parent == parent and child not in family:
                family.add(child)
                todo.append(child)
    total = 0
    for member in family:
        try:
            for line in Path(f"/proc/{member}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return total


async def sample_family(pid: int, stop: asyncio.Event) -> int:
    """The largest :func:`family_rss` seen every 10 ms until ``stop``, in MiB."""
    peak = 0
    while not stop.is_set():
        peak = max(peak, await asyncio.to_thread(family_rss, pid))
        await asyncio.sleep(0.01)
    return peak // 1024


def memory(pid: int) -> tuple[int, int]:
    """(VmRSS, VmHWM) of ``pid`` in MiB."""
    fields = dict(
        line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
    )
    return int(fields["VmRSS"].split()[0]) // 1024, int(fields["VmHWM"].split()[0]) // 1024


async def probe(base: str, stop: asyncio.Event) -> float:
    """The worst latency (ms) of a request every 10 ms until ``stop``."""
    worst = 0.0
    async with httpx.AsyncClient(base_url=base, timeout=120) as http:
        while not stop.is_set():
            started = time.perf_counter()
            await http.get("/api/catalogue")
            worst = max(worst, (time.perf_counter() - started) * 1000)
            await asyncio.sleep(0.01)
    return worst


def reset_peak(pid: int) -> bool:
    """Start ``pid``'s ``VmHWM`` afresh (``clear_refs`` 5), so that it shows the attack's
    peak and not the server's start (its imports and migrations peak at ~165 MiB)."""
    try:
        Path(f"/proc/{pid}/clear_refs").write_text("5")
    except OSError:
        return False
    return True


async def attack(base: str, pid: int, data: bytes, bombs: int) -> str:
    fresh = reset_peak(pid)
    rest = memory(pid)[0]
    stop = asyncio.Event()
    prober = asyncio.create_task(probe(base, stop))
    sampler = asyncio.create_task(sample_family(pid, stop))
    await asyncio.sleep(0.2)
    started = time.perf_counter()
    limits = httpx.Limits(max_connections=bombs + 2)
    async with httpx.AsyncClient(base_url=base, timeout=300, limits=limits) as http:

        async def send() -> int:
            reply = await http.post(
                "/api/halite/decode",
                content=data,
                headers={"content-type": "application/octet-stream"},
            )
            return reply.status_code

        codes = await asyncio.gather(*(send() for _ in range(bombs)))
        elapsed = time.perf_counter() - started
        stop.set()
        worst = await prober
        family = await sampler
        rss, peak = memory(pid)
        largest = max(REPLAYS.glob("*.hlt"), key=lambda p: p.stat().st_size)
        after = await http.post("/api/halite/decode", content=largest.read_bytes())
    statuses = ", ".join(f"{n}x {code}" for code, n in sorted(Counter(codes).items()))
    return (
        f"{bombs} bombs ({len(data)} B each): {statuses} in {elapsed:.1f} s; server RSS "
        f"at rest {rest} MiB, peak {peak} MiB (+{peak - rest} MiB"
        f"{'' if fresh else ', its start included'}), after {rss} MiB; "
        f"server and its workers together peak {family} MiB; worst probe {worst:.0f} ms; "
        f"a real replay decodes after: {after.status_code}"
    )


def run(src: Path, data: bytes, bombs: int, public: bool) -> str:
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(src), str(src.parent)])}
    command = [*SNAKEWAR, "serve", "--database", "memory", "--port", str(port)]
    if public:
        command.append("--public")
    server = subprocess.Popen(
        command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(base + "/api/catalogue", timeout=1)
                break
            except httpx.HTTPError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise
                time.sleep(0.1)
        return asyncio.run(attack(base, server.pid, data, bombs))
    finally:
        server.terminate()
        server.wait(30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bombs", type=int, default=8, help="bombs sent at once")
    parser.add_argument("--mib", type=int, default=31, help="the H3 bomb's JSON, in MiB")
    parser.add_argument(
        "--shape", choices=["h3", "tuned"], default="h3", help="the H3 bomb, or one within the caps"
    )
    parser.add_argument("--public", action="store_true", help="serve with --public")
    parser.add_argument("--compare-src", type=Path, help="another checkout's src, run first")
    args = parser.parse_args()
    data = bomb(args.mib) if args.shape == "h3" else tuned_bomb()
    load = os.getloadavg()[0]
    if args.compare_src is not None:
        print(f"{args.compare_src}: {run(args.compare_src, data, args.bombs, args.public)}")
    print(f"this checkout: {run(OWN_SRC, data, args.bombs, args.public)}")
    print(f"(load average {load:.1f} at the start, {os.cpu_count()} CPUs)")


if __name__ == "__main__":
    main()
