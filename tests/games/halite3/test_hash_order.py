"""The official engine's hash-table order: the model, and bots that act in that order.

The expected orders in the model's tests were printed by a program built with GCC 12's
libstdc++ (the official engine's library) that made the same insertions and erasures on
``std::unordered_map<long, int>`` and ``std::unordered_set`` of locations hashed the
engine's way.

The bots' test replays every recorded official game whose commands are all well formed
with :file:`bots/in_order.py`, a bot that knows its ships only by their place in the
frame it receives: each recorded command is written down as "the k-th ship listed" by the
official engine.  Played through the referee with real subprocesses, the bots must get
the recorded official results, and the replay must equal the official one, every list in
order.  Listed in any other order (by id, say), the same bots play other games.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from snakewar.games.halite3 import HaliteGame, frame_text
from snakewar.games.halite3.cli.app import final_snapshot
from snakewar.games.halite3.referee.runner import play_halite_sync
from snakewar.games.halite3.replay.hlt import read_hlt, replay_document
from snakewar.games.halite3.rules.hashorder import HashOrder, location_hash
from snakewar.games.halite3.testing.conformance import (
    companion_files,
    iter_oracle_games,
    read_oracle,
    read_transcript,
)
from snakewar.referee.process import Program
from tests.conformance_data import require
from tests.games.halite3.oracle import CONFORMANCE_DIR

IN_ORDER_BOT = Path(__file__).resolve().parent / "bots" / "in_order.py"
GAMES = list(iter_oracle_games(CONFORMANCE_DIR)) if CONFORMANCE_DIR.is_dir() else []


# -- the model against libstdc++ ----------------------------------------------------------


def _ids(order: HashOrder[int]) -> list[int]:
    return list(order)


def test_ids_fill_13_buckets_then_grow_to_29_and_59() -> None:
    table: HashOrder[int] = HashOrder()
    assert table.bucket_count == 1 and list(table) == []
    for key in range(13):
        assert table.add(key, key)
    # Each key opens an empty bucket, and a node in an empty bucket goes to the front.
    assert table.bucket_count == 13 and _ids(table) == list(range(12, -1, -1))
    table.add(13, 13)
    # The rehash walks the old list, putting each node in front again: the order flips.
    assert table.bucket_count == 29 and _ids(table) == [13, *range(13)]
    for key in range(14, 30):
        table.add(key, key)
    assert table.bucket_count == 59
    assert _ids(table) == [29, *range(12, -1, -1), *range(13, 29)]
    assert not table.add(5, 5) and len(table) == 30 and 5 in table


def test_a_shared_bucket_takes_new_keys_at_its_front_and_erase_keeps_the_rest() -> None:
    table: HashOrder[int] = HashOrder()
    for key in (5, 18, 31, 7):  # 5, 18 and 31 share bucket 5 of 13
        table.add(key, key)
    assert _ids(table) == [7, 31, 18, 5]
    table.discard(18)
    table.add(44, 44)
    assert _ids(table) == [7, 44, 31, 5]
    table.discard(7)
    table.add(20, 20)  # bucket 7 is empty again: its new key goes to the very front
    assert _ids(table) == [20, 44, 31, 5]
    table.clear()
    table.add(3, 3)
    table.add(16, 16)
    assert _ids(table) == [16, 3] and table.bucket_count == 13


def test_locations_hash_like_the_engine() -> None:
    table: HashOrder[tuple[int, int]] = HashOrder()
    for x, y in ((0, 0), (1, 0), (0, 1), (5, 7), (31, 31), (12, 3)):
        table.add((x, y), location_hash(x, y))
    assert list(table) == [(12, 3), (31, 31), (5, 7), (0, 1), (1, 0), (0, 0)]
    table.discard((1, 0))
    table.add((2, 2), location_hash(2, 2))
    assert list(table) == [(2, 2), (12, 3), (31, 31), (5, 7), (0, 1), (0, 0)]
    assert location_hash(3, 4) == 3 ^ (4 + 0x9E3779B9 + (3 << 6) + (3 >> 2))


def test_clear_keeps_the_bucket_count() -> None:
    table: HashOrder[int] = HashOrder()
    for key in range(40):
        table.add(key, key)
    assert table.bucket_count == 59
    table.clear()
    assert len(table) == 0 and table.bucket_count == 59
    for key in (1, 60, 2):  # 1 and 60 share bucket 1 of 59
        table.add(key, key)
    assert _ids(table) == [2, 60, 1]


def test_many_at_once_is_one_at_a_time() -> None:
    # add_all and discard_all are the engine's hot paths; they must change the table
    # exactly as the same adds and discards one by one, rehashes and cached orders too.
    import random

    rng = random.Random(15)
    one: HashOrder[int] = HashOrder()
    many: HashOrder[int] = HashOrder()
    for _ in range(300):
        keys = [rng.randrange(2000) for _ in range(rng.randrange(40))]
        if rng.random() < 0.6:
            for key in keys:
                one.add(key, key * 7)
            list(many)  # a cached order must not survive the change
            many.add_all(keys, [key * 7 for key in keys])
        else:
            for key in keys:
                one.discard(key)
            list(many)
            many.discard_all(keys)
        assert list(one) == list(many)
        assert one.bucket_count == many.bucket_count and len(one) == len(many)
    assert one.bucket_count > 500  # it did rehash, many times
    for size in (0, 1, 13, 14, 29, 30, 600):
        keys = rng.sample(range(5000), size)
        built: HashOrder[int] = HashOrder()
        built.add_all(keys, [key * 3 for key in keys])
        fresh = HashOrder.of(keys, [key * 3 for key in keys])
        assert list(fresh) == list(built) and fresh.bucket_count == built.bucket_count
        fresh.add(5001, 5001)
        built.add(5001, 5001)
        assert list(fresh) == list(built)
    with pytest.raises(ValueError, match="distinct"):
        HashOrder.of([1, 1], [1, 1])


class _LinkedList:
    """The container as the rules in hashorder's docstring state them, written plainly.

    One list of (key, code) nodes, front first.  A node goes in front of the first node
    of its bucket, or at the very front when its bucket is empty; a rehash re-links the
    old list's nodes one by one, in order.
    """

    def __init__(self) -> None:
        self.nodes: list[tuple[int, int]] = []
        self.count = 1

    def link(self, key: int, code: int) -> None:
        bucket = code % self.count
        for index, (_, other) in enumerate(self.nodes):
            if other % self.count == bucket:
                self.nodes.insert(index, (key, code))
                return
        self.nodes.insert(0, (key, code))

    def rehash(self, count: int) -> None:
        old, self.nodes, self.count = self.nodes, [], count
        for key, code in old:
            self.link(key, code)

    def erase(self, key: int) -> None:
        self.nodes = [node for node in self.nodes if node[0] != key]

    def keys(self) -> list[int]:
        return [key for key, _ in self.nodes]


@pytest.mark.parametrize("spread", [7, 1000, 10**6])
def test_the_model_follows_a_plainly_linked_list(spread: int) -> None:
    # Random inserts, erases and clears, with codes that share buckets often (spread 7)
    # or seldom: the table's order is the plain list's after every step.
    import random

    rng = random.Random(spread)
    table: HashOrder[int] = HashOrder()
    plain = _LinkedList()

    def add(key: int) -> None:
        before = table.bucket_count
        if table.add(key, codes[key]):
            if table.bucket_count != before:
                plain.rehash(table.bucket_count)
            plain.link(key, codes[key])

    codes = {key: rng.randrange(spread) for key in range(400)}
    for _ in range(3000):
        key = rng.randrange(400)
        roll = rng.random()
        if roll < 0.6:
            add(key)
        elif roll < 0.995:
            table.discard(key)
            plain.erase(key)
        else:
            table.clear()
            plain.nodes.clear()
        assert list(table) == plain.keys()
    assert table.bucket_count > 200
    # A table built at once is the same as one built key by key.
    table, plain = HashOrder(), _LinkedList()
    keys = rng.sample(range(400), 300)
    for key in keys:
        add(key)
    assert list(HashOrder.of(keys, [codes[key] for key in keys])) == plain.keys()


def test_fresh_order_is_the_order_of_a_table_built_key_by_key() -> None:
    # fresh_order sorts the big rehash stages instead of walking them key by key; it
    # must give the table's order at every size, for codes that share buckets or not,
    # and for codes past 2**63 (location hashes are 64-bit).
    import random

    from snakewar.games.halite3.rules.hashorder import fresh_order

    rng = random.Random(16)
    for size in (0, 1, 13, 14, 31, 32, 33, 59, 60, 127, 128, 300, 541, 542, 2000):
        for spread in (5, size + 1, 2**64):
            keys = rng.sample(range(10**6), size)
            codes = [rng.randrange(spread) for _ in keys]
            built: HashOrder[int] = HashOrder()
            built.add_all(keys, codes)
            assert fresh_order(keys, codes) == list(built), (size, spread)
    cells = [(x, y) for x in range(64) for y in range(64)]
    rng.shuffle(cells)
    codes = [location_hash(x, y) for x, y in cells]
    assert fresh_order(cells, codes) == list(HashOrder.of(cells, codes))


# -- what the engine lists in that order ----------------------------------------------------


def test_final_snapshot_lists_ships_in_the_frame_order() -> None:
    require(GAMES, f"Halite III conformance games under {CONFORMANCE_DIR}")
    unsorted = 0
    for path in GAMES:
        header, turns, _ = read_oracle(path)
        game = _recorded_game(header, turns)
        snapshot = final_snapshot(game, game.num_players).split(";")
        frame = _frame_orders(frame_text(game), game.num_players)
        for pid in range(game.num_players):
            # pid;energy;shipyard,dropoffs;ships;  (after the map: version;map;cells;)
            ships = [int(s.split("-")[0]) for s in snapshot[3 + 4 * pid + 3].split(",") if s]
            assert ships == frame[pid], f"{path.name} player {pid}"
            unsorted += ships != sorted(ships)
    assert unsorted > 0  # the order is not merely by id


def _recorded_game(header: dict[str, Any], turns: list[dict[str, Any]]) -> HaliteGame:
    game = HaliteGame.create(
        header["seed"], header["num_players"], width=header["width"], height=header["height"]
    )
    for record in turns:
        game.step({int(k): v for k, v in record["commands"].items()})
    return game


# -- bots that act in the order they receive ships -------------------------------------------


def _frame_orders(frame: str, num_players: int) -> dict[int, list[int]]:
    """Each player's ship ids in the order a frame lists them."""
    lines = frame.split("\n")
    index = 1
    orders: dict[int, list[int]] = {}
    for _ in range(num_players):
        pid, ships, dropoffs, _energy = map(int, lines[index].split())
        index += 1
        orders[pid] = [int(lines[index + k].split()[0]) for k in range(ships)]
        index += ships + dropoffs
    return orders


def _script(path: Path) -> dict[str, Any] | None:
    """The in-order bots' script for one recorded game (None: a line it cannot say).

    Every ship command becomes "the k-th ship the official engine listed"; a game with a
    missing, malformed or foreign command (the deliberate faults) is left out.
    """
    header, turns, _ = read_oracle(path)
    transcript, _replay = companion_files(path)
    _init, frames = read_transcript(transcript)
    n = header["num_players"]
    script: dict[str, Any] = {"names": [p["name"] for p in header["players"]], "turns": {}}
    for record in turns:
        t = record["t"]
        if t not in frames:
            return None
        orders = _frame_orders(frames[t], n)
        per_player: dict[str, list[list[Any]]] = {}
        for pid, line in record["commands"].items():
            if line is None:
                return None
            place = {sid: k for k, sid in enumerate(orders[int(pid)])}
            words = line.split()
            items: list[list[Any]] = []
            i = 0
            try:
                while i < len(words):
                    if words[i] == "g":
                        items.append([-1, "g"])
                        i += 1
                    elif words[i] == "c":
                        items.append([place[int(words[i + 1])], "c"])
                        i += 2
                    elif words[i] == "m" and words[i + 2] in ("n", "s", "e", "w", "o"):
                        items.append([place[int(words[i + 1])], words[i + 2]])
                        i += 3
                    else:
                        return None
            except (KeyError, IndexError, ValueError):
                return None
            per_player[pid] = items
        script["turns"][str(t)] = per_player
    return script


def _scripted_games() -> list[tuple[Path, dict[str, Any]]]:
    out = []
    for path in GAMES:
        script = _script(path)
        if script is not None:
            out.append((path, script))
    return out


SCRIPTED = _scripted_games()


def test_most_recorded_games_can_be_scripted() -> None:
    require([p for p, _ in SCRIPTED], "a Halite III game with well-formed commands only")
    assert len(SCRIPTED) * 2 >= len(GAMES)  # the faults are in one game of three


@pytest.mark.parametrize(
    ("path", "script"), SCRIPTED, ids=[p.name.split(".")[0] for p, _ in SCRIPTED]
)
def test_bots_acting_in_received_order_get_the_official_results(
    path: Path, script: dict[str, Any], tmp_path: Path
) -> None:
    header, _turns, result = read_oracle(path)
    script_path = tmp_path / "script.json"
    script_path.write_text(json.dumps(script), encoding="utf-8")
    bot = Program((sys.executable, str(IN_ORDER_BOT), str(script_path)))
    match = play_halite_sync(
        [bot] * header["num_players"],
        seed=header["seed"],
        width=header["width"],
        height=header["height"],
    )
    assert not match.failures, match.failures
    game = match.game
    final = game.result()
    assert game.turn == result["turns_played"]
    assert list(final.ranks) == result["ranks"]
    assert list(final.scores) == result["scores"]
    assert list(final.terminated) == result["terminated"]
    # And the whole game, move for move: the official replay, every list in order.
    _, replay = companion_files(path)
    official = read_hlt(replay).document
    ours = replay_document(game, list(match.names))
    official["game_statistics"].pop("execution_time")
    ours["game_statistics"].pop("execution_time")
    assert ours == official


def test_the_same_bots_play_other_games_when_ships_are_listed_by_id() -> None:
    """The bots' test can fail: the order changes what in-order bots do."""
    require([p for p, _ in SCRIPTED], "a Halite III game with well-formed commands only")
    different = 0
    for path, script in SCRIPTED:
        header, _turns, result = read_oracle(path)
        game = HaliteGame.create(
            header["seed"], header["num_players"], width=header["width"], height=header["height"]
        )
        while not game.over:
            lines: dict[int, str | None] = {}
            for pid in game.live_players():
                by_id = sorted(game.players[pid].ships)
                items = script["turns"].get(str(game.turn + 1), {}).get(str(pid), [])
                words = []
                for place, action in items:
                    if action == "g":
                        words.append("g")
                    elif place < len(by_id):
                        verb = "c" if action == "c" else "m"
                        tail = "" if action == "c" else f" {action}"
                        words.append(f"{verb} {by_id[place]}{tail}")
                lines[pid] = " ".join(words)
            game.step(lines)
        final = game.result()
        different += (list(final.ranks), list(final.scores), game.turn) != (
            result["ranks"],
            result["scores"],
            result["turns_played"],
        )
    assert different * 2 > len(SCRIPTED)


def test_commit_steps_visit_players_in_the_engine_order() -> None:
    from snakewar.games.halite3.rules.commands import SpawnCommand, parse_commands
    from snakewar.games.halite3.rules.game import _command_kinds, _players_with

    # Up to 13 players: descending ids; from 14 on the table grows to 29 buckets.
    some = _command_kinds({pid: parse_commands("g") for pid in (0, 1, 2, 5)} | {1: []})
    assert _players_with(some, SpawnCommand) == [5, 2, 0]
    sixteen = _command_kinds({pid: parse_commands("g") for pid in range(16)})
    assert _players_with(sixteen, SpawnCommand) == [15, 14, 13, *range(13)]
    table: HashOrder[int] = HashOrder()
    for pid in range(16):
        table.add(pid, pid)
    assert list(table) == [15, 14, 13, *range(13)]
