"""Engine rules the recorded games do not exercise, checked on small hand-made positions."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

from snakewar.games.halite3 import (
    CommandParseError,
    Constants,
    ConstantsError,
    ConstructCommand,
    HaliteError,
    HaliteGame,
    MoveCommand,
    Ship,
    ShipRows,
    SpawnCommand,
    SpawnEvent,
    parse_commands,
    turns_for_size,
)


def small_game(
    halite: list[list[int]],
    shipyards: list[tuple[int, int]],
    constants: Constants | None = None,
    max_turns: int = 50,
) -> HaliteGame:
    c = constants or Constants()
    return HaliteGame(
        seed=7,
        width=len(halite[0]),
        height=len(halite),
        halite=halite,
        shipyards=shipyards,
        constants=dataclasses.replace(c, MAX_TURNS=max_turns),
        max_turns=max_turns,
    )


def flat(value: int, width: int = 16, height: int = 16) -> list[list[int]]:
    return [[value] * width for _ in range(height)]


# -- parsing ------------------------------------------------------------------------


def test_parse_follows_the_engine_stream_rules() -> None:
    assert parse_commands("") == []
    assert parse_commands("g m 3 n c 4") == [
        SpawnCommand(),
        MoveCommand(3, "n"),
        ConstructCommand(4),
    ]
    # No blank is needed before the direction, and tabs separate like spaces.
    assert parse_commands("m 1n\tm\t2\to") == [MoveCommand(1, "n"), MoveCommand(2, "o")]
    # A construct whose id cannot be read ends parsing silently.
    assert parse_commands("g c abc m 1 n") == [SpawnCommand()]
    assert parse_commands("m 1 s c") == [MoveCommand(1, "s")]


def test_plain_lines_read_as_the_stream_rules_read_them(monkeypatch: pytest.MonkeyPatch) -> None:
    # Well-formed lines take a fast path; it must agree with the character-level parser
    # on every line, including blanks the engine does not skip (\x1c, \xa0), digits it
    # does not read ("²") and long ids.
    import random

    from snakewar.games.halite3.rules import commands as commands_module

    ids = ["7", "42", "0007", "9" * 18, "9" * 19, "-3", "+4", "x", "\u00b2", "\u0661"]
    odd = ["m", "c", "n", "q", "1n", "G", "gg", "nn"]
    blanks = [" ", "  ", "\t", "\v", "\r\n", "\x1c", "\xa0", "\u2003"]
    rng = random.Random(5)
    lines = ["g\x1cg", "m 1 n\x1f", "m 9 e " * 50 + "g"]
    for _ in range(3000):
        words: list[str] = []
        for _ in range(rng.randrange(8)):
            kind = rng.random()
            if kind < 0.5:
                words += ["m", rng.choice(ids[:4]), rng.choice("nsewo")]
            elif kind < 0.6:
                words += ["c", rng.choice(ids)]
            elif kind < 0.7:
                words.append("g")
            elif kind < 0.95:
                words += ["m", rng.choice(ids), rng.choice("nsewoq")]
            else:
                words.append(rng.choice(odd))
        blank = rng.choice(blanks) if rng.random() < 0.1 else " "
        line = "".join(
            word + (blank if rng.random() < 0.9 else rng.choice(blanks)) for word in words
        )
        lines.append(line.strip() if rng.random() < 0.5 else line)

    def read(line: str) -> object:
        try:
            return parse_commands(line)
        except CommandParseError as exc:
            return exc.message

    fast = [read(line) for line in lines]
    plain = sum(commands_module._parse_plain(line) is not None for line in lines)
    monkeypatch.setattr(commands_module, "_parse_plain", lambda line: None)
    assert fast == [read(line) for line in lines]
    assert read("g\x1cg") == 'failed to decode bot message: "\x1c" (at position 2)'
    assert sum(isinstance(f, list) and len(f) > 1 for f in fast) > 200  # many parsed lines
    assert plain > 1000  # and the fast path read many of them


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("m 5 o x 1 2", 'failed to decode bot message: "x" (at position 7)'),
        ("m 13 q", 'failed to decode bot message: "q"'),
        ("m abc n", 'failed to decode bot message: ""'),
        ("m 5", 'failed to decode bot message: ""'),
        ("G", 'failed to decode bot message: "G" (at position 1)'),
    ],
)
def test_undecodable_lines_are_fatal(line: str, message: str) -> None:
    with pytest.raises(CommandParseError) as info:
        parse_commands(line)
    assert info.value.message == message


# -- constants and turns -------------------------------------------------------------


def test_turn_count_follows_the_larger_side_and_is_not_clamped() -> None:
    c = Constants()
    assert [turns_for_size(s, s, c) for s in (32, 40, 48, 56, 64)] == [400, 425, 450, 475, 500]
    assert turns_for_size(48, 32, c) == 450
    assert turns_for_size(80, 80, c) == 550
    assert turns_for_size(64, 64, c.with_turn_limit(37)) == 37


def test_a_turn_limit_of_zero_is_a_game_of_no_turns() -> None:
    # The engine's --turn-limit is an unsigned long; 0 runs its turn loop no time.
    assert turns_for_size(64, 64, Constants().with_turn_limit(0)) == 0
    assert turns_for_size(32, 32, Constants().with_turn_limit(2**64 - 1)) == 2**64 - 1
    for bad in (-1, 2**64):
        with pytest.raises(ConstantsError, match="turn limit must be 0 to"):
            Constants().with_turn_limit(bad)
    game = HaliteGame.create(9, 4, width=32, height=32, turn_limit=0)
    assert not game.over
    with pytest.raises(HaliteError, match="0 turns"):
        game.step(dict.fromkeys(range(4), ""))
    game.end_without_turns(failed=[2])
    result = game.result()
    # As the engine counts it: one turn (its counter left the loop at 1), none played.
    assert (game.turn, result.number_turns, game.history) == (0, 1, [])
    assert result.scores == (5000, 5000, 0, 5000)
    assert result.ranks[2] == 4 and result.terminated == (False, False, True, False)
    assert [s["last_turn_alive"] for s in result.statistics] == [1, 1, 0, 1]
    with pytest.raises(HaliteError, match="only a game of 0 turns"):
        game.end_without_turns()
    with pytest.raises(HaliteError, match="only a game of 0 turns"):
        HaliteGame.create(9, 2, width=32, height=32, turn_limit=1).end_without_turns()


def test_constants_round_trip_and_strict_overrides() -> None:
    c = Constants()
    assert Constants.loads(c.dumps()) == c
    data = c.to_json()
    del data["PERSISTENCE"]
    with pytest.raises(ConstantsError, match="missing key 'PERSISTENCE'"):
        Constants.from_json(data)
    with pytest.raises(ConstantsError, match="MAX_ENERGY must be a int"):
        Constants.from_json({**c.to_json(), "MAX_ENERGY": "lots"})
    with pytest.raises(ConstantsError, match="not valid JSON"):
        Constants.loads("{nope")
    assert list(json.loads(c.dumps(game_seed=1))) == sorted(json.loads(c.dumps(game_seed=1)))


def test_create_applies_turn_limit_and_the_seed_size_quirk() -> None:
    game = HaliteGame.create(100201, 2, width=40, height=40, turn_limit=3)
    assert game.max_turns == 3 and game.constants.MAX_TURNS == 3
    assert game.constants.DEFAULT_MAP_WIDTH == 56  # the size this seed would have picked
    for _ in range(3):
        game.step({0: "", 1: ""})
    assert game.over and game.result().number_turns == 4
    with pytest.raises(HaliteError, match="game is over"):
        game.step({0: "", 1: ""})


def test_missing_command_line_for_a_live_player_is_an_error() -> None:
    game = HaliteGame.create(5, 2, width=32, height=32)
    with pytest.raises(HaliteError, match="no command line given for live player 1"):
        game.step({0: ""})


# -- turn resolution -----------------------------------------------------------------


def test_simultaneous_spawns_and_constructs_number_from_the_highest_player() -> None:
    game = small_game(flat(1), [(2, 2), (12, 2), (2, 12), (12, 12)])
    outcome = game.step({0: "g", 1: "g", 2: "g", 3: "g"})
    spawns = [e for e in outcome.events if isinstance(e, SpawnEvent)]
    assert len(spawns) == len(outcome.events)
    assert [(e.owner, e.ship_id) for e in spawns] == [(3, 0), (2, 1), (1, 2), (0, 3)]
    game.step({0: "m 3 e", 1: "m 2 e", 2: "m 1 e", 3: "m 0 e"})
    for player in game.players:
        player.energy = 10_000
    outcome = game.step({0: "c 3", 1: "c 2", 2: "", 3: "c 0"})
    constructs = [e.to_list() for e in outcome.events]
    assert constructs == [
        ["construct", 3, 0, 13, 12, 0],
        ["construct", 1, 2, 13, 2, 1],
        ["construct", 0, 3, 3, 2, 2],
    ]


def test_conversion_credit_above_the_cost_is_a_net_gain() -> None:
    halite = flat(0)
    halite[5][5] = 3900
    game = small_game(halite, [(5, 4), (12, 12)])
    game.step({0: "g", 1: ""})
    game.step({0: "m 0 s", 1: ""})  # the yard cell holds 0, so moving is free
    ship = game.ships[0]
    assert (ship.x, ship.y) == (5, 5)
    ship.cargo = 900
    energy = game.players[0].energy
    outcome = game.step({0: "c 0", 1: ""})
    assert outcome.events[0].to_list() == ["construct", 0, 0, 5, 5, 0]
    assert game.players[0].energy == energy + 3900 + 900 - 4000
    assert game.players[0].deposited == 4800
    assert game.cell(5, 5) == 0 and game.owner[game.width * 5 + 5] == 0


def test_overspending_kills_only_the_offender_and_the_others_commit() -> None:
    game = small_game(flat(100), [(2, 2), (12, 12)])
    game.players[0].energy = 900
    outcome = game.step({0: "g", 1: "g"})
    assert outcome.killed == (0,) and outcome.accepted == (1,)
    assert [e.to_list() for e in outcome.events] == [["spawn", 1, 0, 12, 12]]
    assert "player attempted to use 1000 halite, but only 900" in game.error_logs[0]
    assert game.players[0].terminated and game.players[0].energy == 0


def test_game_ends_when_the_map_and_all_cargo_are_empty() -> None:
    game = small_game(flat(0), [(2, 2), (12, 12)])
    game.step({0: "", 1: ""})
    assert game.over
    result = game.result()
    assert result.number_turns == 2
    # Tied on every turn: the seeded random ids decide.
    assert sorted(result.ranks) == [1, 2]


def test_one_player_game_runs_while_the_player_can_play() -> None:
    game = small_game(flat(50), [(2, 2)], max_turns=30)
    game.step({0: "g"})
    while not game.over:
        game.step({0: ""})
    assert game.turn == 30
    assert game.result().ranks == (1,)
    broke = small_game(flat(50), [(2, 2)], max_turns=30)
    broke.players[0].energy = 999
    broke.step({0: ""})
    assert broke.over and broke.turn == 1


def test_two_player_game_ends_when_one_player_is_out_of_resources() -> None:
    game = small_game(flat(10), [(2, 2), (12, 12)])
    game.players[1].energy = 999
    game.step({0: "", 1: ""})
    assert game.over
    result = game.result()
    assert result.ranks == (1, 2)
    assert result.scores == (5000, 0)  # a player out of resources scores 0
    assert result.statistics[1]["last_turn_alive"] == 1
    assert result.statistics[0]["last_turn_alive"] == 2


def test_strict_mode_ends_the_game_on_a_warning() -> None:
    constants = dataclasses.replace(Constants(), STRICT_ERRORS=True)
    game = small_game(flat(1), [(2, 2), (12, 12)], constants=constants)
    game.step({0: "g", 1: ""})
    game.halite[2 * game.width + 2] = 500  # the ship now stands on halite it cannot pay to leave
    game.step({0: "m 0 n", 1: ""})
    assert game.over
    assert "was directed to use 50 halite" in game.error_logs[0]


def test_move_into_a_standing_ship_collides_and_drops_cargo_on_the_cell() -> None:
    game = small_game(flat(1), [(2, 2), (12, 12)])
    game.step({0: "g", 1: ""})
    game.step({0: "m 0 e", 1: ""})
    game.step({0: "g", 1: ""})
    game.ships[0].cargo = 300
    game.ships[1].cargo = 40
    outcome = game.step({0: "m 1 e", 1: ""})
    assert [e.to_list() for e in outcome.events] == [["collision", 3, 2, [1, 0]]]
    assert game.cell(3, 2) == 340
    assert "owned entities 1, 0 collided on cell (3, 2)" in game.error_logs[0]
    stats = game.stats[0]
    assert stats.self_collisions == 2 and stats.all_collisions == 2 and stats.total_dropped == 340


def test_capture_flips_outnumbered_ships_when_enabled() -> None:
    constants = dataclasses.replace(Constants(), CAPTURE_ENABLED=True)
    game = small_game(flat(1), [(2, 2), (4, 2)], constants=constants)
    game.step({0: "g", 1: "g"})  # ids: player 1 -> 0, player 0 -> 1
    game.step({0: "", 1: "m 0 n g"})
    game.step({0: "", 1: "m 2 s g"})
    assert not [e for h in game.history for e in h.events if e.to_list()[0] == "capture"]
    outcome = game.step({0: "", 1: "m 3 e g"})
    # Four of player 1's ships within 3 cells of player 0's lone ship: it changes sides.
    captures = [e.to_list() for e in outcome.events if e.to_list()[0] == "capture"]
    assert captures == [["capture", 2, 2, 0, 1, 1, 5]]
    assert game.ships[5].owner == 1 and 1 not in game.ships


def _play_greedy_game(seed: int) -> tuple[list[tuple[Any, ...]], object]:
    from snakewar.games.halite3.bots import make_halite_bot
    from tests.games.halite3.inprocess import play_out

    game = HaliteGame.create(seed, 4, width=40, height=40, turn_limit=160)
    play_out(game, [make_halite_bot("greedy", seed=seed) for _ in range(4)])
    crowded = max(sum(len(ships) for ships in o.entities_at_start.values()) for o in game.history)
    return [
        (o.inspired_at_start, o.cells, [e.to_list() for e in o.events], o.energy, crowded)
        for o in game.history
    ], game.result()


@pytest.mark.parametrize(("width", "height"), [(64, 64), (40, 33), (9, 9), (8, 12), (3, 5), (1, 1)])
def test_neighbour_counts_match_a_brute_force_count(
    width: int, height: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The numpy counts look at each ship's nearby cells only; count every pair instead.
    import random

    import snakewar.games.halite3.rules.game as game_module
    from snakewar.games.halite3.rules.game import Ship, _opponents_near_radii

    monkeypatch.setattr(game_module, "_VECTOR_MIN", 0)

    rng = random.Random(width * 100 + height)

    def distance(ax: int, ay: int, bx: int, by: int) -> int:
        dx, dy = abs(ax - bx), abs(ay - by)
        return min(dx, width - dx) + min(dy, height - dy)

    for _ in range(20):
        ships = [
            Ship(i, rng.randrange(4), rng.randrange(width), rng.randrange(height))
            for i in range(rng.randrange(1, 120))
        ]
        structures = [
            (rng.randrange(width), rng.randrange(height), rng.randrange(5)) for _ in range(6)
        ]
        for others in (None, structures):
            points = [(o.x, o.y, o.owner) for o in ships] if others is None else others
            radii = (2, 4, 0)
            expected = [
                [
                    sum(1 for x, y, o in points if o != s.owner and distance(s.x, s.y, x, y) <= r)
                    for s in ships
                ]
                for r in radii
            ]
            assert _opponents_near_radii(ships, width, height, radii, others) == expected


def test_vectorised_distances_agree_with_the_plain_loops(monkeypatch: pytest.MonkeyPatch) -> None:
    # The recorded games have few ships; crowded games take the numpy path.
    import snakewar.games.halite3.rules.game as game_module

    fast_turns, fast_result = _play_greedy_game(11)
    assert max(len(t[0]) for t in fast_turns) > 0
    assert fast_turns[0][-1] > game_module._VECTOR_MIN  # the game did take the numpy path
    monkeypatch.setattr(game_module, "_VECTOR_MIN", 10**9)
    plain_turns, plain_result = _play_greedy_game(11)
    assert fast_turns == plain_turns
    assert fast_result == plain_result


def test_ship_rows_read_like_a_tuple_of_rows() -> None:
    # The history keeps each player's ships flat; read back, they are the rows.
    ships = [Ship(7, 0, 1, 2, 30, True), Ship(9, 0, 3, 4), Ship(2, 0, 5, 6, 1)]
    rows = tuple((s.id, s.x, s.y, s.cargo, s.inspired) for s in ships)
    flat = ShipRows(ships)
    assert len(flat) == 3 and tuple(flat) == rows and list(flat) == list(rows)
    assert flat[0] == (7, 1, 2, 30, True) and flat[-1] == rows[-1] and flat[1:] == rows[1:]
    assert flat == rows and flat == ShipRows(ships) and flat != ShipRows(ships[:2])
    assert hash(flat) == hash(ShipRows(ships)) and (9, 3, 4, 0, False) in flat
    assert flat.index(rows[2]) == 2 and repr(flat) == f"ShipRows({list(rows)!r})"
    assert len(ShipRows()) == 0 and list(ShipRows()) == []
    with pytest.raises(IndexError):
        flat[3]
