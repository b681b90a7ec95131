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
