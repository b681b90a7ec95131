"""Official ``.hlt`` replays: ours against the official engine's, and the reader's checks.

Every conformance game is played again through :class:`HaliteGame` from its recorded
command lines; the replay document built from it must equal the official engine's
replay of the same game field by field, every list in order (those the engine fills
from its hash tables too: the ``cells`` of every frame, the order of ``shipwreck``
events and ``halite_per_dropoff``).  The only exception: ``game_statistics.execution_time``
is the engine's wall time, not a game fact.

Object key order needs no exception: the engine writes keys sorted (``std::map``),
and so does :func:`write_hlt`.
"""

from __future__ import annotations

import json
import os
import subprocess
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
import zstandard

from snakewar.errors import SnakewarError
from snakewar.games.halite3 import HaliteGame
from snakewar.games.halite3.replay.hlt import (
    DEFAULT_LEVEL,
    MAX_COMPRESSED_BYTES,
    MAX_JSON_BYTES,
    HltDropoff,
    HltReplay,
    HltReplayError,
    encode_hlt,
    read_hlt,
    replay_document,
    replay_filename,
    write_hlt,
)
from snakewar.games.halite3.testing.conformance import read_oracle
from snakewar.replay import ReplayError
from tests.conformance_data import require
from tests.games.halite3.oracle import CONFORMANCE_DIR
from tests.system_tools import tool

GAME_FILES = sorted((CONFORMANCE_DIR / "games").glob("*.jsonl.gz"))


@pytest.fixture(scope="module")
def game_files() -> list[Path]:
    require(GAME_FILES, f"Halite III conformance games under {CONFORMANCE_DIR / 'games'}")
    return GAME_FILES


class Played:
    """One conformance game: the oracle records, our game and both replay documents."""

    def __init__(self, path: Path) -> None:
        self.header, self.turns, self.result = read_oracle(path)
        h = self.header
        self.game_id: str = h["game_id"]
        self.game = HaliteGame.create(
            h["seed"], h["num_players"], width=h["width"], height=h["height"]
        )
        for rec in self.turns:
            self.game.step({int(k): v for k, v in rec["commands"].items()})
        self.names = [p["name"] for p in h["players"]]
        self.document = replay_document(self.game, self.names)
        self.official_path = CONFORMANCE_DIR / "replays" / f"{self.game_id}.hlt"
        self.official_text = zstandard.ZstdDecompressor().decompress(
            self.official_path.read_bytes()
        )
        self.official: dict[str, Any] = json.loads(self.official_text)


@pytest.fixture(scope="module")
def played(game_files: list[Path]) -> list[Played]:
    return [Played(p) for p in game_files]


@pytest.fixture(scope="module")
def official(played: list[Played]) -> list[HltReplay]:
    """The official replays as read by :func:`read_hlt` (in the order of ``played``)."""
    return [read_hlt(p.official_path) for p in played]


@pytest.fixture(scope="module")
def small(played: list[Played]) -> Played:
    """A short game with a kill (fast to write and read many times)."""
    return min(played, key=lambda p: len(p.turns))


@pytest.fixture(scope="module")
def largest(played: list[Played]) -> Played:
    return max(played, key=lambda p: (p.header["width"], p.header["num_players"], len(p.turns)))


# -- ours against the official replays ------------------------------------------------


def _top(document: dict[str, Any]) -> dict[str, Any]:
    stats = document["game_statistics"]
    return {
        **{k: v for k, v in document.items() if k != "full_frames"},
        "game_statistics": {k: v for k, v in stats.items() if k != "execution_time"},
    }


def test_replay_documents_equal_the_official_engines(played: list[Played]) -> None:
    for p in played:
        ours, theirs = p.document, p.official
        assert list(ours) == list(theirs), p.game_id
        assert _top(ours) == _top(theirs), p.game_id
        assert len(ours["full_frames"]) == len(theirs["full_frames"]) == len(p.turns) + 2
        for t, (a, b) in enumerate(zip(ours["full_frames"], theirs["full_frames"], strict=True)):
            # Lists in order: cells and shipwrecks come in the engine's hash-table order.
            assert a == b, f"{p.game_id} frame {t}"
            # Objects keep the engine's (sorted) key order, down to the ship ids.
            assert list(a) == list(b)
            assert {k: list(v) for k, v in a["entities"].items()} == {
                k: list(v) for k, v in b["entities"].items()
            }, f"{p.game_id} frame {t}"


def test_every_field_the_engine_orders_deterministically_matches_in_order(
    played: list[Played],
) -> None:
    """Moves, non-shipwreck events, player statistics and the map keep the engine's order."""
    for p in played:
        frames = zip(p.document["full_frames"], p.official["full_frames"], strict=True)
        for t, (a, b) in enumerate(frames):
            assert a["moves"] == b["moves"], f"{p.game_id} frame {t}"
            assert [e for e in a["events"] if e["type"] != "shipwreck"] == [
                e for e in b["events"] if e["type"] != "shipwreck"
            ]
            assert [e["type"] for e in a["events"]] == [e["type"] for e in b["events"]]
        assert p.document["production_map"] == p.official["production_map"]
        assert p.document["GAME_CONSTANTS"] == p.official["GAME_CONSTANTS"]
        ours = p.document["game_statistics"]["player_statistics"]
        theirs = p.official["game_statistics"]["player_statistics"]
        assert [s["player_id"] for s in ours] == [s["player_id"] for s in theirs]


def test_the_official_file_is_compact_key_sorted_json_like_ours(
    small: Played, largest: Played
) -> None:
    for p in (small, largest):
        assert p.official_text == json.dumps(
            p.official, sort_keys=True, separators=(",", ":")
        ).encode("utf-8")
        assert encode_hlt(p.document, compress=False) == json.dumps(
            p.document, sort_keys=True, separators=(",", ":")
        ).encode("utf-8")


def test_execution_time_is_recorded(small: Played) -> None:
    doc = replay_document(small.game, small.names, execution_time_ms=1234)
    assert doc["game_statistics"]["execution_time"] == 1234
    assert replay_document(small.game, small.names)["game_statistics"]["execution_time"] == 0


# -- reading the official replays ----------------------------------------------------------


def test_read_hlt_reads_every_official_replay_and_its_helpers_match_the_oracle(
    played: list[Played], official: list[HltReplay]
) -> None:
    for p, replay in zip(played, official, strict=True):
        h, result = p.header, p.result
        assert replay.source == str(p.official_path)
        assert (replay.seed, replay.width, replay.height, replay.num_players) == (
            h["seed"],
            h["width"],
            h["height"],
            h["num_players"],
        )
        assert replay.engine_version == "1.2.2.finals"
        assert replay.replay_file_version == 3
        assert [(pl.id, pl.name, list(pl.factory)) for pl in replay.players] == [
            (pl["id"], pl["name"], pl["shipyard"]) for pl in h["players"]
        ]
        assert replay.constants == h["constants"]
        assert replay.initial_grid == h["initial_halite"]
        assert replay.map_total_halite == h["map_total_halite"]
        assert replay.number_turns == result["number_turns_engine"]
        assert replay.turns_played == result["turns_played"] == len(p.turns)
        assert list(replay.ranks) == result["ranks"]
        assert replay.winner() == result["ranks"].index(1)
        assert [dict(s) for s in replay.statistics] == result["player_statistics"]
        assert replay.execution_time_ms > 0
        assert replay.energy_at(0) == (h["constants"]["INITIAL_ENERGY"],) * h["num_players"]
        assert replay.grid_at(0) == h["initial_halite"]
        assert replay.dropoffs_at(0) == []
        for rec in p.turns:
            t = rec["t"]
            grid = replay.grid_at(t)
            assert sum(map(sum, grid)) == rec["halite_left"], f"{p.game_id} turn {t}"
            assert [[d.id, d.owner, d.x, d.y] for d in replay.dropoffs_at(t)] == rec["dropoffs"]
            assert list(replay.energy_at(t)) == rec["energy"]
            assert list(replay.deposited_at(t)) == rec["deposited"]
            # The ships after turn t are those at the start of turn t+1 (frame t+1).
            ships = replay.ships_at(t + 1)
            assert [[s.id, s.owner, s.x, s.y, s.halite] for s in ships.values()] == rec["ships"]
        last = len(p.turns) + 1
        final = replay.ships_at(last)
        assert sorted(s.id for s in final.values() if s.inspired) == result["final_inspired"]
        assert replay.grid_at(len(p.turns)) == p.game.grid()


def test_ships_at_reads_the_start_of_turn_inspiration(
    played: list[Played], official: list[HltReplay]
) -> None:
    seen = 0
    for p, replay in zip(played, official, strict=True):
        for rec in p.turns:
            inspired = sorted(s.id for s in replay.ships_at(rec["t"]).values() if s.inspired)
            assert inspired == rec["inspired_at_start"]
            seen += len(inspired)
    assert seen > 0


def test_grid_at_walks_backwards_and_forwards(largest: Played) -> None:
    replay = read_hlt(largest.official_path)
    late = replay.grid_at(300)
    early = replay.grid_at(10)
    fresh = read_hlt(largest.official_path)
    assert fresh.grid_at(10) == early
    assert fresh.grid_at(300) == late
    assert late != early
    # A returned grid is a copy: changing it does not change the replay.
    early[0][0] += 1
    assert replay.grid_at(10)[0][0] == early[0][0] - 1


def test_dropoff_ids_follow_the_construct_events(official: list[HltReplay]) -> None:
    built: list[HltDropoff] = []
    for replay in official:
        dropoffs = replay.dropoffs_at(replay.turns_played + 1)
        assert [d.id for d in dropoffs] == list(range(len(dropoffs)))
        built.extend(dropoffs)
    assert len(built) > 5


def test_turns_out_of_range_are_refused(small: Played) -> None:
    replay = read_hlt(small.official_path)
    last = replay.turns_played + 1
    assert replay.ships_at(last) is not None
    for bad in (-1, last + 1):
        with pytest.raises(
            HltReplayError, match=rf"turn {bad} is out of range, expected 0\.\.{last}"
        ):
            replay.grid_at(bad)
        with pytest.raises(HltReplayError, match="out of range"):
            replay.ships_at(bad)


# -- writing and reading back ---------------------------------------------------------


def test_round_trip_compressed_and_plain(small: Played, tmp_path: Path) -> None:
    doc = small.document
    packed = write_hlt(doc, tmp_path / "a.hlt")
    plain = write_hlt(doc, tmp_path / "b.hlt", compress=False)
    assert packed.read_bytes()[:4] == b"\x28\xb5\x2f\xfd"
    assert plain.read_bytes()[:1] == b"{"
    assert json.loads(plain.read_bytes()) == doc
    for path in (packed, plain):
        replay = read_hlt(path)
        assert isinstance(replay, HltReplay)
        assert replay.document == doc
        assert replay.winner() == small.result["ranks"].index(1)
        assert replay.frames == doc["full_frames"]
    assert read_hlt(packed.read_bytes()).document == doc
    assert read_hlt(plain.read_bytes()).source == "replay"
    # Nothing but the target is left in the folder (the temporary file was renamed).
    assert sorted(os.listdir(tmp_path)) == ["a.hlt", "b.hlt"]


def test_written_file_decompresses_with_zstandard_at_any_level(small: Played) -> None:
    plain = encode_hlt(small.document, compress=False)
    for level in (1, DEFAULT_LEVEL, 22):
        packed = encode_hlt(small.document, level=level)
        assert zstandard.frame_content_size(packed) == len(plain)
        assert zstandard.ZstdDecompressor().decompress(packed) == plain
    assert len(encode_hlt(small.document, level=22)) < len(encode_hlt(small.document, level=1))


def test_written_file_decompresses_with_the_zstd_cli(small: Played, tmp_path: Path) -> None:
    zstd = tool("zstd")
    path = write_hlt(small.document, tmp_path / "r.hlt")
    out = subprocess.run(
        [zstd, "-dc", str(path)], capture_output=True, check=True, timeout=30
    ).stdout
    assert json.loads(out) == small.document


def test_bad_levels_are_refused(small: Played) -> None:
    for level in (0, 23):
        with pytest.raises(
            HltReplayError, match=rf"zstd level {level} is out of range, expected 1\.\.22"
        ):
            encode_hlt(small.document, level=level)


def test_replay_filename_matches_the_engines(played: list[Played]) -> None:
    manifest = json.loads((CONFORMANCE_DIR / "manifest.json").read_text())
    entries = manifest if isinstance(manifest, list) else manifest["games"]
    entry = next(e for e in entries if e["game_id"] == played[0].game_id)
    name = entry["engine_original_replay_name"]
    stamp = datetime.strptime(name.split("-")[1] + name.split("-")[2][:6], "%Y%m%d%H%M%S")
    h = played[0].header
    when = stamp.replace(tzinfo=UTC)
    assert replay_filename(h["seed"], h["width"], h["height"], when) == name
    india = datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone(timedelta(hours=5, minutes=30)))
    assert replay_filename(7, 40, 48, india) == "replay-20260102-030405+0530-7-40-48.hlt"
    naive = replay_filename(7, 32, 32, datetime(2026, 1, 2, 3, 4, 5))
    assert naive.startswith("replay-20260102-030405") and naive.endswith("-7-32-32.hlt")


def test_replay_document_refuses_unfinished_games_and_wrong_names(small: Played) -> None:
    h = small.header
    game = HaliteGame.create(h["seed"], h["num_players"], width=h["width"], height=h["height"])
    game.step({int(k): v for k, v in small.turns[0]["commands"].items()})
    with pytest.raises(HltReplayError, match=r"the game is not over \(turn 1\)"):
        replay_document(game, small.names)
    with pytest.raises(HltReplayError, match="got 1 player names, expected 2"):
        replay_document(small.game, small.names[:1])


# -- bad input ----------------------------------------------------------------------


def _error(
    source: Any,
    *,
    max_file_bytes: int = MAX_COMPRESSED_BYTES,
    max_json_bytes: int = MAX_JSON_BYTES,
) -> str:
    with pytest.raises(HltReplayError) as info:
        read_hlt(source, max_file_bytes=max_file_bytes, max_json_bytes=max_json_bytes)
    message = str(info.value)
    assert "\n" not in message
    return message


def test_errors_are_snakewar_and_replay_errors() -> None:
    assert issubclass(HltReplayError, ReplayError)
    assert issubclass(HltReplayError, SnakewarError)
    assert issubclass(HltReplayError, ValueError)


def test_garbage_empty_and_missing_files(tmp_path: Path) -> None:
    bad = tmp_path / "bad.hlt"
    bad.write_bytes(b"\x00\x01garbage bytes")
    message = _error(bad)
    assert message.startswith(f"{bad}: not a Halite III replay")
    assert "expected zstd-compressed or plain JSON" in message
    empty = tmp_path / "empty.hlt"
    empty.write_bytes(b"")
    assert _error(empty).startswith(f"{empty}: not a Halite III replay")
    missing = tmp_path / "missing.hlt"
    assert _error(missing).startswith(f"{missing}: cannot read the replay")
    assert _error(b"[1, 2]").startswith("replay: not a Halite III replay")
    assert "not a JSON replay" in _error(b'{"REPLAY_FILE_VERSION": 3,')


def test_truncated_zstd_is_refused(small: Played, tmp_path: Path) -> None:
    packed = encode_hlt(small.document)
    cut = tmp_path / "cut.hlt"
    cut.write_bytes(packed[: len(packed) // 2])
    message = _error(cut)
    assert message.startswith(f"{cut}: truncated or damaged zstd data")
    # Without the size in the frame header the streaming path must notice the cut too.
    plain = encode_hlt(small.document, compress=False)
    unsized = zstandard.ZstdCompressor(level=3, write_content_size=False).compress(plain)
    assert zstandard.frame_content_size(unsized) == -1
    assert read_hlt(unsized).document == small.document
    assert _error(unsized[: len(unsized) // 2]).startswith("replay: truncated zstd data")
    assert "damaged zstd data" in _error(packed[:4] + b"\xff" * 40)


def test_size_caps(small: Played, tmp_path: Path) -> None:
    plain = encode_hlt(small.document, compress=False)
    packed = encode_hlt(small.document)
    path = tmp_path / "r.hlt"
    path.write_bytes(packed)
    message = _error(path, max_json_bytes=1000)
    assert message == f"{path}: decompresses to {len(plain)} bytes, larger than the 1000-byte limit"
    unsized = zstandard.ZstdCompressor(write_content_size=False).compress(plain)
    assert _error(unsized, max_json_bytes=1000) == (
        "replay: decompresses to more than the 1000-byte limit"
    )
    assert "larger than the 1000-byte limit" in _error(plain, max_json_bytes=1000)
    assert _error(path, max_file_bytes=100) == f"{path}: the file is larger than the 100-byte limit"
    assert "larger than the 100-byte limit" in _error(packed, max_file_bytes=100)
    # A small zstd bomb: 64 MiB of zeros in a few kB is refused by the cap.
    bomb = zstandard.ZstdCompressor(write_content_size=False).compress(b"{" + b" " * (64 << 20))
    assert len(bomb) < 100_000
    assert "more than the 1048576-byte limit" in _error(bomb, max_json_bytes=1 << 20)


def _broken(document: dict[str, Any], change: Any) -> bytes:
    doc = json.loads(json.dumps(document))
    change(doc)
    return json.dumps(doc).encode()


def test_wrong_version_missing_keys_and_wrong_types(small: Played) -> None:
    doc = small.document

    def version(d: dict[str, Any]) -> None:
        d["REPLAY_FILE_VERSION"] = 2

    assert _error(_broken(doc, version)) == (
        "replay: REPLAY_FILE_VERSION 2 is not supported, expected 3"
    )
    assert "REPLAY_FILE_VERSION" in _error(b'{"ENGINE_VERSION": "1.2.2.finals"}')

    def no_players(d: dict[str, Any]) -> None:
        del d["players"]

    assert _error(_broken(doc, no_players)) == "replay: the replay lacks the key 'players'"

    def ships_as_list(d: dict[str, Any]) -> None:
        d["full_frames"][3]["entities"]["0"] = []

    assert _error(_broken(doc, ships_as_list)) == (
        "replay: full_frames[3].entities['0'] must be an object, got []"
    )

    def string_cargo(d: dict[str, Any]) -> None:
        owned = d["full_frames"][5]["entities"]["0"]
        ship = next(iter(owned.values()))
        ship["energy"] = "12"

    assert "].energy must be an integer, got '12'" in _error(_broken(doc, string_cargo))

    def cell_off_map(d: dict[str, Any]) -> None:
        d["full_frames"][4]["cells"] = [{"x": 999, "y": 0, "production": 1}]

    message = _error(_broken(doc, cell_off_map))
    assert message.startswith("replay: full_frames[4].cells[0].x must be an integer in 0..")

    def too_few_frames(d: dict[str, Any]) -> None:
        d["full_frames"].pop()

    frames = len(doc["full_frames"])
    assert _error(_broken(doc, too_few_frames)) == (
        f"replay: full_frames must be number_turns + 1 = {frames} frames, got {frames - 1} frames"
    )

    def short_row(d: dict[str, Any]) -> None:
        d["production_map"]["grid"][2].pop()

    width = doc["production_map"]["width"]
    assert _error(_broken(doc, short_row)) == (
        f"replay: production_map.grid[2] must be {width} cells, got {width - 1} cells"
    )

    def no_energy(d: dict[str, Any]) -> None:
        del d["full_frames"][0]["energy"]

    assert _error(_broken(doc, no_energy)) == "replay: full_frames[0] lacks the key 'energy'"

    def bool_seed(d: dict[str, Any]) -> None:
        d["map_generator_seed"] = True

    assert "map_generator_seed must be an integer, got True" in _error(_broken(doc, bool_seed))


def test_an_unfinished_games_document_reads_only_when_asked_for() -> None:
    from tests.conformance_data import SHIPPED_HALITE_REPLAYS

    full = read_hlt(SHIPPED_HALITE_REPLAYS / "public-s100215-32x32-2p.hlt")
    assert full.finished and full.ranks
    # A running game's document: the replay head and frames 0..T (no final, no statistics).
    document = {k: v for k, v in full.document.items() if k != "game_statistics"}
    document["full_frames"] = full.frames[:5]
    text = json.dumps(document).encode()
    with pytest.raises(ReplayError, match="game_statistics"):
        read_hlt(text)  # a replay file must have ended
    so_far = read_hlt(text, unfinished=True)
    assert not so_far.finished and so_far.statistics == () and so_far.ranks == ()
    assert len(so_far.frames) == 5 and so_far.number_turns == 4
    assert so_far.grid_at(4) == full.grid_at(4) and so_far.ships_at(4) == full.ships_at(4)
    # A document with statistics is checked as a finished one even so.
    assert read_hlt(json.dumps(full.document).encode(), unfinished=True).finished
    cases: list[tuple[list[dict[str, Any]], str]] = [
        ([], "full_frames"),
        ([{"cells": []}], "full_frames\\[0\\]"),
    ]
    for frames, needle in cases:
        with pytest.raises(ReplayError, match=needle):
            read_hlt(json.dumps({**document, "full_frames": frames}).encode(), unfinished=True)
