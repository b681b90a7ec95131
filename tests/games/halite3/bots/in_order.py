"""A Halite III test bot that acts on its ships in the order it receives them (stdlib only).

Usage: ``python in_order.py SCRIPT.json``.  The script says, for every turn and player,
what to send as a list of ``[k, action]`` items: ``[k, "n"]`` (or ``s``, ``e``, ``w``,
``o``) moves the k-th ship listed in the frame for this player, ``[k, "c"]`` turns it
into a dropoff, ``[-1, "g"]`` spawns.  The items go out in the script's order, so the
bot knows its ships only by their place in the frame, like any bot that walks the list
it is given and acts on each ship in turn.  The script also gives each seat's name.

Written from a recorded official game with the ships numbered in the order the official
engine listed them, the bot plays that game again move for move, but only when the
engine lists ships in the official engine's order: listed in any other order, the same
orders land on other ships and the game goes differently.
"""

import json
import sys


def read_line() -> str:
    line = sys.stdin.readline()
    if not line:
        sys.exit(0)
    return line


def main() -> None:
    with open(sys.argv[1], encoding="utf-8") as handle:
        script = json.load(handle)
    read_line()  # constants JSON
    num_players, me = map(int, read_line().split())
    for _ in range(num_players):
        read_line()
    _width, height = map(int, read_line().split())
    for _ in range(height):
        read_line()
    sys.stdout.write(script["names"][me] + "\n")
    sys.stdout.flush()
    while True:
        turn = int(read_line())
        mine: list[str] = []
        for _ in range(num_players):
            pid, ships, dropoffs, _halite = map(int, read_line().split())
            for _ in range(ships):
                ship_id = read_line().split()[0]
                if pid == me:
                    mine.append(ship_id)
            for _ in range(dropoffs):
                read_line()
        for _ in range(int(read_line())):
            read_line()
        words = []
        for place, action in script["turns"].get(str(turn), {}).get(str(me), []):
            if action == "g":
                words.append("g")
            elif action == "c":
                words.append(f"c {mine[place]}")
            else:
                words.append(f"m {mine[place]} {action}")
        sys.stdout.write(" ".join(words) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
