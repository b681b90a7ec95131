"""Issue 31, H3: every replay decoder is bounded before it allocates, off the event loop.

The probe's bomb: 2.8 KB of zstd that decompress to 31 MiB of ``{},``, which
``json.loads`` made 900 MiB of; 8 at once took 5.1 GB.  Now the JSON's elements are
counted before it is parsed (:func:`~snakewar.games.halite3.replay.hlt.json_elements`), and every
replay the server reads is read in a few memory-capped worker processes
(:class:`~snakewar.server.decoding.DecoderPool`).  The server's peak memory under 8
bombs is measured by ``benchmarks/decode_bombs.py``; these tests check the bounds
themselves (what is refused, and how much a refusal holds), never a speed.
"""

from __future__ import annotations

import asyncio
import json
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import zstandard
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st

from snakewar.games.halite3.adapter import read_checked_hlt
from snakewar.games.halite3.decoding import (
    MAX_DOCUMENT_BYTES,
    MAX_DOCUMENT_ELEMENTS,
    MAX_UPLOAD_BYTES,
    decode_document,
)
from snakewar.games.halite3.replay.hlt import (
    HltTooLargeError,
    json_elements,
    read_hlt,
)
from snakewar.replay import ReplayError
from snakewar.server import ServerConfig, create_app
from snakewar.server.decoding import DecoderBusyError, DecoderPool
from snakewar.storage import MAX_REPLAY_BYTES
from tests.asgi_server import serve
from tests.conformance_data import SHIPPED_HALITE_REPLAYS
from tests.server import decoder_jobs

SMALL = SHIPPED_HALITE_REPLAYS / "public-s100215-32x32-2p.hlt"


def h3_bomb(mib: int = 31, *, sized: bool = True) -> bytes:
    """The probe's bomb: ``[{},{},...]``, ``mib`` MiB of it, in about 2.8 KB of zstd."""
    text = b"[" + b"{}," * ((mib << 20) // 3) + b"{}]"
    return bytes(zstandard.ZstdCompressor(level=19, write_content_size=sized).compress(text))


def compact(path: Path) -> bytes:
    raw = zstandard.ZstdDecompressor().decompress(path.read_bytes(), max_output_size=1 << 28)
    return json.dumps(json.loads(raw), ensure_ascii=False, separators=(",", ":")).encode()


# -- the caps --------------------------------------------------------------------------------


@pytest.mark.parametrize("sized", [True, False], ids=["size-in-header", "no-size"])
def test_the_h3_bomb_is_refused_by_its_elements_before_it_is_parsed(sized: bool) -> None:
    bomb = h3_bomb(sized=sized)
    assert len(bomb) < 3000
    tracemalloc.start()
    try:
        with pytest.raises(HltTooLargeError) as info:
            read_hlt(bomb, max_json_bytes=MAX_DOCUMENT_BYTES, max_elements=MAX_DOCUMENT_ELEMENTS)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    objects = (31 << 20) // 3 + 1
    assert str(info.value) == (
        f"replay: the JSON may hold {2 * objects + 1} keys and values, more than the "
        f"{MAX_DOCUMENT_ELEMENTS}-element limit"
    )
    # The text itself (31 MiB, and one piece of it while it grows), never the objects:
    # parsed, it took 900 MiB.
    assert peak < 80 << 20, peak


def test_the_caps_stand_where_the_docs_say() -> None:
    assert MAX_UPLOAD_BYTES == MAX_REPLAY_BYTES == 32 << 20
    assert MAX_DOCUMENT_BYTES == 32 << 20
    # About 64 bytes of Python objects per element at most: a parse stays near 200 MiB.
    assert MAX_DOCUMENT_ELEMENTS * 64 < 200 << 20


def test_every_shipped_replay_reads_within_the_caps_with_room() -> None:
    replays = sorted(SHIPPED_HALITE_REPLAYS.glob("*.hlt"))
    assert len(replays) >= 20
    for path in replays:
        text = zstandard.ZstdDecompressor().decompress(path.read_bytes(), max_output_size=1 << 28)
        assert json_elements(text) * 5 < MAX_DOCUMENT_ELEMENTS, path.name
        replay = read_checked_hlt(
            path.read_bytes(),
            max_document_bytes=MAX_DOCUMENT_BYTES,
            max_elements=MAX_DOCUMENT_ELEMENTS,
        )
        assert replay.document == json.loads(text)


def test_an_element_cap_names_itself_and_the_count() -> None:
    text = json.dumps({"a": [1, 2, 3], "b": {"c": None}}).encode()
    # The object, its keys a and b, the list and its 3 numbers, the inner object, c, null.
    assert json_elements(text) == count_elements(json.loads(text)) == 10
    with pytest.raises(HltTooLargeError, match=r"may hold 10 keys and values, more than the 5-"):
        read_hlt(text, max_elements=5)


def count_elements(value: Any) -> int:
    """The keys and values ``json.loads`` builds for ``value`` (itself included)."""
    if isinstance(value, dict):
        return 1 + sum(1 + count_elements(v) for v in value.values())
    if isinstance(value, list):
        return 1 + sum(count_elements(v) for v in value)
    return 1


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner),
    max_leaves=40,
)


@settings(max_examples=300, deadline=None)
@given(JSON_VALUES, st.sampled_from([None, 1, 2]))
def test_json_elements_bounds_what_json_loads_builds(value: Any, indent: int | None) -> None:
    text = json.dumps(value, indent=indent).encode()
    assert count_elements(json.loads(text)) <= json_elements(text)


def test_an_unsized_zstd_stream_is_cut_within_a_piece_of_its_cap() -> None:
    # RLE blocks: the most a zstd byte can expand to (128 KiB per 4 bytes).
    zeros = zstandard.ZstdCompressor(level=1, write_content_size=False).compress(b" " * (256 << 20))
    tracemalloc.start()
    try:
        with pytest.raises(HltTooLargeError, match="more than the 1048576-byte limit"):
            read_hlt(b"\x28\xb5\x2f\xfd" + zeros[4:], max_json_bytes=1 << 20)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # The cap, and at most one piece past it (8 MiB: 256 input bytes of RLE blocks).
    assert peak < (1 << 20) + (8 << 20) + (1 << 20), peak


# -- the pool --------------------------------------------------------------------------------


def run(coroutine: Any) -> Any:
    return asyncio.run(coroutine)


def test_a_worker_reads_a_replay_and_answers_its_document() -> None:
    async def go() -> bytes:
        pool = DecoderPool(1)
        try:
            text: bytes = await pool.run(decode_document, SMALL.read_bytes())
            return text
        finally:
            pool.close()

    assert run(go()) == compact(SMALL)


def test_a_full_pool_refuses_at_once_and_a_waiting_file_gives_up(tmp_path: Path) -> None:
    gate = tmp_path / "gate"

    async def go() -> None:
        pool = DecoderPool(1, waiting=1, wait_s=0.5)
        try:
            first = asyncio.ensure_future(pool.run(decoder_jobs.wait_for, str(gate)))
            while pool.running == 0:
                await asyncio.sleep(0.01)
            # One waits (and gives up after wait_s); a third is refused without waiting.
            second = asyncio.ensure_future(pool.run(decoder_jobs.wait_for, str(gate)))
            await asyncio.sleep(0)
            with pytest.raises(DecoderBusyError, match="reading 1 replays and 1 more wait"):
                await pool.run(decoder_jobs.wait_for, str(gate))
            with pytest.raises(DecoderBusyError, match="try again in a few seconds"):
                await second
            assert not first.done()
            gate.touch()
            assert await first == "released"
            assert await pool.run(decoder_jobs.wait_for, str(gate)) == "released"
        finally:
            gate.touch()
            pool.close()

    run(go())


def test_a_slot_is_held_until_its_file_is_done_even_when_its_client_left(tmp_path: Path) -> None:
    gate = tmp_path / "gate"

    async def go() -> None:
        pool = DecoderPool(1, waiting=0)
        try:
            first = asyncio.ensure_future(pool.run(decoder_jobs.wait_for, str(gate)))
            while pool.running == 0:
                await asyncio.sleep(0.01)
            first.cancel()  # the request is gone; its file is still being read
            with pytest.raises(asyncio.CancelledError):
                await first
            assert pool.running == 1
            with pytest.raises(DecoderBusyError):
                await pool.run(decoder_jobs.wait_for, str(gate))
            gate.touch()
            deadline = time.monotonic() + 120
            while pool.running and time.monotonic() < deadline:
                await asyncio.sleep(0.02)
            assert pool.running == 0
        finally:
            gate.touch()
            pool.close()

    run(go())


def test_a_worker_past_its_memory_cap_answers_413_and_the_pool_reads_on() -> None:
    # Within both caps (10 MiB, 3 million elements) but ~250 MiB once parsed.
    text = b"[" + b",".join([b'{"a":0}'] * (MAX_DOCUMENT_ELEMENTS // 3 - 1)) + b"]"
    assert len(text) < MAX_DOCUMENT_BYTES and json_elements(text) <= MAX_DOCUMENT_ELEMENTS
    big = bytes(zstandard.ZstdCompressor().compress(text))

    async def go() -> None:
        pool = DecoderPool(1, memory_bytes=200 << 20)
        try:
            with pytest.raises(MemoryError):
                await pool.run(decoder_jobs.allocate, 512)
            with pytest.raises(HltTooLargeError, match="needs more memory than the server"):
                await pool.run(decode_document, big)
            assert await pool.run(decode_document, SMALL.read_bytes()) == compact(SMALL)
        finally:
            pool.close()

    run(go())


def test_a_killed_worker_is_a_400_and_a_fresh_pool_reads_on() -> None:
    async def go() -> None:
        pool = DecoderPool(1)
        try:
            # The pool is every game's: its own failure is a replay error of no game.
            with pytest.raises(ReplayError, match="the process reading it stopped") as stopped:
                await pool.run(decoder_jobs.die)
            assert type(stopped.value) is ReplayError
            # The dead worker's slot is given back, and a new process reads the next file.
            assert await pool.run(decode_document, SMALL.read_bytes()) == compact(SMALL)
            assert await pool.run(decode_document, SMALL.read_bytes()) == compact(SMALL)
        finally:
            pool.close()

    run(go())


def test_a_closed_pool_refuses() -> None:
    async def go() -> None:
        pool = DecoderPool(1)
        pool.close()
        with pytest.raises(DecoderBusyError, match="the server is stopping"):
            await pool.run(decode_document, SMALL.read_bytes())

    run(go())


# -- the routes ------------------------------------------------------------------------------


@pytest.fixture
def server() -> Iterator[str]:
    with serve(create_app(ServerConfig(database_url="memory")), lifespan="on") as base:
        yield base


def test_eight_bombs_at_once_are_refused_and_the_server_reads_on(server: str) -> None:
    bomb = h3_bomb()

    async def go() -> list[httpx.Response]:
        limits = httpx.Limits(max_connections=16)
        async with httpx.AsyncClient(base_url=server, timeout=300, limits=limits) as http:
            return await asyncio.gather(
                *(http.post("/api/halite/decode", content=bomb) for _ in range(8))
            )

    answers = asyncio.run(go())
    # Two are read at once and six wait: all eight are read, unless the machine is so
    # slow that one waited past its 10 s (then it is a 429, never a 500).
    assert all(a.status_code in (413, 429) for a in answers), [a.text for a in answers]
    read = [a for a in answers if a.status_code == 413]
    assert len(read) >= 2
    for answer in read:
        assert "more than the 3000000-element limit" in answer.json()["detail"]
    deadline = time.monotonic() + 120
    while True:
        after = httpx.post(f"{server}/api/halite/decode", content=SMALL.read_bytes(), timeout=300)
        if after.status_code != 429 or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert after.status_code == 200 and after.content == compact(SMALL)


def test_stored_replays_are_read_in_the_pool_and_cached() -> None:
    with TestClient(
        create_app(ServerConfig(database_url="memory")), base_url="http://localhost"
    ) as client:
        created = client.post("/api/halite/games", content=SMALL.read_bytes())
        assert created.status_code == 201
        game_id = created.json()["id"]
        decoders = client.app.state.decoders  # type: ignore[attr-defined]
        replay = f"/api/halite/games/{game_id}/replay"
        assert client.get(replay).json() == json.loads(compact(SMALL))
        # A cached document is served without a worker: a closed pool cannot read one.
        decoders.close()
        assert client.get(replay).json() == json.loads(compact(SMALL))
        assert client.post("/api/halite/decode", content=SMALL.read_bytes()).status_code == 429
