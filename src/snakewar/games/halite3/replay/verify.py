"""Play a ``.hlt`` replay again from its seed and moves, and compare every frame.

Works on replays written by Snakewar and by the official engine alike: the map is
generated from ``map_generator_seed`` (so it checks the map generator too), each
turn's recorded moves are fed to :class:`~snakewar.games.halite3.HaliteGame`, and a
player whose moves are missing from a turn is killed that turn, as it was then (a
timeout, a crash or a fatal command error all remove a player the same way).

A game the engine started from a snapshot (``--from-snapshot``) records no snapshot: its
``production_map`` is still the map generated from the seed (checked as for any game),
and frame 0 holds the start, which no other game's has: every cell of the snapshot, a
``construct`` event per dropoff and a ``spawn`` event per ship, the players' energy.
Such a replay is played again from a game started from that frame 0 as the engine starts
one from a snapshot, whose own frame 0 must be the replay's.

Changed cells and shipwrecks are compared as collections: replays Snakewar wrote before
it kept the official engine's hash-table order list them in another order, and are the
same games.  Whether every list also has the official order is said in the message.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from snakewar.games.halite3 import Constants, HaliteGame
from snakewar.games.halite3.replay.hlt import HltReplay
from snakewar.games.halite3.rules.game import HaliteError
from snakewar.games.halite3.rules.snapshot import (
    HaliteSnapshot,
    PlayerSnapshot,
    game_from_snapshot,
)

__all__ = ["HltVerifyReport", "verify_hlt"]


@dataclass(frozen=True, slots=True)
class HltVerifyReport:
    """The outcome of :func:`verify_hlt`: ``ok``, and a one-line ``message``."""

    ok: bool
    message: str
    turns: int


def _serial(move: dict[str, Any]) -> str:
    kind = move.get("type")
    if kind == "g":
        return "g"
    if kind == "m":
        return f"m {move['id']} {move['direction']}"
    if kind == "c":
        return f"c {move['id']}"
    raise ValueError(f"unknown move type {kind!r}")


def _events(events: list[dict[str, Any]]) -> tuple[list[Any], list[Any]]:
    ordered = [e for e in events if e.get("type") != "shipwreck"]
    wrecks = sorted(
        (e["location"]["x"], e["location"]["y"], sorted(e["ships"]))
        for e in events
        if e.get("type") == "shipwreck"
    )
    return ordered, wrecks


def _cells(cells: list[dict[str, Any]]) -> list[tuple[int, int, int]]:
    return sorted((c["x"], c["y"], c["production"]) for c in cells)


def _game_from_frame0(replay: HltReplay, constants: Constants) -> HaliteGame:
    """The game a replay's frame 0 says was started from a snapshot, started again.

    The engine writes no snapshot into the replay: ``production_map`` is the map it
    generated from the seed, frame 0 holds the snapshot's cells, a ``construct`` event per
    dropoff and a ``spawn`` event per ship, the players' energy, and the header players
    their shipyards.  Those make the snapshot again (the players the map had beyond the
    bots are not needed: only the bots' are read).
    """
    first = replay.frames[0]
    grid = replay.grid_at(0)
    energy = replay.energy_at(0)
    players = {p.id: PlayerSnapshot(energy[p.id], p.factory) for p in replay.players}
    for event in first["events"]:
        kind = event["type"]
        if kind not in ("construct", "spawn"):
            raise HaliteError(f"a {kind!r} event in frame 0")
        # read_hlt checked both kinds' fields: an owner among the players, a place on the map.
        loc = event["location"]
        owner = players[event["owner_id"]]
        if kind == "construct":
            owner.dropoffs.append((event["id"], loc["x"], loc["y"]))
        else:
            owner.ships.append((event["id"], loc["x"], loc["y"], event["energy"]))
    snapshot = HaliteSnapshot(
        "fractal",
        replay.width,
        replay.height,
        replay.map_players,
        replay.seed,
        [v for row in grid for v in row],
        players,
    )
    return game_from_snapshot(
        snapshot,
        replay.num_players,
        constants=constants,
        default_size=constants.DEFAULT_MAP_WIDTH,
    )


def verify_hlt(replay: HltReplay) -> HltVerifyReport:
    """Replay ``replay`` through the engine; report the first frame field that differs."""
    constants = dict(replay.constants)
    turns = int(constants.get("MAX_TURNS", 0))
    constants["MIN_TURNS"] = constants["MAX_TURNS"] = turns
    try:
        base = Constants.from_json(constants)
    except Exception as exc:  # a replay's constants are data: report, never raise
        return HltVerifyReport(False, f"the replay's GAME_CONSTANTS cannot be used: {exc}", 0)
    constants_used = dataclasses.replace(base, MIN_TURNS=turns, MAX_TURNS=turns)

    def fail(turn: int, what: str, expected: Any, actual: Any) -> HltVerifyReport:
        return HltVerifyReport(
            False, f"turn {turn}: {what} differs: replay {expected!r}, engine {actual!r}", turn
        )

    first = replay.frames[0]
    if first["cells"] or first["events"]:
        # Started from a snapshot: the engine records that start in frame 0 only.
        try:
            game = _game_from_frame0(replay, constants_used)
        except HaliteError as exc:
            return HltVerifyReport(False, f"turn 0: the snapshot it started from: {exc}", 0)
        start = game.replay_start
        assert start is not None  # game_from_snapshot always sets it
        if start.production_map != replay.initial_grid:
            return HltVerifyReport(
                False, "the map generated from the seed differs from the replay's", 0
            )
        want_events = [dict(sorted(e.items())) for e in first["events"]]
        got_events = [dict(sorted(e.items())) for e in start.events]
        if want_events != got_events:
            return fail(0, "events", want_events, got_events)
        if _cells(first["cells"]) != sorted(start.cells):
            return fail(0, "changed cells", _cells(first["cells"]), sorted(start.cells))
        start_order = [(c["x"], c["y"], c["production"]) for c in first["cells"]] == start.cells
    else:
        game = HaliteGame.create(
            replay.seed,
            replay.num_players,
            width=replay.width,
            height=replay.height,
            map_players=replay.map_players,
            constants=constants_used,
        )
        if game.initial_halite != replay.initial_grid:
            return HltVerifyReport(
                False, "the map generated from the seed differs from the replay's", 0
            )
        start_order = True
    factories = [p.factory for p in replay.players]
    if [p.shipyard for p in game.players] != factories:
        return fail(0, "shipyards", factories, [p.shipyard for p in game.players])
    last = replay.turns_played
    # --strict ended the game on its last turn, whose commands the engine does not
    # record: the turns before it are all that can be played again.
    aborted = replay.number_turns > last + 1
    engine_order = start_order
    for t in range(1, last + (0 if aborted else 1)):
        frame = replay.frames[t]
        moves = frame.get("moves", {})
        commands: dict[int, str | None] = {}
        for pid in game.live_players():
            listed = moves.get(str(pid))
            commands[pid] = None if listed is None else " ".join(_serial(m) for m in listed)
        if game.over:
            return HltVerifyReport(False, f"turn {t}: the engine's game ended before it", t)
        outcome = game.step(commands, dict.fromkeys(commands, "no moves recorded"))
        ships = {
            (pid, sid, x, y, cargo, inspired)
            for pid, owned in outcome.entities_at_start.items()
            for sid, x, y, cargo, inspired in owned
        }
        recorded = {
            (int(pid), int(sid), s["x"], s["y"], s["energy"], bool(s["is_inspired"]))
            for pid, owned in frame["entities"].items()
            for sid, s in owned.items()
        }
        if ships != recorded:
            return fail(t, "ships at the start", sorted(recorded - ships), sorted(ships - recorded))
        want_ordered, want_wrecks = _events(frame["events"])
        got_ordered, got_wrecks = _events([e.to_replay() for e in outcome.events])
        if want_ordered != got_ordered:
            return fail(t, "events", want_ordered, got_ordered)
        if want_wrecks != got_wrecks:
            return fail(t, "collisions", want_wrecks, got_wrecks)
        engine_order = (
            engine_order
            and frame["events"] == [e.to_replay() for e in outcome.events]
            and [(c["x"], c["y"], c["production"]) for c in frame["cells"]] == list(outcome.cells)
        )
        cells = sorted(tuple(c) for c in outcome.cells)
        if _cells(frame["cells"]) != cells:
            return fail(t, "changed cells", _cells(frame["cells"]), cells)
        energy = replay.energy_at(t)
        if energy != outcome.energy:
            return fail(t, "energy", energy, outcome.energy)
        if replay.deposited_at(t) != outcome.deposited:
            return fail(t, "deposited", replay.deposited_at(t), outcome.deposited)
    if aborted:
        return HltVerifyReport(
            True,
            f"OK: {last - 1} turns, the same map and frames; turn {last} ended the game "
            "under --strict and its commands are not recorded",
            last - 1,
        )
    if not game.over and game.max_turns == 0 and last == 0:
        # --turn-limit 0: the engine plays no turn.  Bots that failed their
        # initialization were killed before its turn loop: their last turn alive is 0.
        killed = [pid for pid, s in enumerate(replay.statistics) if s.get("last_turn_alive") == 0]
        game.end_without_turns(killed)
    if not game.over:
        return HltVerifyReport(False, f"the engine's game goes on after turn {last}", last)
    result = game.result()
    if tuple(result.ranks) != tuple(replay.ranks):
        return fail(last, "final ranks", replay.ranks, result.ranks)
    order = "" if engine_order else " (cells or shipwrecks not in the official engine's order)"
    return HltVerifyReport(True, f"OK: {last} turns, the same map, frames and ranks{order}", last)
