"""``snakewar replay`` on Halite III ``.hlt`` files: show, and verify against the engine."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
import zstandard
from typer.testing import CliRunner

from snakewar.cli import app
from snakewar.games.halite3.replay.hlt import read_hlt
from snakewar.games.halite3.replay.verify import verify_hlt
from tests.games.halite3.oracle import CONFORMANCE_DIR, MAIN

REPLAYS = sorted((CONFORMANCE_DIR / "replays").glob("*.hlt"))
runner = CliRunner()


@pytest.fixture
def official() -> Path:
    if not REPLAYS:
        pytest.fail(f"no official .hlt replays under {CONFORMANCE_DIR / 'replays'}")
    return next(p for p in REPLAYS if "4p" in p.name)


@pytest.mark.parametrize("path", REPLAYS, ids=[p.stem for p in REPLAYS])
def test_every_official_replay_verifies(path: Path) -> None:
    replay = read_hlt(path)
    report = verify_hlt(replay)
    assert report.ok, report.message
    # Every list in the official order, too (the engine keeps its hash-table order).
    turns = replay.turns_played
    assert report.message == f"OK: {turns} turns, the same map, frames and ranks"


def test_a_replay_in_another_order_verifies_and_says_so(official: Path) -> None:
    """Replays written before the engine kept the official order are the same games."""
    document = json.loads(zstandard.ZstdDecompressor().decompress(official.read_bytes()))
    for frame in document["full_frames"]:
        frame["cells"].sort(key=lambda c: (c["x"], c["y"]))
    report = verify_hlt(read_hlt(json.dumps(document).encode()))
    assert report.ok, report.message
    assert report.message.endswith("(cells or shipwrecks not in the official engine's order)")


def test_show_prints_a_turn_and_the_ranks(official: Path) -> None:
    result = runner.invoke(app, ["replay", str(official), "--turn", "50"])
    assert result.exit_code == 0, result.output
    replay = read_hlt(official)
    lines = result.output.splitlines()
    assert lines[0].startswith("turn 50 ")
    # The map is drawn one character per cell, shipyards as capital letters.
    board = lines[1 : 1 + replay.height]
    assert all(len(row) == replay.width for row in board)
    assert sum(row.count("A") for row in board) == 1
    for player in replay.players:
        assert player.name in result.output
    final = runner.invoke(app, ["replay", str(official), "--no-interactive"])
    assert final.exit_code == 0, final.output
    assert final.output.startswith("final state ")
    winner = replay.players[replay.winner()].name
    assert f"Ranks: 1. {winner} " in final.output


def test_verify_command_passes_and_catches_a_tampered_replay(
    official: Path, tmp_path: Path
) -> None:
    result = runner.invoke(app, ["replay", "verify", str(official)])
    assert result.exit_code == 0 and result.output.startswith("OK: "), result.output
    document = json.loads(zstandard.ZstdDecompressor().decompress(official.read_bytes()))
    document["full_frames"][40]["energy"]["1"] += 1
    tampered = tmp_path / "tampered.hlt"
    tampered.write_text(json.dumps(document))
    result = runner.invoke(app, ["replay", "verify", str(tampered)])
    assert result.exit_code == 1
    assert result.output.startswith("FAILED: turn 40: energy differs"), result.output


def test_unreadable_hlt_is_one_error_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.hlt"
    bad.write_bytes(b"\x28\xb5\x2f\xfd" + b"\x00" * 20)
    result = subprocess.run(
        [*MAIN, "replay", str(bad)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: ")
    assert "bad.hlt" in result.stderr
