"""The official text protocol, engine side: the init message and each turn's frame.

Both are exactly what the official engine writes to a bot's stdin (see the spec §3):
the constants JSON line (keys sorted, plus ``game_seed``, ``map_width`` and
``map_height``), ``<players> <my_id>``, one ``<id> <x> <y>`` line per shipyard, the
size, and the map rows, **each with a trailing space**.  A frame is the turn number,
each player's ``<id> <ships> <dropoffs> <halite>`` with its ships and dropoffs, and the
cells changed during the previous turn.  Ships and changed cells come in the order the
engine's hash tables iterate (:mod:`~snakewar.games.halite3.rules.hashorder`), which the game
keeps: bots see it, and most of them act on their ships in the order listed.
"""

from __future__ import annotations

from snakewar.games.halite3.rules.game import HaliteGame

__all__ = ["frame_text", "init_text"]


def init_text(game: HaliteGame, player_id: int) -> str:
    """The init message for one player (newline-terminated lines)."""
    lines = [
        game.constants.dumps(game_seed=game.seed, map_width=game.width, map_height=game.height),
        f"{game.num_players} {player_id}",
    ]
    lines.extend(f"{p.id} {p.shipyard[0]} {p.shipyard[1]}" for p in game.players)
    lines.append(f"{game.width} {game.height}")
    w = game.width
    halite = game.halite
    for row in range(game.height):
        cells = halite[row * w : (row + 1) * w]
        lines.append("".join(f"{v} " for v in cells))
    return "\n".join(lines) + "\n"


def frame_text(game: HaliteGame) -> str:
    """The frame every live player receives at the start of the next turn.

    It is the same text for every player, so a referee builds it once per turn.
    """
    parts = [f"{game.turn + 1}\n"]
    for player in game.players:
        parts.append(f"{player.id} {len(player.ships)} {len(player.dropoffs)} {player.energy}\n")
        parts.extend(f"{s.id} {s.x} {s.y} {s.cargo}\n" for s in player.ships_in_order())
        parts.extend(f"{d.id} {d.x} {d.y}\n" for d in player.dropoffs)
    w = game.width
    halite = game.halite
    changed = game.changed_cells
    parts.append(f"{len(changed)}\n")
    parts.extend(f"{p % w} {p // w} {halite[p]}\n" for p in changed)
    return "".join(parts)
