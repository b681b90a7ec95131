"""The Halite viewer's pure parts under Node: camera, palettes, what the inspector reads.

``js/view.test.mjs`` is run by ``node --test`` on an official replay, with the answers
the inspector must give for one ship and its cell computed here from the replay
document, independently of the viewer's code; the browser tests drive the DOM parts.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conformance_data import SHIPPED_HALITE_REPLAYS

JS = Path(__file__).resolve().parent / "js"
"""The Node test files of this folder."""

TURN = 30
"""The turn the inspector is asked about (ships are out, some carrying halite)."""


def document() -> dict[str, Any]:
    """An official replay's document (2 players, 76 turns), as the server decodes it."""
    import zstandard

    raw = (SHIPPED_HALITE_REPLAYS / "public-s100208-32x32-2p.hlt").read_bytes()
    decoded: dict[str, Any] = json.loads(
        zstandard.ZstdDecompressor().decompress(raw, max_output_size=1 << 26)
    )
    return decoded


def halite_at(doc: dict[str, Any], turn: int, x: int, y: int) -> int:
    """Cell (x, y)'s halite at frame ``turn``: the initial map with frames 1..turn's changes."""
    energy = int(doc["production_map"]["grid"][y][x]["energy"])
    for frame in doc["full_frames"][1 : turn + 1]:
        for cell in frame.get("cells", []):
            if (cell["x"], cell["y"]) == (x, y):
                energy = int(cell["production"])
    return energy


def structure_at(doc: dict[str, Any], turn: int, x: int, y: int) -> dict[str, Any] | None:
    for pid, player in enumerate(doc["players"]):
        if (player["factory_location"]["x"], player["factory_location"]["y"]) == (x, y):
            return {"kind": "shipyard", "owner": pid}
    for frame in doc["full_frames"][: turn + 1]:
        for event in frame.get("events", []):
            where = event.get("location", {})
            if event["type"] == "construct" and (where.get("x"), where.get("y")) == (x, y):
                return {"kind": "dropoff", "owner": event["owner_id"]}
    return None


def expected(doc: dict[str, Any]) -> dict[str, Any]:
    # The ship carrying the most halite at TURN (ties: the lowest id).
    ships = [
        {"id": int(sid), "owner": int(pid), "x": s["x"], "y": s["y"], "cargo": s["energy"],
         "inspired": s["is_inspired"]}
        for pid, entities in doc["full_frames"][TURN]["entities"].items()
        for sid, s in entities.items()
    ]  # fmt: skip
    ship = max(ships, key=lambda s: (s["cargo"], -s["id"]))
    assert ship["cargo"] > 0
    yard = doc["players"][1]["factory_location"]
    return {
        "turn": TURN,
        "ship": ship,
        "shipCellHalite": halite_at(doc, TURN, ship["x"], ship["y"]),
        "shipCellStructure": structure_at(doc, TURN, ship["x"], ship["y"]),
        "yard": {"x": yard["x"], "y": yard["y"], "owner": 1},
    }


def test_the_viewers_camera_palettes_and_inspector_under_node(
    node_test: Callable[..., int],
) -> None:
    doc = document()
    assert node_test(JS / "view.test.mjs", {"doc": doc, "expected": expected(doc)}) == 5


def snapshot_document() -> tuple[dict[str, Any], dict[str, Any]]:
    """The replay of a game started from a snapshot (two ships with cargo, a dropoff).

    Returns the document and what turn 0 must show, taken from the snapshot.
    """
    from snakewar.games.halite3 import HaliteGame
    from snakewar.games.halite3.replay.hlt import replay_document
    from snakewar.games.halite3.rules.snapshot import (
        game_from_snapshot,
        parse_snapshot,
        write_snapshot,
    )

    first = HaliteGame.create(5, 2, width=32, height=32)
    first.step({0: "g", 1: "g"})
    # Off the shipyards, then two turns of mining: cargo.
    first.step({s.owner: f"m {s.id} n" for s in first.ships.values()})
    for _ in range(2):
        first.step({0: "", 1: ""})
    snap = parse_snapshot(write_snapshot(first, 2))
    snap.players[1].dropoffs.append((0, 3, 3))
    game = game_from_snapshot(snap, 2, turn_limit=3)
    while not game.over:
        game.step({0: "", 1: ""})
    doc = replay_document(game, ["a", "b"])
    ships: list[dict[str, Any]] = []
    for pid in (0, 1):
        for _, x, y, cargo in snap.players[pid].ships:
            ships.append(
                {"id": len(ships), "owner": pid, "x": x, "y": y, "cargo": cargo, "inspired": False}
            )
    assert len(ships) == 2 and all(s["cargo"] > 0 for s in ships)
    spots = [(s["x"], s["y"]) for s in ships] + [(3, 3), (0, 0), (31, 31)]
    cells = [{"x": x, "y": y, "halite": snap.cells[y * 32 + x]} for x, y in spots]
    # The snapshot's halite is not the generated map's (production_map) on these cells.
    assert any(
        c["halite"] != doc["production_map"]["grid"][c["y"]][c["x"]]["energy"] for c in cells
    )
    players = [
        {
            "energy": snap.players[pid].energy,
            "deposited": 0,
            "ships": sum(1 for s in ships if s["owner"] == pid),
            "carrying": sum(s["cargo"] for s in ships if s["owner"] == pid),
        }
        for pid in (0, 1)
    ]
    expected = {
        "ships": ships,
        "dropoffs": [{"owner": 1, "x": 3, "y": 3}],
        "cells": cells,
        "players": players,
    }
    return doc, expected


def test_the_viewer_shows_a_snapshot_games_start_under_node(
    node_test: Callable[..., int],
) -> None:
    doc, expected = snapshot_document()
    assert node_test(JS / "snapshot.test.mjs", {"doc": doc, "expected": expected}) == 1
